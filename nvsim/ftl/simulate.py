"""Page-mapped FTL with greedy garbage collection, simulated page by page (Numba).

A scaled-down drive with the same ratios as the real one: ``n_blocks`` erase blocks of
``pages_per_block`` mapping units (one "page" = one indirection unit, IU), and a logical space of
``n_logical_pages`` IUs. The spare factor follows Desnoyers (2012): ``Sf = (T - U) / T`` with T the
physical and U the logical pages, so ``n_logical_pages = round(T * (1 - Sf))``.

Mechanism (why each piece is there):
  * one write frontier (the open block) shared by host writes and GC copies, as in the Desnoyers
    model the closed forms come from;
  * greedy victim selection: the closed block with the fewest valid pages, found in O(1) through
    per-valid-count bucket lists (this is what makes >= 20 M page writes/s possible);
  * GC runs whenever fewer than ``MIN_FREE_BLOCKS`` erased blocks remain; a victim's valid pages
    are copied to the frontier, then it is erased and joins the free pool;
  * writes smaller than an IU, or not aligned to one, program whole IUs: the partial IUs at the
    edges of a write are read, merged and rewritten (internal read-modify-write).

Counters are taken after preconditioning (one sequential fill of the logical space) and a warm-up,
so they describe the steady state. Same seed, same result: the random stream is a SplitMix64
generator inside the kernel, seeded from an int or from a ``numpy.random.Generator``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

MIN_FREE_BLOCKS = 2
"""Erased blocks kept in reserve; GC runs below this (2 guarantees a copy never runs out)."""

UNIFORM, HOT_COLD, SEQUENTIAL = 0, 1, 2
WORKLOADS = {"uniform": UNIFORM, "hot_cold": HOT_COLD, "sequential": SEQUENTIAL}

# scalar state held in one int64 array (Numba functions cannot share Python attributes)
_ACTIVE, _WP, _NFREE, _MINB, _NAND, _GC, _ERASE, _ERR = range(8)


# ---------------------------------------------------------------- random numbers
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _splitmix64(state):
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _uniform01(state):
    return float(_splitmix64(state) >> np.uint64(11)) * _INV53


@njit(cache=True, inline="always")
def _below(state, n):
    """A uniform integer in [0, n)."""
    return int(_uniform01(state) * n)


# ---------------------------------------------------------------- FTL core
# The drive is one tuple of arrays, ``ftl = (l2p, p2l, valid, closed, head, nxt, prv, free, st)``:
# the logical->physical and physical->logical page maps; per block its valid-page count and whether
# it is closed (full, in the bucket lists); the bucket lists of closed blocks per valid count
# (``head[v]``, doubly linked through ``nxt``/``prv``); the stack of erased blocks; the scalars.
#
# _simulate allocates; the page-write loops (_precondition, _run_generated, _replay_trace) get every
# FTL step inlined and are compiled with Numba's reference counting off (_nrt=False): they only
# index arrays _simulate owns and allocate nothing, and otherwise each inlined step's array
# arguments cost atomic incref/decref pairs per page write that LLVM cannot prune.


@njit(cache=True, inline="always")
def _new_drive(n_blocks, ppb, n_logical):
    """An erased drive: nothing mapped, block 0 open for writing, blocks 1.. on the free stack."""
    l2p = np.full(n_logical, -1, np.int32)
    p2l = np.full(n_blocks * ppb, -1, np.int32)
    valid = np.zeros(n_blocks, np.int32)
    closed = np.zeros(n_blocks, np.bool_)
    head = np.full(ppb + 1, -1, np.int32)
    nxt = np.full(n_blocks, -1, np.int32)
    prv = np.full(n_blocks, -1, np.int32)
    free = np.empty(n_blocks, np.int32)
    for i in range(n_blocks - 1):
        free[i] = n_blocks - 1 - i
    st = np.zeros(8, np.int64)
    st[_ACTIVE] = 0
    st[_NFREE] = n_blocks - 1
    st[_MINB] = ppb + 1
    return l2p, p2l, valid, closed, head, nxt, prv, free, st


@njit(cache=True, inline="always")
def _bucket_remove(ftl, b):
    """Unlink closed block b from the bucket list of its valid count."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    v = valid[b]
    p = prv[b]
    q = nxt[b]
    if p >= 0:
        nxt[p] = q
    else:
        head[v] = q
    if q >= 0:
        prv[q] = p


