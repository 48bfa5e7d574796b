"""GPU RAID (SupremeRAID-like): off the data path, parity on the GPU.

* Reads: data moves drive -> host memory directly; the GPU handles each host command
  (``1 / max_read_iops`` of the card's datasheet per host I/O; a card that states none: the
  family's reference card's, scaled by the GPUs' compute) and the card's advertised read
  bandwidth is a rate limit (``max_read_bytes_per_s``).
* Writes: the host driver issues the member I/Os of a host write -- the reads of old data and
  parity (read-modify-write, or the survivors when degraded) as well as the writes --
  (``driver_member_page_us`` of host CPU per member page they move); the GPU does one stripe
  update per stripe touched: ``gpu_stripe_us`` plus
  ``gpu_parity_block_us`` per parity block (1 for RAID5, 2 for RAID6), after the old data and
  parity are read (read-modify-write) when the stripe is not written whole.
* The card is a **family** (models/gpu_families/) and SKUs: the family states its costs on a
  reference GPU; a SKU's GPU (``device.gpu``, NVIDIA's figures) scales them -- the per-stripe
  work with the GPU's single-precision compute, the parity blocks (streamed through GPU memory)
  with its memory bandwidth (``GpuCosts``).
* The driver version (``array.engine_settings.driver``, default the family's) sets the write data
  path -- ``peer_to_peer``: written data is not sent over the GPU's own link (seed 000's 134 GB/s
  of RAID6 writes is about ten times what the SR-1010's PCIe 4.0 x8 link carries); ``through_gpu``:
  every written byte crosses the GPU card's link (``device_down_bytes``) -- and its factors on the
  GPU's time per stripe update and per degraded-read reconstruction (the 2.x driver's redesigned
  parity pipeline, from its release notes).
* Degraded reads that need the missing member: one GPU reconstruction per stripe touched
  (``gpu_stripe_us`` + ``gpu_parity_block_us``, scaled as above) after the survivors are read.
* Rebuild: the card reads the survivors and writes the new member itself, ``rebuild_io_kib`` per
  request, ``gpu_parity_block_us`` per stripe row reconstructed (rows are batched: no per-stripe
  set-up). While host I/O runs it paces the rebuild to ``rebuild_share`` of the busy time of the
  drive the rebuild loads most (the vendor's rebuild priority scales the share: low 0.5x, high 2x),
  as a RAID card's "rebuild rate" percentage does; with no host I/O it keeps ``rebuild_inflight``
  requests in flight. Pacing, not a fixed depth, is what the MySQL brief shows: its RAID10 and
  RAID6 rebuilds run at similar speeds (880 and 700 MB/s) though RAID6 reads six survivors per
  byte and RAID10 one, and at 512 users they cost the users 27-31% of their transactions rather
  than yield to them (docs/models/rebuild.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from pydantic import Field

from ..constants import PAGE_BYTES
from ..errors import InputError
from ..names import device_name
from ..raid import parity_members
from ..specs import Cited, GpuFamilySpec
from .base import Engine, EngineParameters, EngineServer, EngineSettings, EngineWork, per_host_sum
from .card import sku_of_family
from .rebuild_protocol import Reconstruction


class GpuParameters(EngineParameters):
    """A GPU RAID card's costs (models/engines/graid-*.yaml); host CPU costs at ``reference_clock_ghz``."""

    reference_clock_ghz: Cited[float]
    driver_member_page_us: Cited[float]
    gpu_stripe_us: Cited[float]
    gpu_parity_block_us: Cited[float]
    rebuild_io_kib: Cited[float]
    rebuild_inflight: Cited[float]
    rebuild_share: Cited[float]


class GpuSettings(EngineSettings):
    """What a scenario sets for a GPU RAID card: its driver version (one of its family's)."""

    driver: str | None = Field(default=None, description="the driver version (one of the card family's drivers; "
                                                         "default: the family's default_driver)")


@dataclass(frozen=True)
class GpuCosts:
    """A GPU card's costs (seconds) and how its GPU and driver set them."""

    command_s: float
    stripe_update_s: float  # fixed per stripe update (scaled by compute)
    parity_block_s: float  # per parity block (scaled by memory bandwidth)
    write_factor: float  # the driver's factor on a write's stripe update
    degraded_factor: float  # the driver's factor on a degraded read's reconstruction
    through_gpu: bool  # written data crosses the card's link
    driver: str
    why: str


