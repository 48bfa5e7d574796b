"""md's stripe-cache wake-up herd (``MdEngine.waiting_cpus``) and the load both modes hand it
(nvsim.sim.stripe_wait): the CPU submitters burn while they wait for a stripe_head, counted by hand
from the method's docstring."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.engines import StripeCacheLoad, build_engine
from nvsim.engines.md import HERD_REQUEUE_LINES, HERD_WAKER_LINES, MAX_STRIPE_BATCH, NR_STRIPES
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation

LINE_US, FACTOR = 0.11, 1.5


def md(catalog, **settings):
    eng = build_engine(catalog.engines["linux-md"], {"bitmap": "none", **settings}, members=24, strip_bytes=4096,
                       shared_access_factor=FACTOR)
    object.__setattr__(eng, "line_transfer_us", LINE_US)
    return eng


def load(**over):
    base = dict(stripe_heads_per_s=100_000.0, stripe_heads_per_io=1.0, passes_per_stripe_head=3.0,
                ios_in_flight=3072.0, jobs=192, server_utilisation=1.0)
    return StripeCacheLoad(**{**base, **over})


def test_the_default_cache_is_md_s_256_stripe_heads(catalog):
    assert NR_STRIPES == 256 and md(catalog).settings.stripe_cache_size == 256


def test_nobody_waits_while_the_cache_holds_every_write_in_flight(catalog):
    eng = md(catalog)
    assert eng.waiting_cpus(load(ios_in_flight=256.0)) == 0.0
    assert eng.waiting_cpus(load(ios_in_flight=3072.0, stripe_heads_per_io=0.08)) == 0.0  # 3072 x 0.08 < 256
    assert md(catalog, stripe_cache_size=4096).waiting_cpus(load()) == 0.0


def _herd(blocked: float, wakeups_per_s: float) -> float:
    spin_s = blocked / 2 * (HERD_WAKER_LINES + HERD_REQUEUE_LINES) * LINE_US * FACTOR * 1e-6
    return blocked * min(1.0, wakeups_per_s * spin_s)


WAKEUPS = 100_000 * 3 / MAX_STRIPE_BATCH * (1 - (2 / 3) ** MAX_STRIPE_BATCH)  # load()'s: 36K a second


def test_a_herd_that_outlasts_the_gap_between_wake_ups_keeps_every_blocked_job_busy(catalog):
    """192 sleepers, 5 line transfers each at 0.165 us: a sleeper spins 79 us on average, against a
    wake-up every 28 us; a herd of 16 spins 6.6 us of each 28, a quarter of each job's time."""
    eng = md(catalog)
    assert eng.waiting_cpus(load()) == pytest.approx(192.0) == pytest.approx(_herd(192, WAKEUPS))
    assert eng.waiting_cpus(load(jobs=16)) == pytest.approx(_herd(16, WAKEUPS))
    assert 3.0 < eng.waiting_cpus(load(jobs=16)) < 5.0
    # fewer I/Os beyond the cache than jobs: only those block
    assert eng.waiting_cpus(load(ios_in_flight=256.0 + 40.0)) == pytest.approx(_herd(40, WAKEUPS))


def test_below_saturation_each_blocked_job_is_busy_its_share_of_each_wake_up_gap(catalog):
    """1 MiB writes on 22 data members: 11.6 stripe_heads each, two passes (no reads), 3,000 a
    second; raid5d busy, so batches of 8: wake-ups = 34.9K x 2 / 8 x (1 - 1/2^8)."""
    eng = md(catalog)
    per_io = 1024 / 88
    lo = load(stripe_heads_per_s=3000 * per_io, stripe_heads_per_io=per_io, passes_per_stripe_head=2.0)
    wakeups = 3000 * per_io * 2 / MAX_STRIPE_BATCH * (1 - 0.5 ** MAX_STRIPE_BATCH)
    assert eng.waiting_cpus(lo) == pytest.approx(_herd(192, wakeups))
    assert 100 < eng.waiting_cpus(lo) < 192