@njit(cache=True, inline="always")
def _bucket_insert(ftl, b):
    """Push closed block b on the bucket list of its valid count (and lower the min-bucket hint)."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    v = valid[b]
    h = head[v]
    nxt[b] = h
    prv[b] = -1
    if h >= 0:
        prv[h] = b
    head[v] = b
    if v < st[_MINB]:
        st[_MINB] = v


@njit(cache=True, inline="always")
def _program(ftl, ppb, lpn):
    """Program logical page lpn at the write frontier; a block that fills is closed (joins its
    bucket) and the next erased block is opened."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    a = st[_ACTIVE]
    wp = st[_WP]
    ppn = a * ppb + wp
    p2l[ppn] = lpn
    l2p[lpn] = ppn
    valid[a] += 1
    st[_NAND] += 1
    if wp + 1 == ppb:
        closed[a] = True
        _bucket_insert(ftl, a)
        nf = st[_NFREE] - 1
        st[_NFREE] = nf
        st[_ACTIVE] = free[nf]
        st[_WP] = 0
    else:
        st[_WP] = wp + 1


@njit(cache=True, inline="always")
def _greedy_victim(ftl, ppb):
    """Greedy GC victim: a closed block with the fewest valid pages (first non-empty bucket from
    the min-bucket hint on), unlinked from its bucket; -1 (and the error flag) if every closed
    block is fully valid."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    v = st[_MINB]
    while v <= ppb and head[v] < 0:
        v += 1
    st[_MINB] = v
    if v >= ppb:
        st[_ERR] = 1
        return -1
    victim = head[v]
    _bucket_remove(ftl, victim)
    closed[victim] = False
    return victim


@njit(cache=True, inline="always")
def _collect(ftl, ppb):
    """Garbage collection until MIN_FREE_BLOCKS erased blocks remain: copy each victim's valid
    pages to the frontier, erase it, push it on the free stack."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    while st[_NFREE] < MIN_FREE_BLOCKS:
        victim = _greedy_victim(ftl, ppb)
        if victim < 0:
            return
        base = victim * ppb
        for i in range(ppb):
            lpn = p2l[base + i]
            if lpn >= 0:
                p2l[base + i] = -1
                valid[victim] -= 1
                _program(ftl, ppb, lpn)
                st[_GC] += 1
        st[_ERASE] += 1
        free[st[_NFREE]] = victim
        st[_NFREE] += 1


@njit(cache=True, inline="always")
def _host_write(ftl, ppb, lpn):
    """One host write of logical page lpn: invalidate its old copy (moving a closed block to its
    new bucket), program it, collect if the free pool ran low."""
    l2p, p2l, valid, closed, head, nxt, prv, free, st = ftl
    old = l2p[lpn]
    if old >= 0:
        b = old // ppb
        p2l[old] = -1
        if closed[b]:
            _bucket_remove(ftl, b)
            valid[b] -= 1
            _bucket_insert(ftl, b)
        else:
            valid[b] -= 1
    _program(ftl, ppb, lpn)
    if st[_NFREE] < MIN_FREE_BLOCKS:
        _collect(ftl, ppb)


@njit(cache=True, _nrt=False)
def _precondition(ftl, ppb, n_logical):
    """Preconditioning: one sequential fill of the logical space."""
    for lpn in range(n_logical):
        _host_write(ftl, ppb, lpn)


