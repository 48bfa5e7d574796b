"""What each host I/O asks of the array, as the event mode's slots read it: one ``Demand`` row per
host I/O and the ``MemberOps`` columns of its batch, planned a batch at a time per job.

Rows are tuples (``NamedTuple``) built from the batch's columns at C speed: the slots unpack them
whole or read a field or two, a few ns more than a plain tuple per host I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from itertools import repeat
from typing import NamedTuple

import numpy as np

from ..system import ArraySystem, HostIoBatch, strips_spanned
from ..workload import HostStream, clone_phase_bytes, named_rng

SAMPLED_BATCHES = 8
"""Batches kept for the write-amplification estimate (``fluid.write_amplification``)."""
FIRST_BATCHES_TOGETHER = 512
"""Jobs whose first batches are planned and priced as one at most (``ArraySystem.batches``): each
job's batch cost about 1.5 ms of Python alone, the run's time with tens of thousands of jobs."""


class Demand(NamedTuple):
    """One host I/O's service demands (seconds) and where its member I/Os are in ``MemberOps``."""

    submit_s: float  # CPU of the submission, on the job's core
    complete_s: float  # CPU of the completion, on the job's core
    lock_s: float  # spinlock held (0: none taken)
    pre_s: float  # engine work before the member I/Os (all of it unless ``gated``)
    mid_s: float  # engine work between gating reads and the writes
    device_bw_s: float
    device_down_s: float
    device_up_s: float
    memory_s: float
    is_write: bool
    op_lo: int  # member I/Os are op_lo:op_hi of the batch's MemberOps
    op_hi: int
    gated: bool  # phase-0 reads must finish before the rest (HostIoBatch.reads_gate_writes)
    pieces: float  # md requests (chunks spanned) it splits into under md RAID10's barrier; 0: not split
    ack_s: float = 0.0  # engine work before a write-back cache acknowledges it (``HostIoBatch.ack_s``); 0: none


class MemberOps(NamedTuple):
    """The member I/Os of one batch, as columns (lists: the hot path indexes them one by one)."""

    drive: list[int]
    is_write: list[bool]
    phase: list[int]
    die_s: list[float]
    link_s: list[float]
    pieces: list[int]  # NAND units each occupies at once (``DriveTiming.pieces_of``)


def demand_rows(b: HostIoBatch, pieces: list[float] | None = None) -> list[Demand]:
    """The batch's host I/Os as rows; ``pieces`` as ``Demand.pieces`` (0 without)."""
    starts = b.op_start.tolist()
    columns = zip(b.submit_s.tolist(), b.complete_s.tolist(), b.lock_s.tolist(), b.pre_s.tolist(),
                  b.mid_s.tolist(), b.device_bw_s.tolist(), b.device_down_s.tolist(), b.device_up_s.tolist(),
                  b.memory_s.tolist(), b.is_write.tolist(), starts[:-1], starts[1:], b.reads_gate_writes().tolist(),
                  repeat(0.0) if pieces is None else pieces, repeat(0.0) if b.ack_s is None else b.ack_s.tolist())
    return list(map(tuple.__new__, repeat(Demand), columns))  # Demand(*row) without a call per row


def member_ops(b: HostIoBatch) -> MemberOps:
    return MemberOps(b.op_drive.tolist(), b.op_is_write.tolist(), b.op_phase.tolist(), b.op_die_s.tolist(),
                     b.op_link_s.tolist(), b.op_pieces.tolist())


class JobQueue:
    """One job's planned host I/Os: the current batch's rows and member I/Os, the next row to
    issue, and how to plan the next batch (``plan``) once it is used up."""

    __slots__ = ("rows", "next", "size", "ops", "plan")

    def __init__(self, plan: Callable[[], tuple[list[Demand], MemberOps]]):
        self.rows: list[Demand] = []
        self.next = 0
        self.size = 0
        self.ops: MemberOps | None = None
        self.plan = plan

    def refill(self) -> None:
        self.rows, self.ops = self.plan()
        self.next, self.size = 0, len(self.rows)


