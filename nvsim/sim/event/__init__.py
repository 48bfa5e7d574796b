"""Discrete-event mode (SimPy): every host I/O of every job, with queueing at every resource.

Each of the ``numjobs x iodepth`` I/O slots is a chain of SimPy event callbacks: it submits a
host I/O on its job's core, waits for it, completes it on the same core, and submits the next
(fio's closed loop). Servers are *reservation* resources: an I/O entering a stage books the
earliest free server of it (a FIFO queue: start = max(arrival, server free), finish = start +
service). Submission books the whole path at once -- core, spinlock (the core spins while it
waits), engine server, the member I/Os on each drive (link and NAND units) in their phases, the
engine device -- and the slot waits one SimPy timeout for the completion; the completion's CPU is
booked when it happens (two events per host I/O: ``servers`` says why not SimPy's ``Resource``).
Warm-up is discarded; the measured window is cut into batches whose means give a 95% confidence
interval. Only SimPy's public API is used (``env.timeout``, ``env.event``, ``env.process``).

The parts, one responsibility each, lower ones not importing higher ones:

- ``servers``: ``Server`` (a reservation FIFO server), ``after`` (a callback after a delay), and
  the servers of one array by resource key (``array_servers``, ``ArrayServers``).
- ``rows``: a host I/O's demands as a named row (``Demand``), its member I/Os (``MemberOps``), and
  each job's queue of them, planned a batch at a time (``JobQueue``, ``HostJobs``).
- ``window``: the warm-up and window (sized on a guessed rate), and the batch size.
- ``slots``: the run's shared state (``Run``) and the host I/O slot (``HostSlot``): the hot path.
- ``rebuild``: the rebuild's bookkeeping (``RebuildProgress``) and its request slots.
- ``barrier``: md RAID10's recovery barrier -- its state (``Gate``), the foreground slot waiting
  at it per chunk piece, the resync cycle and its batch requests. One module rather than slots
  and rebuild: the foreground's side and the resync's side read and write the same gate.
- ``measure``: the busy time at the warm-up's end, batch-means CI, latency, the SimResult.
- ``kernel`` and ``compiled``: the slots, servers, rebuild, barrier and event order above as
  arrays compiled with Numba (``kernel``), fed its planned host I/Os a batch at a time and
  measured as above (``compiled``); ``hdr``: its log-linear latency histograms; ``timeline``: a
  SimPy process that moves it on window by window (the ramp, the window's batches, extensions);
  ``beside``: a first run's kernel compiled in a forked process beside the rest of the run.
"""

from __future__ import annotations

import gc
import math
import time
from functools import partial

import simpy

from ...constants import EVENT_HOST_IOS
from ..fluid import destage_slack_s, simulate_fluid
from ..result import SimResult
from ..system import ArraySystem
from .barrier import BarrierSlot, Gate, resync_cycle
from . import hdr
from .beside import wait as wait_for_kernel
from .compiled import KernelRebuild, Precision, run_kernel
from .measure import busy_at, event_result
from .rebuild import RebuildProgress, RebuildSlot, rebuild_batch, rebuild_requests
from .rows import HostJobs, JobQueue
from .servers import ArrayServers, after
from .slots import HostSlot, Run
from .window import batch_ios, measured_window, sync_update_of, whole_rebuild


