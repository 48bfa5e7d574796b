"""What the composite rows of nvsim.workload.compose share: how long fio runs a job (its runtime, or
the time its size, io_size and loops take) and the ladder of populations a job's closed loop is
solved at."""

import pytest

from nvsim.fio import parse_fio_jobfile
from nvsim.specs import WorkloadSpec
from nvsim.workload.compose import job_runtime_s, population_ladder


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
