"""Scenarios of seed 004 (graid-gen5-raid5-16x) and seed 001 (xiraid-qlc-raid5): files load, the
published numbers name real scenarios and workloads, and the fio job files agree with the YAML."""

from pathlib import Path

import pytest

from nvsim.scenario import load_scenario
from nvsim.units import parse_bytes
from nvsim.published import load_published

ROOT = Path(__file__).resolve().parents[2]
SEED004 = ROOT / "scenarios" / "graid-gen5-raid5-16x"
SEED001 = ROOT / "scenarios" / "xiraid-qlc-raid5"

SEED004_FILES = {
    "scenario.yaml": ("graid-supremeraid-sr1010", 5, 4096),
    "theoretical.yaml": ("ideal-raid", 5, 4096),
    "hardware-raid5.yaml": ("broadcom-megaraid-9560-16i", 5, 256 * 1024),
    "md-raid5.yaml": ("linux-md", 5, 512 * 1024),
    "no-raid.yaml": ("none", 0, None),
}
SEED004_WORKLOADS = {
    "seqread-b128k-j128-d64": ("read", 128 * 1024),
    "seqwrite-b128k-j128-d64": ("write", 128 * 1024),
    "randread-b4k-j128-d64": ("randread", 4096),
    "randwrite-b4k-j128-d64": ("randwrite", 4096),
}
READ_METRICS = {"read_bytes_per_s", "read_iops"}
WRITE_METRICS = {"write_bytes_per_s", "write_iops"}


def fio_sections(path: Path) -> list[tuple[str, dict[str, str]]]:
    """A fio job file as (section, options) in file order; repeated section names are kept."""
    sections: list[tuple[str, dict[str, str]]] = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            sections.append((line[1:-1], {}))
            continue
        assert sections, f"{path.name}: option outside a section: {line!r}"
        key, _, value = line.partition("=")
        sections[-1][1][key.strip()] = value.strip()
    return sections


def test_every_yaml_file_carries_its_source_in_a_comment():
    for path in [*SEED004.glob("*.yaml"), *SEED001.glob("*.yaml")]:
        assert path.read_text().startswith("# "), path.name
        assert "seed" in path.read_text().splitlines()[0].lower(), path.name
    for path in (SEED004 / "job.fio", SEED001 / "job.fio"):
        assert path.read_text().startswith("; Seed 00"), path.name


@pytest.mark.parametrize("name", sorted(SEED004_FILES))
def test_seed004_scenarios_load_with_the_four_workloads(name, catalog):
    spec = load_scenario(SEED004 / name, catalog)
    engine, level, strip = SEED004_FILES[name]
    assert (spec.platform, spec.array.drive, spec.array.drives) == ("asus-rs520a-e12-rs24u", "kioxia-cm7-r-3.84tb", 16)
    assert (spec.array.engine, spec.array.level) == (engine, level)
    if strip is not None:
        assert spec.array.strip_bytes == strip
    assert spec.source == "seed-004"
    assert {w.name: (w.rw, w.bs) for w in spec.workloads} == SEED004_WORKLOADS
    for w in spec.workloads:
        assert (w.numjobs, w.iodepth, w.ioengine, w.runtime, w.time_based) == (128, 64, "libaio", 60.0, True)
        if not w.is_random:
            assert w.size == w.offset_increment == 50 * 2**30


def test_seed004_scenario_files_share_identical_workloads(catalog):
    workloads = {name: load_scenario(SEED004 / name, catalog).workloads for name in SEED004_FILES}
    assert len(set(workloads.values())) == 1


def test_seed004_job_fio_matches_the_workloads(catalog):
    sections = fio_sections(SEED004 / "job.fio")
    assert sections[0][0] == "global"
    glob = sections[0][1]
    assert {k: glob.get(k) for k in ("ioengine", "direct", "numjobs", "iodepth", "runtime")} == \
        {"ioengine": "libaio", "direct": "1", "numjobs": "128", "iodepth": "64", "runtime": "60"}
    assert "time_based" in glob and "group_reporting" in glob
    spec = load_scenario(SEED004, catalog)
    jobs = dict(sections[1:])
    assert list(jobs) == [w.name for w in spec.workloads]
    for w in spec.workloads:
        options = jobs[w.name]
        assert "stonewall" in options
        assert options["rw"] == w.rw and parse_bytes(options["bs"]) == w.bs
        if "size" in options:
            assert parse_bytes(options["size"]) == w.size
            assert parse_bytes(options["offset_increment"]) == w.offset_increment


