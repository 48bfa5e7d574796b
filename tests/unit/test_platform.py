import pytest
from hypothesis import given, strategies as st

from nvsim.errors import InputError
from nvsim.platform import PlatformModel, active_core_clock_ghz, balanced_sockets, cross_socket_fraction, host_io_cpu_s
from nvsim.scenario import parse_scenario
from nvsim.specs import CpuSpec, PlacementSpec


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


def cpu_with_clocks(base: float, boost: float, all_core: float | None) -> CpuSpec:
    cited = lambda v: {"value": v, "source": "test", "basis": "assumed"}  # noqa: E731
    return CpuSpec(model="AMD EPYC test", sockets=1, cores_per_socket=cited(32), threads_per_core=cited(2),
                   base_clock_ghz=cited(base), boost_clock_ghz=cited(boost),
                   all_core_boost_clock_ghz=None if all_core is None else cited(all_core),
                   cache_line_transfer_ns=cited(100))


def test_clock_is_the_boost_with_one_busy_core_and_the_all_core_figure_with_all():
    cpu = cpu_with_clocks(2.7, 3.9, 3.85)
    assert active_core_clock_ghz(cpu, 1, 32) == pytest.approx(3.9)
    assert active_core_clock_ghz(cpu, 32, 32) == pytest.approx(3.85)
    assert active_core_clock_ghz(cpu, 64, 32) == pytest.approx(3.85)  # threads past the cores: all busy
    assert active_core_clock_ghz(cpu, 0, 32) == pytest.approx(3.9)    # an idle host's next I/O: one core
    assert active_core_clock_ghz(cpu, 1, 1) == pytest.approx(3.9)


def test_clock_without_an_all_core_figure_is_the_base_clock():
    cpu = cpu_with_clocks(2.7, 3.9, None)
    assert active_core_clock_ghz(cpu, 1, 32) == active_core_clock_ghz(cpu, 32, 32) == 2.7


@given(base=st.floats(1.0, 3.0), boost_extra=st.floats(0.0, 2.0), share=st.floats(0.0, 1.0),
       cores=st.integers(1, 256), a=st.integers(0, 300), b=st.integers(0, 300))
def test_clock_falls_as_cores_get_busy_and_stays_between_all_core_and_boost(base, boost_extra, share, cores, a, b):
    boost = base + boost_extra
    all_core = base + share * boost_extra
    cpu = cpu_with_clocks(base, boost, all_core)
    fewer, more = sorted((a, b))
    assert active_core_clock_ghz(cpu, fewer, cores) >= active_core_clock_ghz(cpu, more, cores)
    assert all_core - 1e-9 <= active_core_clock_ghz(cpu, a, cores) <= boost + 1e-9


def test_an_all_core_figure_outside_base_to_boost_is_refused():
    with pytest.raises(ValueError, match="all_core_boost_clock_ghz: allowed from base_clock_ghz"):
        cpu_with_clocks(2.7, 3.9, 4.2)


def test_the_clock_counts_the_cores_of_the_jobs_sockets_only(catalog):
    both, one = model(catalog), model(catalog, job_sockets=(0,))
    cpu = catalog.platforms["supermicro-as-2125hs-tnr"].cpu
    assert both.loaded_clock_ghz(96) == pytest.approx(active_core_clock_ghz(cpu, 96, 192))
    assert one.loaded_clock_ghz(96) == pytest.approx(cpu.all_core_boost_clock_ghz.value)
    assert one.loaded_clock_ghz(500) == one.loaded_clock_ghz(96)


def test_inter_socket_link_is_loaded_one_way_at_a_time(catalog):
    """The link's rate is per direction (full duplex): drives and jobs spread over both sockets
    send half the crossing data 0 -> 1 and half 1 -> 0 (a quarter of all I/Os each way), so the
    host data can reach the link's rate / 0.25; drives all on socket 0 and jobs on both send the
    crossing half one way (reads 0 -> 1): rate / 0.5."""
    link = catalog.platforms["supermicro-as-2125hs-tnr"].inter_socket_bytes_per_s.value
    assert model(catalog).inter_socket_bytes_per_s() == pytest.approx(link / 0.25)
    assert model(catalog, drive_sockets=(0,) * 24).inter_socket_bytes_per_s() == pytest.approx(link / 0.5)
    assert model(catalog, drive_sockets=(1,) * 24, job_sockets=(0,)).inter_socket_bytes_per_s() == pytest.approx(link)
