"""Catalog entries for what sits between the host and the drives, and what loads them: PCIe
switches, retimers, backplanes, a RAID engine and its device, host I/O paths (fio ioengines), OLTP
profiles.

Each entry is a frozen spec read from ``models/`` (``nvsim.catalog``), its numbers ``Cited`` and
physical (finite, > 0 unless allowed 0).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from ..raid import LEVELS
from ..units import format_number
from .base import (BYTES_PER_S_RANGE, CLOCK_GHZ_RANGE, COST_US_RANGE, FACTOR_RANGE, IOPS_RANGE, PRICE_DATE, Bytes, BytesPerS,
                   Cited, Count, PhysicalNumbers, PriceKind, Text, _link_width, _pcie_generation, _price_together, _within)

ENGINE_PARAMETER_COUNTS = {"rebuild_threads": ("threads", 256), "rebuild_rows_per_thread": ("stripe rows", 1024),
                           "rebuild_inflight": ("requests", 65_536)}
"""Engine parameters that count: what, and the most allowed (a scenario's ``recon_threads`` and
``recon_rows_per_thread`` are held to the same 256 and 1,024; 65,536 entries fill an NVMe queue)."""
MAX_ENGINE_IO_KIB = 2.0**31
"""The largest rebuild request: 2^32 sectors of 512 bytes (a request's sector count is 32 bits)."""
ENGINE_PARAMETER_RANGES = (
    ("_us_per_kib", 0.0, 1e3, "a cost per KiB of data in µs, up to a millisecond (1 MB/s)"),
    ("_us", *COST_US_RANGE[:2], "a cost per operation in µs, up to a second"),
    ("_gb_per_s", BYTES_PER_S_RANGE[0] / 1e9, BYTES_PER_S_RANGE[1] / 1e9,
     "a data rate in GB/s, from 1 MB/s to 10 TB/s (above any memory system's)"),
    ("_ghz", *CLOCK_GHZ_RANGE),
)
"""An engine parameter's physical range by its unit (the end of its name): request_cpu_us of 1e300
gave md 2.3e-292 I/Os a second, a parity rate of 1e-300 GB/s alike."""
ENGINE_DEVICE_RANGES = {
    **{name: IOPS_RANGE for name in ("max_read_iops", "max_write_iops", "max_raid5_write_iops", "max_raid6_write_iops")},
    **{name: BYTES_PER_S_RANGE for name in ("max_read_bytes_per_s", "max_write_bytes_per_s", "max_raid5_write_bytes_per_s",
                                            "max_raid6_write_bytes_per_s")},
    "cache_mt_per_s": (100.0, 20_000.0, "a DRAM transfer rate in MT/s (DDR4-3200 is 3200)"),
}
"""A RAID engine device's datasheet ceilings, held to what a device can have."""
LATENCY_NS_RANGE = (0.1, 1e5, "a latency through one part in ns, up to 100 µs (a switch's cut-through: about 100)")
HOST_IO_COSTS = ("submit_us", "complete_us", "per_page_us", "submit_syscall_us", "file_ref_us", "reap_syscall_us",
                 "interrupt_us", "poll_us", "switch_us", "wake_us", "seek_us")


def check_engine_parameters(parameters: dict[str, Cited[float]]) -> None:
    """An engine's (or its family's) parameters as their units allow, one ValueError naming the
    first that is not: every one finite and not negative (a time of 0 is free); a rate or clock,
    which the work is divided by, more than 0; a rebuild request a whole number of sectors; a
    count a whole number from 1; a share of the drives' time in (0, 1]; a cost, rate or clock within
    its unit's range (``ENGINE_PARAMETER_RANGES``)."""
    for name, cited in parameters.items():
        value, got = cited.value, f"parameters.{name}: {format_number(cited.value)}"
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"parameters.{name}: must be a finite number >= 0, got {value!r}")
        low, high, what = next((r[1:] for r in ENGINE_PARAMETER_RANGES if name.endswith(r[0])), (0.0, math.inf, ""))
        if value > 0 and not low <= value <= high:
            raise ValueError(f"{got}; {what}: allowed {format_number(low)} to {format_number(high)}")
        if name.endswith(("_per_s", "_ghz")) and value == 0:
            what = "clock" if name.endswith("_ghz") else "rate"
            raise ValueError(f"{got}; a {what} the engine's work is divided by: allowed more than 0")
        if name.endswith("_io_kib") and not (value * 2 == int(value * 2) and 0.5 <= value <= MAX_ENGINE_IO_KIB):
            raise ValueError(f"{got} KiB; a rebuild request is a whole number of 512-byte sectors: allowed 0.5 to "
                             f"{format_number(MAX_ENGINE_IO_KIB)} KiB")
        if name in ENGINE_PARAMETER_COUNTS and not (value == int(value) and 1 <= value <= ENGINE_PARAMETER_COUNTS[name][1]):
            what, most = ENGINE_PARAMETER_COUNTS[name]
            raise ValueError(f"{got}; a count of {what}: allowed a whole number from 1 to {format_number(most)}")
        if name.endswith("_share") and not 0 < value <= 1:
            raise ValueError(f"{got}; a share of the drives' time: allowed more than 0 and at most 1")


