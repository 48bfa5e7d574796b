"""What every RAID engine returns for a batch of host I/Os: the member I/Os and its own costs.

An engine is a mechanism with a few parameters of physical meaning (models/engines/*.yaml). For a
batch of host I/Os it says (arrays, one entry per host I/O unless noted):

* the member I/Os (flat arrays, grouped by host I/O, with the phase: 0 = reads that must finish
  before parity and writes, 1 = the final reads or writes) -- from the stripe core's planner;
* CPU seconds on the submitting job's core beyond fio's own cost (``submit_cpu_ref_s``, at the
  engine's reference clock);
* the hold time of a serialised section on the submission path (``lock_s``): a spinlock, so the
  waiting job's core spins (busy) while it waits;
* service time on the engine's own server before the member I/Os (``pre_s``) and between the
  read phase and the write phase (``mid_s``): md's stripe thread, the GPU, the card processor;
* bytes that cross the engine device's link (``device_down_bytes``, ``device_up_bytes``) and
  bytes against its advertised bandwidth (``device_read_bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..specs import ArraySpec, EngineSpec, RebuildSpec
from ..stripe.planner import MemberIOPlan

PRIORITY_SCALE = {"low": 0.5, "normal": 1.0, "high": 2.0}
"""What a vendor's rebuild priority does to its rebuild requests in flight and its paced share."""


@dataclass
class EngineWork:
    host_index: np.ndarray  # int64, per member I/O
    member: np.ndarray  # int32
    length_bytes: np.ndarray  # int64
    is_write: np.ndarray  # bool
    phase: np.ndarray  # int8
    submit_cpu_ref_s: np.ndarray  # float, per host I/O
    lock_s: np.ndarray
    pre_s: np.ndarray
    mid_s: np.ndarray
    device_down_bytes: np.ndarray
    device_up_bytes: np.ndarray
    device_read_bytes: np.ndarray
    memory_bytes: np.ndarray


@dataclass(frozen=True)
class EngineServer:
    """The engine's own server (None when it has none): a host thread or a device."""

    label: str
    servers: int
    on_host_cpu: bool


@dataclass(frozen=True)
class RebuildThrottle:
    """What an engine's throttle does to its rebuild (``Engine.rebuild_throttle``): hold it to a
    rate (md's speed limit), pace it to a share of the busy time of the drive it loads most (a
    vendor's rebuild priority, like a RAID card's "rebuild rate" percentage), or nothing (both None:
    the rebuild keeps its requests in flight and takes what the queues give it)."""

    limit_bytes_per_s: float | None = None
    share: float | None = None
    why: str = ""

    @property
    def paced(self) -> bool:
        return self.share is not None


