"""Host I/O paths (fio ioengines) as cost models: the CPU one host I/O costs its job's core, the
latency the path adds, and whether the path busy-polls.

One mechanism for every path (``models/host_io/*.yaml``, one entry per fio ioengine; fio's
options ``hipri``, ``fixedbufs``, ``registerfiles``, ``sqthread_poll`` and the batch sizes change
which terms are paid):

* submit: ``submit_us`` with one syscall per I/O; a syscall submits up to ``iodepth_batch_submit``
  I/Os, so its crossing (``submit_syscall_us``) is shared by the batch; ``registerfiles`` drops the
  per-I/O file reference (``file_ref_us``); ``sqthread_poll`` drops the submit syscall (a kernel
  thread polls the ring: one more core busy). fio's ``sync`` engine adds an ``lseek`` syscall
  (``seek_us``) before each random I/O.
* pages: ``per_page_us`` per 4 KiB page (pinning and DMA mapping); none with ``fixedbufs``
  (buffers registered once).
* complete: ``complete_us`` with interrupt completions and one reap syscall per I/O; the reap
  syscall (``reap_syscall_us``) is shared by ``iodepth_batch_complete_min`` completions; polled
  (``hipri`` on io_uring or pvsync2, or a user-space driver) replaces the interrupt
  (``interrupt_us``) with a poll of the completion queue (``poll_us``).
* sleep: a job whose one I/O is in flight (depth 1: always for synchronous engines) sleeps until
  the interrupt wakes it: two context switches of CPU (``switch_us``) and the wake-up latency
  (``wake_us``: interrupt delivery, wake-up, switch back). At depth d > 1 the other d - 1 I/Os'
  completions keep the thread running for the share of its time they take, (d - 1) c / (L + c)
  at the CPU c an I/O costs it on the path and the device's unloaded latency L: a completion
  finds it asleep, and pays the sleep, for the rest (``sleep_share``; until 2026-11-30 none was
  charged above depth 1, so io_uring at QD2 answered faster than at QD1). Polled paths never sleep.

All CPU and latency values are at the entry's ``reference_clock_ghz`` and scale with 1/clock.
At depth 1 a core's IOPS are latency-bound (1 / (drive latency + path latency + path CPU)); at
depth 128 they are CPU-bound (1 / CPU per I/O), which is what the table in docs/models/host_io.md
shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .constants import PAGE_BYTES
from .specs import Cited, HostIoSpec, WorkloadSpec


@dataclass(frozen=True)
class HostIoOptions:
    """fio's options of one job that change its host I/O path's costs (``WorkloadSpec`` fields)."""

    hipri: bool = False
    fixedbufs: bool = False
    registerfiles: bool = False
    sqthread_poll: bool = False
    iodepth_batch_submit: int = 1
    iodepth_batch_complete_min: int = 1

    @classmethod
    def of(cls, workload: WorkloadSpec) -> HostIoOptions:
        return cls(workload.hipri, workload.fixedbufs, workload.registerfiles, workload.sqthread_poll,
                   workload.iodepth_batch_submit, workload.iodepth_batch_complete_min)


@dataclass(frozen=True)
class HostIoCosts:
    """What one host I/O of a job costs on its path, at the platform's clock."""

    submit_s: float  # CPU of the submission on the job's core, pages included
    complete_s: float  # CPU of the completion on the job's core (interrupt or poll, reap, sleep)
    wake_s: float  # latency from the device's completion to the job running again (not CPU)
    polls: bool  # the job's core busy-polls: 100% busy for the run's CPU% even when idle
    poll_threads_per_job: int  # extra busy-polling threads per job (io_uring's SQ thread)
    iodepth: int  # I/Os in flight per job on this path

    @property
    def cpu_s(self) -> float:
        return self.submit_s + self.complete_s


def _us(value: Cited[float] | None) -> float:
    """A catalog term in microseconds; an absent term costs nothing."""
    return 0.0 if value is None else value.value


def effective_iodepth(host_io: HostIoSpec, iodepth: int) -> int:
    """I/Os in flight per job: 1 on a synchronous engine (fio treats them as depth 1)."""
    return 1 if host_io.synchronous else iodepth


def batch_size(requested: int, iodepth: int) -> int:
    """I/Os one syscall submits or reaps: the batch asked for, never more than are in flight."""
    return max(1, min(requested, iodepth))