def simulate_event(system: ArraySystem, *, seed: int | None = None, host_ios: int = EVENT_HOST_IOS, batches: int = 10,
                   warmup_ios: int | None = None, rebuild_member: int | None = None,
                   until_rebuilt: bool = False, compiled: bool = True, precision: Precision | None = None,
                   progress=None, checking: bool = False, resync: bool = False) -> SimResult:
    """Run the scenario's workload for about ``host_ios`` measured host I/Os after a warm-up.

    ``rebuild_member``: that member is being rebuilt meanwhile (it must be among the system's
    failed members): the engine's rebuild requests (``ArraySystem.rebuild_batch``) run as slots of
    their own on a rebuild thread, md's speed limit gates them, and ``rebuild_bytes_per_s`` is
    measured over the window. ``until_rebuilt``: run until the whole span is rebuilt (the full
    event simulation of a small rebuild) and measure over all of it. ``compiled``: the foreground
    alone runs on the compiled kernel (``kernel``: the same events in the same order, the same
    numbers, a rebuild's slots and md RAID10's recovery barrier included); False: on SimPy's slots. ``precision`` (compiled runs without a rebuild): go on
    past the window until each direction's p99.99 is known to it (``compiled.Precision``);
    ``progress(done_s, total_s)``: called as simulated time advances. ``checking`` (no
    ``rebuild_member``): a parity scrub runs instead, the engine's ``check`` protocol as the
    rebuild's slots (every member read, nothing written); ``rebuild_bytes_per_s`` is its rate.
    ``resync`` (with ``checking``): the engine's resync after an unclean shutdown instead
    (``ArrayModel.resync``: md RAID1 reads one copy and writes the others).
    """
    started = time.perf_counter()
    seed = system.scenario.seed if seed is None else seed
    fluid = simulate_fluid(system, seed)  # sizes the window and sets md's bitmap share: solved once
    window = measured_window(system, seed, host_ios, warmup_ios, rebuild_member, until_rebuilt, fluid)
    target = 0 if checking else rebuild_member  # a check covers a row of every member: offsets on member 0
    slack_s = destage_slack_s(system, seed)
    servers = ArrayServers(system, rebuilding=target is not None, destage_slack_s=math.inf if slack_s is None else slack_s)
    rebuild = RebuildProgress.of(system, target, system.sync_protocol(resync) if checking else None) \
        if target is not None else None
    if rebuild is not None and until_rebuilt:
        window = whole_rebuild(window, rebuild.span_bytes, rebuild.rate_guess)
    barrier = rebuild is not None and rebuild.protocol.excludes_host_io
    # md's bitmap: the optimal array's, a check's too (its array is whole); none beside a rebuild
    sync = sync_update_of(system, fluid) if rebuild is None or checking else (0.0, 0.0)
    if compiled:
        wait_for_kernel()  # a first run's kernel, compiling beside it in a process of its own: then loaded from the cache
        jobs = HostJobs(system, seed, batch_ios(system, seed, window.warm_ios, host_ios), barrier=barrier, sync_update=sync,
                        acknowledged=slack_s is not None)
        beside = KernelRebuild(rebuild, partial(rebuild_batch, system, target, rebuild), until_rebuilt) \
            if rebuild is not None else None
        run, at_warm, end_s = run_kernel(system, jobs, servers, window.warm_s, window.end_s, precision, progress, beside,
                                         batches)
        return event_result(system, run, at_warm, end_s, batches, jobs.sampled, rebuild, until_rebuilt, started, sync)
    env = simpy.Environment()
    if rebuild is not None and until_rebuilt:
        rebuild.stop = env.event()
    gate = Gate() if barrier else None
    jobs = HostJobs(system, seed, batch_ios(system, seed, window.warm_ios, host_ios), barrier=gate is not None,
                    sync_update=sync, acknowledged=slack_s is not None)
    run = Run(env, servers, window.warm_s)
    _start_foreground(run, system, jobs.queues(), gate)
    if rebuild is not None:
        _start_rebuild(run, JobQueue(lambda: rebuild_requests(system, target, rebuild)), rebuild, gate)
    at_warm: dict[str, list[float]] = {}
    env.process(busy_at(env, window.warm_s, servers, at_warm))
    end_s = _run(env, window.end_s, rebuild.stop if rebuild is not None else None)
    return event_result(system, run, at_warm, end_s, batches, jobs.sampled, rebuild, until_rebuilt, started, sync)


def _start_foreground(run: Run, system: ArraySystem, queues: list[JobQueue], gate: Gate | None) -> None:
    """Every job's ``iodepth`` slots on its core, each issuing its first I/O at time 0."""
    w = system.workload
    for job in range(w.numjobs):
        core = run.servers.cores[system.job_cpu[job]]
        for _ in range(w.iodepth):
            slot = HostSlot(run, queues[job], core) if gate is None else BarrierSlot(run, queues[job], core, gate)
            after(run.env, 0.0, slot.issue)


def _start_rebuild(run: Run, queue: JobQueue, rebuild: RebuildProgress, gate: Gate | None) -> None:
    """Under md RAID10's barrier the resync cycle issues the requests; else the engine's requests
    in flight, each re-issued as it completes."""
    if gate is not None:
        run.env.process(resync_cycle(run, queue, rebuild, gate))
        return
    for _ in range(rebuild.requests_in_flight):
        after(run.env, 0.0, RebuildSlot(run, queue, rebuild).issue)


def _run(env: simpy.Environment, end_s: float, stop: simpy.Event | None) -> float:
    """Run to ``end_s``, or until ``stop`` if that is sooner; the time the run ended."""
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived events and no cycles among them: the collector only costs time
    try:
        if stop is not None:
            env.run(until=env.any_of([stop, env.timeout(end_s)]))
            return env.now
        env.run(until=end_s)
        return end_s
    finally:
        if collecting:
            gc.enable()


__all__ = ["simulate_event", "Precision"]
