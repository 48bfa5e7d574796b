"""A plan workload given as a job of a fio file (``fio:`` and ``job:``) is planned as ``nvsim fio``
runs the file: with the jobs fio runs at the same time (its phase; a stonewall starts the next,
new_group only a reporting group), its target checked on its own rate; a job beside it that the
candidates cannot run is refused in one line naming ``job``; ``nvsim fio``'s warnings and rate_min
notes are the plan's too; a workload's mean latency is over its reads and writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.plan import fluid, prepare_plan, run_plan, search
from nvsim.plan.space import enumerate_candidates
from nvsim.plan.spec import load_plan, workload_specs
from nvsim.scenario import parse_scenario
from tests.conftest import run_fio

PLATFORM, DRIVE = "supermicro-as-2125hs-tnr", "kioxia-cm7-r-3.84tb"
SEARCH = {"platforms": [PLATFORM], "drives": [DRIVE], "engines": ["linux-md"], "drive_counts": [8], "levels": [6],
          "strips_bytes": ["64KiB"]}
SYSTEM = {"name": "system", "platform": PLATFORM, "seed": 1,
          "array": {"level": 6, "drive": DRIVE, "drives": 8, "engine": "linux-md", "strip_bytes": "64KiB"}}
GLOBAL = "[global]\nioengine=libaio\ndirect=1\ntime_based\nruntime=30\n"
TOGETHER = GLOBAL + "[wa]\nrw=randwrite\nbs=4k\nnumjobs=8\niodepth=16\n[wb]\nrw=randwrite\nbs=64k\nnumjobs=4\niodepth=8\n"
"""Two jobs fio runs at once (no stonewall): the plan gave wa 138,259 IOPS alone, `nvsim fio` 27,383 beside wb."""
FLOWS = (GLOBAL + "[f1]\nrw=randread\nbs=4k\nnumjobs=4\niodepth=16\nflow_id=1\nflow=1\n"
         "[f8]\nrw=randwrite\nbs=4k\nnumjobs=4\niodepth=16\nflow_id=1\nflow=8\n")
"""fio's flow: f1 does one I/O for f8's eight (the plan gave f1 268,924 IOPS, as if it were f8; `nvsim fio` 33,608)."""


def _plan(tmp_path: Path, text: str, workload: dict, **requirements) -> Path:
    """A plan of one candidate (the set-up ``SYSTEM``) for one job of ``text``, fluid mode only."""
    (tmp_path / "job.fio").write_text(text)
    plan = {"requirements": {"usable_bytes": "1 GB", **requirements,
                             "workloads": [{"name": "req", "fio": "job.fio", "min_iops": 1, **workload}]},
            "search": SEARCH, "objective": "drives", "confirm": 0, "top": 1, "seed": 1}
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    return tmp_path / "plan.yaml"


def _system(tmp_path: Path) -> Path:
    (tmp_path / "system.yaml").write_text(yaml.safe_dump(SYSTEM))
    return tmp_path / "system.yaml"


@pytest.mark.parametrize("text, job", [(TOGETHER, "wa"), (TOGETHER, "wb"), (FLOWS, "f1")])
def test_a_fio_job_is_planned_with_the_jobs_fio_runs_beside_it(tmp_path, catalog, text, job):
    """The job's rate is the one `nvsim fio` gives it on the same set-up, and the scenario the plan
    writes (`nvsim run` reads it) runs the same jobs in one phase."""
    result = run_plan(_plan(tmp_path, text, {"job": job}))
    runs, _ = run_fio(text, _system(tmp_path), catalog)
    fio_run = next(run for run in runs if run.job.name == job)
    assert result.ranked[0]["workloads"]["req"]["iops"] == pytest.approx(fio_run.result.total_iops * fio_run.scale, rel=1e-9)
    written = result.scenarios[1]["workloads"]
    others = [run.job.name for run in runs if run.job.name != job]
    assert [w["name"] for w in written] == ["req", *(f"req/{name}" for name in others)]
    assert len({w["phase"] for w in written}) == 1


def test_the_jobs_beside_are_those_of_its_phase_as_nvsim_fio_groups_them(tmp_path, catalog):
    """No stonewall, or new_group (a reporting group only): fio runs the jobs at once; a stonewall
    makes the second wait for the first, and each is then planned alone."""
    for second, together in (("", True), ("new_group\n", True), ("stonewall\n", False)):
        text = GLOBAL + "[wa]\nrw=randwrite\nbs=4k\n[wb]\n" + second + "rw=randread\nbs=64k\n"
        spec, here = load_plan(_plan(tmp_path, text, {"job": "wb"}))
        phases = parse_fio_jobfile(text, "job.fio", catalog=catalog).phases()
        assert (len(phases) == 1) == together  # the fio reader's own grouping
        workloads = workload_specs(spec, here, catalog)
        assert list(workloads) == (["req", "req/wa"] if together else ["req"]), second
        assert workloads["req"].bs == 65536 and workloads["req"].read_fraction == 1.0
        assert (workloads["req"].phase is not None) == together
        if together:
            assert workloads["req/wa"].phase == workloads["req"].phase and workloads["req/wa"].bs == 4096


def test_a_job_beside_that_a_plan_cannot_run_is_refused_in_one_line_naming_job(tmp_path, cli):
    """A share of the device ('N%') is another region on each candidate: refused for the job itself
    (as before) and now for a job fio runs beside it, which was dropped without a word."""
    text = GLOBAL + "[wa]\nrw=randwrite\nbs=4k\n[wb]\nrw=randread\nbs=4k\nsize=10%\n"
    path = _plan(tmp_path, text, {"job": "wa"})
    with pytest.raises(InputError) as refusal:
        prepare_plan(path)
    assert refusal.value.field == "requirements.workloads[0].job"
    assert "[wb]" in refusal.value.message and "size=100g" in refusal.value.message
    done = cli("plan", str(path), "-o", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "requirements.workloads[0].job" in done.stderr


def test_the_plan_gives_the_warnings_and_rate_min_notes_nvsim_fio_gives(tmp_path, catalog, cli):
    """fsync and direct=0 (not modelled) and a rate_min the rate misses: `nvsim fio` says so, the
    plan said nothing. Its lines are the fio reader's and runner's own, on stderr and in plan.json."""
    text = ("[global]\nioengine=libaio\ntime_based\nruntime=60\n"
            "[w]\nrw=randwrite\nbs=4k\nnumjobs=8\niodepth=16\nfsync=1\ndirect=0\nrate_iops_min=900000\n")
    path = _plan(tmp_path, text, {"job": "w"})
    parsed = parse_fio_jobfile(text, str(tmp_path / "job.fio"), catalog=catalog)
    warnings = [parsed.unmodelled_warning(), *parsed.notes()]
    assert "fsync" in warnings[0]
    runs, _ = run_fio(text, _system(tmp_path), catalog)
    assert "rate_min" in runs[0].note
    done = cli("plan", str(path), "-o", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 0, done.stderr
    answer = json.loads((tmp_path / "out" / "plan.json").read_text())
    assert answer["warnings"] == warnings
    assert len(answer["notes"]) == 1 and answer["notes"][0].endswith(runs[0].note)
    lines = done.stderr.splitlines()
    assert all(f"warning: {line}" in lines for line in warnings) and f"note: {answer['notes'][0]}" in lines


def test_the_mean_latency_is_over_reads_and_writes_as_littles_law_gives_it(tmp_path):
    """A 70/30 mix: the plan gave the reads' mean (223 us) where its I/Os took 278 us on average
    (128 in flight over the IOPS)."""
    text = GLOBAL + "[rr]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=16\nnumjobs=8\n"
    figures = run_plan(_plan(tmp_path, text, {"job": "rr"})).ranked[0]["workloads"]["req"]
    assert figures["mean_latency_us"] == pytest.approx(8 * 16 / figures["iops"] * 1e6, rel=0.01)


def test_a_rebuild_under_a_fio_job_loads_the_jobs_beside_it_at_the_same_share(tmp_path, catalog, monkeypatch):
    """The rebuild's load is the workload as fio runs it: every job of its phase, each at
    load_fraction of its clones (it was the job alone)."""
    path = _plan(tmp_path, TOGETHER, {"job": "wa"}, rebuild={"max_hours": 100, "workload": "req", "load_fraction": 0.5})
    spec, axes, workloads, _ = prepare_plan(path)
    cands = enumerate_candidates(axes, spec.max_candidates)
    task = search._tasks(spec, cands, np.arange(1), workloads)[0]
    loads = []
    monkeypatch.setattr(fluid, "rebuild_summary", lambda scenario, catalog, load: loads.append(load) or
                        {"rebuild_hours": 1.0, "data_loss_probability": 0.0, "mttdl_years": 1e9})
    fluid._rebuild_and_risk(task, parse_scenario(task["scenario"], catalog), catalog)
    assert [(job.name, job.numjobs) for job in loads[0].jobs] == [("req", 4), ("req/wb", 2)]
