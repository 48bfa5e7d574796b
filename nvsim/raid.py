"""RAID-level arithmetic: usable capacity and member I/Os per host I/O in the optimal state.

These closed forms are the ideal engine (no CPU, no locks); they feed the bounds line and the
fluid model. The stripe core (nvsim.stripe) plans the same I/Os exactly, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass


def parity_members(level: int) -> int:
    """Members per stripe that hold parity: RAID5 one, RAID6 two, others none."""
    return {5: 1, 6: 2}.get(level, 0)


def data_copies(level: int, drives: int, near_copies: int = 2) -> int:
    """How many members hold each data block: RAID1 all of them, RAID10 its near copies."""
    return {1: drives, 10: near_copies}.get(level, 1)


def usable_capacity_bytes(level: int, drives: int, member_bytes: int, strip_bytes: int, near_copies: int = 2) -> int:
    """Logical bytes the array exposes, rounded down to whole strips per member (md rounds to chunks).

    md's superblock and data offset (a few MiB to 128 MiB per member) are not subtracted.
    """
    member = member_bytes - member_bytes % strip_bytes
    if level == 0:
        return drives * member
    if level == 1:
        return member
    if level == 10:
        return drives * member // near_copies
    return (drives - parity_members(level)) * member


@dataclass(frozen=True)
class MemberOps:
    """Member operations one host I/O costs, spread evenly over the members in steady state."""

    reads: float
    writes: float
    read_bytes: float
    write_bytes: float


def small_write_ops(level: int, drives: int, io_bytes: int, near_copies: int = 2) -> MemberOps:
    """A host write inside one strip: mirrors write every copy; parity levels pick RMW or RCW.

    read-modify-write reads the old data and every parity, reconstruct-write reads the other data
    strips; md takes RMW only when it needs strictly fewer reads (drivers/md/raid5.c,
    handle_stripe_dirtying), so small arrays (RAID5 of 3, RAID6 of 4) reconstruct.
    """
    p = parity_members(level)
    if p == 0:
        copies = data_copies(level, drives, near_copies)
        return MemberOps(0, copies, 0, copies * io_bytes)
    rmw_reads = 1 + p
    rcw_reads = drives - p - 1
    reads = rmw_reads if rmw_reads < rcw_reads else rcw_reads
    writes = 1 + p
    return MemberOps(reads, writes, reads * io_bytes, writes * io_bytes)


def full_stripe_write_bytes_per_host_byte(level: int, drives: int, near_copies: int = 2) -> float:
    """Member bytes written per host byte for large sequential writes (full stripes, no reads)."""
    p = parity_members(level)
    if p:
        return drives / (drives - p)
    return float(data_copies(level, drives, near_copies))
