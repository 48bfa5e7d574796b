"""The composite rows of the route table (nvsim.simulation): each peels one feature of a workload
and solves it from closed loops run through the runner it is handed, never importing the orchestrator.

| row | the workload has | solved as |
|---|---|---|
| ``phase`` | jobs that run at the same time (``Phase``) | one closed loop of all their clones when they are one loop (``Phase.one_loop``), else each job's loop waiting with the others at the saturated resource (nvsim.workload.together); then each job's trims and fresh drives |
| ``trim`` | trims only (rw=trim, randtrim) | deallocations at the closed loop's rate or the cap (nvsim.workload.trim) |
| ``fresh`` | ``drive_state: fresh`` | the fresh run, blended with the steady run once the free blocks are written (nvsim.workload.fresh) |
| ``filled`` | ``drive_state: filled`` | random writes through garbage collection's transient after a sequential fill: the WAF-1 and steady runs, put together over the job's runtime (nvsim.workload.filled) |
| ``trimwrite`` | a trim before each write | the writes' run, its trims beside it (nvsim.workload.trim) |
| ``poisson`` | a rate cap with Poisson arrivals | a flow-equivalent server of closed loops (nvsim.workload.open_loop) |
| ``paced`` | a rate cap (linear) | the cap, latencies of the smallest closed loop that reaches it |
| ``think`` | a think time | an interactive closed system (Little's law over the think-I/O cycle) |
| ``latency_target`` | a latency target | the highest iodepth that meets it (fio's percentile rule) |
| ``mix`` | a mix of block sizes | each part's closed loop, put together (nvsim.workload.mix) |

A row returns a ``Result`` whose ``scale`` carries the job's rate over the closed loop that gave its
latencies (``loop``), with a ``note`` saying what it did. ``Job.solve(workload, peeled)`` runs the
rest of the table for ``workload`` with the rows in ``peeled`` (and those already peeled) skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..histogram import percentile_table
from ..result import Result, Route
from ..sim.model import build
from ..sim.workload import job_region
from ..specs import Phase, ScenarioSpec, WorkloadSpec
from ..states import ArrayState
from .filled import FilledRun, drive_write_bytes_per_s, filled_note, filled_run, with_mean_waf
from .fresh import blended_scale, crossing_note, fresh_seconds
from .mix import mixed_result
from .open_loop import ladder_picks, open_loop_result
from .together import Member, shared_results
from .trim import check_discards, deallocated_share, pure_trim_result, trim_cost

PACING_ROWS = frozenset({"direction_caps", "poisson", "paced", "think", "latency_target"})
"""The rows that pace a job; a job's bare closed loop (its mix) is what is left without them."""
AFTER_PHASE_ROWS = frozenset({"fresh", "filled", "trimwrite"})
"""Rows a phase applies to each job once the jobs have shared the array."""
SHARED_DRIVE = "shared drive"
"""Peeled by jobs sharing one drive used directly: the array simulator, not the drive model (which
has no record of what each job uses), solves their closed loops (nvsim.simulation.route)."""


@dataclass(frozen=True)
class Job:
    """What a composite row is handed: the set-up, where the orchestrator places the workload
    (``placed``: drive, array or state), and ``solve(workload, peeled)``, the route table for the rest."""

    scenario: ScenarioSpec
    workload: WorkloadSpec | Phase
    catalog: Any
    fidelity: str
    state: ArrayState
    placed: Route
    solve: Callable[[WorkloadSpec, frozenset[str]], Result]
    array_bytes: Callable[[], int]

    @property
    def device_bytes(self) -> int:
        """Bytes the host sees (fio's device size, for a job's runtime)."""
        return self.array_bytes()

    def loop(self, workload: WorkloadSpec, *peel: str) -> Result:
        """``workload`` solved with ``peel`` rows skipped."""
        return self.solve(workload, frozenset(peel))

    def alone(self, workload: WorkloadSpec) -> Result:
        """A job of a phase solved as if it had the array to itself (its pacing and mix, not its
        trims or fresh drives, which the phase applies after)."""
        return self.solve(workload, AFTER_PHASE_ROWS | {"phase"})

    def closed_loop(self, workload: WorkloadSpec, *peel: str) -> Result:
        """The job's bare closed loop (its mix, no pacing) at ``workload``'s population (``peel``:
        more rows skipped, e.g. ``SHARED_DRIVE``)."""
        return self.solve(workload, PACING_ROWS | AFTER_PHASE_ROWS | {"phase", *peel})


