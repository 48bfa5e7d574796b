"""Typed specifications: what a user or the catalog may write, checked before time starts.

Every model is frozen and forbids unknown keys. Sizes and rates may be written with units
("4KiB", "7.68 TB", "14.5 GB/s"); field names carry the canonical unit (``_bytes``,
``_bytes_per_s``, ``_iops``). Catalog numbers are ``Cited``: a value with the key of its source in
models/bibliography.yaml and its basis.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from .constants import PAGE_BYTES  # md works in 4 KiB pages; strips must be whole pages
from .errors import suggestion_text
from .raid import DEFAULT_LAYOUT_BY_LEVEL, LAYOUTS_BY_LEVEL, LEVELS, MAX_MEMBERS, MIN_DRIVES
from .skew_syntax import check_distribution
from .topology import placement_error
from .units import format_bytes_decimal, parse_bytes, parse_bytes_per_s, parse_count, parse_seconds


def _positive(value: float) -> float:
    if value <= 0:
        raise ValueError(f"must be > 0, got {value!r}")
    return value


def _finite(parse: Any) -> Any:
    """``parse`` that refuses NaN and infinity: no physical size, rate, count or time is either."""
    def checked(value: Any) -> Any:
        number = parse(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"must be a finite number, got {value!r}")
        return number
    checked.__doc__ = parse.__doc__
    return checked


MAX_BYTES = 2**64
"""Largest size any field takes (16 EiB): no device or address space nvsim models is larger."""


def _bounded_bytes(value: Any) -> int:
    """``parse_bytes``, refusing sizes beyond ``MAX_BYTES`` (they would overflow every float after)."""
    number = parse_bytes(value)
    if abs(number) > MAX_BYTES:
        raise ValueError(f"must be at most 2^64 bytes (16 EiB), got {value!r}")
    return number


Bytes = Annotated[int, BeforeValidator(_bounded_bytes)]
BytesPerS = Annotated[float, BeforeValidator(_finite(parse_bytes_per_s))]
Count = Annotated[float, BeforeValidator(_finite(parse_count))]
Seconds = Annotated[float, BeforeValidator(_finite(parse_seconds))]
PCIE_GENERATIONS = (1, 2, 3, 4, 5, 6)
"""PCIe generations the PCI-SIG has published a base specification for, to 6.0 (2022)."""
SECTOR_BYTES = 512
"""The smallest logical block an NVMe namespace has: sizes on a drive are whole sectors."""

Basis = Literal["datasheet", "published", "fitted", "assumed", "predicted"]
"""predicted: computed by a model of nvsim's from other cited numbers (its note names the model), e.g. a
drive family's sibling SKU figures (nvsim.ssd.family)."""
T = TypeVar("T")


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class Cited(Spec, Generic[T]):
    """A catalog number with where it comes from.

    basis: datasheet (vendor or standard's specification), published (measured in a cited
    document), fitted (set by ``nvsim calibrate``), assumed (engineering judgement, said why in note),
    predicted (computed by an nvsim model from other cited numbers, the note names it).
    """

    value: T
    source: str = Field(min_length=1)
    basis: Basis
    note: str | None = None


def _cited_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


ZERO_ALLOWED_PREFIXES = ("price_", "power_")
"""Cited numbers that may be 0: a free licence's price, a device whose power is counted elsewhere."""


class PhysicalNumbers(Spec):
    """A catalog entry whose cited numbers are physical: finite, and > 0 unless named in
    ``NON_NEGATIVE`` or a price or power (may be 0); ``AT_MOST_ONE`` names probabilities (in [0, 1]). A zero where the
    model divides (lanes, MTBF, IOPS, cores, a memory rate) is refused at load, in one line."""

    NON_NEGATIVE: ClassVar[tuple[str, ...]] = ()
    AT_MOST_ONE: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _physical(self) -> "PhysicalNumbers":
        for name in type(self).model_fields:
            cited = getattr(self, name)
            if not isinstance(cited, Cited) or not _cited_number(cited.value):
                continue
            value = cited.value
            if not math.isfinite(value):
                raise ValueError(f"{name}: must be a finite number, got {value!r}")
            may_be_zero = name in self.NON_NEGATIVE or name.startswith(ZERO_ALLOWED_PREFIXES)
            if may_be_zero and value < 0:
                raise ValueError(f"{name}: must be >= 0, got {value!r}")
            if not may_be_zero and value <= 0:
                raise ValueError(f"{name}: must be > 0, got {value!r}")
            if name in self.AT_MOST_ONE and value > 1:
                raise ValueError(f"{name}: a probability, allowed 0 to 1, got {value!r}")
        return self


