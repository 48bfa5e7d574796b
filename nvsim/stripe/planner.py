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

from nvsim.stripe.layout import PAGE_BYTES, ArrayGeometry, _data_member, _pq_of_stripe


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



@nb.njit(nogil=True, cache=True, inline="always")
def _emit(h, m, mo, ln, w, ph, cnt, emit, lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph):
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


@nb.njit(nogil=True, cache=True)
def _plan_kernel(level, code, n, copies, strip, is_write, offs, lens, failed, emit,
                 o_host, o_mem, o_moff, o_len, o_w, o_ph, mode_out, parity_out, stripes_out):
    n_failed = 0
    for m in range(n):
        if failed[m]:
            n_failed += 1
    npar = 1 if level == 5 else (2 if level == 6 else 0)
    lh = np.full((4, n), -1, dtype=np.int64)
    le = np.zeros((4, n), dtype=np.int64)
    li = np.zeros((4, n), dtype=np.int64)
    healthy = np.empty(n, dtype=np.int64)
    n_healthy = 0
    for m in range(n):
        if not failed[m]:
            healthy[n_healthy] = m
            n_healthy += 1
    R = strip // 4096
    big = 2 * n
    cnt = 0
    reads_issued = np.zeros(n, dtype=np.int64)  # md read_balance on SSDs: the mirror with fewest pending
    for h in range(offs.shape[0]):
        a = offs[h]
        b = a + lens[h]
        w = is_write[h]
        par_bytes = 0
        mode = 0
        if level == 5 or level == 6:
            k = n - npar
            SD = k * strip
            s0 = a // SD
            s1 = (b - 1) // SD
            stripes_out[h] = s1 - s0 + 1
            if n_failed > npar:
                mode_out[h] = 8
                parity_out[h] = 0
                continue
            if (not w) and n_failed == 0:
                c0 = a // strip
                c1 = (b - 1) // strip
                for c in range(c0, c1 + 1):
                    st = c // k
                    dd = c - st * k
                    pd, qd = _pq_of_stripe(level, code, n, st)
                    m = _data_member(level, code, n, pd, dd)
                    lo = max(a, c * strip)
                    hi = min(b, (c + 1) * strip)
                    cnt = _emit(h, m, st * strip + lo - c * strip, hi - lo, False, 1, cnt, emit,
                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                mode_out[h] = 0
                parity_out[h] = 0
                continue
            for s in range(s0, s1 + 1):
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
                r0 = 0
                while r0 < R:
                    r1 = R
                    if rpa > r0 and rpa < r1:
                        r1 = rpa
                    if rpa + 1 > r0 and rpa + 1 < r1:
                        r1 = rpa + 1
                    if rpb > r0 and rpb < r1:
                        r1 = rpb
                    if rpb + 1 > r0 and rpb + 1 < r1:
                        r1 = rpb + 1
                    jlo = jpa + 1 if r0 < rpa else jpa
                    jhi = jpb if r0 <= rpb else jpb - 1
                    if jlo <= jhi:
                        moff = s * strip + r0 * 4096
                        ln = (r1 - r0) * 4096
                        if not w:
                            need_rebuild = 0
                            for dd in range(jlo, jhi + 1):
                                if failed[_data_member(level, code, n, pd, dd)]:
                                    need_rebuild += 1
                            if need_rebuild > 0:
                                for t in range(n_healthy):
                                    cnt = _emit(h, healthy[t], moff, ln, False, 1, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                par_bytes += need_rebuild * ln
                                mode = max(mode, 1)
                            else:
                                for dd in range(jlo, jhi + 1):
                                    m = _data_member(level, code, n, pd, dd)
                                    cnt = _emit(h, m, moff, ln, False, 1, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                        else:
                            pj1 = jpa if (part_a and r0 == rpa and r1 == rpa + 1) else -1
                            pj2 = jpb if (part_b and r0 == rpb and r1 == rpb + 1) else -1
                            n_partial = (1 if pj1 >= 0 else 0) + (1 if pj2 >= 0 and pj2 != pj1 else 0)
                            if n_failed == 0:  # md's counts without the per-member walk
                                rmw = (jhi - jlo + 1) + npar
                                rcw = k - (jhi - jlo + 1) + n_partial
                            else:
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
                            use_rmw = rmw < rcw and rmw > 0
                            chosen = rmw if use_rmw else rcw
                            if chosen >= big:  # neither works without a failed block: read all, rebuild
                                for t in range(n_healthy):
                                    cnt = _emit(h, healthy[t], moff, ln, False, 0, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                par_bytes += n_failed * ln
                            elif use_rmw:
                                for dd in range(jlo, jhi + 1):
                                    m = _data_member(level, code, n, pd, dd)
                                    cnt = _emit(h, m, moff, ln, False, 0, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                cnt = _emit(h, pd, moff, ln, False, 0, cnt, emit,
                                            lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                if npar == 2:
                                    cnt = _emit(h, qd, moff, ln, False, 0, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                mode = max(mode, 3)
                            elif rcw > 0:
                                for dd in range(k):
                                    written = dd >= jlo and dd <= jhi
                                    if written and dd != pj1 and dd != pj2:
                                        continue
                                    m = _data_member(level, code, n, pd, dd)
                                    if not failed[m]:
                                        cnt = _emit(h, m, moff, ln, False, 0, cnt, emit,
                                                    lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                                mode = max(mode, 4)
                            else:
                                mode = max(mode, 2)
                            for dd in range(jlo, jhi + 1):
                                m = _data_member(level, code, n, pd, dd)
                                if not failed[m]:
                                    cnt = _emit(h, m, moff, ln, True, 1, cnt, emit,
                                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                            if not failed[pd]:
                                cnt = _emit(h, pd, moff, ln, True, 1, cnt, emit,
                                            lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                            if npar == 2 and not failed[qd]:
                                cnt = _emit(h, qd, moff, ln, True, 1, cnt, emit,
                                            lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                            par_bytes += npar * ln
                    r0 = r1
            if w:
                mode = 7 if n_failed > 0 else max(mode, 2)
            mode_out[h] = mode
            parity_out[h] = par_bytes
            continue

        # ---- RAID0 / RAID1 / RAID10
        if level == 1:
            stripes_out[h] = 1
            parity_out[h] = 0
            if n_healthy == 0:
                mode_out[h] = 8
                continue
            if w:
                for t in range(n_healthy):
                    cnt = _emit(h, healthy[t], a, b - a, True, 1, cnt, emit,
                                lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                mode_out[h] = 7 if n_failed > 0 else 5
            else:
                cnt = _emit(h, healthy[h % n_healthy], a, b - a, False, 1, cnt, emit,
                            lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
                mode_out[h] = 0
            continue
        ncop = copies if level == 10 else 1
        kd = n if level == 0 else max(1, n // copies)
        SD = kd * strip
        stripes_out[h] = (b - 1) // SD - a // SD + 1
        parity_out[h] = 0
        c0 = a // strip
        c1 = (b - 1) // strip
        lost = False
        touched_failed = False
        for c in range(c0, c1 + 1):
            alive = 0
            for t in range(ncop):
                m = (c * ncop + t) % n
                if failed[m]:
                    touched_failed = True
                else:
                    alive += 1
            if alive == 0:
                lost = True
        if lost:
            mode_out[h] = 8
            continue
        for c in range(c0, c1 + 1):
            lo = max(a, c * strip)
            hi = min(b, (c + 1) * strip)
            if w:
                for t in range(ncop):
                    pos = c * ncop + t
                    m = pos % n
                    if not failed[m]:
                        cnt = _emit(h, m, (pos // n) * strip + lo - c * strip, hi - lo, True, 1, cnt, emit,
                                    lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
            else:
                best = -1
                for u in range(ncop):
                    t = (h + u) % ncop
                    m = (c * ncop + t) % n
                    if not failed[m] and (best < 0 or reads_issued[m] < reads_issued[(c * ncop + best) % n]):
                        best = t
                pos = c * ncop + best
                m = pos % n
                reads_issued[m] += 1
                cnt = _emit(h, m, (pos // n) * strip + lo - c * strip, hi - lo, False, 1, cnt, emit,
                            lh, le, li, o_host, o_mem, o_moff, o_len, o_w, o_ph)
        if w:
            mode_out[h] = (7 if touched_failed else 5) if level == 10 else 6
        else:
            mode_out[h] = 0
    return cnt


# ----------------------------------------------------------------------------- public API


def plan_ios(geom: ArrayGeometry, is_write, offset_bytes, length_bytes, failed_members=()) -> MemberIOPlan:
    """Plan the member I/Os of many host I/Os on ``geom`` with ``failed_members`` failed.

    ``is_write`` (bool, or one bool for all), ``offset_bytes`` and ``length_bytes`` (int64) are
    per host I/O; every I/O must satisfy 0 <= offset, 0 < length, offset + length <= capacity.
    A host I/O that would need more failed members than the level tolerates gets mode
    DATA_LOSS and no member I/Os (no exception).
    """
    # writable C-contiguous copies where needed: one compiled signature for every caller
    offs = np.require(np.atleast_1d(np.asarray(offset_bytes, dtype=np.int64)), requirements=("C", "W"))
    lens = np.require(np.broadcast_to(np.asarray(length_bytes, dtype=np.int64), offs.shape), requirements=("C", "W"))
    isw = np.require(np.broadcast_to(np.asarray(is_write, dtype=np.bool_), offs.shape), requirements=("C", "W"))
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
    args = (geom.level, geom.layout_code, geom.n_members, geom.copies, geom.strip_bytes, isw, offs, lens, failed)
    e64 = np.empty(0, np.int64)
    count = _plan_kernel(*args, False, e64, np.empty(0, np.int32), e64, e64, np.empty(0, np.bool_),
                         np.empty(0, np.int8), mode, parity, stripes)
    o_host = np.empty(count, np.int64)
    o_mem = np.empty(count, np.int32)
    o_moff = np.empty(count, np.int64)
    o_len = np.empty(count, np.int64)
    o_w = np.empty(count, np.bool_)
    o_ph = np.empty(count, np.int8)
    filled = _plan_kernel(*args, True, o_host, o_mem, o_moff, o_len, o_w, o_ph, mode, parity, stripes)
    assert filled == count
    return MemberIOPlan(o_host, o_mem, o_moff, o_len, o_w, o_ph, mode, parity, stripes)