@dataclass(frozen=True)
class Engine:
    """Base: no cost of its own (the ideal engine). Subclasses add their mechanisms.

    Built once for one array (``build_engine``: its parameters, members, strip, whether a member
    is missing, the share of submitters on the other socket) and never changed afterwards; its
    server and lock follow from its parameters (``own_server``, ``own_lock``)."""

    spec: EngineSpec
    parameters: dict[str, float] = field(default_factory=dict)
    members: int = 0  # drives in the array
    strip_bytes: int = 64 * 1024  # the array's strip
    degraded: bool = False  # a member is missing: md sends every read through its stripe cache
    cross_socket_fraction: float = 0.0  # share of the engine's shared-state accesses from the other socket
    server: EngineServer | None = field(init=False, default=None)
    lock_label: str | None = field(init=False, default=None)
    parameter_key: tuple = field(init=False, default=())  # the parameters, sorted: part of a cache key
    striped = True  # lays a RAID level over its members (False: drives used directly, jobs bound to drives)
    stripe_cache = True  # holds a stripe's writes until it is whole before computing parity
    rebuild_io_bytes = 256 * 1024  # bytes of the replaced member one rebuild request covers
    rebuild_inflight = 8.0  # rebuild requests the engine keeps in flight

    def __post_init__(self) -> None:
        object.__setattr__(self, "server", self.own_server())
        object.__setattr__(self, "lock_label", self.own_lock())
        object.__setattr__(self, "parameter_key", tuple(sorted(self.parameters.items())))

    @staticmethod
    def scenario_values(array: ArraySpec) -> dict[str, float]:
        """Parameter values a scenario's array sets for this engine (its own knobs); none here."""
        return {}

    def own_server(self) -> EngineServer | None:
        """The engine's own server (md's stripe thread, a GPU, a card's processor); None here."""
        return None

    def own_lock(self) -> str | None:
        """The label of the engine's serialised section on the submission path; None here."""
        return None

    def parameter(self, name: str) -> float:
        try:
            return self.parameters[name]
        except KeyError:
            raise KeyError(f"engine {self.spec.name} has no parameter {name!r} in models/engines") from None

    @staticmethod
    def empty_work(plan: MemberIOPlan, n: int, host_bytes: int) -> EngineWork:
        zeros = np.zeros(n)
        return EngineWork(
            host_index=plan.host_index, member=plan.member, length_bytes=plan.length_bytes,
            is_write=plan.is_write, phase=plan.phase,
            submit_cpu_ref_s=zeros.copy(), lock_s=zeros.copy(), pre_s=zeros.copy(), mid_s=zeros.copy(),
            device_down_bytes=zeros.copy(), device_up_bytes=zeros.copy(), device_read_bytes=zeros.copy(),
            memory_bytes=np.full(n, float(host_bytes)),
        )

    def work(self, plan: MemberIOPlan, is_write: np.ndarray, chunks: np.ndarray, host_bytes: int, level: int) -> EngineWork:
        """Costs of ``plan`` (host I/Os of ``host_bytes`` each; ``chunks``: strips each touches)."""
        return self.empty_work(plan, len(is_write), host_bytes)


    def rebuild_settings(self, level: int, priority: str) -> tuple[int, float]:
        """(bytes per rebuild request, requests in flight) for this level and rebuild priority."""
        scale = PRIORITY_SCALE[priority]
        return int(self.parameters.get("rebuild_io_kib", self.rebuild_io_bytes / 1024) * 1024), \
            max(1.0, self.parameters.get("rebuild_inflight", self.rebuild_inflight) * scale)

    def rebuild_share(self, priority: str) -> float | None:
        """Share of its busiest drive's time the engine paces its rebuild to while host I/O runs
        (a vendor's rebuild priority, as in a RAID card's "rebuild rate" percentage), or None: the
        rebuild keeps its requests in flight and takes what the queues give it."""
        share = self.parameters.get("rebuild_share")
        if share is None:
            return None
        return min(0.95, share * PRIORITY_SCALE[priority])

    def rebuild_throttle(self, limits: RebuildSpec, loaded: bool) -> RebuildThrottle:
        """The throttle on this engine's rebuild, ``loaded`` by host I/O or not (``limits``: the
        scenario's ``array.rebuild``): here a vendor's priority paces it to its ``rebuild_share``
        while host I/O runs; without one, or on an idle array, nothing holds it back."""
        share = self.rebuild_share(limits.priority)
        if share is None or not loaded:
            return RebuildThrottle()
        return RebuildThrottle(share=share, why=f"rebuild priority {limits.priority}: {100 * share:.0f}% of")

    def recovery_excludes_host_io(self, level: int) -> bool:
        """Whether rebuild requests and host I/O take turns (an array-wide barrier) rather than
        share the queues. None here."""
        return False

    def rebuild_work(self, plan: MemberIOPlan, n: int, rows_per_step: int, level: int) -> EngineWork:
        """Costs of ``n`` rebuild requests (``plan``: their survivor reads, phase 0, and the write
        to the new member, phase 1), each covering ``rows_per_step`` stripe rows. No cost here."""
        return self.empty_work(plan, n, 0)


@dataclass(frozen=True)
class DirectDrives(Engine):
    """No RAID: the drives used directly, each fio job bound to one drive (engine ``none``)."""

    striped = False


def per_host_sum(values: np.ndarray, host_index: np.ndarray, n: int) -> np.ndarray:
    """Sum a per-member-I/O quantity over each host I/O."""
    return np.bincount(host_index, weights=values, minlength=n)[:n]


__all__ = ["Engine", "DirectDrives", "RebuildThrottle", "EngineWork", "EngineServer", "per_host_sum"]