def path_polls(host_io: HostIoSpec, options: HostIoOptions) -> bool:
    """Whether completions are found by polling: a user-space driver always, io_uring / pvsync2
    with fio's ``hipri`` (IORING_SETUP_IOPOLL, RWF_HIPRI)."""
    return host_io.polling == "always" or (host_io.polling == "hipri" and options.hipri)


def job_sleeps(host_io: HostIoSpec, options: HostIoOptions, iodepth: int) -> bool:
    """The job thread sleeps for each completion: one I/O in flight and interrupt completions."""
    return effective_iodepth(host_io, iodepth) == 1 and not path_polls(host_io, options)


def sleep_share(host_io: HostIoSpec, options: HostIoOptions, iodepth: int, cpu_us: float,
                device_latency_us: float | None) -> float:
    """Share of completions that find the job's thread asleep: all at depth 1 (``job_sleeps``),
    none polled; at depth d the rest of what the other d - 1 I/Os keep it busy with, 1 - (d - 1)
    c / (L + c), at ``cpu_us`` (c, the path's CPU of one I/O without the sleep) and
    ``device_latency_us`` (L, the device's unloaded latency; None: not known, none charged above
    depth 1). The engine's own CPU on the submitting core is not counted in c: the share is the
    most the thread sleeps."""
    if job_sleeps(host_io, options, iodepth):
        return 1.0
    if path_polls(host_io, options) or device_latency_us is None:
        return 0.0
    depth = effective_iodepth(host_io, iodepth)
    return max(0.0, 1.0 - (depth - 1) * cpu_us / (device_latency_us + cpu_us))


def submit_cpu_us(host_io: HostIoSpec, options: HostIoOptions, iodepth: int, random: bool) -> float:
    """CPU of one submission at the reference clock, pages excluded: the submit syscall shared by
    the batch (none with an SQ polling thread), the file reference unless files are registered,
    and ``sync``'s lseek before a random I/O."""
    syscall = _us(host_io.submit_syscall_us)
    batch = batch_size(options.iodepth_batch_submit, effective_iodepth(host_io, iodepth))
    saved = syscall if options.sqthread_poll else syscall * (1.0 - 1.0 / batch)
    if options.registerfiles:
        saved += _us(host_io.file_ref_us)
    seek = _us(host_io.seek_us) if random else 0.0
    return host_io.submit_us.value - saved + seek


def page_cpu_us(host_io: HostIoSpec, options: HostIoOptions, io_bytes: int) -> float:
    """Pinning and DMA-mapping the I/O's pages (4 KiB each, at least one); none with buffers
    registered once (fio ``fixedbufs``)."""
    if options.fixedbufs:
        return 0.0
    return max(1, math.ceil(io_bytes / PAGE_BYTES)) * host_io.per_page_us.value


def complete_cpu_us(host_io: HostIoSpec, options: HostIoOptions, iodepth: int, sleep: float | None = None) -> float:
    """CPU of one completion at the reference clock: interrupt (or poll when polled), the reap
    syscall shared by ``iodepth_batch_complete_min`` completions, and the two context switches
    when the job sleeps for it (``sleep``: the share of completions that do, ``sleep_share``;
    None: all at depth 1, none deeper)."""
    reap = _us(host_io.reap_syscall_us)
    batch = batch_size(options.iodepth_batch_complete_min, effective_iodepth(host_io, iodepth))
    saved = reap * (1.0 - 1.0 / batch)
    if path_polls(host_io, options) and host_io.polling == "hipri":
        saved += _us(host_io.interrupt_us) - _us(host_io.poll_us)
    share = float(job_sleeps(host_io, options, iodepth)) if sleep is None else sleep
    return host_io.complete_us.value - saved + _us(host_io.switch_us) * share


def wake_latency_us(host_io: HostIoSpec, options: HostIoOptions, iodepth: int, sleep: float | None = None) -> float:
    """Latency the path adds after the device completes: the sleeping job's wake-up, for the share
    of completions that find it asleep (``sleep``, as ``complete_cpu_us``); none polled."""
    share = float(job_sleeps(host_io, options, iodepth)) if sleep is None else sleep
    return _us(host_io.wake_us) * share


def clock_scale_s(host_io: HostIoSpec, clock_ghz: float) -> float:
    """Seconds per reference microsecond on a core at ``clock_ghz`` (costs scale with 1/clock)."""
    return 1e-6 * host_io.reference_clock_ghz.value / clock_ghz


