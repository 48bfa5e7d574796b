"""One job file, one answer: a job with a mix of block sizes and a rate cap gives the same IOPS through
`nvsim fio`, the dashboard's fio upload, `nvsim plan` and ``nvsim.Simulation``; two jobs that fio runs
at the same time give the same per-job IOPS through `nvsim fio` and ``Simulation`` with their phase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import nvsim
from dashboard.core import import_fio, workload_record
from nvsim.cli import app
from nvsim.fio import parse_fio_jobfile
from nvsim.plan import run_plan
from nvsim.scenario import load_scenario
from nvsim.specs import Phase

SYSTEM = "scenarios/graid-gen5-raid6"
MIX_JOB = """[global]
ioengine=libaio
direct=1
time_based
runtime=60
[mixjob]
rw=randrw
rwmixread=70
bssplit=4k/70:128k/30
rate_iops=7000,3000
numjobs=16
iodepth=16
"""
TWO_JOBS = """[global]
ioengine=libaio
direct=1
time_based
runtime=60
[reader]
rw=randread
bs=4k
numjobs=32
iodepth=32
[writer]
rw=randwrite
bs=64k
numjobs=16
iodepth=8
"""


@pytest.fixture(scope="module")
def catalog():
    return nvsim.default_catalog()


@pytest.fixture(scope="module")
def spec(catalog):
    return load_scenario(SYSTEM, catalog)


def _fio_jobs(tmp_path: Path, text: str) -> list[dict]:
    path = tmp_path / "job.fio"
    path.write_text(text)
    result = CliRunner().invoke(app, ["fio", str(path), "--system", SYSTEM, "--fidelity", "fluid"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["jobs"]


def _fio_iops(tmp_path: Path, text: str) -> dict[str, float]:
    iops: dict[str, float] = {}
    for entry in _fio_jobs(tmp_path, text):  # one entry per clone, under its job's name
        iops[entry["jobname"]] = iops.get(entry["jobname"], 0.0) + entry["read"]["iops"] + entry["write"]["iops"]
    return iops


def test_a_mixed_rate_capped_job_has_one_answer_through_every_entry_point(tmp_path, spec, catalog):
    job = parse_fio_jobfile(MIX_JOB, "job.fio", catalog=catalog).jobs[0]
    assert job.workload.bs_mix is not None and job.workload.rate_iops is not None  # the whole job, in the workload
    direct = nvsim.Simulation(spec, job.workload, catalog=catalog).run("fluid")
    assert direct.route == "paced" and direct.scale < 1.0  # the cap binds: the answer is the cap, not the loop
    cap = job.workload.rate_iops * job.workload.numjobs
    assert direct.total_iops == pytest.approx(cap, rel=1e-12)

    through_fio = _fio_iops(tmp_path, MIX_JOB)["mixjob"]
    # fio's JSON rounds each clone's reads and writes to whole I/Os over the 60 s runtime (16 clones x 2
    # directions, half an I/O each at most: the cap, 4k/70:128k/30 at rate_iops=7000,3000, is 15,534 I/Os a
    # second, no whole number)
    assert through_fio == pytest.approx(direct.total_iops, abs=16 * 2 * 0.5 / 60)
    # the CPU too: the loop's at the job's rate, through fio's sys_cpu (each clone's thread, a percent of
    # one CPU: the busy CPUs shared out over the 16 clones) as through Result.cpu_percent
    busy_cpus = direct.cpu_percent / 100 * direct.simulation.logical_cpus
    assert [entry["sys_cpu"] for entry in _fio_jobs(tmp_path, MIX_JOB)] == \
        [pytest.approx(100 * busy_cpus / 16, rel=1e-12)] * MIX_JOB.count("numjobs=16") * 16
    assert direct.cpu_percent < direct.unscaled.cpu_percent

    upload = import_fio(MIX_JOB, "job.fio", spec.model_dump(mode="json"), catalog)
    scenario = nvsim.scenario.parse_scenario(dict(spec.model_dump(mode="json"), workloads=upload["workloads"]), catalog)
    record = workload_record(scenario, scenario.workloads[0], catalog)
    assert record["total_iops"] == pytest.approx(direct.total_iops, rel=1e-12)

    (tmp_path / "plan.yaml").write_text(yaml.safe_dump({
        "requirements": {"usable_bytes": "1 TB", "workloads": [{"name": "mixjob", "fio": "job.fio", "min_iops": 1000}]},
        "search": {"platforms": [spec.platform], "drives": [spec.array.drive], "engines": [spec.array.engine],
                   "drive_counts": [spec.array.drives], "levels": [spec.array.level], "strips_bytes": [spec.array.strip_bytes]},
        "objective": "usd_per_usable_tb", "top": 1, "confirm": 1, "event_host_ios": 2000, "seed": spec.seed}))
    planned = run_plan(tmp_path / "plan.yaml")
    assert planned.ranked, "the one candidate meets the requirement"
    assert planned.ranked[0]["workloads"]["mixjob"]["iops"] == pytest.approx(direct.total_iops, rel=1e-12)


def test_jobs_without_a_stonewall_give_the_same_per_job_iops_through_fio_and_a_phase(tmp_path, spec, catalog):
    parsed = parse_fio_jobfile(TWO_JOBS, "job.fio", catalog=catalog)
    assert len(parsed.phases()) == 1
    phase = Phase(name="together", jobs=tuple(job.workload for job in parsed.jobs))
    result = nvsim.Simulation(spec, phase, catalog=catalog).run("fluid")
    assert result.route == "phase" and [j.workload for j in result.jobs] == ["reader", "writer"]
    alone = {w.name: nvsim.Simulation(spec, w, catalog=catalog).run("fluid").total_iops for w in phase.jobs}
    assert any(j.total_iops < alone[j.workload] * 0.99 for j in result.jobs)  # they share the array: one waits
    through_fio = _fio_iops(tmp_path, TWO_JOBS)
    for job in result.jobs:
        assert through_fio[job.workload] == pytest.approx(job.total_iops, rel=1e-6)
    assert result.total_iops == pytest.approx(sum(j.total_iops for j in result.jobs))