def _pcie_generation(label: str, generation: Any) -> None:
    if generation not in PCIE_GENERATIONS:
        raise ValueError(f"{label}: PCIe generation {generation!r} does not exist; allowed: "
                         f"{', '.join(map(str, PCIE_GENERATIONS))}")


PCIE_LINK_WIDTHS = (1, 2, 4, 8, 16, 32)
"""Link widths the PCIe base specification defines (x1 to x32); ``nvsim.pcie.PcieLink`` builds no other."""


def _link_width(label: str, lanes: Any) -> None:
    """A bay's, slot's, drive's or card's link width is one PCIe defines: a x3 bay is no link."""
    if lanes not in PCIE_LINK_WIDTHS:
        raise ValueError(f"{label}: a PCIe link is x1, x2, x4, x8, x16 or x32 wide, got {lanes!r} lanes; allowed: "
                         f"{', '.join(map(str, PCIE_LINK_WIDTHS))}")


# ---------------------------------------------------------------- catalog entries

PriceKind = Literal["list", "street", "estimate"]
"""A price's kind: the vendor's list price, a retailer's street price, or an estimate (basis assumed)."""
PRICE_DATE = r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$"


def _price_together(entry: Any) -> Any:
    """A price comes with its date and kind, or not at all (docs/cost-power.md)."""
    given = (entry.price_usd is not None, entry.price_date is not None, entry.price_kind is not None)
    if any(given) and not all(given):
        raise ValueError("price_usd, price_date (YYYY-MM or YYYY-MM-DD) and price_kind (list, street or estimate) go together")
    return entry


class PcieGenerationSpec(PhysicalNumbers):
    """One PCIe generation's link-layer constants (PCI Express Base Specification)."""

    name: str
    kind: Literal["pcie_generation"] = "pcie_generation"
    generation: int = Field(ge=1, le=6)
    transfer_rate_gt_per_s: Cited[float]
    encoding_payload_bits: Cited[int]
    encoding_total_bits: Cited[int]
    tlp_framing_bytes: Cited[int]
    tlp_header_bytes: Cited[int]
    completion_header_bytes: Cited[int]
    dllp_bytes: Cited[int]
    skp_interval_blocks: Cited[int]

    @model_validator(mode="after")
    def _encoding(self) -> "PcieGenerationSpec":
        if self.encoding_payload_bits.value > self.encoding_total_bits.value:
            raise ValueError("encoding_payload_bits: larger than encoding_total_bits; allowed: payload <= total")
        return self


class DriveSpec(PhysicalNumbers):
    """An NVMe SSD model and capacity point, from its datasheet."""

    AT_MOST_ONE = ("uber_per_bit",)

    name: str
    kind: Literal["drive"] = "drive"
    vendor: str
    model: str
    part_number: str | None = None
    nand: Literal["SLC", "MLC", "TLC", "QLC"]
    form_factor: str
    capacity_bytes: Cited[Bytes]
    raw_nand_bytes: Cited[Bytes]
    pcie_generation: Cited[int]
    lanes: Cited[int]
    seq_read_bytes_per_s: Cited[BytesPerS]
    seq_write_bytes_per_s: Cited[BytesPerS]
    seq_block_bytes: Cited[Bytes]
    rand_read_iops: Cited[Count]
    rand_write_iops: Cited[Count]
    rand_block_bytes: Cited[Bytes]
    rand_queue_depth: Cited[int]
    read_latency_us: Cited[float]
    write_latency_us: Cited[float]
    indirection_unit_bytes: Cited[Bytes]
    dwpd: Cited[float]
    warranty_years: Cited[float]
    mtbf_hours: Cited[float]
    uber_per_bit: Cited[float]
    price_usd: Cited[float] | None = Field(default=None, description="one drive, US dollars")
    price_date: str | None = Field(default=None, pattern=PRICE_DATE)
    price_kind: PriceKind | None = None
    power_idle_w: Cited[float] | None = Field(default=None, description="idle (ready, no I/O)")
    power_active_read_w: Cited[float] | None = Field(default=None, description="average while reading at full rate")
    power_active_write_w: Cited[float] | None = Field(default=None, description="average while writing at full rate")
    family: str | None = Field(default=None, description="models/families/ entry: figures this file leaves out are "
                                                          "predicted from it (nvsim.ssd.family)")
    program_suspend_us: Cited[float] | None = Field(
        default=None, description="die time a read costs when its die is programming (suspend + resume); None: the "
                                  "KIOXIA CM7 family's fitted value (nvsim.ssd.derive.PROGRAM_SUSPEND_US)")
    nand_program_us: Cited[float] | None = Field(
        default=None, description="tPROG of one wordline on all planes, from the family; None: "
                                  "nvsim.ssd.latency.DEFAULT_NAND_PROGRAM_US (sets how often a die erases)")
    nand_erase_us: Cited[float] | None = Field(
        default=None, description="tBERS of one block, from the family; None: nvsim.ssd.latency.DEFAULT_NAND_ERASE_US "
                                  "(what a read waits for on an erasing die)")

    @model_validator(mode="after")
    def _raw_covers_capacity(self) -> "DriveSpec":
        if self.raw_nand_bytes.value < self.capacity_bytes.value:
            raise ValueError("raw_nand_bytes must be at least capacity_bytes")
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _link_width("lanes", self.lanes.value)
        for name in ("capacity_bytes", "seq_block_bytes", "rand_block_bytes", "indirection_unit_bytes"):
            if getattr(self, name).value % SECTOR_BYTES:
                raise ValueError(f"{name}: must be a whole number of {SECTOR_BYTES}-byte sectors, got {getattr(self, name).value}")
        return _price_together(self)