def host_io_costs(host_io: HostIoSpec, options: HostIoOptions, io_bytes: int, iodepth: int, random: bool,
                  clock_ghz: float, device_latency_s: float | None = None) -> HostIoCosts:
    """The path's per-I/O CPU, added latency and polling for a job of ``iodepth`` I/Os of
    ``io_bytes`` on a core at ``clock_ghz``, its sleeps charged by ``sleep_share`` at the device's
    unloaded latency ``device_latency_s`` (None: not known)."""
    scale = clock_scale_s(host_io, clock_ghz)
    submit = submit_cpu_us(host_io, options, iodepth, random) + page_cpu_us(host_io, options, io_bytes)
    awake = submit + complete_cpu_us(host_io, options, iodepth, sleep=0.0)  # reference-clock us
    sleep = sleep_share(host_io, options, iodepth, awake * scale * 1e6,
                        None if device_latency_s is None else device_latency_s * 1e6)
    return HostIoCosts(
        submit_s=submit * scale,
        complete_s=complete_cpu_us(host_io, options, iodepth, sleep) * scale,
        wake_s=wake_latency_us(host_io, options, iodepth, sleep) * scale,
        polls=path_polls(host_io, options),
        poll_threads_per_job=1 if options.sqthread_poll else 0,
        iodepth=effective_iodepth(host_io, iodepth),
    )


def workload_host_io_costs(host_io: HostIoSpec, workload: WorkloadSpec, clock_ghz: float,
                           device_latency_s: float | None = None) -> HostIoCosts:
    """``host_io_costs`` of a fio-like job (its options, block size, depth and pattern) on a device
    of unloaded latency ``device_latency_s``."""
    return host_io_costs(host_io, HostIoOptions.of(workload), workload.bs, workload.iodepth, workload.is_random,
                         clock_ghz, device_latency_s)


def host_io_cpu_s(host_io: HostIoSpec, io_bytes: int, clock_ghz: float) -> float:
    """Core-seconds of one host I/O with fio's default options at depth > 1 (submit + complete +
    pages): the per-I/O cost the bounds count."""
    options = HostIoOptions()
    at_reference_us = (host_io.submit_us.value + host_io.complete_us.value
                       + page_cpu_us(host_io, options, io_bytes))
    return at_reference_us * 1e-6 * host_io.reference_clock_ghz.value / clock_ghz  # as clock_scale_s, in this order


def busy_cpus_with_polling(busy_cpus: float, job_cpus: float, jobs: float, costs: HostIoCosts,
                           logical_cpus: float, other_cpus: float = 0.0) -> float:
    """CPUs busy for the run's CPU%: ``busy_cpus``, the jobs' own; a polling job's CPU is busy all
    the time (at least ``job_cpus``); ``other_cpus``, the engine's threads on the host (md's raid5d,
    xiRAID's reconstruction threads), on top of the jobs' CPUs (until 2026-12-01 they were summed into
    the jobs' busy before the polling floor, which hid them: 8 polling jobs and xiRAID's 4 busy
    reconstruction threads on 72 CPUs read 11.1%, as without a rebuild); each SQ polling thread keeps
    one more CPU busy; never more than the platform's ``logical_cpus`` (jobs on every CPU and an
    engine thread beside them share them: until 2026-11-30 they were summed, 100.8% with 128 jobs and
    raid5d on 128 CPUs). Units: CPUs, or CPU-seconds over a span (then ``job_cpus``, ``jobs``,
    ``logical_cpus`` and ``other_cpus`` are multiplied by the span)."""
    if costs.polls:
        busy_cpus = max(busy_cpus, job_cpus)
    return min(logical_cpus, busy_cpus + other_cpus + jobs * costs.poll_threads_per_job)


def per_core_iops_bound(costs: HostIoCosts, device_latency_s: float) -> float:
    """One job on one core, drives not the limit: the smaller of the closed loop's rate (depth /
    (device latency + path latency + path CPU)) and the core's (1 / CPU per I/O)."""
    loop = costs.iodepth / (device_latency_s + costs.wake_s + costs.cpu_s)
    return min(loop, 1.0 / costs.cpu_s)


__all__ = ["HostIoOptions", "HostIoCosts", "effective_iodepth", "batch_size", "path_polls", "job_sleeps", "sleep_share",
           "submit_cpu_us", "page_cpu_us", "complete_cpu_us", "wake_latency_us", "clock_scale_s", "host_io_costs",
           "workload_host_io_costs", "host_io_cpu_s", "busy_cpus_with_polling", "per_core_iops_bound"]
