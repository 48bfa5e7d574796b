"""Catalog entries for the server and its drives: PCIe generations, NVMe drives, CPUs, slots, platforms.

Each entry is a frozen spec read from ``models/`` (``nvsim.catalog``), its numbers ``Cited`` and
physical (finite, > 0 unless allowed 0), its PCIe generation and link widths ones the
specification defines, a price given with its date and kind.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ..errors import not_printable
from ..units import format_number, format_rate_decimal
from .base import (BYTES_PER_S_RANGE, CLOCK_GHZ_RANGE, PCIE_TRANSFER_RATES_GT_PER_S, _within, PRICE_DATE, SECTOR_BYTES, Bytes, BytesPerS, Cited, Count, PhysicalNumbers,
                   PriceKind, Spec, _link_width, _payload_size, _pcie_generation, _price_together)
from .nand import ENTRY_NAME, NAND_NAME

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

    @model_validator(mode="after")
    def _specified_rate(self) -> "PcieGenerationSpec":
        """The generation's transfer rate is its specification's (a typo moved every link's bandwidth;
        1e300 GT/s made the ACK interval 0 s)."""
        rate, specified = self.transfer_rate_gt_per_s.value, PCIE_TRANSFER_RATES_GT_PER_S[self.generation]
        if rate != specified:
            raise ValueError(f"transfer_rate_gt_per_s: {format_number(rate)} GT/s; PCIe Gen{self.generation} runs at "
                             f"{format_number(specified)} GT/s per lane (PCI Express Base Specification); allowed: "
                             f"{format_number(specified)}")
        return self


DRIVE_TEXT_CHARS_MAX = 100
"""Longest name, vendor, model, part number or form factor of a drive: model names are a few dozen
characters ('PM1743 7.68 TB')."""
DRIVE_CAPACITY_BYTES_RANGE = (10**9, 10**15)
"""A drive's user capacity, 1 GB to 1 PB (the largest drives shipping hold 245.76 TB)."""
DRIVE_RAW_NAND_BYTES_MAX = 2 * 10**15
"""A drive's raw NAND, up to twice the largest capacity allowed."""
DRIVE_LINK_CEILING_BYTES_PER_S = 64e9 * 16 / 8
"""The most a drive's link can carry one way: PCIe 6.0 (64 GT/s per lane, the newest the PCI-SIG
has published) x16 (the widest link), before any protocol overhead: 128 GB/s. No datasheet rate
(sequential bytes, or random I/Os times their block) can exceed it."""
DRIVE_DWPD_MAX = 100.0
"""The most endurant drives are rated 100 drive writes per day."""
DRIVE_RANDOM_IO_BYTES = 4096
"""The block of a datasheet's random I/O rates (4K random read and write IOPS)."""
DRIVE_FIGURE_RANGES = {
    **{name: (1e6, DRIVE_LINK_CEILING_BYTES_PER_S, "a sequential rate in bytes/s, up to what a PCIe 6.0 x16 link "
                                                   "carries one way")
       for name in ("seq_read_bytes_per_s", "seq_write_bytes_per_s")},
    **{name: (1e3, DRIVE_LINK_CEILING_BYTES_PER_S / DRIVE_RANDOM_IO_BYTES,
              "4K random I/Os a second: a hard disk does 200, a PCIe 6.0 x16 link carries 31.25M")
       for name in ("rand_read_iops", "rand_write_iops")},
    "read_latency_us": (1.0, 1e6, "a QD1 4 KiB latency, from a microsecond (storage-class memory) to a second"),
    "write_latency_us": (1.0, 1e6, "a QD1 4 KiB latency, from a microsecond (storage-class memory) to a second"),
    "mtbf_hours": (1e4, 1e8, "a datasheet MTBF (drives state 1 to 2.5 million hours)"),
    "warranty_years": (0.1, 20.0, "a warranty of months to two decades"),
}
"""Datasheet figures held to what a drive can have (a typo of 1e300 us made every rebuild lose data; a
rand_read_iops of 1e-300 made graid-gen5-raid6 predict 2.4e-299 IOPS). The dashboard's datasheet form
holds its rate fields to these ranges too (dashboard.datasheet.BOUNDS)."""


