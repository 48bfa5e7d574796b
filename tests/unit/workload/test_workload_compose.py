"""The composite rows of nvsim.workload.compose: the order in which they peel a workload, what
they share (how long fio runs a job; the ladder of populations a job's closed loop is solved at),
and the laws of the rows that pace a job."""

import pytest

from nvsim.fio import parse_fio_jobfile
from nvsim.specs import WorkloadSpec
import nvsim
from nvsim.specs import Phase
from nvsim.workload.compose import composite_route, job_runtime_s, population_ladder


def parse(text: str, **kwargs):
    return parse_fio_jobfile(text, "job.fio", **kwargs)


def test_job_runtime_is_the_runtime_or_the_time_size_takes():
    w = WorkloadSpec(name="a", rw="write", bs=1 << 20, numjobs=4, size=1 << 30)
    assert job_runtime_s(w, 4 * (1 << 30), device_bytes=1 << 40) == pytest.approx(1.0)  # 4 clones x 1 GiB at 4 GiB/s
    assert job_runtime_s(w.model_copy(update={"runtime": 0.25}), 4 * (1 << 30), 1 << 40) == 0.25  # runtime stops it first
    assert job_runtime_s(w.model_copy(update={"runtime": 60.0, "time_based": True}), 1.0, 1 << 40) == 60.0
    assert job_runtime_s(w.model_copy(update={"size": None}), 4 * (1 << 40), device_bytes=1 << 40) == pytest.approx(1.0)


def test_the_population_ladder_grows_one_job_or_one_depth_step_at_a_time():
    w = WorkloadSpec(name="a", rw="randread", numjobs=3, iodepth=4)
    ladder = population_ladder(w)
    assert ladder == [(1, 1), (2, 1), (3, 1), (3, 2), (3, 3), (3, 4)]
    populations = [j * d for j, d in ladder]
    assert populations == sorted(populations) and ladder[-1] == (w.numjobs, w.iodepth)


def test_io_size_and_loops_set_what_each_clone_moves():
    job = parse("[a]\nrw=write\nbs=16k\nnumjobs=2\nsize=1g\nio_limit=4g\nloops=2\n").jobs[0]
    assert (job.io_size_bytes, job.loops) == (4 << 30, 2)
    assert job_runtime_s(job.workload, 2 * (1 << 30), 1 << 40) == pytest.approx(8.0)
    once = job.workload.model_copy(update={"io_size": None, "loops": 1})
    assert job_runtime_s(once, 2 * (1 << 30), 1 << 40) == pytest.approx(1.0)  # size alone, once


def test_the_rows_peel_one_feature_at_a_time_in_the_tables_order():
    w = WorkloadSpec(name="a", rw="randtrimwrite", bssplit="4k/50:64k/50", rate_iops=100, thinktime="1ms", drive_state="fresh")
    peeled, order = frozenset(), []
    while (row := composite_route(w, peeled)) is not None:
        order.append(row)
        peeled |= {row}
    assert order == ["fresh", "trimwrite", "paced", "think", "mix"]
    assert composite_route(w.model_copy(update={"rate_process": "poisson"}), frozenset()) == "fresh"
    assert composite_route(w.model_copy(update={"rate_process": "poisson"}), frozenset({"fresh", "trimwrite"})) == "poisson"
    assert composite_route(Phase(name="p", jobs=(w,)), frozenset({"phase"})) == "phase"  # a Phase is always one
    assert composite_route(WorkloadSpec(name="b", rw="randread"), frozenset()) is None  # a closed loop: today's rows


@pytest.fixture(scope="module")
def graid():
    return nvsim.load_scenario("scenarios/graid-gen5-raid6")


def test_a_rate_cap_holds_a_job_to_it_and_only_below_its_loop(graid):
    loop = WorkloadSpec(name="a", rw="randread", bs=4096, numjobs=8, iodepth=8, ioengine="libaio")
    free = nvsim.Simulation(graid, loop).run("fluid").total_iops
    capped = nvsim.Simulation(graid, loop.model_copy(update={"rate_iops": free / 8 / 4})).run("fluid")
    assert capped.route == "paced" and capped.total_iops == pytest.approx(free / 4, rel=1e-12)
    assert capped.loop is not None and capped.loop.numjobs * capped.loop.iodepth < 64  # fewer I/Os in flight
    above = nvsim.Simulation(graid, loop.model_copy(update={"rate_iops": free})).run("fluid")
    assert above.total_iops == pytest.approx(free, rel=1e-12) and "not reached" in above.note


def test_a_capped_job_costs_the_cpu_of_the_ios_it_issues(graid):
    """fio's thread sleeps between the I/Os a rate cap spaces out: the CPU an I/O costs stays, so
    the job's CPU is its loop's at the job's rate (until 2026-11-30 a job capped at 100 IOPS
    reported the CPU of its loop's thousands)."""
    one = WorkloadSpec(name="a", rw="randread", bs=4096, numjobs=1, iodepth=1, ioengine="libaio")
    free = nvsim.Simulation(graid, one).run("fluid")
    capped = nvsim.Simulation(graid, one.model_copy(update={"rate_iops": free.total_iops / 70})).run("fluid")
    assert capped.scale == pytest.approx(1 / 70)
    assert capped.cpu_percent == pytest.approx(free.cpu_percent / 70, rel=1e-9)
    assert capped.metrics()["cpu_percent"] == capped.cpu_percent == capped.as_dict()["cpu_percent"]


def test_think_time_obeys_littles_law_and_a_cap_on_top_holds(graid):
    w = WorkloadSpec(name="t", rw="randread", bs=4096, numjobs=32, iodepth=1, thinktime="100us", ioengine="libaio")
    thinking = nvsim.Simulation(graid, w).run("fluid")
    assert thinking.route == "think"
    latency_s = thinking.loop.numjobs / thinking.unscaled.total_iops  # the loop's latency, Little's law
    assert thinking.total_iops == pytest.approx(w.numjobs / (latency_s + 100e-6), rel=1e-9)  # X (R + Z) = N
    cap = thinking.total_iops / w.numjobs / 2
    both = nvsim.Simulation(graid, w.model_copy(update={"rate_iops": cap})).run("fluid")
    assert both.route == "paced" and both.total_iops == pytest.approx(cap * w.numjobs, rel=1e-12)
    assert "thinktime" in both.note and "capped" in both.note
