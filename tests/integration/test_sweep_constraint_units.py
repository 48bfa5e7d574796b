"""A sweep constraint's value is read as its column's kind (hunt_c item 4): IOPS columns take a
count, ``*_bytes_per_s`` a rate, ``*_bytes`` a size, hours, watts and microseconds their unit, a
probability a number from 0 to 1. The value used to be tried as a number, a count, a rate and a
size in turn, whatever the column: "rr.read_iops >= 2 GB/s" compared 2e9 IOPS and
"usable_bytes >= 20 GB/s" passed as 2e10 bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from nvsim.sweep import column_kind, parse_constraint

BASE = ROOT / "scenarios" / "xiraid-qlc-raid5" / "scenario.yaml"


@pytest.mark.parametrize("text, value", [
    ("read_iops >= 10M", 10e6), ("rr.total_iops >= 2.5M IOPS", 2.5e6), ("write_iops >= .5", 0.5),
    ("rr.read_bytes_per_s >= 2 GB/s", 2e9), ("write_bytes_per_s > 500 MiB/s", 500 * 2**20), ("read_bytes_per_s > 3e9", 3e9),
    ("usable_bytes >= 20 TB", 20e12), ("usable_bytes_per_drive >= 4 KiB", 4096), ("set.array.strip_bytes <= 64KiB", 65536),
    ("usable_bytes >= 2e13", 2e13), ("power_w <= 400 W", 400.0), ("power_w <= 1.5 kW", 1500.0), ("power_w <= 1000", 1000.0),
    ("rebuild_hours <= 2 h", 2.0), ("rebuild_hours <= 2", 2.0), ("rebuild_mb_per_s >= 2 GB/s", 2000.0),
    ("read_latency_p99_us <= 500 us", 500.0), ("data_loss_probability <= 1e-5", 1e-5), ("mttdl_years >= 1M", 1e6),
    # a time column takes a time in any of its units (2 ms and 90 min were refused)
    ("read_latency_p99_us <= 2 ms", 2000.0), ("read_latency_p99_us <= 200 µs", 200.0), ("rebuild_hours <= 90 min", 1.5),
    ("usd_per_kiops <= 12.5", 12.5),
    ("usable_bytes >= 20.95 TiB", 20.95 * 2**40),  # a bound need not be whole bytes (it was refused: 'takes a size')
])
def test_a_value_in_its_columns_kind_is_read(text: str, value: float):
    assert parse_constraint(text)[2] == pytest.approx(value)


@pytest.mark.parametrize("text, takes", [
    ("rr.read_iops >= 2 GB/s", "read_iops takes a count"), ("read_iops >= 3 TB", "read_iops takes a count"),
    ("usable_bytes >= 20 GB/s", "usable_bytes takes a size"), ("usable_bytes >= 10M", "usable_bytes takes a size"),
    ("read_bytes_per_s >= 20 TB", "read_bytes_per_s takes a rate"), ("read_bytes_per_s >= 10G", "read_bytes_per_s takes a rate"),
    ("power_w <= 2 h", "power_w takes watts"), ("power_w <= 400 IOPS", "power_w takes watts"),
    ("rebuild_hours <= 2 W", "rebuild_hours takes hours"), ("read_latency_p99_us <= 2 GB", "read_latency_p99_us takes microseconds"),
    ("data_loss_probability <= 5", "data_loss_probability takes a probability"),
    ("data_loss_probability <= 5%", "data_loss_probability takes a probability"),
    ("mttdl_years >= 7.68 TB", "mttdl_years takes a plain number"),
])
def test_a_unit_of_another_kind_is_refused_naming_the_constraint_and_what_the_column_takes(text: str, takes: str):
    with pytest.raises(ValueError) as caught:
        parse_constraint(text)
    message = str(caught.value)
    assert message.startswith(f"constraint {text!r}: cannot read the value") and takes in message and "\n" not in message


def test_each_kind_says_what_it_takes():
    assert column_kind("read_iops")[0].startswith("a count") and column_kind("usable_bytes")[0].startswith("a size")
    assert column_kind("rebuild_bytes_per_s")[0].startswith("a rate") and column_kind("price_usd")[0].startswith("a plain number")


def test_the_sweep_refuses_a_mismatched_unit_in_one_line_before_any_point_runs(tmp_path: Path):
    spec = {"base": str(BASE), "workloads": ["randread-b4k-j16-d64"], "fidelity": "fluid", "grid": {"array.drives": [4, 5]},
            "constraints": ["randread-b4k-j16-d64.read_iops >= 1M", "usable_bytes >= 20 GB/s"]}
    (tmp_path / "sweep.yaml").write_text(json.dumps(spec))
    bad = run_cli("sweep", str(tmp_path / "sweep.yaml"), "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr, bad.stderr
    assert "constraints: constraint 'usable_bytes >= 20 GB/s': cannot read the value '20 GB/s': usable_bytes takes a size" in bad.stderr
    assert not list(tmp_path.glob("o*"))


def test_an_empty_cell_holds_a_constraint_and_every_set_up_meeting_them_is_ranked():
    """A read-only row has no write latency, RAID WAF or drive wear: 'drive_lifetime_years >= 0.1'
    refused it (and every set-up with any read-only workload), and an objective it had no value of
    left it unranked in the files while the printed table ranked it."""
    from nvsim.sweep import SweepSpec, _rank

    rows = [{"point": 0, "workload": "r", "status": "ok", "drive_lifetime_years": None, "raid_waf": None},
            {"point": 1, "workload": "w", "status": "ok", "drive_lifetime_years": 0.3, "raid_waf": 3.0},
            {"point": 2, "workload": "w", "status": "ok", "drive_lifetime_years": 0.05, "raid_waf": 1.0}]
    spec = SweepSpec.model_validate({"base": "s.yaml", "constraints": ["drive_lifetime_years >= 0.1", "raid_waf <= 10"],
                                     "objective": {"maximize": "drive_lifetime_years"}})
    ranked = {r["point"]: (r["meets_constraints"], r["rank"]) for r in _rank(rows, spec)}
    assert ranked == {0: (True, 1), 1: (True, 2), 2: (False, None)}  # no wear: a life without bound, first
    spec = SweepSpec.model_validate({"base": "s.yaml", "objective": {"minimize": "raid_waf"}})
    ranked = {r["point"]: r["rank"] for r in _rank(rows, spec)}
    assert ranked == {2: 1, 1: 2, 0: 3}  # no value: ranked after those with one



def test_a_nan_cell_is_an_empty_one_to_the_constraints_and_the_ranking():
    """A drive used directly reports its NAND WAF as NaN with no writes (the array route: None), and
    the files write it as an empty cell; but 'waf_nand <= 10' failed on it (every set-up with a read
    workload: "0 rows meet the constraints"), and {minimize: waf_nand} scored every set-up NaN, so
    the ranks were the grid order (a 20% over-provisioned drive, WAF 1.87, ranked after the whole
    drive's 4.12)."""
    from nvsim.sweep import SweepSpec, _rank

    nan = float("nan")
    rows = [{"point": 0, "workload": "r", "status": "ok", "waf_nand": nan},
            {"point": 0, "workload": "w", "status": "ok", "waf_nand": 4.12},
            {"point": 1, "workload": "r", "status": "ok", "waf_nand": nan},
            {"point": 1, "workload": "w", "status": "ok", "waf_nand": 1.87}]
    spec = SweepSpec.model_validate({"base": "s.yaml", "constraints": ["waf_nand <= 10"],
                                     "objective": {"minimize": "waf_nand"}})
    ranked = {r["point"]: (r["meets_constraints"], r["rank"]) for r in _rank(rows, spec)}
    assert ranked == {1: (True, 1), 0: (True, 2)}
    spec = SweepSpec.model_validate({"base": "s.yaml", "objective": {"maximize": "waf_nand"}})
    assert {r["point"]: r["rank"] for r in _rank(rows, spec)} == {0: 1, 1: 2}
    only_nan = [{"point": 0, "workload": "w", "status": "ok", "waf_nand": 2.0},
                {"point": 1, "workload": "r", "status": "ok", "waf_nand": nan}]
    assert {r["point"]: r["rank"] for r in _rank(only_nan, spec)} == {0: 1, 1: 2}  # NaN: no value, ranked after


def test_an_array_without_redundancy_never_meets_a_rebuild_bound():
    """``rebuild: true`` leaves RAID0's rebuild_hours and rebuild_mb_per_s empty (a failed drive is
    never rebuilt: rebuild_summary's P(data loss) is 1), and an empty cell held every constraint:
    RAID0 met 'rebuild_hours <= 100' and 'rebuild_mb_per_s >= 500' beside RAID5's 0.68 h."""
    import nvsim
    from nvsim.sweep import SweepSpec, _rank

    data = nvsim.load_scenario(BASE).model_dump(mode="json")
    data["array"]["level"] = 0
    summary = nvsim.rebuild_summary(nvsim.parse_scenario(data))  # what a RAID0 row's rebuild columns come from
    assert summary["rebuild_hours"] is None and summary["data_loss_probability"] == 1.0
    rows = [{"point": 0, "workload": "r", "status": "ok", "rebuild_hours": None, "rebuild_mb_per_s": None,
             "data_loss_probability": 1.0},
            {"point": 1, "workload": "r", "status": "ok", "rebuild_hours": 0.68, "rebuild_mb_per_s": 5600.0,
             "data_loss_probability": 0.002}]
    for constraint in ("rebuild_hours <= 100", "rebuild_mb_per_s >= 500"):
        spec = SweepSpec.model_validate({"base": "s.yaml", "constraints": [constraint]})
        assert {r["point"]: r["meets_constraints"] for r in _rank(rows, spec)} == {0: False, 1: True}, constraint
    spec = SweepSpec.model_validate({"base": "s.yaml", "objective": {"maximize": "rebuild_mb_per_s"}})
    assert {r["point"]: r["rank"] for r in _rank(rows, spec)} == {1: 1, 0: 2}


def test_a_set_size_written_with_its_unit_is_compared_and_ranked_as_its_bytes():
    """'set.array.strip_bytes <= 64KiB' reads its bound as bytes, but a grid written as the docs write
    it (16KiB, 64KiB) left text in the column: the sweep ran every point, then stopped with "not a
    number column (a row holds '16KiB')" and no table."""
    from nvsim.sweep import SweepSpec, _rank

    rows = [{"point": 0, "workload": "r", "status": "ok", "set.array.strip_bytes": "16KiB"},
            {"point": 1, "workload": "r", "status": "ok", "set.array.strip_bytes": "64KiB"},
            {"point": 2, "workload": "r", "status": "ok", "set.array.strip_bytes": 262144}]
    spec = SweepSpec.model_validate({"base": "s.yaml", "constraints": ["set.array.strip_bytes >= 32KiB"],
                                     "objective": {"minimize": "set.array.strip_bytes"}})
    ranked = {r["point"]: (r["meets_constraints"], r["rank"]) for r in _rank(rows, spec)}
    assert ranked == {0: (False, None), 1: (True, 1), 2: (True, 2)}

def test_a_listed_point_is_the_grids_however_its_size_is_written():
    from nvsim.sweep import SweepSpec

    with pytest.raises(ValueError, match=r"points\[0\]: the grid has this point already"):
        SweepSpec.model_validate({"base": "s.yaml", "grid": {"array.strip_bytes": ["64KiB", "128KiB"]},
                                  "points": [{"array.strip_bytes": 65536}]})
    with pytest.raises(ValueError, match=r"points\[1\]: an earlier point of points is the same"):
        SweepSpec.model_validate({"base": "s.yaml", "points": [{"array.strip_bytes": "64KiB"}, {"array.strip_bytes": "64 KiB"}]})
