"""Linux md by kernel version and with its write-intent bitmap (nvsim.engines.md): the costs counted
by hand from the module's docstrings, on plans from the stripe core."""

import numpy as np
import pytest

import nvsim
from nvsim.engines import build_engine, engine_settings
from nvsim.engines.md import DEFAULT_KERNEL, KERNELS
from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import plan_ios
from nvsim.sim.system import ArraySystem

KIB, PAGE, MEMBERS, STRIP = 1024, 4096, 8, 64 * 1024


def md(catalog, **settings):
    return build_engine(catalog.engines["linux-md"], settings, members=MEMBERS, strip_bytes=STRIP)


def work(eng, level, writes, offsets, length):
    geom = ArrayGeometry(level, MEMBERS, STRIP, member_size_bytes=STRIP * 64)
    is_write = np.asarray(writes, dtype=bool)
    offsets = np.asarray(offsets, dtype=np.int64)
    plan = plan_ios(geom, is_write, offsets, np.full(len(offsets), length, dtype=np.int64))
    chunks = ((offsets + length - 1) // STRIP - offsets // STRIP + 1).astype(float)
    return eng.work(plan, is_write, chunks, length, level)


def test_the_default_kernel_is_a_current_long_term_one_with_an_internal_bitmap(catalog):
    """Unset, the bitmap is mdadm's choice (4.3 by default): an internal one of 64 MiB chunks on
    members over 100 GiB, which an engine built without its array takes."""
    eng = md(catalog)
    assert DEFAULT_KERNEL == "6.6" and eng.settings.kernel == "6.6" and eng.settings.mdadm == "4.3"
    assert eng.settings.bitmap is None and eng.bitmap == "internal"
    assert eng.bitmap_chunk_bytes == 64 * 2**20 and eng.settings.bitmap_daemon_sleep_s == 5.0


TB = 10**12


def for_array(catalog, level, member_bytes, drives=MEMBERS, copies=2, **settings):
    return build_engine(catalog.engines["linux-md"], settings, members=drives, strip_bytes=STRIP,
                        array=(level, member_bytes, copies)).settings


@pytest.mark.parametrize("mdadm, member_bytes, bitmap", [
    ("4.3", 3.84 * TB, "internal"), ("3.3", 3.84 * TB, "internal"), ("4.1", 101 * 2**30, "internal"),
    ("4.3", 100 * 2**30, "none"),  # Create.c: s->size > 100*1024*1024 KiB
    ("3.2", 3.84 * TB, "none"),  # before commit 748952f7
    ("4.4", 3.84 * TB, "none"), ("4.6", 3.84 * TB, "none"),  # commit e97c4e18 asks; a scripted create gets none
])
def test_mdadm_adds_a_bitmap_by_its_version_and_the_members_size(catalog, mdadm, member_bytes, bitmap):
    settings = for_array(catalog, 6, member_bytes, mdadm=mdadm)
    assert settings.bitmap == bitmap
    assert (settings.bitmap_chunk_bytes is None) == (bitmap == "none")


def test_a_named_bitmap_is_kept_whatever_mdadm_would_add(catalog):
    assert for_array(catalog, 6, 3.84 * TB, mdadm="4.4", bitmap="internal").bitmap == "internal"
    assert for_array(catalog, 6, 3.84 * TB, bitmap="none").bitmap == "none"
    assert for_array(catalog, 0, 3.84 * TB).bitmap == "none"  # mdadm adds none at level 0


def test_raid10s_bitmap_covers_the_array_so_its_default_chunk_grows_with_it(catalog):
    """mdadm sizes the chunk on the array's capacity for RAID10 (Create.c) and on a member's
    otherwise: 24 x 30.72 TB members, 737 TB of RAID10 addresses, 180G bits of 4 KiB halved to
    fit 1,046,528 -> 512 MiB; RAID6 on the same members 64 MiB (7.5G bits -> 8 MiB, below 64)."""
    assert for_array(catalog, 10, 30.72 * TB, drives=24).bitmap_chunk_bytes == 512 * 2**20
    assert for_array(catalog, 6, 30.72 * TB, drives=24).bitmap_chunk_bytes == 64 * 2**20
    assert for_array(catalog, 10, 3.84 * TB, drives=4).bitmap_chunk_bytes == 64 * 2**20


def test_an_external_bitmaps_default_chunk_is_the_files_not_the_internal_ones(catalog):
    """mdadm (3.2-4.3) writes a bitmap file with CreateBitmap (bitmap.c), whose default chunk is
    4 KiB doubled until the space it covers has at most 2^20 chunks, with no 64 MiB floor (that is
    super1.c's, for an internal bitmap): 3.84 TB members -> 3.66 MB a chunk -> 4 MiB; RAID10 on
    24 x 30.72 TB, 368.6 TB of addresses -> 512 MiB."""
    assert for_array(catalog, 6, 3.84 * TB, bitmap="external").bitmap_chunk_bytes == 4 * 2**20
    assert for_array(catalog, 6, 3.84 * TB, bitmap="internal").bitmap_chunk_bytes == 64 * 2**20
    assert for_array(catalog, 10, 30.72 * TB, drives=24, bitmap="external").bitmap_chunk_bytes == 512 * 2**20


def test_a_raid10_bit_covers_a_chunk_of_the_arrays_addresses(catalog):
    """A RAID10 write marks the bit of its array sector (raid10_write_request), so a bit covers a
    chunk of host data whatever the data members; a RAID6 bit a chunk of every data member."""
    eng = md(catalog, bitmap="internal", bitmap_chunk_bytes="64MiB")
    assert eng.bitmap_chunks(64 * 2**20 * 1000, 10, 4) == pytest.approx(1000)
    assert eng.bitmap_chunks(64 * 2**20 * 1000, 6, 4) == pytest.approx(250)
    assert eng.sync_update_share(10, 1e3, 10e9, 2**20, False, 4) == pytest.approx(1 / 64)


@pytest.mark.parametrize("written, chunk", [("64MiB", 64 * 2**20), ("64M", 64 * 2**20), ("1GiB", 2**30), (2**27, 2**27)])
def test_the_bitmap_chunk_takes_a_size_with_its_unit_as_mdadm_does(catalog, written, chunk):
    """``bitmap_chunk_bytes`` reads a size as every other byte field of a scenario does (mdadm's
    ``--bitmap-chunk=64M`` is 64 MiB); a size that is not a power of two is still refused."""
    assert md(catalog, bitmap_chunk_bytes=written).settings.bitmap_chunk_bytes == chunk


def test_a_bitmap_chunk_that_is_not_a_power_of_two_is_refused_naming_mdadm(catalog):
    with pytest.raises(Exception, match="power of two"):
        md(catalog, bitmap_chunk_bytes="96MiB")


@pytest.mark.parametrize("kernel, lines", [("4.19", 2), ("5.4", 2), ("5.10", 2), ("5.15", 1), ("6.1", 1), ("6.6", 1)])
def test_raid5_aligned_reads_take_device_lock_before_5_14(catalog, kernel, lines):
    """Before Linux 5.14 a chunk-aligned read holds device_lock around its counter: two lines move
    per read; from 5.14 (commit 97ae27252f49) the counter's alone."""
    eng = md(catalog, kernel=kernel, bitmap="none")
    reads = work(eng, 6, [False, False, False], [0, 5 * STRIP, 9 * STRIP + 4 * KIB], 4 * KIB)
    assert np.allclose(reads.lock_s, lines * eng.line_transfer_us * 1e-6)


def test_a_kernel_changes_no_write_cost(catalog):
    old, new = md(catalog, kernel="5.4"), md(catalog, kernel="6.6")
    a, b = (work(e, 6, [True, True], [0, 3 * STRIP], 16 * KIB) for e in (old, new))
    assert np.array_equal(a.lock_s, b.lock_s) and np.array_equal(a.mid_s, b.mid_s)


@pytest.mark.parametrize("length", [4 * KIB, 16 * KIB])
def test_the_bitmap_takes_its_lock_twice_per_data_page_written_on_raid6(catalog, length):
    with_bitmap, without = md(catalog), md(catalog, bitmap="none")
    a, b = (work(e, 6, [True, False], [0, 3 * STRIP], length) for e in (with_bitmap, without))
    pages = length // PAGE
    assert np.allclose(a.lock_s - b.lock_s, [2 * pages * with_bitmap.line_transfer_us * 1e-6, 0.0])
    assert np.array_equal(a.mid_s, b.mid_s) and np.array_equal(a.submit_cpu_ref_s, b.submit_cpu_ref_s)


def test_the_bitmap_takes_its_lock_twice_per_written_raid10_request(catalog):
    with_bitmap, without = md(catalog, bitmap="external"), md(catalog, bitmap="none")
    a, b = (work(e, 10, [True, False], [STRIP - 4 * KIB, 0], 8 * KIB) for e in (with_bitmap, without))
    # the write spans two chunks: two md requests, each a startwrite and an endwrite
    assert np.allclose(a.lock_s - b.lock_s, [4 * with_bitmap.line_transfer_us * 1e-6, 0.0])


def test_bitmap_updates_follow_the_chunk_and_vanish_without_a_bitmap(catalog):
    small, large = md(catalog, bitmap_chunk_bytes=4 * 2**20), md(catalog)
    region = 100e9
    assert small.sync_update_share(6, 50e3, region, 4096, True, 6) > large.sync_update_share(6, 50e3, region, 4096, True, 6)
    assert md(catalog, bitmap="none").sync_update_share(6, 50e3, region, 4096, True, 6) == 0.0


def test_raid0_has_no_write_intent_bitmap_whatever_the_setting(catalog):
    """A bitmap records what a redundant array must resync: md RAID0 carries none (mdadm adds its
    own only from level 1), so its writes never wait for a bitmap update; RAID1 at the same load does."""
    eng = md(catalog, bitmap="internal", bitmap_chunk_bytes=2**20)
    assert eng.sync_update_share(0, 1e3, 10e9, 4096, True, 8) == 0.0
    assert eng.sync_update_share(0, 1e3, 10e9, 2**20, False, 8) == 0.0
    assert eng.sync_update_share(1, 1e3, 10e9, 4096, True, 1) > 0.0


def test_a_faster_random_write_stream_finds_fewer_clean_bitmap_chunks(catalog):
    eng = md(catalog, bitmap_chunk_bytes=2**20)
    shares = [eng.sync_update_share(6, rate, 10e9, 4096, True, 6) for rate in (1e3, 1e4, 1e5)]
    assert shares[0] > shares[1] > shares[2] > 0.0


def test_a_sequential_stream_sets_one_bit_per_bitmap_chunk_of_data(catalog):
    eng = md(catalog, bitmap_chunk_bytes=2**20)
    # 1 MiB writes over 6 data members: one new bit every 6 MiB of data, whatever the rate
    assert eng.sync_update_share(6, 1e3, 10e9, 2**20, False, 6) == pytest.approx(1 / 6)
    assert eng.sync_update_share(6, 1e5, 10e9, 2**20, False, 6) == pytest.approx(1 / 6)


@pytest.mark.parametrize("settings, field", [
    ({"kernel": "5.3"}, "array.engine_settings.kernel"),
    ({"bitmap": "yes"}, "array.engine_settings.bitmap"),
    ({"bitmap_chunk_bytes": 3 * 2**20}, "array.engine_settings.bitmap_chunk_bytes"),
    ({"bitmap_daemon_sleep_s": 0}, "array.engine_settings.bitmap_daemon_sleep_s"),
])
def test_a_bad_md_setting_is_one_line_naming_it(catalog, settings, field):
    with pytest.raises(nvsim.InputError) as error:
        engine_settings(catalog.engines["linux-md"], settings)
    assert field in str(error.value) and "\n" not in str(error.value)


def scenario(level: int, drives: int, engine: str = "linux-md", settings: dict | None = None, strip: str = "64KiB",
             **workload) -> dict:
    """A scenario's data: ``drives`` D7-P5510 at RAID ``level`` on the R750, one 4 KiB job
    (``workload``: its other fio options)."""
    array = {"level": level, "drive": "intel-d7-p5510-3.84tb", "drives": drives, "strip_bytes": strip,
             "engine": engine, "engine_settings": settings or {}}
    return {"name": "s", "platform": "dell-poweredge-r750", "array": array, "placement": {"job_sockets": [0]},
            "workloads": [{"name": "w", "rw": "randread", "bs": "4k", **workload}]}


@pytest.mark.parametrize("engine", ["linux-md", "intel-vroc"])
@pytest.mark.parametrize("bitmap, refused", [("internal", True), ("external", True), ("none", False), (None, False)])
def test_an_md_raid0_bitmap_asked_by_name_is_refused_in_one_line(catalog, engine, bitmap, refused):
    """mdadm refuses --bitmap at level 0: a RAID0 scenario naming one is refused, naming the field;
    none, or the setting left out, is taken (md RAID5 with a bitmap too)."""
    settings = {} if bitmap is None else {"bitmap": bitmap}
    raid0 = scenario(0, 4, engine, settings, rw="randwrite")
    if refused:
        with pytest.raises(nvsim.InputError) as error:
            nvsim.parse_scenario(raid0, catalog)
        assert "engine_settings.bitmap" in str(error.value) and "\n" not in str(error.value)
    else:
        assert nvsim.parse_scenario(raid0, catalog).array.level == 0
    assert nvsim.parse_scenario(scenario(5, 4, engine, settings, rw="randwrite"), catalog).array.level == 5


@pytest.mark.parametrize("level, settings, refused", [
    (10, {"group_thread_cnt": 8}, "engine_settings.group_thread_cnt"),
    (1, {"stripe_cache_size": 4096}, "engine_settings.stripe_cache_size"),
    (0, {"group_thread_cnt": 2, "bitmap": "none"}, "engine_settings.group_thread_cnt"),
    (10, {"group_thread_cnt": 0, "stripe_cache_size": 256}, None),  # the defaults, as written
    (6, {"group_thread_cnt": 8, "stripe_cache_size": 4096}, None),
    (5, {"group_thread_cnt": 8, "stripe_cache_size": 4096}, None),
    (5, {"group_thread_cnt": 8192, "bitmap": "none"}, None),  # the kernel's most (raid5_store_group_thread_cnt)
])
def test_raid456_settings_elsewhere_are_refused_in_one_line(catalog, level, settings, refused):
    """The stripe cache's size and its worker threads are raid456's sysfs attributes: asked of an
    md RAID0/1/10 they are refused, naming the field; their defaults, and RAID5/6, are taken."""
    data = scenario(level, 2 if level == 1 else 6, settings=settings)
    if refused is None:
        assert nvsim.parse_scenario(data, catalog).array.engine_settings == settings
        return
    with pytest.raises(nvsim.InputError) as error:
        nvsim.parse_scenario(data, catalog)
    assert refused in str(error.value) and "\n" not in str(error.value)


def test_every_named_kernel_builds(catalog):
    assert all(md(catalog, kernel=k).kernel >= (4, 19) for k in KERNELS)


def test_vroc_has_no_bitmap_unless_asked(catalog):
    eng = build_engine(catalog.engines["intel-vroc"], {}, members=MEMBERS, strip_bytes=STRIP)
    assert eng.settings.bitmap == "none" and eng.bitmap_holds_per_page == 0.0


@pytest.mark.parametrize("jobs", [1, 4])
def test_md_raid0_reads_cost_a_core_little_more_than_the_bare_drives(catalog, jobs):
    """md RAID0 only remaps: where the job cores bind, 4 KiB random reads through it reach most of
    what the same jobs get from the bare drives (RAID0's remap, not the RAID5/6/10 request path's
    fitted cost, which left it at a fifth), and never more."""
    def iops(engine):
        spec = nvsim.parse_scenario(scenario(0, 4, engine, strip="512KiB", iodepth=32, numjobs=jobs, ioengine="libaio"),
                                    catalog)
        result = nvsim.Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid")
        assert result.bottleneck.startswith("host cores")
        return result.read_iops

    md_iops, bare_iops = iops("linux-md"), iops("none")
    assert 0.8 * bare_iops < md_iops < bare_iops


@pytest.mark.parametrize("settings, field, says", [
    ({"mdadm": "4.4", "bitmap": "external"}, "engine_settings.bitmap", "mdadm 4.4 keeps no bitmap in a file"),
    ({"bitmap_chunk_bytes": "128MiB"}, "engine_settings.bitmap_chunk_bytes", "does not name"),
    ({"bitmap_daemon_sleep_s": 2}, "engine_settings.bitmap_daemon_sleep_s", "does not name"),
    ({"mdadm": "5.0"}, "array.engine_settings.mdadm", "4.3"),
])
def test_a_bitmap_mdadm_cannot_make_is_refused_in_one_line(catalog, settings, field, says):
    """mdadm 4.4 removed bitmap files (commit 581ba134); a chunk or daemon period for a bitmap the
    scenario leaves to mdadm (whose choice depends on its version and the members) is refused, as
    an mdadm that is not a release."""
    with pytest.raises(nvsim.InputError) as error:
        nvsim.parse_scenario(scenario(6, 8, settings=settings, rw="randwrite"), catalog)
    assert field in str(error.value) and says in str(error.value) and "\n" not in str(error.value)
    assert nvsim.parse_scenario(scenario(6, 8, settings={"mdadm": "4.3", "bitmap": "external"}), catalog)


@pytest.mark.parametrize("level, drives, settings, least", [
    (6, 8, {"bitmap_chunk_bytes": "1MiB"}, "4 MiB"),  # 3.84 TB members: 937.5M bits of 4 KiB in 128 KiB of room
    (10, 8, {"bitmap_chunk_bytes": "8MiB"}, "16 MiB"),  # RAID10's bits cover its 15.36 TB of addresses
    (6, 8, {"mdadm": "3.3", "bitmap_added": "grow", "bitmap_chunk_bytes": "8MiB"}, "16 MiB"),  # 32 KiB to the log
    (6, 8, {"mdadm": "3.2", "bitmap_added": "grow", "bitmap_chunk_bytes": "256KiB"}, "512 KiB"),  # 1,019 KiB to the data
])
def test_an_internal_bitmap_chunk_mdadm_refuses_for_the_members_is_refused_in_one_line(catalog, level, drives, settings,
                                                                                        least):
    """mdadm's add_internal_bitmap1 refuses a --bitmap-chunk whose bits do not fit the room it left
    (Create.c: "Given bitmap chunk size not supported"): the line names the field and the allowed
    range; the smallest it takes is taken, and a bitmap file takes small chunks (CreateBitmap checks none)."""
    data = scenario(level, drives, settings={"bitmap": "internal", **settings}, rw="randwrite")
    with pytest.raises(nvsim.InputError) as error:
        nvsim.parse_scenario(data, catalog)
    message = str(error.value)
    assert "engine_settings.bitmap_chunk_bytes" in message and f"allowed: {least} to 2 GiB" in message
    assert "\n" not in message
    data["array"]["engine_settings"]["bitmap_chunk_bytes"] = least.replace(" ", "")
    assert nvsim.parse_scenario(data, catalog).array.engine_settings["bitmap_chunk_bytes"] == least.replace(" ", "")
    external = scenario(level, drives, settings={"mdadm": "4.3", "bitmap": "external", "bitmap_chunk_bytes": "4KiB"})
    assert nvsim.parse_scenario(external, catalog)


def test_a_bitmap_grown_by_mdadm_3_3_on_a_large_raid10_takes_a_larger_default_chunk(catalog):
    """24 x 3.84 TB RAID10 near 2: 46 TB of addresses. Created, its bits fit 128 KiB at mdadm's
    64 MiB; grown by mdadm 3.3 (32 KiB before the bad-block log) they fit only at 256 MiB; from
    mdadm 4.0 a grown bitmap has create's room."""
    def chunk(mdadm, added):
        return for_array(catalog, 10, 3.84 * TB, drives=24, mdadm=mdadm, bitmap="internal",
                         bitmap_added=added).bitmap_chunk_bytes
    assert chunk("3.3", "create") == chunk("4.3", "grow") == 64 * 2**20
    assert chunk("3.3", "grow") == 256 * 2**20


@pytest.mark.parametrize("engine, settings, says", [
    ("linux-md", {"bitmap_added": "grow"}, "does not name"),
    ("linux-md", {"bitmap": "none", "bitmap_added": "grow"}, "no effect without a write-intent bitmap"),
    ("linux-md", {"bitmap": "external", "bitmap_added": "grow"}, "allowed: with bitmap: internal"),
    ("intel-vroc", {"bitmap": "internal", "bitmap_added": "grow"}, "IMSM"),
])
def test_how_a_bitmap_was_added_is_asked_only_of_an_internal_md_bitmap(catalog, engine, settings, says):
    with pytest.raises(nvsim.InputError) as error:
        nvsim.parse_scenario(scenario(5, 8, engine, settings, rw="randwrite"), catalog)
    assert "engine_settings.bitmap_added" in str(error.value) and says in str(error.value)


@pytest.mark.parametrize("engine", ["linux-md", "intel-vroc"])
def test_idle_stripe_workers_leave_the_read_clock_and_rate_alone(catalog, engine):
    """RAID5 reads of an array with every member in go around the stripe cache: raid5d's workers
    (group_thread_cnt) sleep, so they neither hold the jobs' cores at a lower turbo clock nor
    change the rate (16 workers took 841K 4 KiB random reads to 757K); writes keep them busy, and
    a degraded array's reads go through them."""
    def rate(workers, rw, failed=()):
        data = scenario(5, 8, engine, {"group_thread_cnt": workers, "bitmap": "none"}, rw=rw, iodepth=32, numjobs=16)
        spec = nvsim.parse_scenario(data, catalog)
        built = ArraySystem(spec, spec.workloads[0], catalog, failed_members=failed).model.engine
        return built.busy_host_threads(rw == "randread"), nvsim.Simulation(spec, "w", catalog=catalog).run("fluid").total_iops

    idle, base = rate(0, "randread")
    busy, many = rate(16, "randread")
    assert idle == busy == 0 and many == base
    assert rate(16, "randwrite")[0] == 17  # raid5d and 16 workers on the jobs' one node
    assert rate(16, "randread", (0,))[0] == 17


@pytest.mark.parametrize("level, thread", [(1, "md RAID1 thread (raid1d)"), (10, "md RAID10 thread (raid10d)"),
                                           (5, "md stripe thread (raid5d)"), (6, "md stripe thread (raid5d)")])
def test_mds_own_thread_is_named_for_the_personality(catalog, level, thread):
    """The thread md's own work runs on is raid5d at RAID4/5/6 and raid1d or raid10d at RAID1 and
    RAID10 (where it writes the bitmap's pages): a RAID10 result names raid10d where it is busy."""
    engine = build_engine(catalog.engines["linux-md"], {"bitmap": "internal"}, members=4, strip_bytes=STRIP,
                          array=(level, 2**40, 2))
    assert engine.server.label == thread