def composite_route(workload: WorkloadSpec | Phase, peeled: frozenset[str]) -> Route | None:
    """The first composite row that applies to ``workload`` (None: a closed loop, today's rows)."""
    if isinstance(workload, Phase) or (workload.phase is not None and "phase" not in peeled):
        return "phase"
    rows = (("trim", workload.pure_trim), ("fresh", workload.drive_state == "fresh"),
            ("filled", workload.drive_state == "filled"),
            ("trimwrite", workload.trim is not None and not workload.pure_trim),
            ("direction_caps", workload.rate_iops_by_direction is not None),
            ("poisson", workload.rate_iops is not None and workload.rate_process == "poisson"),
            ("paced", workload.rate_iops is not None and workload.rate_process == "linear"), ("think", workload.thinktime is not None),
            ("latency_target", workload.latency_target is not None), ("mix", workload.bs_mix is not None))
    return next((row for row, applies in rows if applies and row not in peeled), None)


def iops_text(iops: float) -> str:
    return f"{iops:,.0f}" if iops >= 10 else f"{iops:.3g}"


def job_runtime_s(workload: WorkloadSpec, bytes_per_s: float, device_bytes: int) -> float:
    """How long fio would run the job at ``bytes_per_s`` (all clones together).

    time_based with a runtime: the runtime. Otherwise every clone moves ``io_size`` (else ``size``,
    the device when size is absent) ``loops`` times, and a runtime stops it early.
    """
    moved = job_bytes(workload, device_bytes)
    if moved is None:
        return float(workload.runtime)
    by_size = moved / bytes_per_s if bytes_per_s > 0 else float(workload.runtime or 0.0)
    return min(by_size, float(workload.runtime)) if workload.runtime else by_size


def job_bytes(workload: WorkloadSpec, device_bytes: int) -> int | None:
    """Bytes fio's size rules have all the job's clones move: each ``io_size`` (else its region,
    ``clone_bytes``) ``loops`` times; None for a time_based job with a runtime (it runs the runtime
    whatever it moves)."""
    if workload.time_based and workload.runtime:
        return None
    if workload.io_size:
        return workload.numjobs * workload.loops * workload.io_size
    if not workload.offset_increment:  # every clone starts at the offset
        return workload.numjobs * workload.loops * clone_bytes(workload, 0, device_bytes)
    return workload.loops * sum(clone_bytes(workload, job, device_bytes) for job in range(workload.numjobs))


def clone_runs(workload: WorkloadSpec, bytes_per_s: float, device_bytes: int) -> list[tuple[float, float]] | None:
    """(bytes, seconds) each clone moves and runs where their regions differ (``offset_increment``,
    one cut at the device's end: ``clone_bytes``): the job's rate held, as ``job_runtime_s`` takes
    it, and shared evenly by the clones still running, so a clone ends when it has moved its
    region ``loops`` times (the last with the job), or at ``runtime``. None where every clone
    moves alike (time_based, io_size, no offset_increment, equal regions)."""
    if job_bytes(workload, device_bytes) is None or workload.io_size or not workload.offset_increment or bytes_per_s <= 0:
        return None
    own = [workload.loops * clone_bytes(workload, job, device_bytes) for job in range(workload.numjobs)]
    if len(set(own)) == 1:
        return None
    return _shared_runs(own, bytes_per_s, float(workload.runtime) if workload.runtime else math.inf)


def _shared_runs(own: list[int], bytes_per_s: float, until_s: float) -> list[tuple[float, float]]:
    """(bytes, seconds) of clones that must move ``own`` bytes, sharing ``bytes_per_s`` evenly
    among those still running, stopped at ``until_s``: the smallest ends first."""
    ended: dict[int, tuple[float, float]] = {}
    at_s = level = 0.0
    for job in sorted(range(len(own)), key=own.__getitem__):
        running = len(own) - len(ended)
        step_s = running * (own[job] - level) / bytes_per_s
        if at_s + step_s > until_s:
            level += (until_s - at_s) * bytes_per_s / running
            break
        at_s, level = at_s + step_s, float(own[job])
        ended[job] = (level, at_s)
    return [ended.get(job, (level, until_s)) for job in range(len(own))]


def clone_bytes(workload: WorkloadSpec, job: int, device_bytes: int) -> int:
    """Bytes clone ``job`` moves once through its region: ``size`` (the device when absent) from its
    own start (``offset + job * offset_increment``), cut to the whole smallest blocks (fio's td_min_bs)
    before the device's end,
    as fio's setup_files sets each clone's io_size from its own start offset (get_start_offset);
    the simulated clone's region (``job_region``)."""
    region = job_region(workload, job, device_bytes)[1]
    return region if region == (workload.size or device_bytes) else region // workload.min_bs * workload.min_bs


