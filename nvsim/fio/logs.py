"""fio's log files (write_bw_log, write_lat_log, write_iops_log, write_hist_log) from simulated jobs.

Formats as fio 3.x writes them (HOWTO "Log File Formats"; fio 3.33's files have five columns):

* bandwidth, IOPS and latency logs: ``time (ms), value, data direction (0 read, 1 write), block
  size, command priority`` per line, with ``log_offset=1`` an ``offset`` before the priority (six
  columns: fio 3.33's ``flush_samples``); windowed (``log_avg_msec``), one line per direction and
  window, with block size, offset and priority 0 as fio writes them. Values: KiB/s, IOPS, latency in ns.
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

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputError
from ..io import commit_together, output_target
from ..units import ascii_digits
from .json_report import PLAT_NR, plat_val_to_idx

DEFAULT_LOG_MSEC = 500
"""Window of the bandwidth, IOPS and latency logs when the job sets no ``log_avg_msec`` (fio's
``bw_avg_time``): fio would log every I/O, which a steady-state model cannot."""

LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log")
LOG_FILE_OPTIONS = (*LOG_OPTIONS, "log_avg_msec", "log_hist_msec", "per_job_logs", "log_offset")
"""Every option that only shapes the log files (``UNDERSTOOD_WITHOUT_EFFECT`` for the answer): what
writes no file where no logs are written (the dashboard says so)."""
LOG_KINDS = {"write_bw_log": ("bw",), "write_iops_log": ("iops",), "write_lat_log": ("lat", "clat", "slat"),
             "write_hist_log": ("clat_hist",)}
"""The files each option writes (``<prefix>_<kind>.<x>.log``)."""

MAX_LOG_BYTES = 1_000_000_000
"""Bytes of log files one command writes at most, estimated before any is written (1 ms windows
over hours are gigabytes); past it the command is refused in one line."""
VALUE_LINE_BYTES = 32
"""About the length of a bandwidth, IOPS or latency log line (``time, value, ddir, 0, 0``)."""
HIST_LINE_BYTES = 3 * PLAT_NR
"""About the length of a histogram log line (a count and its separator per bucket)."""


@dataclass(frozen=True)
class LogEntry:
    """What one job entry (a job, or one numjobs clone) did, for its logs."""

    name: str
    options: dict
    index: int  # fio's job number, from 1
    runtime_s: float
    directions: dict  # "read"/"write" -> {ios, bytes, mean_latency_ns, latencies_ns}


def _msec_option(options: dict, key: str, source: str | None = None) -> int:
    value = options.get(key, "0") or "0"
    if not ascii_digits(value):
        raise InputError(key, f"must be a whole number of milliseconds, got {value!r}", source=source)
    return int(value)


def _log_offset(options: dict, source: str | None = None) -> bool:
    """``log_offset``: fio's bool, a whole number (non-zero: an offset column in the value logs)."""
    value = options.get("log_offset", "0")
    if value is None or not ascii_digits(value):
        raise InputError("log_offset", f"must be 0 or 1, got {value or 'no value'!r}", source=source)
    return int(value) != 0


def _place(job, option: str) -> str | None:
    """Where the job file (or command line) gave ``option`` for ``job``, for an error's first words;
    a bare log option's prefix is the job's name, given at its section."""
    return job.option_places.get(option) or job.where or None


def _windows_ms(runtime_ms: int, window_ms: int) -> range | list[int]:
    """The times fio stamps windowed entries with: every window, and a last flush at the end."""
    times = range(window_ms, runtime_ms + 1, window_ms)
    if runtime_ms > 0 and (not times or times[-1] != runtime_ms):
        return [*times, runtime_ms]
    return times


def _window_count(runtime_ms: int, window_ms: int) -> int:
    """``len(_windows_ms(...))`` without making the list."""
    whole = runtime_ms // window_ms
    return whole + (1 if runtime_ms > 0 and runtime_ms % window_ms else 0)


def _prefix(options: dict, option: str, name: str) -> str:
    """The log's prefix: the option's value, or the job's name when the option is bare (fio's way)."""
    value = options.get(option)
    return value if value not in (None, "", "1") else name


def _file_name(entry: LogEntry, option: str, kind: str) -> str:
    prefix = _prefix(entry.options, option, entry.name)
    per_job = entry.options.get("per_job_logs", "1") not in ("0", "false")
    return f"{prefix}_{kind}.{entry.index}.log" if per_job else f"{prefix}_{kind}.log"


def _value_lines(entry: LogEntry, window_ms: int, value_of):
    """One line per window and direction with I/O: ``time, value, ddir, 0, 0`` (block size and
    priority), ``time, value, ddir, 0, 0, 0`` with log_offset (made as written)."""
    runtime_ms = int(round(entry.runtime_s * 1000))
    zeros = ", 0, 0, 0" if _log_offset(entry.options) else ", 0, 0"
    for time_ms in _windows_ms(runtime_ms, window_ms):
        for ddir_index, ddir in enumerate(("read", "write")):
            data = entry.directions.get(ddir) or {}
            if data.get("ios"):
                yield f"{time_ms}, {value_of(data, entry.runtime_s)}, {ddir_index}{zeros}"


