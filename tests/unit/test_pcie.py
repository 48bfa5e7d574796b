"""The link model against the specification's arithmetic (worked examples with stated tolerances)."""

import pytest
from hypothesis import given, strategies as st

from nvsim.pcie import PcieLink, raw_bytes_per_s, skp_efficiency, tlp_count, tlp_wire_bytes


def test_line_rates_from_the_specification():
    # Gen3 8 GT/s, Gen4 16, Gen5 32; 128b/130b; x4: 3.938 / 7.877 / 15.754 GB/s per direction.
    assert raw_bytes_per_s(8, 4) == pytest.approx(3.9385e9, rel=1e-4)
    assert raw_bytes_per_s(16, 4) == pytest.approx(7.8769e9, rel=1e-4)
    assert raw_bytes_per_s(32, 4) == pytest.approx(15.7538e9, rel=1e-4)
    assert skp_efficiency(370) == pytest.approx(370 / 371)


def test_tlp_split_and_framing():
    assert tlp_count(4096, 256) == 16 and tlp_count(1, 256) == 1 and tlp_count(4097, 512) == 9
    # 4 KiB at MPS 256: 16 TLPs x (16 B header + 8 B framing) = 384 B overhead
    assert tlp_wire_bytes(4096, 256, 16, 8) == 4096 + 384


def test_large_reads_approach_the_mps_efficiency(catalog):
    link = PcieLink(catalog.pcie(5), 4, max_payload_bytes=256)
    efficiency = link.nvme_data_bytes_per_s(1 << 20, True) / link.usable_bytes_per_s()
    assert efficiency == pytest.approx(256 / (256 + 24), rel=0.01)
    link512 = PcieLink(catalog.pcie(5), 4, max_payload_bytes=512)
    assert link512.nvme_data_bytes_per_s(1 << 20, True) / link512.usable_bytes_per_s() == pytest.approx(512 / 536, rel=0.01)


def test_gen5_x4_brackets_the_typical_figures_of_seed_004(catalog):
    # seed 004 quotes "typical" NVMe x4 throughput 3.5 / 7 / 14 GB/s for Gen3 / 4 / 5 (component spec, not a result).
    for gen, typical in ((3, 3.5e9), (4, 7e9), (5, 14e9)):
        link = PcieLink(catalog.pcie(gen), 4, 256)
        assert typical <= link.nvme_data_bytes_per_s(128 * 1024, True) <= raw_bytes_per_s(link.generation.transfer_rate_gt_per_s.value, 4)


@given(gen=st.sampled_from([3, 4, 5]), lanes=st.sampled_from([1, 2, 4, 8, 16]), mps=st.sampled_from([128, 256, 512]),
       size=st.integers(min_value=512, max_value=4 << 20), is_read=st.booleans())
def test_effective_bandwidth_laws(catalog, gen, lanes, mps, size, is_read):
    link = PcieLink(catalog.pcie(gen), lanes, mps)
    bw = link.nvme_data_bytes_per_s(size, is_read)
    assert 0 < bw < link.usable_bytes_per_s()
    wider = PcieLink(catalog.pcie(gen), min(lanes * 2, 32), mps)
    # TLP bytes scale with the width; the DLLPs the other way follow the spec's Ack limit by width
    # (not 1/width), a few per cent of the reverse direction at most
    assert wider.nvme_data_bytes_per_s(size, is_read) == pytest.approx(bw * wider.lanes / lanes, rel=0.03)
    bigger_mps = PcieLink(catalog.pcie(gen), lanes, mps * 2)
    assert bigger_mps.nvme_data_bytes_per_s(size, is_read) >= bw * (1 - 1e-12)


def test_small_transfers_pay_command_overhead(catalog):
    link = PcieLink(catalog.pcie(5), 4, 512)
    sizes = [512, 4096, 16384, 131072, 1 << 20]
    efficiencies = [link.nvme_data_bytes_per_s(s, True) / link.usable_bytes_per_s() for s in sizes]
    assert efficiencies == sorted(efficiencies)
    # 512 B: 536 B of data TLPs + SQE request, CQE, MSI-X and ACKs ~ 645 B on the wire -> ~0.8
    assert efficiencies[0] == pytest.approx(0.80, abs=0.02) and efficiencies[-1] > 0.95


def test_bad_link_parameters_name_the_field(catalog):
    with pytest.raises(ValueError, match="lanes"):
        PcieLink(catalog.pcie(4), 3)
    with pytest.raises(ValueError, match="max_payload_bytes"):
        PcieLink(catalog.pcie(4), 4, 300)


def test_dma_ceilings_follow_their_formulas(catalog):
    """The small-transfer ceilings (docs/models/pcie.md): read tags BW = S x N / RTT (PCIe Base
    Specification, section 2.2.6.2), posted credits x 16 B per UpdateFC loop, TLP processing at
    the slower end; small transfers are never more efficient than large ones."""
    from nvsim.pcie import DmaEndpoints, dma_transfer

    link = PcieLink(catalog.pcie(5), 16, 512)
    ends = DmaEndpoints(read_tags=32, read_round_trip_ns=1000.0, device_tlp_ns=3.0, root_complex_tlp_ns=1.0)
    read = dma_transfer(link, 256, True, ends)
    assert read.tags_bytes_per_s == pytest.approx(256 * 32 / 1e-6) and read.limited_by == "read tags"
    assert read.tlp_processing_bytes_per_s == pytest.approx(256 / (2 * 3e-9))  # request + completion
    write = dma_transfer(link, 4096, False)
    loop_s = link.update_fc_interval_s() + (512 + 24) / link.usable_bytes_per_s()
    assert write.credits_bytes_per_s == pytest.approx(256 * 16 / loop_s)
    sizes = [64, 256, 1024, 4096, 65536, 1 << 20]
    for is_read in (True, False):
        rates = [dma_transfer(link, s, is_read).bytes_per_s / s for s in sizes]
        efficiency = [dma_transfer(link, s, is_read).bytes_per_s for s in sizes]
        assert efficiency == sorted(efficiency) and rates == sorted(rates, reverse=True)
