"""fio's log files (write_bw_log, write_lat_log, write_iops_log, write_hist_log) from simulated jobs.

Formats as fio 3.x writes them (HOWTO "Log File Formats"; fio 3.33's files have five columns):

* bandwidth, IOPS and latency logs: ``time (ms), value, data direction (0 read, 1 write), block
  size, offset`` per line; windowed (``log_avg_msec``), one line per direction and window, with
  block size and offset 0 as fio writes them. Values: KiB/s, IOPS, latency in ns.
* histogram log (``write_hist_log`` with ``log_hist_msec``): ``time (ms), direction, block size,``
  then the count of each of fio's 1856 latency buckets (``nvsim.fio.json_report``'s histogram) in the
  window; fio's tools/hist/fiologparser_hist.py reads it.
* names: ``<prefix>_bw.<x>.log``, ``_iops``, ``_lat``/``_clat``/``_slat``, ``_clat_hist``, where
  ``x`` numbers the jobs (each numjobs clone) from 1, and ``per_job_logs=0`` drops ``.<x>``; the
  prefix is the option's value, or the job's name when the option is bare.

The model's answer is a steady state, so every window of a job holds its mean rate and mean
latency, and a histogram window holds the job's latency distribution (the event mode's samples)
scaled to the window's I/Os. fio logs every I/O when ``log_avg_msec`` is 0 (its default); nvsim
has no per-I/O timeline, so it then writes windows of ``DEFAULT_LOG_MSEC`` and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from .json_report import PLAT_NR, plat_val_to_idx

DEFAULT_LOG_MSEC = 500
"""Window of the bandwidth, IOPS and latency logs when the job sets no ``log_avg_msec`` (fio's
``bw_avg_time``): fio would log every I/O, which a steady-state model cannot."""

LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log")


@dataclass(frozen=True)
class LogEntry:
    """What one job entry (a job, or one numjobs clone) did, for its logs."""

    name: str
    options: dict
    index: int  # fio's job number, from 1
    runtime_s: float
    directions: dict  # "read"/"write" -> {ios, bytes, mean_latency_ns, latencies_ns}


def _msec_option(options: dict, key: str) -> int:
    value = options.get(key, "0") or "0"
    if not value.isdigit():
        raise InputError(key, f"must be a whole number of milliseconds, got {value!r}")
    return int(value)


def _windows_ms(runtime_ms: int, window_ms: int) -> list[int]:
    """The times fio stamps windowed entries with: every window, and a last flush at the end."""
    times = list(range(window_ms, runtime_ms + 1, window_ms))
    if runtime_ms > 0 and (not times or times[-1] != runtime_ms):
        times.append(runtime_ms)
    return times


def _file_name(entry: LogEntry, option: str, kind: str) -> str:
    value = entry.options.get(option)
    prefix = value if value not in (None, "", "1") else entry.name
    per_job = entry.options.get("per_job_logs", "1") not in ("0", "false")
    return f"{prefix}_{kind}.{entry.index}.log" if per_job else f"{prefix}_{kind}.log"


def _value_lines(entry: LogEntry, window_ms: int, value_of) -> list[str]:
    """One line per window and direction with I/O: ``time, value, ddir, 0, 0``."""
    runtime_ms = int(round(entry.runtime_s * 1000))
    lines = []
    for time_ms in _windows_ms(runtime_ms, window_ms):
        for ddir_index, ddir in enumerate(("read", "write")):
            data = entry.directions.get(ddir) or {}
            if data.get("ios"):
                lines.append(f"{time_ms}, {value_of(data, entry.runtime_s)}, {ddir_index}, 0, 0")
    return lines


def _hist_lines(entry: LogEntry, window_ms: int) -> list[str]:
    """``time, ddir, bs, bucket counts...``: the job's latency histogram scaled to each window's I/Os."""
    runtime_ms = int(round(entry.runtime_s * 1000))
    lines = []
    previous = 0
    for time_ms in _windows_ms(runtime_ms, window_ms):
        for ddir_index, ddir in enumerate(("read", "write")):
            data = entry.directions.get(ddir) or {}
            samples = data.get("latencies_ns")
            if not data.get("ios") or samples is None or len(samples) == 0:
                continue
            counts = np.bincount(plat_val_to_idx(np.rint(np.asarray(samples)).astype(np.int64)), minlength=PLAT_NR)
            window_ios = data["ios"] * (time_ms - previous) / runtime_ms
            scaled = np.rint(counts * window_ios / counts.sum()).astype(np.int64)
            lines.append(f"{time_ms}, {ddir_index}, 0, " + ", ".join(str(int(c)) for c in scaled))
        previous = time_ms
    return lines


def _kib_per_s(data: dict, runtime_s: float) -> int:
    return int(data["bytes"] / runtime_s // 1024)


def _iops(data: dict, runtime_s: float) -> int:
    return int(round(data["ios"] / runtime_s))


def _latency_ns(data: dict, runtime_s: float) -> int:
    """The mean latency: of the entry's samples (event mode, as its JSON), else the model's mean."""
    samples = data.get("latencies_ns")
    if samples is not None and len(samples):
        return int(round(float(np.mean(np.rint(np.asarray(samples))))))
    return int(round(data.get("mean_latency_ns") or 0))


def _zero(data: dict, runtime_s: float) -> int:
    return 0  # nvsim has no separate submission latency (as slat_ns in the JSON)


def log_files(entry: LogEntry) -> dict[str, list[str]]:
    """File name -> lines, for every log the job's options ask for."""
    if entry.runtime_s <= 0:
        return {}
    window = _msec_option(entry.options, "log_avg_msec") or DEFAULT_LOG_MSEC
    files: dict[str, list[str]] = {}
    if "write_bw_log" in entry.options:
        files[_file_name(entry, "write_bw_log", "bw")] = _value_lines(entry, window, _kib_per_s)
    if "write_iops_log" in entry.options:
        files[_file_name(entry, "write_iops_log", "iops")] = _value_lines(entry, window, _iops)
    if "write_lat_log" in entry.options:
        for kind, value_of in (("lat", _latency_ns), ("clat", _latency_ns), ("slat", _zero)):
            files[_file_name(entry, "write_lat_log", kind)] = _value_lines(entry, window, value_of)
    hist_window = _msec_option(entry.options, "log_hist_msec")
    if "write_hist_log" in entry.options:
        files[_file_name(entry, "write_hist_log", "clat_hist")] = _hist_lines(entry, hist_window) if hist_window else []
    return files


def write_log_files(entries: list[LogEntry], directory: str | Path = ".") -> list[Path]:
    """Write every job's logs under ``directory`` (fio writes them relative to where it runs)."""
    written = []
    for entry in entries:
        for name, lines in log_files(entry).items():
            path = Path(directory) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for line in lines))
            written.append(path)
    return written


def uses_default_window(entries: list[LogEntry]) -> bool:
    """Whether a job asks for bandwidth, IOPS or latency logs without log_avg_msec (see DEFAULT_LOG_MSEC)."""
    return any(any(k in e.options for k in LOG_OPTIONS[:3]) and not _msec_option(e.options, "log_avg_msec") for e in entries)