def _ranged(name: str) -> str:
    """A drive field's description: its range (``DRIVE_FIGURE_RANGES``)."""
    low, high, what = DRIVE_FIGURE_RANGES[name]
    return f"{what}: allowed {format_number(low)} to {format_number(high)}"


def _drive_bounds(drive: "DriveSpec") -> None:
    """A datasheet's figures within what a drive can physically have (one ValueError naming the field)."""
    for name in ("name", "vendor", "model", "part_number", "form_factor"):
        text = getattr(drive, name) or ""
        if len(text) > DRIVE_TEXT_CHARS_MAX:
            raise ValueError(f"{name}: {len(text):,} characters; at most {DRIVE_TEXT_CHARS_MAX}")
        if (why := not_printable(text)) is not None:  # printed in tables, reports and terminals
            raise ValueError(f"{name}: {why}")
    idle = drive.power_idle_w
    for name in ("power_active_read_w", "power_active_write_w"):
        active = getattr(drive, name)
        if idle is not None and active is not None and idle.value > active.value:
            raise ValueError(f"power_idle_w: {idle.value:g} W is above {name} ({active.value:g} W); a drive draws "
                             f"least idle")
    low, high = DRIVE_CAPACITY_BYTES_RANGE
    if not low <= drive.capacity_bytes.value <= high:
        raise ValueError(f"capacity_bytes: {drive.capacity_bytes.value:,} bytes; a drive holds {low:,} to {high:,}")
    if drive.raw_nand_bytes.value > DRIVE_RAW_NAND_BYTES_MAX:
        raise ValueError(f"raw_nand_bytes: {drive.raw_nand_bytes.value:,} bytes; at most {DRIVE_RAW_NAND_BYTES_MAX:,}")
    for name, bytes_per_s in drive.datasheet_bytes_per_s.items():
        if bytes_per_s > DRIVE_LINK_CEILING_BYTES_PER_S:
            raise ValueError(f"{name}: {bytes_per_s:,.0f} bytes/s; no drive's link carries more than "
                             f"{DRIVE_LINK_CEILING_BYTES_PER_S:,.0f} (PCIe 6.0 x16)")
    if drive.dwpd.value > DRIVE_DWPD_MAX:
        raise ValueError(f"dwpd: {format_number(drive.dwpd.value)}; at most {format_number(DRIVE_DWPD_MAX)} drive writes per day")
    moved = drive.datasheet_bytes_per_s
    for direction in ("read", "write"):
        sequential, random = moved[f"seq_{direction}_bytes_per_s"], moved[f"rand_{direction}_iops"]
        if 2 * sequential < random:  # large transfers never move much fewer bytes than small random ones
            raise ValueError(
                f"seq_{direction}_bytes_per_s: {format_rate_decimal(sequential)} is below half of what the drive's "
                f"random {direction}s move ({format_rate_decimal(random)}: rand_{direction}_iops x rand_block_bytes), "
                f"and a datasheet's sequential rate is about that or more; a bare number is bytes per second: write "
                f"the datasheet's figure with its unit (e.g. '6800 MB/s')")
    for name, (low, high, what) in DRIVE_FIGURE_RANGES.items():
        value = getattr(drive, name).value
        if not low <= value <= high:
            raise ValueError(f"{name}: {format_number(value)}; {what}: allowed {format_number(low)} to {format_number(high)}")


