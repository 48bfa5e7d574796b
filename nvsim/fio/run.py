"""``nvsim fio``: run a parsed fio job file against a simulated array and report as fio does.

A plain client of the orchestrator: each phase of the file (jobs with no ``stonewall`` between them)
is one ``Phase`` solved by ``nvsim.Simulation`` (its composite rows, nvsim.workload.compose: jobs
together, trims, fresh drives, rate caps, Poisson arrivals, think time, latency targets, mixes of
block sizes). This module adds what fio adds: each job's runtime, its clones, group reporting, the
JSON and the logs. Rates are carried over the job's own runtime as fio would run it:

* a ``time_based`` job with ``runtime`` runs ``runtime`` seconds;
* otherwise each of its ``numjobs`` clones moves ``size`` bytes (``size`` absent: the whole
  device, as fio does on a block device), stopped early by ``runtime`` if given;

so ``io_bytes``, ``total_ios`` and ``runtime`` describe the job, and the simulated window (the
measured part of the simulation that gave the rates and the latencies) is stated under each job's
``nvsim`` key. Without ``group_reporting`` fio prints one entry per clone of a ``numjobs`` job (the
same name each time); with it, one entry per reporting group, summed: so does nvsim.
``FioJobFile.notes`` says how the jobs of a phase share the array.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .jobfile import MAX_JOB_ENTRIES, MAX_JOB_ENTRIES_ENV, FioJob, FioJobFile, max_job_entries  # noqa: F401 (re-exported)
from .json_report import FIO_PERCENTILES, fio_json_report, parse_percentile_list
from .logs import LOG_OPTIONS, LogEntry
from .names import FIO_VERSION
from ..budget import check_region, check_workload
from ..errors import InputError, env_hint, limit_from_env
from ..host_io import effective_iodepth
from ..simulation import Result, Simulation
from ..specs import Phase, ScenarioSpec, WorkloadSpec
from ..workload.compose import clone_bytes, clone_runs, iops_text, job_runtime_s, moved_bytes_per_s, population_ladder  # noqa: F401 (re-exported)
from ..workload.trim import check_discards, trim_direction


def job_entry_count(parsed: FioJobFile) -> tuple[int, int]:
    """(entries of fio's jobs list, entries the logs are written for: every clone, 0 without logs)."""
    clones = sum(job.workload.numjobs for job in parsed.jobs)
    listed, last_group = 0, None
    for job in parsed.jobs:  # as job_entries lists them: a group_reporting job joins its group's entry before it
        if not _flag(job.options, "group_reporting", False):
            listed += job.workload.numjobs
        elif listed == 0 or last_group != job.group:
            listed += 1
        last_group = job.group
    return listed, clones if wants_logs(parsed) else 0


def check_entries(parsed: FioJobFile, label: str) -> None:
    """Refuse (one line naming numjobs, before anything runs) a file whose report or logs would hold
    more than ``max_job_entries()`` job entries: memory and the JSON grow with each."""
    limit = max_job_entries()
    listed, logged = job_entry_count(parsed)
    if max(listed, logged) <= limit:
        return
    largest = max(parsed.jobs, key=lambda job: job.workload.numjobs)
    where = f"{label}: [{largest.name}].numjobs"
    if logged > limit and listed <= limit:
        raise InputError(where, f"the logs would be written for {logged:,} job entries (one per numjobs clone, "
                                f"group_reporting or not); at most {limit:,}{env_hint(MAX_JOB_ENTRIES_ENV)}: "
                                f"fewer numjobs, or no write_*_log")
    grouped = report_options(parsed)["group_reporting"]
    how, instead = (("one per reporting group", "fewer reporting groups") if grouped else
                    ("one per numjobs clone without group_reporting", "fewer numjobs or sections, or group_reporting"))
    raise InputError(where, f"the report would hold {listed:,} job entries ({how}); at most {limit:,}"
                            f"{env_hint(MAX_JOB_ENTRIES_ENV)}: {instead}")


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
    bytes_per_s: float = 0.0  # what the job moves a second, its runtime's rate (moved_bytes_per_s)

    @property
    def in_flight(self) -> int:
        """I/Os in flight in the run that gave the latencies (Little's law where a solver gives none)."""
        w = self.loop or self.workload
        return w.numjobs * w.iodepth


def simulate_jobs(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, fidelity: str) -> list[JobRun]:
    """Simulate every job of the file: each phase (no stonewall between its jobs) as one ``Phase``
    through ``Simulation``; each job's runtime as fio would run it."""
    device_bytes = check_regions(parsed, spec, catalog, str(parsed.path))
    runs: list[JobRun] = []
    for index, phase in enumerate(parsed.phases()):
        if not phase:
            continue
        for job in phase:
            if job.trim is not None:  # refused first, naming the job's line
                check_discards(spec, catalog, job.name, job.option_places.get("rw") or job.where)
        workloads = tuple(job.resolved(device_bytes) for job in phase)
        result = Simulation(spec, Phase(name=f"phase {index + 1}", jobs=workloads), catalog=catalog).run(fidelity)
        runs += [job_run(job, workload, answer, device_bytes) for job, workload, answer in zip(phase, workloads, result.jobs)]
    return runs


def job_run(job: FioJob, workload: WorkloadSpec, result: Result, device_bytes: int) -> JobRun:
    """One job's answer from the orchestrator, carried over its runtime (and its rate_min checked)."""
    trim = None if result.trim_iops is None else (result.trim_iops, result.trim_latency_s)
    workload = result.solved or workload  # as the phase solved it (the share its trims leave deallocated)
    run = JobRun(job, workload, result.unscaled, 0.0, device_bytes, scale=result.scale, loop=result.loop,
                 note=result.note, samples=result.clones, trim=trim)
    rate = moved_bytes_per_s(result, workload.bs)
    runtime_s = job_runtime_s(workload, rate, device_bytes)
    _check_counters(job, runtime_s, rate)
    return _check_minimum(replace(run, runtime_s=runtime_s, bytes_per_s=rate))


FIO_COUNTER_MAX = 2**64 - 1
"""fio writes its byte counts and run times (ms) as unsigned 64-bit integers."""


def _check_counters(job: FioJob, runtime_s: float, bytes_per_s: float) -> None:
    """Refuse (one line naming runtime) a job whose run fio's 64-bit counters could not hold: its
    bytes moved, or its run time in milliseconds, past 2^64 - 1."""
    most_s = FIO_COUNTER_MAX / 1000.0
    if bytes_per_s > 0:
        most_s = min(most_s, FIO_COUNTER_MAX / bytes_per_s)
    if runtime_s > most_s:
        where = job.option_places.get("runtime") or job.where
        raise InputError(f"{where}: [{job.name}].runtime",
                         f"the job would run {runtime_s:.4g} s and move {runtime_s * bytes_per_s:.4g} bytes, past fio's "
                         f"64-bit counters (2^64 - 1 bytes, and ms of run time); allowed: a runtime up to {most_s:,.0f} s "
                         f"at its simulated rate")


def check_jobs(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, fidelity: str, label: str) -> int:
    """Refuse (one line, before anything runs or is printed) a job over the work budget (its
    workload and each block size its mix is simulated as: ``nvsim.budget.check_workload``) or not
    on the array (``check_regions``). Returns the array's bytes."""
    for job in parsed.jobs:
        check_workload(job.workload, fidelity, field=f"{label}: [{job.name}]")
    check_entries(parsed, label)
    return check_regions(parsed, spec, catalog, label)


def clamped_sizes(parsed: FioJobFile, device_bytes: int, label: str) -> list[str]:
    """A warning per job whose size, written as a share ('N%'), reaches past the array's end from
    the offset of one of its clones (the first such clone named, from clone 1 on): fio cuts each
    clone's there without a word, and so does nvsim (``clone_bytes``); this says so."""
    warnings = []
    for job in parsed.jobs:
        if job.size_percent is None:
            continue
        workload, share = job.resolved(device_bytes), job.share_bytes(device_bytes)
        starts = [workload.offset + k * workload.offset_increment for k in range(workload.numjobs if workload.offset_increment else 1)]
        cut = next((k for k, start in enumerate(starts) if start + share > device_bytes), None)
        if cut is not None:
            clone = f" clone {cut}" if cut else ""
            warnings.append(f"{label}: [{job.name}]{clone} offset + size = {starts[cut] + share:,} bytes reaches past the end "
                            f"of the array ({device_bytes:,} bytes): the{' clone' if cut else ' job'}'s region is cut to "
                            f"{clone_bytes(workload, cut, device_bytes):,} bytes, as fio cuts it")
    return warnings


def check_regions(parsed: FioJobFile, spec: ScenarioSpec, catalog: Any, label: str) -> int:
    """Refuse (one line) a job whose region is not on the array (``nvsim.budget.check_region``): an
    offset at or past its end, offset + size past it (a size given as 'N%' fio cuts at the end, so
    does nvsim), or a replayed trace whose I/Os reach past it (fio replays a trace's offsets as
    written, unwrapped). Returns the array's bytes."""
    device_bytes, devices = Simulation(spec, catalog=catalog).device_extent
    for job in parsed.jobs:
        where = f"{label}: [{job.name}]"
        workload = job.resolved(device_bytes)
        end = workload.offset + (workload.size or 0)
        if job.trace is not None and end > device_bytes:
            raise InputError(f"{where}.read_iolog", f"the trace's I/Os reach byte {end:,}, past the end of the array "
                                                    f"({device_bytes:,} bytes); fio replays a trace's offsets as written, "
                                                    f"without wrapping them")
        check_region(workload, device_bytes, field=where, size_clamped=job.size_percent is not None, devices=devices)
    return device_bytes


def _check_minimum(run: JobRun) -> JobRun:
    """fio stops a job whose rate falls below rate_min / rate_iops_min: a note says so when the simulated rate does."""
    note = rate_min_note(run.job, run.result.total_iops * run.scale)
    if note is None:
        return run
    return replace(run, note=f"{run.note}; {note}" if run.note else note)


def rate_min_note(job: FioJob, iops: float) -> str | None:
    """The note that fio would stop ``job`` (rate_min / rate_iops_min: the least each clone must
    do) at ``iops``, the whole job's simulated rate; None: no minimum, or one the rate meets."""
    if job.rate_min_iops is None:
        return None
    need = job.rate_min_iops * job.workload.numjobs
    if iops >= need:
        return None
    return (f"job {job.name}: {iops_text(iops)} IOPS is below its rate_min ({iops_text(need)} IOPS): "
            f"fio would stop the job with an error")


def _direction(result: Result, ddir: str, runtime_s: float, share: float, pick: slice | None, in_flight: int,
               scale: float = 1.0, samples_of_job: tuple[int, int, int] | None = None, bs: int | None = None) -> dict:
    """ios, bytes, latency samples (event mode) and mean latency of one direction.

    The mean is the solver's; where it gives none (the single-drive model) it is Little's law for
    the closed loop: the I/Os in flight over the IOPS. A job of one block size (``bs``; None: a
    mix) moved whole I/Os, as fio counts them: its bytes are its I/Os x ``bs`` (rounded each on its
    own, a time-based 1 MiB read's 78,000,000,000,000 bytes were 74,386,597 I/Os less 0.68).
    """
    iops = result.read_iops if ddir == "read" else result.write_iops
    rate = result.read_bytes_per_s if ddir == "read" else result.write_bytes_per_s
    latency = result.read_latency_us if ddir == "read" else result.write_latency_us
    samples = result.latency_samples_s.get(ddir)
    if samples is not None and samples_of_job is not None:  # the job's clones among a shared loop's, interleaved
        first, count, total = samples_of_job
        position = np.arange(len(samples)) % total
        samples = np.asarray(samples)[(position >= first) & (position < first + count)]
    ns = None if samples is None else _clone_samples(np.asarray(samples), pick) * 1e9
    mean = latency.get("mean")
    if mean is None and iops > 0 and result.total_iops > 0:
        mean = in_flight / result.total_iops * 1e6
    modelled = None
    if ns is None and result.modelled_percentile_us(ddir, 50.0) is not None:  # fluid: the model's distribution
        modelled = lambda percent: 1000.0 * result.modelled_percentile_us(ddir, percent)  # noqa: E731
    ios = int(round(iops * scale * runtime_s * share))
    return {"ios": ios, "bytes": ios * bs if bs else int(round(rate * scale * runtime_s * share)),
            "latencies_ns": ns, "mean_latency_ns": None if mean is None else mean * 1000.0,
            "modelled_percentile_ns": modelled}


def _thread_cpu_percent(run: JobRun, clones: int) -> float:
    """fio's ``sys_cpu`` of an entry of ``clones`` clones: each clone's thread's CPU time over the
    run, as a percent of one CPU (a job thread that keeps a core busy reports about 100; a group's
    entry sums its threads). nvsim counts the busy host CPUs of the run at the job's rate
    (``Result.cpu_percent`` of the CPUs it is a share of: the jobs', and the engine's host threads,
    which fio would not see on its own threads) and shares them out over the clones that ran them
    (a paced job's 16, not the smaller loop its latencies come from; in a loop shared with other jobs,
    ``scale`` is already this job's share: until 2026-12-01 it was shared out again over every job's
    clones, 10.1 on each of 2 clones beside 6 others where one job of 8 clones gave 40.2).
    Where the share's CPUs are not known (a drive model), the run's cpu_percent as before (it was
    every entry's, the whole system's share: 1.7 on each of 8 clones that kept 8 cores busy)."""
    scaled = replace(run.result, scale=run.scale)
    sim = run.result.simulation
    if sim is None or not sim.logical_cpus:
        return scaled.cpu_percent
    busy_cpus = scaled.cpu_percent / 100.0 * sim.logical_cpus  # the job's: ``scale`` is its share of a shared loop
    return 100.0 * busy_cpus * clones / max(run.workload.numjobs, 1)


def _clone_samples(samples: np.ndarray, pick: slice | None) -> np.ndarray:
    """One clone's share of a job's latency samples (``pick``: every numjobs-th, from the clone's
    index), taken in an order fixed by their count: a mix's samples are its parts interleaved
    evenly (``nvsim.workload.mix.mix_samples``), so every numjobs-th of them in that order gave a
    2-clone job of 4k/50:1m/50 one clone of 4 KiB reads (47 us) and one of 1 MiB (668 us)."""
    if pick is None:
        return samples
    order = np.random.default_rng(len(samples)).permutation(len(samples))
    return samples[order[pick]]


def _entry_share(run: JobRun, clone: int | None) -> tuple[float, float, float]:
    """(share of the job's I/Os, runtime s, fio's job_runtime s: its clones' runtimes summed) of the
    whole job's entry or clone ``clone``'s: an even share over the job's runtime, or, where the clones'
    regions differ, each clone's own bytes and runtime (``clone_runs``; until 2026-12-02 even there)."""
    numjobs, runs = run.workload.numjobs, clone_runs(run.workload, run.bytes_per_s, run.device_bytes)
    if runs is None:
        return (1.0, run.runtime_s, run.runtime_s * numjobs) if clone is None else (1.0 / numjobs, run.runtime_s, run.runtime_s)
    if clone is None:
        return 1.0, run.runtime_s, sum(seconds for _, seconds in runs)
    moved, seconds = runs[clone]
    return moved / sum(each for each, _ in runs), seconds, seconds


def _job_entry(run: JobRun, host_io: Any, clone: int | None) -> dict:
    """One entry of fio's jobs list: the whole job, or one of its clones (``clone``)."""
    workload, result = run.workload, run.result
    share, runtime_s, job_runtime_s = _entry_share(run, clone)
    pick = None if clone is None else slice(clone, None, workload.numjobs)
    one_size = None if workload.bs_mix else workload.bs
    if run.loop is not None:
        depth = run.loop.iodepth
    else:
        depth = effective_iodepth(host_io, workload.iodepth) if host_io else workload.iodepth
    return {
        "name": run.job.name, "group": run.job.group, "options": run.job.job_options, "runtime_s": runtime_s,
        "ramp_time_s": workload.ramp_time, "description": run.job.options.get("description"),
        "report": percentile_options(run.job.options),
        **_latency_target_keys(run.job),
        "read": _direction(result, "read", run.runtime_s, share, pick, run.in_flight, run.scale, run.samples, one_size),
        "write": _direction(result, "write", run.runtime_s, share, pick, run.in_flight, run.scale, run.samples, one_size),
        **({"trim": trim_direction(run.trim[0], workload.bs, run.runtime_s, share, run.trim[1])} if run.trim else {}),
        "cpu_percent": _thread_cpu_percent(run, 1),  # a group entry: fio's mean over its clones (stat.c)
        "job_runtime_s": job_runtime_s,
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
    merged["report"] = entries[-1].get("report")  # fio (stat.c): each member sets the entry's, the last one's stays
    merged["runtime_s"] = max(e["runtime_s"] for e in entries)
    for ddir in ("read", "write"):
        parts = [e[ddir] for e in entries]
        samples = [p["latencies_ns"] for p in parts if p["latencies_ns"] is not None]
        ios = sum(p["ios"] for p in parts)
        means = [(p["ios"], p["mean_latency_ns"]) for p in parts if p["mean_latency_ns"] is not None and p["ios"]]
        modelled = [p.get("modelled_percentile_ns") for p in parts]
        one_model = all(m is not None for m in modelled) and len({m for _, m in means}) == 1  # clones of one job
        merged[ddir] = {"ios": ios, "bytes": sum(p["bytes"] for p in parts),
                        "latencies_ns": np.concatenate(samples) if samples else None,
                        "mean_latency_ns": sum(n * m for n, m in means) / sum(n for n, _ in means) if means else None,
                        "modelled_percentile_ns": modelled[0] if one_model else None}
    # fio (stat.c, sum_thread_stats): the group's system time over its clones' summed run time, so the
    # mean CPU of a clone weighted by its run time; job_runtime the clones' run times summed
    weights = [e["nvsim"]["numjobs_in_entry"] * e["runtime_s"] for e in entries]
    merged["cpu_percent"] = (sum(w * (e["cpu_percent"] or 0.0) for w, e in zip(weights, entries)) / sum(weights)
                             if sum(weights) > 0 else max((e["cpu_percent"] or 0.0) for e in entries))
    merged["job_runtime_s"] = sum(e.get("job_runtime_s", e["runtime_s"]) for e in entries)
    merged["nvsim"] = {**first["nvsim"], "jobs_in_group": len(entries),
                       "numjobs_in_entry": sum(e["nvsim"]["numjobs_in_entry"] for e in entries)}
    return merged


def job_entries(runs: list[JobRun], catalog: Any, group_reporting: bool | list[bool] | None = None) -> list[dict]:
    """fio's jobs list: one entry per clone, the clones of jobs with ``group_reporting`` summed per group.

    ``group_reporting`` is each job's own option, as in fio (stat.c, ``__show_run_stats``): a job
    (each clone of it) joins the entry before it when it has ``group_reporting`` and that entry's
    last job is of its reporting group; a job without it starts an entry of its own per clone.
    ``group_reporting`` given here (True or False) applies to every job instead; a list gives each run's."""
    groups: list[tuple[bool, list[dict]]] = []
    last_group: int | None = None
    for index, run in enumerate(runs):
        host_io = catalog.host_io.get(run.workload.ioengine) if catalog is not None else None
        if group_reporting is None:
            grouped = _flag(run.job.options, "group_reporting", False)
        else:
            grouped = group_reporting[index] if isinstance(group_reporting, list) else group_reporting
        if grouped or run.workload.numjobs == 1:
            clones = [_job_entry(run, host_io, None)]
        else:
            clones = [_job_entry(run, host_io, clone) for clone in range(run.workload.numjobs)]
        for entry in clones:
            if groups and grouped and last_group == run.job.group:
                groups[-1][1].append(entry)
            else:
                groups.append((grouped, [entry]))
            last_group = run.job.group
    return [_group_entry(members) if grouped or len(members) > 1 else members[0] for grouped, members in groups]


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


def _flag(options: dict[str, str], key: str, default: bool) -> bool:
    value = options.get(key)
    if value is None:
        return default
    return value == "" or value.strip() not in ("0", "false")


def percentile_options(options: dict[str, str]) -> dict:
    """A job's percentile_list, clat_percentiles and lat_percentiles (fio reads them per job)."""
    plist = parse_percentile_list(options["percentile_list"]) if options.get("percentile_list") else FIO_PERCENTILES
    return {"percentiles": plist, "clat_percentiles": _flag(options, "clat_percentiles", True),
            "lat_percentiles": _flag(options, "lat_percentiles", False)}


def report_options(parsed: FioJobFile) -> dict:
    """group_reporting (any job's), and the first job's percentile_list, clat_percentiles and
    lat_percentiles (each job's entry carries its own: ``percentile_options``)."""
    return {"group_reporting": any(_flag(job.options, "group_reporting", False) for job in parsed.jobs),
            **percentile_options(parsed.jobs[0].options)}


def fio_report(parsed: FioJobFile, runs: list[JobRun], catalog: Any, *, json_plus: bool = False,
               timestamp: int | None = None) -> dict:
    """fio's JSON (or json+) for the simulated jobs."""
    how = report_options(parsed)
    check_entries(parsed, str(parsed.path))
    flags = [_flag(job.options, "group_reporting", False) for job in parsed.jobs]  # the file's, job by job (runs
    entries = job_entries(runs, catalog, flags if len(flags) == len(runs) else None)  # are its jobs, in its order)
    # fio's elapsed is the time since fio started, written once all jobs are done: the same for every
    # job, each phase lasting as long as its longest job (ramp included)
    phase_s: dict[int, float] = {}
    for run in runs:
        phase_s[run.job.phase] = max(phase_s.get(run.job.phase, 0.0), run.runtime_s + (run.workload.ramp_time or 0.0))
    entries = [{**entry, "elapsed_s": sum(phase_s.values())} for entry in entries]
    return fio_json_report(entries, timestamp=int(time.time()) if timestamp is None else timestamp,
                           fio_version=f"fio-{FIO_VERSION}-nvsim",
                           global_options=parsed.global_options, lat_percentiles=how["lat_percentiles"],
                           clat_percentiles=how["clat_percentiles"], percentiles=how["percentiles"],
                           json_plus=json_plus, disk_util=disk_util(runs))
