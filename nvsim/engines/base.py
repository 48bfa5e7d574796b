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

from dataclasses import dataclass, field, make_dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np
from pydantic import ValidationError

from ..names import engine_name
from ..raid import parity_members, raid10_layout
from ..specs import EngineSpec, RebuildSpec, Spec
from ..stripe.planner import MemberIOPlan, per_host_sum
from .rebuild_protocol import FREE, DegradedPath, Operation, Reconstruction, RebuildProtocol, RebuildThrottle

PRIORITY_SCALE = {"low": 0.5, "normal": 1.0, "high": 2.0}
"""What a vendor's rebuild priority does to its rebuild requests in flight and its paced share."""
PACED_SHARE_MAX = 0.95
"""The largest share of a drive's time a paced rebuild takes."""
REBUILD_IO_KIB = 256.0
"""Bytes of the replaced member one rebuild request covers, for an engine that states none."""
REBUILD_INFLIGHT = 8.0
"""Rebuild requests kept in flight, for an engine that states none."""


class EngineParameters(Spec):
    """An engine's mechanism parameters, as its catalog entry (models/engines/*.yaml) writes them
    under ``parameters:``: each a ``Cited`` number whose name carries its unit. Each engine module
    declares its own subclass (frozen, unknown keys refused): a misspelled key fails when the
    catalog loads, with the one-line error naming it. ``values()`` is the plain numbers."""

    def values(self) -> Any:
        """The parameters as plain floats (a frozen object with the same attribute names)."""
        return _values_type(type(self))(**dict(self.items()))

    def items(self) -> tuple[tuple[str, float], ...]:
        return tuple((name, float(getattr(self, name).value)) for name in type(self).model_fields)


@cache
def _values_type(schema: type[EngineParameters]) -> type:
    return make_dataclass(f"{schema.__name__}Values", [(name, float) for name in schema.model_fields], frozen=True)


class EngineSettings(Spec):
    """What a scenario may set for its engine (``array.engine_settings``): a sysfs knob such as
    md's ``group_thread_cnt``. Each engine declares its own subclass; none here."""

    def for_array(self, level: int, member_bytes: float, drives: int, copies: int) -> "EngineSettings":
        """These settings as the engine's tools create an array of ``drives`` members of
        ``member_bytes`` at ``level`` (what a setting left unset becomes there: md's bitmap by
        mdadm's rules); the same settings here."""
        return self


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
    stripe_heads: np.ndarray  # float, per host I/O: stripe-cache entries it holds (md's stripe_heads; 0: none)
    ack_s: np.ndarray | None = None  # per host I/O: the part of ``pre_s`` before a write-back cache acknowledges
    # it (a card's command; the rest of its work is the destage); 0 or None: the host waits for its member I/Os


@dataclass(frozen=True)
class StripeCacheLoad:
    """What the submitters ask of an engine's stripe cache over a run, as the run measured or
    solved it (``Engine.waiting_cpus``); counts are means over the host I/Os that take any entry."""

    stripe_heads_per_s: float  # entries taken per second
    stripe_heads_per_io: float  # entries one such host I/O holds
    passes_per_stripe_head: float  # times the stripe thread handles each (the last frees it)
    ios_in_flight: float  # such host I/Os in flight (closed loop: jobs x depth x their share)
    jobs: int  # submitting threads
    server_utilisation: float  # the stripe thread's busy share


@dataclass(frozen=True)
class EngineServer:
    """The engine's own server (None when it has none): a host thread or a device."""

    label: str
    servers: int
    on_host_cpu: bool


