"""``nvsim fio``: run a parsed fio job file against a simulated array and report as fio does.

Each job is simulated (event or fluid mode) on the scenario's array; its rates are carried over the
job's own runtime as fio would run it:

* a ``time_based`` job with ``runtime`` runs ``runtime`` seconds;
* otherwise each of its ``numjobs`` clones moves ``size`` bytes (``size`` absent: the whole
  device, as fio does on a block device), stopped early by ``runtime`` if given;

so ``io_bytes``, ``total_ios`` and ``runtime`` describe the job, and the simulated window (the
measured part of the simulation that gave the rates and the latencies) is stated under each job's
``nvsim`` key. Without ``group_reporting`` fio prints one entry per clone of a ``numjobs`` job (the
same name each time); with it, one entry per reporting group, summed: so does nvsim.

Jobs that fio runs at the same time (no ``stonewall`` between them) share the array. When they are
one closed loop (the same workload but for name, numjobs and run length: ``fio.shares_one_loop``)
nvsim simulates them together, all their clones in one loop, and gives each job its clones' share
of the rates and of the latency samples; jobs with different workloads each run their own loop and
wait together at the saturated resource (``together_runs``, ``nvsim.workload.together``).
``FioJobFile.notes`` says which. A job under ``rate`` / ``rate_iops`` is paced (``paced_run``; with
``rate_process=poisson``, ``poisson_run``); a mix of block sizes or a trace runs through
``nvsim.workload.mix`` (``simulate_job``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .jobfile import FioJob, FioJobFile, shares_one_loop
from .json_report import FIO_PERCENTILES, fio_json_report, parse_percentile_list, percentile_table
from .logs import LOG_OPTIONS, LogEntry
from ..budget import check_region, check_workload
from ..errors import InputError
from ..host_io import effective_iodepth
from ..result import ClosedLoop
from ..sim.model import build
from ..simulation import Result, Simulation
from ..specs import ScenarioSpec, WorkloadSpec
from ..workload.fresh import blended_scale, crossing_note, fresh_seconds
from ..workload.mix import binned, mixed_result, part_workload
from ..workload.open_loop import ladder_picks, open_loop_result
from ..workload.together import Member, shared_results
from ..workload.trim import (PURE_TRIMS, TRIM_WRITES, check_discards, deallocated_share, pure_trim_result, trim_cost,
                             trim_direction)


@dataclass(frozen=True)
class JobRun:
    """One job's simulation and what fio would report of it over its runtime."""

    job: FioJob
    workload: WorkloadSpec
    result: Result
    runtime_s: float
    device_bytes: int
    scale: float = 1.0  # the job's rate over the rate of the run it reports (a rate cap, or its share of a shared loop)
    loop: WorkloadSpec | None = None  # that run's closed loop, numjobs x iodepth (None: the job's own)
    note: str = ""
    samples: tuple[int, int, int] | None = None  # (first, count, of): the job's clones among a shared loop's
    trim: tuple[float, float] | None = None  # (trims per second of the whole job, one trim's latency s): nvsim.workload.trim

    @property
    def in_flight(self) -> int:
        """I/Os in flight in the run that gave the latencies (Little's law where a solver gives none)."""
        w = self.loop or self.workload
        return w.numjobs * w.iodepth


def job_runtime_s(workload: WorkloadSpec, bytes_per_s: float, device_bytes: int, io_bytes: int | None = None,
                  loops: int = 1) -> float:
    """How long fio would run the job at ``bytes_per_s`` (all clones together).

    time_based with a runtime: the runtime. Otherwise every clone moves ``io_bytes`` (fio's
    io_size; else ``size``, the device when size is absent) ``loops`` times, and a runtime stops it early.
    """
    if workload.time_based and workload.runtime:
        return float(workload.runtime)
    per_clone = loops * (io_bytes or workload.size or device_bytes)
    by_size = workload.numjobs * per_clone / bytes_per_s if bytes_per_s > 0 else float(workload.runtime or 0.0)
    return min(by_size, float(workload.runtime)) if workload.runtime else by_size


def simulate_jobs(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, fidelity: str) -> list[JobRun]:
    """Simulate every job of the file: the jobs of a phase (no stonewall between them) together on
    one array: as one closed loop when they share one workload (``shares_one_loop``), otherwise
    each job's loop sharing the array's queues (``together_runs``); ``FioJobFile.notes`` states which.
    Trim jobs: ``phase_with_trims``."""
    runs = []
    device_bytes = check_regions(parsed, spec, catalog, str(parsed.path))
    for phase in parsed.phases():
        runs += phase_with_trims(phase, spec, catalog, fidelity, device_bytes, str(parsed.path))
    return runs


