"""A bare `pip install .` (no extras) runs `nvsim run`: the command line with every optional package
(Dash, Plotly, kaleido, Dask, pyarrow, MkDocs, Selenium) made unimportable, as in a fresh environment
without them. The commands that need an extra say which, in one line (exit status 2).
The real check, a fresh virtual environment with `pip install .`, is recorded in docs/getting-started.md."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

BLOCKED = ("dash", "plotly", "kaleido", "dask", "distributed", "pyarrow", "mkdocs", "selenium")
BLOCKER = f"""
import importlib.abc, sys
BLOCKED = {BLOCKED!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: not installed)", name=name)
        return None
sys.meta_path.insert(0, Block())
import importlib.util
_find = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split('.')[0] in BLOCKED else _find(name, *a)
"""
RUN_CLI = "from nvsim.cli import main\nmain(sys.argv[1:])\n"


def _lean(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + RUN_CLI, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_the_blocker_does_block_the_optional_packages():
    for name in ("dash", "pyarrow.parquet", "dask.distributed"):
        probe = subprocess.run([sys.executable, "-c", BLOCKER + f"import {name}"], cwd=ROOT, capture_output=True, text=True)
        assert probe.returncode != 0 and "blocked: not installed" in probe.stderr, name


def test_run_works_without_any_optional_package():
    done = _lean("run", "scenarios/graid-gen5-raid6", "--fidelity", "fluid")
    assert done.returncode == 0, done.stderr
    assert "Predicted steady state per workload" in done.stdout and "Set-up price" in done.stdout
    for name in BLOCKED:
        assert f"'{name}'" not in done.stderr


def test_commands_needing_an_extra_name_it_in_one_line(tmp_path):
    dashboard = _lean("dashboard")
    assert dashboard.returncode == 2 and dashboard.stderr.count("\n") == 1
    assert "pip install 'nvsim[dashboard]'" in dashboard.stderr


def test_a_sweep_without_pyarrow_writes_its_csv_and_says_so(tmp_path):
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"base: {ROOT / 'scenarios/graid-gen5-raid6/scenario.yaml'}\nworkloads: [randread-b4k-j192-d32]\n"
                    "grid: {array.drives: [8, 12]}\n")
    (tmp_path / "s.parquet").write_text("an older run's table")
    sweep = _lean("sweep", str(spec), "-o", str(tmp_path / "s"), "--workers", "1")
    assert sweep.returncode == 0, sweep.stderr
    assert "note: pyarrow is not installed (pip install 'nvsim[parquet]'): the CSV only, no Parquet" in sweep.stdout
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("set.array.drives,workload,")
    assert not (tmp_path / "s.parquet").exists()  # no stale Parquet beside the new CSV


def test_plan_works_without_plotly_and_says_so_in_one_line(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text("requirements: {usable_bytes: 20 TB, workloads: [{name: rr, profile: randread-4k, numjobs: 8, iodepth: 8, "
                    "min_iops: 100k}]}\nsearch: {platforms: [supermicro-as-2125hs-tnr], drives: [kioxia-cm7-r-3.84tb], "
                    "engines: [linux-md], drive_counts: [8, 12], levels: [6], strips_bytes: [64KiB]}\nconfirm: 0\n")
    done = _lean("plan", str(plan), "-o", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if "plotly" in line and line.startswith("note:")]
    assert (tmp_path / "out" / "ranking.csv").exists() and not (tmp_path / "out" / "pareto.html").exists()