@dataclass(frozen=True)
class Engine:
    """Base: no cost of its own (the ideal engine's mechanism; ``IdealEngine`` states its rules).
    Subclasses add their mechanisms.

    Built once for one array (``build_engine``: its parameters, members, strip, whether a member
    is missing, the share of submitters on the other socket) and never changed afterwards; its
    server and lock follow from its parameters (``own_server``, ``own_lock``)."""

    spec: EngineSpec
    params: EngineParameters = field(default_factory=EngineParameters)
    settings: EngineSettings = field(default_factory=EngineSettings)
    members: int = 0  # drives in the array
    strip_bytes: int = 64 * 1024  # the array's strip
    degraded: bool = False  # a member is missing: md sends every read through its stripe cache
    missing: int = 0  # members missing: a degraded read rebuilds that many blocks of a row (at most the parities)
    line_transfer_us: float = 0.1  # the platform's same-socket transfer of a contended cache line
    job_nodes: int = 1  # NUMA nodes the submitting jobs run on (md's raid5 worker groups that get their stripes)
    writes: bool = True  # the workload writes (md: a write that sets a bitmap bit waits for raid5d's unplug)
    level: int | None = None  # the array's RAID level, where the engine was built for one (names md's thread)
    copies: int = 0  # RAID10's near copies (md's geo.near_copies: 1 for far and offset), where the engine was built for an array (0: not known)
    shared_access_factor: float = 1.0  # slow-down of contended shared state (locks, counters): the
    # platform's cross-socket cache-line cost over its same-socket one, weighted by the share of
    # submitters on the other socket (nvsim.platform)
    v: Any = field(init=False, default=None)  # the parameters as plain floats: self.v.device_lock_us
    server: EngineServer | None = field(init=False, default=None)
    lock_label: str | None = field(init=False, default=None)
    parameter_key: tuple = field(init=False, default=())  # parameters and settings: part of a cache key
    Parameters: ClassVar[type[EngineParameters]] = EngineParameters
    Settings: ClassVar[type[EngineSettings]] = EngineSettings
    striped: ClassVar[bool] = True  # lays a RAID level over its members (False: drives used directly)
    stripe_cache: ClassVar[bool] = True  # holds a stripe's writes until it is whole before computing parity
    coalesces_degraded: ClassVar[bool] = False  # ...and still does with a member missing (a card's write-back cache)
    reference_clock_ghz: ClassVar[float] = 3.0  # the clock its CPU costs are stated at, unless a parameter says
    sync_update_bytes: ClassVar[int] = 4096  # what one synchronous metadata update writes to each member (``sync_update_share``)
    needs_vmd: ClassVar[bool] = False  # runs only on drives behind Intel VMD (and is the one engine modelled there)
    rebuild_parity_on: ClassVar[str] = "nowhere (the ideal engine's parity costs nothing)"  # RebuildProtocol.parity_on
    # ``work`` prices each host I/O from its own member I/Os alone, the same whole layout periods
    # further on, so a batch planned by place is priced once per place (``nvsim.sim.demand``); an
    # engine whose costs of one host I/O depend on the others in its batch, or on where in the
    # array it lies beyond its place in the period, sets False (tests/unit/engines/test_work_by_place.py)
    costs_each_host_io_alone: ClassVar[bool] = True

    # Rules of the engine a scenario or a plan candidate must keep, asked of the class (no array
    # built): the specs' validators reach them through ``Catalog.engine_class``, the plan's
    # vectorised filters over a table of levels. Each states its message where it is refused.

    @classmethod
    def default_layout(cls, level: int) -> str | None:
        """The parity layout the engine builds when the scenario names none; None: the level's
        default (md's, ``nvsim.raid.DEFAULT_LAYOUT_BY_LEVEL``)."""
        return None

    raid10_layouts: ClassVar[tuple[str, ...]] = ("near",)
    """RAID10 layouts the engine builds: a card's or a vendor's RAID10 is a stripe of mirror sets
    (near); md builds far and offset too (``MdEngine``)."""

    @classmethod
    def layout_refusal(cls, level: int, layout: str | None) -> str | None:
        """Why the array's ``layout`` (None: the level's default) cannot be built on this engine, as
        ``layout: why; allowed: ...``; None when it can (here every parity layout: md takes each;
        at RAID10 the kinds of ``raid10_layouts``)."""
        kind = (raid10_layout(layout) or ("near", 0))[0] if level == 10 else "near"
        if kind not in cls.raid10_layouts:
            return (f"layout: this engine's RAID10 is a stripe of mirror sets (near; far and offset are md's); "
                    f"allowed: near, n2, n3 or n4, got {layout!r}")
        return None

    @classmethod
    def strip_must_be_power_of_two(cls, level: int) -> bool:
        """Whether the strip at RAID ``level`` must be a power of two (md's chunk). No here."""
        return False

    @classmethod
    def drive_multiple(cls, level: int, near_copies: int) -> int:
        """The number the drive count at RAID ``level`` must be a multiple of: here a RAID10 is a
        stripe of mirror sets of ``near_copies`` drives (a card's or a vendor's RAID10), so
        ``near_copies``; 1 at other levels."""
        return near_copies if level == 10 else 1

    @classmethod
    def copies_refusal(cls, entry: Any, level: int, near_copies: int) -> str | None:
        """Why a mirror of ``near_copies`` copies (RAID10's near copies; RAID1's drives, each a copy)
        cannot be built on this catalog ``entry`` of the engine (its metadata mirrors a fixed number
        of drives), as ``field: why; allowed: ...``; None when it can (here always)."""
        return None

    @classmethod
    def strip_refusal(cls, entry: Any, strip_bytes: int, settings: dict) -> str | None:
        """Why a strip of ``strip_bytes`` cannot be built on this catalog ``entry`` of the engine with
        a scenario's ``settings`` (its firmware lists the strips it takes), as ``strip_bytes: why;
        allowed: ...``; None when it can (here always)."""
        return None

    @classmethod
    def most_drives_at(cls, level: int) -> tuple[int, str] | None:
        """The most drives a volume at RAID ``level`` may have on this engine, and why, where the
        engine's own metadata limits it below its device's ``max_drives``; None here (no such rule)."""
        return None

    @classmethod
    def fewest_drives_at(cls, level: int) -> tuple[int, str] | None:
        """The fewest drives a volume at RAID ``level`` may have on this engine, and why, where the
        engine's own metadata asks for more than the level does (``raid.MIN_DRIVES``); None here."""
        return None

    @classmethod
    def passes_discards(cls, level: int) -> bool:
        """Whether the array at RAID ``level`` passes a trim (NVMe deallocation) to its drives.
        Here no: an engine is not known to pass discards unless it says so."""
        return False

    @classmethod
    def striped_with(cls, settings: "EngineSettings") -> bool:
        """Whether this engine with a scenario's ``settings`` lays a RAID level over its members (False:
        each drive used directly, a device of its own), without building it."""
        return bool(cls.striped)

    @classmethod
    def discard_refusal(cls, level: int, name: str) -> str:
        """Why engine entry ``name`` at RAID ``level`` does not pass discards (one clause)."""
        return f"nvsim does not know whether {name} passes discards to its drives"

    @classmethod
    def settings_refusal(cls, level: int, settings: dict) -> str | None:
        """Why ``settings`` (a scenario's ``array.engine_settings``, as written) cannot be asked of
        a RAID ``level`` array, as ``field: why; allowed: ...``; None when they can (here always)."""
        return None

    @classmethod
    def members_refusal(cls, level: int, settings: dict, member_bytes: int, drives: int, copies: int) -> str | None:
        """Why ``settings`` (as written) cannot be asked of a RAID ``level`` array of ``drives`` members
        of ``member_bytes`` (``copies``: RAID10's near copies), where the engine's tools size a choice
        by the members, as ``field: why; allowed: ...``; None when they can (here always)."""
        return None

    @classmethod
    def entry_refusal(cls, entry: Any, settings: dict) -> str | None:
        """Why ``settings`` cannot be asked of this catalog ``entry`` of the engine (a card's own
        choices, such as the drivers of its GPU family), as ``field: why; allowed: ...``; None
        when they can (here always). Checked when the scenario loads, so the line names its file."""
        return None

    @classmethod
    def parsed_settings(cls, settings: dict) -> EngineSettings | None:
        """``settings`` as the engine's ``Settings``; None where the schema refuses them (its own line
        says why: a refusal that reads them as parsed leaves them to it)."""
        try:
            return cls.Settings.model_validate(settings)
        except ValidationError:
            return None

    @classmethod
    def settings_label(cls, entry: Any, settings: dict | None) -> str:
        """What a report prints beside the engine's product name for ``settings`` (a scenario's
        ``array.engine_settings``) on catalog ``entry``: the choice that makes two set-ups of the
        same product differ (a GPU card's driver version); "" where there is none (here)."""
        return ""

    rebuild_fields: ClassVar[frozenset[str]] = frozenset({"priority", "span_bytes"})
    """The fields of ``array.rebuild`` this engine's rebuild reads (``rebuild_settings``: its
    requests in flight by priority; the span); a scenario that sets another is refused."""

    @classmethod
    def rebuild_refusal(cls, name: str, asked: set[str], redundant: bool = True) -> str | None:
        """Why the ``asked`` fields of ``array.rebuild`` (those the scenario sets to other than their
        default) cannot be asked of engine ``name``: one it does not read would change nothing, and
        an array without redundancy (``redundant`` false: RAID0, pass-through) rebuilds nothing."""
        fields = cls.rebuild_fields if redundant else frozenset()
        ignored = sorted(set(asked) - fields)
        if not ignored:
            return None
        if not redundant:
            return (f"rebuild.{ignored[0]}: this array has no redundancy, so nothing is rebuilt and it would change "
                    f"nothing; allowed: leave array.rebuild out")
        allowed = ", ".join(sorted(fields)) or "none (it does not rebuild)"
        return (f"rebuild.{ignored[0]}: {name}'s rebuild does not read it, so it would change nothing "
                f"(md takes the speed limits, a RAID card rate_percent, vendor engines priority); allowed: {allowed}")

    def __post_init__(self) -> None:
        object.__setattr__(self, "v", self.params.values())
        object.__setattr__(self, "server", self.own_server())
        object.__setattr__(self, "lock_label", self.own_lock())
        settings = tuple((k, getattr(self.settings, k)) for k in type(self.settings).model_fields)
        object.__setattr__(self, "parameter_key", self.params.items() + settings)

    @property
    def clock_ghz(self) -> float:
        """The clock the engine's CPU costs are stated at (its ``reference_clock_ghz`` parameter)."""
        return getattr(self.v, "reference_clock_ghz", self.reference_clock_ghz)

    def own_server(self) -> EngineServer | None:
        """The engine's own server (md's stripe thread, a GPU, a card's processor); None here."""
        return None

    def derived_costs(self) -> tuple[tuple[str, str, str], ...]:
        """The costs the engine derives from its entry's figures, as ``catalog show`` lists them:
        (part, value with its unit, how it was obtained); none here."""
        return ()

    def busy_host_threads(self, reads_only: bool) -> int:
        """Host threads of the engine's own server a workload keeps busy (they hold the cores' clock
        down as the jobs do: ``Platform.loaded_clock_ghz``): every one of an on-host server's here,
        whatever the workload; ``reads_only``: the workload reads and never writes."""
        server = self.server
        return server.servers if server is not None and server.on_host_cpu else 0

    def device_bandwidth_bytes_per_s(self) -> float | None:
        """The rate of the engine device's own bandwidth limit (``device_read_bytes`` load it): here
        its advertised read bandwidth (a GPU card's), None where it has none."""
        device = self.spec.device
        return device.max_read_bytes_per_s.value if device and device.max_read_bytes_per_s else None

    def host_data_crosses_link(self) -> bool:
        """Whether host data crosses the engine device's own link (a hardware card's; a GPU card's
        where its driver moves written data through the GPU): its device's ``data_through_device``."""
        device = self.spec.device
        return bool(device and device.data_through_device)

    def device_bandwidth_label(self) -> str:
        return f"{engine_name(self.spec)} bandwidth limit"

    def own_lock(self) -> str | None:
        """The label of the engine's serialised section on the submission path; None here."""
        return None

    def waiting_cpus(self, load: StripeCacheLoad) -> float:
        """Host CPUs that submitters waiting for the engine's stripe cache keep busy; none here (an
        engine without one, or whose waiters sleep until they are served)."""
        return 0.0

    def sync_update_share(self, level: int, write_rate_per_s: float, region_bytes: float, write_bytes: int,
                          random: bool, data_members: int) -> float:
        """Share of host writes to a RAID ``level`` array, at ``write_rate_per_s`` over
        ``region_bytes``, that wait for a synchronous metadata update on the engine's thread (md's
        write-intent bitmap); none here."""
        return 0.0

    def sync_update_drive(self) -> str | None:
        """The catalog drive the synchronous metadata update is written to; None: the members."""
        return None

    resyncs_after_crash: ClassVar[bool] = False  # resyncs its redundancy after an unclean shutdown (md)

    def dirty_after_crash(self, level: int, write_rate_per_s: float, write_bytes_per_s: float, region_bytes: float,
                          random: bool, streams: int, data_members: int, copies: int, member_bytes: float) -> dict:
        """What the engine resyncs of each member after an unclean shutdown under a write load
        (``resyncs_after_crash``): ``span_bytes`` of each member, and how it was found. Nothing here."""
        return {"span_bytes": 0.0, "why": "the engine keeps no resync after an unclean shutdown in nvsim"}

    @staticmethod
    def empty_work(plan: MemberIOPlan, n: int, host_bytes: int) -> EngineWork:
        zeros = np.zeros((8, n))  # one allocation: each field a row of its own (a batch's dozen copies cost more)
        return EngineWork(
            host_index=plan.host_index, member=plan.member, length_bytes=plan.length_bytes,
            is_write=plan.is_write, phase=plan.phase,
            submit_cpu_ref_s=zeros[0], lock_s=zeros[1], pre_s=zeros[2], mid_s=zeros[3],
            device_down_bytes=zeros[4], device_up_bytes=zeros[5], device_read_bytes=zeros[6],
            memory_bytes=np.full(n, float(host_bytes)), stripe_heads=zeros[7],
        )

    def work(self, plan: MemberIOPlan, is_write: np.ndarray, chunks: np.ndarray, host_bytes: int, level: int) -> EngineWork:
        """Costs of ``plan`` (host I/Os of ``host_bytes`` each; ``chunks``: strips each touches): none
        of its own, degraded reads as its ``degraded_path`` says."""
        return self.degraded_work(self.empty_work(plan, len(is_write), host_bytes), plan, is_write, host_bytes, level)


    def rebuild_protocol(self, level: int, limits: RebuildSpec, operation: Operation = "recovery") -> RebuildProtocol:
        """This engine's rebuild of a RAID ``level`` array (``limits``: the scenario's ``array.rebuild``):
        the one record the solvers, the event mode and the timeline read (``RebuildProtocol``). A
        recovery reads the survivors (a mirror: one copy) and writes the new member; a ``check``
        reads every member and writes nothing; a ``resync`` (mirrors) reads one copy and writes the
        others. Built from the engine's own hooks below."""
        step, inflight = self.rebuild_settings(level, limits.priority)
        mirror = level in (1, 10)
        check, resync = operation == "check", operation == "resync"
        if resync and not mirror:
            raise ValueError(f"a resync that copies one mirror onto the others needs RAID1 or RAID10, not RAID{level}")
        reads = "every member" if check else "one copy" if mirror else "survivors"
        where = self.sync_threads(level)
        if check:
            parity_on = f"compares the copies on {where}" if mirror else where
        elif resync:
            parity_on = f"none: one copy read and written to the others; the request on {where}"
        else:
            parity_on = f"none: a copy; the request set up on {where}" if mirror else where
        threads = self.rebuild_threads()
        resources = ["every member's NAND and link (reads)" if check else "one copy's NAND and link (reads)" if resync
                     else "the survivors' NAND and links (reads)"]
        if resync:
            resources.append("every other copy's NAND and link (writes)")
        elif not check:
            resources.append("the new member's NAND and link (writes)")
        if self.rebuild_on_host_cores:
            resources.append(f"{threads} rebuild thread{'s' if threads > 1 else ''} (host cores)")
        if self.server is not None:
            resources.append(self.server.label)
        return RebuildProtocol(engine_name(self.spec), level, operation, step, inflight, reads, parity_on,
                               threads, self.recovery_excludes_host_io(level), self.rebuild_throttle(limits, False),
                               self.rebuild_throttle(limits, True), tuple(resources), self.degraded_path(level))

    def sync_threads(self, level: int) -> str:
        """Where the rebuild's (or a check's) own work runs at RAID ``level``, in words: the engine's
        ``rebuild_parity_on``."""
        return self.rebuild_parity_on

    def resync_operation(self, level: int) -> Operation:
        """What the engine runs to make a whole RAID ``level`` array consistent again after an unclean
        shutdown (``resyncs_after_crash``): a ``check`` that repairs what differs (every member of
        each row read, mismatches written: md's raid5/6 and raid10), or a mirror's ``resync`` (one
        copy read and written to the others: md's raid1). A check here."""
        return "check"

    reads_follow_streams: ClassVar[bool] = False
    """Whether a RAID1 read stream stays on one mirror (md's ``read_balance``: ``MdEngine``); else
    reads rotate over the mirrors (``nvsim.sim.demand.read_stream``)."""
    rebuild_on_host_cores: ClassVar[bool] = False
    """Whether the rebuild's own CPU work (``rebuild_work``'s ``submit_cpu_ref_s``, on the rebuild
    thread) runs on host cores: md's resync thread, xiRAID's reconstruction threads; a card's or a GPU's
    rebuild runs on the device (a card's listed "rebuild thread (host cores)" that nothing loaded)."""
    degraded_read_through: ClassVar[str] = "the engine's read path, unchanged"  # DegradedPath.read_through
    degraded_parity_on: ClassVar[str | None] = None  # where host I/O's degraded parity runs, if not rebuild_parity_on

    def degraded_path(self, level: int) -> DegradedPath:
        """Host I/O with a member missing (``DegradedPath``): a read of the missing bytes reads the
        row's survivors and reconstructs where the engine's rebuild does, at what its
        ``reconstruction`` costs (a mirror: the other copy, free); a write follows the planner's
        degraded read-modify-write / reconstruct-write, a sequential stream gathered into whole
        stripes only where ``coalesces_degraded``."""
        if level in (1, 10):
            return DegradedPath("the surviving copy", "none: a copy", self.degraded_read_through,
                                "the surviving copies written, the missing one not", "none: copies")
        where = self.degraded_parity_on or self.rebuild_parity_on
        return DegradedPath("the row's survivors", where, self.degraded_read_through,
                            "read-modify-write or reconstruct-write over the survivors; the missing member's blocks "
                            "are not written, the parity carries them", where, self.reconstruction(level),
                            self.coalesces_degraded)

    def reconstruction(self, level: int) -> Reconstruction:
        """What a degraded read's reconstruction costs at parity RAID ``level`` (``Reconstruction``):
        nothing here (the ideal engine's parity is free)."""
        return FREE

    def degraded_work(self, out: EngineWork, plan: MemberIOPlan, is_write: np.ndarray, host_bytes: int,
                      level: int) -> EngineWork:
        """``out`` with its degraded reads' reconstruction charged as ``degraded_path`` declares it
        (``DegradedPath.charge``): every engine's ``work`` prices them here."""
        if not self.degraded:
            return out  # a whole array reconstructs nothing
        blocks = max(1, min(self.missing, parity_members(level)))
        return self.degraded_path(level).charge(out, plan, is_write, host_bytes, blocks)

    def rebuild_settings(self, level: int, priority: str) -> tuple[int, float]:
        """(bytes per rebuild request, requests in flight) for this level and rebuild priority."""
        scale = PRIORITY_SCALE[priority]
        return int(getattr(self.v, "rebuild_io_kib", REBUILD_IO_KIB) * 1024), \
            max(1.0, getattr(self.v, "rebuild_inflight", REBUILD_INFLIGHT) * scale)

    def rebuild_share(self, priority: str) -> float | None:
        """Share of its busiest drive's time the engine paces its rebuild to while host I/O runs
        (a vendor's rebuild priority, as in a RAID card's "rebuild rate" percentage), or None: the
        rebuild keeps its requests in flight and takes what the queues give it."""
        share = getattr(self.v, "rebuild_share", None)
        if share is None:
            return None
        return min(PACED_SHARE_MAX, share * PRIORITY_SCALE[priority])

    def rebuild_throttle(self, limits: RebuildSpec, loaded: bool) -> RebuildThrottle:
        """The throttle on this engine's rebuild, ``loaded`` by host I/O or not (``limits``: the
        scenario's ``array.rebuild``): here a vendor's priority paces it to its ``rebuild_share``
        while host I/O runs; without one, or on an idle array, nothing holds it back."""
        share = self.rebuild_share(limits.priority)
        if share is None or not loaded:
            return RebuildThrottle()
        return RebuildThrottle(share=share, why=f"{self.priority_label(limits)}: {100 * share:.0f}% of")

    def priority_label(self, limits: RebuildSpec) -> str:
        """How the rebuild's paced share is named where it limits the rebuild."""
        return f"rebuild priority {limits.priority}"

    def rebuild_threads(self) -> int:
        """Threads the rebuild's own CPU work runs on (the servers of the fabric's rebuild thread):
        one here, as md's resync thread or a card driver's."""
        return 1

    def recovery_excludes_host_io(self, level: int) -> bool:
        """Whether rebuild requests and host I/O take turns (an array-wide barrier) rather than
        share the queues. None here."""
        return False

    def rebuild_work(self, plan: MemberIOPlan, n: int, rows_per_step: int, level: int) -> EngineWork:
        """Costs of ``n`` rebuild requests (``plan``: their survivor reads, phase 0, and the write
        to the new member, phase 1), each covering ``rows_per_step`` stripe rows. No cost here."""
        return self.empty_work(plan, n, 0)


