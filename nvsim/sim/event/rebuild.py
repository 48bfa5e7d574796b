"""A rebuild beside the foreground: the engine's rebuild requests run as slots of their own on a
rebuild thread (md's resync thread, a card's rebuild driver), gated by the engine's throttle; the
run counts the bytes they rebuild. A parity scrub runs the same way with the engine's ``check``
protocol (every member read, nothing written): the bytes counted are each member's bytes checked."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import simpy

from ...engines.rebuild_protocol import RebuildProtocol
from ..mixed import rebuild_plan
from ..system import ArraySystem, HostIoBatch
from .rows import Demand, JobQueue, MemberOps, demand_rows, member_ops
from .slots import HostSlot, Run

REQUESTS_PER_BATCH = 64
"""Rebuild requests planned at a time, in member order."""
PACE_TOLERANCE_S = 1e-12
"""A request this close to its paced time is issued at once."""


@dataclass(slots=True)
class RebuildProgress:
    """The rebuild's plan (``mixed.rebuild_plan``: request size, requests in flight, the engine's
    throttle, the span and a guess of its rate) and its progress: the member offset planned next,
    bytes issued, done, and done in the measured window, when the span was done. ``stop``: the
    event a run to the end of the rebuild waits for (None: the run has a fixed window). md's
    drain-every-window (``floor_bytes_per_s``, ``drain_window_bytes``; None: not this engine):
    where the next speed check falls, whether the resync is waiting for its requests in flight to
    complete, and the slots waiting with it."""

    step_bytes: int
    inflight: float
    cap_bytes_per_s: float
    span_bytes: float
    rate_guess: float
    floor_bytes_per_s: float | None = None
    drain_window_bytes: float | None = None
    next_check_bytes: float = 0.0
    draining: bool = False
    waiters: list = field(default_factory=list)
    next_offset: int = 0
    issued_bytes: float = 0.0
    done_bytes: float = 0.0
    window_bytes: float = 0.0
    finished_s: float | None = None
    stop: simpy.Event | None = None
    protocol: RebuildProtocol | None = None  # what the requests are: the array's recovery, or a check

    @classmethod
    def of(cls, system: ArraySystem, member: int, protocol: RebuildProtocol | None = None) -> RebuildProgress:
        return cls(**rebuild_plan(system, member, protocol))

    @property
    def requests_in_flight(self) -> int:
        return int(round(self.inflight))


def rebuild_batch(system: ArraySystem, member: int, progress: RebuildProgress) -> HostIoBatch:
    """The rebuild's next ``REQUESTS_PER_BATCH`` requests, in member order, as a batch."""
    step, first = progress.step_bytes, progress.next_offset
    progress.next_offset = first + REQUESTS_PER_BATCH * step
    return system.rebuild_batch(member, first + np.arange(REQUESTS_PER_BATCH, dtype=np.int64) * step, step,
                                progress.protocol)


def rebuild_requests(system: ArraySystem, member: int, progress: RebuildProgress) -> tuple[list[Demand], MemberOps]:
    """The rebuild's next ``REQUESTS_PER_BATCH`` requests, in member order, as the slots read them."""
    b = rebuild_batch(system, member, progress)
    return demand_rows(b), member_ops(b)


class RebuildSlot(HostSlot):
    """One of the rebuild's requests in flight, on the rebuild thread: the engine's throttle (md's
    speed limit, a card's paced rebuild priority: ``mixed.rebuild_cap``) gates each request, the
    span's end stops it, completions count rebuilt bytes (not host I/Os)."""

    __slots__ = ("progress",)

    def __init__(self, run: Run, queue: JobQueue, progress: RebuildProgress):
        HostSlot.__init__(self, run, queue, run.servers.rebuild_thread)
        self.progress = progress

    def issue(self, _event=None) -> None:
        p = self.progress
        if p.issued_bytes >= p.span_bytes:
            return
        if p.drain_window_bytes is not None and self.drain_wait():
            return
        allowed = p.issued_bytes / p.cap_bytes_per_s
        if allowed > self.t0 + PACE_TOLERANCE_S:
            self.t0 = allowed
            self.timeout(allowed - self.env.now).callbacks.append(self.issue)
            return
        p.issued_bytes += p.step_bytes
        HostSlot.issue(self)

    def rebuilt(self) -> float:
        """The request's completion on the rebuild thread: count its bytes, note the span's end
        (and stop there when the run is the whole rebuild); the time it finished."""
        core, p = self.core, self.progress
        finish = core.book(self.a, self.row.complete_s)
        if core.waiters:
            core.wake(self.env)
        p.done_bytes += p.step_bytes
        if finish >= self.run.warm_s:
            p.window_bytes += p.step_bytes
        if p.done_bytes >= p.span_bytes:
            p.finished_s = finish
            if p.stop is not None and not p.stop.triggered:
                p.stop.succeed()
        return finish

    def drain_wait(self) -> bool:
        """md_do_sync's check, every ``drain_window_bytes`` of progress: when the resync's speed so
        far is above ``speed_limit_min`` it waits until every request in flight has completed
        (this slot joins the waiters); True while it waits."""
        p = self.progress
        if p.draining and p.issued_bytes > p.done_bytes:
            p.waiters.append(self)
            return True
        p.draining = False
        if p.issued_bytes >= p.next_check_bytes:
            p.next_check_bytes = p.issued_bytes + p.drain_window_bytes
            now = self.env.now
            if now > 0 and p.done_bytes / now > p.floor_bytes_per_s and p.issued_bytes > p.done_bytes:
                p.draining = True
                p.waiters.append(self)
                return True
        return False

    def done(self, _event) -> None:
        self.t0 = self.rebuilt()
        p = self.progress
        if p.draining and p.issued_bytes <= p.done_bytes:  # the window has drained: all go again
            p.draining = False
            waiting, p.waiters = p.waiters, []
            for slot in waiting:
                slot.t0 = max(slot.t0, self.env.now)
                slot.issue()
        self.issue()