def check_jobs(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, fidelity: str, label: str) -> int:
    """Refuse (one line, before anything runs or is printed) a job over the work budget (its
    workload and each block size its mix is simulated as: ``nvsim.budget.check_workload``) or not
    on the array (``check_regions``). Returns the array's bytes."""
    for job in parsed.jobs:
        check_workload(job.workload, fidelity, field=f"{label}: [{job.name}]")
        for part in binned(list(job.bs_mix or ())):
            check_workload(part_workload(job.workload, part), fidelity, field=f"{label}: [{job.name}]")
    return check_regions(parsed, spec, catalog, label)


def check_regions(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, label: str) -> int:
    """Refuse (one line) a job whose region is not on the array (``nvsim.budget.check_region``): an
    offset at or past its end, offset + size past it (a size given as 'N%' fio cuts at the end, so
    does nvsim), or a replayed trace whose I/Os reach past it (fio replays a trace's offsets as
    written, unwrapped). Returns the array's bytes."""
    device_bytes = Simulation(spec, catalog=catalog).device_bytes
    for job in parsed.jobs:
        where = f"{label}: [{job.name}]"
        workload = job.resolved(device_bytes) if job.needs_device_bytes else job.workload
        end = workload.offset + (workload.size or 0)
        if job.trace is not None and end > device_bytes:
            raise InputError(f"{where}.read_iolog", f"the trace's I/Os reach byte {end:,}, past the end of the array "
                                                    f"({device_bytes:,} bytes); fio replays a trace's offsets as written, "
                                                    f"without wrapping them")
        check_region(workload, device_bytes, field=where, size_clamped=job.size_percent is not None)
    return device_bytes


def phase_runs(phase: list[FioJob], spec: ScenarioSpec, catalog: Any, fidelity: str, device_bytes: int) -> list[JobRun]:
    """The runs of one phase's jobs that read or write (trim-only jobs aside)."""
    if not phase:
        return []
    if shares_one_loop(phase):
        return shared_loop_runs(phase, spec, catalog, fidelity, device_bytes)
    if len(phase) > 1 and runs_together(phase):
        return together_runs(phase, spec, catalog, fidelity, device_bytes)
    return [solo_run(job, spec, catalog, fidelity, device_bytes) for job in phase]


def phase_with_trims(phase: list[FioJob], spec: ScenarioSpec, catalog: Any, fidelity: str, device_bytes: int,
                     path: str = "") -> list[JobRun]:
    """One phase, its trims as NVMe deallocations (``nvsim.workload.trim``): trim-only jobs at their
    closed loop's rate; the writes that run with them on a region whose trimmed share holds no valid
    data (``deallocated_fraction``, one step of the fixed point); trimwrite jobs' trims beside
    their writes, one each."""
    for job in phase:
        if job.trim is not None:
            check_discards(spec, catalog, job.name, f"{path} line {job.line}" if path else "")
    trims = [trim_run(job, spec, catalog, device_bytes) for job in phase if job.trim in PURE_TRIMS]
    others = [job for job in phase if job.trim not in PURE_TRIMS]
    runs = phase_runs(others, spec, catalog, fidelity, device_bytes)
    trimmed = sum(run.trim[0] * run.workload.bs for run in trims)
    written = sum(run.result.write_bytes_per_s * run.scale for run in runs)
    share = deallocated_share(trimmed, written)
    if share > 0:
        others = [replace(job, workload=job.workload.model_copy(update={"deallocated_fraction": share}))
                  if job.workload.read_fraction < 1 else job for job in others]
        note = (f"trims at {trimmed / 1e6:,.1f} MB/s beside writes at {written / 1e6:,.1f} MB/s: {share:.1%} of the "
                f"region holds no valid data (deallocated), the drives' FTL counts it as spare")
        runs = [replace(run, note=f"{run.note}; {note}" if run.note else note)
                for run in phase_runs(others, spec, catalog, fidelity, device_bytes)]
    runs = [_with_trims(run, spec, catalog) if run.job.trim in TRIM_WRITES else run for run in runs]
    runs = [_fresh_until_full(run, spec, catalog, fidelity) if run.workload.drive_state == "fresh" else run for run in runs]
    order = {(job.name, job.line): i for i, job in enumerate(phase)}
    return sorted(trims + runs, key=lambda run: order.get((run.job.name, run.job.line), len(order)))


