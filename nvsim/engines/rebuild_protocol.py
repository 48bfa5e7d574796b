"""The one rebuild protocol every engine implements (issue 38): what a rebuild request reads,
computes (its parity work, and where) and writes, how many requests the engine keeps in flight,
how it is paced against host I/O, and which resources it competes for.

An engine states it (``Engine.rebuild_protocol``: md, VROC, a hardware card, a GPU card, lockless
CPU RAID, each as its documentation says); the solvers (``nvsim.sim.mixed``), the event mode
(``nvsim.sim.event``), the fault timeline (``nvsim.rebuild``) and the plan's bounds read only this
record, and the demand layer prices its requests (``nvsim.sim.demand.rebuild_batch``: the member
I/Os the protocol's ``reads`` and ``writes`` name, the costs of the engine's ``rebuild_work``).
A degraded host read runs the same reconstruction (``parity_on``) through the engine's ``work``;
the record's ``degraded`` part (``DegradedPath``) says what a degraded read and a degraded write
read, compute and write, and where, and its ``reconstructed_reads`` is the one place the engines'
``work`` finds which host reads reconstruct.

``operation``: ``recovery`` rebuilds a replaced member (reads what reconstructs it, writes it);
``check`` is a parity scrub (md's ``check`` sync action, a card's consistency check): every member
of each row is read and the parity computed, nothing written, paced like a recovery.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..stripe.planner import Mode

Reads = Literal["survivors", "one copy", "every member"]
Operation = Literal["recovery", "check"]


@dataclass(frozen=True)
class RebuildThrottle:
    """What an engine's throttle does to its rebuild (how it is paced against host I/O):

    * ``limit_bytes_per_s``: a rate it never passes (md's ``speed_limit_max``: above it md sleeps);
    * ``share``: a pace, that share of the busy time of the drive it loads most (a vendor's rebuild
      priority, like a RAID card's "rebuild rate" percentage);
    * ``floor_bytes_per_s`` and ``window_bytes``: md_do_sync on a busy array -- below the floor
      (``speed_limit_min``) it never waits; above it, every ``window_bytes`` of progress it waits
      until its requests in flight have all completed before issuing more;
    * ``alone_share``: a rate, that share of the rate the rebuild reaches with the array to itself
      (its maximum rate: xiRAID's ``recon_prio``), idle or loaded; under host I/O its requests in
      flight also wait in the queues they share with the host's, so it may run below that;
    * none of them: the rebuild keeps its requests in flight and takes what the queues give it.
    """

    limit_bytes_per_s: float | None = None
    share: float | None = None
    floor_bytes_per_s: float | None = None
    window_bytes: float | None = None
    paced_over: str = "drives"  # the stations the share is of: "drives", or "all" (a card's own server too)
    alone_share: float | None = None
    why: str = ""

    @property
    def paced(self) -> bool:
        return self.share is not None

    @property
    def drains(self) -> bool:
        """Whether the rebuild waits for its requests in flight every ``window_bytes`` above its floor."""
        return self.window_bytes is not None

    @property
    def kind(self) -> str:
        """The pacing in a word: a rate limit, a paced share, md's throttle, a share of its maximum, or none."""
        if self.alone_share is not None:
            return "share of its maximum rate"
        if self.paced:
            return "paced share"
        if self.drains:
            return "md throttle (speed_limit_min/max)"
        return "rate limit" if self.limit_bytes_per_s is not None else "none"


@dataclass(frozen=True)
class DegradedPath:
    """Host I/O with a member missing, as the engine runs it (the planner, ``plan_ios(...,
    failed_members)``, names the member I/Os; the engine's ``work`` prices them):

    * ``read_reads``: what a read of the missing member's bytes reads instead (the row's survivors,
      or a mirror's surviving copy); ``read_parity_on``: where it is reconstructed ("none" for a copy);
    * ``read_through``: the path every read takes while degraded (md: a stripe_head through raid5d);
    * ``write_rule``: what a write does (md's degraded read-modify-write / reconstruct-write: the
      missing member's blocks are not written, the parity carries them); ``write_parity_on``: where.
    """

    read_reads: str
    read_parity_on: str
    read_through: str
    write_rule: str
    write_parity_on: str

    @staticmethod
    def reconstructed_reads(mode: np.ndarray, is_write: np.ndarray) -> np.ndarray:
        """Which host I/Os are reads that reconstruct missing bytes (the planner's DEGRADED_READ)."""
        return (mode == Mode.DEGRADED_READ) & ~is_write

    def describe(self) -> dict:
        return {"read_reads": self.read_reads, "read_parity_on": self.read_parity_on, "read_through": self.read_through,
                "write_rule": self.write_rule, "write_parity_on": self.write_parity_on}


@dataclass(frozen=True)
class RebuildProtocol:
    """One engine's rebuild of one array, as every solver reads it.

    * ``step_bytes``: bytes of the member one request covers; ``inflight``: requests it keeps in
      flight (at most: a throttle may hold fewer);
    * ``reads``: what a request reads -- the same row of every surviving member (parity levels),
      one surviving copy (mirrors), or every member (a ``check``);
    * ``parity_on``: where the reconstruction's (or the check's) parity work runs: a host thread,
      the GPU, the card's processor, host cores; "none" for a mirror's copy;
    * ``writes_member``: whether a request writes the rebuilt member (a ``check`` writes nothing);
    * ``threads``: threads the rebuild's own CPU work runs on (the rebuild thread's servers);
    * ``excludes_host_io``: rebuild requests and host I/O take turns (md RAID10's array-wide
      barrier) rather than share the queues;
    * ``idle`` and ``loaded``: its pacing on an idle array and under host I/O (``pacing``);
    * ``resources``: what it competes with host I/O for, in words;
    * ``degraded``: host reads and writes with a member missing (``DegradedPath``).
    """

    engine: str
    level: int
    operation: Operation
    step_bytes: int
    inflight: float
    reads: Reads
    parity_on: str
    writes_member: bool
    threads: int
    excludes_host_io: bool
    idle: RebuildThrottle
    loaded: RebuildThrottle
    resources: tuple[str, ...]
    degraded: DegradedPath

    def pacing(self, loaded: bool) -> RebuildThrottle:
        """Its throttle with host I/O running (``loaded``) or not."""
        return self.loaded if loaded else self.idle

    def reads_per_byte(self, drives: int, missing: int) -> float:
        """Member bytes read per byte of the member covered: one copy (mirror), else every member
        not ``missing`` (parity: the survivors; a check: every member, none missing)."""
        return 1.0 if self.reads == "one copy" else float(drives - missing)

    def describe(self) -> dict:
        """The protocol as plain values (a report's rows)."""
        return {"operation": self.operation, "request_bytes": self.step_bytes, "requests_in_flight": self.inflight,
                "reads": self.reads, "parity_on": self.parity_on, "writes_member": self.writes_member,
                "threads": self.threads, "excludes_host_io": self.excludes_host_io,
                "pacing_idle": self.idle.kind, "pacing_loaded": self.loaded.kind, "resources": list(self.resources),
                "degraded": self.degraded.describe()}


__all__ = ["DegradedPath", "RebuildProtocol", "RebuildThrottle", "Reads", "Operation"]
