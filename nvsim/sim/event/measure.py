"""What the event mode reports from a run: counts, latency and utilisation over the measured
window only (the servers' busy time at the warm-up's end is subtracted), and a 95% confidence
interval on the IOPS from batch means."""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
import simpy

from ... import fabric
from ...units import format_jobs
from ...host_io import busy_cpus_with_polling
from ..fluid import write_amplification
from ..result import PERCENTILES, SATURATED_UTILISATION, SimResult, Utilisation, busiest, closed_loop_text
from ..stripe_wait import waiting_cpus
from ..system import ArraySystem, HostIoBatch
from . import hdr
from .rebuild import RebuildProgress
from .servers import PER_DRIVE_KEYS, ArrayServers, server_count
from .slots import Run

T_95 = {5: 2.776, 10: 2.262, 20: 2.093}
"""Student's t at 95% (two-sided) by number of batches (batches - 1 degrees of freedom); 1.96
for other counts."""


def busy_at(env: simpy.Environment, at_s: float, servers: ArrayServers,
            into: dict[str, list[float]]) -> Generator[simpy.Event, None, None]:
    """SimPy process: every server's busy seconds at ``at_s`` (the warm-up's end), into ``into``."""
    yield env.timeout(at_s)
    into.update(servers.busy_s())


def busy_over_window(servers: ArrayServers, at_warm: dict[str, list[float]]) -> dict[str, float]:
    """Busy seconds of each resource kind over the window: summed over its servers (cores), the
    busiest drive's (``PER_DRIVE_KEYS``). ``at_warm`` empty: the run never reached the window."""
    out = {}
    for key, group in servers.by_key.items():
        busy = [s.busy - b for s, b in zip(group, at_warm.get(key, [0.0] * len(group)))]
        out[key] = max(busy) if key in PER_DRIVE_KEYS else sum(busy)
    return out


def job_cpu_busy_s(servers: ArrayServers, at_warm: dict[str, list[float]], window_s: float) -> float:
    """The job CPUs' busy seconds over the window, each at most the window: a submission spinning
    at the engine's lock is counted busy while its core's later bookings run
    (``slots.HostSlot.locked``), and a thread is busy at most all the time, as the fluid mode caps
    its busy job CPUs (until 2026-12-01 md RAID10 on kernel 5.15, its lock 81% busy, read 17.3 busy
    job CPUs of 16)."""
    cores = servers.by_key["cores"]
    return sum(min(window_s, s.busy - b) for s, b in zip(cores, at_warm.get("cores", [0.0] * len(cores))))


def engine_cpu_busy_s(system: ArraySystem, busy_of: dict[str, float], n_write: int,
                      sync_update: tuple[float, float]) -> float:
    """The engine's host thread's busy seconds over the window that are CPU time (0 off the host):
    its busy time less its sleeps on synchronous metadata updates (md's write-intent bitmap, booked
    on it: ``rows.HostJobs.with_sync_updates``), the window's writes x the share that set a clean
    bit x one update, as the fluid mode leaves them out (``foreground.cpu_percent``'s
    ``engine_asleep``; until 2026-12-01 the event mode counted them: md RAID10 on kernel 5.15 with
    raid10d 10% busy, asleep, read 25.16% where the fluid mode read 25.00%)."""
    if not system.engine_on_host_cpu:
        return 0.0
    share, update_s = sync_update
    return max(0.0, busy_of["engine"] - n_write * share * update_s)


def ci95_half_width(done_s: np.ndarray, start_s: float, end_s: float, batches: int) -> float:
    """Half-width of the 95% confidence interval on the completion rate: the window cut into
    ``batches`` equal batches, Student's t on their rates' standard deviation."""
    rates = np.histogram(done_s, bins=batches, range=(start_s, end_s))[0] / ((end_s - start_s) / batches)
    return float(T_95.get(batches, 1.96) * rates.std(ddof=1) / math.sqrt(batches)) if batches > 1 else 0.0


def latency_summary(values_s: np.ndarray) -> dict[str, float]:
    """Mean and ``PERCENTILES`` in microseconds ({} without samples)."""
    if values_s.size == 0:
        return {}
    us = values_s * 1e6
    out = {"mean": float(us.mean())}
    for q, v in zip(PERCENTILES, np.percentile(us, PERCENTILES)):
        out[f"p{q:g}"] = float(v)
    return out


TAIL_QUANTILE = 99.99
"""The tail percentile whose confidence interval sizes a run on a precision (``Precision``)."""