def _fresh_until_full(run: JobRun, spec: ScenarioSpec, catalog: Any, fidelity: str) -> JobRun:
    """A job on fresh drives that outlasts their free blocks: steady state for the rest (``nvsim.workload.fresh``)."""
    raw = build(spec, run.workload, catalog).drive.ssd.params.raw_nand_bytes
    fresh_s = fresh_seconds(run.result, run.scale, spec.array.drives, raw)
    if fresh_s >= run.runtime_s:
        return run
    steady = simulate_job(run.job, run.workload.model_copy(update={"drive_state": "steady"}), spec, catalog, fidelity)
    factor = blended_scale(run.runtime_s, fresh_s, run.result.total_iops, steady.total_iops)
    note = crossing_note(run.job.name, fresh_s, run.runtime_s, factor)
    return replace(run, scale=run.scale * factor, note=f"{run.note}; {note}" if run.note else note)


def trim_run(job: FioJob, spec: ScenarioSpec, catalog: Any, device_bytes: int) -> JobRun:
    """A trim-only job (rw=trim, randtrim): deallocations at its closed loop's rate or its rate cap."""
    workload = job.resolved(device_bytes) if job.needs_device_bytes else job.workload
    cap = None if job.rate_iops is None else job.rate_iops * workload.numjobs
    placed = Simulation(spec, workload, catalog=catalog)  # where the orchestrator places the job
    result, iops, latency_s = pure_trim_result(spec, workload, catalog, cap, placed.route, placed.state)
    note = (f"job {job.name}: {_iops_text(iops)} trims/s (NVMe deallocate, {latency_s * 1e6:,.1f} us each: host path "
            f"plus the drive's command latency, assumed; {result.simulation.limited_by}; nvsim.workload.trim)")
    return _with_runtime(JobRun(job, workload, result, 0.0, device_bytes, trim=(iops, latency_s), note=note))


def _with_trims(run: JobRun, spec: ScenarioSpec, catalog: Any) -> JobRun:
    """A trimwrite job's run with its trims: one before each write, at the deallocate's latency."""
    cost = trim_cost(build(spec, run.workload, catalog))
    return _with_runtime(replace(run, trim=(run.result.write_iops * run.scale, cost.latency_s)))


def solo_run(job: FioJob, spec: ScenarioSpec, catalog: Any, fidelity: str, device_bytes: int) -> JobRun:
    """One job with the array to itself, under its pacing (rate cap, Poisson arrivals, think time, latency target)."""
    workload = job.resolved(device_bytes) if job.needs_device_bytes else job.workload
    run = JobRun(job, workload, simulate_job(job, workload, spec, catalog, fidelity), 0.0, device_bytes)
    if job.rate_iops is not None and job.rate_process == "poisson":
        run = poisson_run(run, spec, catalog, fidelity, job.rate_iops * workload.numjobs)
    elif job.rate_iops is not None:
        run = paced_run(run, spec, catalog, fidelity, job.rate_iops * workload.numjobs)
    if job.thinktime_s is not None:
        run = thinking_run(run, spec, catalog, fidelity, job.thinktime_s)
    if job.latency_target_s is not None:
        run = latency_target_run(run, spec, catalog, fidelity)
    return _with_runtime(_check_minimum(run))


def runs_together(phase: list[FioJob]) -> bool:
    """Whether the jobs of a phase can share the array's queues (``nvsim.workload.together``): none
    searches its depth for a latency target (that job is simulated alone)."""
    return all(job.latency_target_s is None for job in phase)


