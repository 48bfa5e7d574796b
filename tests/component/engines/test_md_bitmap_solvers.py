"""md's write-intent bitmap in the solvers (issue 37): a write that sets a clean bit holds md's
thread for its share of one bitmap update (the writes that wait for the same update share it,
``md_bitmap.writes_per_update``), at the write rate fed back (the fluid mode's fixed point; the
event mode draws each write's update with the share at that rate)."""

import pytest

from nvsim import Simulation, parse_scenario
from nvsim.sim import ArraySystem

MIB = 2**20


def raid6(catalog, jobs=16, depth=4, size=None, **settings):
    """8 x CM7-R 3.84 TB, md RAID6, random 4 KiB writes over ``size`` (None: the whole array, 23 TB):
    mdadm takes no internal bitmap chunk under 4 MiB on these members (super1.c)."""
    job = {"name": "w", "rw": "randwrite", "bs": "4k", "numjobs": jobs, "iodepth": depth} | ({"size": size} if size else {})
    scenario = parse_scenario({
        "name": "bitmap", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                  "engine": "linux-md", "engine_settings": settings},
        "workloads": [job],
    }, catalog)
    return scenario, scenario.workloads[0]


def fluid_write_iops(catalog, **settings):
    scenario, workload = raid6(catalog, **settings)
    return Simulation(scenario, workload, catalog=catalog).run("fluid").write_iops


def test_small_bitmap_chunks_cost_random_writes_and_no_bitmap_costs_nothing(catalog):
    none = fluid_write_iops(catalog, bitmap="none")
    small = fluid_write_iops(catalog, bitmap="internal", bitmap_chunk_bytes=4 * MIB)  # the least mdadm takes here
    medium = fluid_write_iops(catalog, bitmap="internal", bitmap_chunk_bytes=8 * MIB)
    large = fluid_write_iops(catalog, bitmap="internal", bitmap_chunk_bytes=64 * MIB)
    assert small < medium < none
    # ~138K writes/s over 23 TB: mdadm's 64 MiB chunks (57K, 384 MiB of data each) are written every 0.41 s, clean
    # once in e^18 (1.5 daemon periods: 7.5 s)
    assert large == pytest.approx(none, rel=1e-6)
    assert fluid_write_iops(catalog, bitmap="external", bitmap_chunk_bytes=4 * MIB) == pytest.approx(small)
    # a bitmap file takes chunks an internal bitmap may not (bitmap.c CreateBitmap checks none): more of them clean
    assert fluid_write_iops(catalog, bitmap="external", bitmap_chunk_bytes=4096) < small


def test_the_fluid_rate_is_a_fixed_point_of_the_bitmap_updates_it_causes(catalog):
    """At the answer's write rate, md's thread spends the share of writes that set a clean bit
    times one update on each write: the rate without updates, less exactly that."""
    scenario, workload = raid6(catalog, bitmap="internal", bitmap_chunk_bytes=8 * MIB)
    x = Simulation(scenario, workload, catalog=catalog).run("fluid").write_iops
    system = ArraySystem(scenario, workload, catalog)
    share, update_s = system.sync_update(x)
    assert 0.0 < share < 1.0 and update_s > 0.0
    bare, _ = raid6(catalog, bitmap="none")
    x_bare = Simulation(bare, workload, catalog=catalog).run("fluid").write_iops
    # raid5d binds both (one thread): 1/x = 1/x_bare + share x update (update_s: each write's part)
    assert 1.0 / x == pytest.approx(1.0 / x_bare + share * update_s, rel=1e-6)


def test_the_event_mode_draws_the_updates_at_the_fed_back_rate(catalog):
    runs = {}
    for label, settings in {"none": {"bitmap": "none"}, "4M": {"bitmap": "internal", "bitmap_chunk_bytes": 4 * MIB}}.items():
        scenario, workload = raid6(catalog, **settings)
        runs[label] = Simulation(scenario, workload, catalog=catalog).run("event", host_ios=6000)
    assert runs["4M"].write_iops < 0.9 * runs["none"].write_iops
    fluid = fluid_write_iops(catalog, bitmap="internal", bitmap_chunk_bytes=4 * MIB)
    assert runs["4M"].write_iops == pytest.approx(fluid, rel=0.15)


