"""MTTDL (Markov) stays right where the chain is badly conditioned: a rebuild many orders of
magnitude shorter than the drives' MTBF (mu / lambda from 1 to 1e15). Oracles: the closed forms of
the RAID5 and RAID6 birth-death chains, and an exact rational (fractions.Fraction) solve of
Q T = -1 over the transient states (with the last state's unrecoverable reads, and md RAID10's ring
on a drive count its copies do not divide, whose exposed drives come from nvsim's planner); laws:
MTTDL is positive, finite, and falls as the rebuild lengthens or the drives fail more often."""

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.raid import failures_tolerated
from nvsim.rebuild import rebuild_summary
from nvsim.risk import HOURS_PER_YEAR, mttdl_hours_markov, p_unrecoverable_read, rebuild_risk
from nvsim.scenario import parse_scenario
from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import Mode, plan_ios

# RAID1 mirrors every member: keep it to 4 drives, its MTTDL (~ mu^(n-1) / lambda^n) overflowing float64 beyond
CHAINS = st.one_of(st.tuples(st.just(1), st.integers(2, 4)), st.tuples(st.sampled_from([5, 6, 10]), st.integers(4, 24)))
MTBF = st.floats(1e3, 1e8)
RATIO_EXPONENT = st.floats(0.0, 15.0)  # mu / lambda = MTBF / rebuild hours = 10^x


def _exact_absorption(n: int, t: int, lam: float, mu: float, q: float = 0.0, climbing: list[int] | None = None) -> Fraction:
    """Expected time from state 0 to loss, by Gauss-Jordan elimination of Q T = -1 in exact
    rationals (the chain's own generator, rounding-free): the oracle, independent of nvsim.risk.
    ``climbing[k]``: the drives able to fail in state k (default n - k); ``q``: the chance the last
    state's rebuild hits an unrecoverable read (that share of its repairs ends in loss)."""
    lam_q, mu_q, q_q = Fraction(lam), Fraction(mu), Fraction(q)
    climbing = climbing or [n - k for k in range(t + 1)]
    rows = []
    for k in range(t + 1):
        row = [Fraction(0)] * (t + 2)
        up, down = climbing[k] * lam_q, (mu_q if k > 0 else Fraction(0))
        lost = down * q_q if k == t else Fraction(0)  # repairs that end in loss
        row[k] = -(up + down)
        if k < t:
            row[k + 1] = up
        if k > 0:
            row[k - 1] = down - lost
        row[t + 1] = Fraction(-1)
        rows.append(row)
    for c in range(t + 1):
        pivot = next(r for r in range(c, t + 1) if rows[r][c] != 0)
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(t + 1):
            if r != c and rows[r][c] != 0:
                f = rows[r][c] / rows[c][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[c])]
    return rows[0][t + 1] / rows[0][0]


@lru_cache(maxsize=None)
def planner_partners(drives: int, copies: int) -> int:
    """Members that hold a copy of a chunk member 0 holds, on nvsim's planner: with member 0 failed,
    a write to each chunk of the layout's period, and the members written by the degraded ones
    (those whose chunk had a copy on member 0). Independent of nvsim.risk's count."""
    strip = 4096
    g = ArrayGeometry(10, drives, strip, member_size_bytes=strip * drives * copies, copies=copies)
    plan = plan_ios(g, True, np.arange(drives * copies, dtype=np.int64) * strip, strip, failed_members=(0,))
    degraded = np.flatnonzero(plan.mode == Mode.DEGRADED_WRITE)
    return len(set(plan.member[np.isin(plan.host_index, degraded)].tolist()))


