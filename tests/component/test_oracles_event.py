"""The event mode against oracles that do not come from the model (issue 24, item 8).

Two kinds: the event mode's own machinery (the closed-loop host slots, reservation servers, the
warm-up cut) run on a hand-built system whose service times are chosen here, so throughput and
latency follow from queueing arithmetic (a closed loop of N customers on c deterministic servers
of service S: X = c/S, R = N S / c; Little's law X R = N); and whole arrays whose answer follows
from the datasheet (a QD1 read costs the drive's quoted read latency plus a few microseconds of
host path; a NAND-bound array delivers drives x the quoted random-read IOPS), with Little's law
holding over the measured window whatever the workload.
"""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from nvsim import Simulation, parse_scenario
from nvsim.sim.event.rows import Demand, JobQueue, MemberOps
from nvsim.sim.event.servers import Server, after
from nvsim.sim.event.slots import HostSlot, Run
from nvsim.sim.system import ArraySystem
from nvsim.sim.workload import HostStream

# ---------------------------------------------------------------- hand-built closed loops


class OneDriveServers:
    """The servers a host slot books, for one drive with a pool of ``units`` NAND units; nothing
    else costs time unless a test says so."""

    def __init__(self, units: int, read_fixed_s: float = 0.0):
        self.lock, self.engine, self.memory = Server(1), Server(1), Server(1)
        self.device_bw, self.device_down, self.device_up = Server(1), Server(1), Server(1)
        self.link_up, self.link_down = [Server(1)], [Server(1)]
        self.nand = [Server(units)]
        self.read_fixed_s, self.write_fixed_s, self.host_wake_s = read_fixed_s, 0.0, 0.0


def read_row(submit_s: float = 0.0, complete_s: float = 0.0) -> Demand:
    return Demand(submit_s, complete_s, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False, 0, 1, False, 0.0)


def closed_loop(slots: int, units: int, die_s: float, warm_s: float, end_s: float, *, read_fixed_s: float = 0.0,
                submit_s: float = 0.0, complete_s: float = 0.0, cores: int = 1) -> Run:
    """``slots`` host I/O slots (spread over ``cores`` job threads), each a 4 KiB read of ``die_s``
    on the pool, in a closed loop from time 0 to ``end_s``."""
    env = simpy.Environment()
    servers = OneDriveServers(units, read_fixed_s)
    run = Run(env, servers, warm_s)
    ops = MemberOps([0], [False], [1], [die_s], [0.0], [1])
    threads = [Server(1) for _ in range(cores)]
    for i in range(slots):
        queue = JobQueue(lambda: ([read_row(submit_s, complete_s)] * 64, ops))
        after(env, 0.0, HostSlot(run, queue, threads[i % cores]).issue)
    env.run(until=end_s)
    return run


def window_stats(run: Run, end_s: float) -> tuple[float, np.ndarray]:
    done = np.asarray(run.done_at)
    keep = done <= end_s
    return keep.sum() / (end_s - run.warm_s), np.asarray(run.latency)[keep]