class GpuEngine(Engine):
    Parameters = GpuParameters
    rebuild_parity_on = "the GPU"
    Settings = GpuSettings

    def __post_init__(self) -> None:
        super().__post_init__()
        refusal = self.entry_refusal(self.spec, {"driver": self.settings.driver})
        if refusal:
            field, why = refusal.split(": ", 1)
            raise InputError(f"array.{field}", why)

    @classmethod
    def entry_refusal(cls, entry, settings: dict) -> str | None:
        """A driver the card's GPU family does not have (a driver that is not text is the schema's to refuse)."""
        parsed = cls.parsed_settings(settings)
        family, wanted = entry.gpu_family, parsed.driver if parsed is not None else None
        if wanted is not None and (family is None or wanted not in family.drivers):
            known = ", ".join(family.drivers) if family is not None else "none (the card names no GPU family)"
            return f"engine_settings.driver: {entry.name} has no driver {wanted!r}; allowed: {known}"
        return None

    @classmethod
    def settings_label(cls, entry, settings: dict | None) -> str:
        """The driver version the card runs (the family's default where the scenario names none):
        its write data path and factors set the GPU's costs, so a report names it."""
        family = entry.gpu_family
        version = (settings or {}).get("driver") or (family.default_driver if family is not None else None)
        return f"driver {version}" if version else ""

    def own_server(self) -> EngineServer:
        return EngineServer(f"GPU ({device_name(self.spec.device.product)})" if self.spec.device else "GPU", 1, on_host_cpu=False)

    @cached_property
    def costs(self) -> GpuCosts:
        return gpu_costs(self.spec, self.v, self.settings.driver)

    def device_bandwidth_bytes_per_s(self) -> float | None:
        """The card's advertised read bandwidth, else its family's reference card's: reads go from
        the drives to host memory by the driver's peer-to-peer path, which the GPU does not scale, so
        a SKU that states no figure reads no faster than the card the family was measured in (the
        T1000-based SR-1000 out-read the SR-1010, 336 against its 260 GB/s, having no limit at all)."""
        own = super().device_bandwidth_bytes_per_s()
        if own is not None:
            return own
        family = self.spec.gpu_family
        reference = family.reference_max_read_bytes_per_s if family is not None else None
        return reference.value if reference is not None else None

    def host_data_crosses_link(self) -> bool:
        """Written data crosses the GPU card's link where its driver moves it through the GPU."""
        return self.costs.through_gpu

    def work(self, plan, is_write, chunks, host_bytes, level) -> EngineWork:
        n = len(is_write)
        out = self.empty_work(plan, n, host_bytes)
        p = self.v
        costs = self.costs
        parities = parity_members(level)
        out.pre_s[:] = costs.command_s
        if not is_write.any():  # reads only: no host or stripe work of writes (empty_work's zeros)
            out.device_read_bytes[:] = float(host_bytes)
            return self.degraded_work(out, plan, is_write, host_bytes, level)
        # a host write's member pages, read (RMW, reconstruction) or written: seed 000's sequential
        # RAID6 writes, which read nothing, cost the host half what a cost per page written predicts
        member_pages = per_host_sum(plan.length_bytes / PAGE_BYTES, plan.host_index, n)
        out.submit_cpu_ref_s = np.where(is_write, p.driver_member_page_us * 1e-6 * member_pages, 0.0)
        stripe_s = costs.stripe_update_s + costs.parity_block_s * parities
        out.mid_s = np.where(is_write & (parities > 0), costs.write_factor * stripe_s * plan.stripes_touched, 0.0)
        out.device_read_bytes = np.where(is_write, 0.0, float(host_bytes))
        if costs.through_gpu:
            out.device_down_bytes = np.where(is_write, float(host_bytes), 0.0)
        return self.degraded_work(out, plan, is_write, host_bytes, level)

    def reconstruction(self, level: int) -> Reconstruction:
        """A degraded read's reconstruction: one GPU stripe operation per stripe touched
        (``gpu_stripe_us`` + ``gpu_parity_block_us`` per parity block, scaled by the GPU) after the
        survivors are read (``mid_s``), times the driver's ``degraded_read_factor``."""
        costs = self.costs
        stripe_s = costs.stripe_update_s + costs.parity_block_s * parity_members(level)
        return Reconstruction("mid_s", s_per_stripe=costs.degraded_factor * stripe_s)

    def rebuild_work(self, plan, n, rows_per_step, level) -> EngineWork:
        out = self.empty_work(plan, n, 0)
        out.mid_s = np.full(n, self.costs.parity_block_s * rows_per_step if level in (5, 6) else 0.0)
        return out


def gpu_costs(spec, values, driver: str | None) -> GpuCosts:
    """A GPU card's costs from its family's values on the reference GPU, its own GPU's figures
    (per stripe update: the reference's compute over its own; per parity block: the reference's
    memory bandwidth over its own), its advertised command rate (else the reference card's, scaled
    by compute) and its driver version's write path and factors."""
    device = spec.device
    family: GpuFamilySpec | None = spec.gpu_family
    gpu = device.gpu if device is not None else None
    compute, memory = 1.0, 1.0
    why = []
    if family is not None and gpu is not None:
        ref = family.reference_gpu
        compute = ref.fp32_tflops.value / gpu.fp32_tflops.value
        memory = ref.memory_bytes_per_s.value / gpu.memory_bytes_per_s.value
        why.append(f"{gpu.product}: compute x{1 / compute:.2f}, memory bandwidth x{1 / memory:.2f} of the {ref.product}")
    if device is not None and device.max_read_iops is not None:
        command = 1.0 / device.max_read_iops.value
    elif family is not None:
        command = compute / family.reference_max_read_iops.value
        why.append("command rate: the reference card's, scaled by compute")
    else:
        command = 0.0
    version = driver or (family.default_driver if family is not None else "")
    spec_driver = family.drivers.get(version) if family is not None else None
    write_factor = spec_driver.stripe_update_factor.value if spec_driver and spec_driver.stripe_update_factor else 1.0
    degraded_factor = spec_driver.degraded_read_factor.value if spec_driver and spec_driver.degraded_read_factor else 1.0
    through = spec_driver is not None and spec_driver.write_data_path == "through_gpu"
    if version:
        why.append(f"driver {version}: {spec_driver.write_data_path if spec_driver else 'peer_to_peer'}")
    return GpuCosts(command, 1e-6 * values.gpu_stripe_us * compute, 1e-6 * values.gpu_parity_block_us * memory,
                    write_factor, degraded_factor, through, version, "; ".join(why))


def complete_gpu(raw: dict, family: GpuFamilySpec) -> dict:
    """A GPU RAID SKU's mapping completed from its family: kind, vendor, levels, the family (its
    reference GPU and drivers) and its parameters. A SKU may not restate a family parameter."""
    out = sku_of_family(raw, "gpu", family)
    out["gpu_family"] = family.model_dump()
    device = out.get("device")
    if isinstance(device, dict):
        device = dict(device)
        device.setdefault("data_through_device", False)  # the drives hang on the host, not on the GPU
        out["device"] = device
    return out
