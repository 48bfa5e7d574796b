"""Platform model: cores and their per-I/O cost, SMT, memory, PCIe root ports, the inter-socket
link, and which socket each device hangs from.

SMT is one model here, used by every caller: two threads on the siblings of one core do
``smt_throughput_gain`` of a core's work together (``job_cpu_speeds``: per fio job's CPU;
``smt_capacity``: the total of threads, as the OLTP load counts its database threads).

Pure functions first (each a line of arithmetic with its physical meaning), then ``PlatformModel``
holding one platform with one placement, which the bounds, the fluid solver and the simulator use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .catalog import Catalog
from .host_io import host_io_cpu_s
from .links import ROOT_PORT_LANES, root_port_link
from .specs import CpuSpec, PlacementSpec, PlatformSpec


def smt_gain(cpu: CpuSpec) -> float:
    """Throughput of a core running two threads over one thread's (1: no SMT gain given)."""
    return cpu.smt_throughput_gain.value if cpu.smt_throughput_gain else 1.0


def smt_capacity(busy_threads: float, cores: int, threads_per_core: int, smt_gain: float) -> float:
    """Cores' worth of work ``busy_threads`` running threads get: one core each up to the core
    count, then each extra sibling adds ``smt_gain - 1`` of a core (the total of ``job_cpu_speeds``)."""
    n = min(busy_threads, cores * threads_per_core)
    return min(n, cores) + max(0.0, n - cores) * (smt_gain - 1.0) / max(1, threads_per_core - 1)


def active_core_clock_ghz(cpu: CpuSpec, active_cores: float, cores: int) -> float:
    """The clock each busy core holds with ``active_cores`` of ``cores`` busy (hardware threads
    folded onto their cores): the maximum boost with one, the all-core boost with all, linear in
    between (an assumption: docs/models/platform.md); the base clock where the datasheet gives no
    all-core figure."""
    all_core = cpu.all_core_boost_clock_ghz
    if all_core is None:
        return cpu.base_clock_ghz.value
    boost = cpu.boost_clock_ghz.value
    if cores <= 1:
        return boost
    share_busy = (min(max(active_cores, 1), cores) - 1) / (cores - 1)
    return boost - (boost - all_core.value) * share_busy


