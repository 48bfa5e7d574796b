"""A scenario YAML says a composite workload (a mix of sizes, a rate cap, a think time, trims) and
workloads that run at the same time (a phase): `nvsim run` and `nvsim sweep` solve them through the
route table, with the same answer as ``nvsim.Simulation``."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest
import yaml

import nvsim
from conftest import ROOT, run_cli
from nvsim.sweep import run_sweep

SCENARIO = ROOT / "scenarios" / "composite-workloads"
SWEEP = ROOT / "scenarios" / "sweeps" / "composite-workloads.yaml"


@pytest.fixture(scope="module")
def spec():
    return nvsim.load_scenario(SCENARIO)


def test_the_scenario_says_every_composite_form(spec):
    paced, reader, writer = spec.workloads
    assert paced.bs_mix is not None and paced.bs == 41984  # bssplit=4k/70:128k/30, its mean
    assert (paced.rate_iops, paced.thinktime, paced.trim, paced.rw) == (2000, pytest.approx(50e-6), "randtrimwrite", "randwrite")
    assert reader.phase == writer.phase == "together" and writer.bs_mix is not None  # bsrange=4k-64k
    assert nvsim.Simulation(spec, paced).route == "trimwrite"  # trims first, then the cap, the think time, the mix
    assert nvsim.Simulation(spec, reader).route == "phase"


def test_nvsim_run_gives_each_workload_its_composite_answer(spec):
    done = run_cli("run", str(SCENARIO), "--fidelity", "fluid", "--json")
    assert done.returncode == 0, done.stderr
    predictions = json.loads(done.stdout)["predictions"]
    cap = 2000 * 32  # rate_iops per clone x numjobs: the think time alone would go faster
    assert predictions["paced-mix-trims"]["write_iops"] == pytest.approx(cap, rel=1e-12)
    together = nvsim.Simulation(spec, spec.phase("together")).run("fluid")
    for job in together.jobs:
        assert predictions[job.workload]["total_iops"] == pytest.approx(job.total_iops, rel=1e-12)
    alone = nvsim.Simulation(spec, spec.workloads[1].model_copy(update={"phase": None})).run("fluid")
    assert together.jobs[0].total_iops < alone.total_iops  # the reader shares the array with the writer


def test_nvsim_sweep_runs_the_composite_workloads_over_its_grid(tmp_path):
    summary = run_sweep(SWEEP, tmp_path / "out", workers=1)
    assert summary["points"] == 9 and summary["rows"] == 27  # 3 drive counts x 3 strips x 3 workloads
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert all(r["status"] == "ok" for r in rows), [r["error"] for r in rows if r["status"] != "ok"]
    paced = [r for r in rows if r["workload"] == "paced-mix-trims"]
    assert all(r["write_iops"] <= 64000 * (1 + 1e-12) for r in paced)  # never above the cap


@pytest.mark.parametrize("change, pattern", [
    ({"bssplit": "4k/70:128k/50"}, r"workloads\[0\]: bssplit: the percentages must add up to at most 100"),
    ({"latency_target": "1ms"}, r"workloads\[0\]: latency_target: a latency target together with a rate cap"),
    ({"rate_process": "bursty"}, r"workloads\[0\]\.rate_process"),
])
def test_bad_forms_are_one_line(tmp_path, change, pattern):
    data = yaml.safe_load((SCENARIO / "scenario.yaml").read_text())
    data["workloads"][0].update(change)
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    done = run_cli("run", str(tmp_path / "s.yaml"), "--fidelity", "fluid")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and re.search(pattern, lines[0]), done.stderr