class CpuSpec(PhysicalNumbers):
    model: str
    sockets: int = Field(ge=1, le=8)
    cores_per_socket: Cited[int]
    threads_per_core: Cited[int]
    smt_throughput_gain: Cited[float] | None = Field(
        default=None, description="Throughput of a core running two busy hardware threads over one; None: no gain")
    base_clock_ghz: Cited[float]
    boost_clock_ghz: Cited[float]
    cache_line_transfer_ns: Cited[float] = Field(description="Time a contended cache line (a spinlock and the "
                                                 "counter beside it) takes to move between two cores of one socket")
    cross_socket_line_factor: Cited[float] | None = Field(
        default=None, description="Time a contended cache line (a lock, a shared counter) takes to reach a core on "
                                  "the other socket over one on the same socket; None: one socket")

    @property
    def vendor(self) -> str:
        """The CPU's maker: the first word of its model ("Intel Xeon Gold 6338", "AMD EPYC 9334")."""
        return self.model.split()[0] if self.model.strip() else ""


class SlotSpec(Spec):
    name: str
    pcie_generation: int = Field(ge=3, le=6)
    lanes: int = Field(ge=1, le=16)
    socket: int = Field(ge=0)


class PlatformSpec(PhysicalNumbers):
    """A server: CPUs, memory, PCIe root ports, where drives and cards attach."""

    NON_NEGATIVE = ("drive_bays",)

    name: str
    kind: Literal["platform"] = "platform"
    vendor: str
    model: str
    cpu: CpuSpec
    memory_channels_per_socket: Cited[int]
    memory_transfer_rate_mt_per_s: Cited[float]
    memory_bytes: Cited[Bytes]
    pcie_generation: Cited[int]
    pcie_lanes_per_socket: Cited[int]
    max_payload_bytes: Cited[Bytes]
    inter_socket_bytes_per_s: Cited[BytesPerS] | None = None
    drive_bays: Cited[int]
    drive_bay_lanes: Cited[int]
    slots: tuple[SlotSpec, ...] = ()
    used_in: str | None = None
    price_usd: Cited[float] | None = Field(default=None, description="the server as configured (CPUs, memory; no drives or RAID card), US dollars")
    price_date: str | None = Field(default=None, pattern=PRICE_DATE)
    price_kind: PriceKind | None = None
    power_idle_w: Cited[float] | None = Field(default=None, description="the server without drives or cards, idle")
    power_active_w: Cited[float] | None = Field(default=None, description="the server without drives or cards, every CPU busy")

    @model_validator(mode="after")
    def _price_complete(self) -> "PlatformSpec":
        return _price_together(self)

    @model_validator(mode="after")
    def _generation_exists(self) -> "PlatformSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _link_width("drive_bay_lanes", self.drive_bay_lanes.value)
        return self

    @model_validator(mode="after")
    def _slots_exist(self) -> "PlatformSpec":
        """Each slot is on a socket the platform has, under a name no other slot takes (a scenario's
        ``topology.bifurcation`` names slots), with a link width PCIe defines."""
        seen: set[str] = set()
        for i, slot in enumerate(self.slots):
            if slot.name in seen:
                raise ValueError(f"slots[{i}].name: {slot.name!r} names two slots; slot names must be unique")
            seen.add(slot.name)
            if slot.socket >= self.cpu.sockets:
                raise ValueError(f"slots[{i}].socket: socket {slot.socket} does not exist; the platform has "
                                 f"{self.cpu.sockets} socket(s), allowed: 0..{self.cpu.sockets - 1}")
            _link_width(f"slots[{i}].lanes", slot.lanes)
        return self

    @property
    def total_cores(self) -> int:
        return self.cpu.sockets * self.cpu.cores_per_socket.value

    @property
    def memory_bytes_per_s_per_socket(self) -> float:
        """DDR: 8 bytes per transfer per channel."""
        return self.memory_channels_per_socket.value * self.memory_transfer_rate_mt_per_s.value * 1e6 * 8