def quantile_ci95(values: np.ndarray, percentile: float = TAIL_QUANTILE) -> tuple[float, float | None]:
    """95% confidence interval of a percentile from its order statistics (distribution-free:
    the rank of the true quantile among n samples is binomial(n, q)); the high end None when
    fewer samples lie beyond the percentile than the interval needs."""
    n = values.size
    if n == 0:
        return float("nan"), None
    q = percentile / 100.0
    spread = 1.96 * math.sqrt(n * q * (1.0 - q))
    lo, hi = int(math.floor(n * q - spread)), int(math.ceil(n * q + spread))
    ordered = np.partition(values, [max(lo, 0), min(hi, n - 1)])
    return float(ordered[max(lo, 0)]), (float(ordered[hi]) if hi < n else None)


def tail_relative_half_width(values: np.ndarray, percentile: float = TAIL_QUANTILE) -> float:
    """Half the width of ``quantile_ci95`` over the percentile's estimate (inf: too few samples)."""
    lo, hi = quantile_ci95(values, percentile)
    if hi is None or values.size == 0:
        return math.inf
    middle = float(np.percentile(values, percentile))
    return 0.5 * (hi - lo) / middle if middle > 0 else 0.0


def utilisation(system: ArraySystem, busy_of: dict[str, float], window_s: float) -> list[Utilisation]:
    """Each resource of ``system.resources()``: busy over its servers' time, at most 1; then each
    station only rebuild requests load (the rebuild thread) where it is busy, as the fluid mode and
    the state solver list it (``foreground.grouped_utilisation``; until 2026-12-01 the event mode
    left it out: xiRAID's reconstruction threads, 27% busy, were in ``nvsim run --fidelity fluid``'s
    list and missing from the event mode's and its report's)."""
    util = [Utilisation(label, min(1.0, busy_of[key] / (servers * window_s)))
            for key, label, servers in system.resources()]
    for kind in fabric.KINDS:
        busy = busy_of.get(kind.key, 0.0)
        if not kind.reported and busy > 0:
            servers = server_count(system, kind)
            util.append(Utilisation(kind.label(system.facts, fabric.BUSIEST), min(1.0, busy / (servers * window_s)),
                                    host_visits=False))
    return util


@dataclass(frozen=True)
class WindowStats:
    """What a run measured in its window: host I/Os by direction, the IOPS interval's half-width,
    the latency summaries and p99.99 intervals by direction, and the samples kept."""

    n_read: int
    n_write: int
    half_width: float
    latency_us: dict
    tails_us: dict
    samples: dict


def exact_stats(run: Run, end_s: float, batches: int) -> WindowStats:
    """From every completion's sample (those done by ``end_s``)."""
    done = np.asarray(run.done_at)
    keep = done <= end_s
    done, lat, wr = done[keep], np.asarray(run.latency)[keep], np.asarray(run.writes, dtype=bool)[keep]
    by = {"read": lat[~wr], "write": lat[wr]}
    return WindowStats(int((~wr).sum()), int(wr.sum()), ci95_half_width(done, run.warm_s, end_s, batches),
                       {d: latency_summary(x) for d, x in by.items()},
                       {d: tuple(None if v is None else 1e6 * v for v in quantile_ci95(x)) for d, x in by.items() if x.size},
                       by)


def histogram_stats(run, end_s: float, batches: int) -> WindowStats:
    """From the kernel's histograms (``hdr``: each percentile within ``hdr.RESOLUTION / 2`` of its
    nearest-rank sample; the mean by bucket midpoints) and its completion-time grid (the batch
    means, each grid bin in the batch its middle falls in), for a run past its sample cap; the
    samples it kept (the window's first) as the samples. Completions whose CPU ran past ``end_s``
    are counted here (a few per slot at most; the exact path drops them)."""
    hist, grid = run.hist, run.grid
    middles = run.warm_s + (np.arange(grid.size) + 0.5) * run.grid_s
    rates = np.bincount(np.minimum(((middles - run.warm_s) / ((end_s - run.warm_s) / batches)).astype(np.int64), batches),
                        weights=grid, minlength=batches + 1)[:batches] / ((end_s - run.warm_s) / batches)
    half = float(T_95.get(batches, 1.96) * rates.std(ddof=1) / math.sqrt(batches)) if batches > 1 else 0.0
    latency, tails = {}, {}
    for row, d in enumerate(("read", "write")):
        latency[d] = _hist_summary(hist[row])
        if hist[row].any():
            tails[d] = tuple(None if v is None else 1e6 * v for v in hdr.quantile_ci95(hist[row], TAIL_QUANTILE))
    wr = np.asarray(run.writes, dtype=bool)
    lat = np.asarray(run.latency)
    return WindowStats(int(hist[0].sum()), int(hist[1].sum()), half, latency, tails, {"read": lat[~wr], "write": lat[wr]})


