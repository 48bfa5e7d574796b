"""Jobs that fio runs at the same time (nvsim.workload.together) against laws worked by hand: a closed
loop with think time (X = N / (R + Z)), fio's flow (jobs ahead of their share wait for the slowest),
Little's law for each job's latency once the jobs share a queue, and each job's own CPUs held by
that job alone (issue 34: every mutant of the module survived the suite's earlier tests); one job
alone gets the fluid answer, jobs sharing a resource never load it past its servers, flow keeps the
ratio of its weights, and a job held back by its own CPUs imposes no wait on the others."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim import fabric
from nvsim.workload.together import JOB_CPUS_LABEL, Member, shared_results, shared_wait, shared_waits
from nvsim.sim.result import Utilisation


@dataclass(frozen=True)
class _Sim:
    """The fields of a SimResult that nvsim.workload.together reads and replaces."""

    utilisation: tuple
    read_iops: float
    total_iops: float
    latency_samples_s: dict = field(default_factory=dict)
    read_latency_us: dict = field(default_factory=dict)
    write_latency_us: dict = field(default_factory=dict)
    tail_ci95_us: dict = field(default_factory=dict)
    limited_by: str = "alone"


@dataclass(frozen=True)
class _Alone:
    simulation: _Sim
    total_iops: float


def member(iops: float, seconds_per_io: dict[str, float], unloaded_s: float, population: int, **kw) -> Member:
    """A job whose own run went at ``iops`` and took ``seconds_per_io[r]`` of resource r's servers per I/O."""
    util = tuple(Utilisation(k, v * iops) for k, v in seconds_per_io.items())
    samples = {"read": np.full(50, population / iops)}
    return Member(_Alone(_Sim(util, iops, iops, samples), iops), unloaded_s, population, **kw)


def test_think_time_slows_a_closed_loop_as_n_over_r_plus_z():
    # 4 I/Os in flight, 100 us unloaded, 900 us of think time: 4 / 1 ms = 4,000 IOPS (the drives are far from busy)
    job = member(4e4, {"drives": 1e-7}, 1e-4, 4, think_s=9e-4)
    wait, rates, _ = shared_wait([job])
    assert wait == 0.0 and rates[0] == pytest.approx(4000.0, rel=1e-12)


def test_a_flow_group_goes_at_the_pace_of_its_slowest_job():
    # fio's flow: a job ahead of its share waits. Alone, a (1 in flight, 100 us) can do 10K and b (8 in flight) 80K;
    # with weights 1:2 the group goes at a's pace: a 10K, b 20K (never b at 80K and a pushed to 40K it cannot do)
    a = member(1e4, {"drives": 1e-8}, 1e-4, 1, flow_weight=1.0)
    b = member(8e4, {"drives": 1e-8}, 1e-4, 8, flow_weight=2.0)
    _, rates, _ = shared_wait([a, b])
    assert rates[0] == pytest.approx(1e4, rel=1e-12) and rates[1] == pytest.approx(2e4, rel=1e-12)


def test_jobs_sharing_a_saturated_queue_obey_littles_law_each():
    # two jobs on one drive server: a needs 10 us, b 20 us of it per I/O; 16 and 8 in flight, 50 us unloaded each.
    # Alone a would go 16 / 50 us = 320K (capped at 100K by the drive); together they wait W at the drive with
    # 16 / (50 us + W) * 10 us + 8 / (50 us + W) * 20 us = 1  ->  50 us + W = 320 us, W = 270 us
    a = member(1e5, {"drives": 1e-5}, 5e-5, 16)
    b = member(5e4, {"drives": 2e-5}, 5e-5, 8)
    results, solved = shared_results([a, b])
    assert solved.busiest == "drives" and solved.job_waits_s == pytest.approx([2.7e-4, 2.7e-4], rel=1e-9)
    for (result, scale), m in zip(results, (a, b)):
        rate = scale * m.alone.total_iops
        assert rate == pytest.approx(m.population / 3.2e-4, rel=1e-9)
        # Little's law: the mean latency is the population over the rate, the shared wait included
        assert result.simulation.read_latency_us["mean"] == pytest.approx(1e6 * m.population / rate, rel=1e-9)
        assert "shared with the jobs" in result.simulation.limited_by


def test_each_jobs_own_cpus_are_its_own_even_under_the_same_label():
    # two jobs each 80% busy on their own one job CPU (the same label "host cores (1 job CPUs)"): fio gives each
    # job its own thread, so together each still runs as it did alone and no queue forms
    label = f"{JOB_CPUS_LABEL}1 job CPUs)"
    a = member(8e4, {label: 1e-5, "drives": 1e-7}, 1e-5, 1)  # alone: min(1 / 10 us, 1 / 10 us x 0.8) -> 80K loop
    b = member(8e4, {label: 1e-5, "drives": 1e-7}, 1e-5, 1)
    wait, rates, _ = shared_wait([a, b])
    assert not wait.any()
    assert rates == pytest.approx([1e5, 1e5], rel=1e-12)  # each its own loop's 1 / 10 us, its CPU never shared
    # a job held back by its own CPU (cap: 1 / 20 us = 50K) goes no faster together, whatever its loop allows
    c = member(5e4, {label: 2e-5, "drives": 1e-7}, 1e-6, 64)
    _, rates, _ = shared_wait([c, a])
    assert rates[0] == pytest.approx(5e4, rel=1e-12)


def _member(iops, demands, unloaded_s, population, **kw):
    sim = SimpleNamespace(utilisation=[Utilisation(k, v * iops) for k, v in demands.items()])
    return Member(SimpleNamespace(simulation=sim, total_iops=iops), unloaded_s, population, **kw)


