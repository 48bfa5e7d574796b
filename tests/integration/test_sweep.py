"""Sweeps: expansion, constraints and ranking, atomic tidy output, resume after a kill, Dask."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import ROOT, run_cli
from nvsim.errors import InputError
from nvsim.sweep import SweepSpec, apply_point, batches, check_known_field, expand, parse_constraint, point_key, run_sweep

BASE = ROOT / "scenarios" / "xiraid-qlc-raid5" / "scenario.yaml"


def write_spec(tmp_path: Path, **fields) -> Path:
    spec = {"base": str(BASE), "workloads": ["randread-b4k-j16-d64", "seqwrite-b512k-j16-d64"], "fidelity": "fluid",
            "grid": {"array.drives": [4, 5, 6, 8], "array.strip_bytes": ["64KiB", "128KiB", "256KiB"]}}
    spec.update(fields)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def test_grid_expands_to_the_cartesian_product_then_the_listed_points():
    spec = SweepSpec(base="x.yaml", grid={"array.drives": [4, 5], "array.level": [5, 6]},
                     points=[{"array.drives": 9}])
    assert expand(spec) == [{"array.drives": 4, "array.level": 5}, {"array.drives": 4, "array.level": 6},
                            {"array.drives": 5, "array.level": 5}, {"array.drives": 5, "array.level": 6},
                            {"array.drives": 9}]


def test_points_set_scenario_and_workload_fields():
    data, _ = apply_point({"array": {"drives": 5}, "workloads": [{"name": "a", "bs": 4096}]},
                          {"array.drives": 8, "workload.iodepth": 4, "placement.engine_socket": 1})
    assert data["array"]["drives"] == 8 and data["workloads"][0]["iodepth"] == 4
    assert data["placement"] == {"engine_socket": 1}


def test_constraints_take_units_and_bad_ones_are_one_line_errors(tmp_path):
    assert parse_constraint("read_iops >= 10M") == ("read_iops", ">=", 10e6)
    assert parse_constraint("seq.read_bytes_per_s > 100 GB/s") == ("seq.read_bytes_per_s", ">", 100e9)
    with pytest.raises(ValueError):
        parse_constraint("read_iops is big")
    bad = run_cli("sweep", str(write_spec(tmp_path, constraints=["iops ~ 3"])), "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "constraints" in bad.stderr
    unknown = run_cli("sweep", str(write_spec(tmp_path, colour="blue")), "-o", str(tmp_path / "o"))
    assert unknown.returncode == 2 and "colour" in unknown.stderr
    assert not list(tmp_path.glob("o*"))  # nothing half-written


def test_sweep_writes_a_tidy_ranked_table_in_parquet_and_csv(tmp_path):
    spec = write_spec(tmp_path, constraints=["randread-b4k-j16-d64.read_iops >= 1M"],
                      objective={"maximize": "usable_bytes_per_drive"},
                      points=[{"array.drives": 2}])  # RAID5 needs 3: recorded as invalid, not a crash
    summary = run_sweep(spec, tmp_path / "out", workers=1)
    assert summary["points"] == 13 and summary["rows"] == 26
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert (tmp_path / "out.csv").read_text().count("\n") == 27
    invalid = [r for r in rows if r["status"] == "invalid"]
    assert len(invalid) == 2 and "drives" in invalid[0]["error"]
    ranked = sorted({(r["rank"], r["set.array.drives"]) for r in rows if r["rank"] is not None})
    per_drive = {r["set.array.drives"]: r["usable_bytes_per_drive"] for r in rows if r["status"] == "ok"}
    assert ranked[0][1] == max(per_drive, key=per_drive.get)  # most usable TB per drive first: the widest array
    for r in rows:
        if r["rank"] is not None:
            assert r["meets_constraints"]
    assert not (tmp_path / "out.partial.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.parquet", "sweep.yaml"]
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:  # the CSV (standard library) holds the Parquet's values
        lines = list(csv.DictReader(handle))
    assert [list(line) for line in lines[:1]] == [list(rows[0])] and len(lines) == len(rows)
    for line, row in zip(lines, rows):
        for column, value in row.items():
            text = line[column]
            if value is None:
                assert text == "", column
            elif isinstance(value, bool):
                assert text == str(value).lower(), column
            elif isinstance(value, float):
                assert float(text) == value, column  # every bit of the number
            else:
                assert text == str(value), column


def test_points_go_to_a_cluster_in_near_equal_batches_in_order():
    tasks = list(range(10))
    assert batches(tasks, 4) == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    assert batches(tasks, 40) == [[t] for t in tasks] and batches(tasks, 0) == [tasks]
    assert [t for batch in batches(list(range(1440)), 8) for t in batch] == list(range(1440))


def test_killed_sweep_reruns_only_the_missing_points(tmp_path):
    spec = write_spec(tmp_path, fidelity="event", host_ios=1000, workloads=["randread-b4k-j16-d64"])
    out = tmp_path / "out"
    partial = tmp_path / "out.partial.jsonl"
    env = dict(os.environ, COLUMNS="160")
    proc = subprocess.Popen([sys.executable, "-m", "nvsim.cli", "sweep", str(spec), "-o", str(out), "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not partial.exists() or partial.read_text().count("\n") < 4):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {json.loads(line)["key"] for line in partial.read_text().splitlines() if line.strip()}
    assert 4 <= len(finished) < 12, "the sweep was not killed half-way"
    assert not out.with_suffix(".parquet").exists()
    summary = run_sweep(spec, out, workers=1)
    assert summary["computed_now"] == 12 - len(finished)
    keys = {r["key"] for r in pq.read_table(out.with_suffix(".parquet")).to_pylist()}
    assert finished <= keys and len(keys) == 12


DASK_RUN = """
import sys
from dask.distributed import LocalCluster
from nvsim.sweep import run_sweep
if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        print(run_sweep(sys.argv[1], sys.argv[2], dask_address=cluster.scheduler_address)["rows"])
"""


def test_dask_cluster_gives_the_same_table_as_local_processes(tmp_path):
    """The cluster runs in its own process: Dask's process clean-up stays out of the test runner."""
    spec = write_spec(tmp_path)
    local = run_sweep(spec, tmp_path / "local", workers=2)
    script = tmp_path / "dask_run.py"
    script.write_text(DASK_RUN)
    remote = subprocess.run([sys.executable, str(script), str(spec), str(tmp_path / "dask")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert remote.returncode == 0, remote.stderr[-2000:]
    assert local["rows"] == int(remote.stdout.strip().splitlines()[-1]) == 24
    a = sorted(pq.read_table(tmp_path / "local.parquet").to_pylist(), key=lambda r: r["key"])
    b = sorted(pq.read_table(tmp_path / "dask.parquet").to_pylist(), key=lambda r: r["key"])
    assert a == b


@pytest.mark.parametrize("field, message", [
    ("workloads.0.bs", "'workloads.0.bs': workloads is a list in the scenario, set whole or not at all; set a "
                       "workload's field with workload.<field>"),
    ("array.drives.count", "'array.drives.count': array.drives is a value (5), not a section with fields"),
])
def test_a_field_through_a_list_or_a_value_is_a_one_line_error_before_any_point(tmp_path, field, message):
    """A grid key through the workload list replaced the list by a mapping and every worker died
    with a traceback (AttributeError); through a value it made each point invalid. Both are
    refused before a point runs, in a grid or a list of points, nothing written."""
    for spec in (write_spec(tmp_path, grid={field: [1, 2]}), write_spec(tmp_path, grid={}, points=[{field: 1}])):
        bad = run_cli("sweep", str(spec), "-o", str(tmp_path / "o"))
        assert bad.returncode == 2 and bad.stderr == f"error: grid: {message}" + (
            " (every workload the sweep runs)\n" if field.startswith("workloads") else "\n")
        assert not list(tmp_path.glob("o*"))
    with pytest.raises(InputError, match="workloads is a list"):  # apply_point refuses it too
        apply_point({"workloads": [{"name": "a"}]}, {"workloads.0.bs": 4096})
    data, _ = apply_point({"topology": None}, {"topology.switches.count": 2})  # absent sections are created
    assert data["topology"] == {"switches": {"count": 2}}


@pytest.mark.parametrize("field, message", [
    ("array.nope", "'array.nope': array has no field 'nope'; did you mean 'near_copies'?"),
    ("array.rebuild.nope", "'array.rebuild.nope': array.rebuild has no field 'nope'; its fields: speed_limit_min_kib_per_s, "
                           "speed_limit_max_kib_per_s, sync_speed_min_kib_per_s, sync_speed_max_kib_per_s, priority, "
                           "rate_percent, span_bytes"),
    ("workload.iodeph", "'workload.iodeph': workload has no field 'iodeph'; did you mean 'iodepth'?"),
    ("array.rebuild.priorty", "'array.rebuild.priorty': array.rebuild has no field 'priorty'; did you mean 'priority'?"),
])
def test_a_field_the_scenario_does_not_have_is_a_one_line_error_before_any_point(tmp_path, field, message):
    """A misspelled grid key ran every point as an invalid row and exited 0 ("0 rows meet the
    constraints"); the schema's names are checked before a point runs, nothing written. Fields of
    the schema, fio's written forms of a workload's and engine settings (each engine's own) pass."""
    bad = run_cli("sweep", str(write_spec(tmp_path, grid={field: [1, 2]})), "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr == f"error: grid: {message}\n"
    assert not list(tmp_path.glob("o*"))
    for good in ("array.drives", "workload.bssplit", "array.engine_settings.kernel", "array.namespace_fraction",
                 "topology.switches", "array.rebuild.priority"):
        check_known_field(good)


def test_a_truth_value_for_a_number_is_refused_in_the_sweep_and_in_its_points(tmp_path):
    """``host_ios: true`` was 1,000 I/Os' floor passed as 1; a grid of ``[true, 8]`` drives ran a 1-drive point."""
    spec = write_spec(tmp_path, host_ios=True)
    bad = run_cli("sweep", str(spec), "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr == f"error: {spec}: host_ios: must be a number, got true\n", bad.stderr
    assert not list(tmp_path.glob("o*"))


def test_a_grid_mixing_kinds_of_value_writes_its_column_as_text(tmp_path):
    """``[true, 8]`` (the first point refused as a row: not a number) and ``["64KiB", 131072]`` have
    no one Arrow type: pyarrow raised after every point had run, a traceback and no table."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"],
                      grid={"array.drives": [True, 8], "array.strip_bytes": ["64KiB", 131072]})
    done = run_cli("sweep", str(spec), "-o", str(tmp_path / "o"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    table = pq.read_table(tmp_path / "o.parquet").to_pylist()
    assert sorted({(r["set.array.drives"], r["set.array.strip_bytes"]) for r in table}) == [
        ("8", "131072"), ("8", "64KiB"), ("true", "131072"), ("true", "64KiB")]
    refused = [r for r in table if r["set.array.drives"] == "true"]
    assert all(r["status"] == "invalid" and "array.drives: must be a number, got true" in r["error"] for r in refused)
    assert all(r["status"] == "ok" for r in table if r["set.array.drives"] == "8")


@pytest.mark.parametrize("fields, message", [
    ({"objective": {"maximize": "limited_by"}}, "error: objective: 'limited_by' is not a number column"),
    ({"constraints": ["limited_by >= 1"]}, "error: constraints: 'limited_by' is not a number column"),
])
def test_a_text_column_as_objective_or_constraint_is_refused_before_the_table(tmp_path, fields, message):
    """It ended in a traceback (dividing text in the best-points table) after the table was written."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], grid={"array.drives": [4]}, **fields)
    bad = run_cli("sweep", str(spec), "--workers", "1", "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr.startswith(message) and len(bad.stderr.splitlines()) == 1, bad.stderr
    assert not list(tmp_path.glob("o*"))  # nothing written: not the table, not a journal of the points it ran


@pytest.mark.parametrize("fields, message", [
    ({"constraints": ["read_iops >= nan"]}, "cannot read the value 'nan'"),
    ({"objective": {}}, "give exactly one of maximize, minimize"),
    ({"objective": {"maximize": "read_iops", "minimize": "price_usd"}}, "give exactly one of maximize, minimize"),
])
def test_a_constraint_no_point_can_meet_or_an_objective_without_one_direction_is_refused(tmp_path, fields, message):
    bad = run_cli("sweep", str(write_spec(tmp_path, **fields)), "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and message in bad.stderr and len(bad.stderr.splitlines()) == 1, bad.stderr
    assert not list(tmp_path.glob("o*"))


def test_a_block_size_mix_can_be_swept(tmp_path):
    """Every point was invalid: the base workload's dumped ``bs`` and ``bs_mix: null`` met the
    point's bssplit ("give one mix of block sizes"). A point's block sizes replace the base's."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"],
                      grid={"workload.bssplit": ["4k/50:64k/50", "4k/100"]})
    done = run_cli("sweep", str(spec), "--workers", "1", "-o", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    rows = {r["set.workload.bssplit"]: r for r in csv.DictReader(open(tmp_path / "o.csv"))}
    assert all(r["status"] == "ok" for r in rows.values()), rows
    assert float(rows["4k/50:64k/50"]["read_bytes_per_s"]) > float(rows["4k/100"]["read_bytes_per_s"])


def test_point_keys_are_stable_and_distinguish_workloads_and_fidelity():
    point = {"array.drives": 8}
    assert point_key(point, "a", "fluid") == point_key({"array.drives": 8}, "a", "fluid")
    assert len({point_key(point, "a", "fluid"), point_key(point, "b", "fluid"), point_key(point, "a", "event")}) == 3


def test_unknown_workload_is_a_one_line_error(tmp_path):
    with pytest.raises(InputError, match="no workload"):
        run_sweep(write_spec(tmp_path, workloads=["nope"]), tmp_path / "o")


def test_sweep_adds_rebuild_time_and_risk_and_filters_on_them(tmp_path):
    """Issue 8's 'rebuild <= 2 h' constraint: wider RAID5 rebuilds read more survivors, all of
    them pass or fail on the hours column the sweep adds."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], rebuild=True,
                      grid={"array.drives": [4, 8], "array.rebuild.priority": ["low", "high"]},
                      constraints=["randread-b4k-j16-d64.rebuild_hours <= 10"])
    run_sweep(spec, tmp_path / "out", workers=1)
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert len(rows) == 4 and all(r["status"] == "ok" for r in rows)
    hours = {(r["set.array.drives"], r["set.array.rebuild.priority"]): r["rebuild_hours"] for r in rows}
    assert hours[(8, "high")] < hours[(8, "low")]  # the vendor priority speeds the rebuild under load
    for r in rows:
        assert 0 <= r["data_loss_probability"] <= 1 and r["mttdl_years"] > 0
        assert r["meets_constraints"] == (r["rebuild_hours"] <= 10)


def test_sweep_ranks_by_cost_and_constrains_power_and_ends_with_its_best_points(tmp_path):
    """Cost and power are columns like any other: a constraint on watts and an objective in dollars
    per 1K IOPS; `nvsim sweep` ends with the best set-ups, best first."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], grid={"array.drives": [4, 5, 6, 8]},
                      constraints=["power_w <= 100000"], objective={"minimize": "usd_per_kiops"})
    summary = run_sweep(spec, tmp_path / "out", workers=1)
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert all(r["price_usd"] > 0 and r["power_w"] > 0 and r["usd_per_kiops"] > 0 for r in rows)
    best = summary["best"]
    assert [b["rank"] for b in best] == [1, 2, 3, 4]
    assert [b["objective"] for b in best] == sorted(r["usd_per_kiops"] for r in rows)
    printed = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"))
    assert printed.returncode == 0, printed.stderr
    table = printed.stdout.split("Best set-ups by usd_per_kiops")[1]
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    assert [(c[0], c[1]) for c in cells] == [(str(b["rank"]), str(b["fields"]["array.drives"])) for b in best]
    tight = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], grid={"array.drives": [4]}, constraints=["power_w <= 1"])
    assert "No set-up meets the constraints." in run_cli("sweep", str(tight), "-o", str(tmp_path / "none")).stdout


def test_best_points_list_each_set_up_once_with_its_best_strip(tmp_path):
    """Strips do not fill the best points: one row per set-up (here the drive count), led by its
    best strip, the strips of its other points meeting the constraints beside it; the table keeps
    every point."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], objective={"minimize": "usd_per_kiops"})
    summary = run_sweep(spec, tmp_path / "out", workers=1)
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert len(rows) == 4 * 3
    best = summary["best"]
    assert sorted(b["fields"]["array.drives"] for b in best) == [4, 5, 6, 8]  # one per count
    assert [b["rank"] for b in best] == [1, 2, 3, 4]
    for b in best:
        points = [r for r in rows if r["set.array.drives"] == b["fields"]["array.drives"] and r["meets_constraints"]]
        assert b["point_rank"] == min(r["rank"] for r in points)
        assert b["variants"] == {"points": 3, "array.strip_bytes": ["64KiB", "128KiB", "256KiB"]}
    printed = run_cli("sweep", str(spec), "-o", str(tmp_path / "out"))
    assert printed.returncode == 0 and "3: strip_bytes 64KiB 128KiB 256KiB" in " ".join(printed.stdout.split()), printed.stdout


def test_a_namespace_share_follows_each_drive_of_a_drive_axis(tmp_path):
    """array.namespace_fraction sizes each member's namespace from its own drive: the same share of a
    3.84 TB and a 7.68 TB drive gives namespaces in the drives' ratio; 1 is the whole drive; a share
    out of (0, 1] is one line before any point runs."""
    spec = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"],
                      grid={"array.drive": ["kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"], "array.namespace_fraction": [0.5, 1.0]})
    run_sweep(spec, tmp_path / "out", workers=1)
    rows = {(r["set.array.drive"], r["set.array.namespace_fraction"]): r for r in pq.read_table(tmp_path / "out.parquet").to_pylist()}
    assert all(r["status"] == "ok" for r in rows.values())
    small, large = (rows[(d, 0.5)]["usable_bytes_per_drive"] for d in ("kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"))
    assert large == pytest.approx(2 * small, rel=1e-3)
    assert rows[("kioxia-cm7-r-7.68tb", 1.0)]["usable_bytes_per_drive"] == pytest.approx(2 * large, rel=1e-3)
    bad = write_spec(tmp_path, workloads=["randread-b4k-j16-d64"], grid={"array.namespace_fraction": [0.5, 1.5]})
    printed = run_cli("sweep", str(bad), "-o", str(tmp_path / "bad"))
    assert printed.returncode == 2 and printed.stderr.strip().count("\n") == 0
    assert "array.namespace_fraction" in printed.stderr and "1.5" in printed.stderr
    assert not (tmp_path / "bad.partial.jsonl").exists()


def test_a_point_is_not_refused_for_a_base_workload_the_sweep_does_not_run(tmp_path):
    """An 8-drive RAID1 of 3.84 TB drives holds the selected 1 TB random read, but not the base's
    sequential read (192 clones 50 GB apart): the row was 'invalid' for that workload's region,
    while ``Simulation(point, workload).run`` answered the selected one. The row is the API's."""
    import nvsim
    from nvsim.sweep import apply_point
    graid = ROOT / "scenarios" / "graid-gen5-raid6" / "scenario.yaml"
    point = {"array.level": 1, "array.drives": 8, "workload.size": "1T"}
    spec = write_spec(tmp_path, base=str(graid), workloads=["randread-b4k-j192-d32"],
                      grid={k: [v] for k, v in point.items()})
    run_sweep(spec, tmp_path / "o", workers=1)
    (row,) = pq.read_table(tmp_path / "o.parquet").to_pylist()
    assert row["status"] == "ok", row["error"]
    data, _ = apply_point(nvsim.load_scenario(graid).model_dump(mode="json"), point)
    api = nvsim.Simulation(nvsim.parse_scenario(data), "randread-b4k-j192-d32").run("fluid")
    assert row["read_iops"] == api.read_iops and row["limited_by"] == api.bottleneck


def test_a_dot_in_the_output_name_is_part_of_the_name_not_a_suffix_to_replace(tmp_path):
    """``-o res.w1`` and ``-o res.w2`` are two tables (res.w1.csv, res.w2.csv); taken as suffixes both
    wrote res.csv and the second silently replaced the first. ``res.csv`` still names res.csv and
    res.parquet."""
    spec = write_spec(tmp_path, grid={"array.drives": [4]}, workloads=["randread-b4k-j16-d64"])
    first = run_sweep(spec, tmp_path / "res.w1", workers=1)
    second = run_sweep(spec, tmp_path / "res.w2", workers=1)
    assert (first["csv"], second["csv"]) == (str(tmp_path / "res.w1.csv"), str(tmp_path / "res.w2.csv"))
    assert sorted(p.name for p in tmp_path.glob("res*")) == ["res.w1.csv", "res.w1.parquet", "res.w2.csv", "res.w2.parquet"]
    named = run_sweep(spec, tmp_path / "named.csv", workers=1)
    assert named["csv"] == str(tmp_path / "named.csv") and named["parquet"] == str(tmp_path / "named.parquet")
