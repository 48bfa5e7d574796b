"""The event kernel's log-linear latency histograms (nvsim.sim.event.hdr): any percentile within
half a bucket (``RESOLUTION / 2`` relative, 0.5 ns absolute below 2**BUCKET_BITS ns) of the exact
nearest-rank sample, and a run past its sample cap measured from them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st_

from nvsim.catalog import default_catalog
from nvsim.scenario import load_scenario
from nvsim.sim.event import Precision, hdr, simulate_event
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

LATENCY_S = st_.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False)
PERCENTILE = st_.floats(min_value=0.0, max_value=100.0)


def _close(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    return np.abs(got - exact) <= np.maximum(exact * hdr.RESOLUTION / 2, 0.5e-9) * (1 + 1e-12) + 1e-18


@settings(max_examples=200, deadline=None)
@given(st_.lists(LATENCY_S, min_size=1, max_size=400), st_.lists(PERCENTILE, min_size=1, max_size=8))
def test_any_percentile_is_within_half_a_bucket_of_the_exact_sample(values, percentiles):
    x = np.array(values)
    got = hdr.percentiles_s(hdr.histogram_of(x), percentiles)
    exact = np.percentile(x, percentiles, method="inverted_cdf")  # the nearest-rank sample
    assert _close(got, exact).all(), (got, exact)


@settings(max_examples=200, deadline=None)
@given(LATENCY_S)
def test_a_bucket_holds_its_values_and_is_at_most_the_resolution_wide(value):
    index = hdr.bucket_of(value)
    low, high = hdr.bucket_bounds_s(np.array([index]))
    if value * 1e9 < 2.0 ** hdr.TOP_EXPONENT:
        assert low[0] <= value * (1 + 1e-15) and value < high[0] * (1 + 1e-15)
    assert high[0] - low[0] <= max(low[0] * hdr.RESOLUTION, 1e-9) * (1 + 1e-12)


def test_buckets_rise_with_the_value():
    values = np.sort(np.random.default_rng(3).lognormal(-9, 3, 5000))
    assert (np.diff([hdr.bucket_of(v) for v in values]) >= 0).all()


def test_a_run_past_its_sample_cap_is_measured_from_the_histograms():
    """Same run, samples capped at 2,000: the same host I/Os in the window and the same rate;
    every percentile within half a bucket of the exact run's nearest-rank sample; memory: only
    the cap's samples kept."""
    workload = WorkloadSpec(name="rw", rw="randrw", rwmixread=70, bs=4096, numjobs=8, iodepth=16)
    system = ArraySystem(load_scenario("scenarios/graid-gen5-raid6"), workload, default_catalog())
    exact = simulate_event(system, host_ios=20_000, precision=Precision(relative=1.0, max_wall_s=0.0))
    capped = simulate_event(system, host_ios=20_000, precision=Precision(relative=1.0, max_wall_s=0.0, max_samples=2_000))
    assert sum(len(s) for s in capped.latency_samples_s.values()) == 2_000
    assert capped.simulated_host_ios == exact.simulated_host_ios
    assert (capped.read_iops, capped.write_iops) == (exact.read_iops, exact.write_iops)
    for direction, got in (("read", capped.read_latency_us), ("write", capped.write_latency_us)):
        samples = exact.latency_samples_s[direction]
        keys = [key for key in got if key != "mean"]
        want = np.percentile(samples, [float(key[1:]) for key in keys], method="inverted_cdf") * 1e6
        assert _close(np.array([got[key] for key in keys]) * 1e-6, want * 1e-6).all(), direction
        assert abs(got["mean"] / (samples.mean() * 1e6) - 1) <= hdr.RESOLUTION / 2
    assert set(capped.tail_ci95_us) == set(exact.tail_ci95_us)
