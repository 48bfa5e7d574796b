"""md RAID10 recovery and host I/O taking turns (raid10.c's array-wide barrier,
``RebuildProtocol.excludes_host_io``): the gate's state, the foreground slot that waits at it for
each chunk piece of a host I/O, and the resync cycle that raises it, runs a batch of recovery
requests with the array to itself, and lowers it."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import simpy

from .rebuild import RebuildProgress, RebuildSlot
from .rows import JobQueue
from .servers import Server
from .slots import HostSlot, Run


@dataclass(slots=True)
class Gate:
    """raid10.c's barrier: ``up`` while a recovery batch runs (``raise_barrier``); ``pending``:
    md requests past ``wait_barrier`` and not done (``nr_pending``); ``waiting``: pieces that met
    the barrier up, resumed when it drops; ``drained``: fires when ``pending`` reaches 0 under a
    raised barrier; ``left``: requests of the batch not done, ``batch`` fires when none is."""

    up: bool = False
    pending: int = 0
    waiting: list[Callable[[], None]] = field(default_factory=list)
    drained: simpy.Event | None = None
    left: int = 0
    batch: simpy.Event | None = None


class BarrierSlot(HostSlot):
    """A foreground slot under md RAID10 recovery: after its submit CPU the host I/O's md
    requests (``raid10_make_request`` splits it at every chunk end) pass ``wait_barrier`` one
    after another, a share of the submit CPU apart; while the barrier is up a request waits for
    it to drop, and once through it counts as pending (``nr_pending``) until its member I/Os are
    done. The host I/O completes with its last request."""

    __slots__ = ("gate", "k", "pieces", "gap", "per", "left")

    def __init__(self, run: Run, queue: JobQueue, core: Server, gate: Gate):
        HostSlot.__init__(self, run, queue, core)
        self.gate = gate

    def locked(self, _event=None) -> None:
        row, core, a = self.row, self.core, self.a
        if core.waiters:
            core.wake(self.env)
        self.servers.memory.busy += row.memory_s
        self.pieces = self.left = max(1, int(row.pieces))
        self.per = max(1, (row.op_hi - row.op_lo) // self.pieces)
        self.gap = row.submit_s / self.pieces
        self.k = 0
        self.timeout(a - self.env.now).callbacks.append(self.through)

    def through(self, _event=None) -> None:
        gate = self.gate
        if gate.up:  # wait_barrier: sleep until the recovery batch is done
            gate.waiting.append(self.through)
            return
        gate.pending += 1
        row, k, now = self.row, self.k, self.env.now
        if row.lock_s:  # resync_lock, taken by wait_barrier for each piece (the core spins meanwhile)
            unlocked = self.servers.lock.book(now, row.lock_s / self.pieces)
            self.core.busy += unlocked - now
            now = unlocked
        lo = row.op_lo + k * self.per
        hi = row.op_hi if k == self.pieces - 1 else lo + self.per
        finish = self.servers.member_phase(self.ops, lo, hi, 1, now) if hi > lo else now
        self.timeout(finish - self.env.now).callbacks.append(self.piece_done)
        self.k = k + 1
        if self.k < self.pieces:  # the next piece, once md has split and submitted this one
            self.timeout(self.gap).callbacks.append(self.through)

    def piece_done(self, _event) -> None:
        gate = self.gate
        gate.pending -= 1
        if gate.pending == 0 and gate.drained is not None:
            drained, gate.drained = gate.drained, None
            drained.succeed()
        self.left -= 1
        if self.left == 0:
            self.a = self.env.now
            self.done(None)


class BatchRebuildSlot(RebuildSlot):
    """One recovery request of a barrier batch: issued by the resync cycle, not re-issued."""

    __slots__ = ("gate",)

    def __init__(self, run: Run, queue: JobQueue, progress: RebuildProgress, gate: Gate):
        RebuildSlot.__init__(self, run, queue, progress)
        self.gate = gate

    def issue(self, _event=None) -> None:
        self.progress.issued_bytes += self.progress.step_bytes
        self.t0 = self.env.now
        HostSlot.issue(self)

    def done(self, _event) -> None:
        self.rebuilt()
        self.gate.left -= 1
        if self.gate.left == 0:
            self.gate.batch.succeed()


def _batch_requests(progress: RebuildProgress, now: float, inflight: int) -> int:
    """Recovery requests in the next batch: ``inflight`` (RESYNC_DEPTH), or, once md_do_sync's
    speed is above ``speed_limit_min`` on this busy array, one drain window's worth (it waits for
    them all before the next window, as the batch does)."""
    if progress.drain_window_bytes is None or now <= 0 or progress.done_bytes / now <= progress.floor_bytes_per_s:
        return inflight
    return max(1, int(progress.drain_window_bytes // progress.step_bytes))


def resync_cycle(run: Run, queue: JobQueue, progress: RebuildProgress,
                 gate: Gate) -> Generator[simpy.Event, None, None]:
    """SimPy process: md_do_sync over raid10_sync_request, a batch at a time: raise the barrier
    (new normal I/O waits), wait for the normal I/O in flight to drain, run ``inflight`` recovery
    requests, lower the barrier (the waiting I/O goes through), and again at once -- unless md's
    speed limit makes it sleep."""
    env = run.env
    inflight = max(1, progress.requests_in_flight)
    while progress.issued_bytes < progress.span_bytes:
        allowed = progress.issued_bytes / progress.cap_bytes_per_s
        if allowed > env.now:
            yield env.timeout(allowed - env.now)
        gate.up = True
        if gate.pending > 0:
            gate.drained = env.event()
            yield gate.drained
        left = int(math.ceil((progress.span_bytes - progress.issued_bytes) / progress.step_bytes))
        gate.left = min(_batch_requests(progress, env.now, inflight), left)
        gate.batch = env.event()
        for _ in range(gate.left):
            BatchRebuildSlot(run, queue, progress, gate).issue()
        yield gate.batch
        gate.up = False
        waiting, gate.waiting = gate.waiting, []
        for through in waiting:
            through()