def moved_bytes_per_s(result: Result, bs: int) -> float:
    """Bytes per second a job's result moves: reads, writes and trims (as fio counts its runtime)."""
    raw = result.unscaled
    rate = (raw.read_bytes_per_s + raw.write_bytes_per_s) * result.scale
    return rate + (result.trim_iops * bs if result.trim_iops is not None else 0.0)


# ---------------------------------------------------------------- a job's rows


def mix(job: Job) -> Result:
    """A mix of block sizes: each part one closed loop (nvsim.workload.mix)."""
    return mixed_result(job.workload, list(job.workload.bs_mix), job.scenario, job.fidelity,
                        lambda spec, workload, fidelity: job.loop(workload, "mix"))


def population_ladder(workload: WorkloadSpec) -> list[tuple[int, int]]:
    """Closed loops of growing population, (numjobs, iodepth): 1..numjobs jobs at depth 1, then all
    jobs at depth 2..iodepth; I/Os in flight grow by one job or one depth step at a time."""
    return [(j, 1) for j in range(1, workload.numjobs + 1)] + [(workload.numjobs, d) for d in range(2, workload.iodepth + 1)]


def _at(workload: WorkloadSpec, jobs: int, depth: int) -> WorkloadSpec:
    return workload.model_copy(update={"numjobs": jobs, "iodepth": depth})


def pacing_ceiling_iops(workload: WorkloadSpec) -> tuple[float, str]:
    """(the I/Os per second the workload's own pacing lets it issue at most on any array, what paces
    it): fio's rate cap (``rate_iops`` per clone; a Poisson process at the same mean), its think time
    (one I/O per ``thinktime`` per clone at best, ``think``'s cycle with no latency); (inf, "") when
    neither is set. A latency target sets no ceiling of its own (its depth follows the array)."""
    ceilings = []
    if workload.rate_iops is not None:
        ceilings.append((workload.rate_iops * workload.numjobs, _rate_cap_words(workload)))
    if workload.thinktime is not None:
        ceilings.append((workload.numjobs / workload.thinktime, _think_words(workload)))
    return min(ceilings, default=(float("inf"), ""))


def _rate_cap_words(workload: WorkloadSpec) -> str:
    """What paces a job with a rate cap, as its result's ``paced_by`` and the plan's bound say it."""
    return f"its rate cap ({workload.numjobs} job(s) x {iops_text(workload.rate_iops)} IOPS)"


def _think_words(workload: WorkloadSpec) -> str:
    """What paces a job with a think time, as its result's ``paced_by`` and the plan's bound say it."""
    return f"its think time ({workload.thinktime * 1e6:,.0f} us after each I/O, {workload.numjobs} job(s))"


def direction_caps(job: Job) -> Result:
    """fio's caps per direction on a read/write mix (``rate_iops_by_direction``: rate_iops=R,W; one
    value caps each direction). fio's ``rate_ddir`` (io_u.c) issues a direction that is behind its
    cap at once; when the mix picks a direction that is ahead, it issues the other if that one is
    behind (an uncapped direction always is), and sleeps only when both are ahead. So:

    * neither cap reached at the job's mix: the mix at the array's pace (the caps change nothing);
    * both caps reachable: each direction at its cap, the mix R/(R+W) (``paced`` at R+W);
    * else the direction whose cap binds first (the least cap over its share) runs at its cap and
      the other takes the rest of the job's depth: the closed loop of the whole depth at the mix
      where the first direction's rate meets its cap (found to a whole percent, as rwmixread is)."""
    w = job.workload
    caps = tuple(None if cap is None else cap * w.numjobs for cap in w.rate_iops_by_direction)
    bare = w.model_copy(update={"rate_iops_by_direction": None, "rate_process": "linear"})
    full = job.loop(bare)
    rates = (full.read_iops, full.write_iops)
    if all(cap is None or rate <= cap for rate, cap in zip(rates, caps)):
        return full.with_note(f"job {w.name}: its caps per direction ({_caps_text(caps)}) are not reached; the job "
                              f"runs at {iops_text(full.total_iops)} IOPS")
    if None not in caps:
        percent = round(100 * caps[0] / (caps[0] + caps[1]))
        both = _at_mix(bare, percent, rate_iops=(caps[0] + caps[1]) / w.numjobs, rate_process=w.rate_process)
        if 0 < percent < 100 and job.loop(_at_mix(bare, percent)).total_iops >= caps[0] + caps[1]:
            result = _direction_rates(job.loop(both), caps[0], caps[1])
            return replace(result, route="direction_caps", paced_by=f"its caps per direction ({_caps_text(caps)})").with_note(
                f"job {w.name}: each direction at its cap ({_caps_text(caps)}): a {percent}/{100 - percent} mix")
    shares = (w.read_fraction, 1.0 - w.read_fraction)
    first = min((d for d in (0, 1) if caps[d] is not None), key=lambda d: caps[d] / shares[d])
    percent, result = _mix_at_cap(job, bare, first, caps[first])
    rest = result.total_iops - caps[first]
    result = _direction_rates(result, *((caps[0], rest) if first == 0 else (rest, caps[1])))
    other = ("writes", "reads")[first]
    return replace(result, route="direction_caps", paced_by=f"its {('read', 'write')[first]} cap ({iops_text(caps[first])} IOPS)").with_note(
        f"job {w.name}: {('reads', 'writes')[first]} at their cap ({iops_text(caps[first])} IOPS), the {other} take the "
        f"rest of the depth: a {percent}/{100 - percent} mix (to a whole percent, as rwmixread)")