def together_runs(phase: list[FioJob], spec: ScenarioSpec, catalog: Any, fidelity: str, device_bytes: int) -> list[JobRun]:
    """Jobs with different workloads that fio runs at the same time, sharing the array's queues
    (``nvsim.workload.together``: a common wait at the saturated resource); a single drive (no array
    record of utilisation) runs them one after another."""
    members, workloads = [], []
    for job in phase:
        workload = job.resolved(device_bytes) if job.needs_device_bytes else job.workload
        result = simulate_job(job, workload, spec, catalog, fidelity)
        if result.simulation is None:
            return [solo_run(job, spec, catalog, fidelity, device_bytes) for job in phase]
        one = simulate_job(job, workload.model_copy(update={"numjobs": 1, "iodepth": 1}), spec, catalog, fidelity)
        thinking = job.thinktime_s is not None
        members.append(Member(result, 1.0 / one.total_iops, workload.numjobs * (1 if thinking else workload.iodepth),
                              cap_iops=None if job.rate_iops is None else job.rate_iops * workload.numjobs,
                              think_s=job.thinktime_s or 0.0, flow_weight=job.flow_weight, flow_id=job.flow_id))
        workloads.append(workload)
    together, wait_s, label = shared_results(members)
    how = (f"a common wait of {wait_s * 1e6:,.1f} us at {label}" if wait_s > 0
           else "no shared resource is saturated, each job runs as it would alone")
    runs = []
    for job, workload, (result, scale) in zip(phase, workloads, together):
        note = (f"job {job.name}: runs at the same time as {len(phase) - 1} other job(s) on one array: "
                f"{_iops_text(result.total_iops * scale)} IOPS; {how}")
        runs.append(_with_runtime(_check_minimum(JobRun(job, workload, result, 0.0, device_bytes, scale=scale, note=note))))
    return runs


def simulate_job(job: FioJob, workload: WorkloadSpec, spec: ScenarioSpec, catalog: Any, fidelity: str) -> Result:
    """One closed loop of the job's I/Os (``workload``: the job's, or a loop of it at another
    population): a mix of block sizes (bssplit, bsrange, a trace) through ``nvsim.workload.mix``."""
    if job.bs_mix:
        return mixed_result(workload, list(job.bs_mix), spec, fidelity, closed_loop(catalog))
    return Simulation(spec, workload, catalog=catalog).run(fidelity)


def closed_loop(catalog: Any) -> ClosedLoop:
    """The closed-loop runner handed to the composite workloads (nvsim.workload): one closed loop
    through the orchestrator, on ``catalog``."""
    def loop(spec: ScenarioSpec, workload: WorkloadSpec, fidelity: str) -> Result:
        return Simulation(spec, workload, catalog=catalog).run(fidelity)
    return loop


def _iops_text(iops: float) -> str:
    return f"{iops:,.0f}" if iops >= 10 else f"{iops:.3g}"


def _check_minimum(run: JobRun) -> JobRun:
    """fio stops a job whose rate falls below rate_min / rate_iops_min: a note says so when the simulated rate does."""
    if run.job.rate_min_iops is None:
        return run
    need, have = run.job.rate_min_iops * run.workload.numjobs, run.result.total_iops * run.scale
    if have >= need:
        return run
    note = (f"job {run.job.name}: {_iops_text(have)} IOPS is below its rate_min ({_iops_text(need)} IOPS): "
            f"fio would stop the job with an error")
    return replace(run, note=f"{run.note}; {note}" if run.note else note)


def _with_runtime(run: JobRun) -> JobRun:
    rate = (run.result.read_bytes_per_s + run.result.write_bytes_per_s) * run.scale
    rate += run.trim[0] * run.workload.bs if run.trim else 0.0
    return replace(run, runtime_s=job_runtime_s(run.workload, rate, run.device_bytes, run.job.io_size_bytes, run.job.loops))


def shared_loop_runs(phase: list[FioJob], spec: ScenarioSpec, catalog: Any, fidelity: str, device_bytes: int) -> list[JobRun]:
    """Jobs fio runs at the same time with one workload: one closed loop of all their clones on the
    array; each job gets its clones' share of the rates and of the latency samples."""
    workloads = [job.resolved(device_bytes) if job.needs_device_bytes else job.workload for job in phase]
    total = sum(w.numjobs for w in workloads)
    loop = workloads[0].model_copy(update={"numjobs": total})
    result = simulate_job(phase[0], loop, spec, catalog, fidelity)
    runs, first = [], 0
    for job, workload in zip(phase, workloads):
        run = JobRun(job, workload, result, 0.0, device_bytes, scale=workload.numjobs / total, loop=loop,
                     samples=(first, workload.numjobs, total))
        runs.append(_with_runtime(_check_minimum(run)))
        first += workload.numjobs
    return runs


def population_ladder(workload: WorkloadSpec) -> list[tuple[int, int]]:
    """Closed loops of growing population, (numjobs, iodepth): 1..numjobs jobs at depth 1, then all
    jobs at depth 2..iodepth; I/Os in flight grow by one job or one depth step at a time."""
    return [(j, 1) for j in range(1, workload.numjobs + 1)] + [(workload.numjobs, d) for d in range(2, workload.iodepth + 1)]


