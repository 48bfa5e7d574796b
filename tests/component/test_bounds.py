import pytest
from hypothesis import given, settings, strategies as st

from nvsim.bounds import array_bounds, canonical_workload, capacity
from nvsim.raid import full_stripe_write_bytes_per_host_byte, small_write_ops, usable_capacity_bytes
from nvsim.scenario import load_scenario, parse_scenario
from nvsim.sim.fluid import simulate_fluid
from nvsim.sim.system import ArraySystem

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
    assert by_metric["4K random read"].limited_by.startswith("Graid Technology SupremeRAID SR-1010")  # its product name
    assert by_metric["128K sequential read"].value == pytest.approx(260e9)
    # RAID6 random writes: the GPU's own write cost (the fabric's engine resource) binds before the media
    assert by_metric["4K random write"].limited_by.startswith("GPU")
    for bound in report.bounds:
        assert bound.value == min(limit.value for limit in bound.limits)
    assert report.capacity.usable_bytes == 22 * 3_840_000_000_000


def test_hardware_raid_card_link_caps_sequential_throughput(catalog):
    data = {"name": "hw", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": "64KiB", "engine": "broadcom-megaraid-9560-16i"}}
    report = array_bounds(parse_scenario(data, catalog), catalog)
    seq_read = next(b for b in report.bounds if b.metric == "128K sequential read")
    assert "link PCIe Gen4 x8" in seq_read.limited_by
    assert 13e9 < seq_read.value < 15.75e9


@settings(deadline=None)  # the first example builds the array's models (the fabric limits)
@given(n=st.integers(min_value=4, max_value=23))  # n + 1 drives fill at most the platform's 24 bays
def test_the_drives_limits_grow_with_drive_count(catalog, n):
    """The drives' media and link limits grow with the drive count. The bound itself need not: md's
    stripe thread computes RAID6 syndromes over every data member, so its cost per small write (and
    the fabric's engine limit on 4K random writes) grows with the array's width."""
    def limits(count):
        data = {"name": "x", "platform": "supermicro-as-2125hs-tnr",
                "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": count, "strip_bytes": "64KiB", "engine": "linux-md"}}
        return {(b.metric, limit.component.replace(f"{count} x ", "n x ")): limit.value
                for b in array_bounds(parse_scenario(data, catalog), catalog).bounds for limit in b.limits
                if limit.component.startswith(f"{count} x ")}
    small, large = limits(n), limits(n + 1)
    assert small.keys() == large.keys() and len(small) == 8
    for key in small:
        assert large[key] >= small[key] * (1 - 1e-12), key


@pytest.mark.parametrize("path,engine_binds", [("scenarios/graid-gen5-raid6/scenario.yaml", True),
                                               ("scenarios/graid-gen5-raid5-16x/scenario.yaml", False)])
def test_gpu_raid5_and_raid6_random_writes_are_bounded_by_the_engine(catalog, path, engine_binds):
    """The GPU engine's write cost (its own server in the fabric) is a limit on a parity array's 4K
    random writes, below the drives' datasheet rate; where it binds (24-drive RAID6) the bound names
    the engine, as the fluid mode does (16-drive RAID5: the drives' NAND under RMW binds first)."""
    spec = load_scenario(path, catalog)
    assert spec.array.level in (5, 6)
    bound = next(b for b in array_bounds(spec, catalog).bounds if b.metric == "4K random write")
    workload = canonical_workload(bound.metric, 64)
    engine = ArraySystem(spec, workload, catalog).engine_server_label
    by_component = {limit.component: limit.value for limit in bound.limits}
    media = next(value for component, value in by_component.items() if component.endswith("media"))
    assert by_component[engine] < media
    fluid = simulate_fluid(ArraySystem(spec, workload, catalog))
    assert fluid.write_iops <= bound.value * (1 + 1e-9)
    assert (bound.limited_by == engine) is engine_binds
    assert (fluid.limited_by == engine) is engine_binds


def test_a_single_drive_keeps_the_datasheet_and_host_core_bounds(catalog):
    """One drive used directly is not the array simulator's model: no fabric limit, the host
    cores' libaio cost instead."""
    spec = load_scenario("scenarios/kioxia-cm7-namespace/scenario.yaml", catalog)
    assert spec.array.engine == "none" and spec.array.drives == 1
    components = {limit.component for b in array_bounds(spec, catalog).bounds for limit in b.limits}
    assert any("host cores (libaio" in c for c in components)
    assert not any("busiest" in c for c in components)


def test_namespace_sets_member_capacity(catalog):
    data = {"name": "ns", "platform": "supermicro-as-1125hs-tnr",
            "array": {"level": 5, "drive": "kioxia-cm7-r-7.68tb", "drives": 4, "namespace_bytes": "6.4 TB", "strip_bytes": "128KiB"}}
    cap = capacity(parse_scenario(data, catalog), catalog)
    assert cap.member_bytes == 6_400_000_000_000
    assert cap.usable_bytes == 3 * (6_400_000_000_000 - 6_400_000_000_000 % (128 * 1024))


def test_a_parity_write_loads_each_link_direction_with_its_own_bytes(catalog):
    """PCIe is full duplex: a RAID5 small write's member reads send data to the host and its
    member writes send data to the drive, each on its own direction of the drive link, so the
    links' random-write limit is the busier direction's bytes (not the reads' and writes' link
    times added, as on a half-duplex bus)."""
    from nvsim.links import drive_link

    spec = load_scenario("scenarios/graid-gen5-raid6", catalog)
    spec = spec.model_copy(update={"array": spec.array.model_copy(update={"level": 5})})
    report = array_bounds(spec, catalog)
    write = next(b for b in report.bounds if b.metric == "4K random write")
    n = spec.array.drives
    limit = next(lim for lim in write.limits if lim.component.startswith(f"{n} x drive link"))
    link = drive_link(catalog.drives[spec.array.drive], catalog.platforms[spec.platform], catalog, spec.topology, n)
    ops = small_write_ops(5, n, 4096)
    read_up, read_down = link.nvme_io_load(4096, True)
    write_up, write_down = link.nvme_io_load(4096, False)
    busier = max(ops.reads * read_up + ops.writes * write_up, ops.reads * read_down + ops.writes * write_down)
    assert limit.value == pytest.approx(n * link.usable_bytes_per_s() / busier)
    half_duplex = n / (ops.reads / link.nvme_iops(4096, True) + ops.writes / link.nvme_iops(4096, False))
    assert limit.value > 1.8 * half_duplex
