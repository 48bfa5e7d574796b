"""Datasheet figures -> internal SSD parameters, each with its physical meaning and derivation.

The drive is a controller in front of a pool of NAND dies. Every I/O occupies the pool for some
die time; the pool's capacity is ``nand_dies`` die-seconds per second. What the datasheet gives and
what each figure sets (docs/models/ssd.md has the full derivation):

* ``seq_write_bytes_per_s`` (128 KiB sequential, WAF = 1, no GC): the NAND program bandwidth, so
  a 4 KiB program occupies ``nand_dies * 4096 / seq_write`` die-microseconds.
* ``rand_write_iops`` at full capacity (steady state, 4 KiB): with the greedy WAF at the drive's
  own spare factor, the NAND pages written per second under random traffic are
  ``rand_write_iops * rmw * WAF``; their ratio to the sequential program rate is the
  *random-traffic program efficiency* (die collisions, GC reads and erases interleaved with host
  programs): ``eta = rand_write_iops * 4096 * rmw * WAF / seq_write``.
* ``rand_read_iops`` (4 KiB at the datasheet queue depth): the pool's random read service rate
  (die time per 4 KiB read), the tighter of NAND reads and the controller's read path.
* ``seq_read_bytes_per_s``: streaming read bandwidth (media + controller).
* ``nand_die_bytes`` (the die capacity of the drive's NAND generation, models/nand/, filled in by
  the catalog): dies ``= raw NAND / die capacity``, the family model's count too.
* ``raw_nand_bytes`` (catalog, basis *assumed*) sets every spare factor: Desnoyers' ``Sf = (raw -
  namespace) / raw``; capacity not allocated to a namespace joins the spare pool.

One parameter is *fitted* (not a datasheet figure): the program suspend cost, the die time a read
costs when it lands on a die busy programming (program suspend + resume). Pure reads and pure
writes do not depend on it; only mixed workloads do. It is a drive family's value
(models/families/<family>.yaml ``program_suspend_us``, nvsim.ssd.family), carried by each SKU's
``DriveSpec.program_suspend_us``; a drive with no family takes ``PROGRAM_SUSPEND_US``, the KIOXIA CM7
family's value, fitted on one published number: the KIOXIA brief's CM7-R 7.68 TB namespace 70/30
total (seed 002) -- see ``nvsim.ssd.model.fit_program_suspend_us``.
Everything else (6.4 TB namespace, CM7-V, the namespace sweep) is predicted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..constants import PAGE_BYTES
from ..ftl.closed_form import iu_rmw_factor, spare_factor_from_capacity, waf_greedy_desnoyers2012
from ..specs import DriveSpec
from .latency import DEFAULT_NAND_ERASE_US, DEFAULT_NAND_PROGRAM_US, erase_share

"""Accounting unit for NAND time (one 4 KiB host page)."""

PROGRAM_SUSPEND_US = 29.4
"""Die time a read costs when its die is programming (suspend + resume), per read, microseconds,
for a drive that names no family and gives no ``program_suspend_us`` of its own.

The KIOXIA CM7 family's value (models/families/kioxia-cm7.yaml, basis fitted, on the KIOXIA brief's
CM7-R 7.68 TB / 7.68 TB namespace random 70/30 total, 693K IOPS, with
``nvsim.ssd.model.fit_program_suspend_us``); a test keeps the two equal. Physical order of
magnitude: NAND program suspend latencies are tens of microseconds.
"""


@dataclass(frozen=True)
class SsdParameters:
    """Internal parameters of one drive model, derived from its datasheet (units in the names)."""

    name: str
    capacity_bytes: int
    raw_nand_bytes: int
    indirection_unit_bytes: int
    nand_dies: int
    nand_program_bytes_per_s: float
    seq_read_bytes_per_s: float
    read_service_iops: float
    random_write_efficiency: float
    spare_factor_at_capacity: float
    waf_at_capacity: float
    program_suspend_us: float
    nand_erase_us: float
    erase_share: float  # share of a writing die's time spent erasing (nvsim.ssd.latency.erase_share)
    read_latency_us: float
    write_latency_us: float

    @property
    def die_read_us(self) -> float:
        """Die time of one 4 KiB random read."""
        return self.nand_dies * 1e6 / self.read_service_iops

    @property
    def die_program_us_per_page(self) -> float:
        """Die time to program one 4 KiB page in a sequential stream."""
        return self.nand_dies * 1e6 * PAGE_BYTES / self.nand_program_bytes_per_s

    @property
    def nand_program_pages_per_s(self) -> float:
        return self.nand_program_bytes_per_s / PAGE_BYTES


def nand_dies(raw_nand_bytes: float, die_bytes: float) -> int:
    """Dies behind the controller: raw NAND over the die capacity of its NAND generation
    (models/nand/), at least one. The one die count: the family model's too."""
    return max(1, round(raw_nand_bytes / die_bytes))