def test_writes_that_wait_for_one_update_share_it():
    from nvsim.engines.md_bitmap import writes_per_update
    assert writes_per_update(0.0, 20e-6) == 1.0 and writes_per_update(10_000.0, 20e-6) == 1.0
    assert writes_per_update(200_000.0, 20e-6) == pytest.approx(4.0)


@pytest.mark.parametrize("mode", ["fluid", "event"])
def test_a_deep_queue_shares_its_bitmap_updates_and_one_write_waits_for_its_own(catalog, mode):
    """md RAID10 with a 1 MiB bitmap chunk (a bitmap file: an internal bitmap of 15.36 TB of RAID10
    addresses takes none under 16 MiB; the file's drive like the members): every random write over
    15 TB sets a clean bit, and md writes the dirty pages once per unplug for the whole batch. Deep queues: as fast as with no
    bitmap (it held a flat 66,346 IOPS from 4 x QD16 to 64 x QD32 when every write took a whole
    update on md's thread); one psync job: each write waits for its own update."""
    def rate(bitmap, jobs, depth, engine="libaio"):
        settings = {"bitmap": "external", "bitmap_chunk_bytes": "1MiB"} if bitmap else {"bitmap": "none"}
        scenario = parse_scenario({
            "name": "bitmap10", "platform": "dell-poweredge-r750", "placement": {"job_sockets": [0]},
            "array": {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                      "engine": "linux-md", "engine_settings": settings},
            "workloads": [{"name": "w", "rw": "randwrite", "bs": "16k" if depth > 1 else "4k", "numjobs": jobs,
                           "iodepth": depth, "ioengine": engine}]}, catalog)
        return Simulation(scenario, scenario.workloads[0], catalog=catalog).run(mode, host_ios=20_000).write_iops

    for jobs, depth in ((32, 8), (64, 32)):
        assert rate(True, jobs, depth) == pytest.approx(rate(False, jobs, depth), rel=0.03)
        assert rate(True, jobs, depth) > 2 * 66_346
    assert rate(True, 1, 1, "psync") < 0.8 * rate(False, 1, 1, "psync")


def test_an_external_bitmap_waits_for_its_own_device(catalog):
    """An external bitmap's page goes to the drive holding its file (``bitmap_drive``): a slower
    drive's write (the D5-P5336 QLC's 20 us against the CM7-R's 12 us) makes each update longer and
    the random writes fewer; a drive like the members answers as an internal bitmap does, and
    without a ``bitmap_drive`` the file's device is taken as one of the members' model."""
    small = fluid_write_iops(catalog, bitmap="internal", bitmap_chunk_bytes=4 * MIB)
    same = fluid_write_iops(catalog, bitmap="external", bitmap_chunk_bytes=4 * MIB, bitmap_drive="kioxia-cm7-r-7.68tb")
    slow = fluid_write_iops(catalog, bitmap="external", bitmap_chunk_bytes=4 * MIB, bitmap_drive="solidigm-d5-p5336-61.44tb")
    assert same == pytest.approx(small, rel=1e-9)
    assert slow < 0.99 * small
    scenario, workload = raid6(catalog, bitmap="external", bitmap_chunk_bytes=4 * MIB, bitmap_drive="solidigm-d5-p5336-61.44tb")
    internal, _ = raid6(catalog, bitmap="internal", bitmap_chunk_bytes=4 * MIB)
    rate = 100_000.0
    (share_ext, each_ext), (share_int, each_int) = (ArraySystem(s, workload, catalog).sync_update(rate)
                                                    for s in (scenario, internal))
    assert share_ext == share_int and each_ext > each_int  # the same bits set, a longer wait for each


@pytest.mark.parametrize("settings, words", [
    ({"bitmap": "internal", "bitmap_drive": "kioxia-cm7-r-3.84tb"}, "engine_settings.bitmap_drive: the device of an external bitmap's file"),
    ({"bitmap_drive": "kioxia-cm7-r-3.84tb"}, "engine_settings.bitmap_drive: the device of an external bitmap's file"),
    ({"bitmap": "external", "bitmap_drive": "kioxia-cm7-r-3.48tb"}, "engine_settings.bitmap_drive: unknown drive 'kioxia-cm7-r-3.48tb'; did you mean"),
])
def test_a_bitmap_drive_is_refused_in_one_line_where_it_has_no_place(catalog, settings, words):
    with pytest.raises(Exception) as refused:
        raid6(catalog, **settings)
    assert words in str(refused.value) and "Traceback" not in str(refused.value)
