"""The event mode's foreground hot path compiled (Numba): the same slots, servers and event order
as ``slots.HostSlot`` over SimPy, as arrays (issue 21).

Every event is (time, sequence) on a binary heap, the sequence counting events in the order SimPy
would create them (``env.timeout`` schedules at creation; a waiter's ``succeed`` at the moment it
is handed the core), so the kernel processes events in SimPy's order and books every server in the
same order: a run gives the same bits as the SimPy path. Event times are computed as SimPy does
(``now + (t - now)``).

State (``KernelState`` in ``compiled``): servers as groups of ``count`` FIFO reservation servers
(a flat array of their free times, each group's in rising order; the job cores first, one server each),
the cores' waiting slots (a ring per core in one flat array: each core's first place and size,
as many places as the slots that run on it), the slots (job, core, the row they run, their
times), the planned host I/Os (``rows_f``/``rows_i``: one row per host I/O, the columns of
``rows.Demand``) and their member I/Os (``ops_i``/``ops_f``), and what the window records.

A call between compiled functions passes every array of its tuples by value (each array's
pointer, sizes and strides: about 300 words for the state tuples), which cost more than the
event's own work. So the functions between an event and the next one it schedules (``step``,
``done``, ``granted``, ``submitted``, ``locked_any``, ``locked``, ``reads_done``) are inlined
into their callers (Numba's ``inline='always'``); ``issue`` and the rebuild's and barrier's
functions are not, since inlining them at each of their callers multiplied the kernel's compile
time (25 s -> 106 s; ``issue`` inlined into ``done`` alone: +10 s for a few percent). The event
kinds are NumPy integers, so ``push`` and ``schedule`` compile once per argument type rather than
once per kind (13 signatures of ``push`` before); explicit signatures would have done it too, but
they compile or load at import, which starts Numba's target (about 0.5 s) in every command that
imports the simulator.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...numba_args import FALSE, PHASE0, PHASE1, TRUE
from ...numba_cache import INNER

from . import hdr

# event kinds (STOP: the whole rebuild's end or the run's time limit, as SimPy's any_of; STOPPED:
# the any_of event itself, which ends the run)
# (NumPy integers, not Python ints: compiled code types a Python int constant by its value, so every
# function an event kind is passed to would compile once per kind)
ISSUE, ENQUEUE, GRANTED, LOCKED, READS_DONE, DONE, HAND_OVER, WARM, STOP, STOPPED, THROUGH, PIECE_DONE, RESYNC, \
    BUSY_START = np.arange(14, dtype=np.int64)
# rows_f columns
R_SUBMIT, R_COMPLETE, R_LOCK, R_PRE, R_MID, R_BW, R_DOWN, R_UP, R_MEM, R_PIECES, R_ACK = range(11)
ROWS_F = 11
# rows_i columns
R_WRITE, R_LO, R_HI, R_GATED = range(4)
# ops_i / ops_f columns
O_DRIVE, O_WRITE, O_PHASE, O_PIECES = range(4)
O_DIE, O_LINK = range(2)
# scalar slots of ``st`` (int64)
S_SEQ, S_HEAP_N, S_COMPLETED, S_RECORDED, S_NEED_JOB, S_PEND_HEAD, S_WARMED, S_CORES, S_DRIVES, S_PEND_N, \
    S_RB_FIRST, S_DRAINING, S_STOPPING, S_UNTIL, S_NWAIT, S_BARRIER, S_INFLIGHT, S_UP, S_PENDING, S_DRAIN_ARMED, \
    S_LEFT, S_GW_HEAD, S_GW_N, S_RS_STATE, S_CAPPED, S_LATE_N = range(26)
ST_SIZE = 26
# S_CAPPED: the window's exact samples are full (``compiled``'s cap): completions go on being
# counted in the latency histograms (``hdr``) and the completion-time grid only. S_LATE_N:
# completions whose CPU ends past the window's end, held back (``REC[5]``, ``REC[6]``) until the
# window is moved on past them (the exact samples drop them at the end, and so do the histograms)
# md RAID10's barrier (``barrier.Gate``, ``barrier.resync_cycle``): S_BARRIER set, the foreground
# slots are ``BarrierSlot``s and the rebuild's slots a resync cycle's batch; the gate (up, md
# requests pending, a drain awaited, batch requests left) and its waiting pieces (a FIFO), the
# cycle's state: where its generator would resume (RS_*)
RS_TOP, RS_PACED, RS_DRAINED, RS_BATCH, RS_DONE = range(5)
# per barrier slot (``bar``, int64 columns): the piece next, pieces, member I/Os per piece, pieces left
B_K, B_PIECES, B_PER, B_LEFT = range(4)
# the rebuild's state (``rb``, float64): bytes issued, done, done in the window, the span, one
# request's bytes, md's speed limit, its floor and drain window (nan: not this engine), where the
# next speed check falls, when the span was done (nan: not yet)
RB_ISSUED, RB_DONE, RB_WINDOW, RB_SPAN, RB_STEP, RB_CAP, RB_FLOOR, RB_DRAIN, RB_NEXT_CHECK, RB_FINISHED = range(10)
PACE_TOLERANCE_S = 1e-12  # rebuild.PACE_TOLERANCE_S
# scalar slots of ``sf`` (float64)
F_NOW, F_WARM, F_END, F_RFIX, F_WFIX, F_WAKE, F_LARGE_IO, F_GRID_S, F_SLACK, F_DESTAGED = range(10)
# F_GRID_S: the width of a bin of the window's completion-time grid (``REC[4]``), doubled (pairs of
# bins merged) whenever a completion falls past its last bin; F_SLACK: how far a write-back write's
# destage may end past its acknowledgement (``destaged``: inf while the cache never fills); F_DESTAGED: the
# latest end of the destage's queues found so far
# fixed groups after the cores: lock, engine, device_bw, device_down, device_up, memory; then the
# drives' nand, link_up, link_down groups; then the rebuild thread (while rebuilding)
G_LOCK, G_ENGINE, G_BW, G_DOWN, G_UP, G_MEMORY, G_DRIVES = range(7)
# return codes
END, NEED_ROWS, NEED_RECORDS = 0, 1, 2
# arguments that would otherwise be the literals 0, 1 and 2: NumPy scalars, so Numba compiles each
# callee once (it compiles one per distinct literal argument: member_phase, nand_pieces, push,
# schedule and group_of_drive were compiled 2-3 times in a first run); a member I/O's phase and
# direction likewise (nvsim.numba_args)
_NAND, _TO_HOST, _TO_DRIVE = np.int64(0), np.int64(1), np.int64(2)  # group_of_drive's kinds
_NO_SLOT = np.int64(0)  # an event's payload where it names no slot


@njit(cache=True, _nrt=False)
def push(st, ht, hs, hp, hk, t, payload, kind):
    """Schedule an event at ``t``: the next sequence number, sifted up the heap."""
    i = st[S_HEAP_N]
    st[S_HEAP_N] = i + 1
    seq = st[S_SEQ]
    st[S_SEQ] = seq + 1
    while i > 0:
        parent = (i - 1) >> 1
        if ht[parent] < t or (ht[parent] == t and hs[parent] < seq):
            break
        ht[i], hs[i], hp[i], hk[i] = ht[parent], hs[parent], hp[parent], hk[parent]
        i = parent
    ht[i], hs[i], hp[i], hk[i] = t, seq, payload, kind


@njit(cache=True, _nrt=False, **INNER)
def pop(st, ht, hs, hp, hk):
    """Remove the earliest event (the heap's root); its fields are read before the call."""
    n = st[S_HEAP_N] - 1
    st[S_HEAP_N] = n
    t, seq, payload, kind = ht[n], hs[n], hp[n], hk[n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and (ht[child + 1] < ht[child] or (ht[child + 1] == ht[child] and hs[child + 1] < hs[child])):
            child += 1
        if ht[child] > t or (ht[child] == t and hs[child] > seq):
            break
        ht[i], hs[i], hp[i], hk[i] = ht[child], hs[child], hp[child], hk[child]
        i = child
    ht[i], hs[i], hp[i], hk[i] = t, seq, payload, kind


@njit(cache=True, _nrt=False, **INNER)
def book(free, off, cnt, busy, g, arrival, service):
    """One visit of ``service`` to group ``g`` arriving at ``arrival`` (``servers.Server.book``):
    the earliest free server of the group; the time it finishes."""
    return book_start(free, off, cnt, busy, g, arrival, service) + service


@njit(cache=True, _nrt=False, **INNER)
def book_start(free, off, cnt, busy, g, arrival, service):
    """``book``, returning when the visit starts."""
    busy[g] += service
    o = off[g]
    first = free[o]
    start = arrival if arrival > first else first
    _replace_min(free, o, cnt[g], start + service)
    return start


@njit(cache=True, _nrt=False, **INNER)
def thread_free(S, g):
    """A thread's ``Server.free`` as the slots read it: its one free time for a single server,
    the separate scalar (``S[4]``) for a pool of threads (the slots' own bookings)."""
    return S[0][S[1][g]] if S[2][g] == 1 else S[4][g]


@njit(cache=True, _nrt=False, **INNER)
def set_thread_free(S, g, value):
    if S[2][g] == 1:
        S[0][S[1][g]] = value
    else:
        S[4][g] = value


@njit(cache=True, _nrt=False, **INNER)
def _replace_min(free, o, n, value):
    """Replace the least of the group's free times (its first: a group keeps them in rising order)
    by ``value``, which moves up past the smaller ones."""
    i = 0
    while i + 1 < n and free[o + i + 1] < value:
        free[o + i] = free[o + i + 1]
        i += 1
    free[o + i] = value


@njit(cache=True, _nrt=False, **INNER)
def group_of_drive(st, kind, d):
    """Group of drive ``d``'s NAND (kind 0), link to host (1) or link to drive (2)."""
    return st[S_CORES] + G_DRIVES + kind * st[S_DRIVES] + d


@njit(cache=True, _nrt=False, **INNER)
def nand_pieces(free, off, cnt, busy, g, arrival, die, pieces, starts, queue):
    """A member I/O's ``pieces`` (``DriveTiming.pieces_of``) on NAND pool ``g``, each for
    ``die / pieces``: when the last starts (``starts``) or finishes. Each piece takes the unit free
    first, as ``book_start`` one piece after another would: the least of the pool's units not taken
    yet (the group keeps its free times in rising order) and of the times the pieces already placed
    leave their units (they rise too: a FIFO in ``queue``, at least as long as the pool, holding as
    many as the units taken); the pool is then one merge of the two."""
    piece = die / pieces
    last = arrival
    o, n, b = off[g], cnt[g], busy[g]
    cap = queue.size
    taken, head, tail, held = 0, 0, 0, 0  # units taken; the queue's first and next places, its length
    for _ in range(pieces):
        b += piece
        if held and (taken == n or queue[head] < free[o + taken]):
            x = queue[head]
            head = head + 1 if head + 1 < cap else 0
            held -= 1
        else:
            x = free[o + taken]
            taken += 1
        t = arrival if arrival > x else x
        queue[tail] = t + piece
        tail = tail + 1 if tail + 1 < cap else 0
        held += 1
        if not starts:
            t += piece
        if t > last:
            last = t
    busy[g] = b
    # the units not taken stay where they are but move down; the queue's times merge in among them
    w, f = o, o + taken
    while held:
        if f < o + n and free[f] <= queue[head]:
            free[w] = free[f]
            f += 1
        else:
            free[w] = queue[head]
            head = head + 1 if head + 1 < cap else 0
            held -= 1
        w += 1
    return last


@njit(cache=True, _nrt=False, **INNER)
def member_phase(S, st, sf, ops_i, ops_f, lo, hi, phase, arrival):
    """Book one phase of a host I/O's member I/Os (``servers.ArrayServers.member_phase``): the
    time the last one is done."""
    free, off, cnt, busy = S[0], S[1], S[2], S[3]
    finish = arrival
    for k in range(lo, hi):
        if ops_i[k, O_PHASE] != phase:
            continue
        d = ops_i[k, O_DRIVE]
        nand = group_of_drive(st, _NAND, d)
        if ops_i[k, O_WRITE]:
            sent = book(free, off, cnt, busy, group_of_drive(st, _TO_DRIVE, d), arrival, ops_f[k, O_LINK])
            start = nand_pieces(free, off, cnt, busy, nand, sent, ops_f[k, O_DIE], ops_i[k, O_PIECES], TRUE, S[5])
            t = sent + sf[F_WFIX]
            if start > t:  # no room in the write buffer until a unit takes it
                t = start
        else:
            sent = book(free, off, cnt, busy, group_of_drive(st, _TO_HOST, d), arrival, ops_f[k, O_LINK])
            t = nand_pieces(free, off, cnt, busy, nand, sent, ops_f[k, O_DIE], ops_i[k, O_PIECES], FALSE, S[5]) + sf[F_RFIX]
        if t > finish:
            finish = t
    return finish


@njit(cache=True, _nrt=False)
def destaged(S, st, sf, ops_i, ops_f, lo, hi, acked, destage_s):
    """``servers.ArrayServers.destaged``: a write-back write acknowledged at ``acked``, its destage
    (the engine's ``destage_s``, then all its member I/Os at once) booked then; done at ``acked``,
    or once the destage's queues (the engine's, its drives' links and NAND: the latest a destage has
    found them to end, ``F_DESTAGED``) are within ``F_SLACK`` of now (the cache full: room frees at
    the destage's pace)."""
    e = acked
    if destage_s > 0:
        e = book(S[0], S[1], S[2], S[3], st[S_CORES] + G_ENGINE, acked, destage_s)
    member_phase(S, st, sf, ops_i, ops_f, lo, hi, PHASE0, e)
    member_phase(S, st, sf, ops_i, ops_f, lo, hi, PHASE1, e)
    free, off = S[0], S[1]
    backlog = e  # the destage's queues: when its engine work ends, when its drives' links and NAND next free
    for k in range(lo, hi):
        d = ops_i[k, O_DRIVE]
        link = free[off[group_of_drive(st, _TO_DRIVE if ops_i[k, O_WRITE] else _TO_HOST, d)]]
        nand = free[off[group_of_drive(st, _NAND, d)]]
        if link > backlog:
            backlog = link
        if nand > backlog:
            backlog = nand
    if backlog > sf[F_DESTAGED]:
        sf[F_DESTAGED] = backlog
    held = sf[F_DESTAGED] - sf[F_SLACK]
    return held if held > acked else acked


@njit(cache=True, _nrt=False, **INNER)
def schedule(H, st, sf, t, payload, kind):
    """``env.timeout(t - now)``: an event at ``now + (t - now)``, as SimPy computes it."""
    now = sf[F_NOW]
    push(st, H[0], H[1], H[2], H[3], now + (t - now), payload, kind)


@njit(cache=True, _nrt=False, **INNER)
def wake(H, S, Q, st, sf, core):
    """``Server.wake``: hand the core to its next waiter once it is free; one hand-over pending."""
    wq, head, tail, pending, ring = Q
    if head[core] == tail[core] or pending[core]:
        return
    pending[core] = 1
    now = sf[F_NOW]
    delay = thread_free(S, core) - now
    push(st, H[0], H[1], H[2], H[3], now + (delay if delay > 0.0 else 0.0), core, HAND_OVER)


@njit(cache=True, _nrt=False, **INNER)
def hand_over(H, S, Q, st, sf, core):
    """``Server._hand_over``: the first waiter is granted the core (an event now), unless the core
    was booked again meanwhile."""
    wq, head, tail, pending, ring = Q
    pending[core] = 0
    if head[core] == tail[core]:
        return
    if thread_free(S, core) > sf[F_NOW]:
        wake(H, S, Q, st, sf, core)
        return
    slot = wq[ring[core, 0] + head[core] % ring[core, 1]]
    head[core] += 1
    push(st, H[0], H[1], H[2], H[3], sf[F_NOW], slot, GRANTED)


@njit(cache=True, _nrt=False, **INNER)
def enqueue(H, S, Q, st, sf, SL, slot):
    """The slot queues for its job's core."""
    wq, head, tail, pending, ring = Q
    core = SL[1][slot]
    wq[ring[core, 0] + tail[core] % ring[core, 1]] = slot
    tail[core] += 1
    wake(H, S, Q, st, sf, core)


@njit(cache=True, _nrt=False, **INNER)
def defer(st, pend, slot):
    """The slot issues again, first, once its job's rows are planned (``run``'s pending queue)."""
    st[S_PEND_HEAD] = (st[S_PEND_HEAD] - 1) % pend.size
    pend[st[S_PEND_HEAD]] = slot
    st[S_PEND_N] += 1


@njit(cache=True, _nrt=False, **INNER)
def issue(H, S, Q, st, sf, SL, R, RB, slot):
    """``HostSlot.issue`` (rebuild slots: ``RebuildSlot.issue``, its gate first): the job's next
    host I/O; NEED_ROWS when the job's planned rows are used up (the slot is deferred)."""
    sl_job, sl_core, sl_t0, sl_row, sl_a, sl_now = SL
    rows_f, rows_i, ops_i, ops_f, job_next, job_end = R
    job = sl_job[slot]
    paced = slot >= st[S_RB_FIRST] and not st[S_BARRIER]
    if paced and RB[0][RB_ISSUED] >= RB[0][RB_SPAN]:
        return END  # the span is issued: this rebuild slot stops (before planning more of it)
    if job_next[job] >= job_end[job]:
        st[S_NEED_JOB] = job
        defer(st, RB[2], slot)
        return NEED_ROWS
    if paced and not rebuild_gate(H, st, sf, SL, RB, slot):
        return END
    row = job_next[job]
    job_next[job] = row + 1
    sl_row[slot] = row
    core, t0 = sl_core[slot], sl_t0[slot]
    if thread_free(S, core) > t0 or Q[1][core] != Q[2][core]:  # the job's thread is busy: queue for it
        if t0 > sf[F_NOW]:
            schedule(H, st, sf, t0, slot, ENQUEUE)
        else:
            enqueue(H, S, Q, st, sf, SL, slot)
        return END
    submit = rows_f[row, R_SUBMIT]
    S[3][core] += submit
    sl_now[slot] = t0
    sl_a[slot] = t0 + submit
    set_thread_free(S, core, t0 + submit)
    submitted(H, S, Q, st, sf, SL, R, RB, slot)
    return END


@njit(cache=True, _nrt=False, **INNER)
def rebuild_gate(H, st, sf, SL, RB, slot):
    """``RebuildSlot.issue``'s checks after the span's end: md's drain window, the engine's speed
    limit (wait until the bytes issued allow one more); True: issue a request."""
    rb = RB[0]  # the span's end was checked by ``issue``, before it planned more rows
    if not np.isnan(rb[RB_DRAIN]) and drain_wait(st, sf, RB, slot):
        return False
    allowed = rb[RB_ISSUED] / rb[RB_CAP]
    if allowed > SL[2][slot] + PACE_TOLERANCE_S:
        SL[2][slot] = allowed
        schedule(H, st, sf, allowed, slot, ISSUE)
        return False
    rb[RB_ISSUED] += rb[RB_STEP]
    return True


@njit(cache=True, _nrt=False, **INNER)
def drain_wait(st, sf, RB, slot):
    """``RebuildSlot.drain_wait``: md_do_sync's speed check every drain window; True while the
    slot waits for the requests in flight."""
    rb, waiters = RB[0], RB[1]
    if st[S_DRAINING] and rb[RB_ISSUED] > rb[RB_DONE]:
        waiters[st[S_NWAIT]] = slot
        st[S_NWAIT] += 1
        return True
    st[S_DRAINING] = 0
    if rb[RB_ISSUED] >= rb[RB_NEXT_CHECK]:
        rb[RB_NEXT_CHECK] = rb[RB_ISSUED] + rb[RB_DRAIN]
        now = sf[F_NOW]
        if now > 0 and rb[RB_DONE] / now > rb[RB_FLOOR] and rb[RB_ISSUED] > rb[RB_DONE]:
            st[S_DRAINING] = 1
            waiters[st[S_NWAIT]] = slot
            st[S_NWAIT] += 1
            return True
    return False


@njit(cache=True, _nrt=False, inline='always', **INNER)
def granted(H, S, Q, st, sf, SL, R, RB, slot):
    """The core is the slot's: its submission is booked now."""
    SL[5][slot] = sf[F_NOW]
    row = SL[3][slot]
    SL[4][slot] = book(S[0], S[1], S[2], S[3], SL[1][slot], sf[F_NOW], R[0][row, R_SUBMIT])
    submitted(H, S, Q, st, sf, SL, R, RB, slot)


@njit(cache=True, _nrt=False, inline='always', **INNER)
def submitted(H, S, Q, st, sf, SL, R, RB, slot):
    """With a spinlock to take, or gating reads (the engine visited again when they are done),
    wait until the submission reaches it (``HostSlot.submitted``)."""
    row = SL[3][slot]
    if (R[0][row, R_LOCK] or R[1][row, R_GATED]) and SL[4][slot] > sf[F_NOW]:
        schedule(H, st, sf, SL[4][slot], slot, LOCKED)
        return
    locked_any(H, S, Q, st, sf, SL, R, RB, slot)


@njit(cache=True, _nrt=False, inline='always', **INNER)
def locked_any(H, S, Q, st, sf, SL, R, RB, slot):
    """``locked``, or a foreground slot's ``BarrierSlot.locked`` under md RAID10's barrier."""
    if st[S_BARRIER] and slot < st[S_RB_FIRST]:
        barrier_locked(H, S, Q, st, sf, SL, R, RB, slot)
    else:
        locked(H, S, Q, st, sf, SL, R, slot)


@njit(cache=True, _nrt=False, inline='always', **INNER)
def locked(H, S, Q, st, sf, SL, R, slot):
    """``HostSlot.locked``: the spinlock (the core spins), the engine, the engine's device, DRAM,
    then the member I/Os (gated: the reads first)."""
    free, off, cnt, busy = S[0], S[1], S[2], S[3]
    rows_f, rows_i, ops_i, ops_f = R[0], R[1], R[2], R[3]
    row, core, a = SL[3][slot], SL[1][slot], SL[4][slot]
    c0 = st[S_CORES]
    hold = rows_f[row, R_LOCK]
    if hold:
        unlocked = book(free, off, cnt, busy, c0 + G_LOCK, a, hold)
        busy[core] += unlocked - a
        if unlocked > thread_free(S, core):
            set_thread_free(S, core, unlocked)
        a = unlocked
    if Q[1][core] != Q[2][core]:
        wake(H, S, Q, st, sf, core)
    gated = rows_i[row, R_GATED]
    pre, mid, ack = rows_f[row, R_PRE], rows_f[row, R_MID], rows_f[row, R_ACK]
    destage_s = 0.0
    if ack:  # a write-back write: acknowledged after its command (ahead of destage work); all its engine work destages
        a += ack
        destage_s, pre = pre + mid, 0.0
    elif not gated and mid:
        pre = pre + mid
    if pre:
        a = book(free, off, cnt, busy, c0 + G_ENGINE, a, pre)
    if rows_f[row, R_BW]:
        a = book(free, off, cnt, busy, c0 + G_BW, a, rows_f[row, R_BW])
    if rows_f[row, R_DOWN]:
        a = book(free, off, cnt, busy, c0 + G_DOWN, a, rows_f[row, R_DOWN])
    if rows_f[row, R_UP]:
        a = book(free, off, cnt, busy, c0 + G_UP, a, rows_f[row, R_UP])
    mem = rows_f[row, R_MEM]
    if mem > sf[F_LARGE_IO]:
        book(free, off, cnt, busy, c0 + G_MEMORY, SL[5][slot], mem)
    else:
        busy[c0 + G_MEMORY] += mem
    lo, hi = rows_i[row, R_LO], rows_i[row, R_HI]
    if ack:
        SL[4][slot] = destaged(S, st, sf, ops_i, ops_f, lo, hi, a, destage_s)
        schedule(H, st, sf, SL[4][slot], slot, DONE)
        return
    if gated:
        SL[4][slot] = member_phase(S, st, sf, ops_i, ops_f, lo, hi, PHASE0, a)
        schedule(H, st, sf, SL[4][slot], slot, READS_DONE)
        return
    if hi == lo + 1 and not ops_i[lo, O_WRITE]:
        d = ops_i[lo, O_DRIVE]
        sent = book(free, off, cnt, busy, group_of_drive(st, _TO_HOST, d), a, ops_f[lo, O_LINK])
        a = nand_pieces(free, off, cnt, busy, group_of_drive(st, _NAND, d), sent, ops_f[lo, O_DIE], ops_i[lo, O_PIECES],
                        FALSE, S[5]) + sf[F_RFIX]
    elif hi > lo:
        a = member_phase(S, st, sf, ops_i, ops_f, lo, hi, PHASE1, a)
    SL[4][slot] = a
    schedule(H, st, sf, a, slot, DONE)


@njit(cache=True, _nrt=False, inline='always', **INNER)
def reads_done(H, S, Q, st, sf, SL, R, slot):
    """The gating reads are done: the engine's second visit, then the writes."""
    row = SL[3][slot]
    a = sf[F_NOW]
    mid = R[0][row, R_MID]
    if mid:
        a = book(S[0], S[1], S[2], S[3], st[S_CORES] + G_ENGINE, a, mid)
    SL[4][slot] = member_phase(S, st, sf, R[2], R[3], R[1][row, R_LO], R[1][row, R_HI], PHASE1, a)
    schedule(H, st, sf, SL[4][slot], slot, DONE)


@njit(cache=True, _nrt=False, inline='always', **INNER)
def done(H, S, Q, st, sf, SL, R, REC, RB, slot):
    """``HostSlot.done``: the completion's CPU on the job's core, the count and the window's
    record, and the slot's next host I/O at once."""
    if slot >= st[S_RB_FIRST]:
        return rebuilt(H, S, Q, st, sf, SL, R, RB, slot)
    row, core = SL[3][slot], SL[1][slot]
    finish = book(S[0], S[1], S[2], S[3], core, SL[4][slot] + sf[F_WAKE], R[0][row, R_COMPLETE])
    if Q[1][core] != Q[2][core]:
        wake(H, S, Q, st, sf, core)
    st[S_COMPLETED] += 1
    if finish >= sf[F_WARM]:
        record(st, sf, REC, finish, finish - SL[2][slot], R[1][row, R_WRITE])
    SL[2][slot] = finish
    return issue(H, S, Q, st, sf, SL, R, RB, slot)


@njit(cache=True, _nrt=False, **INNER)
def record(st, sf, REC, finish, latency, write):
    """A completion in the window: its exact sample (completion time, latency, direction) while
    there is room, its latency in its direction's histogram and its time in the grid always."""
    rec_done, rec_lat, rec_w = REC[0], REC[1], REC[2]
    if not st[S_CAPPED]:
        n = st[S_RECORDED]
        rec_done[n], rec_lat[n], rec_w[n] = finish, latency, write
        st[S_RECORDED] = n + 1
    if finish > sf[F_END]:
        late_f, late_w = REC[5], REC[6]
        late_f[st[S_LATE_N], 0], late_f[st[S_LATE_N], 1], late_w[st[S_LATE_N]] = finish, latency, write
        st[S_LATE_N] += 1
        return
    count(sf, REC, finish, latency, write)


@njit(cache=True, _nrt=False, **INNER)
def count(sf, REC, finish, latency, write):
    """A completion in the window, into the histograms and the completion-time grid."""
    hist, grid = REC[3], REC[4]
    hdr.record(hist, write, latency)
    b = int((finish - sf[F_WARM]) / sf[F_GRID_S])
    while b >= grid.size:  # past the grid: each pair of bins becomes one of twice the width
        half = grid.size // 2
        for i in range(half):
            grid[i] = grid[2 * i] + grid[2 * i + 1]
        for i in range(half, grid.size):
            grid[i] = 0
        sf[F_GRID_S] *= 2.0
        b = int((finish - sf[F_WARM]) / sf[F_GRID_S])
    grid[b] += 1


@njit(cache=True, _nrt=False, **INNER)
def count_late(st, sf, REC):
    """The held-back completions the window now reaches, counted; the rest held back still."""
    late_f, late_w = REC[5], REC[6]
    kept = 0
    for i in range(st[S_LATE_N]):
        if late_f[i, 0] > sf[F_END]:
            late_f[kept, 0], late_f[kept, 1], late_w[kept] = late_f[i, 0], late_f[i, 1], late_w[i]
            kept += 1
        else:
            count(sf, REC, late_f[i, 0], late_f[i, 1], late_w[i])
    st[S_LATE_N] = kept


@njit(cache=True, _nrt=False, **INNER)
def rebuilt(H, S, Q, st, sf, SL, R, RB, slot):
    """``RebuildSlot.done``: the request's completion on the rebuild thread, its bytes counted
    (the span's end noted, and the run stopped there when it is the whole rebuild); a drained
    window lets every waiting request go again, then this one."""
    rb, waiters, pend = RB[0], RB[1], RB[2]
    row, core = SL[3][slot], SL[1][slot]
    finish = book(S[0], S[1], S[2], S[3], core, SL[4][slot], R[0][row, R_COMPLETE])
    if Q[1][core] != Q[2][core]:
        wake(H, S, Q, st, sf, core)
    rb[RB_DONE] += rb[RB_STEP]
    if finish >= sf[F_WARM]:
        rb[RB_WINDOW] += rb[RB_STEP]
    if rb[RB_DONE] >= rb[RB_SPAN]:
        rb[RB_FINISHED] = finish
        if st[S_UNTIL] and st[S_STOPPING] == 0:
            st[S_STOPPING] = 1
            push(st, H[0], H[1], H[2], H[3], sf[F_NOW], _NO_SLOT, STOP)
    SL[2][slot] = finish
    if st[S_BARRIER]:  # ``BatchRebuildSlot.done``: the last of the batch resumes the cycle
        st[S_LEFT] -= 1
        if st[S_LEFT] == 0:
            push(st, H[0], H[1], H[2], H[3], sf[F_NOW], _NO_SLOT, RESYNC)
        return END
    if st[S_DRAINING] and rb[RB_ISSUED] <= rb[RB_DONE]:  # the window has drained: all go again
        st[S_DRAINING] = 0
        for i in range(st[S_NWAIT]):  # queued in order behind anything deferred, this slot last
            w = waiters[i]
            if SL[2][w] < sf[F_NOW]:
                SL[2][w] = sf[F_NOW]
            pend[(st[S_PEND_HEAD] + st[S_PEND_N]) % pend.size] = w
            st[S_PEND_N] += 1
        st[S_NWAIT] = 0
        pend[(st[S_PEND_HEAD] + st[S_PEND_N]) % pend.size] = slot
        st[S_PEND_N] += 1
        return issue_pending(H, S, Q, st, sf, SL, R, RB)
    return issue(H, S, Q, st, sf, SL, R, RB, slot)


@njit(cache=True, _nrt=False, **INNER)
def issue_pending(H, S, Q, st, sf, SL, R, RB):
    """Issue the deferred slots in order; NEED_ROWS (the slot deferred again) if one's job needs
    rows."""
    pend = RB[2]
    while st[S_PEND_N] > 0:
        slot = pend[st[S_PEND_HEAD]]
        st[S_PEND_HEAD] = (st[S_PEND_HEAD] + 1) % pend.size
        st[S_PEND_N] -= 1
        if issue(H, S, Q, st, sf, SL, R, RB, slot) == NEED_ROWS:
            return NEED_ROWS
    return END


@njit(cache=True, _nrt=False)
def run(H, S, Q, st, sf, SL, R, REC, RB, busy_warm):
    """Process events in (time, sequence) order until the first at or after the window's end
    (END; or a whole rebuild's STOPPED), until a job needs its next planned rows (NEED_ROWS: plan
    them, then call again), or until the window's records are nearly full (NEED_RECORDS: grow
    them, then call again)."""
    if st[S_LATE_N]:
        count_late(st, sf, REC)
    if issue_pending(H, S, Q, st, sf, SL, R, RB) == NEED_ROWS:
        return NEED_ROWS
    ht = H[0]
    while st[S_HEAP_N] > 0:
        t = ht[0]
        if t >= sf[F_END]:
            return END
        if st[S_RECORDED] >= REC[0].size - 1 and not st[S_CAPPED]:
            return NEED_RECORDS
        slot, kind = H[2][0], H[3][0]
        pop(st, H[0], H[1], H[2], H[3])
        sf[F_NOW] = t
        if kind == STOPPED:
            sf[F_END] = t
            return END
        code = step(H, S, Q, st, sf, SL, R, REC, RB, busy_warm, slot, kind)
        if code != END:
            return code
    return END


@njit(cache=True, _nrt=False, inline='always', **INNER)
def step(H, S, Q, st, sf, SL, R, REC, RB, busy_warm, slot, kind):
    """One event's callback."""
    if kind == ISSUE:
        return issue(H, S, Q, st, sf, SL, R, RB, slot)
    if kind == DONE:
        return done(H, S, Q, st, sf, SL, R, REC, RB, slot)
    if kind == LOCKED:
        locked_any(H, S, Q, st, sf, SL, R, RB, slot)
    elif kind == READS_DONE:
        reads_done(H, S, Q, st, sf, SL, R, slot)
    elif kind == ENQUEUE:
        enqueue(H, S, Q, st, sf, SL, slot)
    elif kind == GRANTED:
        granted(H, S, Q, st, sf, SL, R, RB, slot)
    elif kind == HAND_OVER:
        hand_over(H, S, Q, st, sf, slot)
    elif kind == WARM:
        for g in range(busy_warm.size):
            busy_warm[g] = S[3][g]
        st[S_WARMED] = 1
    elif kind == THROUGH:
        through(H, S, Q, st, sf, SL, R, RB, slot)
    elif kind == PIECE_DONE:
        return piece_done(H, S, Q, st, sf, SL, R, REC, RB, slot)
    elif kind == RESYNC:
        return resync(H, S, Q, st, sf, SL, R, RB)
    elif kind == BUSY_START:  # busy_at's process starts: its timeout to the warm-up's end
        schedule(H, st, sf, sf[F_WARM], _NO_SLOT, WARM)
    elif kind == STOP and st[S_STOPPING] < 2:  # the first of the rebuild's end and the time limit
        st[S_STOPPING] = 2
        push(st, H[0], H[1], H[2], H[3], sf[F_NOW], _NO_SLOT, STOPPED)
    return END


@njit(cache=True, _nrt=False, **INNER)
def barrier_locked(H, S, Q, st, sf, SL, R, RB, slot):
    """``BarrierSlot.locked``: the host I/O's md requests (its chunk pieces) pass the barrier one
    after another, a share of the submit CPU apart, from the end of its submission."""
    bar, gaps = RB[3], RB[4]
    row, core = SL[3][slot], SL[1][slot]
    if Q[1][core] != Q[2][core]:
        wake(H, S, Q, st, sf, core)
    S[3][st[S_CORES] + G_MEMORY] += R[0][row, R_MEM]
    pieces = max(1, int(R[0][row, R_PIECES]))
    bar[slot, B_PIECES] = bar[slot, B_LEFT] = pieces
    bar[slot, B_PER] = max(1, (R[1][row, R_HI] - R[1][row, R_LO]) // pieces)
    gaps[slot] = R[0][row, R_SUBMIT] / pieces
    bar[slot, B_K] = 0
    schedule(H, st, sf, SL[4][slot], slot, THROUGH)


@njit(cache=True, _nrt=False, **INNER)
def through(H, S, Q, st, sf, SL, R, RB, slot):
    """``BarrierSlot.through``: one md request at ``wait_barrier`` -- it waits while the barrier is
    up; through, it counts as pending, takes resync_lock and issues its member I/Os."""
    bar, gate_wait = RB[3], RB[5]
    if st[S_UP]:
        gate_wait[(st[S_GW_HEAD] + st[S_GW_N]) % gate_wait.size] = slot
        st[S_GW_N] += 1
        return
    st[S_PENDING] += 1
    row, k, now = SL[3][slot], bar[slot, B_K], sf[F_NOW]
    pieces = bar[slot, B_PIECES]
    hold = R[0][row, R_LOCK]
    if hold:
        unlocked = book(S[0], S[1], S[2], S[3], st[S_CORES] + G_LOCK, now, hold / pieces)
        S[3][SL[1][slot]] += unlocked - now
        now = unlocked
    lo = R[1][row, R_LO] + k * bar[slot, B_PER]
    hi = R[1][row, R_HI] if k == pieces - 1 else lo + bar[slot, B_PER]
    finish = member_phase(S, st, sf, R[2], R[3], lo, hi, PHASE1, now) if hi > lo else now
    schedule(H, st, sf, finish, slot, PIECE_DONE)
    bar[slot, B_K] = k + 1
    if k + 1 < pieces:  # the next piece, once md has split and submitted this one
        push(st, H[0], H[1], H[2], H[3], sf[F_NOW] + RB[4][slot], slot, THROUGH)


@njit(cache=True, _nrt=False, **INNER)
def piece_done(H, S, Q, st, sf, SL, R, REC, RB, slot):
    """``BarrierSlot.piece_done``: no longer pending (the last one lets a raised barrier's drain
    end); the host I/O completes with its last piece."""
    st[S_PENDING] -= 1
    if st[S_PENDING] == 0 and st[S_DRAIN_ARMED]:
        st[S_DRAIN_ARMED] = 0
        push(st, H[0], H[1], H[2], H[3], sf[F_NOW], _NO_SLOT, RESYNC)
    RB[3][slot, B_LEFT] -= 1
    if RB[3][slot, B_LEFT] == 0:
        SL[4][slot] = sf[F_NOW]
        return done(H, S, Q, st, sf, SL, R, REC, RB, slot)
    return END


@njit(cache=True, _nrt=False, **INNER)
def resync(H, S, Q, st, sf, SL, R, RB):
    """``barrier.resync_cycle`` resumed where its generator waits (``S_RS_STATE``): the speed
    limit's sleep, the barrier raised and the normal I/O in flight drained, a batch of recovery
    requests issued and done, the barrier lowered and the waiting pieces let through; again."""
    rb = RB[0]
    state = st[S_RS_STATE]
    while True:
        if state == RS_TOP:
            if rb[RB_ISSUED] >= rb[RB_SPAN]:
                st[S_RS_STATE] = RS_DONE
                return END
            allowed = rb[RB_ISSUED] / rb[RB_CAP]
            if allowed > sf[F_NOW]:
                st[S_RS_STATE] = RS_PACED
                schedule(H, st, sf, allowed, _NO_SLOT, RESYNC)
                return END
            state = RS_PACED
        elif state == RS_PACED:
            st[S_UP] = 1
            if st[S_PENDING] > 0:
                st[S_DRAIN_ARMED] = 1
                st[S_RS_STATE] = RS_DRAINED
                return END
            state = RS_DRAINED
        elif state == RS_DRAINED:
            st[S_RS_STATE] = RS_BATCH
            return issue_batch(H, S, Q, st, sf, SL, R, RB)
        elif state == RS_BATCH:
            st[S_UP] = 0
            release(H, S, Q, st, sf, SL, R, RB)
            state = RS_TOP
        else:
            return END


@njit(cache=True, _nrt=False, **INNER)
def issue_batch(H, S, Q, st, sf, SL, R, RB):
    """A batch of recovery requests (``_batch_requests``: RESYNC_DEPTH, or one drain window's
    worth above md's floor), each counted issued and started now, in order."""
    rb, pend = RB[0], RB[2]
    left = int(np.ceil((rb[RB_SPAN] - rb[RB_ISSUED]) / rb[RB_STEP]))
    count = st[S_INFLIGHT]
    now = sf[F_NOW]
    if not np.isnan(rb[RB_DRAIN]) and now > 0 and rb[RB_DONE] / now > rb[RB_FLOOR]:
        count = max(1, int(rb[RB_DRAIN] // rb[RB_STEP]))
    count = min(count, left)
    st[S_LEFT] = count
    for i in range(count):
        slot = st[S_RB_FIRST] + i
        SL[2][slot] = now
        pend[(st[S_PEND_HEAD] + st[S_PEND_N]) % pend.size] = slot
        st[S_PEND_N] += 1
    rb[RB_ISSUED] += count * rb[RB_STEP]
    return issue_pending(H, S, Q, st, sf, SL, R, RB)


@njit(cache=True, _nrt=False, **INNER)
def release(H, S, Q, st, sf, SL, R, RB):
    """The barrier is down: every waiting piece goes through, in the order it came."""
    gate_wait = RB[5]
    n = st[S_GW_N]
    head = st[S_GW_HEAD]
    st[S_GW_N] = 0
    st[S_GW_HEAD] = (head + n) % gate_wait.size
    for i in range(n):
        through(H, S, Q, st, sf, SL, R, RB, gate_wait[(head + i) % gate_wait.size])
