"""A runnable set-up (``ScenarioSpec``): a platform, one array on it, where things hang, the workloads, the faults.

The array (RAID level, drives, strip, layout, engine, rebuild throttle), the placement and
topology of drives and cards, and the fault timeline, checked against the RAID rules of
``nvsim.raid``, the catalog and the platform's topology (``nvsim.topology``) when the scenario loads.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator

from ..constants import PAGE_BYTES  # md works in 4 KiB pages; strips must be whole pages
from ..errors import suggestion_then
from ..raid import DEFAULT_LAYOUT_BY_LEVEL, LAYOUTS_BY_LEVEL, MAX_MEMBERS, MIN_DRIVES, RAID10_LAYOUT_TEXT, raid10_layout
from ..topology import placement_error
from ..units import format_bytes_decimal
from .base import SECTOR_BYTES, Bytes, Label, Prose, Seconds, Spec, _catalog, _known_name
from .workload import Phase, WorkloadSpec

def _level_text(value: Any) -> Any:
    """A level written as text ("6"), read as the number, as every other whole-number field takes it
    (``drives: "24"`` was taken and ``level: "6"`` refused)."""
    if isinstance(value, bool):  # True is 1 to Literal: RAID1 from `level: true`
        raise ValueError(f"must be a number, got {'true' if value else 'false'}")
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


RaidLevel = Annotated[Literal[0, 1, 5, 6, 10], BeforeValidator(_level_text)]

MD_SPEED_LIMIT_MAX = 2**31 - 1
"""The largest md speed limit in KiB/s: the sysctls dev.raid.speed_limit_min/_max are C ints
(``proc_dointvec``) and an array's ``sync_speed_min``/``_max`` are kept in ints (``mddev->sync_speed_min``):
2,147,483,647; whole numbers, as both are written."""


def _md_speed_kib(value: Any) -> Any:
    """An md speed limit as the kernel takes one: a whole number of KiB/s from 1 to
    ``MD_SPEED_LIMIT_MAX`` (a number past it or with a fraction is refused naming what is allowed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value  # text and the rest: pydantic's own message
    if not (math.isfinite(value) and value == int(value) and 0 < value <= MD_SPEED_LIMIT_MAX):
        raise ValueError(f"{value!r} KiB/s; allowed: a whole number of KiB/s from 1 to {MD_SPEED_LIMIT_MAX:,} "
                         f"(md's limits are C ints)")
    return int(value)


MdSpeedKib = Annotated[int, BeforeValidator(_md_speed_kib)]


def _rate_percent(value: Any) -> Any:
    """A card's rebuild rate of 0, which storcli and Dell's tools take: the rebuild's lowest priority,
    "not stopped or paused" (Dell OpenManage), running on what host I/O leaves idle. The fluid
    state solver could take it (a share of 0 when contended, the idle rest taken), but the event
    mode books the rebuild's requests at its share, first come first served (``sim.mixed.rebuild_plan``):
    a share of 0 stopped it there with a ZeroDivisionError. Refused, saying why; 1 is the least."""
    if not isinstance(value, bool) and value == 0:
        raise ValueError("0 is storcli's lowest rebuild rate (the rebuild runs on what host I/O leaves idle, "
                         "not stopped), which is not modelled: the event mode runs a card's rebuild at its share, "
                         "and a share of 0 would stop it; allowed: a whole percent from 1 to 100")
    return value


class RebuildSpec(Spec):
    """How the engine rebuilds a replaced member: md's throttle, a vendor's priority, the span.

    md (drivers/md/md.c, md_do_sync): the rebuild runs at up to ``speed_limit_max``; while the
    array has other I/O it backs off to ``speed_limit_min`` (the sysctls dev.raid.speed_limit_min
    and _max, in KiB/s; kernel defaults 1,000 and 200,000). An array's own ``sync_speed_min`` and
    ``sync_speed_max`` (sysfs /sys/block/mdX/md/, "system" unless written) take their place:
    md.c's ``speed_min(mddev)`` and ``speed_max(mddev)``, ``md_speed_min_kib_per_s`` and
    ``md_speed_max_kib_per_s`` here. Vendor engines take ``priority``.
    ``span_bytes`` rebuilds only the first bytes of the member (md's sync_max): a test of a small
    drive without changing the drive.
    """

    speed_limit_min_kib_per_s: MdSpeedKib = Field(default=1000, gt=0, le=MD_SPEED_LIMIT_MAX)
    speed_limit_max_kib_per_s: MdSpeedKib = Field(default=200000, gt=0, le=MD_SPEED_LIMIT_MAX)
    sync_speed_min_kib_per_s: MdSpeedKib | None = Field(default=None, gt=0, le=MD_SPEED_LIMIT_MAX, description=(
        "md's per-array sync_speed_min (sysfs); None: 'system', the sysctl speed_limit_min"))
    sync_speed_max_kib_per_s: MdSpeedKib | None = Field(default=None, gt=0, le=MD_SPEED_LIMIT_MAX, description=(
        "md's per-array sync_speed_max (sysfs); None: 'system', the sysctl speed_limit_max"))
    priority: Literal["low", "normal", "high"] = "normal"
    rate_percent: Annotated[int, BeforeValidator(_rate_percent)] | None = Field(default=None, gt=0, le=100, description=(
        "a RAID card's rebuild rate: the share of its work the rebuild takes while host I/O runs, "
        "a whole percent as the tools set it (Broadcom storcli 'set rebuildrate=<0-100>', Dell's "
        "'rebuild rate'), from 1: the tools' 0 (the lowest priority, not stopped) is refused, see "
        "_rate_percent; None: the family's firmware default for the priority"))
    span_bytes: Bytes | None = None

    @model_validator(mode="after")
    def _span_positive(self) -> "RebuildSpec":
        if self.span_bytes is not None and self.span_bytes <= 0:
            raise ValueError("span_bytes: must be > 0")
        return self

    @property
    def changed_fields(self) -> set[str]:
        """The fields set to other than their default (a default, as written or dumped, asks nothing)."""
        return {name for name in self.model_fields_set if getattr(self, name) != type(self).model_fields[name].default}

    @property
    def md_speed_min_kib_per_s(self) -> float:
        """md.c ``speed_min(mddev)``: the array's ``sync_speed_min`` if set, else the sysctl's."""
        return self.sync_speed_min_kib_per_s or self.speed_limit_min_kib_per_s

    @property
    def md_speed_max_kib_per_s(self) -> float:
        """The most md's resync runs at: md.c ``speed_max(mddev)`` (the array's ``sync_speed_max``
        if set, else the sysctl's), or ``speed_min(mddev)`` where that is higher. The kernel takes a
        minimum above the maximum (neither the sysctls nor the sysfs files compare them), and
        ``md_do_sync`` checks the maximum only once the speed is above the minimum
        (``if (currspeed > speed_min) { if (currspeed > speed_max) msleep(500) ...}``): below the
        minimum nothing holds it, above it the maximum's sleep does, so it runs at the minimum."""
        return max(self._speed_max_set_kib_per_s, self.md_speed_min_kib_per_s)

    @property
    def md_max_is_the_min(self) -> bool:
        """Whether the minimum, above the maximum, is what holds the resync (``md_speed_max_kib_per_s``)."""
        return self.md_speed_min_kib_per_s > self._speed_max_set_kib_per_s

    @property
    def _speed_max_set_kib_per_s(self) -> int:
        """md.c ``speed_max(mddev)`` as set: the array's ``sync_speed_max``, else the sysctl's."""
        return self.sync_speed_max_kib_per_s or self.speed_limit_max_kib_per_s


MIN_NAMESPACE_BYTES = 2**20
"""The smallest namespace per drive nvsim simulates (1 MiB): a rebuild's requests and the planner's
stripes of a smaller one ran past its end (a ValueError instead of an answer at 256 KiB); no array
is provisioned that small."""


class ArraySpec(Spec):
    """The array: RAID level, member drives, strip (md's chunk) and layout, namespace per drive."""

    level: RaidLevel
    drive: str
    drives: int = Field(ge=1, le=MAX_MEMBERS)
    strip_bytes: Bytes = 512 * 1024
    layout: str | None = None
    near_copies: int = Field(default=2, ge=2, le=4)
    namespace_bytes: Bytes | None = None
    engine: str = "linux-md"
    hot_spares: int = Field(default=0, ge=0, le=64, description="spare drives a rebuild starts on at once when a member fails")
    replace_hours: float = Field(default=0.0, ge=0, le=8760, description=(
        "hours from a failure until a new drive takes its slot when no hot spare stands by (a service level: a "
        "next-business-day part is about 24); the data-loss window of the rebuild summary is this wait and the "
        "rebuild"))
    engine_settings: dict[str, Any] = Field(default_factory=dict, description="what the scenario sets for its engine "
                                            "(md: group_thread_cnt), checked against the engine's Settings")
    rebuild: RebuildSpec = RebuildSpec()
    scrub: bool = Field(default=False, description="run a parity scrub (md's check sync action, a card's consistency "
                        "check): `nvsim run` reports its time idle and under the first workload, paced by `rebuild`")
    unclean_shutdown: bool = Field(default=False, description="md's resync after an unclean shutdown (a power loss "
                                   "under the first workload): `nvsim run` reports the span its write-intent bitmap "
                                   "leaves dirty (every member without one) and the resync's time idle and under "
                                   "that workload, paced by `rebuild`")

    @field_validator("strip_bytes")
    @classmethod
    def _whole_pages(cls, value: int) -> int:
        if value <= 0 or value % PAGE_BYTES:
            raise ValueError(f"must be a positive multiple of 4 KiB (4096 bytes), got {value} bytes")
        return value

    @field_validator("drive")
    @classmethod
    def _known_drive(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "drives", "drive")

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "engines", "engine")

    @model_validator(mode="after")
    def _level_rules(self, info: ValidationInfo) -> "ArraySpec":
        passthrough = self.engine_settings.get("mode") == "passthrough"
        if passthrough and self.level != 0:
            raise ValueError(f"level: engine_settings.mode passthrough passes each drive to the host unRAIDed; "
                             f"allowed: level 0, got {self.level}")
        need = 1 if self.engine == "none" or passthrough else MIN_DRIVES[self.level]
        if self.scrub and not self.checkable:
            raise ValueError(f"scrub: {self.check_refusal}")
        if self.hot_spares and not self.checkable:  # mdadm refuses spares for RAID0 too: nothing is rebuilt onto them
            raise ValueError(f"hot_spares: a spare is rebuilt onto from the members' redundancy; RAID{self.level} on "
                             f"{self.engine} has none (it would be bought and powered for nothing); allowed: 0")
        if self.replace_hours and (self.hot_spares or not self.checkable):
            why = "a hot spare takes the slot at once" if self.hot_spares else f"RAID{self.level} on {self.engine} rebuilds nothing"
            raise ValueError(f"replace_hours: {why}, so there is no wait for a replacement; allowed: 0")
        if self.drives < need:
            raise ValueError(f"drives: RAID{self.level} needs at least {need} drives, got {self.drives}")
        self._layout_rules()
        if self.namespace_bytes is not None and self.namespace_bytes % SECTOR_BYTES:
            raise ValueError(f"namespace_bytes: must be a whole number of {SECTOR_BYTES}-byte sectors, got {self.namespace_bytes}")
        if self.namespace_bytes is not None and self.namespace_bytes < MIN_NAMESPACE_BYTES:
            raise ValueError(f"namespace_bytes: at least {MIN_NAMESPACE_BYTES // 2**20} MiB per drive "
                             f"({MIN_NAMESPACE_BYTES} bytes), got {self.namespace_bytes}")
        catalog = _catalog(info)
        if catalog is not None and self.engine in catalog.engines:
            levels = catalog.engines[self.engine].levels
            if self.level not in levels:  # before the engine's own rules, which take the level as run
                raise ValueError(f"engine: {self.engine} supports RAID levels {list(levels)}, not {self.level}")
            self._engine_geometry(catalog.engine_class(self.engine), catalog.engines[self.engine])
            refusal = catalog.engine_class(self.engine).entry_refusal(catalog.engines[self.engine], self.engine_settings)
            if refusal:
                raise ValueError(refusal)
            if self.unclean_shutdown and not (self.checkable and catalog.engine_class(self.engine).resyncs_after_crash):
                raise ValueError(f"unclean_shutdown: md's resync of a redundant array after a power loss; allowed: "
                                 f"an md or VROC array at RAID1, 5, 6 or 10, got RAID{self.level} on {self.engine}")
        bitmap_drive = self.engine_settings.get("bitmap_drive")
        if catalog is not None and isinstance(bitmap_drive, str) and bitmap_drive not in catalog.drives:
            raise ValueError(f"engine_settings.bitmap_drive: unknown drive {bitmap_drive!r}"
                             f"{suggestion_then(bitmap_drive, catalog.drives)}allowed: a drive of the catalog "
                             f"(nvsim catalog drives)")
        if catalog is not None and self.drive in catalog.drives:
            capacity = catalog.drives[self.drive].capacity_bytes.value
            if self.namespace_bytes is not None and not 0 < self.namespace_bytes <= capacity:
                raise ValueError(
                    f"namespace_bytes: {format_bytes_decimal(self.namespace_bytes)} is larger than the drive "
                    f"({self.drive}: {format_bytes_decimal(capacity)}); allowed: 1 MiB to {format_bytes_decimal(capacity)}"
                )
            if self.strip_bytes > (self.namespace_bytes or capacity):
                raise ValueError(f"strip_bytes: larger than the member namespace; allowed: at most "
                                 f"{format_bytes_decimal(self.namespace_bytes or capacity)}, got "
                                 f"{format_bytes_decimal(self.strip_bytes)}")
            if self.engine in catalog.engines:
                refusal = catalog.engine_class(self.engine).members_refusal(
                    self.level, self.engine_settings, self.namespace_bytes or capacity, self.drives, self.copies)
                if refusal:
                    raise ValueError(refusal)
            span = self.rebuild.span_bytes
            if span is not None and span > (self.namespace_bytes or capacity):
                member = format_bytes_decimal(self.namespace_bytes or capacity)
                raise ValueError(f"rebuild.span_bytes: more than a member holds; allowed: at most {member}, "
                                 f"got {format_bytes_decimal(span)}")
        if catalog is not None and self.engine in catalog.engines:
            engine = catalog.engines[self.engine]
            if engine.device and engine.device.max_drives and self.drives > engine.device.max_drives.value:
                raise ValueError(f"drives: {self.engine} supports at most {engine.device.max_drives.value} drives, got {self.drives}")
        return self

    def _layout_rules(self) -> None:
        """The layout the level takes; RAID10's copies (``near_copies``, or the count of mdadm's
        ``f2``, ``o2``, ``n3`` ...) on at least as many drives: md refuses more copies than
        raid_disks (raid10.c ``setup_conf``: "unsupported raid10 layout")."""
        allowed = LAYOUTS_BY_LEVEL[self.level]
        if self.level == 10 and raid10_layout(self.layout, self.near_copies) is None:
            raise ValueError(f"layout: RAID10 allows {RAID10_LAYOUT_TEXT}; got {self.layout!r}")
        if self.level != 10 and self.layout is not None and self.layout not in allowed:
            raise ValueError(f"layout: RAID{self.level} allows {', '.join(allowed)}; got {self.layout!r}")
        if self.level != 10 and self.near_copies != 2:  # the field's default, which no other level reads
            raise ValueError(f"near_copies: the copies of RAID10's near layout; RAID{self.level} has none (leave it out)")
        if self.level == 10 and self.layout not in (None, "near") and "near_copies" in self.model_fields_set:
            raise ValueError(f"near_copies: layout {self.layout} gives the copies ({self.copies}); leave near_copies out")
        if self.level == 10 and self.drives < self.copies:
            raise ValueError(f"drives: RAID10 with {self.copies} {self.raid10_kind} copies needs at least {self.copies} "
                             f"drives, got {self.drives}")

    @property
    def raid10_kind(self) -> str:
        """RAID10's layout: near, far or offset (md's; ``near`` at other levels, which have none)."""
        return (raid10_layout(self.layout, self.near_copies) or ("near", 0))[0] if self.level == 10 else "near"

    @property
    def copies(self) -> int:
        """RAID10's copies of each chunk: ``near_copies``, or the count of mdadm's ``f2``, ``o2`` ...
        (``near_copies`` at other levels, which read none)."""
        return (raid10_layout(self.layout, self.near_copies) or ("near", self.near_copies))[1] \
            if self.level == 10 else self.near_copies

    def _engine_geometry(self, engine: Any, entry: Any) -> None:
        """The engine's rules (``engine``: its class, from the catalog): md (and VROC, which is
        md) takes only a power-of-two chunk for RAID5, 6 and 10 (mdadm: "chunk size must be a power
        of 2"); a card's or vendor's RAID10 is a stripe of mirror sets, so its drive count is a
        multiple of the copies (md's near layout is not), of the widths its ``entry`` documents."""
        strip = self.strip_bytes
        if engine.strip_must_be_power_of_two(self.level) and strip & (strip - 1):
            raise ValueError(f"strip_bytes: md takes only a power-of-two chunk for RAID{self.level}, got {strip} bytes; "
                             f"allowed: 4 KiB, 8 KiB, 16 KiB, ... (powers of two)")
        refusal = engine.layout_refusal(self.level, self.layout) or engine.settings_refusal(self.level, self.engine_settings) or \
            engine.rebuild_refusal(self.engine, self.rebuild.changed_fields, self.checkable) or \
            engine.copies_refusal(entry, self.level, self.drives if self.level == 1 else self.copies) or \
            engine.strip_refusal(entry, strip, self.engine_settings)
        if refusal:
            raise ValueError(refusal)
        most = engine.most_drives_at(self.level)
        if most is not None and self.drives > most[0]:
            raise ValueError(f"drives: a RAID{self.level} volume on {self.engine} has at most {most[0]} drives "
                             f"({most[1]}); allowed: at most {most[0]}, got {self.drives}")
        fewest = engine.fewest_drives_at(self.level)
        if fewest is not None and self.drives < fewest[0]:
            raise ValueError(f"drives: a RAID{self.level} volume on {self.engine} has at least {fewest[0]} drives "
                             f"({fewest[1]}); allowed: at least {fewest[0]}, got {self.drives}")
        multiple = engine.drive_multiple(self.level, self.copies)
        if self.drives % multiple:
            raise ValueError(f"drives: RAID{self.level} on engine {self.engine} mirrors sets of {multiple} drives; "
                             f"the count must be a multiple of {multiple}, got {self.drives}")

    @property
    def resolved_layout(self) -> str:
        return self.layout or DEFAULT_LAYOUT_BY_LEVEL[self.level]

    @property
    def checkable(self) -> bool:
        """Whether a parity check can run (``scrub``, a ``check`` event): redundancy on a RAID engine."""
        return self.level != 0 and self.engine != "none" and self.engine_settings.get("mode") != "passthrough"

    @property
    def check_refusal(self) -> str:
        """Why a check cannot run here (``checkable`` false), as the one-line error says it."""
        return f"a check needs redundancy; allowed: levels 1, 5, 6, 10 on a RAID engine, got RAID{self.level} on {self.engine}"

    @property
    def single_drive(self) -> bool:
        """One drive used directly (engine ``none``): the SSD model answers, not the array simulator."""
        return self.engine == "none" and self.drives == 1


