"""Steady-state throughput of one NVMe SSD for a fio-like workload (fluid model).

Resources, each a rate limit:
  * the NAND die pool: reads, host programs and GC copies share die time (occupancy <= 1);
  * the PCIe link, per direction (nvsim.pcie: data TLPs, SQE fetch, CQE, doorbells, MSI-X);
  * the controller's read path is folded into the pool's read service rate (datasheet random
    read; the datasheet cannot separate it from NAND reads).

Pool time per I/O (seconds of the whole pool, i.e. die-seconds / nand_dies):
  read   u_r = max(1 / read_service_iops * pages, bs / seq_read_bytes_per_s) (sequential: one command, pages = 1)
  write  u_w = bs * rmw * WAF / (eta * program_bytes_per_s) + rmw_reads * u_r(IU)
         (sequential writes: WAF = 1, eta = 1; random: greedy WAF at the namespace's spare factor)
  a read also pays ``s * rho_w``: the suspend cost s when it finds its die programming, which
  happens with probability rho_w = the pool share of writes.
Mixed, with read fraction f and total rate X:  X [f u_r + (1-f) u_w] + s f (1-f) X^2 u_w = 1.

The job's own limits bound it too (``SsdModel.loop_limits``): Little's law on its numjobs x iodepth
I/Os in flight over the unloaded latency (the drive's QD1 latency, the link transfer and the host
path's CPU), and each job's core. Every KIOXIA brief and drive-family workload is deep enough for
the drive's resources to set the rate; at QD1 the latency does. Queueing and latency percentiles
belong to the array simulator (nvsim.sim), which reuses ``SsdParameters``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ftl.closed_form import iu_rmw_factor, spare_factor_from_capacity, waf_sequential
from ..ftl.load import FtlLoad
from ..pcie import PcieLink
from ..specs import DriveSpec, WorkloadSpec
from ..units import format_jobs
from ..constants import PAGE_BYTES
from .derive import SsdParameters, derive_ssd_parameters, partial_iu_reads, random_read_pool_s
from .latency import ERASE_SUSPEND_POINTS


@dataclass(frozen=True)
class DrivePrediction:
    """One workload's steady state on one drive, with the resource that sets it."""

    read_iops: float
    write_iops: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    waf_ftl: float
    rmw_factor: float
    spare_factor: float
    nand_pool_utilisation: float
    limited_by: str
    limits_iops: tuple[tuple[str, float], ...]

    @property
    def total_iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def waf_nand(self) -> float:
        """NAND bytes programmed / host bytes written to the drive (SMART's WAF): RMW x GC."""
        return self.waf_ftl * self.rmw_factor

    def as_dict(self) -> dict[str, float]:
        return {
            "read_iops": self.read_iops, "write_iops": self.write_iops, "total_iops": self.total_iops,
            "read_bytes_per_s": self.read_bytes_per_s, "write_bytes_per_s": self.write_bytes_per_s,
            "waf_nand": self.waf_nand, "waf_ftl": self.waf_ftl, "rmw_factor": self.rmw_factor,
            "spare_factor": self.spare_factor, "nand_pool_utilisation": self.nand_pool_utilisation,
        }


