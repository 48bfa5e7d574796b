"""Host I/O -> member I/O planner, modelled on Linux md (raid0.c, raid1.c, raid10.c, raid5.c).

``plan_ios(geom, is_write, offset_bytes, length_bytes, failed_members=())`` returns a
``MemberIOPlan``: flat NumPy arrays of member I/Os plus per-host-I/O ``mode``,
``parity_bytes_computed`` and ``stripes_touched``. One Numba kernel runs twice (count, then
fill), so millions of host I/Os plan in well under a second per core.

RAID5/6 model (drivers/md/raid5.c; see docs/stripe-core.md for the full statement):

* Optimal-state reads bypass the stripe cache (``raid5_read_one_chunk``): byte-exact per chunk.
* Writes, and every read while any member has failed, go through the stripe cache, which works
  on 4 KiB pages (``STRIPE_SIZE``): one ``stripe_head`` per page row. Each row decides between
  read-modify-write and reconstruct-write as ``handle_stripe_dirtying`` does: it counts the
  blocks each would have to read (a failed member costs 2 x disks), takes rmw only if strictly
  cheaper (``rmw_level`` = PARITY_ENABLE_RMW, md's default for RAID5 and for RAID6 when the
  kernel's raid6 code has ``xor_syndrome``), and when reconstruct-write needs no reads it is a
  full-stripe write. If neither is possible without a failed member, md reads every surviving
  block of the row (``need_this_block``) and reconstructs.
* Rows with the same pattern are handled together; member I/Os of one host I/O that are
  contiguous on the same member, with the same direction and phase, are merged into one (the
  block layer's plug merging of md's per-page bios).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numba as nb
import numpy as np

from nvsim.numba_args import FALSE, PHASE0, PHASE1, TRUE
from nvsim.numba_cache import INNER
from nvsim.stripe.layout import PAGE_BYTES, R10_NEAR, ArrayGeometry, _data_member, _pq_of_stripe, _raid10_copy


class Mode(IntEnum):
    """What a host I/O turned into (per host I/O, int8)."""

    READ = 0
    DEGRADED_READ = 1  # some requested bytes rebuilt from the other members
    FULL_STRIPE_WRITE = 2  # every written row overwrote all data: no reads
    READ_MODIFY_WRITE = 3  # some row read old data + parity
    RECONSTRUCT_WRITE = 4  # some row read the untouched data (takes precedence over RMW)
    MIRROR_WRITE = 5  # RAID1/10 write to every copy
    PLAIN_WRITE = 6  # RAID0
    DEGRADED_WRITE = 7  # write while a member it involves has failed
    DATA_LOSS = 8  # needs more failed members than the level tolerates; no member I/Os


READ, DEGRADED_READ, FULL_STRIPE_WRITE, READ_MODIFY_WRITE, RECONSTRUCT_WRITE, MIRROR_WRITE, PLAIN_WRITE, \
    DEGRADED_WRITE, DATA_LOSS = (int(m) for m in Mode)


def per_host_sum(values: np.ndarray, host_index: np.ndarray, n: int) -> np.ndarray:
    """Sum a per-member-I/O quantity (a plan's ``length_bytes``, say) over each of ``n`` host I/Os."""
    return np.bincount(host_index, weights=values, minlength=n)[:n]


@dataclass(frozen=True)
class MemberIOPlan:
    """Member I/Os (flat arrays, grouped by host I/O in order) and per-host-I/O summaries.

    ``phase`` 0: reads that must finish before parity computation and the writes; 1: the final
    reads or writes. Member I/Os of host I/O ``h`` are those with ``host_index == h``.
    """

    host_index: np.ndarray  # int64
    member: np.ndarray  # int32
    member_offset_bytes: np.ndarray  # int64
    length_bytes: np.ndarray  # int64
    is_write: np.ndarray  # bool
    phase: np.ndarray  # int8
    mode: np.ndarray  # int8, per host I/O (Mode)
    parity_bytes_computed: np.ndarray  # int64, per host I/O: parity generated + data rebuilt
    stripes_touched: np.ndarray  # int64, per host I/O

    @property
    def n_member_ios(self) -> int:
        return int(self.host_index.shape[0])

    def for_host(self, h: int) -> dict[str, np.ndarray]:
        """The member I/Os of host I/O ``h`` (a dict of arrays; for tests and inspection)."""
        lo, hi = np.searchsorted(self.host_index, [h, h + 1])
        return {name: getattr(self, name)[lo:hi] for name in
                ("member", "member_offset_bytes", "length_bytes", "is_write", "phase")}


# ----------------------------------------------------------------------------- kernel
# A family's entry (_plan_parity, _plan_copies) allocates the working arrays and hands them to its
# host I/O loop (_parity_hosts, _copy_hosts). The loops, the per-stripe steps (_raid56_stripe,
# _raid56_rows_write) and the three emitters (_emit, _emit_each, _emit_data_blocks) are compiled
# with Numba's reference counting off (_nrt=False): they only index arrays the entry owns and
# allocate nothing, and with it on, every
# array argument of every helper call costs an atomic incref/decref pair that LLVM cannot prune
# around loops (measured: most of the planning time).
# The other helpers are inlined into them (inline="always"); these are compiled separately because
# Numba's inliner copies a callee's IR per call site, which gets slow for large callees. The
# emitters, called from some twenty sites, inlined made RAID5/6 planning 2-3.5 times slower for the
# same compile time (docs/performance.md, fourteenth pass); LLVM still inlines them where it pays.
#
# A member I/O's direction and phase reach the emitters as NumPy scalars (nvsim.numba_args), never
# as the literals False, True, 0 and 1, which Numba would compile each emitter for one by one.

# Member I/Os are added through _emit with two bundles: ``mrg = (lh, le, li)``, per (phase x
# direction, member) the host I/O, end offset and output index of the last member I/O (for plug
# merging), and ``out = (o_host, o_mem, o_moff, o_len, o_w, o_ph)``, the output arrays (written
# only when ``emit``; the first pass only counts).


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _emit(h, m, mo, ln, w, ph, cnt, emit, mrg, out):
    """Add member I/O number ``cnt`` of host I/O h; merge it into this host I/O's last I/O on m with
    the same direction and phase when contiguous (plug merging). Returns the new count."""
    lh, le, li = mrg
    o_host, o_mem, o_moff, o_len, o_w, o_ph = out
    s = ph * 2 + (1 if w else 0)
    if lh[s, m] == h and le[s, m] == mo:  # contiguous with this host I/O's last I/O there: merge
        le[s, m] = mo + ln
        if emit:
            o_len[li[s, m]] += ln
        return cnt
    lh[s, m] = h
    le[s, m] = mo + ln
    li[s, m] = cnt
    if emit:
        o_host[cnt] = h
        o_mem[cnt] = m
        o_moff[cnt] = mo
        o_len[cnt] = ln
        o_w[cnt] = w
        o_ph[cnt] = ph
    return cnt + 1


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _emit_each(h, members, n_members, mo, ln, w, ph, cnt, emit, mrg, out):
    """The same extent on each of ``members[:n_members]`` (md reading a whole row from every
    survivor to rebuild it; RAID1 writing every mirror)."""
    for t in range(n_members):
        cnt = _emit(h, members[t], mo, ln, w, ph, cnt, emit, mrg, out)
    return cnt


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _emit_data_blocks(h, level, code, n, pd, jlo, jhi, failed, mo, ln, w, ph, cnt, emit, mrg, out):
    """The same page rows on the data blocks jlo..jhi of a RAID5/6 stripe with P on member pd,
    skipping blocks on failed members."""
    for dd in range(jlo, jhi + 1):
        m = _data_member(level, code, n, pd, dd)
        if not failed[m]:
            cnt = _emit(h, m, mo, ln, w, ph, cnt, emit, mrg, out)
    return cnt


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid56_chunk_reads(h, a, b, level, code, n, strip, cnt, emit, mrg, out):
    """Optimal-state RAID5/6 read of bytes [a, b): bypasses the stripe cache, one byte-exact read
    per chunk on the member holding it (raid5_read_one_chunk)."""
    k = n - (1 if level == 5 else 2)
    c0 = a // strip
    c1 = (b - 1) // strip
    for c in range(c0, c1 + 1):
        st = c // k
        dd = c - st * k
        pd, qd = _pq_of_stripe(level, code, n, st)
        m = _data_member(level, code, n, pd, dd)
        lo = max(a, c * strip)
        hi = min(b, (c + 1) * strip)
        cnt = _emit(h, m, st * strip + lo - c * strip, hi - lo, FALSE, PHASE1, cnt, emit, mrg, out)
    return cnt


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _next_row_cut(r0, R, rpa, rpb):
    """End (exclusive) of the run of page rows starting at r0 that see the same data blocks: the
    rows of the request's first page (rpa) and last page (rpb) are runs of their own."""
    r1 = R
    if rpa > r0 and rpa < r1:
        r1 = rpa
    if rpa + 1 > r0 and rpa + 1 < r1:
        r1 = rpa + 1
    if rpb > r0 and rpb < r1:
        r1 = rpb
    if rpb + 1 > r0 and rpb + 1 < r1:
        r1 = rpb + 1
    return r1


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid56_rows_read(h, level, code, n, pd, jlo, jhi, moff, ln, failed, healthy, n_healthy,
                      cnt, emit, mrg, out):
    """Stripe-cache read of page rows (moff, ln) on data blocks jlo..jhi while a member has failed:
    a degraded read (the rows from every survivor, lost blocks rebuilt) if one of those blocks is
    on a failed member, else plain reads. Returns (count, bytes rebuilt, mode)."""
    need_rebuild = 0
    for dd in range(jlo, jhi + 1):
        if failed[_data_member(level, code, n, pd, dd)]:
            need_rebuild += 1
    if need_rebuild > 0:
        cnt = _emit_each(h, healthy, n_healthy, moff, ln, FALSE, PHASE1, cnt, emit, mrg, out)
        return cnt, need_rebuild * ln, DEGRADED_READ
    cnt = _emit_data_blocks(h, level, code, n, pd, jlo, jhi, failed, moff, ln, FALSE, PHASE1, cnt, emit, mrg, out)
    return cnt, 0, READ


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _rmw_rcw_costs(level, code, n, pd, qd, jlo, jhi, pj1, pj2, failed, n_failed):
    """Blocks read-modify-write and reconstruct-write would each read for page rows whose written
    data blocks are jlo..jhi (pj1, pj2: partly written ones, else -1), counted as md's
    handle_stripe_dirtying does: a block on a failed member costs 2 x disks. Returns (rmw, rcw)."""
    npar = 1 if level == 5 else 2
    k = n - npar
    if n_failed == 0:  # md's counts without the per-member walk
        n_partial = (1 if pj1 >= 0 else 0) + (1 if pj2 >= 0 and pj2 != pj1 else 0)
        return (jhi - jlo + 1) + npar, k - (jhi - jlo + 1) + n_partial
    big = 2 * n
    rmw = 0
    rcw = 0
    for dd in range(k):
        m = _data_member(level, code, n, pd, dd)
        written = dd >= jlo and dd <= jhi
        overwrite = written and dd != pj1 and dd != pj2
        cost = big if failed[m] else 1
        if written:
            rmw += cost
        if not overwrite:
            rcw += cost
    rmw += big if failed[pd] else 1
    if npar == 2:
        rmw += big if failed[qd] else 1
    return rmw, rcw


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid56_prereads(h, level, code, n, pd, qd, jlo, jhi, pj1, pj2, moff, ln, failed, n_failed,
                     healthy, n_healthy, cnt, emit, mrg, out):
    """Phase-0 reads of a stripe-cache write of page rows: read-modify-write (old data + parity)
    only if strictly cheaper, else reconstruct-write (the blocks not overwritten; none: full-stripe
    write); if neither avoids a failed member, read every survivor and rebuild.
    Returns (count, bytes rebuilt, mode)."""
    npar = 1 if level == 5 else 2
    rmw, rcw = _rmw_rcw_costs(level, code, n, pd, qd, jlo, jhi, pj1, pj2, failed, n_failed)
    use_rmw = rmw < rcw and rmw > 0
    chosen = rmw if use_rmw else rcw
    if chosen >= 2 * n:  # neither works without a failed block: read all, rebuild
        cnt = _emit_each(h, healthy, n_healthy, moff, ln, FALSE, PHASE0, cnt, emit, mrg, out)
        return cnt, n_failed * ln, READ  # READ: no mode of its own (the host I/O is a DEGRADED_WRITE)
    if use_rmw:  # chosen < 2 x disks: no written block and no parity is on a failed member
        cnt = _emit_data_blocks(h, level, code, n, pd, jlo, jhi, failed, moff, ln, FALSE, PHASE0, cnt, emit, mrg, out)
        cnt = _emit(h, pd, moff, ln, FALSE, PHASE0, cnt, emit, mrg, out)
        if npar == 2:
            cnt = _emit(h, qd, moff, ln, FALSE, PHASE0, cnt, emit, mrg, out)
        return cnt, 0, READ_MODIFY_WRITE
    if rcw > 0:
        for dd in range(n - npar):
            written = dd >= jlo and dd <= jhi
            if written and dd != pj1 and dd != pj2:
                continue
            m = _data_member(level, code, n, pd, dd)
            if not failed[m]:
                cnt = _emit(h, m, moff, ln, FALSE, PHASE0, cnt, emit, mrg, out)
        return cnt, 0, RECONSTRUCT_WRITE
    return cnt, 0, FULL_STRIPE_WRITE


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _raid56_rows_write(h, level, code, n, pd, qd, jlo, jhi, pj1, pj2, moff, ln, failed, n_failed,
                       healthy, n_healthy, cnt, emit, mrg, out):
    """Stripe-cache write of page rows (moff, ln) on data blocks jlo..jhi: the phase-0 reads, then
    the phase-1 writes of the data blocks and parity on surviving members.
    Returns (count, parity bytes computed + data rebuilt, mode)."""
    npar = 1 if level == 5 else 2
    cnt, rebuilt, mode = _raid56_prereads(h, level, code, n, pd, qd, jlo, jhi, pj1, pj2, moff, ln, failed,
                                          n_failed, healthy, n_healthy, cnt, emit, mrg, out)
    cnt = _emit_data_blocks(h, level, code, n, pd, jlo, jhi, failed, moff, ln, TRUE, PHASE1, cnt, emit, mrg, out)
    if not failed[pd]:
        cnt = _emit(h, pd, moff, ln, TRUE, PHASE1, cnt, emit, mrg, out)
    if npar == 2 and not failed[qd]:
        cnt = _emit(h, qd, moff, ln, TRUE, PHASE1, cnt, emit, mrg, out)
    return cnt, rebuilt + npar * ln, mode


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _raid56_stripe(h, s, a, b, w, level, code, n, strip, failed, n_failed, healthy, n_healthy,
                   cnt, emit, mrg, out):
    """Bytes [a, b) of stripe s through the stripe cache (one stripe_head per 4 KiB page row): the
    rows touched, in runs of rows that see the same data blocks, each run read or written
    together. Returns (count, parity bytes computed + data rebuilt, mode)."""
    SD = (n - (1 if level == 5 else 2)) * strip
    R = strip // 4096
    base = s * SD
    sa = max(a, base) - base
    sb = min(b, base + SD) - base
    pd, qd = _pq_of_stripe(level, code, n, s)
    pa = sa // 4096
    pb = (sb - 1) // 4096
    jpa = pa // R
    rpa = pa - jpa * R
    jpb = pb // R
    rpb = pb - jpb * R
    part_a = (sa % 4096) != 0
    part_b = (sb % 4096) != 0
    par_bytes = 0
    mode = 0
    r0 = 0
    while r0 < R:
        r1 = _next_row_cut(r0, R, rpa, rpb)
        jlo = jpa + 1 if r0 < rpa else jpa
        jhi = jpb if r0 <= rpb else jpb - 1
        if jlo <= jhi:
            moff = s * strip + r0 * 4096
            ln = (r1 - r0) * 4096
            if not w:
                cnt, extra, run_mode = _raid56_rows_read(h, level, code, n, pd, jlo, jhi, moff, ln, failed,
                                                         healthy, n_healthy, cnt, emit, mrg, out)
            else:
                pj1 = jpa if (part_a and r0 == rpa and r1 == rpa + 1) else -1
                pj2 = jpb if (part_b and r0 == rpb and r1 == rpb + 1) else -1
                cnt, extra, run_mode = _raid56_rows_write(h, level, code, n, pd, qd, jlo, jhi, pj1, pj2, moff,
                                                          ln, failed, n_failed, healthy, n_healthy,
                                                          cnt, emit, mrg, out)
            par_bytes += extra
            mode = max(mode, run_mode)
        r0 = r1
    return cnt, par_bytes, mode


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _plan_raid56(h, a, b, w, level, code, n, strip, failed, n_failed, healthy, n_healthy,
                 cnt, emit, mrg, out, mode_out, parity_out, stripes_out):
    """Host I/O h (bytes [a, b)) on RAID5/6: DATA_LOSS past the failures tolerated; optimal-state
    reads bypass the stripe cache; everything else goes through it stripe by stripe."""
    npar = 1 if level == 5 else 2
    SD = (n - npar) * strip
    s0 = a // SD
    s1 = (b - 1) // SD
    stripes_out[h] = s1 - s0 + 1
    if n_failed > npar:
        mode_out[h] = DATA_LOSS
        parity_out[h] = 0
        return cnt
    if (not w) and n_failed == 0:
        cnt = _raid56_chunk_reads(h, a, b, level, code, n, strip, cnt, emit, mrg, out)
        mode_out[h] = READ
        parity_out[h] = 0
        return cnt
    par_bytes = 0
    mode = 0
    for s in range(s0, s1 + 1):
        cnt, extra, stripe_mode = _raid56_stripe(h, s, a, b, w, level, code, n, strip, failed, n_failed,
                                                 healthy, n_healthy, cnt, emit, mrg, out)
        par_bytes += extra
        mode = max(mode, stripe_mode)
    if w:
        mode = DEGRADED_WRITE if n_failed > 0 else max(mode, FULL_STRIPE_WRITE)
    mode_out[h] = mode
    parity_out[h] = par_bytes
    return cnt


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _raid1_read_mirror(h, a, healthy, n_healthy, stream, next_seq):
    """The mirror a RAID1 read of host I/O h at ``a`` goes to. ``stream`` < 0: rotating over the
    survivors by host I/O (md's ``read_balance`` for reads that follow no stream on SSDs: the mirror
    with the fewest requests pending). ``stream`` >= 0, the job of a sequential stream: md's rule
    "Don't change to another disk for sequential reads" -- a read that starts where the last read
    sent to a mirror ended (``next_seq_sect``; ``is_sequential`` from Linux 6.9) stays on that
    mirror, and md moves it on only past the drive's ``opt_iosize`` (``should_choose_next``), which
    NVMe drives report as 0 unless they state an optimal write size (NOWS): never here. A stream's
    first read (no mirror holds a stream yet) goes to its own mirror, ``healthy[stream % n]``: md
    sends it to the mirror with the fewest pending, the one no other stream holds."""
    if stream < 0:
        return healthy[h % n_healthy]
    started = False
    for i in range(n_healthy):
        m = healthy[i]
        if next_seq[m] == a:
            return m
        started = started or next_seq[m] >= 0
    if not started:
        return healthy[stream % n_healthy]
    return healthy[(h + stream) % n_healthy]


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _plan_raid1(h, a, b, w, healthy, n_healthy, n_failed, stream, next_seq, cnt, emit, mrg, out, mode_out, parity_out,
                stripes_out):
    """Host I/O h on RAID1 (raid1.c): a write goes to every surviving mirror, a read to one
    survivor (``_raid1_read_mirror``: md's read_balance); DATA_LOSS when none survives."""
    stripes_out[h] = 1
    parity_out[h] = 0
    if n_healthy == 0:
        mode_out[h] = DATA_LOSS
        return cnt
    if w:
        cnt = _emit_each(h, healthy, n_healthy, a, b - a, TRUE, PHASE1, cnt, emit, mrg, out)
        mode_out[h] = DEGRADED_WRITE if n_failed > 0 else MIRROR_WRITE
    else:
        m = _raid1_read_mirror(h, a, healthy, n_healthy, stream, next_seq)
        next_seq[m] = b  # read_balance: mirror->next_seq_sect = this_sector + sectors
        cnt = _emit(h, m, a, b - a, FALSE, PHASE1, cnt, emit, mrg, out)
        mode_out[h] = READ
    return cnt


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _chunks_survive(c0, c1, code, ncop, stride, n, failed):
    """Whether every chunk c0..c1 (copies placed by ``_raid10_copy``) keeps a surviving copy, and
    whether any of their copies is on a failed member. Returns (all survive, touched a failed)."""
    lost = False
    touched_failed = False
    for c in range(c0, c1 + 1):
        alive = 0
        for t in range(ncop):
            m, _ = _raid10_copy(code, n, ncop, stride, c, t)
            if failed[m]:
                touched_failed = True
            else:
                alive += 1
        if alive == 0:
            lost = True
    return not lost, touched_failed


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _read_balance(h, c, code, ncop, stride, n, failed, reads_issued):
    """Copy of chunk c a read goes to, as md's read_balance on SSDs: the surviving copy whose
    member has the fewest reads issued, ties to the first from copy h % ncop on. The same for far
    and offset copies: raid10.c ``read_balance`` takes ``best_pending_slot`` (the fewest
    ``nr_pending``) whenever a member is non-rotational (``has_nonrot_disk``); its far rule, "for far
    > 1 always use the lowest address" (the first part's copy), sets only ``best_dist_slot``, which
    it takes for rotating disks alone."""
    best = -1
    best_m = -1
    for u in range(ncop):
        t = (h + u) % ncop
        m, _ = _raid10_copy(code, n, ncop, stride, c, t)
        if not failed[m] and (best < 0 or reads_issued[m] < reads_issued[best_m]):
            best = t
            best_m = m
    return best


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _plan_striped(h, a, b, w, level, code, n, copies, stride, strip, failed, reads_issued,
                  cnt, emit, mrg, out, mode_out, parity_out, stripes_out):
    """Host I/O h on RAID0 or RAID10 (raid0.c, raid10.c; near, far or offset copies, ``code``): per
    chunk, a write goes to every surviving copy, a read to one (read balance); DATA_LOSS if a chunk
    has no copy left. A stripe is a row of distinct chunks: n // copies near, n far and offset."""
    ncop = copies if level == 10 else 1
    code = code if level == 10 else R10_NEAR  # RAID0: one copy, chunk c on member c mod n
    kd = max(1, n // ncop) if code == R10_NEAR else n
    SD = kd * strip
    stripes_out[h] = (b - 1) // SD - a // SD + 1
    parity_out[h] = 0
    c0 = a // strip
    c1 = (b - 1) // strip
    survive, touched_failed = _chunks_survive(c0, c1, code, ncop, stride, n, failed)
    if not survive:
        mode_out[h] = DATA_LOSS
        return cnt
    for c in range(c0, c1 + 1):
        lo = max(a, c * strip)
        hi = min(b, (c + 1) * strip)
        if w:
            for t in range(ncop):
                m, row = _raid10_copy(code, n, ncop, stride, c, t)
                if not failed[m]:
                    cnt = _emit(h, m, row * strip + lo - c * strip, hi - lo, TRUE, PHASE1, cnt, emit, mrg, out)
        else:
            m, row = _raid10_copy(code, n, ncop, stride, c, _read_balance(h, c, code, ncop, stride, n, failed,
                                                                          reads_issued))
            reads_issued[m] += 1
            cnt = _emit(h, m, row * strip + lo - c * strip, hi - lo, FALSE, PHASE1, cnt, emit, mrg, out)
    if w:
        mode_out[h] = (DEGRADED_WRITE if touched_failed else MIRROR_WRITE) if level == 10 else PLAIN_WRITE
    else:
        mode_out[h] = READ
    return cnt


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _survivors(n, failed, healthy):
    """The surviving members listed first in ``healthy``; returns (failed count, surviving count).
    Counters start as np.int64(0), not the literal 0: else Numba compiles each step function a
    second time for the literal type."""
    n_failed = np.int64(0)
    n_healthy = np.int64(0)
    for m in range(n):
        if failed[m]:
            n_failed += 1
        else:
            healthy[n_healthy] = m
            n_healthy += 1
    return n_failed, n_healthy


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _parity_hosts(level, code, n, copies, strip, is_write, offs, lens, failed, healthy, reads_issued, emit, mrg, out,
                  mode_out, parity_out, stripes_out):
    """Plan every host I/O in order on RAID5/6; returns the member I/O count."""
    n_failed, n_healthy = _survivors(n, failed, healthy)
    cnt = np.int64(0)
    for h in range(offs.shape[0]):
        a = offs[h]
        cnt = _plan_raid56(h, a, a + lens[h], is_write[h], level, code, n, strip, failed, n_failed, healthy, n_healthy,
                           cnt, emit, mrg, out, mode_out, parity_out, stripes_out)
    return cnt


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _copy_hosts(level, code, n, copies, stride, strip, is_write, offs, lens, failed, healthy, reads_issued, emit, mrg, out,
                mode_out, parity_out, stripes_out, stream):
    """Plan every host I/O in order on RAID0, RAID1 or RAID10; returns the member I/O count.
    ``stream``: RAID1's read stream (``_raid1_read_mirror``); ``reads_issued`` doubles as RAID1's
    ``next_seq_sect`` per mirror (-1: none yet). ``stride``: RAID10 far's and offset's (md's
    ``geo.stride``, in strips)."""
    n_failed, n_healthy = _survivors(n, failed, healthy)
    if level == 1:
        reads_issued[:] = -1  # RAID1: each mirror's next_seq_sect, none yet
    cnt = np.int64(0)
    for h in range(offs.shape[0]):
        a = offs[h]
        b = a + lens[h]
        w = is_write[h]
        if level == 1:
            cnt = _plan_raid1(h, a, b, w, healthy, n_healthy, n_failed, stream, reads_issued, cnt, emit, mrg, out,
                              mode_out, parity_out, stripes_out)
        else:
            cnt = _plan_striped(h, a, b, w, level, code, n, copies, stride, strip, failed, reads_issued,
                                cnt, emit, mrg, out, mode_out, parity_out, stripes_out)
    return cnt


# One compiled planner per family of levels (``_plan_parity``: RAID5/6; ``_plan_copies``: RAID0/1/10),
# so that a run compiles only its own: a RAID6 run's planner compiled in 4.2 s instead of 6.3 s with
# RAID0/1/10's steps beside it (2026-11-30). Numba takes no compiled function as a cached argument,
# so each family has an entry of its own: a counting pass, then one filling arrays of that size, each
# on fresh scratch, in one compiled call (a batch of a few host I/Os spent most of its planning in
# two calls' argument handling). ``emit`` is an np.bool_, not the literals False and True: Numba
# would compile every step under it once per literal.

@nb.njit(nogil=True, cache=True)
def _plan_parity(level, code, n, copies, strip, is_write, offs, lens, failed, mode_out, parity_out, stripes_out):
    """RAID5/6: every host I/O's member I/O columns (host, member, offset, length, is_write, phase)."""
    healthy, mrg, reads_issued = _scratch(n)
    count = _parity_hosts(level, code, n, copies, strip, is_write, offs, lens, failed, healthy, reads_issued,
                          np.bool_(False), mrg, _columns(0), mode_out, parity_out, stripes_out)
    out = _columns(count)
    healthy, mrg, reads_issued = _scratch(n)
    _parity_hosts(level, code, n, copies, strip, is_write, offs, lens, failed, healthy, reads_issued, np.bool_(True),
                  mrg, out, mode_out, parity_out, stripes_out)
    return out


@nb.njit(nogil=True, cache=True)
def _plan_copies(level, code, n, copies, stride, strip, is_write, offs, lens, failed, mode_out, parity_out,
                 stripes_out, stream):
    """RAID0, RAID1, RAID10: every host I/O's member I/O columns, as ``_plan_parity``; ``stream``:
    RAID1's read stream (``_raid1_read_mirror``)."""
    healthy, mrg, reads_issued = _scratch(n)
    count = _copy_hosts(level, code, n, copies, stride, strip, is_write, offs, lens, failed, healthy, reads_issued,
                        np.bool_(False), mrg, _columns(0), mode_out, parity_out, stripes_out, stream)
    out = _columns(count)
    healthy, mrg, reads_issued = _scratch(n)
    _copy_hosts(level, code, n, copies, stride, strip, is_write, offs, lens, failed, healthy, reads_issued, np.bool_(True),
                mrg, out, mode_out, parity_out, stripes_out, stream)
    return out


@nb.njit(nogil=True, cache=True, **INNER)
def _scratch(n):
    """A pass's state: the surviving members (``_survivors`` fills it), ``_emit``'s merge buffers
    and md's read balance (reads issued per member: the mirror with fewest pending)."""
    mrg = (np.full((4, n), -1, dtype=np.int64), np.zeros((4, n), dtype=np.int64), np.zeros((4, n), dtype=np.int64))
    return np.empty(n, dtype=np.int64), mrg, np.zeros(n, dtype=np.int64)


@nb.njit(nogil=True, cache=True, **INNER)
def _columns(count):
    """The member I/O columns (host, member, offset, length, is_write, phase) for ``count``."""
    return (np.empty(count, np.int64), np.empty(count, np.int32), np.empty(count, np.int64), np.empty(count, np.int64),
            np.empty(count, np.bool_), np.empty(count, np.int8))


# ----------------------------------------------------------------------------- public API


def _one_signature(values, dtype, shape: tuple[int, ...] | None) -> np.ndarray:
    """``values`` as a writable C-contiguous array of ``dtype``, broadcast to ``shape`` (None: at
    least 1-D); an array that is one already is used as it is (a batch's arrays mostly are)."""
    if (type(values) is np.ndarray and values.dtype == dtype and values.ndim == 1 and values.flags.c_contiguous
            and values.flags.writeable and (shape is None or values.shape == shape)):
        return values
    values = np.asarray(values, dtype=dtype)
    values = np.atleast_1d(values) if shape is None else np.broadcast_to(values, shape)
    return np.require(values, requirements=("C", "W"))


def plan_ios(geom: ArrayGeometry, is_write, offset_bytes, length_bytes, failed_members=(),
             read_stream: int = -1) -> MemberIOPlan:
    """Plan the member I/Os of many host I/Os on ``geom`` with ``failed_members`` failed.

    ``read_stream`` (RAID1): -1, reads rotate over the surviving mirrors host I/O by host I/O (random
    reads, or an engine whose read balance follows no stream); else the host I/Os are one sequential
    stream, that job's, and a read that continues the last read sent to a mirror stays on it (md's
    ``read_balance``, ``_raid1_read_mirror``).

    ``is_write`` (bool, or one bool for all), ``offset_bytes`` and ``length_bytes`` (int64) are
    per host I/O; every I/O must satisfy 0 <= offset, 0 < length, offset + length <= capacity.
    A host I/O that would need more failed members than the level tolerates gets mode
    DATA_LOSS and no member I/Os (no exception).
    """
    # writable C-contiguous copies where needed: one compiled signature for every caller
    offs = _one_signature(offset_bytes, np.int64, None)
    lens = _one_signature(length_bytes, np.int64, offs.shape)
    isw = _one_signature(is_write, np.bool_, offs.shape)
    if offs.size:
        if lens.min() <= 0:
            raise ValueError("length_bytes: every host I/O needs length > 0")
        if offs.min() < 0:
            raise ValueError("offset_bytes: must be >= 0")
        if int((offs + lens).max()) > geom.capacity_bytes:
            raise ValueError(f"offset_bytes: I/O runs past the array's capacity ({geom.capacity_bytes} bytes)")
    failed = np.zeros(geom.n_members, dtype=np.uint8)
    for m in failed_members:
        m = int(m)
        if not 0 <= m < geom.n_members:
            raise ValueError(f"failed_members: member {m} out of range 0..{geom.n_members - 1}")
        failed[m] = 1
    n_host = offs.shape[0]
    mode = np.empty(n_host, dtype=np.int8)
    parity = np.empty(n_host, dtype=np.int64)
    stripes = np.empty(n_host, dtype=np.int64)
    if geom.level in (5, 6):  # one family compiled per run
        out = _plan_parity(geom.level, geom.layout_code, geom.n_members, geom.copies, geom.strip_bytes, isw, offs, lens,
                           failed, mode, parity, stripes)
    else:
        out = _plan_copies(geom.level, geom.layout_code, geom.n_members, geom.copies, geom.stride_strips,
                           geom.strip_bytes, isw, offs, lens, failed, mode, parity, stripes, np.int64(read_stream))
    return MemberIOPlan(*out, mode, parity, stripes)
