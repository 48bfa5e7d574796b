"""The event mode's parts (nvsim/sim/event/) one by one: reservation servers, delayed callbacks,
the array's servers by resource key, demand rows, the warm-up discard, batch-means CI, latency."""

from __future__ import annotations

import math

import numpy as np
import pytest
import simpy

from nvsim.scenario import parse_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.event.measure import T_95, busy_over_window, ci95_half_width, latency_summary
from nvsim.sim.event.rows import Demand, demand_rows
from nvsim.sim.event.servers import PER_DRIVE_KEYS, ArrayServers, Server, after
from nvsim.sim.event.window import measured_window
from nvsim.sim.fluid import sample_batches
from nvsim.sim.result import PERCENTILES
from nvsim.sim.system import ArraySystem


def small_system(catalog, rw="randread", level=6, jobs=2, iodepth=4):
    spec = parse_scenario({
        "name": "small", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": 6, "strip_bytes": "64KiB",
                  "engine": "linux-md"},
        "workloads": [{"name": "w", "rw": rw, "bs": "4k", "iodepth": iodepth, "numjobs": jobs}],
    }, catalog)
    return ArraySystem(spec, spec.workloads[0], catalog)


# -- servers ----------------------------------------------------------------------------------------
def test_a_single_server_is_fifo_by_reservation():
    """start = max(arrival, free), finish = start + service; idle gaps are not busy time."""
    s = Server(1)
    finishes = [s.book(arrival, service) for arrival, service in ((0.0, 2.0), (1.0, 1.0), (1.5, 1.0), (5.0, 0.5))]
    assert finishes == [2.0, 3.0, 4.0, 5.5]
    assert s.busy == 4.5 and s.free == 5.5


def test_several_servers_take_the_earliest_free_one():
    s = Server(2)
    finishes = [s.book(arrival, service) for arrival, service in ((0.0, 3.0), (0.0, 2.0), (0.0, 2.0), (1.0, 1.0))]
    # two start at once; the third waits for the one free at 2, the fourth for the one free at 3
    assert finishes == [3.0, 2.0, 4.0, 4.0]
    assert s.busy == 8.0
    assert sorted(s.heap) == [4.0, 4.0]


def test_after_calls_back_at_the_simulated_time_in_fifo_order_for_equal_times():
    env = simpy.Environment()
    seen = []
    for name, delay in (("a", 2.0), ("b", 1.0), ("c", 2.0), ("d", 0.0), ("e", 1.0)):
        after(env, delay, lambda _event, name=name: seen.append((name, env.now)))
    env.run()
    assert seen == [("d", 0.0), ("b", 1.0), ("e", 1.0), ("a", 2.0), ("c", 2.0)]


def test_a_busy_server_hands_itself_to_its_waiters_in_order_once_free():
    env = simpy.Environment()
    core = Server(1)
    core.book(0.0, 3.0)
    granted = []
    for name in ("first", "second"):
        waiter = env.event()
        waiter.callbacks.append(lambda _event, name=name: (granted.append((name, env.now)), core.book(env.now, 1.0),
                                                           core.wake(env)))
        core.waiters.append(waiter)
    core.wake(env)
    core.wake(env)  # one wake-up pending at a time
    env.run()
    assert granted == [("first", 3.0), ("second", 4.0)]


def test_the_array_servers_are_built_and_measured_by_resource_key(catalog):
    system = small_system(catalog)
    servers = ArrayServers(system, rebuilding=True)
    assert {key for key, _label, _n in system.resources()} <= set(servers.by_key)
    assert len(servers.cores) == len(system.cpu_speed)
    assert all(len(servers.by_key[k]) == system.array.drives for k in PER_DRIVE_KEYS)
    assert servers.nand[0].heap is not None and len(servers.nand[0].heap) == system.drive.units
    servers.cores[0].busy, servers.nand[2].busy, servers.lock.busy = 1.0, 2.0, 0.5
    at_warm = servers.busy_s()
    servers.cores[0].busy += 1.0
    servers.cores[-1].busy += 2.0
    servers.nand[1].busy += 1.5
    servers.nand[2].busy += 1.0
    servers.link_up[3].busy += 0.25
    servers.rebuild_thread.busy += 4.0
    busy = busy_over_window(servers, at_warm)
    assert busy["cores"] == 3.0  # cores: summed
    assert busy["nand"] == 1.5 and busy["link_up"] == 0.25 and busy["link_down"] == 0.0  # drives: the busiest
    assert busy["lock"] == 0.0 and busy["rebuild_thread"] == 4.0
    assert busy_over_window(servers, {})["nand"] == 3.0  # no snapshot (window never reached): from zero