class HostJobs:
    """The fio jobs' host I/Os, planned ``batch_ios`` at a time per job from its stream, NAND
    service times drawn per batch; the first batches are kept (``sampled``) for the write
    amplification. ``barrier``: each row counts the chunks it spans (``Demand.pieces``)."""

    def __init__(self, system: ArraySystem, seed: int, batch_ios: int, barrier: bool,
                 sync_update: tuple[float, float] = (0.0, 0.0), acknowledged: bool = True):
        """``sync_update``: (share of writes that wait for a synchronous metadata update, seconds
        each holds the engine's thread), from the write rate fed back (``sync_update_of``);
        ``acknowledged``: False, a write-back cache's writes wait for their member I/Os as
        write-through ones do (``fluid.destage_slack_s`` None: the host saturates the destage alone)."""
        w = system.workload
        self.system, self.seed, self.batch_ios, self.barrier = system, seed, batch_ios, barrier
        self.sync_update, self.acknowledged = sync_update, acknowledged
        period = 0 if system.geometry is None else system.geometry.stripe_data_bytes
        self.streams = [HostStream.for_job(w, j, system.device_bytes, seed, clone_phase_bytes(w, j, period))
                        for j in range(w.numjobs)]
        self.sampled: list[HostIoBatch] = []
        self.ready: dict[int, tuple[HostIoBatch, list[float] | None]] = {}  # batches planned before asked (``_planned``)

    def batch(self, job: int) -> tuple[HostIoBatch, list[float] | None]:
        """The next batch of ``job``'s host I/Os, and each one's chunk pieces under a barrier."""
        ready = self.ready.pop(job, None)
        b, pieces = ready if ready is not None else self._planned(job)
        if len(self.sampled) < SAMPLED_BATCHES:
            self.sampled.append(b)
        return b, pieces

    def _planned(self, job: int) -> tuple[HostIoBatch, list[float] | None]:
        """``job``'s next batch; with a first batch, where the system prices batches together, the
        first batches of the jobs after it (``FIRST_BATCHES_TOGETHER``), kept in ``ready`` until
        asked: every job asks for its first at time 0, and each batch's numbers are its own (its
        job's named streams), whenever and with whichever others it is priced."""
        jobs = self._first_batches_from(job) if self.system.batches_together() else [job]
        drawn = [self._drawn(j) for j in jobs]
        offsets, is_write, rngs = ([d[i] for d in drawn] for i in range(3))
        priced = self.system.batches(jobs, offsets, is_write, rngs) if len(jobs) > 1 \
            else [self.system.batch(job, offsets[0], is_write[0], rng=rngs[0])]
        bs, strip = self.system.workload.bs, self.system.array.strip_bytes
        for j, b, (o, _, _, made) in zip(jobs, priced, drawn):
            pieces = strips_spanned(o, bs, strip).tolist() if self.barrier else None
            if b.ack_s is not None and not self.acknowledged:
                b = replace(b, ack_s=None)
            self.ready[j] = (self.with_sync_updates(b, j, made), pieces)
        return self.ready.pop(job)

    def _first_batches_from(self, job: int) -> list[int]:
        """``job``, and the jobs after it yet to plan their first batch (none if ``job`` has planned
        its own), at most ``FIRST_BATCHES_TOGETHER`` in all."""
        streams = self.streams
        if streams[job].batches_made:
            return [job]
        end = min(len(streams), job + FIRST_BATCHES_TOGETHER)
        return [job] + [j for j in range(job + 1, end) if not streams[j].batches_made]

    def _drawn(self, job: int) -> tuple[np.ndarray, np.ndarray, np.random.Generator, int]:
        """``job``'s next host I/Os (offsets, directions), the generator of their NAND times, and the
        batches its stream has made with them."""
        stream = self.streams[job]
        offsets, is_write = stream.next_batch(self.batch_ios)
        made = stream.batches_made
        return offsets, is_write, named_rng(self.seed, "nand service times", job, made), made

    def with_sync_updates(self, b: HostIoBatch, job: int, batch: int) -> HostIoBatch:
        """``b`` with the writes that set a clean bitmap bit (each with the fed-back share, drawn
        from a named stream) holding the engine's thread for one update before their own work."""
        share, update_s = self.sync_update
        if share <= 0 or not b.is_write.any():
            return b
        hit = b.is_write & (named_rng(self.seed, "bitmap updates", job, batch).random(len(b)) < share)
        return replace(b, pre_s=b.pre_s + np.where(hit, update_s, 0.0), _totals=None)

    def plan(self, job: int) -> tuple[list[Demand], MemberOps]:
        """The next batch of ``job``'s host I/Os, as the SimPy slots read it."""
        b, pieces = self.batch(job)
        return demand_rows(b, pieces), member_ops(b)

    def queues(self) -> list[JobQueue]:
        return [JobQueue(partial(self.plan, job)) for job in range(len(self.streams))]
