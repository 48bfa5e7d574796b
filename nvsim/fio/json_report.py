"""fio's JSON output (``--output-format=json`` and ``json+``) from simulated jobs.

The layout and every key follow fio 3.x's ``stat.c:show_thread_status_json`` (normal output) and
``add_ddir_lat_json`` / ``show_run_stats`` (json+ bins, disk_util); the numbers follow fio's rules:

* latencies are whole nanoseconds; percentiles come from fio's log-linear histogram
  (``FIO_IO_U_PLAT_BITS`` = 6: 64 buckets per power of two, each reported at its middle,
  ``plat_idx_to_val``) with fio's rule of ``calc_clat_percentiles`` (the first bucket at which the
  running count reaches p% of the samples), so a percentile is the value fio would print for the
  same samples; json+ writes the same buckets as ``bins`` (bucket value in ns -> count);
* ``percentile_list`` (colon-separated), ``clat_percentiles``, ``lat_percentiles`` are honoured;
* bandwidth and IOPS samples: fio averages them over ``bw_avg_time`` / ``iops_avg_time``
  (500 ms); the model's answer is a steady state, so every sample of a job equals its mean rate
  (min = max = mean, deviation 0) and the count is the job's runtime over the averaging time;
* ``runtime`` is the job's runtime (its ``runtime=``, or the time its ``size`` takes at the
  simulated rate); the simulated window is stated under the extra key ``nvsim`` of each job.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..errors import InputError
from ..histogram import (  # noqa: F401 (fio's histogram, re-exported)
    FIO_PERCENTILES, PLAT_BITS, PLAT_GROUP_NR, PLAT_NR, PLAT_VAL, histogram, percentile_table, plat_idx_to_val, plat_val_to_idx)

AVG_TIME_MS = 500
"""fio's default ``bw_avg_time`` and ``iops_avg_time``: one bandwidth / IOPS sample per 500 ms."""

_DEPTH_LABELS = ("1", "2", "4", "8", "16", "32", ">=64")
_BATCH_LABELS = ("0", "4", "8", "16", "32", "64", ">=64")
_NS_EDGES = np.array([2, 4, 10, 20, 50, 100, 250, 500, 750])
_MS_EDGES = np.array([2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000])
_BUCKETS = ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")
_JOB_KEYS = ("name", "group", "options", "runtime_s", "read", "write", "cpu_percent")


def json_plus_bins(latencies_ns: np.ndarray) -> dict[str, int]:
    """json+ ``bins``: bucket value in ns (as a string key) -> count, buckets in increasing order."""
    return {str(plat_idx_to_val(i)): c for i, c in sorted(histogram(latencies_ns).items())}


def parse_percentile_list(text: str) -> tuple[float, ...]:
    """fio's ``percentile_list`` (``99:99.9:99.99``): at most 20 values in (0, 100]."""
    try:
        values = tuple(float(part) for part in text.split(":") if part.strip())
    except ValueError:
        raise InputError("percentile_list", f"expected numbers separated by ':', got {text!r}") from None
    if not values or len(values) > 20 or any(not 0 < v <= 100 for v in values):
        raise InputError("percentile_list", f"expected 1 to 20 percentiles in (0, 100] separated by ':', got {text!r}")
    return values


# ---------------------------------------------------------------- statistics of one direction


