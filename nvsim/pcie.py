"""PCIe link model derived from the PCI Express Base Specification (Gen3/4/5).

Three layers, as in pvlib: pure functions for each term of the link budget, a ``PcieLink`` that
holds one link's parameters (catalog generation + lanes + MPS/MRRS), and methods that give the
effective bandwidth of a transfer or the I/O rate of NVMe commands on it.

Per direction, a link carries ``GT/s x lanes x 128/130 / 8`` bytes per second, less one SKP
ordered set every ``skp_interval_blocks`` blocks. Each TLP costs its header plus framing (STP token
and LCRC); payloads are cut at the max payload size (posted writes) or completion size (read
completions); DLLPs (ACK, UpdateFC) acknowledging TLPs travel in the opposite direction.
An NVMe I/O adds the doorbells, the SQE fetch, the CQE and an MSI-X write.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .constants import PAGE_BYTES  # the host memory page one PRP entry maps
from .specs import PcieGenerationSpec

NVME_SQE_BYTES = 64
NVME_CQE_BYTES = 16
NVME_DOORBELL_BYTES = 4
MSIX_BYTES = 4
PRP_ENTRY_BYTES = 8
NVME_READ_TRAVERSALS = 4
"""One-way trips across the path (switch, retimer) on an NVMe read's critical path: the SQ doorbell
down, the SQE fetch (MemRd up, CplD down), then data, CQE and MSI-X up (posted, pipelined)."""
NVME_WRITE_TRAVERSALS = 6
"""The same for an NVMe write: doorbell down, SQE fetch up and down, data fetch (MemRd up, CplD
down), CQE and MSI-X up."""


def raw_bytes_per_s(transfer_rate_gt_per_s: float, lanes: int, payload_bits: int = 128, total_bits: int = 130) -> float:
    """Line rate after encoding, one direction: GT/s x lanes x (128/130) / 8."""
    return transfer_rate_gt_per_s * 1e9 * lanes * payload_bits / total_bits / 8.0


def skp_efficiency(skp_interval_blocks: int) -> float:
    """Fraction of blocks left for TLPs and DLLPs after SKP ordered sets (Gen3+: one per interval)."""
    return skp_interval_blocks / (skp_interval_blocks + 1.0)


def tlp_count(payload_bytes: int, max_payload_bytes: int) -> int:
    """TLPs needed to carry a payload cut at ``max_payload_bytes`` (at least one)."""
    return max(1, math.ceil(payload_bytes / max_payload_bytes))


def tlp_wire_bytes(payload_bytes: int, max_payload_bytes: int, header_bytes: int, framing_bytes: int) -> int:
    """Bytes on the wire for a payload split into TLPs of at most ``max_payload_bytes``."""
    return payload_bytes + tlp_count(payload_bytes, max_payload_bytes) * (header_bytes + framing_bytes)


def dllp_bytes_for(tlps_acknowledged: float, dllp_bytes: int, tlps_per_ack: float, tlps_per_fc: float) -> float:
    """ACK and UpdateFC DLLP bytes sent back for ``tlps_acknowledged`` TLPs received."""
    return tlps_acknowledged * dllp_bytes * (1.0 / tlps_per_ack + 1.0 / tlps_per_fc)


@dataclass(frozen=True)
class DirectionLoad:
    """Wire bytes and TLP count one I/O puts on one direction of a link."""

    tlp_bytes: float
    tlps: float


@dataclass(frozen=True)
class PcieLink:
    """One PCIe link: a generation's constants, a width, and the negotiated MPS / MRRS.

    ``read_completion_bytes`` is the payload of each completion a root complex returns to a device
    read; it defaults to the MPS (assumed: root complexes coalesce up to MPS; see docs/models/pcie.md).
    """

    generation: PcieGenerationSpec
    lanes: int
    max_payload_bytes: int = 256
    max_read_request_bytes: int = 512
    read_completion_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.lanes not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"lanes: must be 1, 2, 4, 8, 16 or 32, got {self.lanes}")
        for field_name in ("max_payload_bytes", "max_read_request_bytes"):
            value = getattr(self, field_name)
            if value not in (128, 256, 512, 1024, 2048, 4096):
                raise ValueError(f"{field_name}: must be a power of two from 128 to 4096 bytes, got {value}")

    @property
    def name(self) -> str:
        return f"PCIe Gen{self.generation.generation} x{self.lanes}"

    @property
    def completion_bytes(self) -> int:
        return self.read_completion_bytes or self.max_payload_bytes

    def usable_bytes_per_s(self) -> float:
        """Per direction: line rate after encoding and SKP ordered sets (TLPs and DLLPs share it)."""
        g = self.generation
        return raw_bytes_per_s(g.transfer_rate_gt_per_s.value, self.lanes, g.encoding_payload_bits.value,
                               g.encoding_total_bits.value) * skp_efficiency(g.skp_interval_blocks.value)

    # -- building blocks -------------------------------------------------------------
    def _posted(self, payload: int) -> DirectionLoad:
        g = self.generation
        n = tlp_count(payload, self.max_payload_bytes)
        return DirectionLoad(tlp_wire_bytes(payload, self.max_payload_bytes, g.tlp_header_bytes.value, g.tlp_framing_bytes.value), n)

    def _read_request(self, payload: int) -> tuple[DirectionLoad, DirectionLoad]:
        """A device or host read: requests one way, completions with data the other way."""
        g = self.generation
        n_req = tlp_count(payload, self.max_read_request_bytes)
        req = DirectionLoad(n_req * (g.tlp_header_bytes.value + g.tlp_framing_bytes.value), n_req)
        n_cpl = tlp_count(payload, self.completion_bytes)
        cpl = DirectionLoad(tlp_wire_bytes(payload, self.completion_bytes, g.completion_header_bytes.value, g.tlp_framing_bytes.value), n_cpl)
        return req, cpl

    def nvme_io_load(self, transfer_bytes: int, is_read: bool) -> tuple[float, float]:
        """Wire bytes (to_host, to_device) that one NVMe I/O of ``transfer_bytes`` costs, DLLPs included.

        is_read: the drive reads media and DMA-writes data to host memory (data flows to the host).
        """
        up: list[DirectionLoad] = []
        down: list[DirectionLoad] = []
        down.append(self._posted(NVME_DOORBELL_BYTES))           # SQ tail doorbell
        req, cpl = self._read_request(NVME_SQE_BYTES)             # device fetches the SQE
        up.append(req); down.append(cpl)
        prp_entries = max(0, math.ceil(transfer_bytes / PAGE_BYTES) - 2)
        if prp_entries:                                           # PRP list fetch beyond two pages
            req, cpl = self._read_request(prp_entries * PRP_ENTRY_BYTES)
            up.append(req); down.append(cpl)
        if is_read:
            up.append(self._posted(transfer_bytes))               # data: MemWr to host memory
        else:
            req, cpl = self._read_request(transfer_bytes)         # data: MemRd + CplD from host memory
            up.append(req); down.append(cpl)
        up.append(self._posted(NVME_CQE_BYTES))                   # completion queue entry
        up.append(self._posted(MSIX_BYTES))                       # interrupt
        down.append(self._posted(NVME_DOORBELL_BYTES))            # CQ head doorbell
        g = self.generation
        up_tlps = sum(d.tlps for d in up)
        down_tlps = sum(d.tlps for d in down)
        ack = (g.dllp_bytes.value, g.tlps_per_ack_dllp.value, g.tlps_per_flow_control_dllp.value)
        to_host = sum(d.tlp_bytes for d in up) + dllp_bytes_for(down_tlps, *ack)
        to_device = sum(d.tlp_bytes for d in down) + dllp_bytes_for(up_tlps, *ack)
        return to_host, to_device

    def nvme_iops(self, transfer_bytes: int, is_read: bool) -> float:
        """Most NVMe I/Os per second the link carries: the busier direction sets it."""
        to_host, to_device = self.nvme_io_load(transfer_bytes, is_read)
        return self.usable_bytes_per_s() / max(to_host, to_device)

    def nvme_data_bytes_per_s(self, transfer_bytes: int, is_read: bool) -> float:
        """Effective data bandwidth of NVMe I/Os of ``transfer_bytes``."""
        return self.nvme_iops(transfer_bytes, is_read) * transfer_bytes


def bandwidth_table_markdown(catalog, generations=(3, 4, 5), widths=(4, 8, 16), mps_values=(256, 512),
                             transfers=(4096, 131072)) -> str:
    """The docs table of effective NVMe data bandwidth (GB/s, decimal), computed by this model."""
    header = "| link | MPS | " + " | ".join(
        f"{t // 1024} KiB {'read' if r else 'write'}" for t in transfers for r in (True, False)) + " | 4 KiB read IOPS |"
    rule = "|" + "---|" * (header.count("|") - 1)
    rows = [header, rule]
    for gen in generations:
        for lanes in widths:
            for mps in mps_values:
                link = PcieLink(catalog.pcie(gen), lanes, mps)
                cells = [f"{link.nvme_data_bytes_per_s(t, r) / 1e9:.2f}" for t in transfers for r in (True, False)]
                rows.append(f"| Gen{gen} x{lanes} | {mps} | " + " | ".join(cells) + f" | {link.nvme_iops(4096, True) / 1e6:.2f}M |")
    return "\n".join(rows)