def _direction_rates(result: Result, reads: float, writes: float) -> Result:
    """``result`` with its reads and writes per second set to ``reads`` and ``writes`` (their bytes
    at each direction's mean size), its latencies kept: the mix it was solved at is the caps' to a
    whole percent, the rates are the caps' own. A single drive's prediction is left as it is."""
    sim = result.simulation
    if sim is None or sim.read_iops <= 0 or sim.write_iops <= 0:
        return result
    scale = result.scale
    return replace(result, simulation=replace(
        sim, read_iops=reads / scale, write_iops=writes / scale,
        read_bytes_per_s=sim.read_bytes_per_s / sim.read_iops * reads / scale,
        write_bytes_per_s=sim.write_bytes_per_s / sim.write_iops * writes / scale))


def _at_mix(workload: WorkloadSpec, percent: int, **update: Any) -> WorkloadSpec:
    return workload.model_copy(update={"rwmixread": percent, **update})


def _mix_at_cap(job: Job, bare: WorkloadSpec, direction: int, cap: float) -> tuple[int, Result]:
    """(rwmixread, the closed loop there) at which ``direction``'s rate comes nearest its ``cap`` from
    below, by bisection over whole percents between the job's mix and the other direction alone:
    that direction's rate falls as its share does."""
    mine = (lambda p: p) if direction == 0 else (lambda p: 100 - p)
    toward = -1 if direction == 0 else 1  # the side where the capped direction's share shrinks
    solved: dict[int, Result] = {}

    def rate(percent: int) -> float:
        if percent not in solved:
            solved[percent] = job.loop(_at_mix(bare, percent))
        result = solved[percent]
        return result.read_iops if direction == 0 else result.write_iops

    start = bare.rwmixread
    end = 0 if toward < 0 else 100
    low, high = sorted((start, end))  # rate(start) > cap, rate(end) == 0 <= cap
    # the percent on the capped side of the root: the largest share whose rate is within the cap
    while high - low > 1:
        middle = (low + high) // 2
        below = rate(middle) <= cap
        if (below and toward < 0) or (not below and toward > 0):
            low = middle
        else:
            high = middle
    percent = low if toward < 0 else high
    if mine(percent) == 0:
        percent += 1 if toward < 0 else -1  # the capped direction still issues: its share at least 1%
    rate(percent)
    return percent, solved[percent]


def _caps_text(caps: tuple[float | None, float | None]) -> str:
    return ", ".join(f"{name} {'uncapped' if cap is None else iops_text(cap) + ' IOPS'}"
                     for name, cap in zip(("reads", "writes"), caps))


def paced(job: Job) -> Result:
    """fio's rate / rate_iops (linear pacing): the job runs at the cap when its closed loop could go
    faster, else at what the loop allows (the cap is not reached).

    Below the loop's rate the job keeps fewer I/Os in flight; nvsim takes the latencies of the
    smallest closed loop of the ladder (``population_ladder``) whose rate reaches the cap: that loop
    is at least as loaded as the paced job, so its latencies bound the paced job's from above,
    within one step of the ladder. Rates are scaled to the cap (``Result.scale``)."""
    workload = job.workload
    target = workload.rate_iops * workload.numjobs
    full = job.loop(workload, "paced")
    if full.total_iops <= target:
        return full.with_note(f"job {workload.name}: the rate cap ({iops_text(target)} IOPS) is not reached; "
                              f"the job runs at {iops_text(full.total_iops)} IOPS")
    ladder = population_ladder(workload)
    results: dict[int, Result] = {len(ladder) - 1: full}

    def rate_at(index: int) -> float:
        if index not in results:
            results[index] = job.loop(_at(workload, *ladder[index]), "paced")
        return results[index].total_iops

    low, high = 0, len(ladder) - 1  # the smallest index whose rate reaches the cap, by bisection
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if rate_at(middle) < target else (low, middle)
    rate_at(low)
    jobs, depth = ladder[low]
    scale = results[low].scale * target / results[low].total_iops  # on top of a think time's own scale
    return replace(results[low], route="paced", scale=scale, loop=results[low].loop or _at(workload, jobs, depth),
                   paced_by=_rate_cap_words(workload)).with_note(
        f"job {workload.name}: capped at {iops_text(target)} IOPS by its rate; latencies of the smallest closed loop "
        f"that reaches it ({jobs} job(s) x iodepth {depth}), an upper bound within one step")


