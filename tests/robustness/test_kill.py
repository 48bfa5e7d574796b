"""Outputs that survive any kill: SIGKILL at random points of a sweep, of `nvsim run -o`, and of the
multi-file commit itself; then the final outputs are whole (or absent), never a new file beside an
old one, and the next run leaves no temporary behind. A torn last line of a sweep's
``.partial.jsonl`` does not swallow the next row; a refused sweep leaves nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

from conftest import ROOT
from nvsim.io import clean_stale_temps, commit_together, journal_path, recover_commit, write_text_atomic
from nvsim.sweep import _load_partial, run_sweep

BASE = ROOT / "scenarios" / "xiraid-qlc-raid5" / "scenario.yaml"
ENV = dict(os.environ, COLUMNS="160", PYTHONPATH=str(ROOT))


def write_spec(tmp_path: Path, **fields) -> Path:
    spec = {"base": str(BASE), "workloads": ["randread-b4k-j16-d64"], "fidelity": "fluid",
            "grid": {"array.drives": [4, 5, 6, 8], "array.strip_bytes": ["64KiB", "128KiB"]}}
    spec.update(fields)
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps(spec))
    return path


def _spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _kill_after(proc: subprocess.Popen, seconds: float) -> None:
    time.sleep(seconds)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()


def _hidden_temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


COMMIT_LOOP = """
import sys
from pathlib import Path
from nvsim.io import commit_together
folder = Path(sys.argv[1])
for generation in range(1, 10**9):
    text = str(generation) * 20000  # big enough that a kill lands mid-write too
    commit_together([(folder / "t.parquet", lambda tmp: Path(tmp).write_text(text)),
                     (folder / "t.csv", lambda tmp: Path(tmp).write_text(text))])
"""


def test_killed_multi_file_commit_never_leaves_a_new_file_beside_an_old_one(tmp_path):
    """A writer committing Parquet + CSV pairs in a loop, SIGKILLed at random moments: after the
    next writer's recovery both files hold the same generation, and no temporary is left."""
    rng = random.Random(24)
    script = tmp_path / "loop.py"
    script.write_text(COMMIT_LOOP)
    committed = 0
    for attempt in range(8):
        folder = tmp_path / f"run{attempt}"
        folder.mkdir()
        _kill_after(_spawn(str(script), str(folder)), rng.uniform(0.5, 2.5))
        parquet, csv = folder / "t.parquet", folder / "t.csv"
        if not journal_path(parquet).exists():  # killed before or after a commit point: a whole pair or none
            assert parquet.exists() == csv.exists()
        recover_commit(journal_path(parquet))
        assert parquet.exists() == csv.exists()
        if parquet.exists():
            committed += 1
            assert parquet.read_text() == csv.read_text(), f"attempt {attempt}: files of two generations"
        commit_together([(parquet, lambda tmp: Path(tmp).write_text("next")), (csv, lambda tmp: Path(tmp).write_text("next"))])
        assert _hidden_temps(folder) == [] and not journal_path(parquet).exists()
        assert parquet.read_text() == csv.read_text() == "next"
    assert committed >= 4, "the writer was killed before it committed anything: kill later"


def test_commit_interrupted_between_renames_is_finished_by_the_next_writer(tmp_path, monkeypatch):
    """The window the issue names: killed after the Parquet rename, before the CSV's."""
    parquet, csv = tmp_path / "o.parquet", tmp_path / "o.csv"
    commit_together([(parquet, lambda t: Path(t).write_text("old")), (csv, lambda t: Path(t).write_text("old"))])
    calls = []
    real_replace = os.replace

    def crash_on_second(src, dst):
        calls.append(dst)
        if len(calls) == 3:  # the journal's rename, the Parquet's, then the CSV's: the process dies here
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_second)
    try:
        commit_together([(parquet, lambda t: Path(t).write_text("new")), (csv, lambda t: Path(t).write_text("new"))])
    except KeyboardInterrupt:
        pass
    monkeypatch.setattr(os, "replace", real_replace)
    assert parquet.read_text() == "new" and not csv.exists()  # the old CSV went before the new Parquet came
    assert recover_commit(journal_path(parquet))
    assert parquet.read_text() == csv.read_text() == "new"