def _exact_mttdl_hours(level: int, drives: int, mtbf: float, rebuild: float, copies: int = 2, q: float = 0.0) -> Fraction:
    lam, mu = 1.0 / mtbf, 1.0 / rebuild  # the same float rates nvsim.risk starts from
    if level == 10 and drives % copies:  # a ring: one chain, the first failure's partners exposed
        exposed = planner_partners(drives, copies)
        climbing = [drives] + [exposed - (k - 1) for k in range(1, copies)]
        return _exact_absorption(drives, copies - 1, lam, mu, q, climbing)
    if level in (1, 10):
        n = copies if level == 10 else drives
        sets = max(1, drives // copies) if level == 10 else 1
        return _exact_absorption(n, n - 1, lam, mu, q) / sets
    return _exact_absorption(drives, failures_tolerated(level, drives, copies), lam, mu, q)


def _raid5_closed_form(n: int, lam: float, mu: float) -> float:
    return (mu + (2 * n - 1) * lam) / (n * (n - 1) * lam**2)


def _raid6_closed_form(n: int, lam: float, mu: float) -> float:
    """The same chain with two tolerated: (mu^2 + 2 (n - 1) lambda mu + (3 n^2 - 6 n + 2) lambda^2)
    / (n (n - 1) (n - 2) lambda^3), every term positive."""
    return (mu**2 + 2 * (n - 1) * lam * mu + (3 * n * n - 6 * n + 2) * lam**2) / (n * (n - 1) * (n - 2) * lam**3)


@pytest.mark.parametrize("level, closed_form", [(5, _raid5_closed_form), (6, _raid6_closed_form)])
@given(n=st.integers(4, 64), mtbf=MTBF, x=RATIO_EXPONENT)
@example(n=8, mtbf=2e6, x=11.0)
@example(n=8, mtbf=2e6, x=15.0)
@settings(deadline=None, max_examples=300)
def test_raid5_and_raid6_equal_their_closed_forms_across_conditioning(level, closed_form, n, mtbf, x):
    rebuild = mtbf / 10**x
    lam, mu = 1.0 / mtbf, 1.0 / rebuild
    assert mttdl_hours_markov(level, n, mtbf, rebuild) == pytest.approx(closed_form(n, lam, mu), rel=1e-9)


def test_the_raid6_closed_form_is_the_chains_own():
    """The oracle above checked against the exact rational solve, so it is not a second guess."""
    for n, lam, mu in [(4, 1e-6, 1.0), (8, 5e-7, 4.4e4), (24, 1e-3, 1e-3)]:
        assert _raid6_closed_form(n, lam, mu) == pytest.approx(float(_exact_absorption(n, 2, lam, mu)), rel=1e-12)


@given(chain=CHAINS, copies=st.integers(2, 3), mtbf=MTBF, x=RATIO_EXPONENT)
@example(chain=(6, 8), copies=2, mtbf=2e6, x=11.0)
@example(chain=(1, 4), copies=2, mtbf=2e6, x=12.0)
@settings(deadline=None, max_examples=200)
def test_every_level_equals_the_exact_rational_solve(chain, copies, mtbf, x):
    level, drives = chain
    rebuild = mtbf / 10**x
    got = mttdl_hours_markov(level, drives, mtbf, rebuild, copies)
    assert got == pytest.approx(float(_exact_mttdl_hours(level, drives, mtbf, rebuild, copies)), rel=1e-9)


@given(chain=CHAINS, copies=st.integers(2, 3), mtbf=MTBF, x=st.floats(0.0, 12.0), read_bits=st.floats(0.0, 30.0))
@example(chain=(5, 10), copies=2, mtbf=2e6, x=5.0, read_bits=4.4)  # xiraid-10x: q ~ 0.04 at mu / lambda ~ 4e5
@example(chain=(10, 5), copies=2, mtbf=2e6, x=6.0, read_bits=0.5)
@settings(deadline=None, max_examples=200)
def test_every_level_with_unrecoverable_reads_equals_the_exact_rational_solve(chain, copies, mtbf, x, read_bits):
    """State t's rebuild ends in loss at mu q (q the chance of a URE in its reads), back at
    mu (1 - q): nvsim's recurrence against the exact solve of that generator, for q from 0 to
    1 - e^-3 (bits read x UBER = ``read_bits`` / 10)."""
    level, drives = chain
    rebuild, uber = mtbf / 10**x, 1e-15
    survivor_bytes = read_bits / 10 / 8 / uber
    q = p_unrecoverable_read(survivor_bytes, uber)
    got = mttdl_hours_markov(level, drives, mtbf, rebuild, copies, survivor_bytes, uber)
    assert got == pytest.approx(float(_exact_mttdl_hours(level, drives, mtbf, rebuild, copies, q)), rel=1e-9)


@given(chain=CHAINS, mtbf=MTBF, x=RATIO_EXPONENT, longer=st.floats(1.0, 1e6), frailer=st.floats(1.0, 1e6))
@example(chain=(6, 8), mtbf=2e6, x=11.0, longer=1.5, frailer=1.5)
@settings(deadline=None, max_examples=300)
def test_mttdl_is_positive_finite_and_falls_with_longer_rebuilds_and_frailer_drives(chain, mtbf, x, longer, frailer):
    level, drives = chain
    rebuild = mtbf / 10**x
    base = mttdl_hours_markov(level, drives, mtbf, rebuild)
    assert 0 < base < math.inf
    assert 0 < mttdl_hours_markov(level, drives, mtbf, rebuild * longer) <= base
    assert 0 < mttdl_hours_markov(level, drives, mtbf / frailer, rebuild) <= base


def _reproduction(span_bytes: int | None = None) -> dict:
    array = {"level": 6, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB",
             "engine": "linux-md", "namespace_bytes": "16MiB"}
    if span_bytes is not None:
        array["rebuild"] = {"span_bytes": span_bytes}
    return {"name": "mttdl", "platform": "dell-poweredge-r750", "array": array,
            "workloads": [{"name": "w", "rw": "randread", "bs": "4k", "iodepth": 4, "numjobs": 1}]}


@pytest.mark.parametrize("span_bytes", [None, 1, 4096, 16 << 20])
def test_a_seconds_long_rebuild_gives_the_exact_mttdl(span_bytes):
    """The hunt's reproduction: an 8-drive RAID6 rebuilding a 16 MiB namespace in a fraction of a
    second (mu / lambda ~ 1e11) gave -2.04e17 years; spans of 1 B to 16 MiB gave random signs (a span
    of 1 GiB, more than the namespace, is refused since 2026-11-30: it was clamped to it in
    silence). nvsim run's resilience figure must match the exact solve."""
    summary = rebuild_summary(parse_scenario(_reproduction(span_bytes)))
    hours, years, read = summary["rebuild_hours"], summary["mttdl_years"], summary["survivor_bytes_read"]
    uber = default_catalog().drives["intel-d7-p5510-3.84tb"].uber_per_bit.value
    exact = float(_exact_mttdl_hours(6, 8, 2_000_000.0, hours, q=p_unrecoverable_read(read, uber))) / HOURS_PER_YEAR
    assert 0 < years < math.inf
    assert years == pytest.approx(exact, rel=1e-6)
    assert years == pytest.approx(rebuild_risk(6, 8, 2_000_000.0, uber, hours, read).mttdl_years, rel=1e-12)


def test_a_span_beyond_the_namespace_is_refused_in_one_line():
    with pytest.raises(InputError, match=r"rebuild\.span_bytes: more than a member holds; allowed: at most 16\.78 MB"):
        parse_scenario(_reproduction(1 << 30))