def _hist_lines(entry: LogEntry, window_ms: int):
    """``time, ddir, bs, bucket counts...``: the job's latency histogram scaled to each window's I/Os."""
    runtime_ms = int(round(entry.runtime_s * 1000))
    previous = 0
    counts = {}
    for time_ms in _windows_ms(runtime_ms, window_ms):
        for ddir_index, ddir in enumerate(("read", "write")):
            data = entry.directions.get(ddir) or {}
            samples = data.get("latencies_ns")
            if not data.get("ios") or samples is None or len(samples) == 0:
                continue
            if ddir not in counts:
                counts[ddir] = np.bincount(plat_val_to_idx(np.rint(np.asarray(samples)).astype(np.int64)), minlength=PLAT_NR)
            window_ios = data["ios"] * (time_ms - previous) / runtime_ms
            scaled = np.rint(counts[ddir] * window_ios / counts[ddir].sum()).astype(np.int64)
            yield f"{time_ms}, {ddir_index}, 0, " + ", ".join(str(int(c)) for c in scaled)
        previous = time_ms


def _directions_logged(entry: LogEntry, hist: bool) -> int:
    """Directions with a line in each window (with samples, for a histogram)."""
    count = 0
    for ddir in ("read", "write"):
        data = entry.directions.get(ddir) or {}
        samples = data.get("latencies_ns")
        count += bool(data.get("ios")) and (not hist or (samples is not None and len(samples) > 0))
    return count


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


class PlannedLog(NamedTuple):
    """One log file before it is written: the option setting its window, its lines and about how
    many bytes they are (``check_log_size``), and its lines, made as they are written."""

    option: str
    lines: int
    bytes: int
    make: Callable[[], Iterable[str]]
    writes: str = ""  # the write_*_log option that asks for the file


def _log_plan(entry: LogEntry) -> dict[str, PlannedLog]:
    """File name -> ``PlannedLog``, for every log the job's options ask for."""
    if entry.runtime_s <= 0:
        return {}
    runtime_ms = int(round(entry.runtime_s * 1000))
    window = _msec_option(entry.options, "log_avg_msec") or DEFAULT_LOG_MSEC
    value_lines = _window_count(runtime_ms, window) * _directions_logged(entry, False)
    plan: dict[str, PlannedLog] = {}

    def value_log(option: str, kind: str, value_of) -> None:
        plan[_file_name(entry, option, kind)] = PlannedLog("log_avg_msec", value_lines, value_lines * VALUE_LINE_BYTES,
                                                           lambda: _value_lines(entry, window, value_of), option)

    if "write_bw_log" in entry.options:
        value_log("write_bw_log", "bw", _kib_per_s)
    if "write_iops_log" in entry.options:
        value_log("write_iops_log", "iops", _iops)
    if "write_lat_log" in entry.options:
        for kind, value_of in (("lat", _latency_ns), ("clat", _latency_ns), ("slat", _zero)):
            value_log("write_lat_log", kind, value_of)
    hist_window = _msec_option(entry.options, "log_hist_msec")
    if "write_hist_log" in entry.options:
        lines = _window_count(runtime_ms, hist_window) * _directions_logged(entry, True) if hist_window else 0
        plan[_file_name(entry, "write_hist_log", "clat_hist")] = PlannedLog(
            "log_hist_msec", lines, lines * HIST_LINE_BYTES, (lambda: _hist_lines(entry, hist_window)) if hist_window else tuple,
            "write_hist_log")
    return plan


def log_files(entry: LogEntry) -> dict[str, list[str]]:
    """File name -> lines, for every log the job's options ask for."""
    return {name: list(planned.make()) for name, planned in _log_plan(entry).items()}


def check_log_size(entries: list[LogEntry]) -> None:
    """One-line InputError when the logs would pass ``MAX_LOG_BYTES``, naming the window option of
    the largest file and what it would take."""
    plans = [(entry, name, planned) for entry in entries for name, planned in _log_plan(entry).items()]
    total = sum(planned.bytes for _, _, planned in plans)
    if total <= MAX_LOG_BYTES:
        return
    entry, name, largest = max(plans, key=lambda item: item[2].bytes)
    raise InputError(largest.option, f"the logs would be about {total / 1e9:.1f} GB ({name}: {largest.lines:,} lines "
                                     f"over the job's {entry.runtime_s:,.0f} s); at most {MAX_LOG_BYTES / 1e9:.1f} GB: "
                                     f"set a longer {largest.option} (or a shorter runtime)")