def paced_run(run: JobRun, spec: ScenarioSpec, catalog: Any, fidelity: str, target_iops: float) -> JobRun:
    """A job under fio's rate / rate_iops (linear pacing): it runs at the cap when its closed loop
    could go faster, else at what the loop allows (the cap is not reached).

    Below the loop's rate the job keeps fewer I/Os in flight; nvsim takes the latencies of the
    smallest closed loop of the ladder (``population_ladder``) whose rate reaches the cap: that loop
    is at least as loaded as the paced job, so its latencies bound the paced job's from above,
    within one step of the ladder. Rates are scaled to the cap (``JobRun.scale``).
    """
    name = run.job.name
    if run.result.total_iops <= target_iops:
        return replace(run, note=f"job {name}: the rate cap ({_iops_text(target_iops)} IOPS) is not reached; "
                                 f"the job runs at {_iops_text(run.result.total_iops)} IOPS")
    ladder = population_ladder(run.workload)
    results: dict[int, Result] = {len(ladder) - 1: run.result}

    def rate_at(index: int) -> float:
        if index not in results:
            jobs, depth = ladder[index]
            paced = run.workload.model_copy(update={"numjobs": jobs, "iodepth": depth})
            results[index] = simulate_job(run.job, paced, spec, catalog, fidelity)
        return results[index].total_iops

    low, high = 0, len(ladder) - 1  # the smallest index whose rate reaches the cap, by bisection
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if rate_at(middle) < target_iops else (low, middle)
    rate_at(low)
    jobs, depth = ladder[low]
    paced = run.workload.model_copy(update={"numjobs": jobs, "iodepth": depth})
    return replace(run, result=results[low], scale=target_iops / results[low].total_iops, loop=paced,
                   note=f"job {name}: capped at {_iops_text(target_iops)} IOPS by its rate; latencies of the smallest closed loop "
                        f"that reaches it ({jobs} job(s) x iodepth {depth}), an upper bound within one step")


def poisson_run(run: JobRun, spec: ScenarioSpec, catalog: Any, fidelity: str, target_iops: float) -> JobRun:
    """A job under fio's rate with ``rate_process=poisson``: I/Os arrive at random at the cap's
    mean rate (``nvsim.workload.open_loop``: the array as a flow-equivalent server of its closed loops)."""
    ladder = population_ladder(run.workload)
    loops = []
    for index in ladder_picks(len(ladder)):
        jobs, depth = ladder[index]
        loop = run.workload.model_copy(update={"numjobs": jobs, "iodepth": depth})
        result = run.result if index == len(ladder) - 1 else simulate_job(run.job, loop, spec, catalog, fidelity)
        loops.append((jobs * depth, result))
    result, in_system, reached = open_loop_result(run.workload, target_iops, loops)
    name = run.job.name
    if not reached:
        return replace(run, note=f"job {name}: Poisson arrivals at {_iops_text(target_iops)} IOPS reach the full loop's "
                                 f"{_iops_text(result.total_iops)} IOPS: the queue does not settle; the job runs at the loop's rate")
    return replace(run, result=result, scale=target_iops / result.total_iops,
                   note=f"job {name}: Poisson arrivals at {_iops_text(target_iops)} IOPS: {in_system:.2f} I/Os in the array "
                        f"on average, mean latency {in_system / target_iops * 1e6:,.1f} us (flow-equivalent server of "
                        f"{len(loops)} closed loops)")


def _direction(result: Result, ddir: str, runtime_s: float, share: float, pick: slice | None, in_flight: int,
               scale: float = 1.0, samples_of_job: tuple[int, int, int] | None = None) -> dict:
    """ios, bytes, latency samples (event mode) and mean latency of one direction.

    The mean is the solver's; where it gives none (the single-drive model) it is Little's law for
    the closed loop: the I/Os in flight over the IOPS.
    """
    iops = result.read_iops if ddir == "read" else result.write_iops
    rate = result.read_bytes_per_s if ddir == "read" else result.write_bytes_per_s
    latency = result.read_latency_us if ddir == "read" else result.write_latency_us
    samples = result.latency_samples_s.get(ddir)
    if samples is not None and samples_of_job is not None:  # the job's clones among a shared loop's, interleaved
        first, count, total = samples_of_job
        position = np.arange(len(samples)) % total
        samples = np.asarray(samples)[(position >= first) & (position < first + count)]
    ns = None if samples is None else np.asarray(samples)[pick or slice(None)] * 1e9
    mean = latency.get("mean")
    if mean is None and iops > 0 and result.total_iops > 0:
        mean = in_flight / result.total_iops * 1e6
    return {"ios": int(round(iops * scale * runtime_s * share)), "bytes": int(round(rate * scale * runtime_s * share)),
            "latencies_ns": ns, "mean_latency_ns": None if mean is None else mean * 1000.0}