def lat_stats(values: np.ndarray, *, percentiles: tuple[float, ...] | None, bins: bool = False,
              mean_ns: float | None = None, count: int = 0, modelled: Any = None) -> dict[str, Any]:
    """fio's add_ddir_lat_json: min, max, mean, stddev (n-1), N; percentiles and json+ bins when asked.

    Without samples (the fluid mode) ``mean_ns`` gives the mean the model knows and ``count`` the
    I/Os it stands for; min, max and the deviation stay 0; percentiles, when asked, are the fluid
    mode's modelled ones (``modelled``: percent -> ns, ``Result.modelled_percentile_us``), in fio's
    keys and whole nanoseconds, and no json+ bins (there are no samples to bin).
    """
    n = int(values.size)
    if n:
        out: dict[str, Any] = {"min": int(values.min()), "max": int(values.max()), "mean": float(values.mean()),
                               "stddev": float(values.std(ddof=1)) if n > 1 else 0.0, "N": n}
    else:
        known = mean_ns is not None and count > 0
        out = {"min": 0, "max": 0, "mean": float(mean_ns) if known else 0.0, "stddev": 0.0, "N": int(count) if known else 0}
    if percentiles and n:
        out["percentile"] = percentile_table(values, percentiles)
        if bins:
            out["bins"] = json_plus_bins(values)
    elif percentiles and modelled is not None and out["N"]:
        out["percentile"] = {f"{p:f}": int(round(modelled(p))) for p in sorted(percentiles)}
    return out


def _rate_stats(prefix: str, rate: float, runtime_ms: int, share_percent: float | None) -> dict[str, Any]:
    """bw_* or iops_* of fio: the steady-state rate in every 500 ms sample (see the module's note)."""
    samples = runtime_ms // AVG_TIME_MS if rate > 0 else 0
    value = rate if samples else 0.0
    out: dict[str, Any] = {f"{prefix}_min": int(value), f"{prefix}_max": int(value)}
    if prefix == "bw":
        out["bw_agg"] = float(share_percent or 0.0) if samples else 0.0
        out["bw_mean"] = float(value)
        out["bw_dev"] = 0.0
        out["bw_samples"] = int(samples)
    else:
        out["iops_mean"] = float(value)
        out["iops_stddev"] = 0.0
        out["iops_samples"] = int(samples)
    return out


def _samples_of(data: dict, label: str) -> np.ndarray | None:
    raw = data.get("latencies_ns")
    if raw is None:
        return None
    array = np.asarray(raw, dtype=np.float64)
    if array.ndim != 1 or not np.all(np.isfinite(array)) or np.any(array < 0):
        raise InputError(f"{label}.latencies_ns", "must be a 1-D array of finite latencies >= 0 in nanoseconds")
    return np.rint(array).astype(np.int64)  # fio records whole nanoseconds