def drive_die_bytes(drive: DriveSpec) -> int:
    """The drive's die capacity, filled in by the catalog from its NAND generation."""
    if drive.nand_die_bytes is None:
        raise ValueError(f"{drive.name}: nand_die_bytes is not set; a drive's die capacity comes from its NAND "
                         "generation (models/nand/), filled in when the catalog loads it")
    return int(drive.nand_die_bytes.value)


def partial_iu_reads(block_bytes: int, iu_bytes: int) -> int:
    """IUs a write must read before programming them whole: none when it covers whole IUs, one
    when it is smaller than an IU, two when it straddles IU boundaries at both ends."""
    if block_bytes % iu_bytes == 0:
        return 0
    return 1 if block_bytes < iu_bytes else 2


def random_read_pool_s(block_bytes: int, read_service_iops: float, seq_read_bytes_per_s: float) -> float:
    """Pool time of one random read: its 4 KiB pages at the random read service rate, or its
    bytes at the streaming read bandwidth, whichever is longer."""
    pages = max(1, math.ceil(block_bytes / PAGE_BYTES))
    return max(pages / read_service_iops, block_bytes / seq_read_bytes_per_s)


def random_write_efficiency(rand_write_iops: float, block_bytes: int, iu_bytes: int, waf: float,
                            nand_program_bytes_per_s: float, partial_read_s: float = 0.0) -> float:
    """eta = NAND bytes programmed per second in random steady state / sequential program bandwidth.

    NAND bytes per host write = IU-rounded write size (internal RMW) x WAF. A write smaller than
    the IU first reads the IU (``partial_read_s`` of pool time, ``SsdModel.write_pool_s`` charges
    it): the datasheet's rate is what is left of the pool after those reads.
    """
    nand_bytes = block_bytes * iu_rmw_factor(block_bytes, iu_bytes) * waf
    program_s = 1.0 / rand_write_iops - partial_read_s
    if program_s <= 0.0:
        raise ValueError(f"indirection_unit_bytes: {iu_bytes:,} bytes; a random write's partial-IU reads alone take "
                         f"{partial_read_s * 1e6:,.2f} us of pool time, more than the {1e6 / rand_write_iops:,.2f} us "
                         f"a write has at rand_write_iops ({rand_write_iops:,.0f}); allowed: an IU the drive's random "
                         f"writes can read and rewrite")
    return nand_bytes / (program_s * nand_program_bytes_per_s)


def drive_program_suspend_us(drive: DriveSpec) -> float:
    """The drive's suspend cost: its own (or its family's, filled in by the catalog), else the default."""
    return float(drive.program_suspend_us.value) if drive.program_suspend_us is not None else PROGRAM_SUSPEND_US


def _cited_or(value, default: float) -> float:
    """A drive's optional figure (its own or its family's), else ``default``."""
    return float(value.value) if value is not None else default


def derive_ssd_parameters(drive: DriveSpec, program_suspend_us: float | None = None) -> SsdParameters:
    """The datasheet of ``drive`` -> ``SsdParameters`` (see the module docstring for each step)."""
    if program_suspend_us is None:
        program_suspend_us = drive_program_suspend_us(drive)
    raw = int(drive.raw_nand_bytes.value)
    capacity = int(drive.capacity_bytes.value)
    spare = spare_factor_from_capacity(raw, capacity)
    waf = waf_greedy_desnoyers2012(spare)
    program_bw = float(drive.seq_write_bytes_per_s.value)
    read_iops = float(drive.rand_read_iops.value) * PAGE_BYTES / max(PAGE_BYTES, int(drive.rand_block_bytes.value))
    block, iu = int(drive.rand_block_bytes.value), int(drive.indirection_unit_bytes.value)
    partial_read_s = partial_iu_reads(block, iu) * random_read_pool_s(iu, read_iops, float(drive.seq_read_bytes_per_s.value))
    eta = random_write_efficiency(float(drive.rand_write_iops.value), block, iu, waf, program_bw, partial_read_s)
    erase_us = _cited_or(drive.nand_erase_us, DEFAULT_NAND_ERASE_US)
    return SsdParameters(
        name=drive.name,
        capacity_bytes=capacity,
        raw_nand_bytes=raw,
        indirection_unit_bytes=int(drive.indirection_unit_bytes.value),
        nand_dies=nand_dies(raw, drive_die_bytes(drive)),
        nand_program_bytes_per_s=program_bw,
        seq_read_bytes_per_s=float(drive.seq_read_bytes_per_s.value),
        read_service_iops=read_iops,
        random_write_efficiency=eta,
        spare_factor_at_capacity=spare,
        waf_at_capacity=waf,
        program_suspend_us=program_suspend_us,
        nand_erase_us=erase_us,
        erase_share=erase_share(erase_us, _cited_or(drive.nand_program_us, DEFAULT_NAND_PROGRAM_US)),
        read_latency_us=float(drive.read_latency_us.value),
        write_latency_us=float(drive.write_latency_us.value),
    )


__all__ = ["SsdParameters", "derive_ssd_parameters", "drive_program_suspend_us", "random_write_efficiency", "nand_dies", "partial_iu_reads",
           "random_read_pool_s",
           "drive_die_bytes", "PROGRAM_SUSPEND_US"]