@pytest.mark.parametrize("slots, units", [(1, 2), (8, 2), (12, 4), (3, 8)])
def test_closed_loop_on_deterministic_servers_obeys_queueing_arithmetic(slots, units):
    """N slots, c units of service S (100 us): X = min(N, c)/S and every measured latency is
    ceil(N/c) S once the loop is past its start; Little's law X R = N."""
    service_s, warm_s, end_s = 100e-6, 0.01, 0.11
    run = closed_loop(slots, units, service_s, warm_s, end_s)
    throughput, latency = window_stats(run, end_s)
    expected_x = min(slots, units) / service_s
    expected_r = -(-slots // units) * service_s
    assert throughput == pytest.approx(expected_x, rel=0.01)
    assert latency == pytest.approx(np.full(latency.size, expected_r), rel=1e-9)
    assert throughput * latency.mean() == pytest.approx(slots, rel=0.01)


def test_fixed_controller_latency_adds_to_every_read_without_using_a_unit():
    """Reads on an idle pool: latency = die time + the fixed latency (35 us + 10 us), and 4 slots
    on 4 units give 4 / 45 us, not 4 / 10 us."""
    run = closed_loop(4, 4, 10e-6, 0.001, 0.046, read_fixed_s=35e-6)
    throughput, latency = window_stats(run, 0.046)
    assert latency == pytest.approx(np.full(latency.size, 45e-6), rel=1e-9)
    assert throughput == pytest.approx(4 / 45e-6, rel=0.01)


def test_one_job_thread_caps_the_rate_at_its_cpu_time_per_io():
    """A job thread does the submission and completion of its slots one at a time: with 2 us +
    3 us of CPU per I/O and fast drives, 16 slots on one thread run at 1 / 5 us, on two at 2 / 5 us."""
    for cores in (1, 2):
        run = closed_loop(16, 64, 1e-6, 0.001, 0.021, submit_s=2e-6, complete_s=3e-6, cores=cores)
        throughput, latency = window_stats(run, 0.021)
        assert throughput == pytest.approx(cores / 5e-6, rel=0.02)
        assert throughput * latency.mean() == pytest.approx(16, rel=0.02)


def test_the_warm_up_is_discarded():
    """8 slots on 2 units start together: the first completions (100, 200, 300 us) are the
    transient; measured from 1 ms on, no sample is shorter than the steady 400 us, and the count is
    exactly the steady rate times the window."""
    run = closed_loop(8, 2, 100e-6, 0.001, 0.011)
    assert min(run.done_at) >= 0.001
    throughput, latency = window_stats(run, 0.011)
    assert latency.min() == pytest.approx(400e-6, rel=1e-9)
    assert len(run.done_at) == pytest.approx(2 / 100e-6 * 0.010, abs=2)
    assert run.completed > len(run.done_at)  # the warm-up's completions happened, they are not measured


# ---------------------------------------------------------------- whole arrays against the datasheet

DRIVE = "kioxia-cm7-r-3.84tb"


def array(catalog, drives: int, numjobs: int, iodepth: int, rw: str = "randread", **workload):
    return parse_scenario({
        "name": "oracle", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 0, "drive": DRIVE, "drives": drives, "strip_bytes": "64KiB", "engine": "ideal-raid"},
        "workloads": [{"name": "w", "rw": rw, "bs": "4k", "iodepth": iodepth, "numjobs": numjobs, **workload}],
        "seed": 1}, catalog)


def run_event(catalog, spec, seed=None, host_ios=20_000):
    return Simulation(spec, spec.workloads[0], catalog=catalog).run("event", seed=seed, host_ios=host_ios)


HOST_PATH_US = (1.0, 6.0)
"""A libaio 4 KiB read's host path (submission syscall, interrupt, completion) on a 2020s server:
a few microseconds; the drive's QD1 latency is its datasheet's."""


@pytest.mark.parametrize("rw, quoted", [("randread", "read_latency_us"), ("randwrite", "write_latency_us")])
def test_qd1_latency_is_the_datasheet_latency_plus_the_host_path(catalog, rw, quoted):
    """A 4 KiB read at QD1 takes the drive's quoted read latency (35 us) and a write its quoted
    write latency into the protected buffer (12 us), each plus the host path."""
    quoted_us = getattr(catalog.drives[DRIVE], quoted).value
    result = run_event(catalog, array(catalog, 2, 1, 1, rw))
    mean_us = (result.read_latency_us if rw == "randread" else result.write_latency_us)["mean"]
    assert quoted_us + HOST_PATH_US[0] <= mean_us <= quoted_us + HOST_PATH_US[1]
    assert result.total_iops * mean_us * 1e-6 == pytest.approx(1.0, rel=0.01)  # QD1: X R = 1


@pytest.mark.parametrize("numjobs, iodepth, rw", [(1, 4, "randread"), (4, 32, "randread"), (2, 8, "randrw"),
                                                  (2, 16, "randwrite")])
def test_littles_law_holds_over_the_measured_window(catalog, numjobs, iodepth, rw):
    """Slots in flight = each direction's rate x its mean latency (70/30 mix: reads and writes
    must not be swapped)."""
    result = run_event(catalog, array(catalog, 2, numjobs, iodepth, rw, **({"rwmixread": 70} if rw == "randrw" else {})))
    if rw == "randrw":
        assert result.read_iops / result.total_iops == pytest.approx(0.7, abs=0.02)
    reads, writes = result.read_iops, result.write_iops
    in_flight = reads * result.read_latency_us.get("mean", 0) * 1e-6 + writes * result.write_latency_us.get("mean", 0) * 1e-6
    assert in_flight == pytest.approx(numjobs * iodepth, rel=0.03)


def test_a_nand_bound_array_delivers_the_quoted_random_read_rate(catalog):
    """Enough jobs that the drives, not the host, bind: 2 drives x 2,700K quoted 4 KiB random-read
    IOPS, and the latency Little's law gives for the slots in flight."""
    quoted = catalog.drives[DRIVE].rand_read_iops.value
    spec = array(catalog, 2, 48, 128)
    result = run_event(catalog, spec)
    assert "NAND" in result.bottleneck
    assert result.total_iops == pytest.approx(2 * quoted, rel=0.05)
    assert result.read_latency_us["mean"] * 1e-6 == pytest.approx(48 * 128 / (2 * quoted), rel=0.06)