class FabricPartSpec(PhysicalNumbers):
    """What a switch, retimer or backplane costs and draws (docs/cost-power.md): a price with its
    date and kind, and ``power_w``, what the part draws in service (its typical figure: a switch's
    or retimer's draw hardly moves with traffic, so one figure, not an idle and an active one)."""

    price_usd: Cited[float] | None = Field(default=None, description="one part, US dollars")
    price_date: str | None = Field(default=None, pattern=PRICE_DATE)
    price_kind: PriceKind | None = None
    power_w: Cited[float] | None = Field(default=None, description="typical draw in service, watts")

    @model_validator(mode="after")
    def _price_complete(self) -> "FabricPartSpec":
        return _price_together(self)


class SwitchSpec(FabricPartSpec):
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
    latency_ns: Cited[float] = Field(description="port to port, ns; 0.1 to 100,000")
    internal_bytes_per_s: Cited[BytesPerS] | None = Field(default=None, description="1 MB/s to 10 TB/s")

    @model_validator(mode="after")
    def _generation_exists(self) -> "SwitchSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _within(self, {"latency_ns": LATENCY_NS_RANGE, "internal_bytes_per_s": BYTES_PER_S_RANGE})
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


class RetimerSpec(FabricPartSpec):
    """A PCIe retimer on a link: the latency it adds each way."""

    name: str
    kind: Literal["pcie_retimer"] = "pcie_retimer"
    vendor: str
    model: str
    pcie_generation: Cited[int]
    latency_ns: Cited[float] = Field(description="added each way, ns; 0.1 to 100,000")

    @model_validator(mode="after")
    def _generation_exists(self) -> "RetimerSpec":
        _pcie_generation("pcie_generation", self.pcie_generation.value)
        _within(self, {"latency_ns": LATENCY_NS_RANGE})
        return self


class BackplaneSpec(FabricPartSpec):
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


GPU_COST_PARAMETERS = ("gpu_stripe_us", "gpu_parity_block_us")
"""A GPU RAID family's costs on its reference GPU: the fitted values a family may keep (at most 2)."""
GPU_DRIVER_FITTED = ("driver_member_page_us", "rebuild_share")
"""The driver's host-side values (its CPU per member page, its rebuild's paced share), fitted on
the driver version the family's reference numbers were measured with (at most 2 more)."""


class GpuDriverSpec(PhysicalNumbers):
    """One driver version of a GPU RAID family: where written data goes and what the version
    changes against the version the family's costs were stated with (factors on the GPU's costs)."""

    AT_MOST_ONE = ()
    write_data_path: Literal["peer_to_peer", "through_gpu"] = Field(
        description="peer_to_peer: host data moves between host memory and the drives, the GPU gets parity work only; "
                    "through_gpu: written data crosses the GPU card's link")
    stripe_update_factor: Cited[float] | None = Field(
        default=None, description="the GPU's time per stripe update, times this (a driver's faster parity pipeline: < 1); "
                                  "0.01 to 100")
    degraded_read_factor: Cited[float] | None = Field(
        default=None, description="the GPU's time per degraded-read reconstruction, times this; 0.01 to 100")

    @model_validator(mode="after")
    def _positive(self) -> "GpuDriverSpec":
        _within(self, {"stripe_update_factor": FACTOR_RANGE, "degraded_read_factor": FACTOR_RANGE})
        return self


class GpuSpec(PhysicalNumbers):
    """The GPU a SupremeRAID-like card is built on, from NVIDIA's specifications."""

    AT_MOST_ONE = ()
    product: str
    architecture: str
    memory_bytes_per_s: Cited[BytesPerS] = Field(description="the GPU's memory bandwidth; 1 MB/s to 10 TB/s")
    fp32_tflops: Cited[float] = Field(description="single-precision compute, TFLOPS (boost clock); 0.1 to 10,000")

    @model_validator(mode="after")
    def _physical_ranges(self) -> "GpuSpec":
        _within(self, {"memory_bytes_per_s": BYTES_PER_S_RANGE, "fp32_tflops": (0.1, 1e4, "single-precision TFLOPS")})
        return self