class SwitchSpec(PhysicalNumbers):
    """A PCIe switch (its datasheet): generation, lanes and ports, the latency a TLP takes through
    it (cut-through, port to port), and its core's switching bandwidth (bytes it forwards per
    second, each byte counted once; ``None``: non-blocking, its lanes times one lane's rate)."""

    name: str
    kind: Literal["pcie_switch"] = "pcie_switch"
    vendor: str
    model: str
    pcie_generation: Cited[int]
    lanes: Cited[int]
    ports: Cited[int]
    latency_ns: Cited[float]
    internal_bytes_per_s: Cited[BytesPerS] | None = None

    @model_validator(mode="after")
    def _generation_exists(self) -> "SwitchSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        return self

    @model_validator(mode="after")
    def _ports_fed(self) -> "SwitchSpec":
        """An upstream port and at least one downstream port, each at least one lane wide."""
        ports, lanes = self.ports.value, self.lanes.value
        if ports < 2:
            raise ValueError(f"ports: a switch has an upstream port and at least one downstream port, got {ports}; "
                             f"allowed: 2 to lanes ({lanes})")
        if ports > lanes:
            raise ValueError(f"ports: {ports} ports need at least {ports} lanes (x1 each); lanes is {lanes}; "
                             f"allowed: 2 to {lanes} ports")
        return self


class RetimerSpec(PhysicalNumbers):
    """A PCIe retimer on a link: the latency it adds each way."""

    name: str
    kind: Literal["pcie_retimer"] = "pcie_retimer"
    vendor: str
    model: str
    pcie_generation: Cited[int]
    latency_ns: Cited[float]

    @model_validator(mode="after")
    def _generation_exists(self) -> "RetimerSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        return self


class BackplaneSpec(PhysicalNumbers):
    """A drive backplane: its bays, their form factor and the lanes and generation each bay carries."""

    name: str
    kind: Literal["backplane"] = "backplane"
    vendor: str
    model: str
    form_factor: str
    bays: Cited[int]
    bay_lanes: Cited[int]
    pcie_generation: Cited[int]

    @model_validator(mode="after")
    def _generation_exists(self) -> "BackplaneSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _link_width("bay_lanes", self.bay_lanes.value)
        return self


class EngineDeviceSpec(PhysicalNumbers):
    """The engine's own device (GPU or RAID card): its link and advertised limits."""

    product: str
    pcie_generation: Cited[int]
    lanes: Cited[int]
    max_read_iops: Cited[Count] | None = None
    max_write_iops: Cited[Count] | None = None
    max_read_bytes_per_s: Cited[BytesPerS] | None = None
    max_write_bytes_per_s: Cited[BytesPerS] | None = None
    max_drives: Cited[int] | None = None
    data_through_device: bool = Field(description="True when host data crosses the device's own link (hardware RAID)")
    power_idle_w: Cited[float] | None = Field(default=None, description="the device idle")
    power_active_w: Cited[float] | None = Field(default=None, description="the device fully busy (its board power)")

    @model_validator(mode="after")
    def _generation_exists(self) -> "EngineDeviceSpec":
        _pcie_generation("device.pcie_generation", self.pcie_generation.value)
        _link_width("lanes", self.lanes.value)
        return self


HostIoOption = Literal["hipri", "fixedbufs", "registerfiles", "sqthread_poll"]
"""fio options of a host I/O path that change its costs (``WorkloadSpec`` fields of the same names)."""


class HostIoSpec(PhysicalNumbers):
    """A host I/O path (fio ioengine): CPU time a core spends per I/O, at a reference clock, and
    what parts of it batching, polling, registered buffers and files remove (``nvsim.host_io``).

    ``submit_us`` and ``complete_us`` are the costs with one syscall per I/O and interrupt
    completions (fio's defaults); ``submit_syscall_us``, ``file_ref_us``, ``reap_syscall_us`` and
    ``interrupt_us`` are the parts of them that a batch shares, registered files, a batch of reaps
    and polling remove. ``switch_us`` (CPU) and ``wake_us`` (latency) are paid when the job sleeps
    for its one I/O in flight (depth 1, not polled).
    """

    NON_NEGATIVE = ("submit_us", "complete_us", "per_page_us", "submit_syscall_us", "file_ref_us", "reap_syscall_us",
                    "interrupt_us", "poll_us", "switch_us", "wake_us", "seek_us")

    name: str
    kind: Literal["host_io"] = "host_io"
    description: str
    submit_us: Cited[float]
    complete_us: Cited[float]
    per_page_us: Cited[float]
    reference_clock_ghz: Cited[float]
    submit_syscall_us: Cited[float] | None = None
    file_ref_us: Cited[float] | None = None
    reap_syscall_us: Cited[float] | None = None
    interrupt_us: Cited[float] | None = None
    poll_us: Cited[float] | None = None
    switch_us: Cited[float] | None = None
    wake_us: Cited[float] | None = None
    seek_us: Cited[float] | None = None
    synchronous: bool = Field(default=False, description="one I/O per syscall, the job blocks: depth 1 per job")
    polling: Literal["never", "hipri", "always"] = "never"
    options: tuple[HostIoOption, ...] = ()