class SsdModel:
    """A drive's derived parameters and the namespace in use (the rest of the NAND is spare), and
    the FTL load of the writes it takes (``nvsim.ftl.load``; default: uniform, steady state)."""

    def __init__(self, params: SsdParameters, namespace_bytes: int | None = None, ftl_load: FtlLoad = FtlLoad()):
        namespace = int(namespace_bytes or params.capacity_bytes)
        if not 0 < namespace <= params.capacity_bytes:
            raise ValueError(f"namespace_bytes must be in (0, {params.capacity_bytes}], got {namespace}")
        self.params = params
        self.namespace_bytes = namespace
        self.ftl_load = ftl_load

    def with_load(self, ftl_load: FtlLoad) -> "SsdModel":
        """The same drive and namespace taking writes of another FTL load."""
        return SsdModel(self.params, self.namespace_bytes, ftl_load)

    @classmethod
    def from_drive(cls, drive: DriveSpec, namespace_bytes: int | None = None) -> "SsdModel":
        return cls(derive_ssd_parameters(drive), namespace_bytes)

    @property
    def spare_factor(self) -> float:
        """Desnoyers' Sf = (raw NAND - namespace) / raw NAND."""
        return spare_factor_from_capacity(self.params.raw_nand_bytes, self.namespace_bytes)

    def waf_ftl(self, random: bool) -> float:
        """GC write amplification: the FTL load's closed form for random writes (default: greedy,
        uniform, steady state), 1 for sequential streams."""
        return self.ftl_load.waf_random(self.spare_factor) if random else waf_sequential()

    def rmw_factor(self, block_bytes: int, random: bool = True) -> float:
        """IU bytes programmed per host byte: a random write programs every IU it touches whole
        (aligned writes; a sub-IU write reads, merges and rewrites its IU); a sequential stream's
        writes fill whole IUs in the drive's write buffer before they are programmed, so any size
        programs its own bytes (1), as the drive's controller does for a QLC drive's 16 KiB IU
        written 4 KiB at a time in order."""
        if not random:
            return 1.0
        return iu_rmw_factor(block_bytes, self.params.indirection_unit_bytes)

    # -- pool time of one I/O (seconds of the whole die pool) ---------------------------------
    def read_pool_s(self, block_bytes: int, random: bool) -> float:
        """A read's pool time: a random one's pages at the read service rate, a sequential one its
        bytes at the streaming rate; either at least one command at the read service rate, the
        controller's command rate the datasheet's random-read figure folds in (a 512 B
        sequential read is a command like a 4 KiB random one, not 1/28 of a 14 GB/s stream)."""
        p = self.params
        if random:
            return random_read_pool_s(block_bytes, p.read_service_iops, p.seq_read_bytes_per_s)
        return max(1.0 / p.read_service_iops, block_bytes / p.seq_read_bytes_per_s)

    def write_pool_s(self, block_bytes: int, random: bool) -> float:
        """A write's pool time: a random one's IUs programmed (``rmw_factor``) at the random-write
        efficiency with the FTL's garbage collection, plus the reads of the partial IUs it merges;
        a sequential one its bytes at the program bandwidth (whole IUs filled in the buffer, no
        reads), at least one command at the controller's command rate (``read_pool_s``'s floor: a
        512 B sequential write is a command, not 1/8 of a 4 KiB page's program time)."""
        p = self.params
        rmw = self.rmw_factor(block_bytes, random)
        eta = p.random_write_efficiency if random else 1.0
        program = block_bytes * rmw * self.waf_ftl(random) / (eta * p.nand_program_bytes_per_s)
        if not random:
            return max(1.0 / p.read_service_iops, program)
        iu = p.indirection_unit_bytes
        return program + partial_iu_reads(block_bytes, iu) * self.read_pool_s(iu, True)

    @property
    def suspend_pool_s(self) -> float:
        return self.params.program_suspend_us * 1e-6 / self.params.nand_dies

    @property
    def erase_step_pool_s(self) -> float:
        """One suspendable step of a block erase (tBERS / ``ERASE_SUSPEND_POINTS``) in pool time."""
        return self.params.nand_erase_us * 1e-6 / ERASE_SUSPEND_POINTS / self.params.nand_dies

    # -- throughput -----------------------------------------------------------------------------
    def nand_iops(self, workload: WorkloadSpec) -> float:
        """Total IOPS at which the die pool is fully occupied."""
        f = workload.read_fraction
        u_r = self.read_pool_s(workload.bs, workload.is_random)
        u_w = self.write_pool_s(workload.bs, workload.is_random)
        a = self.suspend_pool_s * f * (1 - f) * u_w
        b = f * u_r + (1 - f) * u_w
        if a <= 0:
            return 1.0 / b
        return (-b + math.sqrt(b * b + 4 * a)) / (2 * a)

    @staticmethod
    def link_iops(workload: WorkloadSpec, link: PcieLink) -> float:
        """Total IOPS the link carries: each direction's wire bytes per I/O against its bandwidth."""
        f = workload.read_fraction
        r_up, r_down = link.nvme_io_load(workload.bs, True)
        w_up, w_down = link.nvme_io_load(workload.bs, False)
        per_io = max(f * r_up + (1 - f) * w_up, f * r_down + (1 - f) * w_down)
        return link.usable_bytes_per_s() / per_io

    def unloaded_latency_s(self, workload: WorkloadSpec, link: PcieLink, host_s: float = 0.0) -> float:
        """Mean latency of one I/O with nothing queued: the drive's QD1 latency (datasheet) of its
        direction, the data's transfer over the link, and ``host_s`` of the host path (its CPU per
        I/O and its wake-up)."""
        f = workload.read_fraction
        drive_s = 1e-6 * (f * self.params.read_latency_us + (1 - f) * self.params.write_latency_us)
        return drive_s + workload.bs / link.usable_bytes_per_s() + host_s

    def loop_limits(self, workload: WorkloadSpec, link: PcieLink, host_cpu_s: float,
                    host_wake_s: float = 0.0) -> tuple[tuple[str, float], ...]:
        """The job's own limits: Little's law on its ``numjobs x iodepth`` I/Os in flight over the
        unloaded latency (a queue too shallow to keep the pool busy), and, with ``host_cpu_s``,
        each job's core (one I/O at a time of submit and complete CPU); ``host_wake_s``: the
        path's wake-up latency (``nvsim.host_io.HostIoCosts``), in the cycle but not on the core."""
        w = workload
        in_flight = w.numjobs * w.iodepth
        out = ((f"I/Os in flight ({in_flight} = {format_jobs(w.numjobs, w.iodepth)})",
                in_flight / self.unloaded_latency_s(w, link, host_cpu_s + host_wake_s)),)
        if host_cpu_s > 0:
            out += ((f"host cores ({w.numjobs} job CPUs)", w.numjobs / host_cpu_s),)
        return out

    def predict(self, workload: WorkloadSpec, link: PcieLink, host_cpu_s: float = 0.0,
                host_wake_s: float = 0.0) -> DrivePrediction:
        """The workload's steady rate: the least of the die pool, the link and the job's own
        limits (``loop_limits``); a deep enough queue leaves the drive's resources to set it."""
        limits = (("NAND die pool", self.nand_iops(workload)), (f"drive link {link.name}", self.link_iops(workload, link)))
        limits += self.loop_limits(workload, link, host_cpu_s, host_wake_s)
        name, total = min(limits, key=lambda item: item[1])
        f = workload.read_fraction
        reads, writes = total * f, total * (1 - f)
        u_r = self.read_pool_s(workload.bs, workload.is_random)
        u_w = self.write_pool_s(workload.bs, workload.is_random)
        rho_w = writes * u_w
        utilisation = reads * (u_r + self.suspend_pool_s * rho_w) + rho_w
        return DrivePrediction(
            read_iops=reads, write_iops=writes,
            read_bytes_per_s=reads * workload.bs, write_bytes_per_s=writes * workload.bs,
            waf_ftl=self.waf_ftl(workload.is_random) if f < 1 else float("nan"),
            rmw_factor=self.rmw_factor(workload.bs, workload.is_random), spare_factor=self.spare_factor,
            nand_pool_utilisation=utilisation, limited_by=name, limits_iops=limits,
        )


