"""Random writes on drives a sequential fill left (drive_state=filled, nvsim.workload.filled):
the job's time is its bytes at the WAF-1 cost plus the transient's mean excess of the steady cost,
solved for the runtime (or taken from the size); through nvsim fio, on one drive and in a phase."""

from pathlib import Path

import pytest

from conftest import run_fio
from nvsim.ftl.transient import mean_excess, spare_drive_writes
from nvsim.workload.filled import filled_run

ROOT = Path(__file__).resolve().parents[3]
ONE_DRIVE = ROOT / "scenarios" / "drive-reviews" / "micron-9550-max-12.8tb.yaml"
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"
GPU_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6"
SPARE = 0.27
C = 1e12  # logical bytes each drive's writes reach


def test_a_run_inside_the_spare_moves_at_the_waf_1_rate():
    run = filled_run(10e9, 5e9, 1.0, C, SPARE, runtime_s=10.0, job_bytes=None)
    assert run.factor == pytest.approx(1.0, rel=1e-9)
    assert run.drive_writes == pytest.approx(10e9 * 10 / C, rel=1e-9)
    assert run.spare_s == pytest.approx(spare_drive_writes(SPARE) * C / 10e9)
    assert run.excess == 0.0


def test_the_time_is_the_bytes_at_each_cost_and_a_long_run_tends_to_the_steady_rate():
    run = filled_run(10e9, 5e9, 1.0, C, SPARE, runtime_s=400.0, job_bytes=None)
    j = run.factor * 10e9 * run.runtime_s
    phi = mean_excess(j / C, SPARE)
    assert run.runtime_s == pytest.approx(400.0, rel=1e-9)
    assert j / 10e9 + (1 / 5e9 - 1 / 10e9) * j * phi == pytest.approx(400.0, rel=1e-9)
    assert 0.5 < run.factor < 1.0
    far = filled_run(10e9, 5e9, 1.0, C, SPARE, runtime_s=1e6, job_bytes=None)
    assert far.factor == pytest.approx(0.5, rel=0.01)


def test_a_sized_job_writes_its_size_and_a_runtime_cuts_it():
    sized = filled_run(10e9, 5e9, 2.0, C, SPARE, runtime_s=None, job_bytes=C)
    assert sized.drive_writes == pytest.approx(2.0)
    cut = filled_run(10e9, 5e9, 2.0, C, SPARE, runtime_s=sized.runtime_s / 2, job_bytes=C)
    assert cut.runtime_s == pytest.approx(sized.runtime_s / 2, rel=1e-9) and cut.drive_writes < 2.0
    assert filled_run(10e9, 5e9, 0.0, C, SPARE, runtime_s=60.0, job_bytes=None).factor == 1.0  # no writes


def _fio(text, scenario, catalog):
    runs, _ = run_fio("[global]\nioengine=libaio\ndirect=1\ntime_based\n" + text, scenario, catalog)
    return runs[0]


def test_one_drive_runs_at_waf_1_then_towards_steady_state(catalog):
    body = "[w]\nrw=randwrite\nbs=64k\niodepth=32\nnumjobs=8\ngroup_reporting\n"
    rate, waf = {}, {}
    for state, runtime in (("fresh", 60), ("filled", 60), ("filled", 3600), ("filled", 36000), ("steady", 60)):
        run = _fio(body + f"drive_state={state}\nruntime={runtime}\n", ONE_DRIVE, catalog)
        rate[state, runtime] = run.result.write_bytes_per_s * run.scale
        waf[state, runtime] = run.result.drive.waf_nand
        if state == "filled":
            assert "drive_state=filled" in run.note
    assert rate["filled", 60] == pytest.approx(rate["fresh", 60], rel=1e-9)  # 60 s is inside its spare
    assert rate["fresh", 60] > rate["filled", 3600] > rate["filled", 36000] > rate["steady", 60]
    assert rate["filled", 36000] == pytest.approx(rate["steady", 60], rel=0.05)
    assert waf["filled", 60] == 1.0 < waf["filled", 3600] < waf["steady", 60]


def test_filled_drives_change_nothing_for_reads_or_sequential_writes(catalog):
    for rw in ("randread", "write"):
        body = f"[w]\nrw={rw}\nbs=128k\niodepth=16\nruntime=600\n"
        filled = _fio(body + "drive_state=filled\n", RAID10, catalog)
        steady = _fio(body, RAID10, catalog)
        assert filled.result.total_iops * filled.scale == steady.result.total_iops * steady.scale


def test_a_phase_job_on_filled_drives_is_its_shared_run_through_the_transient(catalog):
    """GPU RAID 6 (NAND-bound in steady state): the writer beside a reader runs at WAF 1 for a
    minute, and well below it over days; an md RAID10 writer (bound by md, not the NAND) does not move."""
    body = ("[w]\nrw=randwrite\nbs=4k\niodepth=16\nnumjobs=192\nrandom_distribution=zipf:1.2\nruntime={t}\ndrive_state=filled\n"
            "[r]\nrw=randread\nbs=4k\niodepth=16\nnumjobs=8\nruntime={t}\n")

    def writes(scenario, runtime):
        runs, _ = run_fio("[global]\nioengine=libaio\ndirect=1\ntime_based\n" + body.format(t=runtime), scenario, catalog)
        assert "drive_state=filled" in runs[0].note
        return runs[0].result.write_iops * runs[0].scale

    assert writes(GPU_RAID6, 200000) < 0.9 * writes(GPU_RAID6, 60)
    assert writes(RAID10, 200000) == pytest.approx(writes(RAID10, 60), rel=1e-9)
