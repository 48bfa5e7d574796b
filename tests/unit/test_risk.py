"""Data-loss risk formulas (nvsim.risk) against the textbook approximations and the laws of
probability: pure functions, no array simulated."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.risk import (mttdl_hours_markov, p_failures_during, p_unrecoverable_read, p_unrecoverable_read_after,
                        rebuild_risk)


def test_mttdl_matches_the_textbook_approximations():
    mtbf, mttr, n = 1.2e6, 10.0, 8
    # RAID5 ~ MTBF^2 / (n (n-1) MTTR) when MTTR << MTBF (Patterson et al. 1988)
    assert mttdl_hours_markov(5, n, mtbf, mttr) == pytest.approx(mtbf**2 / (n * (n - 1) * mttr), rel=1e-3)
    # the closed form of the same chain (Chen et al. 1994)
    lam, mu = 1 / mtbf, 1 / mttr
    assert mttdl_hours_markov(5, n, mtbf, mttr) == pytest.approx(((2 * n - 1) * lam + mu) / (n * (n - 1) * lam**2), rel=1e-9)
    # RAID6 ~ MTBF^3 / (n (n-1) (n-2) MTTR^2)
    assert mttdl_hours_markov(6, n, mtbf, mttr) == pytest.approx(mtbf**3 / (n * (n - 1) * (n - 2) * mttr**2), rel=1e-3)
    # a mirror pair: (3 lambda + mu) / (2 lambda^2), four pairs
    assert mttdl_hours_markov(10, n, mtbf, mttr) == pytest.approx((3 * lam + mu) / (2 * lam**2) / 4, rel=1e-9)
    assert mttdl_hours_markov(0, n, mtbf, mttr) == pytest.approx(mtbf / n)
    # longer rebuilds, lower MTTDL; more redundancy, higher
    assert mttdl_hours_markov(6, n, mtbf, 20) < mttdl_hours_markov(6, n, mtbf, 10)
    assert mttdl_hours_markov(6, n, mtbf, 10) > mttdl_hours_markov(5, n, mtbf, 10) > mttdl_hours_markov(0, n, mtbf, 10)


@given(window=st.floats(0.01, 1e4), drives=st.integers(1, 64), needed=st.integers(1, 3))
@settings(deadline=None)  # the first call imports scipy.special (~0.3 s): not what is tested here
def test_failure_probability_is_a_probability_and_grows_with_exposure(window, drives, needed):
    p = p_failures_during(window, drives, needed, 1e6)
    assert 0 <= p <= 1
    assert p_failures_during(window * 2, drives, needed, 1e6) >= p
    assert p_failures_during(window, drives, needed + 1, 1e6) <= p


def test_a_raid6_loses_data_to_a_ure_only_after_one_more_failure():
    """RAID5 loses data to a URE anywhere in the rebuild's reads; RAID6 with one down corrects
    it with its second parity, so it loses data that way only if exactly one more drive fails and a
    URE hits the reads after it (P(exactly 1) x E[URE over the rest]), far less often."""
    assert p_unrecoverable_read(1e12, 1e-15) == pytest.approx(1 - math.exp(-8e12 * 1e-15))
    mtbf, window, read = 2e6, 10.0, 7 * 3.84e12
    r5 = rebuild_risk(5, 8, mtbf, 1e-17, window, read)
    r6 = rebuild_risk(6, 8, mtbf, 1e-17, window, read)
    assert r5.p_unrecoverable_read == pytest.approx(math.exp(-7 * window / mtbf) * p_unrecoverable_read(read, 1e-17),
                                                    rel=1e-12)
    one_more = 7 * window / mtbf * math.exp(-7 * window / mtbf)
    assert r6.p_unrecoverable_read == pytest.approx(one_more * p_unrecoverable_read_after(1, read, 1e-17), rel=1e-12)
    assert 0 < r6.p_unrecoverable_read < r5.p_unrecoverable_read * 1e-3
    assert r6.p_data_loss == r6.p_another_failure + r6.p_unrecoverable_read
    assert r6.p_data_loss < r5.p_data_loss


def test_a_three_way_raid1_survives_a_second_failure_during_its_rebuild():
    """md RAID1 mirrors every member: with one of three down, two more must fail to lose data
    (p_failures_during with two needed among the two survivors), and a URE on a survivor is
    corrected from the other one unless exactly one more fails first."""
    mtbf, window = 1_000_000.0, 10.0
    three = rebuild_risk(1, 3, mtbf, 1e-17, window, 3.84e12)
    two = rebuild_risk(1, 2, mtbf, 1e-17, window, 3.84e12)
    assert three.p_another_failure == pytest.approx(p_failures_during(window, 2, 2, mtbf))
    assert two.p_another_failure == pytest.approx(p_failures_during(window, 1, 1, mtbf))
    assert 0.0 < three.p_unrecoverable_read < two.p_unrecoverable_read * 1e-3
