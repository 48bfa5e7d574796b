"""Sweeps, hunt 3: a refused sweep leaves no journal, and a journal resumes only rows of the same
sweep (the same base scenario, rebuild, nvsim and catalog), each a well-formed row for its key."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import run_cli
from nvsim.sweep import point_key, run_sweep

ROOT = Path(__file__).resolve().parents[2]

BASE = (ROOT / "tests" / "support" / "small_md_raid6.yaml").read_text()  # a sweep's base: 8 CM7-R, md RAID6
DRIVES = [6, 8, 10]


class Killed(Exception):
    """Stands for a kill: raised from the progress callback once some points are logged."""


def write_sweep(tmp_path: Path, **fields) -> Path:
    (tmp_path / "base.yaml").write_text(BASE)
    spec = {"base": "base.yaml", "fidelity": "fluid", "grid": {"array.drives": DRIVES}, **fields}
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def read_table(out: Path) -> list[dict]:
    with open(out.with_suffix(".csv"), newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def killed_after(spec: Path, out: Path, points: int) -> list[dict]:
    """Run the sweep until ``points`` points are logged, then stop it; the journal's rows."""
    def progress(done: int, total: int) -> None:
        if done >= points:
            raise Killed
    with pytest.raises(Killed):
        run_sweep(spec, out, workers=1, progress=progress)
    partial = out.with_name(out.name + ".partial.jsonl")
    return [json.loads(line) for line in partial.read_text().splitlines()]


