"""The fluid mode against the event mode where `nvsim plan`'s worked example found them apart
(docs/plan.md): a NAND-bound 70/30 mix (the fluid sample's read share) and a wide-strip
sequential read limited by its closed loop (the fork-join of a host I/O's member reads).

The set-up is the example's top candidate: 16x KIOXIA CM7-R 30.72 TB, RAID6 on xiRAID, in the
ASUS RS520A server.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.scenario import parse_scenario
from nvsim.sim.event import simulate_event
from nvsim.sim.foreground import NETWORK_SAMPLE_IOS, network_sample
from nvsim.sim.fluid import exact_mix, expected_max_gamma, fork_join_excess, sample_batches, simulate_fluid, unloaded_latency_s
from nvsim.sim.system import ArraySystem
from nvsim.sim.workload import SAMPLE_IOS_MIN, SAMPLE_PAGES, clone_phase_bytes, exact_mix_size, page_bounded_ios

HOST_IOS = 12_000


def example(catalog, strip: str, workload: dict):
    spec = parse_scenario({
        "name": "plan-example", "platform": "asus-rs520a-e12-rs24u",
        "array": {"level": 6, "drive": "kioxia-cm7-r-30.72tb", "drives": 16, "strip_bytes": strip,
                  "engine": "xinnor-xiraid"},
        "workloads": [{"name": "w", **workload}], "seed": 1,
    }, catalog)
    return ArraySystem(spec, spec.workloads[0], catalog)


SCAN = {"rw": "read", "bs": "1m", "numjobs": 4, "iodepth": 1}
MIX = {"rw": "randrw", "bs": "8k", "rwmixread": 70, "numjobs": 64, "iodepth": 16}


def test_wide_strip_scan_fluid_within_5_percent_of_event_mode(catalog):
    """A 1 MiB read at a 512 KiB strip is two member reads; the closed loop (4 in flight) sets
    the rate, and each read waits for the slower of the two. Without the fork-join term the fluid
    mode was 14% above the event mode (at 256 in flight, when a member read took one NAND unit)."""
    system = example(catalog, "512KiB", SCAN)
    fluid = simulate_fluid(system)
    assert fluid.limited_by.startswith("I/Os in flight")
    event = simulate_event(system, host_ios=HOST_IOS)
    assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.05)


def test_fork_join_lowers_the_closed_loop_rate_by_the_expected_maximum(catalog):
    """The fluid rate of the loop-bound scan is N / R0, and R0 holds the expected slowest of a
    host I/O's two member reads: 0.167 x the NAND time above the latency of mean times (the
    maximum of two gammas of cv 0.3: 1.166 by 200,000 draws). A member read's NAND time is its
    unit time over the units it runs on at once (``op_pieces``)."""
    system = example(catalog, "512KiB", SCAN)
    batch = sample_batches(system, 1)[0]
    fluid = simulate_fluid(system)
    assert np.all(np.diff(batch.op_start) == 2)  # two member reads a host I/O, alike
    die_s = float((batch.op_die_s / batch.op_pieces).max())
    r0_s = SCAN["numjobs"] * SCAN["iodepth"] / fluid.total_iops
    r0_means_s = unloaded_latency_s(system, [batch], fork_join=False)
    assert die_s > 0.25 * r0_means_s  # the NAND time is a good part of the latency: the term shows
    assert r0_s - r0_means_s == pytest.approx(0.166 * die_s, rel=0.02)


def test_nand_bound_mix_fluid_within_5_percent_of_event_mode(catalog):
    """The 70/30 8 KiB mix is NAND-bound (a RAID6 write costs three member reads and three
    writes): the fluid mode's sample must carry the mix's read share, or the rate moves with it
    (it was 13% below the event mode with 44 writes in 128)."""
    system = example(catalog, "64KiB", MIX)
    fluid = simulate_fluid(system)
    assert fluid.read_iops / fluid.total_iops == pytest.approx(0.7, abs=0.005)
    event = simulate_event(system, host_ios=HOST_IOS)
    assert "NAND" in fluid.limited_by
    assert event.total_iops == pytest.approx(fluid.total_iops, rel=0.05)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 64))
def test_expected_max_of_exponentials_is_the_harmonic_number(k):
    """Law: the maximum of k i.i.d. unit-mean exponentials (a gamma of cv 1) has mean H_k."""
    harmonic = sum(1.0 / i for i in range(1, k + 1))
    assert expected_max_gamma(k, 1.0) == pytest.approx(harmonic, rel=2e-3)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(1, 48), cv=st.floats(0.05, 0.8))
def test_expected_max_grows_with_k_and_spread(k, cv):
    """Monotone in the number of members and in their spread; 1 for a single member."""
    e = expected_max_gamma(k, cv)
    assert e >= 1.0 - 1e-9
    assert expected_max_gamma(k + 1, cv) >= e - 1e-9
    assert expected_max_gamma(k, cv * 1.1) >= e - 1e-9
    if k == 1:
        assert e == 1.0


def test_expected_max_matches_monte_carlo():
    rng = np.random.default_rng(7)
    shape = 1 / 0.3**2
    for k in (2, 8, 24):
        draws = rng.gamma(shape, 1 / shape, size=(100_000, k)).max(axis=1).mean()
        assert expected_max_gamma(k, 0.3) == pytest.approx(draws, rel=3e-3)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 600), f=st.floats(0.0, 1.0), seed=st.integers(0, 2**16), p=st.floats(0.0, 1.0))
def test_exact_mix_holds_the_read_share_and_keeps_other_draws(n, f, seed, p):
    """Law: round((1 - f) n) writes (f strictly inside (0, 1)), and only the surplus direction's
    excess changes: every I/O of the scarcer direction keeps its draw."""
    drawn = np.random.default_rng(seed).random(n) < p
    out = exact_mix(drawn, f, seed)
    if 0.0 < f < 1.0:
        assert int(out.sum()) == int(round((1 - f) * n))
        changed = int((out != drawn).sum())
        assert changed == abs(int(drawn.sum()) - int(round((1 - f) * n)))
        if drawn.sum() > out.sum():  # writes became reads: every drawn read stays a read
            assert not out[~drawn].any()
        else:
            assert out[drawn].all()
    else:
        assert np.array_equal(out, drawn)
    assert not math.isnan(float(out.mean()))


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_network_sample_holds_the_mix_like_the_fluid_sample(catalog, seed):
    """The mixed solve's sample (degraded, rebuilding and OLTP states) carries the workload's
    write share exactly, as the steady fluid mode's does: 1,024 Bernoulli draws alone miss it,
    and 1,024 I/Os cannot hold 30% (307.2), so the sample takes 1,030."""
    system = example(catalog, "64k", MIX)
    batches = network_sample(system, seed)
    writes = int(sum(int(b.is_write.sum()) for b in batches))
    size = int(sum(len(b.is_write) for b in batches))
    assert size == 1030 and size >= NETWORK_SAMPLE_IOS
    assert writes == 309  # 30% of 1,030, exactly


@pytest.mark.parametrize("least", [64, 128, 1024])
def test_a_sample_is_sized_to_hold_every_whole_percent_mix(least):
    """Law: for every fio rwmixread (a whole percent) the sample is the least size of at least
    ``least`` I/Os whose reads and writes are whole numbers; pure directions keep ``least``."""
    for percent in range(1, 100):
        size = exact_mix_size(percent / 100, least)
        assert least <= size < least + 100
        assert (size * percent) % 100 == 0
        assert all((smaller * percent) % 100 for smaller in range(least, size))
    assert exact_mix_size(1.0, least) == exact_mix_size(0.0, least) == least
    assert exact_mix_size(1 / 3, least) % 3 == 0  # a third is held too
    assert exact_mix_size(0.123456, least) == least  # no fraction of denominator <= 100: kept as it is


@given(least=st.integers(1, 4096), pages=st.integers(0, 2**30))
def test_a_sample_of_large_blocks_is_bounded_in_pages(least, pages):
    """Law: ``least`` host I/Os when they fit in ``SAMPLE_PAGES`` member pages; otherwise as many as
    fit, never fewer than ``SAMPLE_IOS_MIN``; never more than ``least`` unless ``least`` is below
    the floor."""
    n = page_bounded_ios(least, pages * 4096)
    assert n >= SAMPLE_IOS_MIN
    assert n <= max(least, SAMPLE_IOS_MIN)
    if least * max(1, pages) <= SAMPLE_PAGES:
        assert n == max(least, SAMPLE_IOS_MIN)
    elif n > SAMPLE_IOS_MIN:
        assert n * pages <= SAMPLE_PAGES < (n + 1) * pages or n == least


@pytest.mark.parametrize("bs, fluid_ios, network_ios", [
    ("4k", 64, 1024), ("1m", 64, 1024), ("4m", 64, 256), ("16m", 64, 64), ("1g", 16, 16)])
def test_random_blocks_above_1_mib_sample_fewer_host_ios(catalog, bs, fluid_ios, network_ios):
    """A 1 GiB random read sampled 1,024 host I/Os for the mixed solve (the rebuild's states) as
    a 4 KiB one does: 2.7 x 10^8 member pages, 65 s and 9.7 GB. Blocks up to 1 MiB keep their
    samples (and their results); larger ones take as many as ``SAMPLE_PAGES`` hold, at least 16."""
    system = example(catalog, "64KiB", {"rw": "randread", "bs": bs, "numjobs": 4, "iodepth": 4})
    assert system.sample_size == fluid_ios
    batches = network_sample(system, 1)
    assert sum(len(b.is_write) for b in batches) == network_ios


def test_fork_join_excess_is_the_expected_maximum_per_count():
    """The run's extra NAND time per distinct count of alike reads: E[max of k] - 1, 0 for none or one."""
    k = np.array([0, 1, 2, 16, 2, 0, 11_915])
    out = fork_join_excess(k)
    assert out[0] == out[1] == out[5] == 0.0
    assert out[2] == out[4] == expected_max_gamma(2, 0.3) - 1.0
    assert out[3] == pytest.approx(0.60, abs=0.01)  # 1.60 for k = 16 at cv 0.3
    assert out[6] > out[3]


def test_a_sequential_sample_of_large_blocks_is_bounded_in_pages(catalog):
    """A sequential sample covers whole periods of its alignment, at least two and 16 I/Os, at most
    512 I/Os or what ``SAMPLE_PAGES`` holds: with 4 MiB + 4 KiB blocks on 14 data members of 512 KiB
    that is 512 I/Os of 1,025 pages, twice ``SAMPLE_PAGES``; the sample keeps 255 (as many as fit).
    A 1 MiB scan keeps three whole periods of 7 (16 had ended inside the third)."""
    odd = example(catalog, "512KiB", {"rw": "read", "bs": 4 * 2**20 + 4096, "numjobs": 1, "iodepth": 1})
    assert odd.sample_size == SAMPLE_PAGES // 1025 == 255
    scan = example(catalog, "512KiB", SCAN)
    assert scan.sample_size == 21  # 1 MiB on 14 x 512 KiB: a period of 7, at least 16, in whole periods


@given(jobs=st.integers(1, 4096), pages=st.integers(1, 256), period_pages=st.integers(0, 2**14),
       rw=st.sampled_from(["read", "write", "randread", "randwrite"]), increment=st.sampled_from([0, 2**20]))
def test_clones_start_spread_over_one_stripe_in_whole_blocks(jobs, pages, period_pages, rw, increment):
    """Law: a sequential job's clones without an offset_increment start at whole blocks inside one
    data stripe, in order, the first at fio's offset; every other job starts where fio starts it."""
    from nvsim.specs import WorkloadSpec
    w = WorkloadSpec(name="w", rw=rw, bs=pages * 4096, numjobs=jobs, offset_increment=increment)
    period = period_pages * 4096
    phases = [clone_phase_bytes(w, j, period) for j in range(min(jobs, 64))]
    assert phases[0] == 0
    assert all(p % w.bs == 0 and 0 <= p < max(period, 1) for p in phases)
    assert phases == sorted(phases)
    if w.is_random or increment or jobs == 1 or period == 0:
        assert not any(phases)


def _md_seq_writes(degraded: bool):
    """md RAID5 of 8 CM7-R, 4 jobs x QD4 of 1 MiB sequential writes: raid5d binds, the job cores
    are 3-7% busy and md's device_lock 13% (a hold per stripe_head)."""
    import nvsim
    data = {"name": "md-seq-writes", "platform": "supermicro-sys-120u-tnr",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8},
            "workloads": [{"name": "w", "rw": "write", "bs": "1m", "iodepth": 4, "numjobs": 4}], "seed": 1}
    if degraded:
        data["faults"] = [{"at_s": 0, "drive": 0, "action": "fail"}]
    return nvsim.Simulation(nvsim.parse_scenario(data), "w")


@pytest.mark.parametrize("degraded", [False, True])
def test_a_submitter_holding_md_lock_is_busy_in_both_modes(degraded):
    """A submitter spins while it waits for md's lock and runs on its core while it holds it: the
    event mode counts both on the job's core (``HostSlot.locked``), the fluid mode counted only the
    wait (steady) or neither (the state solver): optimal 1.725% against 1.877%, degraded 1.673%
    against 1.730%. Now each charges the lock's response time per I/O to the jobs' CPUs."""
    sim = _md_seq_writes(degraded)
    fluid, event = sim.run("fluid"), sim.run("event", host_ios=HOST_IOS)
    assert fluid.total_iops == pytest.approx(event.total_iops, rel=0.01)
    assert fluid.cpu_percent == pytest.approx(event.cpu_percent, rel=0.02)
