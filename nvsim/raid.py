"""RAID levels: their rules, and their arithmetic (usable capacity, member I/Os per host I/O).

The rules of each level (members it needs, the layouts it takes, its parity members, copies and
data members per stripe) are written here once; the scenario checks (nvsim.specs), the geometry of
the stripe core (nvsim.stripe.layout), the engines and the simulator read them from here.

The closed forms are the ideal engine (no CPU, no locks); they feed the bounds line and the
fluid model. The stripe core (nvsim.stripe) plans the same I/Os exactly, byte for byte.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

LEVELS = (0, 1, 5, 6, 10)
MAX_MEMBERS = 256
"""Most members an array may have: what the stripe planner lays out (nvsim.stripe.layout refuses
more), and above what RAID6's Q over GF(2^8) can tell apart (255 data members + P + Q = 257)."""
MD_PARITY_ALGORITHMS = ("left-asymmetric", "right-asymmetric", "left-symmetric", "right-symmetric")
"""md's RAID5/6 layouts by algorithm number (ALGORITHM_LEFT_ASYMMETRIC 0 ... RIGHT_SYMMETRIC 3)."""
PARITY_LAYOUTS = ("left-symmetric", "left-asymmetric", "right-symmetric", "right-asymmetric")
"""The same layouts as a scenario lists them: md's default (left-symmetric) first."""


@dataclass(frozen=True)
class LevelRules:
    """One RAID level's rules."""

    min_drives: int  # drives a scenario's array needs (an engine's; a drive used alone needs one)
    md_min_members: int  # members md's layout arithmetic accepts (nvsim.stripe.layout.ArrayGeometry)
    parity: int  # members per stripe holding parity
    layouts: tuple[str, ...]  # layout names a scenario may give
    default_layout: str  # a scenario's layout when it gives none


RULES = {
    0: LevelRules(min_drives=2, md_min_members=1, parity=0, layouts=("none",), default_layout="none"),
    1: LevelRules(min_drives=2, md_min_members=2, parity=0, layouts=("none",), default_layout="none"),
    5: LevelRules(min_drives=3, md_min_members=2, parity=1, layouts=PARITY_LAYOUTS, default_layout="left-symmetric"),
    6: LevelRules(min_drives=4, md_min_members=4, parity=2, layouts=PARITY_LAYOUTS, default_layout="left-symmetric"),
    10: LevelRules(min_drives=2, md_min_members=2, parity=0, layouts=("near",), default_layout="near"),
}
RAID10_LAYOUT_KINDS = {"n": "near", "f": "far", "o": "offset"}
"""mdadm's RAID10 ``--layout`` strings (util.c ``parse_layout_10``): 'n', 'f' or 'o' then the copies,
md's near_copies, far_copies, or far_copies with far_offset (raid10.c ``setup_geo``)."""
RAID10_MAX_COPIES = 4
"""Most copies a RAID10 scenario may give (``near_copies``' bound, the same for far and offset)."""
RAID10_LAYOUT_TEXT = f"near, or mdadm's nK, fK or oK with K copies 2..{RAID10_MAX_COPIES} (n2, f2, o2, ...)"
MIN_DRIVES = {level: rules.min_drives for level, rules in RULES.items()}
MD_MIN_MEMBERS = {level: rules.md_min_members for level, rules in RULES.items()}
LAYOUTS_BY_LEVEL = {level: rules.layouts for level, rules in RULES.items()}
DEFAULT_LAYOUT_BY_LEVEL = {level: rules.default_layout for level, rules in RULES.items()}
_PARITY = {level: rules.parity for level, rules in RULES.items() if rules.parity}


def raid10_layout(layout: str | None, near_copies: int = 2) -> tuple[str, int] | None:
    """(kind, copies) of a RAID10 ``layout`` as a scenario writes it: None or ``near`` is md's near
    layout with ``near_copies``; mdadm's ``n2``, ``f2``, ``o3`` ... name the kind (near, far, offset)
    and the copies. None when ``layout`` is none of these."""
    if layout is None or layout == "near":
        return "near", near_copies
    kind, count = RAID10_LAYOUT_KINDS.get(layout[:1]), layout[1:]
    if kind is None or not count.isdigit() or not 2 <= int(count) <= RAID10_MAX_COPIES or count[0] == "0":
        return None
    return kind, int(count)


def parity_members(level: int) -> int:
    """Members per stripe that hold parity: RAID5 one, RAID6 two, others none."""
    return _PARITY.get(level, 0)


def data_copies(level: int, drives: int, near_copies: int = 2) -> int:
    """How many members hold each data block: RAID1 all of them, RAID10 its near copies."""
    return {1: drives, 10: near_copies}.get(level, 1)


def data_members_per_stripe(level: int, drives: int, near_copies: int = 2) -> int:
    """Strips of distinct data in one stripe (RAID10: drives // copies; RAID1: 1)."""
    if level == 0:
        return drives
    if level == 1:
        return 1
    if level == 10:
        return max(1, drives // near_copies)
    return drives - parity_members(level)


def copy_sets(level: int, drives: int, near_copies: int = 2, kind: str = "near") -> dict[frozenset[int], float]:
    """The members holding the copies of a chunk, and the share of the array's data each such set
    holds: RAID1 one set of every drive; RAID10 the near layout as the planner lays it out
    (``stripe.planner._plan_striped``: copy t of chunk c on member (c copies + t) mod n), so where
    the copies divide the drives disjoint mirror sets of ``copies`` drives, and where they do not
    (5 drives, 2 copies) sets that wrap around the ring, each drive sharing chunks with both
    neighbours. Counted over one period of the layout (n / gcd(n, copies) chunks). ``kind`` far or
    offset (raid10.c ``__raid10_find_phys``: copy t of chunk c on member (c + t) mod n): sets of
    ``copies`` consecutive members around the ring, one per chunk of a row."""
    if level == 1:
        return {frozenset(range(drives)): 1.0}
    copies = max(1, min(near_copies, drives))
    period = drives // math.gcd(drives, copies) if kind == "near" else drives
    counts: dict[frozenset[int], int] = {}
    for chunk in range(period):
        first = chunk * copies if kind == "near" else chunk
        members = frozenset((first + t) % drives for t in range(copies))
        counts[members] = counts.get(members, 0) + 1
    return {members: count / period for members, count in counts.items()}


def failures_tolerated(level: int, drives: int, near_copies: int = 2) -> int:
    """Members that may fail in any pattern without data loss (RAID10: worst case, copies - 1)."""
    return {0: 0, 1: drives - 1, 5: 1, 6: 2, 10: near_copies - 1}[level]


def usable_capacity_bytes(level: int, drives: int, member_bytes: int, strip_bytes: int, near_copies: int = 2,
                          kind: str = "near") -> int:
    """Logical bytes the array exposes, rounded down to whole strips per member (md rounds to chunks;
    RAID10 far and offset, ``kind``, to whole strips per copy: raid10.c ``raid10_size``, member
    chunks // far_copies x raid_disks).

    md's superblock and data offset (a few MiB to 128 MiB per member) are not subtracted.
    """
    member = member_bytes - member_bytes % strip_bytes
    if level == 0:
        return drives * member
    if level == 1:
        return member
    if level == 10 and kind != "near":
        return member // strip_bytes // near_copies * drives * strip_bytes
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