def test_one_job_alone_gets_the_fluid_answer():
    m = _member(1e5, {"drives": 1e-5}, 1e-4, 64)  # cap 100K, loop 640K
    wait, rates, label = shared_wait([m])
    assert rates[0] == pytest.approx(1e5, rel=1e-9) and label == "drives" and wait[0] > 0
    m = _member(1e5, {"drives": 1e-6}, 1e-4, 4)  # loop 40K under the 1M cap: no wait
    assert shared_wait([m])[0][0] == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1e-7, 1e-4), st.floats(1e-6, 1e-3), st.integers(1, 256)), min_size=2, max_size=5))
def test_jobs_sharing_a_resource_never_load_it_past_its_servers(jobs):
    members = [_member(1.0 / d, {"drives": d}, r0, n) for d, r0, n in jobs]
    wait, rates, _ = shared_wait(members)
    load = sum(x * d for x, (d, _, _) in zip(rates, jobs))
    assert load <= 1.0 + 1e-6
    alone = [min(n / r0, 1 / d) for d, r0, n in jobs]
    assert all(x <= a * (1 + 1e-9) for x, a in zip(rates, alone))  # sharing never speeds a job up
    if wait.any():
        assert load == pytest.approx(1.0, rel=1e-6)


def test_flow_keeps_the_ratio_of_weights():
    a = _member(1e5, {"drives": 1e-6}, 1e-4, 8, flow_weight=1)
    b = _member(1e5, {"drives": 1e-6}, 1e-4, 8, flow_weight=8)
    _, rates, _ = shared_wait([a, b])
    assert rates[1] / rates[0] == pytest.approx(8.0)


def test_a_jobs_own_cpus_cap_only_that_job():
    """fabric's cores kind is each job's own CPUs: a job held back by them imposes no wait on the others."""
    assert fabric.KINDS[0].key == "cores" and fabric.KINDS[0].label(SimpleNamespace(job_cpus=3), "").startswith(JOB_CPUS_LABEL)
    cpu_bound = _member(1e4, {"host cores (1 job CPUs)": 1e-4, "drives": 1e-7}, 1e-5, 64)
    reader = _member(1e5, {"host cores (8 job CPUs)": 1e-6, "drives": 1e-6}, 1e-4, 8)
    wait, rates, _ = shared_wait([cpu_bound, reader])
    assert not wait.any() and rates[0] == pytest.approx(1e4) and rates[1] == pytest.approx(8 / 1e-4)


def test_a_job_that_never_passes_through_the_saturated_resource_does_not_wait_there():
    # md RAID5: chunk-aligned reads bypass raid5d, which the writes saturate (1 / 100 us = 10K writes/s); the
    # drives stay far from saturated, so the reader runs as it would alone, 32 / 100 us = 320K
    reader = member(3.2e5, {"drives": 1e-7}, 1e-4, 32)
    writer = member(1e4, {"md stripe thread (raid5d)": 1e-4, "drives": 4e-7}, 2e-4, 64)
    solved = shared_waits([reader, writer])
    assert solved.job_waits_s[0] == 0.0 and solved.job_resources[0] is None
    assert solved.rates[0] == pytest.approx(32 / 1e-4, rel=1e-12)
    assert solved.rates[1] == pytest.approx(1e4, rel=1e-9) and solved.job_resources[1] == "md stripe thread (raid5d)"
    results, _ = shared_results([reader, writer])
    assert results[0][1] == pytest.approx(1.0, rel=1e-12)  # the reader's rate over its own run's


def test_two_resources_each_saturated_by_its_own_job_hold_each_to_its_own_servers():
    # a saturates r1 alone, b saturates r2 alone: each keeps its own cap; one common wait would slow both
    a = _member(1e5, {"r1": 1e-5}, 1e-5, 64)
    b = _member(5e4, {"r2": 2e-5}, 1e-5, 64)
    solved = shared_waits([a, b])
    assert solved.rates == pytest.approx([1e5, 5e4], rel=1e-9)
    assert set(solved.resource_waits_s) == {"r1", "r2"} and all(w > 0 for w in solved.resource_waits_s.values())


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(st.sampled_from(["r1", "r2", "r3"]), st.floats(1e-7, 1e-4), min_size=1),
                          st.floats(1e-6, 1e-3), st.integers(1, 256)), min_size=2, max_size=5))
def test_waits_are_complementary_to_the_loads(jobs):
    """Each resource carries at most its servers' time; one that makes its users wait carries all of
    it; a job waits only at resources it passes through, so one that meets no saturated resource
    runs at its own closed loop's rate, and sharing never speeds a job up."""
    members = [_member(1.0 / max(d.values()), d, r0, n) for d, r0, n in jobs]
    solved = shared_waits(members)
    for name, wait in solved.resource_waits_s.items():
        load = sum(x * d.get(name, 0.0) for x, (d, _, _) in zip(solved.rates, jobs))
        assert load <= 1.0 + 1e-6
        if wait > 0:
            assert load == pytest.approx(1.0, rel=1e-6)
    for x, (d, r0, n), wait in zip(solved.rates, jobs, solved.job_waits_s):
        alone = min(n / r0, 1.0 / max(d.values()))
        assert x <= alone * (1 + 1e-9)
        touched = sum(solved.resource_waits_s[name] for name in d)
        assert wait == pytest.approx(touched, rel=1e-12, abs=0.0)
        if touched == 0:
            assert x == pytest.approx(n / r0, rel=1e-12)