def _job_entry(run: JobRun, host_io: Any, clone: int | None) -> dict:
    """One entry of fio's jobs list: the whole job, or one of its clones (``clone``)."""
    workload, result = run.workload, run.result
    share = 1.0 if clone is None else 1.0 / workload.numjobs
    pick = None if clone is None else slice(clone, None, workload.numjobs)
    if run.loop is not None:
        depth = run.loop.iodepth
    else:
        depth = effective_iodepth(host_io, workload.iodepth) if host_io else workload.iodepth
    return {
        "name": run.job.name, "group": run.job.group, "options": run.job.job_options, "runtime_s": run.runtime_s,
        "ramp_time_s": workload.ramp_time, "description": run.job.options.get("description"),
        **_latency_target_keys(run.job),
        "read": _direction(result, "read", run.runtime_s, share, pick, run.in_flight, run.scale, run.samples),
        "write": _direction(result, "write", run.runtime_s, share, pick, run.in_flight, run.scale, run.samples),
        **({"trim": trim_direction(run.trim[0], workload.bs, run.runtime_s, share, run.trim[1])} if run.trim else {}),
        "cpu_percent": result.cpu_percent,
        "iodepth": depth,
        "batch_submit": workload.iodepth_batch_submit, "batch_complete": workload.iodepth_batch_complete_min,
        "nvsim": {"simulated_window_s": result.simulated_s, "fidelity": result.fidelity, "limited_by": result.bottleneck,
                  "numjobs_in_entry": workload.numjobs if clone is None else 1,
                  **({"closed_loop": {"numjobs": run.loop.numjobs, "iodepth": run.loop.iodepth}} if run.loop else {}),
                  **({"rate_cap_iops": run.job.rate_iops * workload.numjobs} if run.job.rate_iops is not None else {}),
                  **_shape_keys(run.job)},
    }


def _shape_keys(job: FioJob) -> dict:
    """nvsim's extra keys for how the job's I/Os were drawn: Poisson arrivals, a mix of sizes
    (size, share of the I/Os, direction), a replayed trace."""
    out: dict = {}
    if job.rate_iops is not None:
        out["rate_process"] = job.rate_process
    if job.bs_mix:
        out["block_size_mix"] = [[p.bs, p.share, p.rw or "job"] for p in job.bs_mix]
    if job.trace is not None:
        t = job.trace
        out["trace"] = {"format": t.format, "ios": t.ios, "read_fraction": t.read_fraction, "sequential_share": t.sequential_share,
                        "arrival_iops": t.arrival_iops, "left_out": t.skipped}
    return out


def _latency_target_keys(job: FioJob) -> dict:
    """fio's latency_target (ns), latency_percentile and latency_window (us) of a job that has a target."""
    if job.latency_target_s is None:
        return {}
    return {"latency_target_ns": round(job.latency_target_s * 1e9), "latency_percentile": job.latency_percentile,
            "latency_window_us": round((job.latency_window_s or 0.0) * 1e6)}


def _group_entry(entries: list[dict]) -> dict:
    """fio's group_reporting: the jobs of one group summed into one entry named after the first."""
    first = entries[0]
    merged = dict(first)
    merged["runtime_s"] = max(e["runtime_s"] for e in entries)
    for ddir in ("read", "write"):
        parts = [e[ddir] for e in entries]
        samples = [p["latencies_ns"] for p in parts if p["latencies_ns"] is not None]
        ios = sum(p["ios"] for p in parts)
        means = [(p["ios"], p["mean_latency_ns"]) for p in parts if p["mean_latency_ns"] is not None and p["ios"]]
        merged[ddir] = {"ios": ios, "bytes": sum(p["bytes"] for p in parts),
                        "latencies_ns": np.concatenate(samples) if samples else None,
                        "mean_latency_ns": sum(n * m for n, m in means) / sum(n for n, _ in means) if means else None}
    merged["cpu_percent"] = max((e["cpu_percent"] or 0.0) for e in entries)
    merged["nvsim"] = {**first["nvsim"], "jobs_in_group": len(entries),
                       "numjobs_in_entry": sum(e["nvsim"]["numjobs_in_entry"] for e in entries)}
    return merged