FAULT_ACTIONS = ("fail", "pull", "replace", "check")
"""What an event on the timeline does; ``check`` is the only one of the whole array (no drive)."""
FAULT_HORIZON_S = 100 * 365.25 * 86400
"""The latest time a fault may be set at (100 years: at 1e300 s every rebuild took 0 s in float)."""


class FaultSpec(Spec):
    """One event on the array's timeline: ``fail`` (the drive dies), ``pull`` (removed while I/O
    runs; to the array the same as a failure), ``replace`` (a new drive in its slot: rebuild) or
    ``check`` (a parity scrub of the whole array starts: md's ``check`` sync action, a card's
    consistency check; it names no drive)."""

    at_s: Seconds = Field(ge=0, le=FAULT_HORIZON_S, json_schema_extra={
        "bound_unit": "seconds (at most 100 years: a drive's service life is a few)"})
    drive: int | None = Field(default=None, ge=0)
    action: Literal[FAULT_ACTIONS]

    @model_validator(mode="after")
    def _drive_named(self) -> "FaultSpec":
        if self.action == "check" and self.drive is not None:
            raise ValueError("drive: a check runs on the whole array; give no drive")
        if self.action != "check" and self.drive is None:
            raise ValueError(f"drive: a {self.action} names the drive it happens to (0 or more)")
        return self