def predict_drive_workload(drive: DriveSpec, namespace_bytes: int | None, workload: WorkloadSpec,
                           link: PcieLink) -> dict[str, float]:
    """The orchestrator validation calls: one drive, one namespace size, one fio-like job.

    Returns read_iops, write_iops, total_iops, read_bytes_per_s, write_bytes_per_s, waf_nand
    (NAND bytes / host bytes inside the drive), waf_ftl (GC only), rmw_factor, spare_factor,
    nand_pool_utilisation. ``drive_workload_limit`` names the limiting resource.
    """
    return SsdModel.from_drive(drive, namespace_bytes).predict(workload, link).as_dict()


def drive_workload_limit(drive: DriveSpec, namespace_bytes: int | None, workload: WorkloadSpec, link: PcieLink) -> str:
    """The resource that sets ``predict_drive_workload``'s rate, in words."""
    return SsdModel.from_drive(drive, namespace_bytes).predict(workload, link).limited_by


def fit_program_suspend_us(params: SsdParameters, namespace_bytes: int, mix_total_iops: float,
                           read_fraction: float, block_bytes: int = PAGE_BYTES) -> float:
    """Invert the mixed-workload pool equation for the suspend cost (die-microseconds per read).

    Pool equation (nvsim.ssd.model): ``X [f u_r + (1-f) u_w] + s f (1-f) X^2 u_w = 1`` with X the
    total IOPS, f the read fraction, u_r / u_w the pool time of one read / write and ``s`` the
    suspend cost in pool time; per-die ``s * nand_dies``.
    """
    model = SsdModel(params, namespace_bytes)
    u_r = model.read_pool_s(block_bytes, random=True)
    u_w = model.write_pool_s(block_bytes, random=True)
    f, x = read_fraction, mix_total_iops
    s_pool = (1.0 - x * (f * u_r + (1 - f) * u_w)) / (f * (1 - f) * x * x * u_w)
    return s_pool * params.nand_dies * 1e6


__all__ = ["SsdModel", "DrivePrediction", "predict_drive_workload", "drive_workload_limit", "fit_program_suspend_us"]
