"""The event mode with many jobs (issue 34's regression: 65,536 jobs at QD1 took 13 minutes and
1.1 GB): the Python work per planned batch and the kernel's state per slot do not grow with the
number of jobs or the platform's CPUs, and such a run still gives the SimPy slots' numbers."""

from dataclasses import fields

import numpy as np

import nvsim.sim.event.rows as rows_module
import nvsim.sim.system as system_module
from nvsim.catalog import default_catalog
from nvsim.scenario import load_scenario
from nvsim.sim.event import compiled, simulate_event
from nvsim.sim.event.rows import HostJobs
from nvsim.sim.event.servers import ArrayServers
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

SCENARIO = "scenarios/graid-gen5-raid6"  # 2 x EPYC 9654: 384 job CPUs


def _many_jobs(jobs: int) -> ArraySystem:
    workload = WorkloadSpec(name="many", rw="randread", bs=512, numjobs=jobs, iodepth=1)
    return ArraySystem(load_scenario(SCENARIO), workload, default_catalog())


def test_planned_rows_are_compacted_only_when_a_batch_does_not_fit(monkeypatch):
    """Each of 1,024 jobs plans its first batch; dropping the used rows scans every job, so it runs
    when the rows are full, not before every batch (which made a run quadratic in its jobs)."""
    calls = {"compact": 0, "batch": 0}
    compact, batch = compiled.Rows.compact, HostJobs.batch

    def counted_compact(self, slot_rows):
        calls["compact"] += 1
        return compact(self, slot_rows)

    def counted_batch(self, job):
        calls["batch"] += 1
        return batch(self, job)

    monkeypatch.setattr(compiled.Rows, "compact", counted_compact)
    monkeypatch.setattr(HostJobs, "batch", counted_batch)
    result = simulate_event(_many_jobs(1024), host_ios=2000)
    assert result.completed_host_ios > 0
    assert calls["batch"] >= 1024
    assert calls["compact"] <= 4, calls


def test_kernel_state_per_slot_does_not_grow_with_the_cpus():
    """The cores' waiting rings hold one place per slot in all (a slot waits for its core once at
    a time), not every slot per server group: the kernel's arrays per slot stay a few hundred
    bytes with 384 CPUs (they were 462 x 8 bytes more per slot)."""
    system = _many_jobs(2048)
    jobs = HostJobs(system, 1, 64, barrier=False)
    stepper = compiled.KernelStepper(system, jobs, ArrayServers(system, rebuilding=False), 1e-3, 2e-3, None, None,
                                     None)
    slots = system.workload.numjobs * system.workload.iodepth
    arrays = [a for part in (stepper.H, stepper.S, stepper.Q, stepper.SL, stepper.RB) for a in part]
    state_bytes = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
    assert state_bytes / slots < 512, state_bytes / slots
    wq, ring = stepper.Q[0], stepper.Q[4]
    assert wq.size == slots + sum(1 for size in np.bincount(stepper.SL[1], minlength=len(ring)) if size == 0)
    assert (ring[:, 1] >= 1).all() and (ring[1:, 0] == np.cumsum(ring[:-1, 1])).all()


def test_many_jobs_on_shared_cores_give_the_simpy_slots_numbers():
    """1,024 jobs on 384 CPUs: cores queue two or three jobs' slots in their rings, and every batch is
    each job's first; the compiled run is the SimPy slots' run, bit for bit."""
    system = _many_jobs(1024)
    simpy_run = simulate_event(system, host_ios=2000, compiled=False)
    kernel_run = simulate_event(system, host_ios=2000, compiled=True)
    assert kernel_run.completed_host_ios == simpy_run.completed_host_ios > 0
    for field in ("read_iops", "cpu_percent", "iops_ci95", "simulated_s", "read_latency_us", "utilisation"):
        assert getattr(kernel_run, field) == getattr(simpy_run, field), field


def _md_mix(jobs: int) -> ArraySystem:
    workload = WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=4096, numjobs=jobs, iodepth=2)
    return ArraySystem(load_scenario("scenarios/graid-gen5-raid6/md-raid6-4k.yaml"), workload, default_catalog())


def _same_result(a, b) -> None:
    for f in fields(a):
        if f.name == "wall_s":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "latency_samples_s":
            assert x.keys() == y.keys() and all(x[d].tobytes() == y[d].tobytes() for d in x), f.name
        else:
            assert x == y or (x != x and y != y), f.name  # NaN: the same NaN


def test_first_batches_are_priced_together_with_each_jobs_own_numbers(monkeypatch):
    """Every job plans its first batch at time 0; they are priced hundreds at a time
    (``rows.FIRST_BATCHES_TOGETHER``, ``ArraySystem.batches``), not one by one (about 1.5 ms of
    Python each: 65,536 jobs of depth 4 on md RAID6 took 2 min 49 s), and the run is the one whose
    batches were priced one by one, bit for bit (md's reads and writes, its bitmap updates)."""
    alone = {"calls": 0}
    priced = system_module.host_io_batch

    def counted(*args, **kwargs):
        alone["calls"] += 1
        return priced(*args, **kwargs)

    monkeypatch.setattr(system_module, "host_io_batch", counted)
    together = simulate_event(_md_mix(1024), host_ios=2000)
    assert together.completed_host_ios > 0
    assert alone["calls"] < 64, alone  # the first job's batch (it sets the write share), and jobs' second ones
    monkeypatch.setattr(rows_module, "FIRST_BATCHES_TOGETHER", 1)
    one_by_one = simulate_event(_md_mix(1024), host_ios=2000)
    assert alone["calls"] >= 1024
    _same_result(together, one_by_one)
