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

from .raid import copy_sets, failures_tolerated

HOURS_PER_YEAR = 8766.0  # 365.25 days
SERIES_TERMS_MAX = 200
"""Terms at most of ``p_unrecoverable_read_after``'s series, summed where c <= s: the k-th term is
c / (s + k) of the one before, a ratio that falls with k, so 200 reach float64's precision for
every s an array has (at s = 255, c = 255 the 200th is e^-64 of the first; within 2e-15 of
quadrature there)."""


def annual_failure_rate(mtbf_hours: float) -> float:
    """AFR = 1 - exp(-8766 h / MTBF): the chance one drive fails within a year."""
    return 1.0 - math.exp(-HOURS_PER_YEAR / mtbf_hours)


def raid10_partners(drives: int, copies: int, kind: str = "near") -> int:
    """Members that hold a copy of some chunk member 0 holds, in md's RAID10 ``kind`` of layout as
    nvsim's planner lays it out (``raid.copy_sets``). Near: ``copies - 1`` where the copies divide
    the drives (disjoint mirror sets); more where they do not: on 3 or 5 drives with 2 copies the
    chunks wrap around a ring and each drive shares chunks with both neighbours. Far and offset
    (copy t of chunk c on member (c + t) mod n) are such a ring on any count: 2 (copies - 1)
    partners, at most the other drives."""
    shared: set[int] = set()
    for members in copy_sets(10, drives, copies, kind):
        if 0 in members:
            shared |= members
    return len(shared - {0})


