"""PCIe's read-tag ceiling for DMA reads (nvsim.pcie.dma_transfer) against the specification's
formula worked by hand, BW = S x N / RTT with S the bytes one read request asks: a transfer larger
than the Max Read Request Size goes out as several requests of MRRS each, so S is MRRS, not the
transfer (issue 34: the exact check used a 256 B transfer, under MRRS, and a ceiling that ignored
MRRS survived)."""

from __future__ import annotations

import pytest

from nvsim.pcie import DmaEndpoints, PcieLink, dma_transfer

ENDS = DmaEndpoints(read_tags=32, read_round_trip_ns=1000.0)


@pytest.mark.parametrize("transfer_bytes, mrrs_bytes, per_request_bytes", [
    (256, 512, 256),     # under MRRS: one request of the whole transfer
    (4096, 512, 512),    # 8 requests of 512 B, each holding a tag for one round trip
    (65536, 4096, 4096),
    (4096, 128, 128),
])
def test_read_tags_bound_a_dma_read_at_mrrs_times_tags_over_the_round_trip(catalog, transfer_bytes, mrrs_bytes,
                                                                            per_request_bytes):
    link = PcieLink(catalog.pcie(4), 4, 256, max_read_request_bytes=mrrs_bytes)
    ceiling = dma_transfer(link, transfer_bytes, True, ENDS).tags_bytes_per_s
    assert ceiling == pytest.approx(per_request_bytes * 32 / 1e-6, rel=1e-12)  # 32 tags per microsecond


def test_a_large_read_is_tag_bound_when_mrrs_is_small(catalog):
    # 128 B requests, 32 tags, 1 us: 4.1 GB/s, under a Gen4 x4 wire's ~7.3 GB/s of read completions
    link = PcieLink(catalog.pcie(4), 4, 256, max_read_request_bytes=128)
    transfer = dma_transfer(link, 1 << 20, True, ENDS)
    assert transfer.limited_by == "read tags" and transfer.tags_bytes_per_s == pytest.approx(4.096e9)
    # writes are posted: no tag ceiling
    assert dma_transfer(link, 1 << 20, False, ENDS).tags_bytes_per_s == float("inf")
