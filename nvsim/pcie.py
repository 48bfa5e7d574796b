"""PCIe link model derived from the PCI Express Base Specification (Gen3/4/5).

Three layers, as in pvlib: pure functions for each term of the link budget, a ``PcieLink`` that
holds one link's parameters (catalog generation + lanes + MPS/MRRS), and methods that give the
effective bandwidth of a transfer or the I/O rate of NVMe commands on it.

Per direction, a link carries ``GT/s x lanes x 128/130 / 8`` bytes per second, less one SKP
ordered set every ``skp_interval_blocks`` blocks. Each TLP costs its header plus framing (STP token
and LCRC); payloads are cut at the max payload size (posted writes) or completion size (read
completions); DLLPs (ACK, UpdateFC) acknowledging TLPs travel in the opposite direction.
An NVMe I/O adds the doorbells, the SQE fetch, the CQE and an MSI-X write.

DLLPs follow the specification's cadence (PCI Express Base Specification 6.3, Table 3-12 "Maximum
Ack Latency Limits" and Table 2-54 "Maximum UpdateFC Transmission Latency Guidelines", 8.0 GT/s and
higher, by the receiver's MPS and the link's width): a receiver sends an Ack at the latest one Ack
Latency Limit after a TLP, so a stream gets one Ack per limit (at most one per TLP), and one
UpdateFC per credit type it holds finite credits of, per UpdateFC latency (an endpoint and a root
complex without peer-to-peer advertise infinite completion credits, Table 2-50: no UpdateFC-Cpl).

``dma_transfer`` adds what the wire does not show, for the docs' small-transfer table: read
requests in flight limited by the requester's tags (BW = S x N / RTT, the specification's
formula, section 2.2.6.2) and each TLP's processing time in the device's DMA engine and in the
root complex (``DmaEndpoints``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .constants import PAGE_BYTES  # the host memory page one PRP entry maps
from .specs import PCIE_PAYLOAD_SIZES, PcieGenerationSpec

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


ACK_LATENCY_LIMIT_SYMBOLS = {  # Table 3-12 (8.0 GT/s and higher), symbol times; x32 from Table 2-54
    128: {1: 333, 2: 224, 4: 169, 8: 163, 16: 144, 32: 129},
    256: {1: 512, 2: 313, 4: 214, 8: 203, 16: 168, 32: 141},
    512: {1: 655, 2: 385, 4: 250, 8: 182, 16: 182, 32: 148},
    1024: {1: 1167, 2: 641, 4: 378, 8: 246, 16: 246, 32: 180},
    2048: {1: 2191, 2: 1153, 4: 634, 8: 374, 16: 374, 32: 244},
    4096: {1: 4239, 2: 2177, 4: 1146, 8: 630, 16: 630, 32: 372},
}
"""The longest a receiver may hold an Ack (PCIe Base Specification 6.3, Table 3-12), by its MPS and
the link width, in symbol times; Table 2-54's UpdateFC transmission latency guidelines give the
same values for x1 to x16 (and these for x32), so one table serves both."""
UPDATEFC_LATENCY_SYMBOLS = ACK_LATENCY_LIMIT_SYMBOLS
BITS_PER_SYMBOL = 8
"""A symbol time is the time one lane takes for 8 bits (8 UI): 1 ns at 8 GT/s, 0.25 ns at 32 GT/s."""
DLLP_FIXED_POINT_STEPS = 4
"""Passes of the DLLP cadence's fixed point (an I/O's time sets its DLLPs, which lengthen it): the
DLLP bytes are a few per cent of the busy direction at most, so it settles in two."""


def symbol_time_s(transfer_rate_gt_per_s: float) -> float:
    """Seconds of one symbol on a lane: 8 UI at the transfer rate."""
    return BITS_PER_SYMBOL / (transfer_rate_gt_per_s * 1e9)


def dllps_per_interval(tlps_received: float, busy_s: float, interval_s: float) -> float:
    """DLLPs of one kind a receiver sends while ``tlps_received`` TLPs arrive over ``busy_s``: one
    per ``interval_s`` (the specification's latency limit) while they stream, at most one per TLP."""
    if tlps_received <= 0:
        return 0.0
    return min(tlps_received, max(1.0, busy_s / interval_s))


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


@dataclass(frozen=True)
class DirectionLoad:
    """Wire bytes and TLP count one I/O puts on one direction of a link, and the TLPs' credit type
    at the receiver: "posted" (memory writes), "non_posted" (read requests) or "completion"."""

    tlp_bytes: float
    tlps: float
    credit: str = "posted"


FINITE_CREDITS = ("posted", "non_posted")
"""Credit types a receiver returns with UpdateFC DLLPs; completions are infinite at an endpoint and
at a root complex without peer-to-peer (PCIe Base Specification 6.3, Table 2-50)."""


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
            if value not in PCIE_PAYLOAD_SIZES:
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

    def ack_interval_s(self) -> float:
        """The Ack Latency Limit of this link's MPS and width (Table 3-12), in seconds."""
        symbols = ACK_LATENCY_LIMIT_SYMBOLS[self.max_payload_bytes][self.lanes]
        return symbols * symbol_time_s(self.generation.transfer_rate_gt_per_s.value)

    def update_fc_interval_s(self) -> float:
        """The UpdateFC transmission latency guideline of this MPS and width (Table 2-54), in seconds."""
        symbols = UPDATEFC_LATENCY_SYMBOLS[self.max_payload_bytes][self.lanes]
        return symbols * symbol_time_s(self.generation.transfer_rate_gt_per_s.value)

    # -- building blocks -------------------------------------------------------------
    def _posted(self, payload: int) -> DirectionLoad:
        g = self.generation
        n = tlp_count(payload, self.max_payload_bytes)
        return DirectionLoad(tlp_wire_bytes(payload, self.max_payload_bytes, g.tlp_header_bytes.value, g.tlp_framing_bytes.value), n)

    def _read_request(self, payload: int) -> tuple[DirectionLoad, DirectionLoad]:
        """A device or host read: requests one way, completions with data the other way."""
        g = self.generation
        n_req = tlp_count(payload, self.max_read_request_bytes)
        req = DirectionLoad(n_req * (g.tlp_header_bytes.value + g.tlp_framing_bytes.value), n_req, "non_posted")
        n_cpl = tlp_count(payload, self.completion_bytes)
        cpl = DirectionLoad(tlp_wire_bytes(payload, self.completion_bytes, g.completion_header_bytes.value,
                                           g.tlp_framing_bytes.value), n_cpl, "completion")
        return req, cpl

    def dllp_bytes(self, received: list[DirectionLoad], busy_s: float) -> float:
        """DLLP bytes a receiver sends back for the TLPs ``received`` over ``busy_s`` seconds: Acks
        at the Ack Latency Limit, one UpdateFC per finite credit type at its latency (each at most
        one per TLP)."""
        tlps = sum(d.tlps for d in received)
        count = dllps_per_interval(tlps, busy_s, self.ack_interval_s())
        for credit in FINITE_CREDITS:
            typed = sum(d.tlps for d in received if d.credit == credit)
            count += dllps_per_interval(typed, busy_s, self.update_fc_interval_s())
        return count * self.generation.dllp_bytes.value

    def with_dllps(self, up: list[DirectionLoad], down: list[DirectionLoad]) -> tuple[float, float]:
        """Wire bytes (to_host, to_device) of the TLPs ``up`` and ``down`` with the DLLPs each side
        returns, at the rate where the busier direction is saturated (a fixed point: the DLLPs
        lengthen the time they are paced by)."""
        up_tlp = sum(d.tlp_bytes for d in up)
        down_tlp = sum(d.tlp_bytes for d in down)
        to_host, to_device = up_tlp, down_tlp
        for _ in range(DLLP_FIXED_POINT_STEPS):
            busy_s = max(to_host, to_device) / self.usable_bytes_per_s()
            to_host = up_tlp + self.dllp_bytes(down, busy_s)
            to_device = down_tlp + self.dllp_bytes(up, busy_s)
        return to_host, to_device

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
        return self.with_dllps(up, down)

    def nvme_iops(self, transfer_bytes: int, is_read: bool) -> float:
        """Most NVMe I/Os per second the link carries: the busier direction sets it (a group of one
        read, or of one write: ``nvme_mixed_rate``)."""
        return self.nvme_mixed_rate(transfer_bytes, 1.0 if is_read else 0.0, 0.0 if is_read else 1.0)

    def nvme_mixed_rate(self, transfer_bytes: int, reads: float, writes: float) -> float:
        """Most groups of ``reads`` NVMe reads and ``writes`` NVMe writes of ``transfer_bytes`` per
        second the link carries: each direction carries its own bytes (PCIe is full duplex), so
        the busier direction's sum sets it (a RAID5 small write's member reads go up, its member
        writes down)."""
        read_up, read_down = self.nvme_io_load(transfer_bytes, True)
        write_up, write_down = self.nvme_io_load(transfer_bytes, False)
        busier = max(reads * read_up + writes * write_up, reads * read_down + writes * write_down)
        return self.usable_bytes_per_s() / busier

    def nvme_data_bytes_per_s(self, transfer_bytes: int, is_read: bool) -> float:
        """Effective data bandwidth of NVMe I/Os of ``transfer_bytes``."""
        return self.nvme_iops(transfer_bytes, is_read) * transfer_bytes


TAGS_8_BIT = 256
"""Read requests a requester may have outstanding with 8-bit tags (Extended Tag Field Enable; PCIe
Base Specification 6.3, section 2.2.6.2); 10-bit tags allow 768, the default of Gen4+ completers."""
TAGS_10_BIT = 768
FC_UNIT_BYTES = 16
"""One data flow-control credit: 4 DW (PCIe Base Specification, section 2.6.1)."""


@dataclass(frozen=True)
class DmaEndpoints:
    """What the two ends of a link add to a DMA transfer beyond the wire (docs/models/pcie.md,
    "Small transfers"): the requester's read tags, the root complex's read round trip, and the
    time each TLP occupies the device's DMA engine and the root complex (each a pipeline: a TLP
    per that time at most).

    Defaults (the sources named in docs/models/pcie.md): 256 tags (8-bit tags); a 560 ns DMA read
    round trip (published: the median 64 B DMA read latency pcie-bench measured from a NFP6000 on a
    Xeon E5-2630 v4 root complex, host cache warm, in the pcie-bench/data repository behind
    Neugebauer et al., SIGCOMM 2018; basis assumed only for today's root complexes); 2 ns of TLP processing in a Gen4/Gen5 DMA engine (one TLP per
    500 MHz cycle of a 512-bit datapath, the common soft-IP width) and 2 ns in the root complex;
    256 posted data credits at the root port (16 B each: 4 KiB of write buffer; the specification's
    minimum is one MPS, Table 2-50).
    """

    read_tags: int = TAGS_8_BIT
    read_round_trip_ns: float = 560.0
    device_tlp_ns: float = 2.0
    root_complex_tlp_ns: float = 2.0
    posted_data_credits: int = 256


@dataclass(frozen=True)
class DmaTransfer:
    """One DMA transfer size on a link: each ceiling (bytes of data per second) and the tightest."""

    wire_bytes_per_s: float
    tags_bytes_per_s: float
    tlp_processing_bytes_per_s: float
    credits_bytes_per_s: float = math.inf

    @property
    def bytes_per_s(self) -> float:
        return min(self.wire_bytes_per_s, self.tags_bytes_per_s, self.tlp_processing_bytes_per_s,
                   self.credits_bytes_per_s)

    @property
    def limited_by(self) -> str:
        named = {"wire": self.wire_bytes_per_s, "read tags": self.tags_bytes_per_s,
                 "TLP processing": self.tlp_processing_bytes_per_s, "credits": self.credits_bytes_per_s}
        return min(named, key=named.get)


def dma_transfer(link: PcieLink, transfer_bytes: int, is_read: bool,
                 ends: DmaEndpoints = DmaEndpoints()) -> DmaTransfer:
    """A device's DMA transfers of ``transfer_bytes`` back to back: reads of host memory (MemRd up,
    CplD down) or writes to it (posted MemWr up), as data bytes per second under each ceiling:

    * the wire: TLP and DLLP bytes of the busier direction at the usable rate (``with_dllps``);
    * read tags: ``BW = S x N / RTT`` (the specification's formula), S the bytes one request asks
      (the transfer, at most MRRS), N the tags, RTT the round trip; writes are posted (no limit);
    * TLP processing: every TLP the device's DMA engine or the root complex handles takes its time;
    * posted credits (writes): the root port's posted data credits (16 B each) come back one
      UpdateFC latency (Table 2-54) after the TLPs that used them were received, so at most
      ``credits x 16 B`` of writes are in flight per that loop (a TLP's time on the wire plus it).
    """
    if is_read:
        req, cpl = link._read_request(transfer_bytes)
        up, down = [req], [cpl]
    else:
        up, down = [link._posted(transfer_bytes)], []
    to_host, to_device = link.with_dllps(up, down)
    wire = link.usable_bytes_per_s() * transfer_bytes / max(to_host, to_device)
    if is_read:
        per_request = min(transfer_bytes, link.max_read_request_bytes)
        tags = per_request * ends.read_tags / (ends.read_round_trip_ns * 1e-9)
    else:
        tags = math.inf
    tlps = sum(d.tlps for d in up + down)
    slowest_ns = max(ends.device_tlp_ns, ends.root_complex_tlp_ns)
    processing = transfer_bytes / (tlps * slowest_ns * 1e-9)
    credits = math.inf
    if not is_read:
        loop_s = link.update_fc_interval_s() + up[0].tlp_bytes / up[0].tlps / link.usable_bytes_per_s()
        credits = ends.posted_data_credits * FC_UNIT_BYTES / loop_s
    return DmaTransfer(wire, tags, processing, credits)


SMALL_TRANSFER_SIZES = (64, 128, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576)


def small_transfer_table_markdown(catalog, links=((4, 4, 256), (5, 4, 512), (5, 16, 512)),
                                  sizes=SMALL_TRANSFER_SIZES) -> str:
    """The docs table of DMA effective bandwidth (GB/s) against transfer size, reads and writes,
    with the ceiling that sets each (W: wire, T: read tags, P: TLP processing, C: posted credits)."""
    mark = {"wire": "W", "read tags": "T", "TLP processing": "P", "credits": "C"}
    header = "| transfer | " + " | ".join(f"Gen{g} x{w} MPS {m} {op}" for g, w, m in links for op in ("read", "write")) + " |"
    rows = [header, "|" + "---|" * (len(links) * 2 + 1)]
    for size in sizes:
        cells = []
        for gen, lanes, mps in links:
            link = PcieLink(catalog.pcie(gen), lanes, mps)
            for is_read in (True, False):
                t = dma_transfer(link, size, is_read)
                cells.append(f"{t.bytes_per_s / 1e9:.2f} {mark[t.limited_by]}")
        label = f"{size} B" if size < 1024 else f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


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