class DriveSpec(PhysicalNumbers):
    """An NVMe SSD model and capacity point, from its datasheet."""

    AT_MOST_ONE = ("uber_per_bit",)

    name: str
    kind: Literal["drive"] = "drive"
    vendor: str
    model: str
    part_number: str | None = None
    nand: str = Field(pattern=NAND_NAME, description="its NAND type, a models/nand_types/ entry (checked by the catalog)")
    nand_generation: str | None = Field(
        default=None, pattern=ENTRY_NAME, description="models/nand/ entry: its own, else its family's, else its NAND "
                                                      "type's default (filled in by the catalog)")
    nand_die_bytes: Cited[Bytes] | None = Field(
        default=None, description="die capacity, from its NAND generation (filled in by the catalog, never written in "
                                  "a drive file): raw NAND over it is the SSD model's die count")
    form_factor: str
    capacity_bytes: Cited[Bytes]
    raw_nand_bytes: Cited[Bytes]
    pcie_generation: Cited[int]
    lanes: Cited[int]
    seq_read_bytes_per_s: Cited[BytesPerS] = Field(description=_ranged("seq_read_bytes_per_s"))
    seq_write_bytes_per_s: Cited[BytesPerS] = Field(description=_ranged("seq_write_bytes_per_s"))
    seq_block_bytes: Cited[Bytes]
    rand_read_iops: Cited[Count] = Field(description=_ranged("rand_read_iops"))
    rand_write_iops: Cited[Count] = Field(description=_ranged("rand_write_iops"))
    rand_block_bytes: Cited[Bytes]
    rand_queue_depth: Cited[int]
    read_latency_us: Cited[float] = Field(description=_ranged("read_latency_us"))
    write_latency_us: Cited[float] = Field(description=_ranged("write_latency_us"))
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

    @property
    def datasheet_bytes_per_s(self) -> dict[str, float]:
        """Each datasheet rate as the bytes per second it moves, by its field: the sequential rates,
        and the random I/Os times their block (what a link must carry for them)."""
        return {"seq_read_bytes_per_s": self.seq_read_bytes_per_s.value,
                "seq_write_bytes_per_s": self.seq_write_bytes_per_s.value,
                "rand_read_iops": self.rand_read_iops.value * self.rand_block_bytes.value,
                "rand_write_iops": self.rand_write_iops.value * self.rand_block_bytes.value}

    @model_validator(mode="after")
    def _raw_covers_capacity(self) -> "DriveSpec":
        if self.raw_nand_bytes.value <= self.capacity_bytes.value:  # no spare: garbage collection has no block to fill
            raise ValueError(f"raw_nand_bytes: {self.raw_nand_bytes.value:,} bytes; allowed: more than capacity_bytes "
                             f"({self.capacity_bytes.value:,}), the spare NAND garbage collection writes into")
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _link_width("lanes", self.lanes.value)
        for name in ("capacity_bytes", "seq_block_bytes", "rand_block_bytes", "indirection_unit_bytes"):
            if getattr(self, name).value % SECTOR_BYTES:
                raise ValueError(f"{name}: must be a whole number of {SECTOR_BYTES}-byte sectors, got {getattr(self, name).value}")
        iu = self.indirection_unit_bytes.value
        if iu & (iu - 1):
            raise ValueError(f"indirection_unit_bytes: {iu:,} bytes; allowed: a power of two (4 KiB, 16 KiB, 64 KiB: a "
                             f"whole fraction or multiple of a NAND page)")
        _drive_bounds(self)
        return _price_together(self)