def test_seed004_published_numbers(catalog):
    published = load_published(SEED004 / "published.yaml")
    assert published.source == "seed-004"
    numbers = published.numbers
    assert len(numbers) == 20
    assert len({n.id for n in numbers}) == 20
    assert all(n.id.startswith("seed004-") for n in numbers)
    per_file: dict[str, int] = {}
    for n in numbers:
        per_file[n.scenario] = per_file.get(n.scenario, 0) + 1
        assert n.tolerance.relative == 0.15
        spec = load_scenario(SEED004 / n.scenario, catalog)
        workload = next(w for w in spec.workloads if w.name == n.workload)
        assert n.metric in (READ_METRICS if workload.read_fraction == 1 else WRITE_METRICS)
        assert n.unit == ("B/s" if n.metric.endswith("bytes_per_s") else "IOPS")
    assert per_file == {name: 4 for name in SEED004_FILES}
    by_id = {n.id: n.numeric_value for n in numbers}
    assert by_id["seed004-noraid-seqread-bw"] == 231e9
    assert by_id["seed004-theoretical-seqwrite-bw"] == pytest.approx(113.8e9)
    assert by_id["seed004-theoretical-randwrite-iops"] == by_id["seed004-noraid-randwrite-iops"] / 2
    assert by_id["seed004-hwraid-randwrite-iops"] == 108e3
    assert by_id["seed004-md-seqread-bw"] == pytest.approx(114.8e9)
    # The table's 96.6 GB/s and the text's 90 GiB/s are the same figure.
    assert by_id["seed004-sr1010-seqwrite-bw"] == pytest.approx(90 * 2**30, rel=0.001)
    assert by_id["seed004-sr1010-randwrite-iops"] == 1.9e6


def test_seed001_scenario_loads_with_the_appendix_profiles(catalog):
    spec = load_scenario(SEED001, catalog)
    assert spec.platform == "supermicro-sys-120u-tnr" and spec.source == "seed-001"
    array = spec.array
    assert (array.level, array.drive, array.drives, array.strip_bytes, array.engine) == \
        (5, "solidigm-d5-p5336-61.44tb", 5, 128 * 1024, "xinnor-xiraid")
    assert spec.placement.drive_sockets == (0, 0, 0, 0, 0) and spec.placement.job_sockets == (0,)
    one_percent = (array.drives - 1) * catalog.drives[array.drive].capacity_bytes.value // 100
    assert one_percent == 2_457_600_000_000
    expected = {
        "seqwrite-b512k-j16-d64": ("write", 512 * 1024, one_percent),
        "seqread-b512k-j16-d64": ("read", 512 * 1024, one_percent),
        "randwrite-b4k-j16-d64": ("randwrite", 4096, 0),
        "randread-b4k-j16-d64": ("randread", 4096, 0),
        "seqwrite-b128k-j16-d64": ("write", 128 * 1024, one_percent),
    }
    assert {w.name: (w.rw, w.bs, w.offset_increment) for w in spec.workloads} == expected
    for w in spec.workloads:
        assert (w.numjobs, w.iodepth, w.ioengine, w.runtime, w.ramp_time, w.time_based) == (16, 64, "libaio", 4500.0, 1500.0, False)


def test_seed001_job_fio_is_the_appendix_profiles():
    sections = fio_sections(SEED001 / "job.fio")
    assert [name for name, _ in sections] == ["global", "job1"] * 3 + ["global"]
    common = {"iodepth": "64", "direct": "1", "ioengine": "libaio", "runtime": "4500", "ramp_time": "1500"}
    job1 = {"numa_cpu_nodes": "0", "filename": "/dev/xi_raid_numa0"}
    for index, (rw, bs) in enumerate([("write", "512K"), ("read", "512K"), ("randwrite", "4K"), ("randread", "4K")]):
        glob = sections[2 * index][1]
        assert glob["rw"] == rw and glob["bs"] == bs
        assert {k: glob[k] for k in common} == common
        if index < 3:
            assert glob["numjobs"] == "16" and "group_reporting" in glob and glob["numa_mem_policy"] == "local"
            assert sections[2 * index + 1][1] == job1
        if index < 2:
            assert glob["offset_increment"] == "1%"
    # The random read profile is cut off after ramp_time in the brief.
    assert list(sections[-1][1]) == ["rw", "bs", "iodepth", "direct", "ioengine", "runtime", "ramp_time"]
    assert "cut off" in (SEED001 / "job.fio").read_text().lower()


def test_seed001_published_numbers(catalog):
    published = load_published(SEED001 / "published.yaml")
    assert published.source == "seed-001"
    spec = load_scenario(SEED001, catalog)
    workloads = {w.name: w for w in spec.workloads}
    by_id = {}
    for n in published.numbers:
        assert n.scenario == "scenario.yaml" and n.tolerance.relative == 0.15
        workload = workloads[n.workload]
        assert n.metric in (READ_METRICS if workload.read_fraction == 1 else WRITE_METRICS)
        by_id[n.id] = (n.workload, n.metric, n.numeric_value)
    assert by_id == {
        "seed001-xiraid-seqread-bw": ("seqread-b512k-j16-d64", "read_bytes_per_s", 36.8e9),
        "seed001-xiraid-seqwrite-bw": ("seqwrite-b512k-j16-d64", "write_bytes_per_s", 12.3e9),
        "seed001-xiraid-randread-iops": ("randread-b4k-j16-d64", "read_iops", 5175e3),
        "seed001-xiraid-randwrite-iops": ("randwrite-b4k-j16-d64", "write_iops", 131e3),
    }
