"""The array's servers as the event mode books them: reservation FIFO servers, one set per array.

Defence of the design: a ``Server`` is not a SimPy ``Resource``. The ``Resource`` request/release
pattern costs ~10 us and three events per visit; a host I/O visits a dozen servers, which would
hold the event mode to ~10k host I/Os per wall second. A reservation server books a visit in one
comparison -- start = max(arrival, earliest free), finish = start + service -- so a host I/O
costs two SimPy events (its member I/Os' completion, then the next submission), not three per
visit. The price: stages after the first are booked when the I/O is submitted, in submission
order rather than arrival order -- exact at the saturated bottleneck, a small reordering elsewhere.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable
from functools import partial

import simpy

from ... import fabric
from ..system import ArraySystem

PER_DRIVE_KEYS = fabric.PER_DRIVE
"""Resource kinds with one server set per drive (``ArraySystem.resources``: the busiest drive is
reported)."""


def after(env: simpy.Environment, delay_s: float, callback: Callable[[simpy.Event], None]) -> None:
    """Call ``callback`` after ``delay_s`` of simulated time: a bare timeout, no process.

    ``Timeout`` schedules itself at once (ok, value None, normal priority: one ``env.schedule``),
    so the event order and ids are those of any other event scheduled at that moment. The hot
    paths write the same line inline with ``env.timeout`` bound once.
    """
    env.timeout(delay_s).callbacks.append(callback)


class Server:
    """``count`` FIFO servers, booked by reservation: start = max(arrival, earliest free),
    finish = start + service; tracks busy time. ``waiters``: slots queued for a job core (a
    thread does one thing at a time), woken in order when it frees (``wake``)."""

    __slots__ = ("free", "heap", "busy", "waiters", "wake_pending")

    def __init__(self, count: int):
        self.heap = [0.0] * count if count > 1 else None
        self.free = 0.0
        self.busy = 0.0
        self.waiters: deque = deque()
        self.wake_pending = False

    def book(self, arrival: float, service: float) -> float:
        """Book one visit of ``service`` seconds arriving at ``arrival``; the time it finishes."""
        return self.book_start(arrival, service) + service

    def book_start(self, arrival: float, service: float) -> float:
        """``book``, returning when the visit starts (a write's program: when the buffer takes it)."""
        self.busy += service
        if self.heap is None:
            start = arrival if arrival > self.free else self.free
            self.free = start + service
            return start
        first = self.heap[0]
        start = arrival if arrival > first else first
        heapq.heapreplace(self.heap, start + service)
        return start

    def wake(self, env: simpy.Environment) -> None:
        """Hand the (single) server to the next queued waiter once it is free: one wake-up event
        pending at a time."""
        if not self.waiters or self.wake_pending:
            return
        self.wake_pending = True
        env.timeout(max(0.0, self.free - env.now)).callbacks.append(partial(self._hand_over, env))  # ``after`` inline

    def _hand_over(self, env: simpy.Environment, _event=None) -> None:
        self.wake_pending = False
        if not self.waiters:
            return
        if self.free > env.now:  # booked again meanwhile: wait for that
            self.wake(env)
            return
        self.waiters.popleft().succeed()


def server_count(system: ArraySystem, kind: fabric.ResourceKind) -> int:
    """Servers of ``kind`` (per drive, for a per-drive kind): the fabric's, but the rebuild
    thread's, which run on the host CPUs the jobs leave them (``ArraySystem.rebuild_thread_cpus``,
    as the fluid mode's ``FioLoad.servers``; until 2026-12-01 the event mode gave xiRAID's 4
    reconstruction threads 4 CPUs beside 72 polling jobs on 72: 6.2 GB/s and 453K host IOPS,
    the fluid mode 1.58 GB/s and 4.50M)."""
    if kind.key == "rebuild_thread":
        return int(system.rebuild_thread_cpus())
    return int(kind.servers(system.facts))


def array_servers(system: ArraySystem, rebuilding: bool) -> dict[str, list[Server]]:
    """The servers of every resource kind the fabric declares (``nvsim.fabric.KINDS``), by its key:
    a kind of threads one single server per thread (the job CPUs), a per-drive kind one pool per
    drive, any other one pool; a kind only a rebuild loads (the rebuild thread) while rebuilding.
    Kinds the array lacks get theirs too, never booked: the hot path needs no test for them."""
    drives = system.array.drives
    out: dict[str, list[Server]] = {}
    for kind in fabric.KINDS:
        if not kind.reported and not rebuilding:
            continue
        count = server_count(system, kind)
        if kind.threads:
            out[kind.key] = [Server(1) for _ in range(count)]
        else:
            out[kind.key] = [Server(count) for _ in range(drives if kind.per_drive else 1)]
    return out



class ArrayServers:
    """The servers of one array (``array_servers``) under their names, and the drives' fixed
    times, for the hot path; ``by_key`` for the measurement."""

    __slots__ = ("by_key", "cores", "lock", "engine", "device_bw", "device_down", "device_up", "memory",
                 "nand", "link_up", "link_down", "rebuild_thread", "read_fixed_s", "write_fixed_s", "host_wake_s",
                 "destage_slack_s", "destaged_s")

    def __init__(self, system: ArraySystem, rebuilding: bool = False, destage_slack_s: float = math.inf):
        """``destage_slack_s``: how far a write-back write's destage may end past its acknowledgement
        (``destaged``; inf: the cache never fills)."""
        by_key = self.by_key = array_servers(system, rebuilding)
        self.cores, self.nand, self.link_up, self.link_down = (by_key[k] for k in ("cores", "nand", "link_up", "link_down"))
        self.lock, self.engine, self.memory = by_key["lock"][0], by_key["engine"][0], by_key["memory"][0]
        self.device_bw, self.device_down = by_key["device_bw"][0], by_key["device_down"][0]
        self.device_up = by_key["device_up"][0]
        self.rebuild_thread = by_key["rebuild_thread"][0] if rebuilding else None
        self.read_fixed_s, self.write_fixed_s = system.drive.read_fixed_s, system.drive.write_fixed_s
        self.host_wake_s = system.host_io.wake_s  # a sleeping job's wake-up after the device (nvsim.host_io)
        self.destage_slack_s = destage_slack_s
        self.destaged_s = 0.0  # the latest end of the destage's queues found so far

    def busy_s(self) -> dict[str, list[float]]:
        """Busy seconds so far of every server, by resource key."""
        return {key: [s.busy for s in servers] for key, servers in self.by_key.items()}

    def destaged(self, ops, lo: int, hi: int, acked: float, destage_s: float) -> float:
        """A write-back write acknowledged at ``acked``: its destage (the engine's ``destage_s``,
        then all its member I/Os at once) booked then; the time the host has it back: ``acked``,
        or once the destage's queues (the engine's, its drives' links and NAND: the latest a
        destage has found them to end, ``destaged_s``) are within ``destage_slack_s`` of now (the
        cache full: room frees at the destage's pace)."""
        e = self.engine.book(acked, destage_s) if destage_s > 0 else acked
        self.member_phase(ops, lo, hi, 0, e)
        self.member_phase(ops, lo, hi, 1, e)
        op_drive, op_w = ops[0], ops[1]
        backlog = e  # the destage's queues: when its engine work ends, when its drives' links and NAND next free
        for k in range(lo, hi):
            d = op_drive[k]
            pool = self.nand[d]
            link = (self.link_down if op_w[k] else self.link_up)[d].free
            backlog = max(backlog, link, pool.free if pool.heap is None else pool.heap[0])
        if backlog > self.destaged_s:
            self.destaged_s = backlog
        held = self.destaged_s - self.destage_slack_s
        return held if held > acked else acked

    def member_phase(self, ops, lo: int, hi: int, phase: int, arrival: float) -> float:
        """Book one phase of a host I/O's member I/Os ``lo:hi`` (``rows.MemberOps``); the time the
        last one is done.

        Single-server links are booked at the arrival (now), the multi-unit NAND pool after: the
        pool tolerates bookings ahead of time, a single server would idle in the gap.
        """
        op_drive, op_w, op_phase, op_die, op_link, op_pieces = ops
        link_down, link_up, nand = self.link_down, self.link_up, self.nand
        rfix, wfix = self.read_fixed_s, self.write_fixed_s
        finish = arrival
        for k in range(lo, hi):
            if op_phase[k] != phase:
                continue
            d, pieces = op_drive[k], op_pieces[k]
            piece = op_die[k] / pieces
            if op_w[k]:
                sent = link_down[d].book(arrival, op_link[k])
                start = max(nand[d].book_start(sent, piece) for _ in range(pieces))
                t = sent + wfix
                if start > t:  # no room in the write buffer until a unit takes it
                    t = start
            else:
                sent = link_up[d].book(arrival, op_link[k])
                t = max(nand[d].book(sent, piece) for _ in range(pieces)) + rfix
            if t > finish:
                finish = t
        return finish