@njit(cache=True, _nrt=False)
def _run_generated(ftl, ppb, n_logical, kind, hot_pages, hot_write_fraction, warmup_writes, measured_writes,
                   rng):
    """Single-IU host writes generated here (kind 0 uniform, 1 hot/cold, 2 sequential; ``rng`` the
    SplitMix64 state): ``warmup_writes`` then ``measured_writes``, stopping on an error. Returns the
    NAND, GC-copy and erase counters at the start of the measured phase."""
    st = ftl[8]
    nand0 = st[_NAND]
    gc0 = st[_GC]
    er0 = st[_ERASE]
    cursor = 0
    cold = n_logical - hot_pages
    for i in range(warmup_writes + measured_writes):
        if i == warmup_writes:
            nand0 = st[_NAND]
            gc0 = st[_GC]
            er0 = st[_ERASE]
        if kind == 0:
            lpn = _below(rng, n_logical)
        elif kind == 1:
            if _uniform01(rng) < hot_write_fraction:
                lpn = _below(rng, hot_pages)
            else:
                lpn = hot_pages + _below(rng, cold)
        else:
            lpn = cursor
            cursor += 1
            if cursor == n_logical:
                cursor = 0
        _host_write(ftl, ppb, lpn)
        if st[_ERR]:
            break
    return nand0, gc0, er0


@njit(cache=True, _nrt=False)
def _replay_trace(ftl, ppb, n_logical, iu_bytes, offsets, lengths, passes, warmup_passes):
    """The byte-level trace replayed ``warmup_passes`` + ``passes`` times: each write programs every
    IU it touches (offsets wrap on the logical space); a touched IU it does not cover whole is an
    internal read-modify-write. Returns the NAND, GC-copy and erase counters at the start of the
    measured passes, the measured host IUs, RMW reads and host bytes, and all host IUs written."""
    st = ftl[8]
    nand0 = st[_NAND]
    gc0 = st[_GC]
    er0 = st[_ERASE]
    host_bytes = 0
    host_ius = 0
    rmw = 0
    total_host = 0
    n = offsets.shape[0]
    for p in range(warmup_passes + passes):
        if p == warmup_passes:
            nand0 = st[_NAND]
            gc0 = st[_GC]
            er0 = st[_ERASE]
        measure = p >= warmup_passes
        for k in range(n):
            off = offsets[k]
            end = off + lengths[k]
            first = off // iu_bytes
            last = (end - 1) // iu_bytes
            for iu in range(first, last + 1):
                lo = iu * iu_bytes
                _host_write(ftl, ppb, iu % n_logical)
                total_host += 1
                if measure:
                    host_ius += 1
                    if off > lo or end < lo + iu_bytes:
                        rmw += 1
            if measure:
                host_bytes += lengths[k]
            if st[_ERR]:
                break
        if st[_ERR]:
            break
    return nand0, gc0, er0, host_ius, rmw, host_bytes, total_host


@njit(cache=True)
def _simulate(n_blocks, ppb, n_logical, kind, hot_pages, hot_write_fraction, warmup_writes, measured_writes,
              seed, iu_bytes, offsets, lengths, passes, warmup_passes):
    """The whole FTL: a fresh drive, a sequential fill, then the workload (page-write loops below).

    kind 0/1/2: single-IU host writes generated here (uniform, hot/cold, sequential), after a
    sequential fill, ``warmup_writes`` then ``measured_writes``. kind 3: the byte-level trace
    (``offsets``, ``lengths``) replayed ``warmup_passes`` + ``passes`` times.
    Returns int64[9]: host_ius, nand_ius, gc_copies, erases, rmw_reads, host_bytes, error,
    nand_ius_total, host_ius_total (the last two include preconditioning and warm-up).
    """
    ftl = _new_drive(n_blocks, ppb, n_logical)
    st = ftl[8]
    out = np.zeros(9, np.int64)
    _precondition(ftl, ppb, n_logical)
    total_host = n_logical
    if kind < 3:
        rng = np.zeros(1, np.uint64)
        rng[0] = np.uint64(seed)
        nand0, gc0, er0 = _run_generated(ftl, ppb, n_logical, kind, hot_pages, hot_write_fraction, warmup_writes,
                                         measured_writes, rng)
        total_host += warmup_writes + measured_writes
        out[0] = measured_writes
        out[5] = measured_writes * iu_bytes
    else:
        nand0, gc0, er0, host_ius, rmw, host_bytes, replayed = _replay_trace(ftl, ppb, n_logical, iu_bytes, offsets,
                                                                             lengths, passes, warmup_passes)
        total_host += replayed
        out[0] = host_ius
        out[4] = rmw
        out[5] = host_bytes
    out[1] = st[_NAND] - nand0
    out[2] = st[_GC] - gc0
    out[3] = st[_ERASE] - er0
    out[6] = st[_ERR]
    out[7] = st[_NAND]
    out[8] = total_host
    return out