IDEAL_REBUILD_INFLIGHT = 128.0
"""Rebuild requests the ideal engine keeps in flight: enough that the drives bind, not the engine's
depth (a RAID5 of 5 KIOXIA CM7-R 7.68 TB, idle: 8 requests of 256 KiB 0.401 h, held by them; 64:
0.318 h, 128: 0.316 h, the new member's NAND at 100%; measured 2026-12-01)."""


@dataclass(frozen=True)
class IdealEngine(Engine):
    """The ideal engine: no cost of its own (the base's mechanism); it passes discards at every level,
    and its rebuild keeps ``IDEAL_REBUILD_INFLIGHT`` requests in flight (the drives' bound)."""

    rebuild_fields = frozenset({"span_bytes"})  # no priority: nothing paces it (a priority was taken and changed nothing)

    def rebuild_settings(self, level: int, priority: str) -> tuple[int, float]:
        """The base's request size, at a depth that leaves the drives to bind (no priority: nothing paces it)."""
        return super().rebuild_settings(level, priority)[0], IDEAL_REBUILD_INFLIGHT

    @classmethod
    def passes_discards(cls, level: int) -> bool:
        return True


@dataclass(frozen=True)
class DirectDrives(Engine):
    """No RAID: the drives used directly, each fio job bound to one drive (engine ``none``); a
    trim reaches the drive."""

    striped = False
    rebuild_fields = frozenset()  # no redundancy: nothing to rebuild

    @classmethod
    def passes_discards(cls, level: int) -> bool:
        return True


__all__ = ["Engine", "IdealEngine", "DirectDrives", "PACED_SHARE_MAX", "EngineParameters", "EngineSettings", "RebuildThrottle", "RebuildProtocol",
           "EngineWork", "EngineServer", "StripeCacheLoad", "per_host_sum"]