def test_member_phase_books_the_phase_asked_for_and_returns_the_last_finish(catalog):
    system = small_system(catalog)
    servers = ArrayServers(system)
    # two reads (phase 0) on drives 0 and 1, a write (phase 1) on drive 2
    ops = ([0, 1, 2], [False, False, True], [0, 0, 1], [10e-6, 20e-6, 30e-6], [1e-6, 1e-6, 2e-6], [1, 1, 1])
    finish = servers.member_phase(ops, 0, 3, 0, 0.0)
    assert finish == pytest.approx(1e-6 + 20e-6 + system.drive.read_fixed_s)
    assert servers.link_down[2].busy == 0.0 and servers.nand[1].busy == 20e-6
    finish = servers.member_phase(ops, 0, 3, 1, 0.0)
    assert servers.link_down[2].busy == 2e-6
    assert finish == pytest.approx(max(2e-6 + system.drive.write_fixed_s, 2e-6))


def test_a_member_io_over_several_ius_runs_on_as_many_units_at_once(catalog):
    """A read spread over 4 units of an idle pool is done a quarter of its unit time after its
    link transfer; the pool is as busy as with one unit (its load is unchanged); a second read
    spread over every unit of a busy pool waits for them."""
    system = small_system(catalog)
    servers = ArrayServers(system)
    units = system.drive.units
    assert units >= 4
    ops = ([0, 0], [False, False], [1, 1], [40e-6, 40e-6 * units], [1e-6, 1e-6], [4, units])
    finish = servers.member_phase(ops, 0, 1, 1, 0.0)
    assert finish == pytest.approx(1e-6 + 10e-6 + system.drive.read_fixed_s)
    assert servers.nand[0].busy == pytest.approx(40e-6)
    finish = servers.member_phase(ops, 1, 2, 1, 0.0)  # 4 of its 40 us pieces wait for the 4 busy units
    assert finish == pytest.approx(1e-6 + 10e-6 + 40e-6 + system.drive.read_fixed_s)
    assert servers.nand[0].busy == pytest.approx(40e-6 * (1 + units))


