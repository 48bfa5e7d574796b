"""Issue 18: xiRAID's reconstruction (nvsim.engines.lockless): stripe rows on several threads, AVX
parity per row, ``recon_prio`` as a paced share of drive time under host I/O; and the fabric's
rebuild thread taking the engine's thread count."""

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


def qlc_raid5(catalog, drives=5, engine="xinnor-xiraid", recon_prio=None, workloads=None, rebuild=None):
    array = {"level": 5, "drive": QLC, "drives": drives, "strip_bytes": "128KiB", "engine": engine, "hot_spares": 1}
    if recon_prio is not None:
        array["engine_settings"] = {"recon_prio": recon_prio}
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
@given(prio=st.integers(min_value=2, max_value=45))
def test_under_load_recon_prio_is_a_share_of_the_new_members_time(catalog, prio):
    """While host I/O runs, the rebuild takes ``recon_prio`` % of the drive it loads most (the new
    member's writes): the rate is proportional to the priority."""
    _, at_prio = rebuild(catalog, qlc_raid5(catalog, recon_prio=prio, workloads=[RRW]), WorkloadSpec(**RRW))
    _, at_one = rebuild(catalog, qlc_raid5(catalog, recon_prio=1, workloads=[RRW]), WorkloadSpec(**RRW))
    assert at_prio.rebuild_bytes_per_s == pytest.approx(prio * at_one.rebuild_bytes_per_s, rel=0.02)
    assert f"recon_prio {prio}" in at_prio.limited_by


def test_a_low_recon_prio_gives_the_foreground_its_drives_back(catalog):
    load = WorkloadSpec(**RRW)
    _, low = rebuild(catalog, qlc_raid5(catalog, recon_prio=10, workloads=[RRW]), load)
    _, full = rebuild(catalog, qlc_raid5(catalog, workloads=[RRW]), load)
    assert low.rebuild_bytes_per_s < 0.2 * full.rebuild_bytes_per_s
    assert low.foreground_iops > 1.3 * full.foreground_iops


def test_idle_throttle_is_none_and_priority_scales_the_share(catalog):
    engine = ArraySystem(qlc_raid5(catalog, recon_prio=30), IDLE, catalog, (0,)).engine
    limits = qlc_raid5(catalog).array.rebuild
    assert engine.rebuild_throttle(limits, loaded=False).share is None
    assert engine.rebuild_throttle(limits, loaded=True).share == pytest.approx(0.30)
    high = limits.model_copy(update={"priority": "high"})
    assert engine.rebuild_throttle(high, loaded=True).share == pytest.approx(0.60)
    top = ArraySystem(qlc_raid5(catalog), IDLE, catalog, (0,)).engine
    assert top.rebuild_throttle(high, loaded=True).share <= 0.95


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
