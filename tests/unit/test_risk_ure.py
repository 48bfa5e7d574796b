"""Unrecoverable read errors (URE) in the data-loss risk (nvsim.risk): the MTTDL chain's last
state loses data to a URE in its rebuild's reads as well as to one more failure, and P(data loss
per rebuild) counts a URE after the failures the level still tolerates. Oracles: today's recurrence
(q = 0, bit for bit), the first-order law 1 / (n lambda (P(another failure) + q)), a seeded Monte
Carlo of the rebuild window and numerical quadrature; laws: monotone in UBER and bytes read."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from nvsim.catalog import default_catalog
from nvsim.raid import failures_tolerated
from nvsim.rebuild import rebuild_summary
from nvsim.risk import (HOURS_PER_YEAR, mttdl_hours_markov, p_exact_failures_during, p_failures_during,
                        p_unrecoverable_read, p_unrecoverable_read_after, p_unrecoverable_read_after_wait,
                        rebuild_risk)
from nvsim.scenario import load_scenario

# mirror sets only where the copies divide the drives (a ring is tests/unit/test_risk_raid10_ring.py's)
CHAINS = st.one_of(st.tuples(st.just(1), st.integers(2, 4)), st.tuples(st.sampled_from([5, 6]), st.integers(4, 24)),
                   st.tuples(st.just(10), st.sampled_from([4, 6, 8, 12, 16, 24])))
MTBF = st.floats(1e4, 1e8)
BYTES = st.floats(0.0, 3e15)  # up to 24 drives of 122.88 TB read
UBER = st.floats(1e-18, 1e-14)


def _today_hours(level: int, drives: int, mtbf: float, rebuild: float, copies: int = 2) -> float:
    """The MTTDL recurrence as it stood before the URE (2026-11-30), kept as the q = 0 oracle."""
    lam, mu = 1.0 / mtbf, 1.0 / rebuild
    if level in (1, 10):
        sets = max(1, drives // copies) if level == 10 else 1
        n = copies if level == 10 else drives
        t = n - 1
    else:
        sets, n, t = 1, drives, failures_tolerated(level, drives, copies) if drives > 1 else 0
    climb = total = 0.0
    for k in range(t + 1):
        climb = (1.0 + mu * climb) / ((n - k) * lam)
        total += climb
    return total if level not in (1, 10) else total / sets


@given(chain=CHAINS, mtbf=MTBF, x=st.floats(0.0, 12.0), read=BYTES, uber=UBER)
@settings(deadline=None, max_examples=200)
def test_no_ure_gives_todays_mttdl_bit_for_bit(chain, mtbf, x, read, uber):
    level, drives = chain
    rebuild = mtbf / 10**x
    today = _today_hours(level, drives, mtbf, rebuild)
    assert mttdl_hours_markov(level, drives, mtbf, rebuild) == today
    assert mttdl_hours_markov(level, drives, mtbf, rebuild, 2, read, 0.0) == today
    assert mttdl_hours_markov(level, drives, mtbf, rebuild, 2, 0.0, uber) == today


@given(chain=CHAINS, mtbf=MTBF, x=st.floats(1.0, 9.0), read=BYTES, uber=UBER,
       more=st.floats(1.0, 1e3), worse=st.floats(1.0, 1e3))
@settings(deadline=None, max_examples=300)
def test_mttdl_falls_as_the_rebuild_reads_more_or_the_drives_err_more(chain, mtbf, x, read, uber, more, worse):
    """More bytes read (a larger drive), a worse UBER: a larger q, a lower MTTDL; never above q = 0's."""
    level, drives = chain
    rebuild = mtbf / 10**x
    base = mttdl_hours_markov(level, drives, mtbf, rebuild, 2, read, uber)
    assert 0 < base <= mttdl_hours_markov(level, drives, mtbf, rebuild)
    assert 0 < mttdl_hours_markov(level, drives, mtbf, rebuild, 2, read * more, uber) <= base
    assert 0 < mttdl_hours_markov(level, drives, mtbf, rebuild, 2, read, uber * worse) <= base