def _hist_summary(hist: np.ndarray) -> dict[str, float]:
    """``latency_summary`` of one direction's histogram."""
    if not hist.any():
        return {}
    out = {"mean": 1e6 * hdr.mean_s(hist)}
    for q, v in zip(PERCENTILES, hdr.percentiles_s(hist, PERCENTILES)):
        out[f"p{q:g}"] = float(1e6 * v)
    return out


def event_result(system: ArraySystem, run: Run, at_warm: dict[str, list[float]], end_s: float, batches: int,
                 sampled: list[HostIoBatch], rebuild: RebuildProgress | None, until_rebuilt: bool,
                 started: float, sync_update: tuple[float, float] = (0.0, 0.0)) -> SimResult:
    """The run's SimResult: host I/Os completed in [warm-up end, ``end_s``]; ``started``: the
    wall clock (``time.perf_counter``) at the call's start; ``sync_update``: the writes' metadata
    updates the run drew (``window.sync_update_of``)."""
    w = system.workload
    window = end_s - run.warm_s
    stats = histogram_stats(run, end_s, batches) if getattr(run, "capped", False) else exact_stats(run, end_s, batches)
    n_read, n_write, half_width, samples = stats.n_read, stats.n_write, stats.half_width, stats.samples
    busy_of = busy_over_window(run.servers, at_warm)
    util = utilisation(system, busy_of, window)
    cpu_busy = job_cpu_busy_s(run.servers, at_warm, window)
    if sampled:  # submitters woken and re-queued while the stripe cache is full (md), over the window
        engine_util = min(1.0, busy_of.get("engine", 0.0) / (system.engine_servers * window))
        herd = waiting_cpus(system, sampled, (n_read + n_write) / window, engine_util) * window
        cpu_busy = min(len(system.cpu_speed) * window, cpu_busy + herd) if herd else cpu_busy
    other_busy = engine_cpu_busy_s(system, busy_of, n_write, sync_update)  # the engine's threads on the host
    raid_waf, waf_nand = write_amplification(system, sampled) if sampled else (float("nan"), float("nan"))
    rebuild_rate = None
    if rebuild is not None:
        rebuild_rate = (rebuild.done_bytes / end_s) if until_rebuilt else rebuild.window_bytes / window
        other_busy += busy_of["rebuild_thread"]
    cpu_busy = busy_cpus_with_polling(cpu_busy, len(system.cpu_speed) * window, w.numjobs * window, system.host_io,
                                      system.logical_cpus * window, other_busy)
    return SimResult(
        scenario=system.scenario.name, workload=w.name, fidelity="event",
        read_iops=n_read / window, write_iops=n_write / window,
        read_bytes_per_s=n_read * w.bs / window, write_bytes_per_s=n_write * w.bs / window,
        cpu_percent=min(100.0, 100.0 * cpu_busy / (system.logical_cpus * window)),  # capped busy CPUs, less rounding
        logical_cpus=system.logical_cpus,
        read_latency_us=stats.latency_us["read"], write_latency_us=stats.latency_us["write"],
        iops_ci95=half_width, raid_waf=raid_waf, waf_nand=waf_nand, utilisation=tuple(util),
        limited_by=_limited_by(util, w), simulated_host_ios=n_read + n_write, completed_host_ios=run.completed,
        simulated_s=window, wall_s=time.perf_counter() - started,
        latency_samples_s=samples, tail_ci95_us=stats.tails_us,
        rebuild_bytes_per_s=rebuild_rate, rebuild_limited_by="measured (event mode)" if rebuild is not None else "",
        closed_loop=closed_loop_text(w),
    )


def _limited_by(util, workload) -> str:
    """The busiest resource where it is saturated, else the closed loop's I/Os in flight, as the fluid
    mode words it (a QD1 reader named its job's core at 8% busy)."""
    top = busiest(util)
    if top.utilisation >= SATURATED_UTILISATION:
        return top.resource
    population = workload.numjobs * workload.iodepth
    return f"I/Os in flight ({population} = {format_jobs(workload.numjobs, workload.iodepth)})"

