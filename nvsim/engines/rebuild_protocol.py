"""The one rebuild protocol every engine implements (issue 38): what a rebuild request reads,
computes (its parity work, and where) and writes, how many requests the engine keeps in flight,
how it is paced against host I/O, and which resources it competes for.

An engine states it (``Engine.rebuild_protocol``: md, VROC, a hardware card, a GPU card, lockless
CPU RAID, each as its documentation says); the solvers (``nvsim.sim.mixed``), the event mode
(``nvsim.sim.event``), the fault timeline (``nvsim.rebuild``) and the plan's bounds read only this
record, and the demand layer prices its requests (``nvsim.sim.demand.rebuild_batch``: the member
I/Os the protocol's ``reads`` and ``writes`` name, the costs of the engine's ``rebuild_work``).
A degraded host read runs the same reconstruction (``parity_on``): the record's ``degraded`` part
(``DegradedPath``) says what a degraded read and a degraded write read, compute and write, and
where, as data -- what the reconstruction costs and where it is charged (``Reconstruction``),
whether a sequential write stream is still gathered into whole stripes -- and its ``charge`` is
the one function that turns it into the demands of every engine's ``work``.

``operation``: ``recovery`` rebuilds a replaced member (reads what reconstructs it, writes it);
``check`` is a parity scrub (md's ``check`` sync action, a card's consistency check): every member
of each row is read and the parity computed, nothing written, paced like a recovery; ``resync``
is a mirror's resync of a whole array (md RAID1 after an unclean shutdown: ``raid1_sync_request``
with ``MD_RECOVERY_SYNC`` and not ``MD_RECOVERY_REQUESTED`` reads one copy, ``read_disk``, and
``sync_request_write`` writes it to every other mirror: "extra read targets are also write
targets"), paced like a recovery.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..stripe.planner import Mode, per_host_sum

Reads = Literal["survivors", "one copy", "every member"]
Operation = Literal["recovery", "check", "resync"]
Writes = Literal["the rebuilt member", "the other copies", "nothing"]
WRITES: dict[str, Writes] = {"recovery": "the rebuilt member", "resync": "the other copies", "check": "nothing"}
"""What each operation writes: a recovery the member rebuilt, a mirror's resync every copy but the
one read, a check nothing."""


@dataclass(frozen=True)
class RebuildThrottle:
    """What an engine's throttle does to its rebuild (how it is paced against host I/O):

    * ``limit_bytes_per_s``: a rate it never passes (md's ``speed_limit_max``: above it md sleeps);
    * ``share``: a pace, that share of the busy time of the drive it loads most (a vendor's rebuild
      priority: SupremeRAID's);
    * ``share`` with ``takes_idle``: that share is what the rebuild keeps while host I/O contends for
      the station it loads most; the rest the host leaves idle there it takes too, up to the rate it
      reaches with the array to itself, and beyond its share the host's I/O goes first (a RAID
      card's "rebuild rate": the share of the controller's resources given to the rebuild when host
      I/O competes; at 0% it is not stopped, only last);
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
    takes_idle: bool = False  # with ``share``: at least the share when contended, and what the host leaves idle
    why: str = ""
    limit_why: str = ""  # the limit itself, where ``why`` names another mechanism (md's drained windows)

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
        if self.paced and self.takes_idle:
            return "share when contended"
        if self.paced:
            return "paced share"
        if self.drains:
            return "md throttle (speed_limit_min/max)"
        return "rate limit" if self.limit_bytes_per_s is not None else "none"


Charged = Literal["submit_cpu_ref_s", "pre_s", "mid_s"]


@dataclass(frozen=True)
class Reconstruction:
    """What rebuilding a degraded read's missing bytes costs an engine, and where it is charged:

    * ``charged_to``: the ``EngineWork`` field it lands on -- the submitting core
      (``submit_cpu_ref_s``), the engine's own server before the reads return (``pre_s``: md's
      raid5d) or after the survivors are read (``mid_s``: a GPU, a card's parity engine);
    * ``s_per_stripe``: seconds per stripe the read touches (a stripe operation's set-up);
    * ``s_per_kib``: seconds per KiB of member data read (a card's parity engine, as its datasheet
      rates it);
    * ``bytes_per_s``: the parity rate over the member bytes read (a CPU's XOR; ``inf``: not charged);
    * ``through_memory``: the survivors' bytes land in the engine's memory, its parity engine reads
      them and the rebuilt bytes leave for the host (``device_read_bytes``: a card's DRAM).
    """

    charged_to: Charged = "mid_s"
    s_per_stripe: float = 0.0
    s_per_kib: float = 0.0
    bytes_per_s: float = math.inf
    through_memory: bool = False

    def seconds(self, stripes: np.ndarray, member_bytes: np.ndarray, blocks: int = 1) -> np.ndarray:
        """Seconds of each reconstruction over ``stripes`` stripes and ``member_bytes`` read, rebuilding
        ``blocks`` blocks of each row: the per-byte work is a product over the survivors read per block
        rebuilt (an erasure decode: one dot product over the inputs per erased block, ISA-L's
        ``ec_encode_data`` with the decode matrix's rows; RAID6's second missing block is solved
        from the Q syndrome, ``raid6_2data_recov``/``raid6_datap_recov`` after a ``gen_syndrome``
        over the survivors), so two missing blocks cost twice the single one's XOR per byte read."""
        per_byte = self.s_per_kib / 1024.0 + 1.0 / self.bytes_per_s
        return self.s_per_stripe * stripes + blocks * per_byte * member_bytes


FREE = Reconstruction()
"""A reconstruction that costs the engine nothing (a mirror's copy; the ideal engine)."""


@dataclass(frozen=True)
class DegradedPath:
    """Host I/O with a member missing, as the engine runs it (the planner, ``plan_ios(...,
    failed_members)``, names the member I/Os; ``charge`` prices the reconstruction into the
    engine's ``work``):

    * ``read_reads``: what a read of the missing member's bytes reads instead (the row's survivors,
      or a mirror's surviving copy); ``read_parity_on``: where it is reconstructed ("none" for a copy);
    * ``read_through``: the path every read takes while degraded (md: a stripe_head through raid5d);
    * ``write_rule``: what a write does (md's degraded read-modify-write / reconstruct-write: the
      missing member's blocks are not written, the parity carries them); ``write_parity_on``: where;
    * ``reconstruction``: what the reconstruction costs and where (``Reconstruction``);
    * ``write_coalesces``: whether a sequential write stream is still gathered into whole stripes
      with a member missing (a card's write-back cache; md's stripe cache stops at the planner's
      degraded read-modify-write / reconstruct-write).
    """

    read_reads: str
    read_parity_on: str
    read_through: str
    write_rule: str
    write_parity_on: str
    reconstruction: Reconstruction = FREE
    write_coalesces: bool = False

    @staticmethod
    def reconstructed_reads(mode: np.ndarray, is_write: np.ndarray) -> np.ndarray:
        """Which host I/Os are reads that reconstruct missing bytes (the planner's DEGRADED_READ)."""
        return (mode == Mode.DEGRADED_READ) & ~is_write

    def charge(self, work, plan, is_write: np.ndarray, host_bytes: int, blocks: int = 1):
        """``work`` (an engine's ``EngineWork`` for ``plan``) with the reconstruction of each
        reconstructed read added where the path says (``blocks``: blocks rebuilt per row, the members
        missing up to the level's parities): the one place every engine's degraded reads are priced."""
        rebuilt = self.reconstructed_reads(plan.mode, is_write)
        if not rebuilt.any():
            return work
        n = len(is_write)
        member_bytes = per_host_sum(plan.length_bytes.astype(float), plan.host_index, n)
        r = self.reconstruction
        field = r.charged_to
        setattr(work, field, getattr(work, field) + np.where(rebuilt, r.seconds(plan.stripes_touched, member_bytes, blocks), 0.0))
        if r.through_memory:
            work.device_read_bytes = work.device_read_bytes + np.where(rebuilt, 2 * member_bytes + host_bytes, 0.0)
        return work

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
    * ``writes_member``: whether a request writes a member (a ``check`` writes nothing); ``writes``:
      which -- the member rebuilt (a recovery), every copy but the one read (a mirror's ``resync``),
      or nothing;
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
    threads: int
    excludes_host_io: bool
    idle: RebuildThrottle
    loaded: RebuildThrottle
    resources: tuple[str, ...]
    degraded: DegradedPath

    @property
    def writes(self) -> Writes:
        """Which members a request writes, by its operation (``WRITES``)."""
        return WRITES[self.operation]

    @property
    def writes_member(self) -> bool:
        """Whether a request writes a member at all (a ``check`` writes nothing)."""
        return self.writes != "nothing"

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
                "writes": self.writes,
                "threads": self.threads, "excludes_host_io": self.excludes_host_io,
                "pacing_idle": self.idle.kind, "pacing_loaded": self.loaded.kind, "resources": list(self.resources),
                "degraded": self.degraded.describe()}


__all__ = ["DegradedPath", "Reconstruction", "FREE", "RebuildProtocol", "RebuildThrottle", "Reads", "Operation", "Writes", "WRITES"]