@given(n=st.integers(3, 24), mtbf=MTBF, x=st.floats(5.0, 9.0), read=BYTES, uber=UBER)
@example(n=10, mtbf=2e6, x=math.log10(2e6 / 5.69), read=9 * 61.44e12, uber=1e-17)  # xiraid-10x
@settings(deadline=None, max_examples=300)
def test_raid5_mttdl_follows_the_first_order_law(n, mtbf, x, read, uber):
    """mu >> lambda: a cycle of the chain lasts ~ 1 / (n lambda) and ends in loss with P(loss per
    rebuild) ~ P(another failure) + q, so MTTDL ~ 1 / (n lambda (P_fail + q)). The chain's own
    ((2n - 1) lambda + mu) / (n lambda ((n - 1) lambda + mu q)) differs from it by less than
    (2n - 1) lambda / mu + (n - 1) lambda / (2 mu) < 3 n lambda / mu (the stated tolerance)."""
    rebuild = mtbf / 10**x
    risk = rebuild_risk(5, n, mtbf, uber, rebuild, read)
    law_hours = 1.0 / (n / mtbf * (risk.p_another_failure + p_unrecoverable_read(read, uber)))
    assert risk.mttdl_years * HOURS_PER_YEAR == pytest.approx(law_hours, rel=3 * n * rebuild / mtbf)


@given(n=st.integers(4, 24), mtbf=MTBF, x=st.floats(4.0, 9.0), read=BYTES, uber=st.floats(1e-18, 1e-15))
@settings(deadline=None, max_examples=200)
def test_raid6_stays_far_above_raid5(n, mtbf, x, read, uber):
    """A URE in RAID6's chain loses data only from its third state: its MTTDL stays more than 100
    times RAID5's (~ 1 / ((n - 2) lambda / mu + q) times it, at mu / lambda >= 1e4)."""
    rebuild = mtbf / 10**x
    r5 = mttdl_hours_markov(5, n, mtbf, rebuild, 2, read, uber)
    assert mttdl_hours_markov(6, n, mtbf, rebuild, 2, read, uber) > 100 * r5


def test_xiraid_10x_mttdl_agrees_with_its_loss_per_rebuild():
    """The hunt's reproduction: 10 x 61.44 TB QLC RAID5, P(loss per rebuild) 0.0433 (almost all
    URE) beside an MTTDL of 891,276 years; the same model implies 1 / (0.0438 x 0.0433) ~ 527."""
    catalog = default_catalog()
    summary = rebuild_summary(load_scenario("scenarios/qlc-raid5-rebuild/xiraid-10x.yaml", catalog), catalog)
    drive = catalog.drives["solidigm-d5-p5336-61.44tb"]
    failures_per_year = 10 * HOURS_PER_YEAR / drive.mtbf_hours.value
    assert summary["data_loss_probability"] == pytest.approx(0.0433, abs=5e-4)
    assert summary["mttdl_years"] == pytest.approx(1 / (failures_per_year * summary["data_loss_probability"]), rel=1e-3)
    assert 500 < summary["mttdl_years"] < 560


# ------------------------------------------------------------------ P(data loss per rebuild)

@pytest.mark.parametrize("failures", [1, 2, 3])
@pytest.mark.parametrize("bits_x_uber", [0.05, 1.0, 6.0])
def test_the_ure_after_the_last_failure_matches_a_monte_carlo(failures, bits_x_uber):
    """E[1 - exp(-c V)], V = 1 - the latest of ``failures`` uniform failure times, against a seeded
    Monte Carlo: a URE happens where the first error's position in the reads (exponential, mean
    1 / c of them) falls after the last failure (2e6 draws: within 1%)."""
    rng = np.random.default_rng(20261130)
    draws = 2_000_000
    last = rng.random((draws, failures)).max(axis=1)
    first_error = rng.exponential(1.0 / bits_x_uber, draws)
    hit = float(np.mean(first_error < 1.0 - last))
    assert p_unrecoverable_read_after(failures, bits_x_uber / 8, 1.0) == pytest.approx(hit, rel=0.01)


