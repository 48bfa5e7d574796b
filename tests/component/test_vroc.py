"""Intel VROC (nvsim/engines/vroc.py): md's costs, plus one PPL write per RAID5 stripe update and
one VMD-remapped interrupt per member I/O; its catalog entry restates linux-md's values and fits
nothing; RAID6, more than 24 drives and non-Intel platforms are refused with one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import nvsim
from nvsim.engines import build_engine
from nvsim.engines.md import MdParameters
from nvsim.engines.vroc import PPL_HEADER_BYTES, VrocParameters
from nvsim.scenario import parse_scenario
from nvsim.stripe.layout import ArrayGeometry, parity_members
from nvsim.stripe.planner import plan_ios

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scenarios" / "vroc-example"
KIB = 1024
STRIP = 16 * KIB
MEMBERS = 5


def engine(catalog, name="intel-vroc", policy="ppl", **values):
    if values:
        catalog = catalog.with_values({f"engines/{name}/{k}": v for k, v in values.items()})
    # md with VROC's default bitmap (none: mdadm adds none to IMSM arrays), so that only what VROC adds differs
    settings = {"consistency_policy": policy} if name == "intel-vroc" else {"bitmap": "none"}
    return build_engine(catalog.engines[name], settings, members=MEMBERS, strip_bytes=STRIP)


def work(eng, level, writes, offsets, length):
    geom = ArrayGeometry(level, MEMBERS, STRIP, "left-asymmetric" if level == 5 else "near",
                         member_size_bytes=STRIP * 64)
    is_write = np.asarray(writes, dtype=bool)
    offsets = np.asarray(offsets, dtype=np.int64)
    plan = plan_ios(geom, is_write, offsets, np.full(len(offsets), length, dtype=np.int64))
    chunks = ((offsets + length - 1) // STRIP - offsets // STRIP + 1).astype(float)
    return plan, eng.work(plan, is_write, chunks, length, level)


def example(**array):
    data = yaml.safe_load((EXAMPLE / "scenario.yaml").read_text())
    data["array"].update(array)
    return data


def test_md_parameters_are_linux_mds_and_only_vmd_is_added(catalog):
    vroc, md = catalog.engines["intel-vroc"].parameters, catalog.engines["linux-md"].parameters
    assert set(VrocParameters.model_fields) - set(MdParameters.model_fields) == {"vmd_interrupt_us"}
    for name in MdParameters.model_fields:
        assert vroc[name].value == md[name].value, name
    assert not [name for name, cited in vroc.items() if cited.basis == "fitted"]


def test_ppl_adds_one_parity_member_write_per_stripe_update(catalog):
    with_ppl, without = engine(catalog, policy="ppl"), engine(catalog, policy="resync")
    geom = ArrayGeometry(5, MEMBERS, STRIP, "left-asymmetric")
    data = (MEMBERS - 1) * STRIP
    # a 4 KiB read-modify-write in stripe 0; 8 KiB across stripes 0 and 1; a whole stripe (2)
    for offset, length, rows in ((STRIP, 4 * KIB, [0]), (data - 4 * KIB, 8 * KIB, [0, 1]), (2 * data, data, [2])):
        plan, base = work(without, 5, [True], [offset], length)
        _, logged = work(with_ppl, 5, [True], [offset], length)
        assert plan.stripes_touched[0] == len(rows)
        added = np.flatnonzero(logged.phase == 0)[-len(rows):]
        assert len(logged.member) - len(base.member) == len(rows)
        assert logged.is_write[added].all()
        assert sorted(logged.member[added]) == sorted(parity_members(geom, rows)[0])
        pages_per_row = 0 if length == data else length // len(rows)  # the partial parity: the rows' pages
        assert list(logged.length_bytes[added]) == [PPL_HEADER_BYTES + pages_per_row] * len(rows)
        assert np.all(np.diff(logged.host_index) >= 0) and np.all(np.diff(logged.phase) >= 0)
        assert logged.pre_s[0] > base.pre_s[0] and logged.mid_s[0] == base.mid_s[0]


def test_ppl_only_for_raid5_writes(catalog):
    eng = engine(catalog, policy="ppl")
    _, reads = work(eng, 5, [False, False], [0, 3 * STRIP], 4 * KIB)
    _, mirrored = work(eng, 10, [True, True], [0, 3 * STRIP], 4 * KIB)
    _, md_reads = work(engine(catalog, "linux-md"), 5, [False, False], [0, 3 * STRIP], 4 * KIB)
    assert len(reads.member) == len(md_reads.member) == 2 and (reads.phase == 1).all()
    assert len(mirrored.member) == 4 and not (mirrored.phase == 0).any()


def test_vmd_costs_one_remapped_interrupt_per_member_io(catalog):
    vroc, md = engine(catalog, policy="resync", vmd_interrupt_us=3.0), engine(catalog, "linux-md")
    for level, writes in ((10, [True, False, True]), (5, [True, False, True])):
        _, ours = work(vroc, level, writes, [0, 5 * STRIP, 9 * STRIP], 4 * KIB)
        _, theirs = work(md, level, writes, [0, 5 * STRIP, 9 * STRIP], 4 * KIB)
        member_ios = np.bincount(ours.host_index, minlength=3)
        assert np.allclose(ours.submit_cpu_ref_s - theirs.submit_cpu_ref_s, 3e-6 * member_ios)
        assert np.array_equal(ours.lock_s, theirs.lock_s) and np.array_equal(ours.mid_s, theirs.mid_s)


def test_vmd_cost_shows_in_host_cpu(catalog):
    cpu_per_io = {}
    for vmd_us in (0.0, 2.0):
        cat = catalog.with_values({"engines/intel-vroc/vmd_interrupt_us": vmd_us})
        result = nvsim.Simulation(parse_scenario(example(), cat), "randread-b4k-j16-d32", catalog=cat).run("fluid")
        cpu_per_io[vmd_us] = result.cpu_percent / result.total_iops
    assert cpu_per_io[2.0] > 1.05 * cpu_per_io[0.0]


def test_ppl_doubles_raid5_small_write_amplification(catalog):
    """A 4 KiB RAID5 write writes data and parity (2x); its PPL adds a header and one page (4x)."""
    waf = {}
    for policy in ("resync", "ppl"):
        spec = parse_scenario(example(engine_settings={"consistency_policy": policy}), catalog)
        waf[policy] = nvsim.Simulation(spec, "randwrite-b4k-j16-d32", catalog=catalog).run("fluid").raid_waf
    assert waf["resync"] == pytest.approx(2.0, rel=1e-6)
    assert waf["ppl"] == pytest.approx(4.0, rel=1e-6)


def test_ppl_costs_small_writes_within_intels_stated_bound(catalog):
    """Intel's PPL author: 'Write performance is reduced by up to 30%-40%' (raid5-ppl.rst). On the
    example's 8 drives PPL costs 4 KiB random writes less than that and more than nothing (the log
    write loads the drives), and a full-stripe 128 KiB stream almost nothing (a header per stripe)."""
    iops = {}
    for policy in ("resync", "ppl"):
        spec = parse_scenario(example(engine_settings={"consistency_policy": policy}), catalog)
        for workload in ("randwrite-b4k-j16-d32", "seqwrite-b128k-j8-d32"):
            iops[policy, workload] = nvsim.Simulation(spec, workload, catalog=catalog).run("fluid").total_iops
    small = 1 - iops["ppl", "randwrite-b4k-j16-d32"] / iops["resync", "randwrite-b4k-j16-d32"]
    stream = 1 - iops["ppl", "seqwrite-b128k-j8-d32"] / iops["resync", "seqwrite-b128k-j8-d32"]
    assert 0.10 < small <= 0.40
    assert 0 <= stream < 0.02


def test_the_example_runs_in_both_modes(catalog):
    for path, workload in ((EXAMPLE / "scenario.yaml", "randwrite-b4k-j16-d32"),
                           (EXAMPLE / "raid10.yaml", "randrw70-b4k-j16-d32")):
        sim = nvsim.Simulation(path, workload, catalog=catalog)
        fluid, event = sim.run("fluid"), sim.run("event", host_ios=3000)
        assert fluid.total_iops > 0 and event.total_iops == pytest.approx(fluid.total_iops, rel=0.15)
    assert not (EXAMPLE / "published.yaml").exists()


@pytest.mark.parametrize("change, message", [
    ({"level": 6}, "array: engine: intel-vroc supports RAID levels [0, 1, 5, 10], not 6"),
    ({"drives": 25}, "array: drives: intel-vroc supports at most 24 drives, got 25"),
    ({"engine_settings": {"consistency_policy": "journal"}}, "array.engine_settings.consistency_policy:"),
    ({"level": 10, "drives": 4, "engine_settings": {"consistency_policy": "ppl"}},
     "array: engine_settings.consistency_policy: ppl (the partial parity log) closes RAID5's write hole"),
    ({"level": 10, "drives": 3, "engine_settings": {}},  # mdadm platform-intel.c: an IMSM RAID10 is at least 4 drives, and even
     "array: drives: a RAID10 volume on intel-vroc has at least 4 drives"),
    ({"level": 10, "drives": 2, "engine_settings": {}}, "array: drives: a RAID10 volume on intel-vroc has at least 4 drives"),
    ({"level": 10, "drives": 5, "engine_settings": {}}, "array: drives: RAID10 on engine intel-vroc mirrors sets of 2 drives"),
    ({"engine_settings": {"bitmap_chunk_bytes": 4096}},  # VROC's default: no bitmap (md's own is internal)
     "array: engine_settings.bitmap_chunk_bytes: has no effect without a write-intent bitmap"),
])
def test_what_vroc_cannot_do_is_refused_with_one_line(catalog, change, message):
    with pytest.raises(nvsim.InputError) as error:
        parse_scenario(example(**change), catalog)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_a_non_intel_platform_is_refused(catalog):
    data = example()
    data["platform"] = "asus-rs520a-e12-rs24u"
    with pytest.raises(nvsim.InputError) as error:
        parse_scenario(data, catalog)
    assert str(error.value) == ("array.engine: intel-vroc runs only on Intel CPUs; "
                                "platform asus-rs520a-e12-rs24u has AMD EPYC 9334")
    data["array"].update(engine="linux-md", engine_settings={})  # md itself runs anywhere
    assert parse_scenario(data, catalog).platform == "asus-rs520a-e12-rs24u"


def test_a_refit_of_md_restates_vrocs_copies(tmp_path):
    """calibrate --write rewrites linux-md's fitted values and every copy whose source is
    linux-md (VROC's), so the catalog never carries a stale restatement."""
    import shutil

    from nvsim.calibrate import write_fitted
    from nvsim.catalog import DEFAULT_CATALOG_DIR, load_catalog
    from nvsim.published import ENGINE_FITS
    shutil.copytree(DEFAULT_CATALOG_DIR, tmp_path / "models")
    before = load_catalog(tmp_path / "models")
    fitted = {}
    for fit in ENGINE_FITS:
        entry = getattr(before, fit.section)[fit.entry]
        for name in fit.parameters:
            cited = getattr(entry, name) if fit.section in ("host_io", "oltp") else entry.parameters[name]
            fitted[f"{fit.entry} {name}"] = (cited.value * (1.5 if fit.entry == "linux-md" else 1.0), cited.value)
    write_fitted(fitted, tmp_path / "models")
    after = load_catalog(tmp_path / "models")
    for name in ("barrier_lock_us", "request_cpu_us", "stripe_member_bio_us", "resync_request_us"):
        new = after.engines["linux-md"].parameters[name].value
        assert new == pytest.approx(1.5 * before.engines["linux-md"].parameters[name].value, rel=1e-5)
        assert after.engines["intel-vroc"].parameters[name].value == new
        assert after.engines["intel-vroc"].parameters[name].source == "linux-md"


def test_an_even_raid10_of_four_drives_or_more_runs_as_md_does(catalog):
    """mdadm 4.4 on takes any even count from four for an IMSM RAID10 (MPB_ATTRIB_RAID10_EXT)."""
    for drives in (4, 6, 8):
        spec = parse_scenario(example(level=10, drives=drives, engine_settings={}), catalog)
        assert spec.array.drives == drives


@pytest.mark.parametrize("chunk", [4096, "4MiB", 128 * 2**20])
def test_an_imsm_bitmap_chunk_other_than_mdadms_is_refused_with_one_line(catalog, chunk):
    """mdadm's super-intel.c add_internal_bitmap_imsm sets an IMSM bitmap's chunk itself
    (calculate_bitmap_chunksize: 64 MiB on any array nvsim models), whatever --bitmap-chunk said."""
    with pytest.raises(nvsim.InputError) as error:
        parse_scenario(example(engine_settings={"bitmap": "internal", "bitmap_chunk_bytes": chunk}), catalog)
    line = str(error.value)
    assert line.startswith("array: engine_settings.bitmap_chunk_bytes: mdadm sets an IMSM (VROC) bitmap's chunk itself")
    assert "allowed: 64 MiB, or leave it unset" in line and "\n" not in line


@pytest.mark.parametrize("settings", [{"bitmap": "internal"}, {"bitmap": "internal", "bitmap_chunk_bytes": 64 * 2**20}])
@pytest.mark.parametrize("member_bytes", [3.84e12, 100e12])
def test_an_imsm_bitmap_has_mdadms_chunk(catalog, settings, member_bytes):
    """64 MiB, also on members over 70 TB, where md's own superblock (super1.c: 128 KiB of bits)
    would take 128 MiB."""
    spec = parse_scenario(example(engine_settings=settings), catalog)
    eng = build_engine(catalog.engines["intel-vroc"], spec.array.engine_settings, members=8, strip_bytes=128 * KIB,
                       array=(5, member_bytes, 0))
    assert eng.bitmap_chunk_bytes == 64 * 2**20


def test_the_imsm_bitmap_chunk_is_mdadms_arithmetic():
    """calculate_bitmap_chunksize: 64 MiB, or the least chunk whose bits fit the IMSM bitmap area
    (1 MiB less 12 KiB, counted as mdadm counts it: the area times the sector size, against the
    volume's sectors / 4096 + 1 halved); that passes 64 MiB only on volumes of exabytes."""
    from nvsim.engines.md_bitmap import imsm_bitmap_chunk_bytes

    assert imsm_bitmap_chunk_bytes(24 * 122.88e12) == 64 * 2**20
    area_bits = (2**20 - 12 * KIB) * 512
    volume_sectors = (area_bits * 2**15 - 1) * 4096  # area_bits x 2^15 bits: 4,096 x 2^15 = 128 MiB fits them
    assert imsm_bitmap_chunk_bytes(volume_sectors * 512) == 128 * 2**20


def test_mdadm_before_4_2_has_no_imsm_bitmap(catalog):
    """The IMSM write-intent bitmap came with mdadm 4.2 (commit fbc42556, 'imsm: Write-intent bitmap
    support'); before it Create.c stops: 'internal bitmaps not supported with imsm metadata'."""
    with pytest.raises(nvsim.InputError) as error:
        parse_scenario(example(engine_settings={"bitmap": "internal", "mdadm": "4.1"}), catalog)
    line = str(error.value)
    assert line.startswith("array: engine_settings.bitmap: mdadm 4.1 has no IMSM (VROC) write-intent bitmap")
    assert "allowed: none, or mdadm 4.2 or newer" in line
    parse_scenario(example(engine_settings={"bitmap": "internal", "mdadm": "4.2"}), catalog)
