"""fio's trim jobs as NVMe deallocations (nvsim.workload.trim), random_distribution and drive_state on
jobs that write (the FTL load reaches the drive's write cost), through nvsim fio's run."""

from pathlib import Path

import pytest

import nvsim
from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.run import fio_report, simulate_jobs
from nvsim.workload.fresh import blended_scale
from nvsim.workload.trim import deallocated_share, trim_cost
from nvsim.sim.model import build

ROOT = Path(__file__).resolve().parents[2]
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"
MD_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid6-4k.yaml"
GPU_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6"
HEAD = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nruntime=30\ntime_based\n"


def _run(text, scenario, catalog):
    parsed = parse_fio_jobfile(HEAD + text, "job.fio", catalog=catalog)
    spec = nvsim.load_scenario(scenario, catalog)
    runs = simulate_jobs(parsed, spec, catalog, "fluid")
    return runs, fio_report(parsed, runs, catalog, timestamp=0)


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


def test_skew_and_fresh_drives_reach_the_writes_waf(catalog):
    base = "[w]\nrw=randwrite\niodepth=32\nnumjobs=16\n"
    waf = {extra: _run(base + extra, RAID10, catalog)[0][0].result.simulation.waf_nand
           for extra in ("", "random_distribution=zipf:1.2\n", "random_distribution=zoned:50/5:30/15:20/80\n",
                         "drive_state=fresh\n", "random_distribution=zipf:1.2\ndrive_state=steady\n")}
    uniform = waf[""]
    assert waf["random_distribution=zipf:1.2\n"] > waf["random_distribution=zoned:50/5:30/15:20/80\n"] > uniform
    assert waf["drive_state=fresh\n"] < uniform
    assert waf["random_distribution=zipf:1.2\ndrive_state=steady\n"] == waf["random_distribution=zipf:1.2\n"]


def test_read_only_skew_and_default_state_keep_todays_numbers(catalog):
    plain = _run("[r]\nrw=randread\niodepth=32\n", RAID10, catalog)[0][0].result
    skewed = _run("[r]\nrw=randread\niodepth=32\nrandom_distribution=zipf:1.2\n", RAID10, catalog)[0][0].result
    assert skewed.workload == plain.workload and skewed.read_iops == plain.read_iops
    steady = _run("[w]\nrw=randwrite\ndrive_state=steady\n", RAID10, catalog)[0][0].result
    default = _run("[w]\nrw=randwrite\n", RAID10, catalog)[0][0].result
    assert steady.write_iops == default.write_iops and steady.simulation.waf_nand == default.simulation.waf_nand


def test_blended_scale_is_the_time_weighted_rate():
    assert blended_scale(100.0, 150.0, 10.0, 5.0) == 1.0  # the run ends before the free blocks are used
    assert blended_scale(100.0, 40.0, 10.0, 5.0) == pytest.approx((40 + 60 * 0.5) / 100)
    assert blended_scale(100.0, 0.0, 10.0, 5.0) == pytest.approx(0.5)


def test_fresh_drives_turn_steady_when_a_long_run_has_written_their_free_blocks(catalog):
    """GPU RAID 6, zipf writes: fresh drives are GPU-bound at WAF 1, steady ones NAND-bound; a run of
    two hours writes the drives' raw NAND after ~1.6 h, so its rate lies between the two."""
    body = "[w]\nrw=randwrite\niodepth=16\nnumjobs=192\nrandom_distribution=zipf:1.2\ngroup_reporting\n"
    rate = {}
    for state, runtime in (("fresh", 60), ("fresh", 7200), ("steady", 7200)):
        runs, _ = _run(body.replace("[w]", f"[w]\ndrive_state={state}\nruntime={runtime}"), GPU_RAID6, catalog)
        rate[state, runtime] = runs[0].result.write_iops * runs[0].scale
        if (state, runtime) == ("fresh", 7200):
            assert "free blocks are written after" in runs[0].note
    assert rate["steady", 7200] < rate["fresh", 7200] < rate["fresh", 60]
