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


def test_a_4k_nvme_read_on_the_wire_by_hand(catalog):
    """A 4 KiB NVMe read at MPS 256 (read completions of 256 B).

    To the host: data 16 MemWr TLPs x (256 + 16 + 8) = 4480; the SQE fetch request 16 + 8 = 24;
    the CQE MemWr 16 + 16 + 8 = 40; the MSI-X MemWr 4 + 16 + 8 = 28; ACK + UpdateFC DLLPs for the
    3 TLPs the drive received: 3 x 8 B x (1/4 + 1/4) = 12. Total 4584.
    To the drive: SQ doorbell 4 + 24 = 28; the SQE's completion 64 + 12 + 8 = 84; CQ doorbell 28;
    DLLPs for the 19 TLPs the host received: 19 x 8 x 1/2 = 76. Total 216.
    """
    link = PcieLink(catalog.pcie(5), 4, 256)
    to_host, to_device = link.nvme_io_load(4096, is_read=True)
    assert to_host == pytest.approx(4480 + 24 + 40 + 28 + 12)
    assert to_device == pytest.approx(28 + 84 + 28 + 76)
    assert link.nvme_iops(4096, True) == pytest.approx(X4_USABLE_BYTES_PER_S[5] / 4584, rel=1e-9)


def test_a_4k_nvme_write_on_the_wire_by_hand(catalog):
    """A 4 KiB NVMe write at MPS 256, MRRS 512: the drive reads the data from host memory.

    To the host: SQE fetch request 24; data read requests 4096 / 512 = 8 x 24 = 192; CQE 40;
    MSI-X 28; DLLPs for the drive's received TLPs (doorbell, SQE completion, 16 data completions,
    doorbell = 19): 19 x 8 x 1/2 = 76. Total 360.
    To the drive: doorbells 2 x 28; SQE completion 84; data completions 16 x (256 + 12 + 8) = 4416;
    DLLPs for the 11 TLPs the host received (1 + 8 + 1 + 1): 11 x 4 = 44. Total 4600.
    """
    link = PcieLink(catalog.pcie(4), 4, 256, max_read_request_bytes=512)
    to_host, to_device = link.nvme_io_load(4096, is_read=False)
    assert to_host == pytest.approx(24 + 192 + 40 + 28 + 76)
    assert to_device == pytest.approx(56 + 84 + 4416 + 44)


def test_a_large_transfer_fetches_a_prp_list(catalog):
    """128 KiB spans 32 pages: two PRP entries ride in the SQE, the other 30 (240 B) are a PRP list
    the drive reads: one more request (24 B up) and one more completion (240 + 12 + 8 = 260 B down)."""
    link = PcieLink(catalog.pcie(5), 4, 256)
    up_8k, down_8k = link.nvme_io_load(8192, True)  # two pages: no list
    up, down = link.nvme_io_load(131072, True)
    data_up = (131072 - 8192) // 256 * (256 + 24)  # 480 more data TLPs
    acks_up = 1 * 8 * 0.5  # the list's completion, one more TLP received by the drive
    acks_down = (1 + 480) * 8 * 0.5  # the list request and the data TLPs, received by the host
    assert up - up_8k == pytest.approx(24 + data_up + acks_up)
    assert down - down_8k == pytest.approx(260 + acks_down)