def poisson(job: Job) -> Result:
    """fio's rate with ``rate_process=poisson``: I/Os arrive at random at the cap's mean rate
    (nvsim.workload.open_loop: the array as a flow-equivalent server of its closed loops)."""
    workload = job.workload
    target = workload.rate_iops * workload.numjobs
    ladder = population_ladder(workload)
    full = job.loop(workload, "poisson")
    loops = []
    for index in ladder_picks(len(ladder)):
        jobs, depth = ladder[index]
        loops.append((jobs * depth, full if index == len(ladder) - 1 else job.loop(_at(workload, jobs, depth), "poisson")))
    result, in_system, reached = open_loop_result(workload, target, loops)
    if not reached:
        return full.with_note(f"job {workload.name}: Poisson arrivals at {iops_text(target)} IOPS reach the full loop's "
                              f"{iops_text(result.total_iops)} IOPS: the queue does not settle; the job runs at the loop's rate")
    return replace(result, route="poisson", scale=target / result.total_iops,
                   paced_by=f"its Poisson arrivals ({workload.numjobs} job(s) x {iops_text(workload.rate_iops)} IOPS)").with_note(
        f"job {workload.name}: Poisson arrivals at {iops_text(target)} IOPS: {in_system:.2f} I/Os in the array "
        f"on average, mean latency {in_system / target * 1e6:,.1f} us (flow-equivalent server of {len(loops)} closed loops)")


def think(job: Job) -> Result:
    """fio's thinktime (thinktime_blocks=1): each clone stalls ``thinktime`` after every I/O, so it
    has at most one I/O in flight, and its clones are an interactive closed system: IOPS X and
    latency R obey X (R + Z) = numjobs (Little's law over the think-I/O cycle).

    With n of the clones' I/Os in flight on average, the array answers as the closed loop of n jobs
    at depth 1; nvsim takes the smallest such loop (1..numjobs jobs, by bisection) whose rate X_n
    meets n + X_n Z >= numjobs, reports its latencies R_n and the rate numjobs / (R_n + Z): the
    latencies bound the job's from above within one job, and the rate from below."""
    workload, think_s = job.workload, job.workload.thinktime
    jobs = workload.numjobs
    results: dict[int, Result] = {}

    def enough(n: int) -> bool:
        if n not in results:
            results[n] = job.loop(_at(workload, n, 1), "think")
        return n + results[n].total_iops * think_s >= jobs

    low, high = 1, jobs
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle + 1, high)
    enough(low)
    rate = results[low].total_iops
    iops = jobs / (low / rate + think_s)
    return replace(results[low], route="think", scale=iops / rate, loop=_at(workload, low, 1),
                   paced_by=_think_words(workload)).with_note(
        f"job {workload.name}: thinktime {think_s * 1e6:,.0f} us after each I/O: {iops_text(iops)} IOPS; "
        f"latencies of the closed loop of {low} job(s) at depth 1 (an upper bound within one job)")


def latency_target(job: Job) -> Result:
    """fio's latency_target (latency_run=0): the highest iodepth (1..iodepth, numjobs kept) at which
    latency_percentile % of the I/Os take at most the target, found by bisection; the job reports
    that depth's run. The event mode's samples give the percentile (fio's histogram rule,
    nvsim.histogram); the fluid mode has only the mean, which then stands for it (a note says so)."""
    workload = job.workload
    results: dict[int, Result] = {}

    def meets(depth: int) -> bool:
        if depth not in results:
            results[depth] = job.loop(workload.model_copy(update={"iodepth": depth}), "latency_target")
        return latency_s(results[depth], workload.latency_percentile) <= workload.latency_target

    low, high = 1, workload.iodepth  # the highest depth that meets the target
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if meets(middle) else (low, middle - 1)
    met = meets(low)
    measure = (f"p{workload.latency_percentile:g}" if results[low].latency_samples_s
               else "mean (the fluid mode has no percentiles)")
    held = low < workload.iodepth  # the target, not the job's depth, sets the I/Os in flight
    paced = (f"its latency target ({measure.split(' ')[0]} at most {workload.latency_target * 1e6:,.0f} us: iodepth "
             f"{low} of {workload.iodepth})") if held else ""
    return replace(results[low], route="latency_target", loop=workload.model_copy(update={"iodepth": low}),
                   paced_by=paced).with_note(
        f"job {workload.name}: latency_target {workload.latency_target * 1e6:,.0f} us on the {measure}: iodepth {low}"
        + ("" if met else ", where the target is not met (fio cannot go below depth 1)"))


