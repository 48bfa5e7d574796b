"""The PCIe link terms of the catalog's links against the specification's arithmetic, written out
by hand here (issue 24, item 8): a mutation of the encoding, the SKP cadence, a header or the
framing in the model or in models/links/ changes one of these numbers.

PCI Express Base Specification (Gen3 and later): 128b/130b encoding (8 GT/s, 16 GT/s, 32 GT/s per
lane); one SKP ordered set per 370 blocks; a memory request TLP has a 4DW (16 B) header with 64-bit
addresses, a completion a 3DW (12 B) header; each TLP is framed by a 4 B STP token and a 4 B LCRC;
a DLLP is 6 B plus a 2 B SDP token.
"""

from __future__ import annotations

import pytest

from nvsim.pcie import PcieLink

# Per direction, x4: GT/s x 4 lanes / 8 bits x 128/130 x 370/371.
X4_USABLE_BYTES_PER_S = {
    3: 8e9 * 4 / 8 * 128 / 130 * 370 / 371,   # 3,927,824,... B/s
    4: 16e9 * 4 / 8 * 128 / 130 * 370 / 371,
    5: 32e9 * 4 / 8 * 128 / 130 * 370 / 371,  # 15.711 GB/s
}


@pytest.mark.parametrize("generation", [3, 4, 5])
def test_usable_rate_is_128b130b_less_skp(catalog, generation):
    link = PcieLink(catalog.pcie(generation), 4, 256)
    assert link.usable_bytes_per_s() == pytest.approx(X4_USABLE_BYTES_PER_S[generation], rel=1e-9)
    assert PcieLink(catalog.pcie(generation), 16, 256).usable_bytes_per_s() == pytest.approx(
        4 * X4_USABLE_BYTES_PER_S[generation], rel=1e-9)


def ack_s(generation: int, mps: int, lanes: int) -> float:
    """The Ack Latency Limit (= the UpdateFC latency) by hand: PCIe Base Specification 6.3, Table
    3-12 at 8.0 GT/s and higher (symbol times) x one symbol (8 UI at the generation's GT/s)."""
    symbols = {(256, 4): 214, (512, 4): 250}[mps, lanes]
    return symbols * 8 / ({3: 8e9, 4: 16e9, 5: 32e9}[generation])


def test_a_4k_nvme_read_on_the_wire_by_hand(catalog):
    """A 4 KiB NVMe read at MPS 256 (read completions of 256 B), Gen5 x4.

    TLPs to the host: data 16 MemWr x (256 + 16 + 8) = 4480; the SQE fetch request 16 + 8 = 24;
    the CQE MemWr 16 + 16 + 8 = 40; the MSI-X MemWr 4 + 16 + 8 = 28: 4572 B (18 posted, 1
    non-posted). To the drive: SQ doorbell 4 + 24 = 28; the SQE's completion 64 + 12 + 8 = 84; CQ
    doorbell 28: 140 B (2 posted, 1 completion).
    DLLPs (8 B): the I/O takes T = bytes to host / usable rate, far longer than the Ack limit
    (214 symbols x 0.25 ns = 53.5 ns), so the drive acknowledges each of its 3 TLPs and returns 2
    UpdateFC-P (its completion credits are infinite): 5 DLLPs up. The host sends T / T_ack Acks,
    T / T_ack UpdateFC-P and one UpdateFC-NP (for its one request).
    """
    link = PcieLink(catalog.pcie(5), 4, 256)
    to_host, to_device = link.nvme_io_load(4096, is_read=True)
    assert to_host == pytest.approx(4572 + 5 * 8)
    busy_s = to_host / X4_USABLE_BYTES_PER_S[5]
    per_limit = busy_s / ack_s(5, 256, 4)
    assert 5 < per_limit < 6
    assert to_device == pytest.approx(140 + 8 * (2 * per_limit + 1), rel=1e-6)
    assert link.nvme_iops(4096, True) == pytest.approx(X4_USABLE_BYTES_PER_S[5] / to_host, rel=1e-9)


def test_a_4k_nvme_write_on_the_wire_by_hand(catalog):
    """A 4 KiB NVMe write at MPS 256, MRRS 512, Gen4 x4: the drive reads the data from host memory.

    TLPs to the host: SQE fetch request 24; data read requests 4096 / 512 = 8 x 24 = 192; CQE 40;
    MSI-X 28: 284 B (2 posted, 9 non-posted). To the drive: doorbells 2 x 28; SQE completion 84;
    data completions 16 x (256 + 12 + 8) = 4416: 4556 B (2 posted, 17 completions).
    DLLPs: T = bytes to the drive / usable rate, about 5.5 Ack limits (214 x 0.5 ns = 107 ns). Up:
    T / T_ack Acks and 2 UpdateFC-P. Down: T / T_ack Acks, 2 UpdateFC-P, T / T_ack UpdateFC-NP.
    """
    link = PcieLink(catalog.pcie(4), 4, 256, max_read_request_bytes=512)
    to_host, to_device = link.nvme_io_load(4096, is_read=False)
    per_limit = to_device / X4_USABLE_BYTES_PER_S[4] / ack_s(4, 256, 4)
    assert 5 < per_limit < 6
    assert to_host == pytest.approx(284 + 8 * (per_limit + 2), rel=1e-6)
    assert to_device == pytest.approx(4556 + 8 * (2 * per_limit + 2), rel=1e-6)


def test_a_large_transfer_fetches_a_prp_list(catalog):
    """128 KiB spans 32 pages: two PRP entries ride in the SQE, the other 30 (240 B) are a PRP list
    the drive reads: one more request (24 B up) and one more completion (240 + 12 + 8 = 260 B down).
    The drive acknowledges its one more TLP (8 B up); the host's Acks and UpdateFC-P follow the
    longer I/O (T / T_ack each), plus one UpdateFC-NP more for the list request."""
    link = PcieLink(catalog.pcie(5), 4, 256)
    up_8k, down_8k = link.nvme_io_load(8192, True)  # two pages: no list
    up, down = link.nvme_io_load(131072, True)
    data_up = (131072 - 8192) // 256 * (256 + 24)  # 480 more data TLPs
    assert up - up_8k == pytest.approx(24 + data_up + 8)
    limits = [u / X4_USABLE_BYTES_PER_S[5] / ack_s(5, 256, 4) for u in (up_8k, up)]
    assert down - down_8k == pytest.approx(260 + 8 * (2 * (limits[1] - limits[0]) + 1), rel=1e-6)


def test_the_ack_cadence_is_the_specifications_table(catalog):
    """A stream of MPS-sized writes gets one Ack and one UpdateFC-P per Ack Latency Limit: at Gen5 x4
    MPS 512 a TLP takes (512 + 24) / usable = 34 ns, the limit 250 x 0.25 ns = 62.5 ns, so the host
    returns 2 x 34.1 / 62.5 = 1.09 DLLPs per TLP the drive sent (the assumed 1/4 + 1/4 before)."""
    link = PcieLink(catalog.pcie(5), 4, 512)
    assert link.ack_interval_s() == pytest.approx(62.5e-9)
    up, _ = link._posted(512 << 10), None
    to_host, to_device = link.with_dllps([up], [])
    tlp_s = (512 + 24) / X4_USABLE_BYTES_PER_S[5]
    assert to_device / up.tlps == pytest.approx(8 * 2 * tlp_s / 62.5e-9, rel=1e-6)