def mttdl_hours_markov(level: int, drives: int, mtbf_hours: float, rebuild_hours: float, copies: int = 2,
                       survivor_bytes_read: float = 0.0, uber_per_bit: float = 0.0, kind: str = "near") -> float:
    """Mean time to data loss: expected time to absorption of the birth-death Markov chain of
    failed drives (Chen et al. 1994). State k (0..t, t the failures tolerated) goes to k + 1 at
    (n - k) lambda and back to k - 1 at mu (one rebuild at a time); from state t one more failure
    loses data, and so does an unrecoverable read in the rebuild's ``survivor_bytes_read`` (q =
    ``p_unrecoverable_read``: state t's rebuild ends at mu (1 - q) back to t - 1 and at mu q in
    loss; no URE by default). RAID10: where the copies divide the drives each mirror set of
    ``copies`` drives is such a chain, the array loses data at the first set that does
    (sets / MTTDL_set); otherwise (and for far and offset ``kind``, rings on any count) one chain
    over all drives (``_climbing_drives``). For RAID5 at
    q = 0 this gives ((2n - 1) lambda + mu) / (n (n - 1) lambda^2), ~ MTBF^2 / (n (n - 1) MTTR)
    (Patterson et al. 1988); for q >> lambda / mu, ~ 1 / (n lambda (P(another failure) + q))."""
    lam, mu = 1.0 / mtbf_hours, 1.0 / rebuild_hours
    q = p_unrecoverable_read(survivor_bytes_read, uber_per_bit)
    sets = max(1, drives // copies) if level == 10 and not _ring(drives, copies, kind) else 1
    return _absorption_hours(_climbing_drives(level, drives, copies, kind), lam, mu, q) / sets


def _ring(drives: int, copies: int, kind: str) -> bool:
    """Whether a RAID10's copy sets overlap around a ring (near copies that do not divide the
    drives; far and offset on more drives than copies) rather than split it into mirror sets."""
    return drives % copies != 0 or (kind != "near" and drives > copies)


def _climbing_drives(level: int, drives: int, copies: int, kind: str = "near") -> list[int]:
    """Per state k of the chain, the drives whose failure takes it to k + 1: n - k for n drives
    tolerating t (a RAID10 mirror set: n = copies). A RAID10 whose copies do not divide the drives
    is one chain: all n drives in state 0, then only the drives exposed by the failures
    (``raid10_partners`` of the first, one fewer per further failure) -- an approximation: a failure
    of a drive the failed ones share no chunk with is ignored (it neither loses data nor slows the
    climb), where a whole chain would count it."""
    if level == 10 and _ring(drives, copies, kind):
        exposed = raid10_partners(drives, copies, kind)
        return [drives] + [exposed - (k - 1) for k in range(1, copies)]
    n = copies if level == 10 else drives
    t = copies - 1 if level == 10 else (failures_tolerated(level, drives, copies) if drives > 1 else 0)
    return [n - k for k in range(t + 1)]


def _absorption_hours(climbing: list[int], lam: float, mu: float, q: float = 0.0) -> float:
    """Expected hours from state 0 to loss: the sum of h_k, the expected time to climb from k
    failed drives to k + 1 (``climbing[k]`` drives able to fail in state k). First-step analysis
    of the birth-death chain gives h_0 = 1 / lambda_0 and lambda_k h_k = 1 + mu_k h_(k-1),
    lambda_k = climbing[k] lambda, mu_k = mu (mean first-passage times of a birth and death
    process: Karlin and Taylor, A First Course in Stochastic Processes, 1975; Trivedi, Probability
    and Statistics with Reliability, Queuing, and Computer Science Applications, 2002); in the last
    state (t >= 1, rebuilding with no redundancy left) a URE in the rebuild's reads is a way up
    too: lambda_t + mu q up, mu (1 - q) down. The same T as Q T = -1, but a sum of products of
    positive terms: no cancellation where mu / lambda reaches 1e9 and more (a short rebuild),
    where the LU solve of Q lost every digit (negative or random-sign MTTDLs)."""
    climb = total = 0.0
    last = len(climbing) - 1
    for k, able in enumerate(climbing):
        up, down = able * lam, mu
        if k == last and k > 0:
            up, down = up + mu * q, mu * (1.0 - q)
        climb = (1.0 + down * climb) / up
        total += climb
    return total


def p_failures_during(window_hours: float, exposed_drives: int, needed: int, mtbf_hours: float) -> float:
    """Chance of at least ``needed`` more failures among ``exposed_drives`` within the window
    (Poisson with mean exposed x window / MTBF)."""
    if needed <= 0:
        return 1.0
    # P(Poisson(mean) >= k) = the regularised lower incomplete gamma function P(k, mean)
    return float(gammainc(needed, exposed_drives * window_hours / mtbf_hours))


def p_exact_failures_during(window_hours: float, exposed_drives: int, count: int, mtbf_hours: float) -> float:
    """Chance of exactly ``count`` more failures among ``exposed_drives`` within the window (the
    same Poisson as ``p_failures_during``: e^-m m^count / count!)."""
    mean = exposed_drives * window_hours / mtbf_hours
    return math.exp(-mean) * mean**count / math.factorial(count)


def p_unrecoverable_read(bytes_read: float, uber_per_bit: float) -> float:
    """Chance of at least one unrecoverable read error over ``bytes_read`` (1 - exp(-bits x UBER))."""
    return 1.0 - math.exp(-8.0 * bytes_read * uber_per_bit)


def p_unrecoverable_read_after(failures: int, bytes_read: float, uber_per_bit: float) -> float:
    """Chance of a URE in the share of a rebuild's ``bytes_read`` left after the last of
    ``failures`` further failures, each at a uniform time in the window (a Poisson process's
    failures, given their count): V = 1 - max of ``failures`` uniforms, density s (1 - v)^(s - 1),
    and E[1 - exp(-c V)], c = 8 bytes UBER. Integrated by parts, I_s = integral of c e^(-cv)
    (1 - v)^s over [0, 1], with I_0 = 1 - e^-c (every read: ``p_unrecoverable_read``) and
    I_s = 1 - (s / c) I_(s-1), run forward where c > s (each step shrinks the error before it),
    else the series 1 - 1F1(1; s + 1; -c) = sum over k >= 1 of -(-c)^k / ((s + 1) ... (s + k))
    (each term below the one before)."""
    c = 8.0 * bytes_read * uber_per_bit
    if failures == 0 or c > failures:
        ure = -math.expm1(-c)
        for s in range(1, failures + 1):
            ure = 1.0 - s / c * ure
        return ure
    total, term = 0.0, -1.0
    for k in range(1, SERIES_TERMS_MAX + 1):
        term *= -c / (failures + k)
        total += term
        if abs(term) <= 1e-17 * abs(total):
            break
    return total


@dataclass(frozen=True)
class RebuildRisk:
    rebuild_hours: float
    annual_failure_rate: float
    p_another_failure: float  # enough further failures during the rebuild to lose data
    # losing data through a URE: every one further failure the level still tolerates happens in
    # the window (exactly that many), then a URE on the survivors in the rest of the rebuild's
    # reads, with no redundancy left to correct it (RAID5 or a two-way mirror: a URE anywhere
    # in the reads, with no further failure)
    p_unrecoverable_read: float
    p_data_loss: float  # either of the above (they exclude each other): their sum (at most 1, the rounding's ulp held)
    mttdl_years: float
    survivor_bytes_read: float

    def as_dict(self) -> dict:
        return asdict(self)


def p_unrecoverable_read_after_wait(failures: int, bytes_read: float, uber_per_bit: float, wait_share: float) -> float:
    """``p_unrecoverable_read_after`` where the window starts with a wait that reads nothing (no hot
    spare: the degraded hours until a new drive takes the slot, ``wait_share`` of the window): of the
    ``failures`` uniform over the window, each falls in the wait with chance a = ``wait_share``, and
    one there leaves every read of the rebuild unprotected. Given k of them in the rebuild's part
    (binomial, s and 1 - a), V = 1 - the latest of k uniforms over the reads: sum over k of
    C(s, k) a^(s - k) (1 - a)^k I_k (I_0 = every read). At a = 0 it is ``p_unrecoverable_read_after``."""
    if wait_share <= 0.0 or failures == 0:
        return p_unrecoverable_read_after(failures, bytes_read, uber_per_bit)
    return sum(math.comb(failures, k) * wait_share ** (failures - k) * (1.0 - wait_share) ** k
               * p_unrecoverable_read_after(k, bytes_read, uber_per_bit) for k in range(failures + 1))


def rebuild_risk(level: int, drives: int, mtbf_hours: float, uber_per_bit: float, rebuild_hours: float,
                 survivor_bytes_read: float, copies: int = 2, already_failed: int = 1,
                 wait_hours: float = 0.0, kind: str = "near") -> RebuildRisk:
    """Risk of one rebuild window after ``already_failed`` drives failed: ``rebuild_hours`` of
    rebuild after ``wait_hours`` degraded with nothing read (no hot spare: the wait for a new drive).

    Data is lost if ``s + 1`` more drives fail before the rebuild ends (s = tolerated -
    already_failed, the spare redundancy; over the wait and the rebuild), or if exactly ``s`` more
    fail and an unrecoverable read error hits the rest of the rebuild's reads, no redundancy being
    left to correct it (``p_unrecoverable_read_after``; s = 0: RAID5 or a two-way mirror, a URE in
    any of the reads; a failure during the wait precedes every read, ``p_unrecoverable_read_after_wait``).
    The MTTDL's repair time is the wait and the rebuild. ``kind``: RAID10's layout (near, far,
    offset), whose copy sets say which drives share the lost one's chunks (``raid10_partners``).
    """
    spare = failures_tolerated(level, drives, copies) - already_failed
    exposed = _exposed_drives(level, drives, copies, already_failed, kind)
    window = wait_hours + rebuild_hours
    p_fail, p_ure = 1.0, 0.0
    if spare >= 0:
        p_fail = p_failures_during(window, exposed, spare + 1, mtbf_hours)
        p_ure = p_exact_failures_during(window, exposed, spare, mtbf_hours) * \
            p_unrecoverable_read_after_wait(spare, survivor_bytes_read, uber_per_bit, wait_hours / window)
    mttdl_hours = mttdl_hours_markov(level, drives, mtbf_hours, window, copies, survivor_bytes_read, uber_per_bit, kind)
    return RebuildRisk(
        rebuild_hours=window, annual_failure_rate=annual_failure_rate(mtbf_hours), p_another_failure=p_fail,
        p_unrecoverable_read=p_ure, p_data_loss=min(1.0, p_fail + p_ure), mttdl_years=mttdl_hours / HOURS_PER_YEAR,
        survivor_bytes_read=survivor_bytes_read,
    )


def _exposed_drives(level: int, drives: int, copies: int, already_failed: int, kind: str = "near") -> int:
    """Drives whose failure during the rebuild counts: the survivors; RAID1 every other drive;
    RAID10 the lost drive's partners (``raid10_partners``: its mirror set, or both neighbours of a
    ring), one fewer for each further drive already failed."""
    if level == 1:
        return drives - already_failed
    if level == 10:
        return max(0, raid10_partners(drives, copies, kind) - (already_failed - 1))
    return drives - already_failed


__all__ = ["annual_failure_rate", "mttdl_hours_markov", "p_failures_during", "p_exact_failures_during",
           "p_unrecoverable_read", "p_unrecoverable_read_after", "p_unrecoverable_read_after_wait", "raid10_partners",
           "rebuild_risk", "RebuildRisk", "HOURS_PER_YEAR"]