def latency_s(result: Result, percentile: float) -> float:
    """The latency a target is checked against: fio's percentile of the samples, else the mean."""
    samples = [np.asarray(s) for s in result.latency_samples_s.values() if s is not None and len(s)]
    if samples:
        ns = np.rint(np.concatenate(samples) * 1e9).astype(np.int64)
        return percentile_table(ns, (percentile,))[f"{percentile:f}"] / 1e9
    return mean_latency_s(result)


def mean_latency_s(result: Result) -> float:
    """The mean latency over a result's reads and writes, each direction's mean weighted by its
    IOPS (in a closed loop: Little's law, the I/Os in flight over the IOPS); inf: no I/O."""
    means = [(iops, lat["mean"]) for iops, lat in ((result.read_iops, result.read_latency_us),
                                                    (result.write_iops, result.write_latency_us)) if iops and "mean" in lat]
    total = sum(iops for iops, _ in means)
    return sum(iops * mean for iops, mean in means) / total / 1e6 if total else float("inf")


def mean_latency_us(result: Result) -> float | None:
    """``mean_latency_s`` in microseconds, as a report shows it; None: no I/O."""
    mean_s = mean_latency_s(result)
    return mean_s * 1e6 if math.isfinite(mean_s) else None


def trim(job: Job) -> Result:
    """Trims only (rw=trim, randtrim): deallocations at the closed loop's rate or the job's rate cap."""
    workload = job.workload
    check_discards(job.scenario, job.catalog, workload.name)
    cap = None if workload.rate_iops is None else workload.rate_iops * workload.numjobs
    result, iops, latency = pure_trim_result(job.scenario, workload, job.catalog, cap, job.placed, job.state)
    return replace(result, trim_iops=iops, trim_latency_s=latency).with_note(
        f"job {workload.name}: {iops_text(iops)} trims/s (NVMe deallocate, {latency * 1e6:,.1f} us each: host path "
        f"plus the drive's command latency, assumed; {result.simulation.limited_by}; nvsim.workload.trim)")


def trimwrite(job: Job) -> Result:
    """trimwrite: the writes' run, with one trim before each write at the deallocate's latency."""
    check_discards(job.scenario, job.catalog, job.workload.name)
    return with_trims(job, job.loop(job.workload, "trimwrite"), job.workload)


def with_trims(job: Job, result: Result, workload: WorkloadSpec) -> Result:
    """``result`` with its trims: one before each write, at the deallocate's latency."""
    cost = trim_cost(build(job.scenario, workload, job.catalog))
    return replace(result, trim_iops=result.write_iops, trim_latency_s=cost.latency_s)


def fresh(job: Job) -> Result:
    """Fresh drives: the fresh run, blended with the steady run past the free blocks (nvsim.workload.fresh)."""
    return fresh_until_full(job, job.loop(job.workload, "fresh"), job.workload, job.device_bytes)


def fresh_until_full(job: Job, result: Result, workload: WorkloadSpec, device_bytes: int) -> Result:
    """A job on fresh drives that outlasts their free blocks: steady state for the rest."""
    raw = build(job.scenario, workload, job.catalog).drive.ssd.params.raw_nand_bytes
    fresh_s = fresh_seconds(result.unscaled, result.scale, job.scenario.array.drives, raw)
    runtime_s = job_runtime_s(workload, moved_bytes_per_s(result, workload.bs), device_bytes)
    if fresh_s >= runtime_s:
        return result
    steady = job.closed_loop(workload.model_copy(update={"drive_state": "steady"}))
    factor = blended_scale(runtime_s, fresh_s, result.unscaled.total_iops, steady.total_iops)
    # the drives' WAF over the run: the fresh part's, then the steady part's, by the I/Os each moved
    steady_ios = steady.total_iops * (runtime_s - fresh_s)
    averaged = with_mean_waf(result, result, steady, steady_ios / (result.unscaled.total_iops * fresh_s + steady_ios))
    return replace(averaged, scale=result.scale * factor).with_note(crossing_note(workload.name, fresh_s, runtime_s, factor))


def filled(job: Job) -> Result:
    """Drives a sequential fill left: the job's random writes through garbage collection's
    transient, from its WAF-1 run and its steady run (nvsim.workload.filled); the latencies are the
    WAF-1 run's. A job with no random writes is the steady run (the fill changes nothing for it)."""
    workload = job.workload
    steady = job.loop(_in_state(workload, "steady"), "filled")
    if not _writes_randomly(workload):
        return steady
    fresh_run = job.loop(_in_state(workload, "fresh"), "filled", "fresh")
    run = filled_transient(job, workload, fresh_run, steady)
    averaged = with_mean_waf(fresh_run, fresh_run, steady, run.excess)
    return replace(averaged, scale=fresh_run.scale * run.factor).with_note(filled_note(workload.name, run))


