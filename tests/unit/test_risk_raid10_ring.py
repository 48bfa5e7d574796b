"""md RAID10's near layout on a drive count its copies do not divide (md accepts 3 or 5 drives with
2 copies): the chunks wrap around the members as a ring, so a failed drive shares chunks with
both neighbours and its rebuild exposes two drives, not one. The risk counts the members that share
a chunk with the failed one as nvsim's planner lays the copies out."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.risk import mttdl_hours_markov, p_failures_during, raid10_partners, rebuild_risk
from test_risk_conditioning import planner_partners  # the planner's count, beside its exact solve

MTBF, HOURS = 2_500_000.0, 5.0


@pytest.mark.parametrize("copies", [2, 3, 4])
def test_the_partners_are_the_planners(copies):
    """With member 0 failed, the members the planner writes a degraded chunk's other copies to."""
    for drives in range(copies, 13):
        assert raid10_partners(drives, copies) == planner_partners(drives, copies), drives


def test_an_odd_count_with_two_copies_exposes_both_neighbours():
    assert [raid10_partners(n, 2) for n in (3, 5, 7)] == [2, 2, 2]
    assert [raid10_partners(n, 2) for n in (2, 4, 6, 8)] == [1, 1, 1, 1]
    for n in (3, 5):
        risk = rebuild_risk(10, n, MTBF, 1e-17, HOURS, 3.84e12)
        assert risk.p_another_failure == p_failures_during(HOURS, 2, 1, MTBF)
    assert rebuild_risk(10, 4, MTBF, 1e-17, HOURS, 3.84e12).p_another_failure == p_failures_during(HOURS, 1, 1, MTBF)


@given(drives=st.sampled_from([2, 4, 6, 8, 12, 16, 24]), x=st.floats(0.0, 12.0))
@settings(deadline=None, max_examples=100)
def test_disjoint_mirror_sets_keep_todays_mttdl_bit_for_bit(drives, x):
    """Where the copies divide the drives: sets / MTTDL of a pair's chain, (3 lambda + mu) / (2 lambda^2)
    as today's recurrence sums it (h_0 = 1 / (2 lambda), h_1 = (1 + mu h_0) / lambda)."""
    rebuild = MTBF / 10**x
    lam, mu = 1.0 / MTBF, 1.0 / rebuild
    h0 = 1.0 / (2 * lam)
    today = (h0 + (1.0 + mu * h0) / (1 * lam)) / (drives // 2)
    assert mttdl_hours_markov(10, drives, MTBF, rebuild) == today


def test_a_ring_of_three_loses_data_sooner_than_a_mirror_pair():
    """Three drives, two copies: any second failure during a rebuild loses data (two drives
    exposed), and there are three drives to fail first: ~ mu / (3 x 2 lambda^2) against a pair's
    ~ mu / (2 lambda^2), a third. Today's disjoint sets (3 // 2 = one pair) gave the pair's."""
    three, two = mttdl_hours_markov(10, 3, MTBF, HOURS), mttdl_hours_markov(10, 2, MTBF, HOURS)
    assert three < two / 1.5
    assert three == pytest.approx(two / 3, rel=1e-4)
    assert mttdl_hours_markov(10, 5, MTBF, HOURS) < mttdl_hours_markov(10, 4, MTBF, HOURS)


@given(drives=st.integers(2, 16), copies=st.integers(2, 4))
@settings(deadline=None, max_examples=100)
def test_the_copy_sets_share_out_the_data_and_agree_with_the_partners(drives, copies):
    """``raid.copy_sets`` (what ``states.lost_data`` loses by): each set holds ``copies`` members,
    the sets' shares of the data sum to 1, every member is in some set, and member 0's partners
    are ``raid10_partners``'."""
    from nvsim.raid import copy_sets
    if copies > drives:
        return
    sets = copy_sets(10, drives, copies)
    assert all(len(members) == copies for members in sets)
    assert sum(sets.values()) == pytest.approx(1.0)
    assert set().union(*sets) == set(range(drives))
    assert len(set().union(*(m for m in sets if 0 in m)) - {0}) == raid10_partners(drives, copies)
    assert copy_sets(1, drives, copies) == {frozenset(range(drives)): 1.0}


def far_planner_partners(drives: int, copies: int, layout: str) -> int:
    """``planner_partners`` on md's far or offset layout: the members a degraded write of each
    chunk goes to when a copy of it lay on member 0."""
    import numpy as np

    from nvsim.stripe.layout import ArrayGeometry
    from nvsim.stripe.planner import Mode, plan_ios
    strip = 4096
    g = ArrayGeometry(10, drives, strip, layout=layout, member_size_bytes=strip * drives * copies, copies=copies)
    plan = plan_ios(g, True, np.arange(g.capacity_bytes // strip, dtype=np.int64) * strip, strip, failed_members=(0,))
    degraded = np.flatnonzero(plan.mode == Mode.DEGRADED_WRITE)
    return len(set(plan.member[np.isin(plan.host_index, degraded)].tolist()))


@pytest.mark.parametrize("kind", ["far", "offset"])
@pytest.mark.parametrize("copies", [2, 3])
def test_far_and_offset_are_rings_on_any_count(kind, copies):
    """md's far and offset copies (member (c + t) mod n) share a failed drive's chunks with the
    copies - 1 drives on each side, on any count: f2 on 4 drives exposes two, where n2 exposes one."""
    for drives in range(copies, 10):
        assert raid10_partners(drives, copies, kind) == far_planner_partners(drives, copies, kind), drives
    assert raid10_partners(4, 2, "far") == 2 and raid10_partners(4, 2) == 1


def test_a_far_arrays_rebuild_and_mttdl_count_both_neighbours():
    """f2 on 4 drives: a rebuild exposes two drives (one for n2); the MTTDL is one chain, 4 drives
    then the 2 that share the failed one's chunks: (6 lam + mu) / (8 lam^2), about half n2's."""
    far = rebuild_risk(10, 4, MTBF, 1e-17, HOURS, 3.84e12, kind="far")
    assert far.p_another_failure == p_failures_during(HOURS, 2, 1, MTBF)
    lam, mu = 1 / MTBF, 1 / HOURS
    assert mttdl_hours_markov(10, 4, MTBF, HOURS, 2, kind="far") == pytest.approx((6 * lam + mu) / (8 * lam**2), rel=1e-9)
    assert mttdl_hours_markov(10, 4, MTBF, HOURS, 2, kind="offset") < 0.51 * mttdl_hours_markov(10, 4, MTBF, HOURS, 2)
    assert mttdl_hours_markov(10, 2, MTBF, HOURS, 2, kind="far") == mttdl_hours_markov(10, 2, MTBF, HOURS, 2)
