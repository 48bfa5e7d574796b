"""Hunt 5, sweeps and the command line: a sweep's CSV holds no cell a spreadsheet reads as a formula
(its numbers stay numbers) and its best-points table prints no control character raw; a grid value
or point given twice is refused; ``--precision`` is bounded; ``Simulation.run(host_ios=...)`` is
checked; an empty output path is quoted as given. Each refusal: one line naming the field, exit 2,
no traceback, nothing written."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from nvsim.errors import InputError
from nvsim.simulation import HOST_IOS_MAX, HOST_IOS_MIN, Simulation
from nvsim.sweep import CSV_FORMULA_STARTS

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "scenarios" / "graid-gen5-raid6")
BASE = (ROOT / "tests" / "support" / "small_md_raid6.yaml").read_text()  # a sweep's base: 8 CM7-R, md RAID6


def write_sweep(tmp_path: Path, **fields) -> Path:
    (tmp_path / "base.yaml").write_text(BASE)
    spec = {"base": "base.yaml", "fidelity": "fluid", **fields}
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def refused_in_one_line(run, field: str) -> str:
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("error: "), run.stderr
    assert "Traceback" not in run.stderr and field in run.stderr, run.stderr
    return run.stderr


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- sweep CSV (report section 1)

FORMULAS = ["=1+1", "@SUM(2+2)", "+1+cmd|' /C calc'!A0", "-2+3"]


def test_no_sweep_csv_cell_starts_a_formula_and_numbers_stay_numbers(tmp_path):
    spec = write_sweep(tmp_path, grid={"description": FORMULAS},
                       points=[{"array.drive": '=HYPERLINK("http://evil.example/","click")'}, {"array.drives": -8}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    for line in table:
        for cell in line:  # a cell that would start a formula is a number, or text after a quote
            assert not cell.startswith(CSV_FORMULA_STARTS) or is_number(cell), cell
    rows = [dict(zip(table[0], line)) for line in table[1:]]
    ok = {r["set.description"]: r for r in rows if r["set.description"]}
    assert set(ok) == {"'" + f for f in FORMULAS}  # each free-text description: a valid row, its text kept after the quote
    assert all(r["status"] == "ok" for r in ok.values())
    drive = next(r for r in rows if r["set.array.drive"])
    assert drive["status"] == "invalid" and drive["set.array.drive"] == "'=HYPERLINK(\"http://evil.example/\",\"click\")"
    drives = next(r for r in rows if r["set.array.drives"])
    assert drives["status"] == "invalid" and drives["set.array.drives"] == "-8"  # a number, written as one


def test_the_best_points_table_prints_no_control_character_raw(tmp_path):
    spec = write_sweep(tmp_path, grid={"description": ["two\nlines", "a\ttab"]})
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "two\\nlines" in run.stdout and "a\\ttab" in run.stdout
    assert "\t" not in run.stdout and "two\nlines" not in run.stdout


# ---------------------------------------------------------------- repeated grid values (section 12)

@pytest.mark.parametrize("fields, field, shown", [
    ({"grid": {"array.drives": [8, 8, 8]}}, "grid: array.drives", "8"),
    ({"grid": {"array.drives": [6, 8, 8.0]}}, "grid: array.drives", "8.0"),
    ({"grid": {"array.drives": [6, 8]}, "points": [{"array.drives": 8}]}, "points[0]", "grid"),
    ({"points": [{"array.drives": 6}, {"array.drives": 8}, {"array.drives": 6}]}, "points[2]", "earlier"),
])
def test_a_value_or_point_given_twice_is_refused(tmp_path, fields, field, shown):
    spec = write_sweep(tmp_path, **fields)
    line = refused_in_one_line(run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), cwd=tmp_path), field)
    assert shown in line and "once" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.yaml", "sweep.yaml"]  # no table, no journal


def test_distinct_grid_values_still_run(tmp_path):
    spec = write_sweep(tmp_path, grid={"array.drives": [6, 8]}, points=[{"array.drives": 10}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["set.array.drives"] for r in rows] == ["6", "8", "10"] and len({r["key"] for r in rows}) == 3


# ---------------------------------------------------------------- --precision (section 8)

@pytest.mark.parametrize("value", ["1e-160", "1e-7", "0", "-0.1", "1.5", "inf", "nan"])
def test_a_precision_out_of_its_range_is_refused(tmp_path, value):
    run = run_cli("run", SCENARIO, "--precision", value, "--json", "-o", str(tmp_path / "out.json"), cwd=tmp_path)
    line = refused_in_one_line(run, "--precision")
    assert "0.000001 to 1" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["1e-6", "1"])
def test_the_precision_range_ends_are_accepted(tmp_path, value):
    (tmp_path / "base.yaml").write_text(BASE)
    run = run_cli("run", str(tmp_path / "base.yaml"), "--fidelity", "fluid", "--precision", value, "--json",
                  "-o", str(tmp_path / "out.json"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "out.json").read_text())["predictions"]["randread"]["read_iops"] > 0


# ---------------------------------------------------------------- Simulation.run(host_ios=...) (section 9)

@pytest.fixture(scope="module")
def simulation():
    return Simulation(SCENARIO, "randread-b4k-j192-d32")


@pytest.mark.parametrize("fidelity, host_ios", [
    ("event", 0), ("event", -5), ("fluid", 0), ("fluid", HOST_IOS_MIN - 1), ("fluid", HOST_IOS_MAX + 1),
    ("fluid", 10**8), ("fluid", True), ("fluid", 2000.0), ("fluid", "2000"), ("fluid", math.inf),
])
def test_host_ios_out_of_its_range_is_refused(simulation, fidelity, host_ios):
    with pytest.raises(InputError) as refused:
        simulation.run(fidelity, host_ios=host_ios)
    assert refused.value.field == "host_ios"
    assert "1,000 to 10,000,000" in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("host_ios", [HOST_IOS_MIN, HOST_IOS_MAX, np.int64(20_000)])
def test_host_ios_within_its_range_runs(simulation, host_ios):
    assert simulation.run("fluid", host_ios=host_ios).total_iops > 0


# ---------------------------------------------------------------- an empty output path (section 13)

@pytest.mark.parametrize("args, option", [
    (["run", SCENARIO, "--fidelity", "fluid", "-o", ""], "--output"),
    (["run", SCENARIO, "--fidelity", "fluid", "--output="], "--output"),
    (["fio", str(ROOT / "scenarios/graid-gen5-raid6/job.fio"), "--system", SCENARIO, "--fidelity", "fluid", "--output="],
     "--output"),
    (["report", SCENARIO, "--fidelity", "fluid", "-o", ""], "--out"),
    (["sweep", "sweep.yaml", "-o", ""], "--output"),
])
def test_an_empty_output_path_is_quoted_as_given(tmp_path, args, option):
    line = refused_in_one_line(run_cli(*args, cwd=tmp_path), f"error: {option}: ")
    assert "got ''" in line and "'.'" not in line
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- a sweep of refused set-ups only

def test_a_sweep_whose_every_set_up_is_refused_exits_1_naming_the_first_refusal(tmp_path):
    spec = write_sweep(tmp_path, points=[{"array.drives": -8}, {"array.drives": 2}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    error = [line for line in run.stderr.splitlines() if line.startswith("error: ")]
    assert len(error) == 1 and "every set-up of the sweep was refused" in error[0] and "drives" in error[0], run.stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(r["status"] == "invalid" for r in rows)  # the table is written: it says why each failed


def test_a_sweep_with_one_set_up_that_runs_exits_0(tmp_path):
    spec = write_sweep(tmp_path, points=[{"array.drives": -8}, {"array.drives": 6}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "every set-up" not in run.stderr
    assert "2 set-ups (2 computed now)," in run.stdout and "resumed" not in run.stdout  # nothing was resumed


def test_a_sweep_with_some_set_ups_refused_says_so_on_stderr(tmp_path):
    """Only the table said a set-up was refused: '2 set-ups (2 computed now), 2 rows; 1 rows meet the
    constraints' read as if the other had run and missed them (a grid value out of its field's range,
    array.drives: [0, 6], is a row of its own, status invalid). A note names the count and the first."""
    spec = write_sweep(tmp_path, points=[{"array.drives": 0}, {"array.drives": 6}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: 1 of 2 rows were refused (status invalid in ") \
        and "array.drives: Input should be greater than or equal to 1 (got 0)" in notes[0], run.stderr
    assert "refused" not in run.stdout


def test_a_point_whose_workloads_lack_one_the_sweep_runs_is_an_invalid_row(tmp_path):
    """A point may set the scenario's workloads whole; one that drops a workload the sweep runs
    stopped the sweep with a KeyError traceback from run_point, exit 1 (the fuzz helper's sweep)."""
    other = {"name": "other", "rw": "randwrite", "bs": "4k", "iodepth": 1, "numjobs": 1, "runtime": 60}
    spec = write_sweep(tmp_path, workloads=["randread"], points=[{"workloads": [other]}, {"array.drives": 6}])
    run = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", cwd=tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    notes = [line for line in run.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and "workloads: the point's scenario has no workload 'randread', which the sweep runs; " \
                                "its workloads: other" in notes[0], run.stderr