def _writes_randomly(workload: WorkloadSpec) -> bool:
    """Whether the fill left by ``drive_state: filled`` changes the job: random writes only (a
    sequential stream frees whole blocks in order from any state; reads do not move the FTL)."""
    return workload.is_random and workload.read_fraction < 1.0


def _in_state(workload: WorkloadSpec, state: str) -> WorkloadSpec:
    return workload.model_copy(update={"drive_state": state})


def filled_transient(job: Job, workload: WorkloadSpec, fresh_run: Result, steady: Result) -> FilledRun:
    """The transient of ``workload`` from its WAF-1 and steady runs: what its writes reach and the
    spare they see (the drive model's FTL load, nvsim.ftl.load), its runtime or size as fio reads them
    (``job_runtime_s``)."""
    ssd = build(job.scenario, _in_state(workload, "steady"), job.catalog).drive.ssd
    load = ssd.ftl_load
    moved = moved_bytes_per_s(fresh_run, workload.bs)
    per_drive = drive_write_bytes_per_s(fresh_run, job.scenario.array.drives)
    size_bound = job_bytes(workload, job.device_bytes)
    return filled_run(moved, moved_bytes_per_s(steady, workload.bs), per_drive / moved if moved > 0 else 0.0,
                      ssd.namespace_bytes * load.active_fraction, load.spare_factor(ssd.spare_factor),
                      float(workload.runtime) if workload.runtime else None,
                      None if size_bound is None else float(size_bound))


# ---------------------------------------------------------------- a phase


def phase(job: Job) -> Result:
    """Jobs that run at the same time on one array, one Result each (``Result.jobs``; a workload of
    a scenario's phase: its own Result among them): trim-only
    jobs at their own rate; the others as one closed loop (``Phase.one_loop``), sharing the array's
    queues (nvsim.workload.together), or each alone where one searches a latency target; the writes
    beside trims on a region whose trimmed share holds no valid data (``deallocated_fraction``, one
    step of the fixed point); then each job's trims before writes and its fresh drives filling."""
    jobs = phase_jobs(job)
    results: dict[int, Result] = {i: job.loop(w, "phase") for i, w in enumerate(jobs) if w.pure_trim}
    others = {i: w for i, w in enumerate(jobs) if not w.pure_trim}
    for i, w in others.items():
        if w.trim is not None:
            check_discards(job.scenario, job.catalog, w.name)
    runs = _sharing(job, others)
    trimmed = sum(r.trim_iops * jobs[i].bs for i, r in results.items())
    written = sum(r.write_bytes_per_s for r in runs.values())
    share = deallocated_share(trimmed, written)
    if share > 0:
        others = {i: w.model_copy(update={"deallocated_fraction": share}) if w.read_fraction < 1 else w
                  for i, w in others.items()}
        note = (f"trims at {trimmed / 1e6:,.1f} MB/s beside writes at {written / 1e6:,.1f} MB/s: {share:.1%} of the "
                f"region holds no valid data (deallocated), the drives' FTL counts it as spare")
        runs = {i: replace(r, solved=others[i]).with_note(note) for i, r in _sharing(job, others).items()}
    for i, r in runs.items():
        if others[i].trim is not None:
            r = with_trims(job, r, others[i])
        if others[i].drive_state == "fresh":
            r = fresh_until_full(job, r, others[i], job.device_bytes)
        if others[i].drive_state == "filled" and _writes_randomly(others[i]):
            r = filled_in_phase(job, r, others[i])
        results[i] = r
    ordered = tuple(results[i] for i in range(len(jobs)))
    if not isinstance(job.workload, Phase):  # one workload of a scenario's phase: its own answer, beside the others
        return ordered[jobs.index(job.workload)]
    first = ordered[0]
    return Result(job.scenario.name, job.workload.name, "phase", first.fidelity, job.state, first.simulation, first.drive,
                  jobs=ordered)


def filled_in_phase(job: Job, shared: Result, workload: WorkloadSpec) -> Result:
    """A phase's job on filled drives: its shared (steady) run scaled by what the transient makes of
    the job alone (its WAF-1 and steady runs on the array to itself, ``filled_transient``)."""
    fresh_run, steady = job.alone(_in_state(workload, "fresh")), job.alone(_in_state(workload, "steady"))
    run = filled_transient(job, workload, fresh_run, steady)
    steady_rate = moved_bytes_per_s(steady, workload.bs)
    factor = run.factor * moved_bytes_per_s(fresh_run, workload.bs) / steady_rate if steady_rate > 0 else 1.0
    averaged = with_mean_waf(shared, fresh_run, shared, run.excess)
    return replace(averaged, scale=shared.scale * factor).with_note(filled_note(workload.name, run))


