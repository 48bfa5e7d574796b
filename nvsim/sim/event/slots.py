"""The host I/O slots: each of a job's ``iodepth`` I/Os in flight, as a chain of SimPy event
callbacks over the run's shared state (``Run``).

This is the hot path (every host I/O passes ``issue``, ``locked`` and ``done``): the methods bind
what they read to locals, schedule with the run's bound ``env.timeout`` (``servers.after``
inline), and inline the commonest booking (one member read).
"""

from __future__ import annotations

from heapq import heapreplace

import simpy

from .rows import JobQueue
from .servers import ArrayServers, Server

LARGE_IO_S = 1e-6
"""DRAM time above which an I/O is booked on the DRAM queue (>= ~64 KiB); below, a few ns of DRAM
never queue: the time is counted, not booked."""


class Run:
    """One event-mode run's shared state: the SimPy environment (``timeout`` bound once), the
    array's servers, when the measurement starts (``warm_s``), and what the slots count: host
    I/Os completed, and the completion time, latency and direction of each measured one."""

    __slots__ = ("env", "timeout", "servers", "warm_s", "completed", "done_at", "latency", "writes")

    def __init__(self, env: simpy.Environment, servers: ArrayServers, warm_s: float):
        self.env, self.timeout, self.servers, self.warm_s = env, env.timeout, servers, warm_s
        self.completed = 0
        self.done_at: list[float] = []
        self.latency: list[float] = []
        self.writes: list[bool] = []


class HostSlot:
    """One of a job's ``iodepth`` I/O slots, as a chain of SimPy event callbacks.

    issue -> (queue for the job's core) -> submit CPU -> (wait to reach the spinlock, or gated the engine) -> lock,
    engine, device, member reads -> (wait for gating reads) -> engine, member writes -> wait
    for the last member -> completion CPU -> issue the next at once. A generator process per
    slot does the same with twice the interpreter work per event.
    """

    __slots__ = ("run", "env", "timeout", "servers", "queue", "core", "t0", "row", "ops", "now", "a")

    def __init__(self, run: Run, queue: JobQueue, core: Server):
        self.run, self.env, self.timeout, self.servers = run, run.env, run.timeout, run.servers
        self.queue, self.core = queue, core
        self.t0 = 0.0  # when the slot's previous I/O completed: the next is submitted then

    def issue(self, _event=None) -> None:
        q = self.queue
        if q.next >= q.size:
            q.refill()
        self.row = row = q.rows[q.next]
        self.ops = q.ops
        q.next += 1
        core, t0 = self.core, self.t0
        if core.free > t0 or core.waiters:  # the job's thread is busy: queue for it
            now = self.env.now
            if t0 > now:
                self.timeout(t0 - now).callbacks.append(self.enqueue)
            else:
                self.enqueue()
            return
        submit = row.submit_s
        core.busy += submit  # the core is free at t0: start at once
        self.now = t0
        self.a = core.free = t0 + submit
        if row.lock_s or row.gated:
            self.submitted()
        else:
            self.locked()

    def enqueue(self, _event=None) -> None:
        granted = self.env.event()
        granted.callbacks.append(self.granted)
        self.core.waiters.append(granted)
        self.core.wake(self.env)

    def granted(self, _event) -> None:
        self.now = self.env.now
        self.a = self.core.book(self.now, self.row.submit_s)  # a completion may have taken the core now
        self.submitted()

    def submitted(self, _event=None) -> None:
        # book the spinlock, or the engine a gated write visits again at its reads' end (booked
        # then, at that moment), when submission reaches it: the engine is one FIFO server booked
        # by reservation, and a visit booked ahead of its arrival holds it from a later-booked one
        # that arrives first (a GPU 7% busy kept gated writes 10 us each)
        if self.row.lock_s or self.row.gated:
            now = self.env.now
            if self.a > now:
                self.timeout(self.a - now).callbacks.append(self.locked)
                return
        self.locked()

    def locked(self, _event=None) -> None:
        _submit, _complete, hold, pre, mid, bw, down, up, mem, _is_write, lo, hi, gated, _pieces, ack = self.row
        core, a, ops, servers = self.core, self.a, self.ops, self.servers
        if hold:
            unlocked = servers.lock.book(a, hold)
            core.busy += unlocked - a  # spinning, then holding
            if unlocked > core.free:
                core.free = unlocked
            a = unlocked
        if core.waiters:
            core.wake(self.env)
        destage_s = 0.0
        if ack:  # a write-back write: acknowledged after its command (ahead of destage work); all its engine work destages
            a += ack
            destage_s, pre = pre + mid, 0.0
        elif not gated and mid:  # one visit to the engine does all its work (gated: HostIoBatch.reads_gate_writes)
            pre = pre + mid
        if pre:
            a = servers.engine.book(a, pre)
        if bw:
            a = servers.device_bw.book(a, bw)
        if down:
            a = servers.device_down.book(a, down)
        if up:
            a = servers.device_up.book(a, up)
        if mem > LARGE_IO_S:
            servers.memory.book(self.now, mem)
        else:  # a few ns of DRAM per small I/O never queues: count it, skip the booking
            servers.memory.busy += mem
        if ack:
            self.a = servers.destaged(ops, lo, hi, a, destage_s)
            self.timeout(self.a - self.env.now).callbacks.append(self.done)
            return
        if gated:  # wait for the reads, then the engine's second visit and the writes
            self.a = servers.member_phase(ops, lo, hi, 0, a)
            self.timeout(self.a - self.env.now).callbacks.append(self.reads_done)
            return
        if hi == lo + 1 and not ops.is_write[lo] and ops.pieces[lo] == 1:  # one small member read, inlined
            d = ops.drive[lo]
            link = servers.link_up[d]
            service = ops.link_s[lo]
            link.busy += service
            start = a if a > link.free else link.free
            a = link.free = start + service
            pool = servers.nand[d]
            service = ops.die_s[lo]
            if pool.heap is None:  # a single NAND unit
                a = pool.book(a, service)
            else:
                pool.busy += service
                first = pool.heap[0]
                start = a if a > first else first
                a = start + service
                heapreplace(pool.heap, a)
            a += servers.read_fixed_s
        elif hi > lo:
            a = servers.member_phase(ops, lo, hi, 1, a)
        self.a = a
        self.timeout(a - self.env.now).callbacks.append(self.done)

    def reads_done(self, _event) -> None:
        row, servers = self.row, self.servers
        a = self.env.now
        if row.mid_s:
            a = servers.engine.book(a, row.mid_s)
        self.a = servers.member_phase(self.ops, row.op_lo, row.op_hi, 1, a)
        self.timeout(self.a - self.env.now).callbacks.append(self.done)

    def done(self, _event) -> None:
        # completion on the job's core; the thread then submits the next I/O straight away
        # (booked at ``finish``: a look-ahead of one completion's CPU time)
        core, row, run = self.core, self.row, self.run
        finish = core.book(self.a + self.servers.host_wake_s, row.complete_s)
        if core.waiters:
            core.wake(self.env)
        run.completed += 1
        if finish >= run.warm_s:
            run.done_at.append(finish)
            run.latency.append(finish - self.t0)
            run.writes.append(row.is_write)
        self.t0 = finish
        self.issue()