def test_killed_sweep_leaves_no_partial_final_output_and_resumes(tmp_path):
    """`nvsim sweep` SIGKILLed at random moments: never one table without the other, never a
    temporary after the next run, and the finished table equals an uninterrupted run's."""
    rng = random.Random(7)
    spec = write_spec(tmp_path)
    reference = run_sweep(spec, tmp_path / "reference", workers=1)
    expected = sorted(pq.read_table(tmp_path / "reference.parquet").to_pylist(), key=lambda r: r["key"])
    out = tmp_path / "killed"
    for _ in range(4):
        _kill_after(_spawn("-m", "nvsim.cli", "sweep", str(spec), "-o", str(out), "--workers", "1"), rng.uniform(0.5, 6.0))
        parquet, csv = out.with_suffix(".parquet"), out.with_suffix(".csv")
        if not journal_path(parquet).exists():
            assert parquet.exists() == csv.exists()
    summary = run_sweep(spec, out, workers=1)
    assert summary["rows"] == reference["rows"]
    assert sorted(pq.read_table(out.with_suffix(".parquet")).to_pylist(), key=lambda r: r["key"]) == expected
    assert _hidden_temps(tmp_path) == [] and not (tmp_path / "killed.partial.jsonl").exists()


def test_killed_run_output_is_whole_or_absent_and_temporaries_are_cleaned(tmp_path):
    """`nvsim run -o` SIGKILLed at random moments: the JSON is absent or parses whole; the next
    run removes what a killed one left."""
    rng = random.Random(3)
    target = tmp_path / "result.json"
    scenario = str(ROOT / "scenarios" / "graid-gen5-raid6")
    for _ in range(4):
        target.unlink(missing_ok=True)
        _kill_after(_spawn("-m", "nvsim.cli", "run", scenario, "--fidelity", "fluid", "-o", str(target)), rng.uniform(0.5, 8.0))
        if target.exists():
            assert json.loads(target.read_text())["capacity"]["usable_bytes"] > 0
    finished = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", scenario, "--fidelity", "fluid", "-o", str(target)],
                              cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr  # the run that is not killed completes
    assert json.loads(target.read_text())["capacity"]["usable_bytes"] > 0
    # a temporary a killed writer left (its process gone) is removed by the next write
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".result.json.{dead.stdout.strip()}.abcd.tmp"
    stale.write_text("{\"half\": ")
    write_text_atomic(target, "{}")
    assert _hidden_temps(tmp_path) == [] and json.loads(target.read_text()) == {}


def test_a_live_writers_temporary_is_kept(tmp_path):
    mine = tmp_path / f".x.json.{os.getpid()}.abcd.tmp"
    mine.write_text("in progress")
    assert clean_stale_temps(tmp_path / "x.json") == [] and mine.exists()


def test_torn_last_line_is_cut_so_the_next_row_survives_a_second_kill(tmp_path):
    partial = tmp_path / "out.partial.jsonl"
    rows = [{"key": f"k{i}", "status": "ok", "read_iops": float(i)} for i in range(3)]
    torn = json.dumps({"key": "k3", "status": "ok", "read_iops": 3.0})[:17]
    partial.write_text("".join(json.dumps(r) + "\n" for r in rows) + torn)
    done, damaged = _load_partial(partial)
    assert sorted(done) == ["k0", "k1", "k2"] and damaged == 0  # a torn last line is a kill, not damage
    with open(partial, "a", encoding="utf-8") as log:  # what the resumed sweep appends next
        log.write(json.dumps({"key": "k3", "status": "ok", "read_iops": 3.0}) + "\n")
    assert sorted(_load_partial(partial)[0]) == ["k0", "k1", "k2", "k3"]  # the row is not glued to the fragment


def test_damaged_lines_of_a_partial_log_are_counted_and_their_points_rerun(tmp_path):
    partial = tmp_path / "out.partial.jsonl"
    partial.write_text(json.dumps({"key": "k0", "status": "ok"}) + "\n{not json\n[1, 2]\n\n"
                       + json.dumps({"key": "k1", "status": "ok"}) + "\n")
    done, damaged = _load_partial(partial)
    assert sorted(done) == ["k0", "k1"] and damaged == 2


def test_sweep_refused_for_a_constraint_naming_no_column_leaves_nothing(tmp_path):
    spec = write_spec(tmp_path, constraints=["no_such_metric >= 1"], grid={"array.drives": [4, 5]})
    result = subprocess.run([sys.executable, "-m", "nvsim.cli", "sweep", str(spec), "-o", str(tmp_path / "out"),
                             "--workers", "1"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "no column 'no_such_metric'" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]


def test_dask_address_where_nothing_listens_is_refused_quickly(tmp_path):
    spec = write_spec(tmp_path)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "nvsim.cli", "sweep", str(spec), "-o", str(tmp_path / "out"),
                             "--dask", "tcp://127.0.0.1:9"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "--dask: no Dask scheduler answers at 'tcp://127.0.0.1:9' within 5 s" in result.stderr
    assert elapsed < 20, elapsed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.yaml"]