def phase_jobs(job: Job) -> tuple[WorkloadSpec, ...]:
    """The jobs of the phase: a ``Phase``'s, or the scenario's workloads of the workload's phase."""
    if isinstance(job.workload, Phase):
        return job.workload.jobs
    found = job.scenario.phase(job.workload.phase)
    jobs = found.jobs if found is not None else ()
    return jobs if job.workload in jobs else (job.workload, *jobs)


def _sharing(job: Job, jobs: dict[int, WorkloadSpec]) -> dict[int, Result]:
    """The jobs that read or write, on one array: one closed loop, together, or each alone."""
    if not jobs:
        return {}
    workloads = list(jobs.values())
    if Phase(name="phase", jobs=tuple(workloads)).one_loop:
        return dict(zip(jobs, shared_loop(job, workloads)))
    if len(workloads) > 1 and all(w.latency_target is None for w in workloads):
        return dict(zip(jobs, together(job, workloads)))
    return {i: job.alone(w) for i, w in jobs.items()}


def shared_loop(job: Job, workloads: list[WorkloadSpec]) -> list[Result]:
    """Jobs with one workload: one closed loop of all their clones; each job gets its clones' share
    of the rates (``scale``) and of the latency samples (``clones``)."""
    total = sum(w.numjobs for w in workloads)
    loop = workloads[0].model_copy(update={"numjobs": total})
    result = job.closed_loop(loop)
    out, first = [], 0
    for w in workloads:
        out.append(replace(result, workload=w.name, route="phase", scale=w.numjobs / total, loop=loop,
                           clones=(first, w.numjobs, total)))
        first += w.numjobs
    return out


def together(job: Job, workloads: list[WorkloadSpec]) -> list[Result]:
    """Jobs with different workloads sharing the array's queues (nvsim.workload.together: a common
    wait at the saturated resource); on one drive used directly the array simulator solves their
    loops (``SHARED_DRIVE``), so they share its dies too; a solver with no record of utilisation
    runs them one after another."""
    members = []
    shared = (SHARED_DRIVE,) if job.placed == "drive" else ()
    for w in workloads:
        alone = job.closed_loop(w, *shared)
        if alone.simulation is None:
            return [job.alone(w) for w in workloads]
        one = job.closed_loop(_at(w, 1, 1), *shared)
        thinking = w.thinktime is not None
        members.append(Member(alone, 1.0 / one.total_iops, w.numjobs * (1 if thinking else w.iodepth),
                              cap_iops=None if w.rate_iops is None else w.rate_iops * w.numjobs,
                              think_s=w.thinktime or 0.0, flow_weight=w.flow, flow_id=w.flow_id))
    shared, solved = shared_results(members)
    return [replace(result, workload=w.name, route="phase", scale=scale).with_note(
                f"job {w.name}: runs at the same time as {len(workloads) - 1} other job(s) on one array: "
                f"{iops_text(result.total_iops * scale)} IOPS; {_how_it_waits(solved, j)}")
            for j, (w, (result, scale)) in enumerate(zip(workloads, shared))]


def _how_it_waits(solved, j: int) -> str:
    """What job ``j`` of a phase waits for at the resources the jobs saturate together."""
    if not any(wait > 0 for wait in solved.resource_waits_s.values()):
        return "no shared resource is saturated, each job runs as it would alone"
    if solved.job_waits_s[j] <= 0:
        return f"it does not pass through {solved.busiest}, which the others saturate, and waits nowhere"
    return f"a wait of {solved.job_waits_s[j] * 1e6:,.1f} us at {solved.job_resources[j]}"


ROWS: dict[str, Callable[[Job], Result]] = {
    "phase": phase, "trim": trim, "fresh": fresh, "filled": filled, "trimwrite": trimwrite, "direction_caps": direction_caps,
    "poisson": poisson, "paced": paced,
    "think": think, "latency_target": latency_target, "mix": mix}
"""Each composite row's solver (the route table's composite rows, in nvsim.simulation)."""

__all__ = ["Job", "ROWS", "pacing_ceiling_iops", "composite_route", "job_runtime_s", "job_bytes", "clone_bytes", "moved_bytes_per_s", "population_ladder", "latency_s", "mean_latency_s", "mean_latency_us",
           "iops_text", "PACING_ROWS", "AFTER_PHASE_ROWS"]