class PlacementSpec(Spec):
    """Where things hang: the socket of each drive, of the engine's card, and where jobs run.

    Default: drives spread evenly over the sockets (first half on socket 0), the engine card on
    socket 0, jobs on every socket.
    """

    drive_sockets: tuple[int, ...] | None = None
    engine_socket: int = Field(default=0, ge=0)
    job_sockets: tuple[int, ...] | None = None


LinkWidth = Literal[1, 2, 4, 8, 16]


class SwitchUseSpec(Spec):
    """Switches of one catalog model the drives hang behind (spread evenly, in order), each on an
    uplink of ``uplink_lanes`` to a root port."""

    model: str
    count: int = Field(default=1, ge=1, le=64)
    uplink_lanes: LinkWidth = 16

    @field_validator("model")
    @classmethod
    def _known_switch(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "switches", "switch")


class TopologySpec(Spec):
    """Where the drives hang (docs/models/platform.md, "Topology"): in the bays of a backplane
    (``backplane`` and ``backplanes`` of it; default: the platform's own bays) or as add-in cards in
    the platform's slots (``attach: slots``; ``bifurcation`` splits a slot into narrower links),
    directly on root ports or behind PCIe ``switches``, through a ``retimer`` on each drive link,
    in an Intel VMD domain (``vmd``). Without a topology section: direct, one bay link per drive."""

    attach: Literal["bays", "slots"] = "bays"
    backplane: str | None = None
    backplanes: int = Field(default=1, ge=1, le=16)
    bifurcation: dict[str, tuple[LinkWidth, ...]] = Field(default_factory=dict)
    switches: SwitchUseSpec | None = None
    retimer: str | None = None
    vmd: bool = False

    @field_validator("backplane")
    @classmethod
    def _known_backplane(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _known_name(value, info, "backplanes", "backplane")

    @field_validator("retimer")
    @classmethod
    def _known_retimer(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _known_name(value, info, "retimers", "retimer")


MAX_TEXT_CHARS = 10_000
"""Longest free text (a description) a scenario may carry: it is printed whole."""
MAX_WORKLOADS = 256
"""Most workloads a scenario runs (each is a simulation of its own)."""
MAX_FAULTS = 1024
"""Most fault events a scenario's timeline holds (each starts a state the timeline solves)."""


MAX_VOLUMES = 31
"""Volumes beside the array a scenario may run at once (a card's virtual disks are a few dozen)."""


class VolumeSpec(Spec):
    """Another volume on the same server, run at the same time as the array (``nvsim.volumes``):
    a second virtual disk on the array's RAID card (``card`` 0), a virtual disk on another card of
    its engine's model (``card`` 1, 2, ...), or an array of any engine. Its drives are its own;
    it runs ``workload`` (a workload of the scenario) while the array runs the scenario's first."""

    name: Label
    array: ArraySpec
    card: int = Field(default=0, ge=0, le=MAX_VOLUMES, description="which card of its engine's model it hangs from")
    workload: Label

    @field_validator("array")
    @classmethod
    def _no_resilience_of_its_own(cls, array: ArraySpec) -> ArraySpec:
        """A volume's scrub and resync after an unclean shutdown are not computed (the resilience
        summaries are the scenario's array's): asking for one is refused, not dropped."""
        for name in ("scrub", "unclean_shutdown"):
            if getattr(array, name):
                raise ValueError(f"{name}: a volume's is not computed (only the scenario's array has its "
                                 f"resilience summaries); allowed: false, or leave it out")
        if array.rebuild.changed_fields:
            raise ValueError(f"rebuild.{sorted(array.rebuild.changed_fields)[0]}: a volume's rebuild is not "
                             f"computed (only the scenario's array has one); allowed: leave it out")
        return array


def _cards_fit(scenario: "ScenarioSpec", catalog: Any) -> None:
    """Each card's drives (hot spares included) and virtual disks within its datasheet's limits; a
    ``card`` other than 0 only for an engine with a device of its own."""
    per_card: dict[tuple[str, int], list[int]] = {}
    arrays = [(None, scenario.array, 0)] + [(i, v.array, v.card) for i, v in enumerate(scenario.volumes)]
    for i, array, card in arrays:
        device = catalog.engines[array.engine].device
        if device is None and card:
            raise ValueError(f"volumes[{i}].card: {array.engine} has no card of its own; allowed: 0")
        if device is not None:
            per_card.setdefault((array.engine, card), []).append(array.drives + array.hot_spares)
    for (engine, card), drives in per_card.items():
        device = catalog.engines[engine].device
        if device.max_drives is not None and sum(drives) > device.max_drives.value:
            where = f"over {len(drives)} volumes" if len(drives) > 1 else "hot spares included"
            raise ValueError(f"{'volumes' if len(drives) > 1 else 'array.hot_spares'}: card {card} of {engine} carries "
                             f"{sum(drives)} drives ({where}); it takes at most {device.max_drives.value}")
        if device.max_virtual_disks is not None and len(drives) > device.max_virtual_disks.value:
            raise ValueError(f"volumes: card {card} of {engine} holds {len(drives)} virtual disks; "
                             f"it takes at most {device.max_virtual_disks.value}")


class ScenarioSpec(Spec):
    """A runnable set-up: a platform, one array on it, the workloads to run, and the seed;
    ``volumes``: more volumes run at the same time (several virtual disks, several cards)."""

    name: Label
    description: Prose = Field(default="", max_length=MAX_TEXT_CHARS)
    source: Prose | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    platform: str
    array: ArraySpec
    placement: PlacementSpec = PlacementSpec()
    topology: TopologySpec | None = None
    workloads: tuple[WorkloadSpec, ...] = Field(default=(), max_length=MAX_WORKLOADS)
    faults: tuple[FaultSpec, ...] = Field(default=(), max_length=MAX_FAULTS)
    volumes: tuple[VolumeSpec, ...] = Field(default=(), max_length=MAX_VOLUMES)
    seed: int = Field(default=1, ge=0, lt=2**64)

    @model_validator(mode="after")
    def _cards_hold_their_drives(self, info: ValidationInfo) -> "ScenarioSpec":
        catalog = _catalog(info)
        if catalog is not None and all(a.engine in catalog.engines for a in (self.array, *(v.array for v in self.volumes))):
            _cards_fit(self, catalog)
        return self

    @model_validator(mode="after")
    def _volumes_fit(self) -> "ScenarioSpec":
        if not self.volumes:
            return self
        names = {w.name for w in self.workloads}
        if not self.workloads:
            raise ValueError("volumes: the array runs the scenario's first workload beside the volumes; allowed: "
                             "at least one workload")
        seen = {"array"}
        for i, volume in enumerate(self.volumes):
            if volume.name in seen:
                raise ValueError(f"volumes[{i}].name: {volume.name!r} names two volumes (the array is 'array'); names must be unique")
            seen.add(volume.name)
            if volume.workload not in names:
                raise ValueError(f"volumes[{i}].workload: {volume.workload!r} is not a workload of the scenario; "
                                 f"allowed: {', '.join(sorted(names))}")
        return self

    @model_validator(mode="after")
    def _unique_workload_names(self) -> "ScenarioSpec":
        seen: set[str] = set()
        for i, workload in enumerate(self.workloads):
            if workload.name in seen:
                raise ValueError(f"workloads[{i}].name: {workload.name!r} names two workloads; names must be unique")
            seen.add(workload.name)
        phases = {w.phase for w in self.workloads if w.phase is not None}
        if phases & seen:
            raise ValueError(f"workloads: {sorted(phases & seen)[0]!r} names a workload and a phase; names must be unique")
        return self

    def phase(self, name: str) -> Phase | None:
        """The workloads of phase ``name`` as one ``Phase`` (None: no workload has that phase)."""
        jobs = tuple(w for w in self.workloads if w.phase == name)
        return Phase(name=name, jobs=jobs) if jobs else None

    @model_validator(mode="after")
    def _faults_fit(self) -> "ScenarioSpec":
        n = self.array.drives
        last = -1.0
        missing: dict[int, float] = {}  # drive -> when it failed (or was pulled), until replaced
        spares = self.array.hot_spares
        spared: set[int] = set()  # slots a hot spare took over: they may fail again, or be replaced (a new spare)
        for i, fault in enumerate(self.faults):
            if fault.at_s < last:
                raise ValueError(f"faults[{i}].at_s: events must be in time order ({fault.at_s:g} s after {last:g} s)")
            last = fault.at_s
            if fault.action == "check":
                if not self.array.checkable:
                    raise ValueError(f"faults[{i}].action: {self.array.check_refusal}")
                continue
            if fault.drive >= n:
                raise ValueError(f"faults[{i}].drive: drive {fault.drive} does not exist; the array has drives 0..{n - 1}")
            if fault.action == "replace":
                if fault.drive not in missing and fault.drive not in spared:
                    raise ValueError(f"faults[{i}].action: replace of drive {fault.drive}, which has not failed; a "
                                     f"replace follows the drive's fail or pull")
                if fault.drive in spared and fault.drive not in missing:  # the new drive joins the spares
                    spares += 1
                missing.pop(fault.drive, None)
                spared.discard(fault.drive)
            elif fault.drive in missing:
                raise ValueError(f"faults[{i}].action: {fault.action} of drive {fault.drive}, which failed at "
                                 f"{missing[fault.drive]:g} s and has not been replaced")
            elif spares > 0:  # a hot spare takes the slot at once (the timeline rebuilds onto it)
                spares -= 1
                spared.add(fault.drive)
            else:
                missing[fault.drive] = fault.at_s
        return self

    @model_validator(mode="after")
    def _trims_reach_the_drives(self, info: ValidationInfo) -> "ScenarioSpec":
        """A trim job (rw: trim, randtrim, trimwrite, randtrimwrite) on an array whose engine passes
        no discards to its drives is refused when the scenario loads, naming the workload (it was
        refused only once the run began, without the file or the field)."""
        catalog = _catalog(info)
        if catalog is None or self.volumes or self.array.engine not in catalog.engines:
            return self
        engine = catalog.engine_class(self.array.engine)
        if engine.passes_discards(self.array.level):
            return self
        for index, workload in enumerate(self.workloads):
            if workload.trim is not None:
                why = engine.discard_refusal(self.array.level, catalog.engines[self.array.engine].name)
                raise ValueError(f"workloads[{index}].rw: {workload.trim} (job [{workload.name}]) cannot be simulated on "
                                 f"this array: {why}; trims are simulated on drives without RAID and on md RAID 0, 1 "
                                 f"and 10")
        return self

    @model_validator(mode="after")
    def _placement_fits(self, info: ValidationInfo) -> "ScenarioSpec":
        catalog = _catalog(info)
        if catalog is None or self.platform not in catalog.platforms:
            return self
        sockets = catalog.platforms[self.platform].cpu.sockets
        place = self.placement
        if place.drive_sockets is not None and len(place.drive_sockets) != self.array.drives:
            raise ValueError(f"placement.drive_sockets: give one socket per drive ({self.array.drives}), got {len(place.drive_sockets)}")
        if place.job_sockets == ():  # read as unset (every socket) below: say so instead
            raise ValueError(f"placement.job_sockets: an empty list puts the jobs on no socket; allowed: sockets "
                             f"0..{sockets - 1}, or leave it out (jobs on every socket)")
        for label, values in (("drive_sockets", place.drive_sockets or ()), ("job_sockets", place.job_sockets or ()),
                              ("engine_socket", (place.engine_socket,))):
            bad = [v for v in values if not 0 <= v < sockets]
            if bad:
                raise ValueError(f"placement.{label}: socket {bad[0]} does not exist; {self.platform} has sockets 0..{sockets - 1}")
        return self

    @model_validator(mode="after")
    def _databases_fit_the_server(self, info: ValidationInfo) -> "ScenarioSpec":
        """An OLTP database's buffer pool lives in the server's DRAM (a pool larger than it would not
        start), and its data set holds at least one of its profile's pages."""
        catalog = _catalog(info)
        if catalog is None or self.platform not in catalog.platforms:
            return self
        memory = catalog.platforms[self.platform].memory_bytes.value
        for i, workload in enumerate(self.workloads):
            oltp = workload.oltp
            if oltp is None or oltp.profile not in catalog.oltp:
                continue
            if oltp.buffer_pool_bytes > memory:
                raise ValueError(f"workloads[{i}].oltp.buffer_pool_bytes: {oltp.buffer_pool_bytes:,} bytes is more than the "
                                 f"{memory:,} bytes of DRAM of {self.platform}; allowed: at most {memory:,}")
            page = catalog.oltp[oltp.profile].page_bytes.value
            if oltp.dataset_bytes < page:
                raise ValueError(f"workloads[{i}].oltp.dataset_bytes: {oltp.dataset_bytes:,} bytes is less than one "
                                 f"{page:,}-byte page of {oltp.profile}; allowed: at least {page:,}")
        return self

    @model_validator(mode="after")
    def _engine_runs_on_platform(self, info: ValidationInfo) -> "ScenarioSpec":
        """An engine tied to a CPU maker's silicon (``EngineSpec.cpu_vendors``) refuses other platforms."""
        catalog = _catalog(info)
        if catalog is None or self.platform not in catalog.platforms or self.array.engine not in catalog.engines:
            return self
        allowed = catalog.engines[self.array.engine].cpu_vendors
        cpu = catalog.platforms[self.platform].cpu
        if allowed is not None and cpu.vendor not in allowed:
            raise ValueError(f"array.engine: {self.array.engine} runs only on {' or '.join(allowed)} CPUs; "
                             f"platform {self.platform} has {cpu.model}")
        return self

    @model_validator(mode="after")
    def _topology_fits(self, info: ValidationInfo) -> "ScenarioSpec":
        """Drives, cards and switches fit the platform: bays, slots and their widths, switch ports
        and lanes, root-port lanes (``nvsim.topology.placement_error``; one line if not)."""
        catalog = _catalog(info)
        if catalog is None or self.platform not in catalog.platforms or self.array.drive not in catalog.drives:
            return self
        error = placement_error(self, catalog)
        if error:
            raise ValueError(error)
        return self

    @field_validator("platform")
    @classmethod
    def _known_platform(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "platforms", "platform")
