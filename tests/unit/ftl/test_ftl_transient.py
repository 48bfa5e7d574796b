"""Random writes after a sequential fill (nvsim.ftl.transient over the page simulation's
``simulate_ftl_transient``): WAF 1 while the erased spare takes them, the write cliff's overshoot
once it is written, the steady state far past it. Oracles: the spare's page count
(Sf / (1 - Sf) drive writes) and the steady-state simulation ``simulate_ftl``, which measures after a
warm-up the transient has no part in."""

import numpy as np
import pytest

from nvsim.ftl import simulate_ftl, simulate_ftl_transient
from nvsim.ftl.transient import GRID_END_DRIVE_WRITES, mean_excess, spare_drive_writes


@pytest.mark.parametrize("spare", [0.07, 0.2])
def test_the_spare_takes_the_first_writes_at_waf_1_and_not_one_write_more(spare):
    inside = spare_drive_writes(spare) - 8 * 256 / (2048 * 256 * (1 - spare))  # 8 blocks short: the open block, the reserve
    after = spare_drive_writes(spare) * 1.2
    waf = simulate_ftl_transient(spare, np.array([0.25 * inside, inside, after]))
    assert waf[0] == 1.0 and waf[1] == 1.0
    assert waf[2] > 1.0


@pytest.mark.parametrize("spare", [0.07, 0.125, 0.27])
def test_the_write_cliff_overshoots_the_steady_state_then_settles_on_it(spare):
    steady = simulate_ftl(spare).waf_ftl
    start = spare_drive_writes(spare)
    points = np.array([start, start + 0.05, 3.0, 4.0])
    mean = simulate_ftl_transient(spare, points)
    just_after = (mean[1] * points[1] - mean[0] * points[0]) / (points[1] - points[0])
    last = (mean[3] * points[3] - mean[2] * points[2]) / (points[3] - points[2])
    assert just_after > steady * 1.1  # every old block about as full: greedy copies most of each victim
    assert last == pytest.approx(steady, rel=0.03)
    assert mean[3] < steady  # the mean over the run still carries the spare's WAF-1 writes


def test_the_excess_is_zero_in_the_spare_and_tends_to_one_far_past_the_curve():
    spare = 0.125
    assert mean_excess(0.0, spare) == 0.0
    assert mean_excess(0.5 * spare_drive_writes(spare), spare) == 0.0
    assert 0.0 < mean_excess(1.0, spare) < mean_excess(2.0, spare)
    assert mean_excess(100 * GRID_END_DRIVE_WRITES, spare) == pytest.approx(1.0, abs=0.01)
    assert mean_excess(GRID_END_DRIVE_WRITES * 1.0001, spare) == pytest.approx(mean_excess(GRID_END_DRIVE_WRITES, spare),
                                                                               rel=1e-3)  # no step where the curve ends


def test_same_seed_same_curve_and_bad_points_refused():
    points = np.array([0.1, 0.5, 1.0])
    assert np.array_equal(simulate_ftl_transient(0.1, points, seed=3), simulate_ftl_transient(0.1, points, seed=3))
    for bad in (np.array([]), np.array([0.5, 0.1]), np.array([0.0, 1.0])):
        with pytest.raises(ValueError):
            simulate_ftl_transient(0.1, bad)
