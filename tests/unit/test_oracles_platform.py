"""The SMT model against worked examples and its other implementation (issue 24, item 8): a core
running two threads does ``smt_gain`` of one thread's work, so each sibling beyond the cores adds
``smt_gain - 1`` of a core (the OLTP load's ``smt_capacity``), and the per-CPU speeds the event
mode and the fluid mode give jobs (``job_cpu_speeds``) must add up to the same capacity."""

import pytest

from nvsim.platform import job_cpu_speeds, smt_capacity


@pytest.mark.parametrize("busy, expected", [
    (50, 50.0),             # fewer threads than cores: one core each
    (96, 96.0),
    (100, 96 + 4 * 0.3),    # four siblings busy: 0.3 of a core each
    (192, 96 + 96 * 0.3),   # every sibling busy: 124.8 cores' worth
    (500, 96 + 96 * 0.3),   # no more threads than the CPUs have
])
def test_smt_capacity_of_a_96_core_socket_pair(busy, expected):
    assert smt_capacity(busy, 96, 2, 1.3) == pytest.approx(expected)


@pytest.mark.parametrize("jobs", [1, 8, 95, 96, 97, 150, 192, 300])
def test_job_speeds_add_up_to_the_smt_capacity(jobs):
    speeds, job_cpu = job_cpu_speeds(jobs, 96, 192, 2, 1.3)
    assert speeds.sum() == pytest.approx(smt_capacity(jobs, 96, 2, 1.3))
    assert job_cpu.max() < 192 and len(job_cpu) == jobs
