import pytest
from hypothesis import given, strategies as st

from nvsim.errors import InputError
from nvsim.platform import PlatformModel, balanced_sockets, cross_socket_fraction, host_io_cpu_s
from nvsim.scenario import parse_scenario
from nvsim.specs import PlacementSpec


def model(catalog, platform="supermicro-as-2125hs-tnr", drives=24, **placement):
    return PlatformModel(catalog.platforms[platform], PlacementSpec(**placement), drives, catalog)


def test_per_io_cpu_cost_scales_with_pages_and_clock(catalog):
    libaio = catalog.host_io["libaio"]
    per_io = libaio.submit_us.value + libaio.complete_us.value
    page = libaio.per_page_us.value
    assert libaio.reference_clock_ghz.value == 3.0
    small = host_io_cpu_s(libaio, 4096, 3.0)
    assert small == pytest.approx((per_io + page) * 1e-6)
    assert host_io_cpu_s(libaio, 1 << 20, 3.0) == pytest.approx((per_io + 256 * page) * 1e-6)
    assert host_io_cpu_s(libaio, 4096, 1.5) == pytest.approx(2 * small)
    assert host_io_cpu_s(catalog.host_io["io_uring"], 4096, 3.0) < small


def test_seed_000_platform(catalog):
    platform = model(catalog)
    assert platform.cores == 192 and platform.sockets == 2
    assert platform.drive_sockets == (0,) * 12 + (1,) * 12      # "uniformly allocated across both sockets"
    assert platform.memory_bytes_per_s() == pytest.approx(2 * 12 * 4800e6 * 8)
    libaio = catalog.host_io["libaio"]
    per_io_s = (libaio.submit_us.value + libaio.complete_us.value + libaio.per_page_us.value) * 1e-6
    assert platform.host_cpu_iops("libaio", 4096) == pytest.approx(192 / (per_io_s * 3.0 / 3.55))  # every core busy: the all-core boost


@given(count=st.integers(min_value=1, max_value=64), sockets=st.integers(min_value=1, max_value=4))
def test_balanced_placement_is_even_and_in_range(count, sockets):
    placed = balanced_sockets(count, sockets)
    assert len(placed) == count and set(placed) <= set(range(sockets))
    assert list(placed) == sorted(placed)
    counts = [placed.count(s) for s in set(placed)]
    assert max(counts) - min(counts) <= max(1, -(-count // sockets))


def test_cross_socket_share():
    assert cross_socket_fraction((0, 0, 1, 1), (0, 1), 2) == pytest.approx(0.5)
    assert cross_socket_fraction((0, 0), (0,), 2) == 0.0
    assert cross_socket_fraction((1, 1), (0,), 2) == 1.0
    assert cross_socket_fraction((0,), (0,), 1) == 0.0


def test_all_drives_on_one_socket_halves_the_root_ports(catalog):
    spread = model(catalog)
    packed = model(catalog, drive_sockets=(0,) * 24, job_sockets=(0,))
    assert packed.root_ports_bytes_per_s(131072, True) == pytest.approx(spread.root_ports_bytes_per_s(131072, True) / 2)
    assert packed.inter_socket_bytes_per_s() is None


def test_placement_is_checked_against_the_platform(catalog):
    base = {"name": "p", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 4}}
    with pytest.raises(InputError, match=r"placement.drive_sockets: socket 1 does not exist"):
        parse_scenario({**base, "placement": {"drive_sockets": [0, 0, 1, 1]}}, catalog)
    with pytest.raises(InputError, match=r"one socket per drive \(4\), got 2"):
        parse_scenario({**base, "placement": {"drive_sockets": [0, 0]}}, catalog)
    with pytest.raises(InputError, match="unknown ioengine 'libaoi'; did you mean 'libaio'"):
        parse_scenario({**base, "workloads": [{"name": "w", "rw": "read", "ioengine": "libaoi"}]}, catalog)
