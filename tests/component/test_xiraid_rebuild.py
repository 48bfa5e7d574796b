"""Issues 18 and 38: xiRAID's reconstruction (nvsim.engines.lockless): stripe rows on several host
threads (a setting), AVX parity per row, its rows waiting in the survivors' queues beside host I/O,
``recon_prio`` as a share of its maximum rate; the fabric's rebuild thread taking the engine's
thread count, and only the CPUs the jobs leave."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim import fabric
from nvsim.errors import InputError
from nvsim.rebuild import run_timeline
from nvsim.scenario import parse_scenario
from nvsim.sim.network import stations
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

QLC = "solidigm-d5-p5336-61.44tb"
RRW = {"name": "rrw", "rw": "randrw", "rwmixread": 70, "bs": "4k", "numjobs": 8, "iodepth": 16}
IDLE = WorkloadSpec(name="idle", rw="randread", bs=4096)


def qlc_raid5(catalog, drives=5, engine="xinnor-xiraid", recon_prio=None, workloads=None, rebuild=None,
              engine_settings=None):
    array = {"level": 5, "drive": QLC, "drives": drives, "strip_bytes": "128KiB", "engine": engine, "hot_spares": 1}
    settings = dict(engine_settings or {})
    if recon_prio is not None:
        settings["recon_prio"] = recon_prio
    if settings:
        array["engine_settings"] = settings
    if rebuild:
        array["rebuild"] = rebuild
    return parse_scenario({"name": "t", "platform": "supermicro-sys-120u-tnr", "array": array,
                           "faults": [{"at_s": 0, "drive": 0, "action": "fail"}],
                           "workloads": workloads or []}, catalog)


def rebuild(catalog, scenario, workload=None):
    timeline = run_timeline(scenario, workload, catalog, "fluid")
    return timeline.rebuilds[0], timeline.segments[0]


def test_reconstruction_is_stripe_wise_on_the_engines_threads(catalog):
    system = ArraySystem(qlc_raid5(catalog), IDLE, catalog, (0,))
    engine, v = system.engine, system.engine.v
    step, inflight = engine.rebuild_settings(5, "normal")
    assert step == 128 * 1024  # one strip per member: a stripe row
    assert inflight == v.rebuild_threads * v.rebuild_rows_per_thread
    assert engine.rebuild_threads() == round(v.rebuild_threads) > 1
    net = stations(system)
    assert net.servers[net.index("rebuild_thread")] == engine.rebuild_threads()
    # md's resync thread stays one
    md = ArraySystem(qlc_raid5(catalog, engine="linux-md"), IDLE, catalog, (0,))
    assert fabric.KIND["rebuild_thread"].servers(md.facts) == 1.0


def test_parity_cpu_per_row_grows_with_the_survivors_read(catalog):
    cpu = {}
    for drives in (5, 9):
        system = ArraySystem(qlc_raid5(catalog, drives), IDLE, catalog, (0,))
        batch = system.rebuild_batch(0, [0], 128 * 1024)
        cpu[drives] = float(batch.submit_s[0])
    v = ArraySystem(qlc_raid5(catalog), IDLE, catalog, (0,)).engine.v
    # 4 more survivors: 4 more strips of parity at the per-core AVX rate and 4 more member I/Os
    extra_ref_s = 4 * 128 * 1024 / (v.parity_gen_gb_per_s * 1e9) + 4 * v.member_io_us * 1e-6
    scale = ArraySystem(qlc_raid5(catalog), IDLE, catalog, (0,)).engine_clock_scale
    assert cpu[9] - cpu[5] == pytest.approx(extra_ref_s * scale, rel=1e-9)


def test_idle_qlc_rebuild_runs_at_the_new_members_sequential_write(catalog):
    """With nothing else running, its stripe rows in flight keep the replaced D5-P5336 writing: the
    rebuild takes its capacity over its sequential write speed (not 8 x 256 KiB requests' pace)."""
    record, segment = rebuild(catalog, qlc_raid5(catalog))
    drive = catalog.drives[QLC]
    floor_s = drive.capacity_bytes.value / drive.seq_write_bytes_per_s.value
    assert 0.999 * floor_s <= record.duration_s <= 1.15 * floor_s
    assert "drive NAND" in segment.limited_by and "drive 0" in segment.limited_by


def test_one_slow_thread_makes_the_rebuild_cpu_bound(catalog):
    slow = catalog.with_values({"engines/xinnor-xiraid/rebuild_threads": 1.0,
                                "engines/xinnor-xiraid/parity_gen_gb_per_s": 1.0})
    record, segment = rebuild(slow, qlc_raid5(slow, 9))
    fast, _ = rebuild(catalog, qlc_raid5(catalog, 9))
    assert record.duration_s > 3 * fast.duration_s
    assert "rebuild thread" in segment.limited_by


@settings(max_examples=6, deadline=None)
@given(prio=st.integers(min_value=2, max_value=95))
def test_recon_prio_is_a_share_of_the_maximum_rate(catalog, prio):
    """xicli's --recon_prio: "0 to 100 (maximum rate of reconstruction)". With the array to itself
    the reconstruction runs at ``recon_prio`` % of what it reaches at 100: the rate is proportional
    to the priority (a law), and the limit says so."""
    _, at_prio = rebuild(catalog, qlc_raid5(catalog, recon_prio=prio))
    _, at_full = rebuild(catalog, qlc_raid5(catalog))
    assert at_prio.rebuild_bytes_per_s == pytest.approx(prio / 100 * at_full.rebuild_bytes_per_s, rel=1e-3)
    assert f"recon_prio {prio}" in at_prio.limited_by and "maximum rate" in at_prio.limited_by


def test_a_low_recon_prio_gives_the_foreground_its_drives_back(catalog):
    load = WorkloadSpec(**RRW)
    _, low = rebuild(catalog, qlc_raid5(catalog, recon_prio=10, workloads=[RRW]), load)
    _, full = rebuild(catalog, qlc_raid5(catalog, workloads=[RRW]), load)
    assert low.rebuild_bytes_per_s < 0.2 * full.rebuild_bytes_per_s
    assert low.foreground_iops > 1.3 * full.foreground_iops


READS = [{"name": f"r{jobs}", "rw": "read", "bs": "128k", "numjobs": jobs, "iodepth": 32} for jobs in (2, 8, 16)]


def test_a_host_read_load_slows_the_reconstruction_through_the_survivors_queues(catalog):
    """Its stripe rows in flight wait in the survivors' queues beside the host's reads (nothing raises
    them to hold a share): the more the host reads, the slower the rebuild, at every depth of rows."""
    for rows in (16, 2):
        settings = {"recon_rows_per_thread": rows}
        scenario = qlc_raid5(catalog, workloads=READS, engine_settings=settings)
        _, idle = rebuild(catalog, scenario)
        rates = [rebuild(catalog, scenario, WorkloadSpec(**w))[1].rebuild_bytes_per_s for w in READS]
        assert rates[0] <= idle.rebuild_bytes_per_s * 1.0001
        assert all(a >= b for a, b in zip(rates, rates[1:]))
        assert rates[-1] < 0.8 * idle.rebuild_bytes_per_s


def test_throttle_is_recon_prio_idle_or_loaded_and_priority_scales_it(catalog):
    engine = ArraySystem(qlc_raid5(catalog, recon_prio=30), IDLE, catalog, (0,)).engine
    limits = qlc_raid5(catalog).array.rebuild
    for loaded in (False, True):
        throttle = engine.rebuild_throttle(limits, loaded=loaded)
        assert throttle.alone_share == pytest.approx(0.30) and not throttle.paced
    high = limits.model_copy(update={"priority": "high"})
    assert engine.rebuild_throttle(high, loaded=True).alone_share == pytest.approx(0.60)
    top = ArraySystem(qlc_raid5(catalog), IDLE, catalog, (0,)).engine
    assert top.rebuild_throttle(high, loaded=True).alone_share is None  # 100%: only the queues hold it


def test_threads_and_rows_are_settings(catalog):
    scenario = qlc_raid5(catalog, engine_settings={"recon_threads": 2, "recon_rows_per_thread": 3})
    engine = ArraySystem(scenario, IDLE, catalog, (0,)).engine
    assert engine.rebuild_threads() == 2
    assert engine.rebuild_settings(5, "normal") == (128 * 1024, 6.0)
    net = stations(ArraySystem(scenario, IDLE, catalog, (0,)))
    assert net.servers[net.index("rebuild_thread")] == 2


@pytest.mark.parametrize("key,value", [("recon_threads", 0), ("recon_rows_per_thread", -1), ("recon_threads", "many")])
def test_bad_thread_settings_are_one_line_naming_the_field(catalog, key, value):
    with pytest.raises(InputError) as err:
        qlc_raid5(catalog, engine_settings={key: value})
    assert key in str(err.value) and "\n" not in str(err.value)


def test_reconstruction_threads_get_only_the_cpus_the_jobs_leave(catalog):
    """The reconstruction threads are host threads: with the jobs' threads busy on every CPU they
    share the jobs' cores (at least one), and a CPU-bound reconstruction slows."""
    from nvsim.sim.foreground import FioLoad
    scenario = qlc_raid5(catalog, engine_settings={"recon_threads": 8})
    load = FioLoad(scenario, WorkloadSpec(**RRW), catalog, (0,), scenario.seed)
    net = stations(load.system)
    i = net.index("rebuild_thread")
    assert load.servers(net)[i] == 8
    load.job_busy = load.system.logical_cpus - 3.0
    assert load.servers(net)[i] == 3
    load.job_busy = float(load.system.logical_cpus)
    assert load.servers(net)[i] == 1


@pytest.mark.parametrize("value", [0, 101, "fast"])
def test_recon_prio_out_of_range_is_one_line_naming_the_field(catalog, value):
    with pytest.raises(InputError) as err:
        qlc_raid5(catalog, recon_prio=value)
    assert "recon_prio" in str(err.value) and "\n" not in str(err.value)


def test_rebuild_waf_is_a_plain_recovery_into_a_sequential_fill(catalog):
    record, _ = rebuild(catalog, qlc_raid5(catalog))
    assert record.raid_waf == 1.0
    assert record.waf_nand == pytest.approx(1.0)
    assert not math.isnan(record.waf_nand)


def test_event_mode_holds_recon_prio_like_the_fluid_mode(catalog):
    """The event mode gates the reconstruction's rows at recon_prio's share of its maximum rate, as
    the fluid mode does, beside a host read load sharing the survivors."""
    from nvsim.sim.event import simulate_event
    from nvsim.sim.mixed import solve_state
    reads = {"name": "r", "rw": "randread", "bs": "4k", "numjobs": 8, "iodepth": 16}
    s = qlc_raid5(catalog, recon_prio=30, workloads=[reads], rebuild={"span_bytes": "2GiB"})
    fluid = solve_state(s, s.workloads[0], catalog, rebuilding=0)
    assert "recon_prio 30" in fluid.rebuild_limited_by
    event = simulate_event(ArraySystem(s, s.workloads[0], catalog, failed_members=(0,)), rebuild_member=0,
                           until_rebuilt=True, host_ios=20_000)
    assert event.rebuild_bytes_per_s == pytest.approx(fluid.rebuild_bytes_per_s, rel=0.10)


def test_same_seed_same_bits(catalog):
    scenario = qlc_raid5(catalog, recon_prio=40, workloads=[RRW])
    first = rebuild(catalog, scenario, WorkloadSpec(**RRW))[1]
    again = rebuild(catalog, scenario, WorkloadSpec(**RRW))[1]
    assert (first.rebuild_bytes_per_s, first.foreground_iops) == (again.rebuild_bytes_per_s, again.foreground_iops)