class EngineSpec(PhysicalNumbers):
    """A RAID engine: what does the parity and I/O work, and its mechanism parameters."""

    name: str
    kind: Literal["engine"] = "engine"
    engine_kind: str = Field(description="the engine plug-in that models it (nvsim.engines.ENGINES)")
    vendor: str
    product: str
    levels: tuple[int, ...]
    device: EngineDeviceSpec | None = None
    cpu_vendors: tuple[str, ...] | None = Field(
        default=None, description="makers of the CPUs it runs on (Intel VROC: VMD is in Intel Xeon's root complex); None: any")
    parameters: dict[str, Cited[float]] = Field(default_factory=dict)
    price_usd: Cited[float] | None = Field(default=None, description="the card, or the software licence, US dollars (0: free)")
    price_date: str | None = Field(default=None, pattern=PRICE_DATE)
    price_kind: PriceKind | None = None

    @model_validator(mode="after")
    def _price_complete(self) -> "EngineSpec":
        return _price_together(self)

    @model_validator(mode="after")
    def _levels_and_parameters(self) -> "EngineSpec":
        bad = [level for level in self.levels if level not in LEVELS]
        if bad or not self.levels:
            raise ValueError(f"levels: RAID level {bad[0] if bad else 'list'} is not one nvsim models; allowed: "
                             f"{', '.join(map(str, LEVELS))} (at least one)")
        for name, cited in self.parameters.items():
            if not math.isfinite(cited.value) or cited.value < 0:
                raise ValueError(f"parameters.{name}: must be a finite number >= 0, got {cited.value!r}")
        return self


class OltpProfileSpec(PhysicalNumbers):
    """An OLTP benchmark's transaction as the storage sees it (catalog section ``oltp``).

    Per transaction: ``page_accesses_per_tx`` leaf pages touched (inner index pages stay cached),
    of which a share misses the buffer pool and is read (16 KiB random reads, waited for);
    ``pages_dirtied_per_tx`` pages changed, flushed later by the page cleaners (random writes, not
    waited for; each written twice with the doublewrite buffer); one redo-log write waited for at
    commit; ``cpu_us_per_tx`` of CPU (server and client), slowed by ``contention_per_excess_thread``
    per runnable thread beyond the hardware threads; ``client_delay_us_per_tx`` of round trips and
    waits that load no modelled resource.
    """

    NON_NEGATIVE = ("pages_dirtied_per_tx", "client_delay_us_per_tx", "contention_per_excess_thread")

    name: str
    kind: Literal["oltp"] = "oltp"
    description: str
    page_bytes: Cited[Bytes]
    page_accesses_per_tx: Cited[float]
    pages_dirtied_per_tx: Cited[float]
    doublewrite: Cited[bool]
    doublewrite_batch_bytes: Cited[Bytes]
    log_write_bytes: Cited[Bytes]
    cpu_us_per_tx: Cited[float]
    client_delay_us_per_tx: Cited[float]
    contention_per_excess_thread: Cited[float]
    reference_clock_ghz: Cited[float]


# ---------------------------------------------------------------- scenario

RaidLevel = Literal[0, 1, 5, 6, 10]


def _catalog(info: ValidationInfo) -> Any:
    return (info.context or {}).get("catalog")


def _fio_bool(value: Any) -> bool:
    """fio's boolean options: 0/1 (and true/false, yes/no, on/off as YAML writes them)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"must be 0 or 1 (fio's boolean), got {value!r}")


FioBool = Annotated[bool, BeforeValidator(_fio_bool)]


def _host_io_entry(data: Any, info: ValidationInfo) -> Any:
    """The catalog's host I/O entry a raw workload names (None: no catalog, or not yet valid)."""
    catalog = _catalog(info)
    engine = data.get("ioengine", "libaio") if isinstance(data, dict) else None
    if catalog is None or not isinstance(engine, str):
        return None
    return catalog.host_io.get(engine)


