"""A job whose I/Os are a mix (nvsim.workload.mix) against arithmetic worked by hand: the fluid mode's
closed loop of a mix is N over the share-weighted mean unloaded latency, its busiest resource the
share-weighted demands; the event mode's rate the time-share (harmonic) mixture; percentiles read
at the percentile they are named after (issue 34: a loop ignoring the shares and a p99 read at p90
both survived the suite's earlier tests); a wide mix binned into at most eight parts keeps its
shares and its mean size."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.workload.mix import MAX_MIX_PARTS, MixPart, _fluid_rate, binned, latency_dict, mix_samples
from nvsim.sim.result import Utilisation


def _part(iops: float, seconds_per_io: dict[str, float]):
    sim = SimpleNamespace(utilisation=[Utilisation(k, v * iops) for k, v in seconds_per_io.items()])
    return SimpleNamespace(simulation=sim, total_iops=iops)


def test_a_mixs_closed_loop_weights_each_parts_unloaded_latency_by_its_share():
    # 90% of the I/Os take 100 us unloaded, 10% take 1 ms: the mean is 190 us, so 8 in flight give 8 / 190 us
    parts = [_part(1e5, {"drives": 1e-8}), _part(1e4, {"drives": 1e-8})]
    x, limited = _fluid_rate(parts, np.array([0.9, 0.1]), np.array([1e5, 1e4]), np.array([1e-4, 1e-3]), 8)
    assert x == pytest.approx(8 / 1.9e-4, rel=1e-12) and "I/Os in flight (8)" in limited


def test_a_mixs_busiest_resource_carries_the_share_weighted_demand():
    # 75% of I/Os need 4 us of the drives, 25% need 20 us: 8 us per I/O of the mix, so at most 125K
    parts = [_part(2.5e5, {"drives": 4e-6, "cpu": 1e-7}), _part(5e4, {"drives": 2e-5, "cpu": 1e-7})]
    x, limited = _fluid_rate(parts, np.array([0.75, 0.25]), np.array([2.5e5, 5e4]), np.array([1e-5, 1e-5]), 1024)
    assert x == pytest.approx(1.25e5, rel=1e-12) and limited == "drives"


def test_percentiles_are_read_at_their_names():
    # 1..1000 us: numpy's linear percentile (the definition nvsim reports) at q is 1 + q/100 x 999 us
    samples = np.arange(1, 1001) * 1e-6
    out = latency_dict(samples, 0.0, True)
    assert out["mean"] == pytest.approx(500.5)
    for key, q in (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("p99.99", 99.99)):
        assert out[key] == pytest.approx(1 + q / 100 * 999, rel=1e-9), key
    assert latency_dict(None, 2e-4, True) == {"mean": pytest.approx(200.0)} and latency_dict(None, 2e-4, False) == {}


def test_a_mixs_samples_are_taken_in_proportion_to_the_shares():
    # part 1: 1,000 read samples of 10 us, part 2: 1,000 of 100 us; shares 80/20: four 10 us samples to each 100 us
    sims = [SimpleNamespace(read_iops=1.0, write_iops=0.0, total_iops=1.0, latency_samples_s={"read": np.full(1000, v)})
            for v in (1e-5, 1e-4)]
    out = mix_samples(sims, np.array([0.8, 0.2]))["read"]
    fast, slow = int((out == 1e-5).sum()), int((out == 1e-4).sum())
    assert fast == 4 * slow and fast + slow == len(out) and fast == 1000


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4096), st.floats(0.01, 1.0)), min_size=1, max_size=80))
def test_binning_keeps_the_shares_and_at_most_eight_parts(items):
    parts = [MixPart(sectors * 512, share) for sectors, share in items]
    out = binned(parts)
    assert len(out) <= MAX_MIX_PARTS
    assert sum(p.share for p in out) == pytest.approx(1.0)
    assert all(p.bs % 512 == 0 and p.bs > 0 for p in out)
    total = sum(s for _, s in items)
    mean = sum(n * 512 * s for n, s in items) / total
    assert sum(p.bs * p.share for p in out) == pytest.approx(mean, abs=512)


def test_a_mixs_iops_interval_is_unknown_in_the_event_mode_and_exact_in_the_fluid_mode():
    """A mix combines several runs and does not combine their intervals: the event mode's is
    unknown (NaN, null in JSON) rather than a zero-width one; the fluid mode's rates are exact."""
    import math

    import nvsim
    from nvsim.io import json_ready
    from nvsim.specs import WorkloadSpec

    spec = nvsim.load_scenario("scenarios/graid-gen5-raid6")
    mix = WorkloadSpec(name="m", rw="randread", bs_mix=({"bs": 4096, "share": 0.7}, {"bs": 131072, "share": 0.3}),
                       numjobs=4, iodepth=4, ioengine="libaio")
    event = nvsim.Simulation(spec, mix).run("event", host_ios=3000).simulation
    assert math.isnan(event.iops_ci95) and json_ready({"ci": event.iops_ci95}) == {"ci": None}
    assert nvsim.Simulation(spec, mix).run("fluid").simulation.iops_ci95 == 0.0


def _directions(read_mean_us, write_mean_us):
    return SimpleNamespace(read_latency_us={"mean": read_mean_us} if read_mean_us else {},
                           write_latency_us={"mean": write_mean_us} if write_mean_us else {})


def test_a_fluid_mixs_directions_keep_their_parts_ratio_and_littles_law():
    """Reads of 100 us and writes of 300 us in one part, reads of 500 us alone in the other, 50/50:
    the reads' mean weighs both parts' reads by their I/Os, the writes' the one part's, and the
    I/O-weighted mean of the two is the mix's cycle (they were both the cycle)."""
    from nvsim.workload.mix import direction_means_s

    sims = [_directions(100.0, 300.0), _directions(500.0, None)]
    shares, read = np.array([0.5, 0.5]), np.array([0.5, 1.0])
    means = direction_means_s(sims, shares, read, cycle_s=400e-6)
    raw_read = (0.25 * 100 + 0.5 * 500) / 0.75
    f_read = 0.75
    scale = 400.0 / (f_read * raw_read + (1 - f_read) * 300.0)
    assert means["read"] * 1e6 == pytest.approx(scale * raw_read) and means["write"] * 1e6 == pytest.approx(scale * 300.0)
    assert f_read * means["read"] + (1 - f_read) * means["write"] == pytest.approx(400e-6)
    assert direction_means_s([_directions(None, None)] * 2, shares, read, 400e-6) == {"read": 400e-6, "write": 400e-6}