def _log_files_of_jobs(jobs) -> Iterator[tuple[Any, str, str]]:
    """(job, option, file name) of every log file the jobs ask for, numbered as ``log_entries``
    numbers them (each numjobs clone from 1, in the file's order)."""
    index = 0
    for job in jobs:
        for _ in range(job.workload.numjobs):
            index += 1
            entry = LogEntry(job.name, job.options, index, 0.0, {})
            for option in LOG_OPTIONS:
                if option in job.options:
                    for kind in LOG_KINDS[option]:
                        yield job, option, _file_name(entry, option, kind)


def _writable(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` (None: one can): a temporary made and removed, the
    one test that also holds for root, /proc and read-only file systems."""
    try:
        handle, probe = tempfile.mkstemp(prefix=".nvsim-log-probe.", suffix=".tmp", dir=folder)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(handle)
    os.unlink(probe)
    return None


def check_log_directories(jobs, directory: str | Path = ".") -> None:
    """Refuse (one line) a log prefix whose folder does not exist under ``directory`` or cannot be
    written, and a log file name taken by a directory, FIFO or device: fio opens its log files where
    the prefix says and creates no folder (``write_lat_log=sub/../../lat`` made an empty ``sub/``
    here; a bare ``write_bw_log`` takes the job's name, ``[sub/x]``, as its prefix, checked the
    same way); a prefix in /proc failed after the first job's log was written. Also the jobs'
    ``log_avg_msec`` and ``log_hist_msec``. Checked before anything runs; ``jobs``: the parsed
    jobs (their names, options and numjobs)."""
    for job in jobs:
        if any(option in job.options for option in LOG_OPTIONS):
            _msec_option(job.options, "log_avg_msec", _place(job, "log_avg_msec"))
            _msec_option(job.options, "log_hist_msec", _place(job, "log_hist_msec"))
            _log_offset(job.options, _place(job, "log_offset"))
    folders: dict[Path, None] = {}
    for job, option, name in _log_files_of_jobs(jobs):
        bare = job.options.get(option) in (None, "", "1")
        prefix = _prefix(job.options, option, job.name)
        given = (f"the job's name {prefix!r} (the prefix of a bare {option})" if bare else repr(prefix))
        path = Path(directory) / name
        folder = path.parent
        if folder not in folders:
            if not folder.is_dir():
                raise InputError(option, f"{given}: no folder {str(folder)!r} to write the log in (fio creates "
                                         f"none); allowed: a prefix in a folder that exists (job [{job.name}])", source=_place(job, option))
            why = _writable(folder)
            if why is not None:
                raise InputError(option, f"{given}: cannot write in the folder {str(folder)!r} ({why}); allowed: a "
                                         f"prefix in a folder this user can write (job [{job.name}])", source=_place(job, option))
            folders[folder] = None
        if path.is_dir():
            raise InputError(option, f"{given}: the log {str(path)!r} is a directory; allowed: a prefix that names "
                                     f"files (job [{job.name}])", source=_place(job, option))
        try:
            output_target(path, option)  # a FIFO or a device would be replaced by the rename
        except InputError as exc:
            raise InputError(option, f"{given}: {exc.message} (job [{job.name}])", source=_place(job, option)) from None


def write_log_files(entries: list[LogEntry], directory: str | Path = ".") -> list[Path]:
    """Write every job's logs under ``directory`` (fio writes them relative to where it runs), all
    or none: each to a temporary beside it, its lines made as they are written (memory stays flat),
    then renamed in together (``nvsim.io.commit_together``); refused in one line first when they
    would pass ``MAX_LOG_BYTES`` (``check_log_size``). A file that cannot be written (a folder
    gone or full since ``check_log_directories``) is one line naming its option; the temporaries
    are removed and no log is left."""
    check_log_size(entries)
    planned = {Path(directory) / name: log for entry in entries for name, log in _log_plan(entry).items()}  # the last of a name wins
    if not planned:
        return []
    order = list(planned.items())
    done = [0]  # files written to their temporaries: the next one is the one that failed

    def writer(log: PlannedLog) -> Callable[[str], None]:
        def write(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as out:
                for line in log.make():
                    out.write(line + "\n")
            done[0] += 1
        return write

    try:
        commit_together([(path, writer(log)) for path, log in order])
    except OSError as exc:
        if done[0] >= len(order):  # every file was written: the commit itself failed (its journal finishes it next time)
            raise InputError("log", f"cannot commit the logs in {str(order[0][0].parent)!r} ({exc.strerror or exc})") from None
        path, log = order[done[0]]
        raise InputError(log.writes or "log", f"cannot write the log {str(path)!r} ({exc.strerror or exc}); no log was "
                                              f"written") from None
    return list(planned)


def uses_default_window(entries: list[LogEntry]) -> bool:
    """Whether a job asks for bandwidth, IOPS or latency logs without log_avg_msec (see DEFAULT_LOG_MSEC)."""
    return any(any(k in e.options for k in LOG_OPTIONS[:3]) and not _msec_option(e.options, "log_avg_msec") for e in entries)