def job_cpu_speeds(jobs: int, cores: int, threads: int, threads_per_core: int, smt_gain: float,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Speed of each logical CPU jobs run on (a core's worth: 1, or ``smt_gain / threads_per_core``
    where its sibling runs a job too) and the logical CPU of each job. Logical CPU i and
    i + cores are siblings (Linux numbering); jobs fill 0, 1, 2, ... and wrap past the threads."""
    used = min(jobs, threads)
    i = np.arange(used)
    sibling = np.where(i < cores, i + cores, i - cores)
    speed = np.where((sibling >= 0) & (sibling < used), smt_gain / threads_per_core, 1.0)
    return speed, np.arange(jobs) % used


@dataclass(frozen=True)
class CpuLayout:
    """Where a workload's jobs run: the logical CPUs of their sockets, each used CPU's speed, each
    job's CPU."""

    logical_cpus: int
    speed: np.ndarray
    job_cpu: np.ndarray


def balanced_sockets(count: int, sockets: int) -> tuple[int, ...]:
    """Devices spread evenly, in blocks: the first ``count/sockets`` on socket 0, and so on."""
    per_socket = math.ceil(count / sockets)
    return tuple(min(i // per_socket, sockets - 1) for i in range(count))


def cross_socket_fraction(device_sockets: tuple[int, ...], job_sockets: tuple[int, ...], sockets: int) -> float:
    """Share of I/Os whose data crosses the inter-socket link when jobs and devices are each uniform
    over their sockets: 1 - sum_s P(device on s) P(job on s)."""
    if sockets == 1:
        return 0.0
    p_dev = [device_sockets.count(s) / len(device_sockets) for s in range(sockets)]
    p_job = [job_sockets.count(s) / len(job_sockets) for s in range(sockets)]
    return 1.0 - sum(d * j for d, j in zip(p_dev, p_job))


def busiest_crossing_share(device_sockets: tuple[int, ...], job_sockets: tuple[int, ...], sockets: int) -> float:
    """Share of I/Os whose data crosses the inter-socket link in its busiest direction: the link
    is full duplex, and an I/O's data goes one way, from the device's socket s to the job's t
    (reads) or back (writes), with probability P(device on s) P(job on t); both metrics load the
    same set of ordered pairs, so the busiest one is the same for reads and writes."""
    if sockets == 1:
        return 0.0
    p_dev = [device_sockets.count(s) / len(device_sockets) for s in range(sockets)]
    p_job = [job_sockets.count(s) / len(job_sockets) for s in range(sockets)]
    return max(p_dev[s] * p_job[t] for s in range(sockets) for t in range(sockets) if s != t)


@dataclass(frozen=True)
class PlatformModel:
    """One platform and one placement of drives, engine card and jobs on its sockets."""

    spec: PlatformSpec
    placement: PlacementSpec
    drives: int
    catalog: Catalog

    @property
    def sockets(self) -> int:
        return self.spec.cpu.sockets

    @property
    def cores(self) -> int:
        return self.spec.total_cores

    def loaded_clock_ghz(self, busy_threads: int) -> float:
        """The clock the cores of the jobs' sockets hold with ``busy_threads`` threads busy on them
        (fio's jobs and an engine's host threads; siblings fold onto one core): ``active_core_clock_ghz``."""
        cores, _ = self.job_cores()
        return active_core_clock_ghz(self.spec.cpu, min(busy_threads, cores), cores)

    @property
    def drive_sockets(self) -> tuple[int, ...]:
        return self.placement.drive_sockets or balanced_sockets(self.drives, self.sockets)

    @property
    def job_sockets(self) -> tuple[int, ...]:
        return self.placement.job_sockets or tuple(range(self.sockets))

    @property
    def job_socket_count(self) -> int:
        """Sockets (one NUMA node each) the jobs run on."""
        return len(set(self.job_sockets))

    def job_cores(self) -> tuple[int, int]:
        """Cores and logical CPUs of the sockets the jobs run on."""
        cpu = self.spec.cpu
        cores = self.cores
        threads = cores * cpu.threads_per_core.value
        if self.job_socket_count < cpu.sockets:
            share = self.job_socket_count / cpu.sockets
            cores, threads = int(cores * share), int(threads * share)
        return cores, threads

    def cpu_layout(self, jobs: int) -> CpuLayout:
        """``jobs`` fio jobs, one per logical CPU of the jobs' sockets (``cpus_allowed_policy=split``)."""
        cpu = self.spec.cpu
        cores, threads = self.job_cores()
        speed, job_cpu = job_cpu_speeds(jobs, cores, threads, cpu.threads_per_core.value, smt_gain(cpu))
        return CpuLayout(threads, speed, job_cpu)

    def host_io_cpu_s(self, host_io: str, io_bytes: int) -> float:
        """Core-seconds of one host I/O on the named path (``nvsim.host_io.host_io_cpu_s``) with
        every core busy (the all-core clock)."""
        return host_io_cpu_s(self.catalog.host_io[host_io], io_bytes, self.loaded_clock_ghz(self.cores))

    def host_cpu_iops(self, host_io: str, io_bytes: int) -> float:
        """Host I/Os per second all cores can submit and complete (fio's own cost, no RAID engine)."""
        return self.cores / self.host_io_cpu_s(host_io, io_bytes)

    def memory_bytes_per_s(self) -> float:
        """DRAM bandwidth of the sockets that hold the I/O buffers (jobs' sockets)."""
        return self.job_socket_count * self.spec.memory_bytes_per_s_per_socket

    def root_ports_bytes_per_s(self, transfer_bytes: int, is_read: bool) -> float:
        """Data bandwidth the root ports of the drives' sockets carry, for member I/Os of one size."""
        port = root_port_link(self.spec, self.catalog)
        per_socket = port.nvme_data_bytes_per_s(transfer_bytes, is_read) * self.spec.pcie_lanes_per_socket.value / ROOT_PORT_LANES
        return len(set(self.drive_sockets)) * per_socket

    def line_transfer_us(self) -> float:
        """The CPU's same-socket transfer time of one contended cache line, in µs."""
        return self.spec.cpu.cache_line_transfer_ns.value * 1e-3

    def shared_access_factor(self) -> float:
        """Slow-down of a contended lock or shared counter of a RAID engine: the share of
        submitters on another socket than the drives (``cross_socket_fraction``) take the CPU's
        ``cross_socket_line_factor`` times as long to get each cache line; 1 on one socket."""
        factor = self.spec.cpu.cross_socket_line_factor
        fraction = cross_socket_fraction(self.drive_sockets, self.job_sockets, self.sockets)
        return 1.0 + fraction * ((factor.value if factor else 1.0) - 1.0)

    def inter_socket_bytes_per_s(self) -> float | None:
        """Host data bandwidth before the inter-socket link saturates in its busiest direction (its
        rate is per direction: ``busiest_crossing_share``); None: one socket or no crossing."""
        link = self.spec.inter_socket_bytes_per_s
        fraction = busiest_crossing_share(self.drive_sockets, self.job_sockets, self.sockets)
        if link is None or fraction <= 0:
            return None
        return link.value / fraction