def _known_name(value: str, info: ValidationInfo, section: str, label: str) -> str:
    """Refuse a name the catalog does not have, suggesting close ones (no catalog: no check)."""
    catalog = _catalog(info)
    if catalog is not None and value not in getattr(catalog, section):
        known = getattr(catalog, section)
        raise ValueError(f"unknown {label} {value!r}{suggestion_text(value, known)} allowed: {', '.join(sorted(known))}")
    return value


class RebuildSpec(Spec):
    """How the engine rebuilds a replaced member: md's throttle, a vendor's priority, the span.

    md (drivers/md/md.c, md_do_sync): the rebuild runs at up to ``speed_limit_max``; while the
    array has other I/O it backs off to ``speed_limit_min`` (the sysctls dev.raid.speed_limit_min
    and _max, in KiB/s; kernel defaults 1,000 and 200,000). Vendor engines take ``priority``.
    ``span_bytes`` rebuilds only the first bytes of the member (md's sync_max): a test of a small
    drive without changing the drive.
    """

    speed_limit_min_kib_per_s: float = Field(default=1000.0, gt=0)
    speed_limit_max_kib_per_s: float = Field(default=200000.0, gt=0)
    priority: Literal["low", "normal", "high"] = "normal"
    span_bytes: Bytes | None = None

    @model_validator(mode="after")
    def _min_below_max(self) -> "RebuildSpec":
        if self.speed_limit_min_kib_per_s > self.speed_limit_max_kib_per_s:
            raise ValueError(f"speed_limit_min_kib_per_s: {self.speed_limit_min_kib_per_s:g} is above "
                             f"speed_limit_max_kib_per_s ({self.speed_limit_max_kib_per_s:g}); allowed: min <= max")
        if self.span_bytes is not None and self.span_bytes <= 0:
            raise ValueError("span_bytes: must be > 0")
        return self


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
    engine_settings: dict[str, Any] = Field(default_factory=dict, description="what the scenario sets for its engine "
                                            "(md: group_thread_cnt), checked against the engine's Settings")
    rebuild: RebuildSpec = RebuildSpec()

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
        need = 1 if self.engine == "none" else MIN_DRIVES[self.level]
        if self.drives < need:
            raise ValueError(f"drives: RAID{self.level} needs at least {need} drives, got {self.drives}")
        allowed = LAYOUTS_BY_LEVEL[self.level]
        if self.layout is not None and self.layout not in allowed:
            raise ValueError(f"layout: RAID{self.level} allows {', '.join(allowed)}; got {self.layout!r}")
        if self.level == 10 and self.drives < self.near_copies:
            raise ValueError(f"drives: RAID10 with {self.near_copies} near copies needs at least {self.near_copies} drives")
        if self.namespace_bytes is not None and self.namespace_bytes % SECTOR_BYTES:
            raise ValueError(f"namespace_bytes: must be a whole number of {SECTOR_BYTES}-byte sectors, got {self.namespace_bytes}")
        catalog = _catalog(info)
        if catalog is not None and self.engine in catalog.engines:
            self._engine_geometry(catalog.engines[self.engine].engine_kind)
        if catalog is not None and self.drive in catalog.drives:
            capacity = catalog.drives[self.drive].capacity_bytes.value
            if self.namespace_bytes is not None and not 0 < self.namespace_bytes <= capacity:
                raise ValueError(
                    f"namespace_bytes: {format_bytes_decimal(self.namespace_bytes)} is larger than the drive "
                    f"({self.drive}: {format_bytes_decimal(capacity)}); allowed: 1 byte to {format_bytes_decimal(capacity)}"
                )
            if self.strip_bytes > (self.namespace_bytes or capacity):
                raise ValueError("strip_bytes: larger than the member namespace")
        if catalog is not None and self.engine in catalog.engines:
            engine = catalog.engines[self.engine]
            if self.level not in engine.levels:
                raise ValueError(f"engine: {self.engine} supports RAID levels {list(engine.levels)}, not {self.level}")
            if engine.device and engine.device.max_drives and self.drives > engine.device.max_drives.value:
                raise ValueError(f"drives: {self.engine} supports at most {engine.device.max_drives.value} drives, got {self.drives}")
        return self

    def _engine_geometry(self, engine_kind: str) -> None:
        """md (and VROC, which is md) takes only a power-of-two chunk for RAID5, 6 and 10
        (mdadm: "chunk size must be a power of 2"); a card's or vendor's RAID10 is a stripe of
        mirror sets, so its drive count is a multiple of the copies (md's near layout is not)."""
        strip = self.strip_bytes
        if engine_kind in MD_ENGINE_KINDS and self.level in (5, 6, 10) and strip & (strip - 1):
            raise ValueError(f"strip_bytes: md takes only a power-of-two chunk for RAID{self.level}, got {strip} bytes; "
                             f"allowed: 4 KiB, 8 KiB, 16 KiB, ... (powers of two)")
        if engine_kind not in MD_ENGINE_KINDS and self.level == 10 and self.drives % self.near_copies:
            raise ValueError(f"drives: RAID10 on engine {self.engine} mirrors sets of {self.near_copies} drives; "
                             f"the count must be a multiple of {self.near_copies}, got {self.drives}")

    @property
    def resolved_layout(self) -> str:
        return self.layout or DEFAULT_LAYOUT_BY_LEVEL[self.level]

    @property
    def single_drive(self) -> bool:
        """One drive used directly (engine ``none``): the SSD model answers, not the array simulator."""
        return self.engine == "none" and self.drives == 1