def job_entries(runs: list[JobRun], catalog: Any, group_reporting: bool) -> list[dict]:
    """fio's jobs list: one entry per clone, or per group with ``group_reporting``."""
    entries: list[dict] = []
    for run in runs:
        host_io = catalog.host_io.get(run.workload.ioengine) if catalog is not None else None
        if group_reporting or run.workload.numjobs == 1:
            entries.append(_job_entry(run, host_io, None))
        else:
            entries += [_job_entry(run, host_io, clone) for clone in range(run.workload.numjobs)]
    if not group_reporting:
        return entries
    groups: dict[int, list[dict]] = {}
    for entry in entries:
        groups.setdefault(entry["group"], []).append(entry)
    return [_group_entry(members) for members in groups.values()]


def log_entries(runs: list[JobRun], catalog: Any) -> list[LogEntry]:
    """Each job and numjobs clone in fio's numbering (from 1), for its log files (``nvsim.fio.logs``)."""
    out: list[LogEntry] = []
    for run in runs:
        host_io = catalog.host_io.get(run.workload.ioengine) if catalog is not None else None
        clones = [None] if run.workload.numjobs == 1 else list(range(run.workload.numjobs))
        for clone in clones:
            entry = _job_entry(run, host_io, clone)
            out.append(LogEntry(run.job.name, run.job.options, len(out) + 1, run.runtime_s,
                                {"read": entry["read"], "write": entry["write"]}))
    return out


def wants_logs(parsed: FioJobFile) -> bool:
    """Whether any job asks for a write_*_log."""
    return any(key in job.options for job in parsed.jobs for key in LOG_OPTIONS)


def disk_util(runs: list[JobRun]) -> list[dict]:
    """fio's disk_util for the array as one device: I/Os, time in queue (ms) and the busiest drive's
    busy share over the run's wall time (each phase lasts as long as its longest job)."""
    read_ios = write_ios = 0
    read_ticks = write_ticks = 0.0
    busy_ms = 0.0
    phase_ms: dict[int, float] = {}
    for run in runs:
        phase_ms[run.job.phase] = max(phase_ms.get(run.job.phase, 0.0), run.runtime_s * 1000.0)
        r = run.result
        read_ios += int(round(r.read_iops * run.scale * run.runtime_s))
        write_ios += int(round(r.write_iops * run.scale * run.runtime_s))
        read_ticks += r.read_iops * run.scale * run.runtime_s * r.read_latency_us.get("mean", 0.0) / 1000.0
        write_ticks += r.write_iops * run.scale * run.runtime_s * r.write_latency_us.get("mean", 0.0) / 1000.0
        drives = [u.utilisation for u in r.utilisation if u.resource.startswith("drive")]
        busy_ms += min(1.0, (max(drives) if drives else 0.0) * run.scale) * run.runtime_s * 1000.0
    total_ms = sum(phase_ms.values())
    return [{"name": "nvsim-array", "read_ios": read_ios, "write_ios": write_ios, "read_merges": 0, "write_merges": 0,
             "read_ticks": int(round(read_ticks)), "write_ticks": int(round(write_ticks)),
             "in_queue": int(round(read_ticks + write_ticks)), "util": min(100.0, 100.0 * busy_ms / total_ms) if total_ms else 0.0}]