@given(failures=st.integers(0, 4), c=st.floats(1e-12, 1e3))
@example(failures=1, c=1.0)  # where the series hands over to the recurrence
@example(failures=3, c=3.0)
@example(failures=3, c=3.0000001)
@settings(deadline=None, max_examples=300)
def test_the_ure_after_the_last_failure_equals_its_integral(failures, c):
    """The series (c <= s) and the recurrence (c > s) against quadrature of s (1 - v)^(s - 1)
    (1 - e^-cv) over [0, 1] (s = 0: every read), to 1e-9."""
    if failures == 0:
        expected = -math.expm1(-c)
    else:
        expected, _ = quad(lambda v: failures * (1 - v) ** (failures - 1) * -math.expm1(-c * v), 0.0, 1.0,
                           epsabs=0.0, epsrel=1e-12, limit=200, points=[min(1.0, 1.0 / c)])
    assert p_unrecoverable_read_after(failures, c / 8, 1.0) == pytest.approx(expected, rel=1e-9)


def test_a_raid6_rebuild_window_matches_a_monte_carlo():
    """The whole window, with rates raised so a Monte Carlo sees it: 8-drive RAID6 with one down,
    7 exposed drives, 1,000 h rebuild at 20,000 h MTBF (Poisson mean 0.35), one bit error per
    survivor bytes read on average: data is lost if 2 more fail, or exactly 1 fails and the first
    error in the reads lies after it (4e6 seeded draws: within 1%)."""
    mtbf, window, exposed, read, uber = 20_000.0, 1_000.0, 7, 1.0 / 8e-17, 1e-17
    rng = np.random.default_rng(7)
    draws = 4_000_000
    failed = rng.poisson(exposed * window / mtbf, draws)
    after_one = 1.0 - rng.random(draws)  # the reads left after a single uniform failure time
    ure = rng.exponential(1.0, draws) < after_one  # the first error, one expected over all the reads
    lost = float(np.mean((failed >= 2) | ((failed == 1) & ure)))
    risk = rebuild_risk(6, 8, mtbf, uber, window, read)
    assert risk.p_data_loss == pytest.approx(lost, rel=0.01)
    assert risk.p_data_loss == risk.p_another_failure + risk.p_unrecoverable_read


@given(level=st.sampled_from([1, 5, 10]), mtbf=MTBF, window=st.floats(0.01, 1e3), read=BYTES, uber=UBER)
@settings(deadline=None, max_examples=200)
def test_raid5_and_two_way_mirrors_keep_todays_loss_per_rebuild(level, mtbf, window, read, uber):
    """No redundancy left (s = 0): P(loss) = 1 - (1 - P_fail)(1 - P_URE over all the reads), as
    before (to that form's own rounding: 1 - (1 - p) loses an ulp of 1, 2.2e-16, absolute)."""
    drives = 2 if level == 1 else 8
    risk = rebuild_risk(level, drives, mtbf, uber, window, read)
    exposed = 1 if level in (1, 10) else drives - 1
    p_fail = p_failures_during(window, exposed, 1, mtbf)
    today = 1.0 - (1.0 - p_fail) * (1.0 - p_unrecoverable_read(read, uber))
    assert risk.p_another_failure == p_fail
    assert risk.p_data_loss == pytest.approx(today, rel=1e-12, abs=1e-15)


@given(level=st.sampled_from([5, 6, 1, 10]), mtbf=MTBF, window=st.floats(0.01, 1e3), read=BYTES, uber=UBER,
       more=st.floats(1.0, 1e3))
@settings(deadline=None, max_examples=200)
def test_loss_per_rebuild_is_a_probability_and_grows_with_the_reads(level, mtbf, window, read, uber, more):
    drives = 3 if level == 1 else 8  # RAID1: a three-way mirror, one spare copy during the rebuild
    base = rebuild_risk(level, drives, mtbf, uber, window, read)
    assert 0.0 <= base.p_data_loss <= 1.0
    assert rebuild_risk(level, drives, mtbf, uber, window, read * more).p_data_loss >= base.p_data_loss
    assert rebuild_risk(level, drives, mtbf, uber * more, window, read).p_data_loss >= base.p_data_loss


