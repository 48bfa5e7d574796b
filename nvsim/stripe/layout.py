"""Array geometry and Linux md data layouts: logical byte offset <-> (member, member offset).

Layouts follow drivers/md/raid5.c ``raid5_compute_sector`` (RAID5/RAID6 algorithms
left-/right-, symmetric/asymmetric; RAID6 places P then Q as md does) and drivers/md/raid10.c
``__raid10_find_phys`` / ``raid10_find_virt`` (near, far and offset copies as mdadm builds them:
far_set_size = raid_disks), with md raid0's single zone (equal members).
All mapping functions are vectorised over NumPy int64 arrays with Numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numba as nb
import numpy as np

from ..numba_cache import INNER
from ..constants import PAGE_BYTES  # md's stripe-cache page (STRIPE_SIZE on x86), the strip granularity
from .. import raid
from ..raid import LEVELS, MD_MIN_MEMBERS, MD_PARITY_ALGORITHMS


PARITY_LAYOUTS = MD_PARITY_ALGORITHMS  # md's ALGORITHM_* numbers: LEFT_ASYMMETRIC 0 ... RIGHT_SYMMETRIC 3
LAYOUT_CODES = {name: i for i, name in enumerate(PARITY_LAYOUTS)}
DEFAULT_LAYOUT = "left-symmetric"
RAID10_LAYOUT_CODES = {"near": 0, "far": 1, "offset": 2}  # md's near_copies; far_copies; far_copies + far_offset
R10_NEAR, R10_FAR, R10_OFFSET = 0, 1, 2
MIN_MEMBERS = MD_MIN_MEMBERS


@dataclass(frozen=True)
class ArrayGeometry:
    """Shape of one md array. ``layout`` is the md algorithm for RAID5/6 and "near", "far" or
    "offset" for RAID10 (mdadm's n2, f2, o2).

    ``strip_bytes`` is md's chunk size (ignored by RAID1). ``copies`` is RAID10's copy count: its
    near_copies, or its far_copies for far and offset (md's other count is then 1).
    Invalid values raise ValueError with a one-line message naming the field.
    """

    level: int
    n_members: int
    strip_bytes: int = 512 * 1024  # mdadm's default chunk
    layout: str = DEFAULT_LAYOUT
    member_size_bytes: int = 1 << 40  # 1 TiB unless given
    copies: int = 2

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level: must be one of {LEVELS}, got {self.level!r}")
        if not isinstance(self.n_members, (int, np.integer)) or self.n_members < MIN_MEMBERS[self.level]:
            raise ValueError(f"n_members: RAID{self.level} needs >= {MIN_MEMBERS[self.level]} members, "
                             f"got {self.n_members!r}")
        if self.n_members > 256:
            raise ValueError(f"n_members: at most 256 supported, got {self.n_members}")
        if not isinstance(self.strip_bytes, (int, np.integer)) or self.strip_bytes <= 0 \
                or self.strip_bytes % PAGE_BYTES:
            raise ValueError(f"strip_bytes: must be a positive multiple of {PAGE_BYTES}, got {self.strip_bytes!r}")
        if self.level in (5, 6):
            if self.layout not in PARITY_LAYOUTS:
                raise ValueError(f"layout: RAID{self.level} layout must be one of {PARITY_LAYOUTS}, got {self.layout!r}")
        elif self.level == 10:
            if self.layout == DEFAULT_LAYOUT:
                object.__setattr__(self, "layout", "near")
            if self.layout not in RAID10_LAYOUT_CODES:
                raise ValueError(f"layout: RAID10 supports {', '.join(RAID10_LAYOUT_CODES)}, got {self.layout!r}")
            if not 2 <= self.copies <= self.n_members:
                raise ValueError(f"copies: RAID10 needs 2 <= copies <= n_members ({self.n_members}), got {self.copies}")
            if self.layout != "near" and self.member_size_bytes // self.strip_bytes < self.copies:
                raise ValueError(f"member_size_bytes: RAID10 {self.layout} needs a strip per copy on each member "
                                 f"(>= {self.copies * self.strip_bytes} bytes), got {self.member_size_bytes!r}")
        else:
            if self.layout != DEFAULT_LAYOUT:
                raise ValueError(f"layout: RAID{self.level} has no layout choice, got {self.layout!r}")
        min_size = PAGE_BYTES if self.level == 1 else self.strip_bytes  # RAID1 has no chunks
        if not isinstance(self.member_size_bytes, (int, np.integer)) or self.member_size_bytes < min_size:
            raise ValueError(f"member_size_bytes: must be >= {min_size} bytes, got {self.member_size_bytes!r}")

    # ---- derived sizes (each computed once: a run asks them of every batch; the fields never change)
    @cached_property
    def n_parity(self) -> int:
        """Parity members per stripe (1 for RAID5, 2 for RAID6, 0 otherwise)."""
        return raid.parity_members(self.level)

    @cached_property
    def n_copies(self) -> int:
        """Copies of each data byte (mirrors)."""
        return raid.data_copies(self.level, self.n_members, self.copies)

    @cached_property
    def failures_tolerated(self) -> int:
        """Members that may fail in any pattern without data loss (RAID10: worst case, copies - 1)."""
        return raid.failures_tolerated(self.level, self.n_members, self.copies)

    @cached_property
    def data_members_per_stripe(self) -> int:
        """Strips of distinct data in one stripe (RAID10: n_members // copies; RAID1: 1)."""
        return raid.data_members_per_stripe(self.level, self.n_members, self.copies)

    @cached_property
    def stripe_data_bytes(self) -> int:
        """Logical bytes in one stripe (one strip per data member)."""
        return self.data_members_per_stripe * self.strip_bytes

    @cached_property
    def strips_per_member(self) -> int:
        return self.member_size_bytes // self.strip_bytes

    @cached_property
    def capacity_bytes(self) -> int:
        """Usable logical bytes (whole strips only, as md rounds member size down to chunks)."""
        if self.level == 1:
            return self.member_size_bytes // PAGE_BYTES * PAGE_BYTES
        if self.level == 10:  # raid10.c raid10_size: chunks // far_copies x raid_disks // near_copies
            if self.layout == "near":
                return self.strips_per_member * self.n_members // self.copies * self.strip_bytes
            return self.strips_per_member // self.copies * self.n_members * self.strip_bytes
        return self.strips_per_member * self.stripe_data_bytes

    @cached_property
    def layout_code(self) -> int:
        if self.level == 10:
            return RAID10_LAYOUT_CODES[self.layout]
        return LAYOUT_CODES.get(self.layout, -1)

    @cached_property
    def stride_strips(self) -> int:
        """RAID10 far and offset: strips between one copy and the next on a member, md's
        ``geo.stride`` (raid10.c ``calc_sectors``): a chunk for offset, a far part (the member's
        strips // far_copies) for far; 0 for every other layout."""
        if self.level != 10 or self.layout == "near":
            return 0
        return 1 if self.layout == "offset" else self.strips_per_member // self.copies


# ----------------------------------------------------------------------------- numba kernels


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _pq_of_stripe(level, code, n, stripe):
    """(pd, qd) members for a RAID5/6 stripe, exactly as raid5_compute_sector (qd = -1 for RAID5)."""
    r = stripe % n
    if level == 5:
        data = n - 1
        if code == 0 or code == 2:  # left
            pd = data - r
        else:  # right
            pd = r
        return pd, -1
    if code == 0 or code == 2:
        pd = n - 1 - r
    else:
        pd = r
    if code == 0 or code == 1:  # asymmetric: P Q adjacent, Q wraps to 0 when P is last
        qd = pd + 1
        if pd == n - 1:
            qd = 0
    else:
        qd = (pd + 1) % n
    return pd, qd


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _data_member(level, code, n, pd, dd):
    """Member holding data index dd (0..k-1) of a stripe with parity at pd (raid5_compute_sector)."""
    if level == 5:
        if code == 0 or code == 1:
            return dd + 1 if dd >= pd else dd
        return (pd + 1 + dd) % n
    if code == 0 or code == 1:
        if pd == n - 1:
            return dd + 1
        return dd + 2 if dd >= pd else dd
    return (pd + 2 + dd) % n


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _data_index(level, code, n, pd, qd, member):
    """Inverse of _data_member: data index held by member, -1 if it holds P or Q."""
    if member == pd or member == qd:
        return -1
    if level == 5:
        if code == 0 or code == 1:
            return member - 1 if member > pd else member
        return (member - pd - 1) % n
    if code == 0 or code == 1:
        if pd == n - 1:
            return member - 1
        return member - 2 if member > pd else member
    return (member - pd - 2) % n


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid10_copy(code, n, copies, stride, chunk, t):
    """(member, member strip row) of copy t of array chunk ``chunk``, as raid10.c
    ``__raid10_find_phys`` with one kind of copies (mdadm's nK, fK or oK; far_set_size =
    raid_disks). Near: the copies at consecutive places of the row-major (row, member) grid. Far
    and offset: copy t on member (chunk + t) mod n (``d += near_copies``, mod far_set_size), at
    row chunk // n + t x stride for far (copy t in the t-th of ``copies`` parts of each member), at
    row (chunk // n) x copies + t for offset (``stripe *= far_copies``, stride a chunk)."""
    if code == R10_NEAR:
        pos = chunk * copies + t
        return pos % n, pos // n
    stripe = chunk // n
    if code == R10_OFFSET:
        stripe *= copies
    return (chunk + t) % n, stripe + t * stride


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid10_chunk(code, n, copies, stride, member, row):
    """The array chunk whose copy lies at (member, strip row), raid10.c ``raid10_find_virt``;
    -1 where far's rows run past its copies' parts (a member's tail)."""
    if code == R10_NEAR:
        return (row * n + member) // copies
    if code == R10_OFFSET:
        t = row % copies
        stripe = row // copies
    else:
        t = row // stride
        if t >= copies:
            return -1
        stripe = row - t * stride
    return stripe * n + (member - t) % n


@nb.njit(nogil=True, cache=True)
def _map_kernel(level, code, n, copies, stride, strip, offs, member_out, moff_out):
    for i in range(offs.shape[0]):
        off = offs[i]
        chunk = off // strip
        within = off - chunk * strip
        if level == 0:
            member_out[i] = chunk % n
            moff_out[i] = (chunk // n) * strip + within
        elif level == 1:
            member_out[i] = 0
            moff_out[i] = off
        elif level == 10:
            m, row = _raid10_copy(code, n, copies, stride, chunk, 0)
            member_out[i] = m
            moff_out[i] = row * strip + within
        else:
            k = n - (1 if level == 5 else 2)
            stripe = chunk // k
            dd = chunk - stripe * k
            pd, qd = _pq_of_stripe(level, code, n, stripe)
            member_out[i] = _data_member(level, code, n, pd, dd)
            moff_out[i] = stripe * strip + within


@nb.njit(nogil=True, cache=True)
def _unmap_kernel(level, code, n, copies, stride, strip, members, moffs, out):
    for i in range(moffs.shape[0]):
        m = members[i]
        mo = moffs[i]
        row = mo // strip
        within = mo - row * strip
        if level == 0:
            out[i] = (row * n + m) * strip + within
        elif level == 1:
            out[i] = mo
        elif level == 10:
            chunk = _raid10_chunk(code, n, copies, stride, m, row)
            out[i] = -1 if chunk < 0 else chunk * strip + within
        else:
            k = n - (1 if level == 5 else 2)
            pd, qd = _pq_of_stripe(level, code, n, row)
            dd = _data_index(level, code, n, pd, qd, m)
            if dd < 0:
                out[i] = -1
            else:
                out[i] = (row * k + dd) * strip + within


@nb.njit(nogil=True, cache=True)
def _copies_kernel(code, n, copies, stride, strip, offs, members_out, moffs_out):
    """Every RAID10 copy of each logical offset (``_raid10_copy``), copy 0 first."""
    for i in range(offs.shape[0]):
        chunk = offs[i] // strip
        within = offs[i] - chunk * strip
        for t in range(copies):
            m, row = _raid10_copy(code, n, copies, stride, chunk, t)
            members_out[i, t] = m
            moffs_out[i, t] = row * strip + within


@nb.njit(nogil=True, cache=True)
def _parity_kernel(level, code, n, stripes, p_out, q_out):
    for i in range(stripes.shape[0]):
        pd, qd = _pq_of_stripe(level, code, n, stripes[i])
        p_out[i] = pd
        q_out[i] = qd


@nb.njit(nogil=True, cache=True)
def _syndrome_kernel(level, code, n, stripes, out):
    """Members in Q-coefficient order (md raid6_d0 / raid6_idx_to_slot): start after Q, wrap."""
    for i in range(stripes.shape[0]):
        pd, qd = _pq_of_stripe(level, code, n, stripes[i])
        if level == 5:
            for dd in range(n - 1):
                out[i, dd] = _data_member(level, code, n, pd, dd)
            continue
        d0 = 0 if qd == n - 1 else qd + 1
        slot = 0
        disk = d0
        for _ in range(n):
            if disk != pd and disk != qd:
                out[i, slot] = disk
                slot += 1
            disk += 1
            if disk >= n:
                disk = 0


@nb.njit(nogil=True, cache=True)
def _data_members_kernel(level, code, n, stripes, out):
    k = out.shape[1]
    for i in range(stripes.shape[0]):
        pd, qd = _pq_of_stripe(level, code, n, stripes[i])
        for dd in range(k):
            out[i, dd] = _data_member(level, code, n, pd, dd)


# ----------------------------------------------------------------------------- public API


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(np.atleast_1d(np.asarray(a, dtype=np.int64)))


def map_logical(geom: ArrayGeometry, logical_offsets_bytes) -> tuple[np.ndarray, np.ndarray]:
    """Logical byte offsets -> (member int32, member_offset_bytes int64).

    For mirrors (RAID1, RAID10) this is the first copy; ``map_logical_copies`` gives all.
    Offsets must lie in [0, capacity_bytes); others raise ValueError.
    """
    offs = _i64(logical_offsets_bytes)
    if offs.size and (offs.min() < 0 or offs.max() >= geom.capacity_bytes):
        raise ValueError(f"logical_offsets_bytes: must be in [0, {geom.capacity_bytes})")
    member = np.empty(offs.shape[0], dtype=np.int32)
    moff = np.empty(offs.shape[0], dtype=np.int64)
    _map_kernel(geom.level, geom.layout_code, geom.n_members, geom.copies, geom.stride_strips, geom.strip_bytes, offs,
                member, moff)
    return member, moff


def map_logical_copies(geom: ArrayGeometry, logical_offsets_bytes) -> tuple[np.ndarray, np.ndarray]:
    """All copies: (members (N, n_copies) int32, member offsets (N, n_copies) int64)."""
    member, moff = map_logical(geom, logical_offsets_bytes)
    c = geom.n_copies
    if c == 1:
        return member[:, None], moff[:, None]
    if geom.level == 1:
        ms = np.broadcast_to(np.arange(geom.n_members, dtype=np.int32), (member.shape[0], c)).copy()
        return ms, np.repeat(moff[:, None], c, axis=1)
    offs = _i64(logical_offsets_bytes)
    members = np.empty((offs.shape[0], c), dtype=np.int32)
    moffs = np.empty((offs.shape[0], c), dtype=np.int64)
    _copies_kernel(geom.layout_code, geom.n_members, c, geom.stride_strips, geom.strip_bytes, offs, members, moffs)
    return members, moffs


def unmap_member(geom: ArrayGeometry, member, member_offset_bytes) -> np.ndarray:
    """(member, member offset) -> logical byte offset (int64); -1 where the member holds parity
    (RAID10 far: where the offset lies past its copies' parts)."""
    moffs = _i64(member_offset_bytes)
    members = np.ascontiguousarray(np.broadcast_to(np.asarray(member, dtype=np.int64), moffs.shape))
    if members.size and (members.min() < 0 or members.max() >= geom.n_members):
        raise ValueError(f"member: must be in [0, {geom.n_members})")
    if moffs.size and moffs.min() < 0:
        raise ValueError("member_offset_bytes: must be >= 0")
    out = np.empty(moffs.shape[0], dtype=np.int64)
    _unmap_kernel(geom.level, geom.layout_code, geom.n_members, geom.copies, geom.stride_strips, geom.strip_bytes,
                  members, moffs, out)
    return out


def parity_members(geom: ArrayGeometry, stripe_index) -> tuple[np.ndarray, np.ndarray]:
    """(p_member, q_member) int32 per stripe; q = -1 for RAID5, both -1 for levels without parity."""
    stripes = _i64(stripe_index)
    p = np.full(stripes.shape[0], -1, dtype=np.int32)
    q = np.full(stripes.shape[0], -1, dtype=np.int32)
    if geom.level in (5, 6):
        _parity_kernel(geom.level, geom.layout_code, geom.n_members, stripes, p, q)
    return p, q


def _per_stripe_data_members(geom: ArrayGeometry, stripe_index, kernel, name: str) -> np.ndarray:
    """(N, k) int32 filled by ``kernel`` for each RAID5/6 stripe (shared by the two orders below)."""
    if geom.level not in (5, 6):
        raise ValueError(f"level: {name} is for RAID5/6, got RAID{geom.level}")
    stripes = _i64(stripe_index)
    out = np.empty((stripes.shape[0], geom.data_members_per_stripe), dtype=np.int32)
    kernel(geom.level, geom.layout_code, geom.n_members, stripes, out)
    return out


def data_members(geom: ArrayGeometry, stripe_index) -> np.ndarray:
    """(N, k) int32: member holding data index 0..k-1 (logical order) of each RAID5/6 stripe."""
    return _per_stripe_data_members(geom, stripe_index, _data_members_kernel, "data_members")


def syndrome_members(geom: ArrayGeometry, stripe_index) -> np.ndarray:
    """(N, k) int32: data members in the order md feeds them to gen_syndrome (Q weight g^slot).

    md starts just after the Q member and wraps (raid6_d0, raid6_idx_to_slot). For the symmetric
    layouts this equals the logical data order; for the asymmetric ones it does not.
    """
    return _per_stripe_data_members(geom, stripe_index, _syndrome_kernel, "syndrome_members")
