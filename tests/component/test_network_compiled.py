"""The compiled Schweitzer loop (nvsim.sim.network.solve_network) gives the bits today's NumPy loop
gave (tests/support/network_reference.py, the loop it replaced): random networks of one and two
classes, with and without visits, open work, wait scales and warm starts, many near saturation."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.sim.network import STACK, _pairwise_sum, solve_network

MODULE = "nvsim_test_support_network_reference"


def reference():
    """tests/support/network_reference.py, imported once per process."""
    if MODULE not in sys.modules:
        spec = importlib.util.spec_from_file_location(MODULE, Path(__file__).parents[1] / "support" / "network_reference.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[MODULE] = module
        spec.loader.exec_module(module)
    return sys.modules[MODULE].solve_network_reference


def same_bits(a, b) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def network(rng: np.random.Generator, classes: int, k: int, sparse: float) -> dict:
    """A random network: demands from microseconds to milliseconds, some stations unvisited."""
    demand = rng.lognormal(-9.0, 2.0, (classes, k)) * (rng.random((classes, k)) > sparse)
    return {"demand_s": demand, "servers": rng.choice([1.0, 2.0, 8.0, 64.0], k),
            "population": rng.choice([0.0, 0.5, 1.0, 4.0, 64.0, 2048.0], classes),
            "base_s": demand.sum(axis=1) + rng.lognormal(-9.0, 2.0, classes)}


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), classes=st.integers(1, 3), k=st.integers(1, 300),
       sparse=st.sampled_from([0.0, 0.3, 0.8]), extras=st.sets(st.sampled_from(["open", "scale", "visits", "start"])),
       iterations=st.sampled_from([1, 3, 400]))
def test_compiled_loop_gives_the_numpy_loops_bits(seed, classes, k, sparse, extras, iterations):
    rng = np.random.default_rng(seed)
    args = network(rng, classes, k, sparse)
    kwargs = {"iterations": iterations}
    if "open" in extras:
        kwargs["open_utilisation"] = rng.random(k) * rng.choice([0.5, 1.2])
    if "scale" in extras:
        kwargs["wait_scale"] = rng.choice([0.0, 1.0 / 23, 0.5, 1.0], (classes, k))
    if "visits" in extras:
        kwargs["visits"] = rng.choice([0.0, 1.0, 2.0, 40.0], (classes, k))
    if "start" in extras:
        kwargs["start"] = rng.random((classes, k)) * 10.0
    want = reference()(**args, **kwargs)
    got = solve_network(**args, **kwargs)
    for field in ("throughput", "cycle_s", "utilisation", "waiting_s", "queue"):
        assert same_bits(getattr(got, field), getattr(want, field)), field


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 300, 1000, 4099, 100_003])
def test_pairwise_sum_is_numpys(n):
    values = np.random.default_rng(n).lognormal(0.0, 6.0, n)
    assert _pairwise_sum(values, 0, n, np.zeros((STACK, 3), np.int64), np.zeros(STACK)) == values.sum()
