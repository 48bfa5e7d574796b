"""Drive-level write amplification of sequential writes through RAID 5 (the xiRAID / QLC brief).

Seed 001: five Solidigm D5-P5336 in xiRAID RAID 5 (4+1), 128 KiB strip. A 512 KiB host write is a
full stripe: each member gets one 128 KiB strip (4 data + 1 parity). A 128 KiB host write fills
one strip through the RAID's read-modify-write: the data strip and the stripe's parity strip are
written, so one stripe costs 4 data writes + 4 rewrites of the same parity strip. Inside each drive
a write that does not cover whole indirection units (IUs) is an internal read-modify-write.

This study replays the member-0 write stream (left-symmetric rotation: every member sees the same
mix) through the Numba FTL (``nvsim.ftl.simulate_ftl_trace``) on a scaled drive with the member's
spare factor and IU, and reports three factors:
  raid_waf   = bytes written to members / bytes written by the host (parity, rewrites);
  drive_waf  = NAND bytes / bytes written to the drive (what the drive's SMART log reports: IU RMW x GC);
  total_waf  = NAND bytes / host bytes = raid_waf x drive_waf.
The brief gives figures only (no values), so this has no published numbers; it states the result.
Run: ``python -m nvsim.studies.raid5_strip_waf`` (the table for the brief's drive).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ftl.closed_form import spare_factor_from_capacity
from ..ftl.simulate import logical_pages_for, simulate_ftl_trace
from ..errors import InputError
from ..specs import DriveSpec


@dataclass(frozen=True)
class StripWafResult:
    io_bytes: int
    strip_bytes: int
    iu_bytes: int
    member_offset_bytes: int
    raid_waf: float
    drive_waf: float
    drive_rmw_factor: float
    drive_gc_waf: float

    @property
    def total_waf(self) -> float:
        return self.raid_waf * self.drive_waf


def member_write_trace(io_bytes: int, strip_bytes: int, n_drives: int, stripes: int, member: int = 0,
                       member_offset_bytes: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """Writes member ``member`` receives for one sequential pass of ``io_bytes`` host writes.

    Returns (offsets, lengths, host_bytes). Host writes are whole strips (io_bytes a multiple of the
    strip); a write covering the whole stripe writes parity once, otherwise each host write
    rewrites the stripe's parity strip (RAID read-modify-write). Left-symmetric parity rotation.
    """
    data = n_drives - 1
    strips_per_io = io_bytes // strip_bytes
    if io_bytes % strip_bytes or strips_per_io > data or data % strips_per_io:
        raise ValueError("io_bytes must be a whole number of strips that tiles a stripe")
    offsets, lengths = [], []
    for s in range(stripes):
        parity = (n_drives - 1 - s) % n_drives
        base = member_offset_bytes + s * strip_bytes
        for first in range(0, data, strips_per_io):
            members = [(parity + 1 + k) % n_drives for k in range(first, first + strips_per_io)]
            if member in members:
                offsets.append(base)
                lengths.append(strip_bytes)
            if member == parity:  # parity written once per host write touching this stripe
                offsets.append(base)
                lengths.append(strip_bytes)
    host_bytes = stripes * data * strip_bytes
    return np.asarray(offsets, np.int64), np.asarray(lengths, np.int64), host_bytes


def _check_arguments(drive: object, io_bytes: object, strip_bytes: object, n_drives: object, offset_bytes: object) -> None:
    """One ``InputError`` naming the argument (a strip of 0 was a ZeroDivisionError, a drive's name an
    AttributeError, a RAID 5 of 2 drives answered)."""
    if not isinstance(drive, DriveSpec):
        raise InputError("drive", f"a DriveSpec (catalog.drives[name]), got {type(drive).__name__}")
    for field, value, least in (("io_bytes", io_bytes, 1), ("strip_bytes", strip_bytes, 1), ("n_drives", n_drives, 3),
                                ("member_offset_bytes", offset_bytes, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise InputError(field, f"a whole number of at least {least}, got {value!r}")
    try:
        member_write_trace(io_bytes, strip_bytes, n_drives, 0)
    except ValueError as error:
        raise InputError("io_bytes", f"{error} ({io_bytes} B on {strip_bytes} B strips, {n_drives - 1} data strips a stripe)") from None


def raid5_strip_waf(drive: DriveSpec, io_bytes: int, strip_bytes: int = 128 * 1024, n_drives: int = 5, *,
                    member_offset_bytes: int = 0, iu_bytes: int | None = None, n_blocks: int = 512,
                    pages_per_block: int = 128) -> StripWafResult:
    """Simulate one member of a RAID 5 under sequential host writes of ``io_bytes``."""
    _check_arguments(drive, io_bytes, strip_bytes, n_drives, member_offset_bytes)
    iu = int(iu_bytes or drive.indirection_unit_bytes.value)
    spare = spare_factor_from_capacity(drive.raw_nand_bytes.value, drive.capacity_bytes.value)
    logical_bytes = logical_pages_for(n_blocks, pages_per_block, spare) * iu
    stripes = (logical_bytes - member_offset_bytes) // strip_bytes - 1
    offsets, lengths, host_bytes = member_write_trace(io_bytes, strip_bytes, n_drives, stripes, 0, member_offset_bytes)
    member_bytes_all = lengths.sum() * n_drives  # every member sees the same mix (rotation)
    r = simulate_ftl_trace(spare, offsets, lengths, iu_bytes=iu, n_blocks=n_blocks, pages_per_block=pages_per_block,
                           passes=2, warmup_passes=2)
    return StripWafResult(io_bytes, strip_bytes, iu, member_offset_bytes, member_bytes_all / host_bytes, r.waf_nand,
                          r.rmw_factor, r.waf_ftl)

