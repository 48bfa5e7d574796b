"""nvsim.sim.foreground: the sample a degraded array's foreground is solved with, balanced over the
layout's period (``balanced_over_the_period``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.scenario import parse_scenario
from nvsim.sim.fluid import balanced_over_the_period
from nvsim.sim.foreground import network_sample
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

READS = {"name": "rr", "rw": "randread", "bs": "4k", "numjobs": 32, "iodepth": 64}


@settings(max_examples=60, deadline=None)
@given(bs_blocks=st.sampled_from([1, 2, 4, 16]), period_blocks=st.integers(1, 400), n=st.integers(1, 2000),
       start_periods=st.integers(0, 3), lead=st.integers(0, 3), periods=st.integers(1, 50), seed=st.integers(0, 99))
def test_every_run_of_the_periods_blocks_holds_its_share_to_within_one(bs_blocks, period_blocks, n, start_periods,
                                                                        lead, periods, seed):
    """A law of systematic sampling: over the period's blocks, any run of k consecutive blocks holds
    k x n / blocks of the sample to within one; every offset is a block of the region."""
    bs = 512 * bs_blocks
    period = bs * period_blocks
    lead = lead % period_blocks  # the region starts inside a period, ends on a boundary
    start = start_periods * period + lead * bs
    region = periods * period + (period - lead * bs if lead else 0)
    offsets = balanced_over_the_period(np.zeros(n, dtype=np.int64), start, region, period, bs, seed)
    assert len(offsets) == n and offsets.dtype == np.int64
    assert np.all(offsets % bs == 0) and np.all(offsets >= start) and np.all(offsets + bs <= start + region)
    counts = np.bincount(offsets % period // bs, minlength=period_blocks)
    for k in {1, max(1, period_blocks // 3), period_blocks // 2 or 1}:
        runs = np.convolve(counts, np.ones(k, dtype=int), mode="valid")
        assert np.all(np.abs(runs - k * n / period_blocks) <= 1.0 + 1e-9), (k, runs.min(), runs.max())


def test_a_region_shorter_than_a_period_keeps_the_draws():
    drawn = np.array([4096, 8192, 0], dtype=np.int64)
    assert balanced_over_the_period(drawn, 0, 3 * 4096, 8 * 4096, 4096, 1) is drawn


@pytest.mark.parametrize("level", [5, 6])
def test_a_degraded_sample_reconstructs_the_missing_members_share_whatever_the_seed(catalog, level):
    """16 members, one missing: a 4 KiB random read touches the missing member with chance 1/16 (the
    layouts rotate parity), and 1,024 of them reconstruct 64 exactly. Uniform draws put 68 (RAID5) or
    58 (RAID6) there with seed 1, and the SR-1000 then read faster as a degraded RAID6 than a RAID5."""
    raw = {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": "64KiB",
           "engine": "graid-supremeraid-sr1000"}
    spec = parse_scenario({"name": "t", "platform": "asus-rs520a-e12-rs24u", "array": raw, "workloads": [READS],
                           "seed": 1}, catalog)
    system = ArraySystem(spec, WorkloadSpec(**READS), catalog, failed_members=(0,))
    gpu_s = set()
    for seed in (1, 2, 3):
        batch = network_sample(system, seed)[0]
        assert len(batch.mid_s) == 1024
        assert int((batch.mid_s > 0).sum()) == 64
        gpu_s.add(round(float(np.mean(batch.mid_s + batch.pre_s)), 15))
    assert len(gpu_s) == 1


def test_a_degraded_raid6_reads_no_faster_than_a_degraded_raid5(catalog):
    """Same cards, drives and reads with one member missing: RAID6's reconstruction costs the GPU
    more than RAID5's, so its GPU-bound random reads are not faster."""
    rates = {}
    for level in (5, 6):
        raw = {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": "64KiB",
               "engine": "graid-supremeraid-sr1000"}
        spec = parse_scenario({"name": "t", "platform": "asus-rs520a-e12-rs24u", "array": raw, "workloads": [READS],
                               "seed": 1}, catalog)
        batch = network_sample(ArraySystem(spec, WorkloadSpec(**READS), catalog, failed_members=(0,)), 1)[0]
        rates[level] = 1.0 / float(np.mean(batch.mid_s + batch.pre_s))
    assert rates[6] <= rates[5]