class GpuFamilySpec(PhysicalNumbers):
    """A GPU RAID family (models/gpu_families/): the GPU its costs are stated on (``reference_gpu``,
    with the advertised command rate of the card it was measured in), its driver versions, and
    its parameters: the GPU's costs on the reference GPU (at most 2 fitted), the driver's host
    costs and rebuild policy (at most 2 fitted). A SKU (models/engines/*.yaml with ``family:``
    and ``device.gpu``) adds its GPU, link and datasheet limits; its costs follow from its GPU's
    against the reference's (``nvsim.engines.gpu``)."""

    name: str
    kind: Literal["gpu_family"] = "gpu_family"
    vendor: str
    levels: tuple[int, ...]
    reference_gpu: GpuSpec
    reference_max_read_iops: Cited[Count] = Field(description="the advertised 4 KiB read rate of the card on the reference "
                                                              "GPU; 1,000 to 1,000,000,000 I/Os a second")
    reference_max_read_bytes_per_s: Cited[BytesPerS] | None = Field(
        default=None, description="the advertised read bandwidth of the card on the reference GPU: the family's data "
        "path, the limit of a SKU that states none; 1 MB/s to 10 TB/s")
    default_driver: str
    drivers: dict[str, GpuDriverSpec]
    parameters: dict[str, Cited[float]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _few_fitted(self) -> "GpuFamilySpec":
        if self.default_driver not in self.drivers:
            raise ValueError(f"default_driver: {self.default_driver!r} is not one of drivers ({', '.join(self.drivers)})")
        for names, what in ((GPU_COST_PARAMETERS, "the GPU's costs"), (GPU_DRIVER_FITTED, "the driver's values")):
            fitted = [n for n, c in self.parameters.items() if c.basis == "fitted" and n in names]
            if len(fitted) > 2:
                raise ValueError(f"parameters: a GPU family keeps at most 2 fitted values of {what}, got {len(fitted)}")
        other = [n for n, c in self.parameters.items() if c.basis == "fitted"
                 and n not in GPU_COST_PARAMETERS + GPU_DRIVER_FITTED]
        if other:
            raise ValueError(f"parameters.{other[0]}: only {', '.join(GPU_COST_PARAMETERS + GPU_DRIVER_FITTED)} may be fitted")
        check_engine_parameters(self.parameters)
        _within(self, {"reference_max_read_iops": IOPS_RANGE, "reference_max_read_bytes_per_s": BYTES_PER_S_RANGE})
        return self


class EngineDeviceSpec(PhysicalNumbers):
    """The engine's own device (GPU or RAID card): its link and advertised limits (an I/O ceiling
    1,000 to 1,000,000,000 a second, a data rate 1 MB/s to 10 TB/s, its cache DRAM 100 to 20,000
    MT/s: ``ENGINE_DEVICE_RANGES``)."""

    product: str
    pcie_generation: Cited[int]
    lanes: Cited[int]
    max_read_iops: Cited[Count] | None = None
    max_write_iops: Cited[Count] | None = None
    max_read_bytes_per_s: Cited[BytesPerS] | None = None
    max_write_bytes_per_s: Cited[BytesPerS] | None = None
    max_drives: Cited[int] | None = None
    drive_link_lanes: Cited[int] | None = Field(
        default=None, description="the PCIe lanes each drive gets on the card's own ports (tri-mode: x1); None: the bay's")
    data_through_device: bool = Field(description="True when host data crosses the device's own link (hardware RAID)")
    # a RAID card's datasheet (nvsim.engines.card turns them into its mechanisms' costs)
    roc: str | None = Field(default=None, description="the RAID-on-chip (controller) the card is built on")
    max_raid5_write_iops: Cited[Count] | None = Field(default=None, description="RAID5 4 KiB random write ceiling")
    max_raid6_write_iops: Cited[Count] | None = Field(default=None, description="RAID6 4 KiB random write ceiling")
    max_raid5_write_bytes_per_s: Cited[BytesPerS] | None = Field(default=None, description="RAID5 sequential write ceiling")
    max_raid6_write_bytes_per_s: Cited[BytesPerS] | None = Field(default=None, description="RAID6 sequential write ceiling")
    cache_bytes: Cited[Bytes] | None = Field(default=None, description="the write-back cache (card DRAM)")
    cache_mt_per_s: Cited[float] | None = Field(default=None, description="the cache DRAM's transfer rate (DDR4-2666: 2666)")
    cache_bus_bits: Cited[int] | None = Field(default=None, description="the cache DRAM's data bus width (ECC bits excluded)")
    max_virtual_disks: Cited[int] | None = None
    gpu: GpuSpec | None = Field(default=None, description="the GPU of a GPU RAID card (its costs scale from it)")
    power_idle_w: Cited[float] | None = Field(default=None, description="the device idle")
    power_active_w: Cited[float] | None = Field(default=None, description="the device fully busy (its board power)")

    @model_validator(mode="after")
    def _generation_exists(self) -> "EngineDeviceSpec":
        _pcie_generation("device.pcie_generation", self.pcie_generation.value)
        _link_width("lanes", self.lanes.value)
        if self.drive_link_lanes is not None:
            _link_width("drive_link_lanes", self.drive_link_lanes.value)
        _within(self, ENGINE_DEVICE_RANGES)
        return self


HostIoOption = Literal["hipri", "fixedbufs", "registerfiles", "sqthread_poll"]
"""fio options of a host I/O path that change its costs (``WorkloadSpec`` fields of the same names)."""


class HostIoSpec(PhysicalNumbers):
    """A host I/O path (fio ioengine): CPU time a core spends per I/O, at a reference clock, and
    what parts of it batching, polling, registered buffers and files remove (``nvsim.host_io``).

    ``submit_us`` and ``complete_us`` are the costs with one syscall per I/O and interrupt
    completions (fio's defaults); ``submit_syscall_us``, ``file_ref_us``, ``reap_syscall_us`` and
    ``interrupt_us`` are the parts of them that a batch shares, registered files, a batch of reaps
    and polling remove. Each cost is 0 to a second (1,000,000 µs), the clock 0.1 to 10 GHz. ``switch_us`` (CPU) and ``wake_us`` (latency) are paid when the job sleeps
    for its one I/O in flight (depth 1, not polled).
    """

    NON_NEGATIVE = HOST_IO_COSTS

    name: str
    kind: Literal["host_io"] = "host_io"
    description: Text
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

    @model_validator(mode="after")
    def _physical_ranges(self) -> "HostIoSpec":
        """Each cost 0 to a second (µs), the clock 0.1 to 10 GHz."""
        _within(self, {**{name: COST_US_RANGE for name in HOST_IO_COSTS}, "reference_clock_ghz": CLOCK_GHZ_RANGE})
        return self


class CardFirmwareSpec(PhysicalNumbers):
    """What a RAID card family's firmware does, as its user guide documents it (shared by its SKUs).

    * ``rebuild_rate_percent``: the default share of the card's work a rebuild takes while host
      I/O runs (Broadcom/Dell "rebuild rate"); ``rebuild_priorities``: the modes a family names
      instead or as well (Microchip "low/medium/high"), each as the share it stands for, keyed by
      nvsim's ``array.rebuild.priority`` (low, normal, high);
    * ``passthrough_modes``: what the family calls drives passed through unRAIDed (JBOD, eHBA);
    * ``read_ahead``: whether the family reads ahead on sequential reads (documented default);
    * ``write_back``: whether writes are acknowledged from the protected cache (the default policy);
    * ``raid10_copies``: the mirror widths a RAID10 of the family takes, as its user guide states
      them (MegaRAID: two-drive RAID 1 groups spanned; Microchip: also "RAID 10 (Triple)"); None
      where no source in reach states them (then not checked);
    * ``strip_sizes_kib``: the strip sizes a virtual drive of the family takes, as its user guide
      lists them (MegaRAID: 8 KB to 1024 KB); None where no source in reach lists them (then not
      checked).
    """

    AT_MOST_ONE = ()
    rebuild_rate_percent: Cited[float]
    rebuild_priorities: dict[str, Cited[float]] = Field(default_factory=dict)
    passthrough_modes: tuple[str, ...] = ("JBOD",)
    read_ahead: bool = False
    write_back: bool = True
    raid10_copies: Cited[tuple[int, ...]] | None = None
    strip_sizes_kib: Cited[tuple[int, ...]] | None = None

    @model_validator(mode="after")
    def _percentages(self) -> "CardFirmwareSpec":
        for name, cited in (("rebuild_rate_percent", self.rebuild_rate_percent), *(
                (f"rebuild_priorities.{k}", v) for k, v in self.rebuild_priorities.items())):
            if not 0 < cited.value <= 100:
                raise ValueError(f"{name}: a percentage, allowed more than 0 up to 100, got {cited.value!r}")
        unknown = sorted(set(self.rebuild_priorities) - {"low", "normal", "high"})
        if unknown:
            raise ValueError(f"rebuild_priorities: {unknown[0]!r} is not a priority of array.rebuild; allowed: low, normal, high")
        copies = self.raid10_copies.value if self.raid10_copies else (2,)
        if not copies or any(not 2 <= n <= 4 for n in copies):
            raise ValueError(f"raid10_copies: mirror widths of 2 to 4 drives (at least one), got {list(copies)}")
        strips = self.strip_sizes_kib.value if self.strip_sizes_kib else (4,)
        if not strips or any(n < 4 for n in strips):
            raise ValueError(f"strip_sizes_kib: strip sizes of at least 4 KiB (at least one), got {list(strips)}")
        return self


class CardGenerationStep(PhysicalNumbers):
    """A family stated against its predecessor (``CardFamilySpec.scaled_from``): the vendor's
    "N x the IOPS, M x the bandwidth" of the previous generation, which divides the predecessor's
    parity-engine costs (per stripe update by the IOPS factor, per KiB by the bandwidth factor)
    where the family's own datasheets give no write ceiling."""

    family: str
    iops_factor: Cited[float] = Field(description="the predecessor's IOPS times this; 0.01 to 100")
    bandwidth_factor: Cited[float] = Field(description="the predecessor's bandwidth times this; 0.01 to 100")

    @model_validator(mode="after")
    def _physical_ranges(self) -> "CardGenerationStep":
        _within(self, {"iops_factor": FACTOR_RANGE, "bandwidth_factor": FACTOR_RANGE})
        return self


class CardFamilySpec(PhysicalNumbers):
    """A RAID card family (models/card_families/): its RAID-on-chip and generation, its firmware's
    behaviour, and at most two fitted mechanism parameters shared by every SKU. A SKU
    (models/engines/*.yaml with ``family:``) adds its datasheet: link, ceilings, cache."""

    name: str
    kind: Literal["card_family"] = "card_family"
    vendor: str
    roc: str = Field(description="the RAID-on-chip family (e.g. Broadcom SAS3916)")
    generation: str = Field(description="the family's generation, in the vendor's words")
    levels: tuple[int, ...]
    data_through_card: bool = Field(default=True, description="False where host data never crosses the card "
                                                              "(Microchip SmartRAID 4300: the drives sit on the host's lanes)")
    firmware: CardFirmwareSpec
    scaled_from: CardGenerationStep | None = None
    parameters: dict[str, Cited[float]] = Field(default_factory=dict, description="fitted values shared by the SKUs (at most 2)")

    @model_validator(mode="after")
    def _few_fitted(self) -> "CardFamilySpec":
        fitted = [name for name, cited in self.parameters.items() if cited.basis == "fitted"]
        if len(fitted) > 2:
            raise ValueError(f"parameters: a card family keeps at most 2 fitted values, got {len(fitted)} ({', '.join(fitted)})")
        check_engine_parameters(self.parameters)
        return self


class EngineSpec(PhysicalNumbers):
    """A RAID engine: what does the parity and I/O work, and its mechanism parameters. A RAID
    card SKU names its ``family`` (models/card_families/): the catalog fills in its vendor,
    levels, firmware and the family's parameters (``nvsim.engines.card.complete_card``)."""

    name: str
    kind: Literal["engine"] = "engine"
    engine_kind: str = Field(description="the engine plug-in that models it (nvsim.engines.ENGINES)")
    vendor: str
    product: str
    levels: tuple[int, ...]
    family: str | None = Field(default=None, description="the card family (models/card_families/) of a RAID card SKU")
    firmware: CardFirmwareSpec | None = Field(default=None, description="its family's firmware behaviour (filled from the family)")
    gpu_family: GpuFamilySpec | None = Field(default=None, description="a GPU RAID SKU's family (filled from models/gpu_families/)")
    device: EngineDeviceSpec | None = None
    cpu_vendors: tuple[str, ...] | None = Field(
        default=None, description="makers of the CPUs it runs on (Intel VROC: VMD is in Intel Xeon's root complex); None: any")
    parameters: dict[str, Cited[float]] = Field(default_factory=dict, description=(
        "its mechanism parameters, each in its unit's range (ENGINE_PARAMETER_RANGES): a cost in µs 0 to a second, per "
        "KiB 0 to 1,000 µs, a rate in GB/s 0.001 to 10,000, a clock 0.1 to 10 GHz"))
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
        check_engine_parameters(self.parameters)
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
    description: Text
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