@pytest.mark.parametrize("fields, message", [
    ({"objective": {"maximize": "limited_by"}}, "error: objective: 'limited_by' is not a number column"),
    ({"constraints": ["limited_by >= 5"]}, "error: constraints: 'limited_by' is not a number column"),
])
def test_a_sweep_refused_for_a_text_column_leaves_no_journal(tmp_path, fields, message):
    bad = run_cli("sweep", str(write_sweep(tmp_path, grid={"array.drives": [8]}, **fields)), "--workers", "1",
                  "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and bad.stderr.startswith(message) and len(bad.stderr.splitlines()) == 1, bad.stderr
    assert "Traceback" not in bad.stderr and not list(tmp_path.glob("o*"))


def test_a_refused_sweep_keeps_the_journal_of_a_killed_run(tmp_path):
    spec = write_sweep(tmp_path)
    rows = killed_after(spec, tmp_path / "o", 1)
    spec.write_text(json.dumps({**json.loads(spec.read_text()), "objective": {"maximize": "limited_by"}}))
    bad = run_cli("sweep", str(spec), "--workers", "1", "-o", str(tmp_path / "o"))
    assert bad.returncode == 2 and "not a number column" in bad.stderr, bad.stderr
    kept = [json.loads(line) for line in (tmp_path / "o.partial.jsonl").read_text().splitlines()]
    assert kept[:len(rows)] == rows


def test_an_unchanged_sweep_resumes_every_logged_row(tmp_path):
    spec, out = write_sweep(tmp_path), tmp_path / "o"
    rows = killed_after(spec, out, 2)
    summary = run_sweep(spec, out, workers=1)
    assert summary["computed_now"] == len(DRIVES) - 2 and summary["damaged_partial_lines"] == 0
    assert summary["rows"] == len(DRIVES) and not out.with_name("o.partial.jsonl").exists()
    assert {r["key"] for r in rows} <= {r["key"] for r in read_table(out)}


@pytest.mark.parametrize("edit", ["base", "rebuild"])
def test_an_edited_sweep_recomputes_instead_of_resuming_the_old_rows(tmp_path, edit):
    """Its rows were resumed: 8 drives of 3.84 TB in a table of the 7.68 TB drive, rows without
    the rebuild columns asked for."""
    spec, out = write_sweep(tmp_path), tmp_path / "o"
    killed_after(spec, out, 2)
    if edit == "base":
        (tmp_path / "base.yaml").write_text(BASE.replace("kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"))
    else:
        spec.write_text(json.dumps({**json.loads(spec.read_text()), "rebuild": True}))
    summary = run_sweep(spec, out, workers=1)
    assert summary["computed_now"] == len(DRIVES)
    table = read_table(out)
    if edit == "base":
        usable = {int(r["set.array.drives"]): float(r["usable_bytes"]) for r in table}
        assert all(abs(usable[n] - (n - 2) * 7.68e12) < 0.01 * usable[n] for n in DRIVES), usable
    else:
        assert all(r["rebuild_hours"] for r in table), table


def test_journal_lines_that_are_not_rows_for_their_key_are_recomputed_and_counted(tmp_path):
    spec, out = write_sweep(tmp_path), tmp_path / "o"
    first, second = killed_after(spec, out, 2)
    partial = out.with_name("o.partial.jsonl")
    lines = [{**first, "read_iops": "lots"}, {**second, "set.array.drives": 99},
             {"key": "a7aa613a81d9cd25", "read_iops": "lots"}]
    partial.write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = run_sweep(spec, out, workers=1)
    assert summary["computed_now"] == len(DRIVES) and summary["damaged_partial_lines"] == 3
    table = read_table(out)
    assert sorted(int(r["set.array.drives"]) for r in table) == DRIVES and all(r["status"] == "ok" for r in table)
    assert all(float(r["read_iops"]) > 0 for r in table)


def test_a_sweeps_rows_are_keyed_by_what_its_catalog_holds_not_where_it_lies(tmp_path, monkeypatch):
    """The same catalog in another folder (another clone or install of the same nvsim) gives the
    same keys, so the same table; an edited one gives others (its rows are recomputed)."""
    import shutil

    from nvsim.sweep import prepare_sweep, sweep_fingerprint

    spec, base, _ = prepare_sweep(write_sweep(tmp_path))
    shipped = sweep_fingerprint(spec, base.model_dump(mode="json"))
    models = tmp_path / "elsewhere" / "models"
    shutil.copytree(ROOT / "models", models)
    monkeypatch.setenv("NVSIM_CATALOG", str(models))
    assert sweep_fingerprint(spec, base.model_dump(mode="json")) == shipped
    edited = next(models.rglob("*.yaml"))
    edited.write_text(edited.read_text() + "\n# edited\n")
    assert sweep_fingerprint(spec, base.model_dump(mode="json")) != shipped


def test_point_keys_tell_sweeps_apart():
    point = {"array.drives": 8}
    assert point_key(point, "a", "fluid", "s1") == point_key({"array.drives": 8}, "a", "fluid", "s1")
    assert point_key(point, "a", "fluid", "s1") != point_key(point, "a", "fluid", "s2")


def test_a_point_solves_a_phase_once_for_its_selected_workloads(monkeypatch):
    """A sweep point ran each selected workload of a phase on its own Simulation, each solving the
    whole phase; it solves the phase once, each row what the workload's own run gives."""
    from nvsim import Simulation, default_catalog, load_scenario
    from nvsim.sweep import run_point
    from nvsim.workload import compose

    catalog = default_catalog()
    base = load_scenario(ROOT / "scenarios" / "graid-gen5-raid6", catalog)
    jobs = [base.workloads[0].model_copy(update={"name": f"j{i}", "phase": "p", "flow": i + 1, "numjobs": 4})
            for i in range(3)]
    spec = base.model_copy(update={"workloads": tuple(jobs)})
    task = {"point": {}, "base": spec.model_dump(mode="json"), "workloads": ["j0", "j2"], "fidelity": "fluid",
            "host_ios": 20_000, "rebuild": False}
    solves = []
    real = compose.ROWS["phase"]
    monkeypatch.setitem(compose.ROWS, "phase", lambda job: solves.append(job.workload.name) or real(job))
    rows = run_point(task)
    assert solves == ["p"] and [r["workload"] for r in rows] == ["j0", "j2"]
    for row in rows:
        own = Simulation(spec, row["workload"], catalog=catalog).run("fluid")
        assert row["read_iops"] == own.read_iops, row["workload"]


@pytest.mark.parametrize("field, values", [("workload.thinktime", [50, "50us"]), ("workload.bs", ["4k", "4KiB"]),
                                           ("array.strip_bytes", ["64KiB", 65536]),
                                           ("workload.thinktime", ["50us", "0.05ms"])])
def test_a_grid_value_repeated_in_other_units_is_refused(field, values):
    """The values are compared as the field reads them: 50 and 50us of a thinktime ran one point
    twice under two keys."""
    from nvsim.sweep import SweepSpec

    with pytest.raises(Exception, match=r"is given more than once"):
        SweepSpec.model_validate({"base": "scenario.yaml", "grid": {field: values}})


def test_a_missing_base_is_named_by_the_sweeps_field(tmp_path):
    import subprocess
    import sys

    spec = tmp_path / "sweep.yaml"
    spec.write_text("base: missing.yaml\ngrid: {array.drives: [4, 8]}\n")
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "sweep", str(spec), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {spec}: base: no such file or directory: "), done.stderr
    assert not (tmp_path / "out").exists()


def test_a_resume_file_is_read_line_by_line_and_refused_in_one_line_when_not_a_file(tmp_path):
    """A directory at OUT.partial.jsonl gave an IsADirectoryError traceback, and a 3 GB file of one
    line was read whole (3.3 GB resident)."""
    from nvsim.errors import InputError
    from nvsim.sweep import ROW_LINE_BYTES_MAX, ROW_STATUSES, _load_partial

    folder = tmp_path / "r.partial.jsonl"
    folder.mkdir()
    with pytest.raises(InputError, match=r"--output: .*r\.partial\.jsonl \(this sweep's resume file\) is not a file"):
        _load_partial(folder)
    journal = tmp_path / "j.partial.jsonl"
    row = {"key": "k1", "status": sorted(ROW_STATUSES)[0]}
    long_line = b"x" * (ROW_LINE_BYTES_MAX + 10) + b"\n"
    journal.write_bytes(json.dumps(row).encode() + b"\n" + long_line + b"not json\n\n" + b'{"key": "torn')
    done, damaged = _load_partial(journal)
    assert damaged == 2 and journal.read_bytes().endswith(b"not json\n\n")  # the torn line is cut off, not counted
    assert set(done) == {"k1"}