@njit(cache=True)
def _transient(n_blocks, ppb, n_logical, checkpoints, seed):
    """A fresh drive, one sequential fill of its logical space, then uniform random single-IU host
    writes up to the last of ``checkpoints`` (host IUs written since the fill, ascending): the NAND
    IUs programmed since the fill at each checkpoint (int64, one per checkpoint; -1 from the first
    a stalled collection did not reach)."""
    ftl = _new_drive(n_blocks, ppb, n_logical)
    st = ftl[8]
    _precondition(ftl, ppb, n_logical)
    nand0 = st[_NAND]
    out = np.full(checkpoints.size, -1, np.int64)
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    written = 0
    for c in range(checkpoints.size):
        while written < checkpoints[c]:
            _host_write(ftl, ppb, _below(rng, n_logical))
            written += 1
            if st[_ERR]:
                return out
        out[c] = st[_NAND] - nand0
    return out


# ---------------------------------------------------------------- Python API
@dataclass(frozen=True)
class FtlResult:
    """Counters of the measured (steady-state) phase.

    waf_ftl: NAND IU programs / IU programs the host caused (GC only).
    waf_nand: NAND bytes programmed / host bytes written (what SMART reports: GC x RMW).
    """

    host_pages: int
    nand_pages: int
    gc_copies: int
    erases: int
    rmw_reads: int = 0
    host_bytes: int = 0
    iu_bytes: int = 4096
    spare_factor: float = 0.0
    nand_pages_total: int = 0
    host_pages_total: int = 0

    @property
    def waf_ftl(self) -> float:
        return self.nand_pages / self.host_pages if self.host_pages else float("nan")

    @property
    def waf_nand(self) -> float:
        host_bytes = self.host_bytes or self.host_pages * self.iu_bytes
        return self.nand_pages * self.iu_bytes / host_bytes if host_bytes else float("nan")

    @property
    def rmw_factor(self) -> float:
        """IU bytes programmed for the host per host byte (1 when writes are whole, aligned IUs)."""
        return self.host_pages * self.iu_bytes / self.host_bytes if self.host_bytes else 1.0


_EMPTY = np.zeros(0, np.int64)


def _result(out: np.ndarray, iu_bytes: int, spare_factor: float) -> FtlResult:
    if out[6]:
        raise RuntimeError("FTL simulation made no progress (no block with an invalid page)")
    return FtlResult(int(out[0]), int(out[1]), int(out[2]), int(out[3]), int(out[4]), int(out[5]), iu_bytes,
                     spare_factor, int(out[7]), int(out[8]))


def _seed_int(seed: int | np.random.Generator) -> int:
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    return int(seed) & (2**63 - 1)


def logical_pages_for(n_blocks: int, pages_per_block: int, spare_factor: float) -> int:
    """U = T (1 - Sf), Desnoyers' spare factor Sf = (T - U) / T."""
    if not 0.0 < spare_factor < 1.0:
        raise ValueError(f"spare_factor must be in (0, 1), got {spare_factor}")
    return int(round(n_blocks * pages_per_block * (1.0 - spare_factor)))


def simulate_ftl(spare_factor: float, *, workload: str = "uniform", n_blocks: int = 2048,
                 pages_per_block: int = 256, host_writes_per_logical_page: float = 4.0,
                 warmup_writes_per_logical_page: float = 4.0, hot_data_fraction: float = 0.2,
                 hot_write_fraction: float = 0.8, seed: int | np.random.Generator = 1) -> FtlResult:
    """Steady-state counters of single-IU host writes: uniform random, hot/cold, or sequential.

    hot/cold: a fraction ``hot_write_fraction`` of writes go to the first ``hot_data_fraction`` of
    the logical space (uniform inside each set), as in Desnoyers' two-class traffic.
    """
    kind = WORKLOADS[workload]
    n_logical = logical_pages_for(n_blocks, pages_per_block, spare_factor)
    if n_blocks * pages_per_block - n_logical < (MIN_FREE_BLOCKS + 1) * pages_per_block:
        raise ValueError("spare too small for the scaled drive: need more than MIN_FREE_BLOCKS + 1 spare blocks")
    hot = max(1, int(round(n_logical * hot_data_fraction)))
    warm = int(warmup_writes_per_logical_page * n_logical)
    meas = int(host_writes_per_logical_page * n_logical)
    out = _simulate(n_blocks, pages_per_block, n_logical, kind, hot, float(hot_write_fraction), warm, meas,
                    _seed_int(seed), 4096, _EMPTY, _EMPTY, 0, 0)
    return _result(out, 4096, spare_factor)