def thinking_run(run: JobRun, spec: ScenarioSpec, catalog: Any, fidelity: str, think_s: float) -> JobRun:
    """A job under fio's thinktime (thinktime_blocks=1): each clone stalls ``think_s`` after every
    I/O, so it has at most one I/O in flight, and its clones are an interactive closed system:
    IOPS X and latency R obey X (R + Z) = numjobs (Little's law over the think-I/O cycle).

    With n of the clones' I/Os in flight on average, the array answers as the closed loop of n jobs
    at depth 1; nvsim takes the smallest such loop (1..numjobs jobs, by bisection) whose rate X_n
    meets n + X_n Z >= numjobs, reports its latencies R_n and the rate numjobs / (R_n + Z): the
    latencies bound the job's from above within one job, and the rate from below.
    """
    jobs = run.workload.numjobs
    results: dict[int, Result] = {}

    def loop(n: int) -> WorkloadSpec:
        return run.workload.model_copy(update={"numjobs": n, "iodepth": 1})

    def enough(n: int) -> bool:
        if n not in results:
            results[n] = simulate_job(run.job, loop(n), spec, catalog, fidelity)
        return n + results[n].total_iops * think_s >= jobs

    low, high = 1, jobs
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle + 1, high)
    enough(low)
    rate = results[low].total_iops
    iops = jobs / (low / rate + think_s)
    return replace(run, result=results[low], scale=iops / rate, loop=loop(low),
                   note=f"job {run.job.name}: thinktime {think_s * 1e6:,.0f} us after each I/O: {_iops_text(iops)} IOPS; "
                        f"latencies of the closed loop of {low} job(s) at depth 1 (an upper bound within one job)")


def latency_target_run(run: JobRun, spec: ScenarioSpec, catalog: Any, fidelity: str) -> JobRun:
    """fio's latency_target (latency_run=0): the highest iodepth (1..iodepth, numjobs kept) at
    which latency_percentile % of the I/Os take at most the target, found by bisection; the job
    reports that depth's run. The event mode's samples give the percentile (fio's histogram rule);
    the fluid mode has only the mean, which then stands for it (a note says so)."""
    job, workload = run.job, run.workload
    results: dict[int, Result] = {}

    def meets(depth: int) -> bool:
        if depth not in results:
            loop = workload.model_copy(update={"iodepth": depth})
            results[depth] = simulate_job(job, loop, spec, catalog, fidelity)
        return _latency_s(results[depth], job.latency_percentile) <= job.latency_target_s

    low, high = 1, workload.iodepth  # the highest depth that meets the target
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if meets(middle) else (low, middle - 1)
    met = meets(low)
    measure = f"p{job.latency_percentile:g}" if results[low].latency_samples_s else "mean (the fluid mode has no percentiles)"
    note = (f"job {job.name}: latency_target {job.latency_target_s * 1e6:,.0f} us on the {measure}: iodepth {low}"
            + ("" if met else ", where the target is not met (fio cannot go below depth 1)"))
    return replace(run, result=results[low], loop=workload.model_copy(update={"iodepth": low}), note=note)


def _latency_s(result: Result, percentile: float) -> float:
    """The latency a target is checked against: fio's percentile of the samples, else the mean."""
    samples = [np.asarray(s) for s in result.latency_samples_s.values() if s is not None and len(s)]
    if samples:
        ns = np.rint(np.concatenate(samples) * 1e9).astype(np.int64)
        return percentile_table(ns, (percentile,))[f"{percentile:f}"] / 1e9
    means = [(iops, lat["mean"]) for iops, lat in ((result.read_iops, result.read_latency_us),
                                                    (result.write_iops, result.write_latency_us)) if iops and "mean" in lat]
    total = sum(iops for iops, _ in means)
    return sum(iops * mean for iops, mean in means) / total / 1e6 if total else float("inf")


def _flag(options: dict[str, str], key: str, default: bool) -> bool:
    value = options.get(key)
    if value is None:
        return default
    return value == "" or value.strip() not in ("0", "false")


def report_options(parsed: FioJobFile) -> dict:
    """group_reporting, percentile_list, clat_percentiles and lat_percentiles in force (the first job's)."""
    options = parsed.jobs[0].options
    plist = parse_percentile_list(options["percentile_list"]) if options.get("percentile_list") else FIO_PERCENTILES
    return {"group_reporting": any(_flag(job.options, "group_reporting", False) for job in parsed.jobs),
            "percentiles": plist, "clat_percentiles": _flag(options, "clat_percentiles", True),
            "lat_percentiles": _flag(options, "lat_percentiles", False)}


def fio_report(parsed: FioJobFile, runs: list[JobRun], catalog: Any, *, json_plus: bool = False,
               timestamp: int | None = None) -> dict:
    """fio's JSON (or json+) for the simulated jobs."""
    how = report_options(parsed)
    entries = job_entries(runs, catalog, how["group_reporting"])
    return fio_json_report(entries, timestamp=int(time.time()) if timestamp is None else timestamp,
                           global_options=parsed.global_options, lat_percentiles=how["lat_percentiles"],
                           clat_percentiles=how["clat_percentiles"], percentiles=how["percentiles"],
                           json_plus=json_plus, disk_util=disk_util(runs))