MD_ENGINE_KINDS = ("md", "vroc")
"""Engine kinds that run Linux md's code (its chunk rules apply)."""


class FaultSpec(Spec):
    """One event on the array's timeline: ``fail`` (the drive dies), ``pull`` (removed while I/O
    runs; to the array the same as a failure) or ``replace`` (a new drive in its slot: rebuild)."""

    at_s: Seconds = Field(ge=0)
    drive: int = Field(ge=0)
    action: Literal["fail", "pull", "replace"]


class OltpSpec(Spec):
    """An OLTP database on the array: the profile (catalog ``oltp``), the data and its cache."""

    profile: str = "sysbench-oltp-rw"
    dataset_bytes: Bytes = Field(gt=0)
    buffer_pool_bytes: Bytes = Field(ge=0)

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "oltp", "OLTP profile")


FioRw = Literal["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "oltp"]


class WorkloadSpec(Spec):
    """A fio-like job: the names and meanings follow fio (sizes binary for bare k/m/g as fio's)."""

    name: str = Field(min_length=1, max_length=200)
    rw: FioRw
    bs: Bytes = 4096
    iodepth: int = Field(default=1, ge=1, le=65536)
    numjobs: int = Field(default=1, ge=1, le=65536)
    rwmixread: int = Field(default=50, ge=0, le=100)
    size: Bytes | None = Field(default=None, gt=0)
    offset_increment: Bytes = Field(default=0, ge=0)
    offset: Bytes = Field(default=0, ge=0, description="fio's offset: where job 0's region starts on the device")
    rw_skip_bytes: int = Field(default=0, ge=-(2**40), le=2**40, description="fio's rw=read:N for a sequential job: bytes "
                               "skipped after each I/O (negative: the stream runs backwards)")
    random_run_ios: int = Field(default=1, ge=1, le=2**20, description="fio's rw=randread:N: I/Os issued one after the "
                                "other from each random offset")
    runtime: Seconds | None = Field(default=None, gt=0)
    ramp_time: Seconds = Field(default=0.0, ge=0)
    time_based: bool = False
    ioengine: str = "libaio"
    hipri: FioBool = False
    fixedbufs: FioBool = False
    registerfiles: FioBool = False
    sqthread_poll: FioBool = False
    iodepth_batch_submit: int = Field(default=1, ge=1, le=65536)
    iodepth_batch_complete_min: int = Field(default=1, ge=1, le=65536)
    users: int | None = Field(default=None, ge=1, le=1_000_000, description="OLTP: concurrent clients (closed loop)")
    oltp: OltpSpec | None = None
    random_distribution: str = Field(default="random", max_length=4000, description=(
        "fio's random_distribution (random, zipf:THETA, pareto:H, normal:DEV, zoned:A/R:..., zoned_abs:A/SIZE:...): "
        "the hotness of the written data, which sets the drives' hot/cold write amplification (nvsim.ftl.skew)"))
    drive_state: Literal["steady", "fresh"] = Field(default="steady", description=(
        "steady: drives preconditioned (garbage collection at the steady-state WAF); fresh: secure-erased drives "
        "writing into free blocks, WAF 1 (nvsim.ftl.load)"))
    deallocated_fraction: float = Field(default=0.0, ge=0.0, lt=1.0, description=(
        "share of the written region deallocated (trimmed, NVMe Dataset Management) and not rewritten: it holds no "
        "valid data, so the FTL counts it as spare"))

    @field_validator("random_distribution")
    @classmethod
    def _distribution(cls, value: str) -> str:
        try:
            check_distribution(value)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}; allowed: random, zipf:THETA, pareto:H, normal:DEV, zoned:A/R:..., "
                             f"zoned_abs:A/SIZE:... (fio's random_distribution)") from None
        return value.strip()

    @model_validator(mode="after")
    def _oltp_fields(self) -> "WorkloadSpec":
        if self.rw == "oltp" and (self.oltp is None or self.users is None):
            raise ValueError("rw: oltp needs users and an oltp section (profile, dataset_bytes, buffer_pool_bytes)")
        if self.rw != "oltp" and (self.oltp is not None or self.users is not None):
            raise ValueError(f"users/oltp: only for rw: oltp, not rw: {self.rw}")
        return self

    @property
    def is_oltp(self) -> bool:
        return self.rw == "oltp"

    @field_validator("ioengine")
    @classmethod
    def _known_ioengine(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "host_io", "ioengine")

    @model_validator(mode="before")
    @classmethod
    def _sync_engine_depth_one(cls, data: Any, info: ValidationInfo) -> Any:
        """A synchronous ioengine (psync, sync, pvsync, pvsync2) has one I/O in flight per job
        whatever ``iodepth`` says: fio sets iodepth to 1 for engines flagged FIO_SYNCIO."""
        entry = _host_io_entry(data, info)
        if entry is not None and entry.synchronous and data.get("iodepth", 1) != 1:
            return {**data, "iodepth": 1}
        return data

    @model_validator(mode="after")
    def _options_of_ioengine(self, info: ValidationInfo) -> "WorkloadSpec":
        """Each fio option set must be one the ioengine takes (catalog ``options``)."""
        catalog = _catalog(info)
        entry = catalog.host_io.get(self.ioengine) if catalog is not None else None
        if entry is None:
            return self
        for option in ("hipri", "fixedbufs", "registerfiles", "sqthread_poll"):
            if getattr(self, option) and option not in entry.options:
                allowed = ", ".join(entry.options) or "none of hipri, fixedbufs, registerfiles, sqthread_poll"
                raise ValueError(f"{option}: ioengine {self.ioengine} does not take it; its options: {allowed}")
        return self

    @field_validator("bs")
    @classmethod
    def _sector_multiple(cls, value: int) -> int:
        if value <= 0 or value % 512:
            raise ValueError(f"must be a positive multiple of 512 bytes, got {value}")
        return value

    @property
    def read_fraction(self) -> float:
        if self.rw in ("read", "randread"):
            return 1.0
        if self.rw in ("write", "randwrite"):
            return 0.0
        return self.rwmixread / 100.0

    @property
    def is_random(self) -> bool:
        return self.rw.startswith("rand")


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


