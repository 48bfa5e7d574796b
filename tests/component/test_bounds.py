import pytest
from hypothesis import given, strategies as st

from nvsim.bounds import array_bounds, capacity
from nvsim.raid import full_stripe_write_bytes_per_host_byte, small_write_ops, usable_capacity_bytes
from nvsim.scenario import load_scenario, parse_scenario

MEMBER = 3_840_000_000_000


@given(n=st.integers(min_value=4, max_value=64), strip_pages=st.integers(min_value=1, max_value=256))
def test_usable_capacity_per_level(n, strip_pages):
    strip = strip_pages * 4096
    member = MEMBER - MEMBER % strip
    assert usable_capacity_bytes(0, n, MEMBER, strip) == n * member
    assert usable_capacity_bytes(1, n, MEMBER, strip) == member
    assert usable_capacity_bytes(5, n, MEMBER, strip) == (n - 1) * member
    assert usable_capacity_bytes(6, n, MEMBER, strip) == (n - 2) * member
    assert usable_capacity_bytes(10, n, MEMBER, strip) == n * member // 2


def test_md_chooses_reconstruct_write_on_small_arrays_and_rmw_on_wide_ones():
    assert small_write_ops(5, 3, 4096).reads == 1     # RCW: read the other data strip
    assert small_write_ops(6, 4, 4096).reads == 1     # RCW: read the other data strip
    assert small_write_ops(6, 24, 4096).reads == 3    # RMW: old data + P + Q
    assert small_write_ops(6, 24, 4096).writes == 3
    assert small_write_ops(5, 4, 4096).reads == 2     # tie (2 vs 2): md takes RCW, 2 reads either way
    assert small_write_ops(10, 8, 4096).writes == 2 and small_write_ops(10, 8, 4096).reads == 0
    assert full_stripe_write_bytes_per_host_byte(6, 24) == pytest.approx(24 / 22)


def test_default_scenario_bounds_name_their_components(catalog):
    spec = load_scenario("scenarios/graid-gen5-raid6", catalog)
    report = array_bounds(spec, catalog)
    by_metric = {b.metric: b for b in report.bounds}
    # The SR-1010's advertised 28M IOPS / 260 GB/s sit below 24 drives' media rates.
    assert by_metric["4K random read"].limited_by.startswith("SupremeRAID SR-1010")
    assert by_metric["sequential read"].value == pytest.approx(260e9)
    assert "media" in by_metric["4K random write"].limited_by
    for bound in report.bounds:
        assert bound.value == min(limit.value for limit in bound.limits)
    assert report.capacity.usable_bytes == 22 * 3_840_000_000_000


def test_hardware_raid_card_link_caps_sequential_throughput(catalog):
    data = {"name": "hw", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": "64KiB", "engine": "broadcom-megaraid-9560-16i"}}
    report = array_bounds(parse_scenario(data, catalog), catalog)
    seq_read = next(b for b in report.bounds if b.metric == "sequential read")
    assert "link PCIe Gen4 x8" in seq_read.limited_by
    assert 13e9 < seq_read.value < 15.75e9


@given(n=st.integers(min_value=4, max_value=32))
def test_bounds_grow_with_drive_count_until_a_shared_limit(catalog, n):
    def bounds(count):
        data = {"name": "x", "platform": "supermicro-as-2125hs-tnr",
                "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": count, "strip_bytes": "64KiB", "engine": "linux-md"}}
        return {b.metric: b.value for b in array_bounds(parse_scenario(data, catalog), catalog).bounds}
    small, large = bounds(n), bounds(n + 1)
    for metric in small:
        assert large[metric] >= small[metric] * (1 - 1e-12)


def test_namespace_sets_member_capacity(catalog):
    data = {"name": "ns", "platform": "supermicro-as-1125hs-tnr",
            "array": {"level": 5, "drive": "kioxia-cm7-r-7.68tb", "drives": 4, "namespace_bytes": "6.4 TB", "strip_bytes": "128KiB"}}
    cap = capacity(parse_scenario(data, catalog), catalog)
    assert cap.member_bytes == 6_400_000_000_000
    assert cap.usable_bytes == 3 * (6_400_000_000_000 - 6_400_000_000_000 % (128 * 1024))