def simulate_ftl_trace(spare_factor: float, offsets_bytes: np.ndarray, lengths_bytes: np.ndarray, *,
                       iu_bytes: int, n_blocks: int = 1024, pages_per_block: int = 256,
                       passes: int = 2, warmup_passes: int = 2) -> FtlResult:
    """Steady-state counters of a byte-level write trace (offsets wrap on the logical space).

    Each write programs every IU it touches; a touched IU that the write does not cover whole is
    an internal read-modify-write (one IU read, counted in ``rmw_reads``).
    """
    n_logical = logical_pages_for(n_blocks, pages_per_block, spare_factor)
    offsets = np.ascontiguousarray(offsets_bytes, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths_bytes, dtype=np.int64)
    if offsets.shape != lengths.shape or np.any(lengths <= 0) or np.any(offsets < 0):
        raise ValueError("offsets and lengths: same shape, offsets >= 0, lengths > 0")
    out = _simulate(n_blocks, pages_per_block, n_logical, 3, 1, 0.0, 0, 0, 0, iu_bytes, offsets, lengths,
                    passes, warmup_passes)
    return _result(out, iu_bytes, spare_factor)


def simulate_ftl_transient(spare_factor: float, drive_writes: np.ndarray, *, n_blocks: int = 2048,
                           pages_per_block: int = 256, seed: int | np.random.Generator = 1) -> np.ndarray:
    """Mean GC write amplification of uniform random single-IU writes from the state a sequential
    fill leaves (every block full of valid data, only the spare erased), over the first
    ``drive_writes`` (host writes in logical capacities, ascending, > 0): NAND IUs programmed since
    the fill over host IUs written, one per entry. Starts at 1 while the spare absorbs the writes,
    then rises through the transient towards the steady state ``simulate_ftl`` measures."""
    n_logical = logical_pages_for(n_blocks, pages_per_block, spare_factor)
    if n_blocks * pages_per_block - n_logical < (MIN_FREE_BLOCKS + 1) * pages_per_block:
        raise ValueError("spare too small for the scaled drive: need more than MIN_FREE_BLOCKS + 1 spare blocks")
    points = np.asarray(drive_writes, dtype=np.float64)
    if points.ndim != 1 or not points.size or np.any(points <= 0) or np.any(np.diff(points) < 0):
        raise ValueError("drive_writes: a non-empty ascending array of positive drive writes")
    host = np.maximum(1, np.round(points * n_logical)).astype(np.int64)
    nand = _transient(n_blocks, pages_per_block, n_logical, host, _seed_int(seed))
    if np.any(nand < 0):
        raise RuntimeError("FTL simulation made no progress (no block with an invalid page)")
    return nand / host


def random_write_trace(n_writes: int, write_bytes: int, span_bytes: int, align_bytes: int,
                       offset_bytes: int = 0, seed: int | np.random.Generator = 1) -> tuple[np.ndarray, np.ndarray]:
    """fio-like randwrite: ``n_writes`` writes of ``write_bytes`` at ``align_bytes``-aligned offsets."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    slots = max(1, (span_bytes - write_bytes - offset_bytes) // align_bytes)
    offsets = offset_bytes + rng.integers(0, slots, n_writes, dtype=np.int64) * align_bytes
    return offsets, np.full(n_writes, write_bytes, np.int64)


__all__ = ["FtlResult", "simulate_ftl", "simulate_ftl_trace", "simulate_ftl_transient", "random_write_trace", "logical_pages_for",
           "MIN_FREE_BLOCKS", "WORKLOADS"]
