"""The risk of losing data: drive failures (AFR from the datasheet MTBF) and unrecoverable read
errors (UBER) during a rebuild window, and the array's mean time to data loss (Markov model).

Sources (models/bibliography.yaml ``markov-mttdl``): Patterson, Gibson and Katz (1988) and Chen
et al. (1994) for the birth-death Markov chains; drives fail independently at a constant rate
lambda = 1 / MTBF, a rebuild ends at rate mu = 1 / rebuild time (the predicted one, not a
typed-in one). docs/models/rebuild.md states every formula.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from scipy.special import gammainc

from .raid import failures_tolerated

HOURS_PER_YEAR = 8766.0  # 365.25 days


def annual_failure_rate(mtbf_hours: float) -> float:
    """AFR = 1 - exp(-8766 h / MTBF): the chance one drive fails within a year."""
    return 1.0 - math.exp(-HOURS_PER_YEAR / mtbf_hours)


def mttdl_hours_markov(level: int, drives: int, mtbf_hours: float, rebuild_hours: float, copies: int = 2) -> float:
    """Mean time to data loss: expected time to absorption of the birth-death Markov chain of
    failed drives (Chen et al. 1994). State k (0..t, t the failures tolerated) goes to k + 1 at
    (n - k) lambda and back to k - 1 at mu (one rebuild at a time); from state t one more failure
    loses data. RAID10: each mirror set of ``copies`` drives is such a chain, the array loses data
    at the first set that does (sets / MTTDL_set). For RAID5 this gives ((2n - 1) lambda + mu) /
    (n (n - 1) lambda^2), ~ MTBF^2 / (n (n - 1) MTTR) (Patterson et al. 1988)."""
    lam, mu = 1.0 / mtbf_hours, 1.0 / rebuild_hours
    if level in (1, 10):
        sets = max(1, drives // copies) if level == 10 else 1
        n, t = copies if level == 10 else drives, (copies if level == 10 else drives) - 1
        return _absorption_hours(n, t, lam, mu) / sets
    return _absorption_hours(drives, failures_tolerated(level, drives, copies) if drives > 1 else 0, lam, mu)


def _absorption_hours(n: int, t: int, lam: float, mu: float) -> float:
    """Expected hours from state 0 to loss: the sum of h_k, the expected time to climb from k
    failed drives to k + 1. First-step analysis of the birth-death chain gives h_0 = 1 / lambda_0
    and lambda_k h_k = 1 + mu h_(k-1), lambda_k = (n - k) lambda (mean first-passage times of a
    birth and death process: Karlin and Taylor, A First Course in Stochastic Processes, 1975;
    Trivedi, Probability and Statistics with Reliability, Queuing, and Computer Science
    Applications, 2002). The same T as Q T = -1, but a sum of products of positive terms: no
    cancellation where mu / lambda reaches 1e9 and more (a short rebuild), where the LU solve of Q
    lost every digit (negative or random-sign MTTDLs)."""
    climb = total = 0.0
    for k in range(t + 1):
        up = (n - k) * lam
        climb = (1.0 + mu * climb) / up
        total += climb
    return total


def p_failures_during(window_hours: float, exposed_drives: int, needed: int, mtbf_hours: float) -> float:
    """Chance of at least ``needed`` more failures among ``exposed_drives`` within the window
    (Poisson with mean exposed x window / MTBF)."""
    if needed <= 0:
        return 1.0
    # P(Poisson(mean) >= k) = the regularised lower incomplete gamma function P(k, mean)
    return float(gammainc(needed, exposed_drives * window_hours / mtbf_hours))


def p_unrecoverable_read(bytes_read: float, uber_per_bit: float) -> float:
    """Chance of at least one unrecoverable read error over ``bytes_read`` (1 - exp(-bits x UBER))."""
    return 1.0 - math.exp(-8.0 * bytes_read * uber_per_bit)


@dataclass(frozen=True)
class RebuildRisk:
    rebuild_hours: float
    annual_failure_rate: float
    p_another_failure: float  # enough further failures during the rebuild to lose data
    p_unrecoverable_read: float  # a URE on the survivors while no redundancy is left to correct it
    p_data_loss: float  # either of the above
    mttdl_years: float
    survivor_bytes_read: float

    def as_dict(self) -> dict:
        return asdict(self)


def rebuild_risk(level: int, drives: int, mtbf_hours: float, uber_per_bit: float, rebuild_hours: float,
                 survivor_bytes_read: float, copies: int = 2, already_failed: int = 1) -> RebuildRisk:
    """Risk of one rebuild window after ``already_failed`` drives failed.

    Data is lost if ``tolerated - already_failed + 1`` more drives fail before the rebuild ends, or
    if an unrecoverable read error hits a stripe that has no redundancy left (RAID5, mirrors, or
    RAID6 with two down); RAID6 with one down corrects a URE with its second parity.
    """
    tolerance = failures_tolerated(level, drives, copies)
    spare = tolerance - already_failed
    if level in (1, 10):  # only the lost drive's mirror partners matter (RAID1: every drive)
        exposed = (drives if level == 1 else copies) - already_failed
    else:
        exposed = drives - already_failed
    p_fail = p_failures_during(rebuild_hours, exposed, spare + 1, mtbf_hours) if spare >= 0 else 1.0
    p_ure = p_unrecoverable_read(survivor_bytes_read, uber_per_bit) if spare == 0 else 0.0
    return RebuildRisk(
        rebuild_hours=rebuild_hours, annual_failure_rate=annual_failure_rate(mtbf_hours), p_another_failure=p_fail,
        p_unrecoverable_read=p_ure, p_data_loss=1.0 - (1.0 - p_fail) * (1.0 - p_ure),
        mttdl_years=mttdl_hours_markov(level, drives, mtbf_hours, rebuild_hours, copies) / HOURS_PER_YEAR,
        survivor_bytes_read=survivor_bytes_read,
    )


__all__ = ["annual_failure_rate", "mttdl_hours_markov", "p_failures_during", "p_unrecoverable_read",
           "rebuild_risk", "RebuildRisk", "HOURS_PER_YEAR"]