def test_the_measured_window_holds_the_requested_host_ios_and_no_start_transient(catalog):
    """A deep closed loop starts with empty queues (short latencies): discarded with the warm-up,
    so the measured count is what was asked for and the shortest measured latency is near the
    steady one, not a bare QD1 read."""
    result = run_event(catalog, array(catalog, 2, 48, 128), host_ios=20_000)
    samples = result.latency_samples_s["read"]
    assert 0.85 * 20_000 <= result.simulation.simulated_host_ios <= 1.15 * 20_000
    assert np.percentile(samples, 1) >= 0.5 * samples.mean()


# ---------------------------------------------------------------- seeding: every stream follows the seed


def test_same_seed_same_bits_and_another_seed_other_samples(catalog):
    spec = array(catalog, 2, 2, 8, "randrw")
    a, b, c = (run_event(catalog, spec, seed=s, host_ios=5_000) for s in (1, 1, 2))
    for ddir in ("read", "write"):
        assert np.array_equal(a.latency_samples_s[ddir], b.latency_samples_s[ddir])
    assert not np.array_equal(a.latency_samples_s["read"], c.latency_samples_s["read"])


@pytest.mark.parametrize("rw, stream", [("randread", "offsets"), ("randrw", "is_write")])
def test_each_host_stream_follows_the_seed(catalog, rw, stream):
    workload = array(catalog, 2, 1, 1, rw).workloads[0]
    draws = {seed: HostStream.for_job(workload, 0, 1 << 40, seed).next_batch(256) for seed in (1, 1, 2)}
    index = 0 if stream == "offsets" else 1
    again = HostStream.for_job(workload, 0, 1 << 40, 1).next_batch(256)
    assert np.array_equal(draws[1][index], again[index])
    assert not np.array_equal(draws[1][index], draws[2][index])
    later = HostStream.for_job(workload, 0, 1 << 40, 1)
    later.next_batch(256)
    assert not np.array_equal(later.next_batch(256)[index], again[index])  # each batch its own draw


def test_nand_service_times_follow_the_seed(catalog):
    """A sequential read's offsets do not depend on the seed; its NAND service times must."""
    from nvsim.sim.event.rows import HostJobs

    spec = array(catalog, 2, 1, 4, "read")
    system = ArraySystem(spec, spec.workloads[0], catalog)
    plans = {seed: HostJobs(system, seed, 256, barrier=False).plan(0)[1] for seed in (1, 2)}
    again = HostJobs(system, 1, 256, barrier=False).plan(0)[1]
    assert again.die_s == plans[1].die_s and again.drive == plans[2].drive
    assert plans[1].die_s != plans[2].die_s


def test_utilisation_law_at_qd1_the_host_path_is_cpu_time(catalog):
    """Utilisation law (U = X S) on the job's core: libaio has no wake-up (models/host_io/libaio.yaml),
    so at QD1 everything an I/O spends outside the drive's quoted latency is CPU on its core; the
    core's reported busy share over the rate must be that time."""
    quoted_us = catalog.drives[DRIVE].read_latency_us.value
    result = run_event(catalog, array(catalog, 2, 1, 1))
    cores = next(u for u in result.utilisation if u.resource.startswith("host cores"))
    cpu_per_io_us = cores.utilisation / result.total_iops * 1e6  # one job CPU
    assert cpu_per_io_us == pytest.approx(result.read_latency_us["mean"] - quoted_us, rel=0.03)


def test_an_event_run_whose_busiest_resource_is_idle_names_its_closed_loop():
    """One I/O in flight: nothing is saturated, so the run is limited by that I/O, as the fluid mode
    says (the event mode named the job's core at 8% busy)."""
    from nvsim.scenario import load_scenario
    from nvsim.simulation import Simulation

    scenario = load_scenario("scenarios/latency-tails")
    qd1 = next(w for w in scenario.workloads if w.numjobs * w.iodepth == 1)
    event = Simulation(scenario, qd1).run("event", host_ios=20_000)
    fluid = Simulation(scenario, qd1).run("fluid")
    assert event.limited_by == fluid.limited_by == "I/Os in flight (1 = 1 job x QD1)"
    assert max(u.utilisation for u in event.utilisation) < 0.9
