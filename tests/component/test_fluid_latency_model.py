"""The fluid mode's modelled latency distribution (SimResult.modelled_percentile_us): the unloaded
latency plus an exponential queueing wait with the solved mean."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.sim.result import SimResult


def result(floor_us: float, mean_us: float) -> SimResult:
    return SimResult(scenario="s", workload="w", fidelity="fluid", read_iops=1.0, write_iops=0.0, read_bytes_per_s=1.0,
                     write_bytes_per_s=0.0, cpu_percent=0.0, read_latency_us={"mean": mean_us}, unloaded_latency_us=floor_us)


@settings(max_examples=50, deadline=None)
@given(floor=st.floats(1.0, 1e4), extra=st.floats(0.0, 1e5))
def test_percentiles_rise_from_the_floor_and_average_to_the_mean(floor, extra):
    r = result(floor, floor + extra)
    values = [r.modelled_percentile_us("read", p) for p in (1, 50, 90, 99, 99.99)]
    assert values == sorted(values) and values[0] >= floor
    assert values[1] == pytest.approx(floor + math.log(2) * extra)
    grid = np.linspace(0.005, 99.995, 10000)
    assert np.mean([r.modelled_percentile_us("read", p) for p in grid]) == pytest.approx(floor + extra, rel=2e-3, abs=1e-6)


def test_no_model_without_a_floor_or_a_mean():
    r = result(10.0, 20.0)
    assert r.modelled_percentile_us("write", 50) is None  # no write mean
    assert SimResult(scenario="s", workload="w", fidelity="event", read_iops=1, write_iops=0, read_bytes_per_s=1,
                     write_bytes_per_s=0, cpu_percent=0, read_latency_us={"mean": 5.0}).modelled_percentile_us("read", 50) is None