def direction_json(data: dict, runtime_s: float, label: str, report: dict, group_bw_bytes: float = 0.0) -> tuple[dict[str, Any], np.ndarray | None]:
    """One direction (read, write, trim) of a job, every key of fio 3.x in fio's order."""
    ios, io_bytes = int(data.get("ios", 0)), int(data.get("bytes", 0))
    if ios < 0 or io_bytes < 0:
        raise InputError(label, f"ios and bytes must be >= 0, got {ios} and {io_bytes}")
    latencies = _samples_of(data, label)
    active = (ios > 0 or io_bytes > 0) and runtime_s > 0
    bw_bytes = int(io_bytes // runtime_s) if active else 0
    runtime_ms = int(round(runtime_s * 1000)) if active else 0
    stats = latencies if latencies is not None else np.zeros(0, dtype=np.int64)
    mean_ns = data.get("mean_latency_ns")
    plist = report["percentiles"]
    share = 100.0 * bw_bytes / group_bw_bytes if group_bw_bytes > 0 else 100.0
    out = {
        "io_bytes": io_bytes, "io_kbytes": io_bytes >> 10, "bw_bytes": bw_bytes, "bw": bw_bytes // 1024,
        "iops": ios / runtime_s if active else 0.0, "runtime": runtime_ms,
        "total_ios": ios, "short_ios": 0, "drop_ios": 0,
        "slat_ns": lat_stats(np.zeros(0, dtype=np.int64), percentiles=None),
        "clat_ns": lat_stats(stats, percentiles=plist if report["clat_percentiles"] else None, bins=report["json_plus"],
                             mean_ns=mean_ns, count=ios, modelled=data.get("modelled_percentile_ns")),
        "lat_ns": lat_stats(stats, percentiles=plist if report["lat_percentiles"] else None, bins=report["json_plus"],
                            mean_ns=mean_ns, count=ios, modelled=data.get("modelled_percentile_ns")),
        **_rate_stats("bw", bw_bytes / 1024, runtime_ms, share),
        **_rate_stats("iops", ios / runtime_s if active else 0.0, runtime_ms, None),
    }
    return out, latencies


# ---------------------------------------------------------------- distributions of one job


def _map_index(value: int, edges: tuple[int, ...]) -> int:
    """The index of fio's io_u_map-style bucket holding ``value``."""
    for index, edge in enumerate(edges):
        if value < edge:
            return index
    return len(edges)


def iodepth_json(iodepth: int, batch_submit: int, batch_complete: int) -> dict[str, dict[str, float]]:
    """iodepth_level / iodepth_submit / iodepth_complete: a closed loop keeps ``iodepth`` I/Os in
    flight all the time, and every submit and reap carries its batch, so each is 100% one bucket."""
    def one_hot(labels: tuple[str, ...], index: int) -> dict[str, float]:
        return {label: (100.0 if i == index else 0.0) for i, label in enumerate(labels)}

    level = _map_index(iodepth, (2, 4, 8, 16, 32, 64))
    submit = 0 if batch_submit <= 0 else _map_index(batch_submit - 1, (4, 8, 16, 32, 64)) + 1
    complete = 0 if batch_complete <= 0 else _map_index(batch_complete - 1, (4, 8, 16, 32, 64)) + 1
    return {"iodepth_level": one_hot(_DEPTH_LABELS, level), "iodepth_submit": one_hot(_BATCH_LABELS, min(submit, 6)),
            "iodepth_complete": one_hot(_BATCH_LABELS, min(complete, 6))}


def latency_buckets(latencies: np.ndarray) -> dict[str, dict[str, float]]:
    """fio's latency_ns / latency_us / latency_ms: percent of I/Os per bucket (io_u_mark_latency)."""
    total = latencies.size
    ns = latencies[latencies < 1000]
    us = latencies[(latencies >= 1000) & (latencies < 1_000_000)] // 1000
    ms = latencies[latencies >= 1_000_000] // 1_000_000
    counts_ns = np.bincount(np.searchsorted(_NS_EDGES, ns, side="right"), minlength=10)
    counts_us = np.bincount(np.searchsorted(_NS_EDGES, us, side="right"), minlength=10)
    counts_ms = np.bincount(np.searchsorted(_MS_EDGES, ms, side="right"), minlength=12)

    def percent(counts: np.ndarray, labels: tuple[str, ...]) -> dict[str, float]:
        out = {}
        for label, count in zip(labels, counts):
            value = 100.0 * count / total if total else 0.0
            out[label] = 0.01 if 0 < value < 0.01 else float(value)  # fio shows a tiny share as 0.01
        return out

    return {"latency_ns": percent(counts_ns, _BUCKETS), "latency_us": percent(counts_us, _BUCKETS),
            "latency_ms": percent(counts_ms, (*_BUCKETS, "2000", ">=2000"))}


MODELLED_POINTS = 1000
"""Points of a modelled latency distribution that stand for its I/Os in fio's latency buckets."""


def _modelled_latencies(result: dict) -> np.ndarray:
    """Latencies (ns) standing for a job's I/Os where the fluid mode models their distribution
    (``modelled_percentile_ns``: percent -> ns): each direction's at ``MODELLED_POINTS`` evenly
    spaced percents, in proportion to its I/Os, so the buckets agree with the percentiles (they put
    every I/O in the mean's bucket: a p50 of 491 us beside 100% in 500-750 us). Empty where none."""
    parts = []
    directions = [result.get(ddir) or {} for ddir in ("read", "write")]
    total = sum(int(d.get("ios", 0)) for d in directions if d.get("modelled_percentile_ns"))
    for data in directions:
        modelled, ios = data.get("modelled_percentile_ns"), int(data.get("ios", 0))
        if modelled is None or ios <= 0 or total <= 0:
            continue
        points = max(1, round(MODELLED_POINTS * ios / total))
        parts.append(np.array([modelled(100.0 * (i + 0.5) / points) for i in range(points)]))
    return np.rint(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def _mean_bucket(mean_ns: float | None) -> dict[str, dict[str, float]]:
    """Without samples (fluid mode): every I/O in the bucket of the mean latency."""
    if mean_ns is None or mean_ns <= 0:
        return latency_buckets(np.zeros(0, dtype=np.int64))
    return latency_buckets(np.array([int(round(mean_ns))], dtype=np.int64))


# ---------------------------------------------------------------- jobs and the report


def elapsed_s(seconds: float) -> int:
    """fio's ``elapsed``: the milliseconds since fio started, rounded up to seconds (eta.c,
    ``(mtime_since_genesis() + 999) / 1000``): a run of 82 ms is 1, not 0."""
    return (int(seconds * 1000.0) + 999) // 1000


def job_json(result: dict, index: int, report: dict, group_bw: dict[str, float]) -> dict[str, Any]:
    """One job of fio's ``jobs`` list: every key of fio 3.x, plus ``nvsim`` (the simulated window)."""
    for key in _JOB_KEYS:
        if key not in result:
            raise InputError(f"jobs_results[{index}].{key}", f"required key is missing; each job needs {', '.join(_JOB_KEYS)}")
    report = {**report, **dict(result.get("report") or {})}  # the job's own percentile options, as fio's
    runtime_s = float(result["runtime_s"])
    if not math.isfinite(runtime_s) or runtime_s < 0:
        raise InputError(f"jobs_results[{index}].runtime_s", f"must be a finite number of seconds >= 0, got {result['runtime_s']!r}")
    directions: dict[str, Any] = {}
    samples = []
    for ddir in ("read", "write", "trim"):
        data = result.get(ddir) or {"ios": 0, "bytes": 0}
        directions[ddir], lat = direction_json(data, runtime_s, f"jobs_results[{index}].{ddir}", report, group_bw.get(ddir, 0.0))
        if lat is not None:
            samples.append(lat)
    all_latencies = np.concatenate(samples) if samples else np.zeros(0, dtype=np.int64)
    if not all_latencies.size:  # the fluid mode: the buckets of the distribution its percentiles come from
        all_latencies = _modelled_latencies(result)
    buckets = latency_buckets(all_latencies) if all_latencies.size else _mean_bucket(_job_mean_ns(result))
    iodepth = int(result.get("iodepth", 1))
    job: dict[str, Any] = {
        "jobname": str(result["name"]), "groupid": int(result["group"]), "error": 0, "eta": 0,
        "elapsed": elapsed_s(float(result.get("elapsed_s", runtime_s + float(result.get("ramp_time_s") or 0.0)))),
        # fio (stat.c) writes "job options" when the job's section gave any option, a bare flag too
        **({"job options": echoed_options(result["options"])} if dict(result["options"]) else {}),
        **directions,
        "sync": {"total_ios": 0, "lat_ns": lat_stats(np.zeros(0, dtype=np.int64), percentiles=None)},
        "job_runtime": int(round(float(result.get("job_runtime_s", runtime_s)) * 1000)),  # a group's: its clones' summed
        "usr_cpu": 0.0, "sys_cpu": float(result["cpu_percent"] or 0.0), "ctx": int(result.get("ctx", 0)), "majf": 0, "minf": 0,
        **iodepth_json(iodepth, int(result.get("batch_submit", 1)), int(result.get("batch_complete", 1))),
        **buckets,
        "latency_depth": iodepth, "latency_target": int(result.get("latency_target_ns", 0)),
        "latency_percentile": float(result.get("latency_percentile", 100.0)), "latency_window": int(result.get("latency_window_us", 0)),
    }
    if result.get("description"):
        job["desc"] = str(result["description"])  # fio writes the job's description under "desc"
    if result.get("nvsim"):
        job["nvsim"] = dict(result["nvsim"])
    return job


def _job_mean_ns(result: dict) -> float | None:
    """The I/O-weighted mean latency of a job's directions (fluid mode: the model's means)."""
    pairs = [(d.get("ios", 0), d.get("mean_latency_ns")) for d in (result.get("read") or {}, result.get("write") or {})]
    pairs = [(n, m) for n, m in pairs if n and m is not None]
    total = sum(n for n, _ in pairs)
    return sum(n * m for n, m in pairs) / total if total else None


def _group_bandwidths(jobs_results: list[dict]) -> dict[int, dict[str, float]]:
    """Bytes per second of each reporting group and direction (fio's bw_agg is a job's share)."""
    groups: dict[int, dict[str, float]] = {}
    for result in jobs_results:
        runtime_s = float(result.get("runtime_s") or 0.0)
        group = groups.setdefault(int(result.get("group", 0)), {})
        for ddir in ("read", "write", "trim"):
            data = result.get(ddir) or {}
            if runtime_s > 0:
                group[ddir] = group.get(ddir, 0.0) + int(data.get("bytes", 0)) // runtime_s
    return groups


FIO_OPTION_NAMES_ECHOED = {"iodepth_batch_submit": "iodepth_batch"}
"""nvsim's names of options that fio's JSON echoes under another (fio's table name: ``iodepth_batch``,
whose alias ``iodepth_batch_submit`` is the name nvsim's tables use)."""


def echoed_options(options: dict) -> dict[str, str]:
    """Options as fio's JSON echoes them (``job options``, ``global options``): by fio's name, bare
    flags left out (fio 3.33 lists none)."""
    return {FIO_OPTION_NAMES_ECHOED.get(str(k), str(k)): str(v) for k, v in dict(options).items() if str(v) != ""}


def fio_json_report(jobs_results: list[dict], *, fio_version: str = "nvsim", timestamp: int,
                    global_options: dict[str, str] | None = None, lat_percentiles: bool = False,
                    clat_percentiles: bool = True, percentiles: tuple[float, ...] = FIO_PERCENTILES,
                    json_plus: bool = False, disk_util: list[dict] | None = None) -> dict:
    """Results in fio's ``--output-format=json`` (``json+`` with ``json_plus``) layout, fio 3.x.

    Each item of ``jobs_results``: name, group, options (dict), runtime_s (the job's runtime),
    cpu_percent, and read / write (/ trim): {ios, bytes, latencies_ns (1-D array or None),
    mean_latency_ns (used without samples)}; optional: iodepth, batch_submit, batch_complete,
    ramp_time_s, report (the job's own percentiles, clat_percentiles, lat_percentiles: they
    replace the arguments', as fio reads them per job), elapsed_s (the run's wall time when the report is written, every phase's; default
    runtime_s + ramp_time_s), job_runtime_s (the entry's clones' run times summed; default runtime_s), ctx, description (written as ``desc``, as fio does), nvsim (extra facts written
    under the job's ``nvsim`` key). nvsim has no
    separate submission latency, so slat_ns has N=0 and clat_ns and lat_ns carry the same numbers.
    ``global options`` is written only when there are some, as fio does.
    """
    report = {"percentiles": tuple(percentiles), "lat_percentiles": lat_percentiles,
              "clat_percentiles": clat_percentiles, "json_plus": json_plus}
    out: dict[str, Any] = {"fio version": fio_version, "timestamp": int(timestamp), "timestamp_ms": int(timestamp) * 1000,
                           "time": time.asctime(time.gmtime(timestamp))}
    given = echoed_options(global_options or {})
    if given:
        out["global options"] = given
    groups = _group_bandwidths(jobs_results)
    out["jobs"] = [job_json(r, i, report, groups.get(int(r.get("group", 0)), {})) for i, r in enumerate(jobs_results)]
    out["disk_util"] = list(disk_util or [])
    return out