def test_the_12_drive_raid6_reproduction_counts_a_failure_then_a_ure():
    """The hunt's s1: 12 x 30.72 TB RAID6, a 37.15 h rebuild reading 11 x 30.72 TB: printed 1 in
    74.8 million (two more failures alone); with one more failure then a URE, about 1 in 500,000."""
    drive = default_catalog().drives["kioxia-cm7-r-30.72tb"]
    mtbf, uber, read = drive.mtbf_hours.value, drive.uber_per_bit.value, 11 * 30.72e12
    risk = rebuild_risk(6, 12, mtbf, uber, 37.15, read)
    assert 1 / risk.p_another_failure == pytest.approx(74.8e6, rel=0.01)
    expected = p_exact_failures_during(37.15, 11, 1, mtbf) * p_unrecoverable_read_after(1, read, uber)
    assert risk.p_unrecoverable_read == pytest.approx(expected, rel=1e-12)
    assert 3e5 < 1 / risk.p_data_loss < 7e5


@pytest.mark.parametrize("failures", [1, 2])
@pytest.mark.parametrize("wait_share", [0.5, 0.9])
def test_a_failure_during_the_wait_for_a_new_drive_leaves_every_read_unprotected(failures, wait_share):
    """No hot spare (``array.replace_hours``): the window is a wait that reads nothing, then the
    rebuild's reads. A failure in the wait precedes every read, so the share of reads left after the
    last failure is min(1, (1 - last) / (1 - wait share)). Seeded Monte Carlo, 2e6 draws: within 1%.
    Before, the wait was folded into the reads' window (the failure uniform over the reads): a
    RAID6 waiting 72 h for a 5.2 h rebuild got about half this URE term."""
    rng = np.random.default_rng(20261201)
    draws, c = 2_000_000, 1.0
    last = rng.random((draws, failures)).max(axis=1)
    left = np.minimum(1.0, (1.0 - last) / (1.0 - wait_share))
    hit = float(np.mean(rng.exponential(1.0 / c, draws) < left))
    assert p_unrecoverable_read_after_wait(failures, c / 8, 1.0, wait_share) == pytest.approx(hit, rel=0.01)
    assert p_unrecoverable_read_after_wait(failures, c / 8, 1.0, 0.0) == p_unrecoverable_read_after(failures, c / 8, 1.0)


def test_raid6_waiting_for_a_new_drive_counts_the_wait_before_the_reads():
    """RAID6 of 8, 72 h waiting then a 5.2 h rebuild: the failure-then-URE term is P(one failure in
    the 77.2 h) times the URE of the reads left after it, where a failure in the 72 h leaves them all
    (a = 72 / 77.2: a I_0 + (1 - a) I_1); more failures over the whole window, MTTDL's repair the two."""
    mtbf, uber, read, wait, rebuild = 2.5e6, 1e-17, 7 * 3.84e12, 72.0, 5.2
    risk = rebuild_risk(6, 8, mtbf, uber, rebuild, read, wait_hours=wait)
    a = wait / (wait + rebuild)
    expected = p_exact_failures_during(wait + rebuild, 7, 1, mtbf) * (
        a * p_unrecoverable_read(read, uber) + (1 - a) * p_unrecoverable_read_after(1, read, uber))
    assert risk.p_unrecoverable_read == pytest.approx(expected, rel=1e-12)
    assert risk.p_another_failure == p_failures_during(wait + rebuild, 7, 2, mtbf)
    assert risk.mttdl_years == rebuild_risk(6, 8, mtbf, uber, wait + rebuild, read).mttdl_years
    assert risk.p_unrecoverable_read > 1.8 * rebuild_risk(6, 8, mtbf, uber, wait + rebuild, read).p_unrecoverable_read
