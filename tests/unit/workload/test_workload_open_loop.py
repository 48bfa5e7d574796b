"""Open-loop arrivals (nvsim.workload.open_loop): the ladder of populations a job is solved at, and
the occupancy of a queue fed Poisson arrivals (a distribution that rises with the load; M/M/1 on one
server)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.workload.open_loop import ladder_picks, occupancy


def test_ladder_picks_keep_both_ends():
    assert ladder_picks(5) == [0, 1, 2, 3, 4]
    picks = ladder_picks(100)
    assert picks[0] == 0 and picks[-1] == 99 and len(picks) <= 12 and picks == sorted(picks)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.floats(1e3, 1e6), st.floats(0.01, 0.98))
def test_poisson_occupancy_is_a_distribution_and_rises_with_load(population, capacity, load):
    rates = np.minimum(capacity, np.arange(1, population + 1) * capacity / max(1, population // 2))
    low, high = occupancy(rates, load * capacity * 0.5), occupancy(rates, load * capacity)
    for chain in (low, high):
        assert chain[:-1].sum() == pytest.approx(1.0)
    mean = [float(np.arange(len(c) - 2) @ c[:-2] + c[-1]) for c in (low, high)]
    assert mean[1] >= mean[0]


def test_poisson_on_one_server_is_mm1():
    """One exponential-free server of rate mu: the chain is M/M/1, L = rho / (1 - rho)."""
    chain = occupancy(np.array([1000.0]), 800.0)
    mean = float(np.arange(len(chain) - 2) @ chain[:-2] + chain[-1])
    assert mean == pytest.approx(0.8 / 0.2)