CPU_FIGURE_RANGES = {
    "cores_per_socket": (1, 1024, "cores of one CPU package (the largest ship 288)"),
    "threads_per_core": (1, 8, "hardware threads of one core (SMT8 at most)"),
    **{name: (*CLOCK_GHZ_RANGE[:2], "a CPU clock in GHz (a figure in MHz is a thousand times this)")
       for name in ("base_clock_ghz", "boost_clock_ghz", "all_core_boost_clock_ghz")},
    "cache_line_transfer_ns": (1.0, 1e4, "a contended cache line's move between two cores in ns (measured: 20 to 300)"),
    "cross_socket_line_factor": (1.0, 10.0, "a cross-socket cache-line move over a same-socket one (measured: about 2)"),
}
"""A CPU's datasheet figures held to what a CPU can have: a clock of 3750 GHz (MHz written as GHz)
made every core a thousand times faster, and 6,400,000 cores stopped ``nvsim run`` with a traceback
(its canonical jobs, one per logical CPU, passed fio's numjobs limit: 8 sockets x 1024 cores x 8 threads
is 65,536, the most fio takes)."""
PLATFORM_FIGURE_RANGES = {
    "memory_transfer_rate_mt_per_s": (100.0, 20_000.0, "a DRAM transfer rate in MT/s (DDR5-4800 is 4800; 4.8 is GT/s)"),
    "inter_socket_bytes_per_s": BYTES_PER_S_RANGE,
}
"""A platform's memory rate held to what DRAM runs at: 4.8 (GT/s written as MT/s) made DRAM every
workload's bottleneck."""


class CpuSpec(PhysicalNumbers):
    model: str
    sockets: int = Field(ge=1, le=8)
    cores_per_socket: Cited[int]
    threads_per_core: Cited[int]
    smt_throughput_gain: Cited[float] | None = Field(
        default=None, description="Throughput of a core running two busy hardware threads over one; None: no gain")
    base_clock_ghz: Cited[float]
    boost_clock_ghz: Cited[float] = Field(description="The datasheet's maximum boost clock (one active core)")
    all_core_boost_clock_ghz: Cited[float] | None = Field(
        default=None, description="The clock every core holds with all cores busy (AMD's 'All Core Boost Speed', "
                                  "Intel's all-core turbo); None: the base clock")
    cache_line_transfer_ns: Cited[float] = Field(description="Time a contended cache line (a spinlock and the "
                                                 "counter beside it) takes to move between two cores of one socket; "
                                                 "1 to 10,000 ns")
    cross_socket_line_factor: Cited[float] | None = Field(
        default=None, description="Time a contended cache line (a lock, a shared counter) takes to reach a core on "
                                  "the other socket over one on the same socket, 1 to 10; None: one socket")

    @model_validator(mode="after")
    def _clocks_ordered(self) -> "CpuSpec":
        _within(self, CPU_FIGURE_RANGES)
        smt = self.smt_throughput_gain
        if smt is not None and not 1.0 <= smt.value <= self.threads_per_core.value:
            raise ValueError(f"smt_throughput_gain: {format_number(smt.value)}; a core's threads together do at least one "
                             f"thread's work and at most threads_per_core's ({self.threads_per_core.value}): allowed 1 to "
                             f"{self.threads_per_core.value}")
        base, boost = self.base_clock_ghz.value, self.boost_clock_ghz.value
        if base > boost:  # without an all-core figure the base clock is the loaded one: it was taken above boost
            raise ValueError(f"base_clock_ghz: {base:g} GHz is above boost_clock_ghz ({boost:g} GHz); allowed: at most "
                             f"the boost clock")
        all_core = self.all_core_boost_clock_ghz
        if all_core is not None and not base <= all_core.value <= boost:
            raise ValueError(f"all_core_boost_clock_ghz: allowed from base_clock_ghz ({base}) to boost_clock_ghz "
                             f"({boost}), got {all_core.value}")
        return self

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
    inter_socket_bytes_per_s: Cited[BytesPerS] | None = Field(
        default=None, description="between the sockets, one way; 1 MB/s to 10 TB/s")
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
        _payload_size("max_payload_bytes", self.max_payload_bytes.value)
        _within(self, PLATFORM_FIGURE_RANGES)
        if self.cpu.sockets > 1 and self.inter_socket_bytes_per_s is None:  # traffic between them had no bound
            raise ValueError(f"inter_socket_bytes_per_s: a platform of {self.cpu.sockets} sockets needs the link "
                             f"between them (the CPU datasheet's UPI or Infinity Fabric links x their rate, one way)")
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