def test_an_idle_stripe_thread_wakes_the_herd_for_every_stripe_head(catalog):
    """raid5d rarely busy: batches of one stripe_head, so one wake-up per last pass."""
    eng = md(catalog)
    idle = load(stripe_heads_per_s=2000.0, server_utilisation=0.0)
    assert eng.waiting_cpus(idle) == pytest.approx(_herd(192, 2000 * 3 * (1 / 3)))


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(1.0, 1e7), jobs=st.integers(1, 1024), depth=st.integers(1, 64),
       per_io=st.floats(0.01, 300.0), util=st.floats(0.0, 1.0))
def test_the_herd_never_exceeds_the_jobs_and_grows_with_the_rate(catalog, rate, jobs, depth, per_io, util):
    eng = md(catalog)
    one = load(stripe_heads_per_s=rate, stripe_heads_per_io=per_io, ios_in_flight=float(jobs * depth), jobs=jobs,
               server_utilisation=util)
    two = load(stripe_heads_per_s=2 * rate, stripe_heads_per_io=per_io, ios_in_flight=float(jobs * depth), jobs=jobs,
               server_utilisation=util)
    assert 0.0 <= eng.waiting_cpus(one) <= eng.waiting_cpus(two) <= jobs


MD6_WRITES = {
    "name": "md6-writes", "platform": "supermicro-as-2125hs-tnr", "seed": 1,
    "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": "4KiB", "engine": "linux-md",
              "engine_settings": {"kernel": "5.15"}},
    "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 16, "numjobs": 192, "size": "100G"}],
}


def _cpu_percent(catalog, **engine_settings) -> tuple[float, float]:
    data = {**MD6_WRITES, "array": {**MD6_WRITES["array"],
                                    "engine_settings": {**MD6_WRITES["array"]["engine_settings"], **engine_settings}}}
    result = Simulation(parse_scenario(data, catalog), "w", catalog=catalog).run("fluid")
    return result.cpu_percent, result.write_iops


def test_a_stripe_cache_that_holds_every_write_in_flight_leaves_the_jobs_asleep(catalog):
    """Seed 000's md RAID6 random write: 3,072 writes in flight against md's 256 stripe_heads keep the
    192 job CPUs (of 384) spinning in the herd; a 4,096-entry cache holds them all, and the jobs
    only sleep (the write rate is raid5d's either way)."""
    herd, herd_iops = _cpu_percent(catalog)
    quiet, quiet_iops = _cpu_percent(catalog, stripe_cache_size=4096)
    assert herd > 45.0 and quiet < 5.0
    assert herd_iops == pytest.approx(quiet_iops)


def test_the_state_solver_counts_the_herd_as_the_fluid_and_event_modes_do(catalog):
    """With a member missing the state solver (the queueing network) solves the array: its jobs
    spin in the same herd, and a cache that holds every write in flight leaves them asleep."""
    faults = [{"at_s": 0, "drive": 0, "action": "fail"}]
    data = {**MD6_WRITES, "faults": faults}
    herd = Simulation(parse_scenario(data, catalog), "w", catalog=catalog).run("fluid")
    big = {**data, "array": {**data["array"], "engine_settings": {"kernel": "5.15", "stripe_cache_size": 4096}}}
    quiet = Simulation(parse_scenario(big, catalog), "w", catalog=catalog).run("fluid")
    assert herd.cpu_percent > 45.0 and quiet.cpu_percent < 5.0
    assert herd.write_iops == pytest.approx(quiet.write_iops)


@pytest.mark.parametrize("mode", ["fluid", "event"])
def test_jobs_on_every_cpu_and_raid5d_beside_them_keep_the_cpus_at_most_all_busy(catalog, mode):
    """128 jobs on the R750's 128 logical CPUs, every one spinning for a stripe_head, and raid5d's
    thread: all 128 busy, 100%, not the 129 of 128 (100.8%) they were summed to until 2026-11-30."""
    scenario = parse_scenario({
        "name": "full", "platform": "dell-poweredge-r750",
        "array": {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                  "engine": "linux-md", "engine_settings": {"bitmap": "none"}},
        "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 32, "numjobs": 128, "size": "100G"}],
    }, catalog)
    result = Simulation(scenario, scenario.workloads[0], catalog=catalog).run(mode, **({"host_ios": 20_000} if mode == "event" else {}))
    assert result.cpu_percent == pytest.approx(100.0)
