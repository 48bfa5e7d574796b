"""The queueing network (nvsim.sim.network.solve_network) on its own, against closed forms and laws.

Oracles: exact mean value analysis (Reiser & Lavenberg 1980) computed here by its recursion;
Schweitzer's approximation (the solver's method) solved by hand for one station; the asymptotic
bounds and Little's law (Lazowska et al., *Quantitative System Performance*, 1984, ch. 5-7); the
mixed-network rule for open work (ibid. 7.4). ``base_s`` is a class's cycle with no queueing: its
demands plus its think time Z.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.sim.network import fork_join_wait_scale, io_wait_scale, solve_network

D = 1e-3  # one station's demand per cycle (s)


def one_station(n: float, d: float = D, z: float = 0.0, servers: float = 1.0, open_u: float = 0.0, **kwargs):
    """One closed class of ``n`` customers cycling through one station (demand ``d``) and a think time ``z``."""
    return solve_network(np.array([[d]]), np.array([servers]), np.array([float(n)]), np.array([d + z]),
                         open_utilisation=np.array([open_u]), **kwargs)


def exact_mva_throughput(n: int, d: float, z: float) -> float:
    """Exact MVA, one single-server station and a think time: R(k) = D (1 + Q(k-1)), X(k) = k / (Z + R(k))."""
    q, x = 0.0, 0.0
    for k in range(1, n + 1):
        r = d * (1.0 + q)
        x = k / (z + r)
        q = x * r
    return x


def schweitzer_throughput(n: float, d: float, z: float) -> float:
    """Schweitzer's fixed point for one station, by hand: R = D (1 + X R (N-1)/N) and X = N / (Z + R)
    give R^2 + (Z - N D) R - D Z = 0, whose positive root is R."""
    b = n * d - z
    r = (b + math.sqrt(b * b + 4.0 * d * z)) / 2.0
    return n / (z + r)


# --------------------------------------------------------------- one class, one station

@pytest.mark.parametrize("z", [0.0, 1e-4, 1e-3, 1e-2])
def test_one_customer_cycles_without_queueing(z):
    """N = 1: nobody to wait behind, X = 1 / (D + Z) exactly (exact MVA and Schweitzer agree)."""
    assert one_station(1, z=z).throughput[0] == pytest.approx(1.0 / (D + z), rel=1e-12)
    assert exact_mva_throughput(1, D, z) == pytest.approx(1.0 / (D + z), rel=1e-12)


@pytest.mark.parametrize("z", [1e-4, 1e-3, 5e-3, 1e-2])
@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 20, 40])
def test_one_station_is_schweitzers_fixed_point_and_near_exact_mva(n, z):
    """The solver finds Schweitzer's fixed point (solved by hand above), and that is within
    Schweitzer's error of exact MVA: in one-station networks the throughput error peaks near the
    knee N* = (D + Z) / D, at about 6.5% (here N = 9, Z = 5D); 7% is that worst case."""
    x = one_station(n, z=z).throughput[0]
    assert x == pytest.approx(schweitzer_throughput(n, D, z), rel=1e-3)
    assert x == pytest.approx(exact_mva_throughput(n, D, z), rel=0.07)


def test_throughput_approaches_the_bottleneck_as_customers_grow():
    """X -> m / D (the station's capacity) as N grows, and never passes it."""
    for servers in (1.0, 4.0):
        xs = [one_station(n, z=1e-3, servers=servers).throughput[0] for n in (1, 2, 4, 8, 16, 64, 256)]
        assert all(a <= b * (1 + 1e-9) for a, b in zip(xs, xs[1:]))  # more customers, never less throughput
        assert xs[-1] == pytest.approx(servers / D, rel=1e-3)
        assert max(xs) <= servers / D * (1 + 1e-9)


# --------------------------------------------------------------- laws on random networks

@given(n=st.floats(1, 500), z=st.floats(0, 1e-2), data=st.data())
@settings(max_examples=60, deadline=None)
def test_asymptotic_bounds_and_littles_law_on_random_networks(n, z, data):
    """Random demands on 1-4 stations of 1-8 servers: X <= min_k m_k / D_k (no station beyond its
    capacity), X <= N / (sum D + Z) (no faster than without queueing), X >= N / (N sum D + Z) (no
    slower than waiting behind everyone everywhere); Little's law N = X x (Z + sum D + waiting) over
    the parts of the cycle; the utilisation law U_k = X D_k / m_k <= 1. Up to 500 customers: a
    saturated station holds the customers its capacity turns away, as waiting."""
    k = data.draw(st.integers(1, 4))
    demand = np.array(data.draw(st.lists(st.floats(1e-6, 1e-2), min_size=k, max_size=k)))
    servers = np.array(data.draw(st.lists(st.integers(1, 8), min_size=k, max_size=k)), dtype=float)
    sol = solve_network(demand[None, :], servers, np.array([n]), np.array([demand.sum() + z]))
    x = sol.throughput[0]
    assert x <= (servers / demand).min() * (1 + 1e-9)
    assert x <= n / (demand.sum() + z) * (1 + 1e-9)
    assert x >= n / (n * demand.sum() + z) * (1 - 1e-9)
    assert x * (demand.sum() + z + sol.waiting_s[0].sum()) == pytest.approx(n, rel=1e-3)
    assert sol.utilisation == pytest.approx(x * demand / servers, rel=1e-9)
    assert np.all(sol.utilisation <= 1 + 1e-9)


@given(n=st.floats(0.5, 500), d1=st.floats(1e-6, 1e-2), d2=st.floats(1e-6, 1e-2), z=st.floats(0, 1e-2))
@settings(max_examples=60, deadline=None)
def test_network_obeys_littles_law_and_capacity(n, d1, d2, z):
    sol = solve_network(np.array([[d1, d2]]), np.array([1.0, 4.0]), np.array([n]), np.array([d1 + d2 + z]))
    x = sol.throughput[0]
    assert x * sol.cycle_s[0] == pytest.approx(n, rel=1e-6)  # Little's law over the cycle
    assert x <= min(1 / d1, 4 / d2) * (1 + 1e-6)  # no station beyond its capacity
    assert x <= n / (d1 + d2 + z) * (1 + 1e-6)  # no faster than with no queueing at all
    assert np.all(sol.utilisation <= 1 + 1e-9)


def test_network_single_queue_reaches_the_bounds():
    """One server, demand D, no delay: X -> 1/D as N grows; N = 1 gives 1/D exactly."""
    d = 1e-3
    assert solve_network(np.array([[d]]), np.array([1.0]), np.array([1.0]), np.array([d])).throughput[0] == pytest.approx(1 / d)
    assert solve_network(np.array([[d]]), np.array([1.0]), np.array([200.0]), np.array([d])).throughput[0] == pytest.approx(1 / d, rel=1e-3)


def test_littles_law_holds_over_the_cycle_parts_at_saturation():
    sol = one_station(500, z=1e-3)
    assert sol.queue.sum() + sol.throughput[0] * 1e-3 == pytest.approx(500, rel=1e-2)
    assert sol.throughput[0] * (D + 1e-3 + sol.waiting_s[0].sum()) == pytest.approx(500, rel=1e-2)


# --------------------------------------------------------------- several classes

@given(n1=st.floats(1, 50), n2=st.floats(1, 50), d1=st.floats(1e-5, 1e-2), d2=st.floats(1e-5, 1e-2),
       z=st.floats(0, 1e-2))
@settings(max_examples=40, deadline=None)
def test_identical_customers_cycle_alike_whatever_class_they_are_in(n1, n2, d1, d2, z):
    """Two classes with the same demands: the same cycle time, so throughput in proportion to the
    customers (equal populations: equal halves)."""
    demand = np.array([[d1, d2], [d1, d2]])
    sol = solve_network(demand, np.array([1.0, 2.0]), np.array([n1, n2]), np.array([d1 + d2 + z] * 2))
    assert sol.cycle_s[0] == pytest.approx(sol.cycle_s[1], rel=1e-4)
    assert sol.throughput[0] / n1 == pytest.approx(sol.throughput[1] / n2, rel=1e-4)
    equal = solve_network(demand, np.array([1.0, 2.0]), np.array([n1, n1]), np.array([d1 + d2 + z] * 2))
    assert equal.throughput[0] == pytest.approx(equal.throughput[1], rel=1e-6)


def test_a_second_class_takes_throughput_from_the_first():
    """Adding customers of another class to a shared station never speeds the first class up."""
    demand = np.array([[D, 0.0], [D, 2e-3]])
    alone = solve_network(demand[:1], np.array([1.0, 1.0]), np.array([8.0]), np.array([D + 1e-3])).throughput[0]
    xs = [solve_network(demand, np.array([1.0, 1.0]), np.array([8.0, m]), np.array([D + 1e-3, 3e-3])).throughput[0]
          for m in (1.0, 4.0, 16.0)]
    assert alone > xs[0] > xs[1] > xs[2]


def test_a_saturated_station_holds_only_the_classes_that_visit_it():
    """A class that never visits a saturated station keeps its own rate (the cap scales the
    station's visitors), and each class's cycle obeys Little's law."""
    demand = np.array([[D, 0.0], [0.0, D]])
    alone = solve_network(demand[:1], np.array([4.0, 1.0]), np.array([4.0]), np.array([D + 1e-3])).throughput[0]
    sol = solve_network(demand, np.array([4.0, 1.0]), np.array([4.0, 500.0]), np.array([D + 1e-3, D]))
    assert sol.throughput[0] == pytest.approx(alone, rel=1e-6)
    assert sol.throughput[1] == pytest.approx(1 / D, rel=1e-6)
    for c, base in ((0, D + 1e-3), (1, D)):
        assert sol.throughput[c] * (base + sol.waiting_s[c].sum()) == pytest.approx(sol.throughput[c] * sol.cycle_s[c], rel=1e-3)


# --------------------------------------------------------------- open work beside the closed classes

@pytest.mark.parametrize("n", [4, 16])
def test_open_utilisation_slows_closed_classes(n):
    xs = [one_station(n, z=1e-3, open_u=u).throughput[0] for u in (0.0, 0.2, 0.4)]
    assert xs[0] > xs[1] > xs[2]


@pytest.mark.parametrize("u", [0.2, 0.5])
def test_open_work_leaves_the_closed_classes_what_is_left_of_the_station(u):
    """Many customers: X -> (1 - U_open) m / D, the capacity the open work leaves."""
    assert one_station(400, z=1e-3, open_u=u).throughput[0] == pytest.approx((1 - u) / D, rel=1e-3)


@pytest.mark.parametrize("n", [1, 4])
def test_closed_and_open_work_together_never_pass_the_station_capacity(n):
    u = 0.6
    x = one_station(n, z=1e-3, open_u=u).throughput[0]
    assert x * D + u <= 1 + 1e-9


def test_open_work_slows_even_a_lone_customer():
    u, z = 0.3, 1e-3
    assert one_station(1, z=z, open_u=u).throughput[0] == pytest.approx(1.0 / (z + D / (1 - u)), rel=1e-6)


def test_fork_join_scale_is_the_expected_maximum_of_exponential_waits():
    """k branches' waits scaled by H_k / k sum to E[max of k i.i.d. exponentials] / mean = H_k: one
    branch is its own wait, and the maximum of 7 (a RAID6 rebuild of 8 members) is 2.59 means."""
    assert fork_join_wait_scale(1) == 1.0
    assert 7 * fork_join_wait_scale(7) == pytest.approx(363 / 140)
    rng = np.random.default_rng(7)
    for k in (2, 4, 7, 23):
        simulated = rng.exponential(1.0, (200_000, k)).max(axis=1).mean()
        assert k * fork_join_wait_scale(k) == pytest.approx(simulated, rel=0.01)


@given(st.integers(1, 64))
def test_fork_join_scale_lies_between_the_mean_and_the_sum(k):
    """The slowest of k waits is at least their mean (scale 1/k) and at most their sum (scale 1)."""
    assert 1.0 / k <= fork_join_wait_scale(k) <= 1.0
    assert fork_join_wait_scale(k + 1) < fork_join_wait_scale(k)


def test_a_class_waits_for_the_slowest_member_of_each_run_it_issues():
    """Runs of 1, 4 and 2 member I/Os (a host I/O's phases): their summed waits become the
    slowest of each run's, (1 + H_4 + H_2) / 7 of the sum, at the drives' stations only."""
    from types import SimpleNamespace

    from nvsim.sim.network import Stations

    batch = SimpleNamespace(op_phase=np.array([0, 0, 0, 0, 0, 0, 1]), op_start=np.array([0, 1, 7]),
                            op_runs=np.array([0, 1, 5]))
    net = Stations(("cores", "nand 0", "link 0"), (("cores", -1), ("nand", 0), ("link_up", 0)), np.ones(3))
    expected = (1 + 25 / 12 + 1.5) / 7
    assert io_wait_scale(net, [batch]).tolist() == pytest.approx([1.0, expected, expected])
    no_members = SimpleNamespace(op_phase=np.zeros(0, np.int8), op_start=np.zeros(2, np.int64), op_runs=None)
    assert io_wait_scale(net, [no_members]).tolist() == [1.0, 1.0, 1.0]