# -- rows ---------------------------------------------------------------------------------------------
def test_demand_rows_name_the_batch_columns(catalog):
    system = small_system(catalog, rw="randwrite")
    b = sample_batches(system, 1)[0]
    rows = demand_rows(b)
    assert len(rows) == len(b) and all(type(r) is Demand for r in rows)
    gated = b.reads_gate_writes()
    for i in (0, len(b) // 2, len(b) - 1):
        r = rows[i]
        assert (r.submit_s, r.complete_s, r.lock_s, r.mid_s, r.memory_s) == \
            (b.submit_s[i], b.complete_s[i], b.lock_s[i], b.mid_s[i], b.memory_s[i])
        assert (r.op_lo, r.op_hi, r.is_write, r.gated, r.pieces) == \
            (b.op_start[i], b.op_start[i + 1], b.is_write[i], gated[i], 0.0)
    assert [r.pieces for r in demand_rows(b, [3.0] * len(b))][:2] == [3.0, 3.0]


# -- window and measurement ------------------------------------------------------------------------
def test_completions_before_the_warm_up_end_are_not_counted(catalog):
    system = small_system(catalog)
    window = measured_window(system, system.scenario.seed, host_ios=400, warmup_ios=300)
    assert 0.0 < window.warm_s < window.end_s
    r = simulate_event(system, host_ios=400, warmup_ios=300)
    assert r.simulated_s == window.end_s - window.warm_s
    assert r.simulated_host_ios <= r.completed_host_ios
    assert r.completed_host_ios - r.simulated_host_ios >= 100  # the warm-up's I/Os, run but discarded
    longer = simulate_event(system, host_ios=400, warmup_ios=3000)
    assert longer.completed_host_ios - r.completed_host_ios > 1000
    assert longer.simulated_host_ios == pytest.approx(r.simulated_host_ios, rel=0.2)


def test_batch_means_ci_on_a_known_sequence():
    # window [0, 10) in 5 batches of 2 s with 2, 4, 2, 4, 3 completions: rates 1, 2, 1, 2, 1.5 per s
    counts = (2, 4, 2, 4, 3)
    done = np.concatenate([2.0 * k + np.linspace(0.1, 1.9, n) for k, n in enumerate(counts)])
    # mean 1.5, squared deviations 0.25 x 4 over 4 degrees of freedom: s = 0.5
    assert ci95_half_width(done, 0.0, 10.0, 5) == pytest.approx(T_95[5] * 0.5 / math.sqrt(5))
    assert ci95_half_width(done, 0.0, 10.0, 1) == 0.0
    assert ci95_half_width(np.linspace(0.5, 6.5, 7), 0.0, 7.0, 7) == 0.0  # one per batch: no spread
    done7 = np.array([0.5, 1.5, 1.6, 2.5, 3.5, 3.6, 4.5])  # 7 batches of 1 s: 1, 2, 1, 2, 1, 0, 0
    rates = np.array([1, 2, 1, 2, 1, 0, 0], dtype=float)
    assert ci95_half_width(done7, 0.0, 7.0, 7) == pytest.approx(1.96 * rates.std(ddof=1) / math.sqrt(7))


def test_latency_summary_in_microseconds():
    assert latency_summary(np.array([])) == {}
    out = latency_summary(np.arange(1, 101) * 1e-6)
    assert out["mean"] == pytest.approx(50.5)
    assert out[f"p{PERCENTILES[0]:g}"] == pytest.approx(np.percentile(np.arange(1, 101), PERCENTILES[0]))
    assert len(out) == 1 + len(PERCENTILES)


def lock_heavy_md10(catalog) -> ArraySystem:
    """md RAID10 of 24 CM7-R on kernel 5.15 (resync_lock on every request), 16 jobs of a 4 KiB
    70/30 mix: the job cores and md's lock bind; raid10d only sleeps on write-intent bitmap updates."""
    spec = parse_scenario({
        "name": "lock", "platform": "asus-rs520a-e12-rs24u",
        "array": {"level": 10, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": "512KiB",
                  "engine_settings": {"kernel": "5.15"}},
        "workloads": [{"name": "w", "rw": "randrw", "rwmixread": 70, "bs": "4k", "iodepth": 8, "numjobs": 16}],
        "seed": 1,
    }, catalog)
    return ArraySystem(spec, spec.workloads[0], catalog)


def test_the_job_cpus_are_busy_at_most_all_the_time(catalog):
    """A job's CPU is busy at most the whole window: a submission spinning at md's lock is counted
    busy while its core's other bookings run (``HostSlot.locked``), as the fluid mode caps its busy
    job CPUs at their count. md RAID10 of 24 drives on kernel 5.15 (resync_lock on every request,
    the lock 81% busy), 16 jobs of a 4 KiB 70/30 mix: the event mode's CPU% read 27.1% on 64
    logical CPUs, 17.3 busy job CPUs of 16 (the fluid mode 25.0%)."""
    system = lock_heavy_md10(catalog)
    result = simulate_event(system, host_ios=20_000)
    util = {u.resource: u.utilisation for u in result.utilisation}
    assert util["md spinlock (device_lock / resync_lock)"] > 0.7  # the submitters spin
    engine = util["md RAID10 thread (raid10d)"] * system.engine_servers if system.engine_on_host_cpu else 0.0
    assert result.cpu_percent <= 100 * (16 + engine) / system.logical_cpus + 1e-9


def test_the_engine_thread_asleep_on_bitmap_updates_is_not_cpu_time(catalog):
    """md's thread sleeps while a write-intent bitmap update is written (the event mode books each
    on it, ``HostJobs.with_sync_updates``): busy, not CPU time, as the fluid mode counts it. In the
    lock-heavy RAID10 raid10d does nothing else: 10% busy, and CPU% is the 16 job CPUs' alone (it
    read 25.16% on 64 CPUs, the fluid mode 25.00%)."""
    system = lock_heavy_md10(catalog)
    result = simulate_event(system, host_ios=20_000)
    util = {u.resource: u.utilisation for u in result.utilisation}
    assert util["md RAID10 thread (raid10d)"] > 0.05
    assert util["host cores (16 job CPUs)"] == pytest.approx(1.0)
    assert result.cpu_percent == pytest.approx(100 * 16 / system.logical_cpus, abs=0.02)