class ScenarioSpec(Spec):
    """A runnable set-up: a platform, one array on it, the workloads to run, and the seed."""

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=MAX_TEXT_CHARS)
    source: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    platform: str
    array: ArraySpec
    placement: PlacementSpec = PlacementSpec()
    topology: TopologySpec | None = None
    workloads: tuple[WorkloadSpec, ...] = Field(default=(), max_length=MAX_WORKLOADS)
    faults: tuple[FaultSpec, ...] = Field(default=(), max_length=MAX_FAULTS)
    seed: int = Field(default=1, ge=0, lt=2**64)

    @model_validator(mode="after")
    def _unique_workload_names(self) -> "ScenarioSpec":
        seen: set[str] = set()
        for i, workload in enumerate(self.workloads):
            if workload.name in seen:
                raise ValueError(f"workloads[{i}].name: {workload.name!r} names two workloads; names must be unique")
            seen.add(workload.name)
        return self

    @model_validator(mode="after")
    def _faults_fit(self) -> "ScenarioSpec":
        n = self.array.drives
        last = -1.0
        missing: dict[int, float] = {}  # drive -> when it failed (or was pulled), until replaced
        for i, fault in enumerate(self.faults):
            if fault.drive >= n:
                raise ValueError(f"faults[{i}].drive: drive {fault.drive} does not exist; the array has drives 0..{n - 1}")
            if fault.at_s < last:
                raise ValueError(f"faults[{i}].at_s: events must be in time order ({fault.at_s:g} s after {last:g} s)")
            last = fault.at_s
            if fault.action == "replace":
                if fault.drive not in missing:
                    raise ValueError(f"faults[{i}].action: replace of drive {fault.drive}, which has not failed; a "
                                     f"replace follows the drive's fail or pull")
                del missing[fault.drive]
            elif fault.drive in missing:
                raise ValueError(f"faults[{i}].action: {fault.action} of drive {fault.drive}, which failed at "
                                 f"{missing[fault.drive]:g} s and has not been replaced")
            else:
                missing[fault.drive] = fault.at_s
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
        for label, values in (("drive_sockets", place.drive_sockets or ()), ("job_sockets", place.job_sockets or ()),
                              ("engine_socket", (place.engine_socket,))):
            bad = [v for v in values if not 0 <= v < sockets]
            if bad:
                raise ValueError(f"placement.{label}: socket {bad[0]} does not exist; {self.platform} has sockets 0..{sockets - 1}")
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
