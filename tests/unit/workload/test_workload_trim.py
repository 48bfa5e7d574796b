"""fio's trim jobs as NVMe deallocations (nvsim.workload.trim), through nvsim fio's run; and a trim at
depth 1 against the datasheet: each deallocation is a command the drive completes, so it takes at
least the drive's quoted write-command latency (the assumed cost of a Dataset Management command)
on top of the host path, and the loop obeys X R = 1."""

from pathlib import Path

import pytest

import nvsim
from conftest import run_fio
from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.run import fio_report, simulate_jobs
from nvsim.workload.trim import deallocated_share, trim_cost
from nvsim.sim.model import build

ROOT = Path(__file__).resolve().parents[3]
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"
MD_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid6-4k.yaml"
GPU_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6"
HEAD = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nruntime=30\ntime_based\n"


def _run(text, scenario, catalog):
    return run_fio(HEAD + text, scenario, catalog)


def test_trim_types_parse_as_trims_with_a_write_jobs_offsets():
    parsed = parse_fio_jobfile("[a]\nrw=randtrim\n[b]\nrw=trimwrite\n[c]\nrw=randwrite\n", "job.fio")
    assert [(j.trim, j.workload.rw) for j in parsed.jobs] == [("randtrim", "randwrite"), ("trimwrite", "write"),
                                                              (None, "randwrite")]


def test_a_trim_job_deallocates_at_its_closed_loop_or_its_cpus(catalog):
    runs, report = _run("[t]\nrw=randtrim\niodepth=4\nnumjobs=2\n", RAID10, catalog)
    job = report["jobs"][0]
    assert job["read"]["io_bytes"] == job["write"]["io_bytes"] == 0
    spec = nvsim.load_scenario(RAID10, catalog)
    cost = trim_cost(build(spec, runs[0].workload, catalog))
    closed_loop, cpus = 2 * 4 / cost.latency_s, 2 / cost.cpu_s
    assert len(report["jobs"]) == 2  # one entry per clone, as fio without group_reporting
    assert sum(j["trim"]["iops"] for j in report["jobs"]) == pytest.approx(min(closed_loop, cpus))
    assert job["trim"]["lat_ns"]["mean"] >= cost.latency_s * 1e9 * (1 - 1e-9)
    assert job["trim"]["io_bytes"] == job["trim"]["total_ios"] * 4096
    capped = _run("[t]\nrw=randtrim\niodepth=4\nrate_iops=,,1000\n", RAID10, catalog)[1]["jobs"][0]
    assert capped["trim"]["iops"] == pytest.approx(1000, rel=1e-3)


@pytest.mark.parametrize("scenario, phrase", [(MD_RAID6, "devices_handle_discard_safely"),
                                              (GPU_RAID6, "does not know whether")])
def test_arrays_that_do_not_pass_discards_refuse_trims_in_one_line(catalog, scenario, phrase):
    with pytest.raises(InputError) as info:
        _run("[t]\nrw=randtrim\n", scenario, catalog)
    message = str(info.value)
    assert message.startswith("job.fio line ") and ": rw: " in message and phrase in message and "\n" not in message


def test_trims_beside_writes_leave_free_space_that_lowers_the_writes_waf(catalog):
    alone, _ = _run("[w]\nrw=randwrite\niodepth=32\nnumjobs=16\n", RAID10, catalog)
    together, _ = _run("[w]\nrw=randwrite\niodepth=32\nnumjobs=16\n[t]\nrw=randtrim\niodepth=32\nnumjobs=16\n", RAID10, catalog)
    writer = together[0]
    assert [r.job.name for r in together] == ["w", "t"]
    share = writer.workload.deallocated_fraction
    trimmed = together[1].trim[0] * 4096
    assert share == pytest.approx(deallocated_share(trimmed, alone[0].result.write_bytes_per_s))
    assert 0 < share < 1 and "holds no valid data" in writer.note
    assert writer.result.simulation.waf_nand < alone[0].result.simulation.waf_nand


def test_trimwrite_reports_one_trim_per_write(catalog):
    runs, report = _run("[tw]\nrw=randtrimwrite\niodepth=8\n", RAID10, catalog)
    job = report["jobs"][0]
    assert job["trim"]["total_ios"] == job["write"]["total_ios"] > 0


def test_a_qd1_trim_takes_the_drives_command_latency_and_the_host_path(catalog):
    text = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nruntime=30\ntime_based\n[t]\nrw=randtrim\niodepth=1\n"
    parsed = parse_fio_jobfile(text, "job.fio", catalog=catalog)
    spec = nvsim.load_scenario(RAID10, catalog)
    job = fio_report(parsed, simulate_jobs(parsed, spec, catalog, "fluid"), catalog, timestamp=0)["jobs"][0]["trim"]
    quoted_us = catalog.drives[spec.array.drive].write_latency_us.value
    mean_us = job["lat_ns"]["mean"] / 1000
    assert quoted_us + 1.0 <= mean_us <= quoted_us + 10.0  # the command plus a few microseconds of host path
    assert job["iops"] * mean_us * 1e-6 == pytest.approx(1.0, rel=1e-3)  # one in flight: X R = 1


def test_a_trim_jobs_iops_are_its_trims_wherever_its_metrics_go(catalog):
    """``Result.metrics`` (nvsim run's predictions, sweeps' rows, nvsim plan's IOPS): a randtrim job
    issues trims only, so its IOPS are its trims (until 2026-11-30 they were 0 everywhere but
    ``nvsim fio``, and a plan's min_iops could never be met)."""
    spec = nvsim.load_scenario(RAID10, catalog)
    job = parse_fio_jobfile("[t]\nrw=randtrim\nbs=64k\niodepth=8\nnumjobs=4\n", "job.fio", catalog=catalog).jobs[0]
    result = nvsim.Simulation(spec, job.workload, catalog=catalog).run("fluid")
    metrics = result.metrics()
    assert result.trim_iops and metrics["trim_iops"] == result.trim_iops
    assert metrics["total_iops"] == pytest.approx(result.read_iops + result.write_iops + result.trim_iops)
