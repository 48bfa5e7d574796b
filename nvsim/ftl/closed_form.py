"""Closed-form steady-state write amplification of a page-mapped FTL.

Source: P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012; extended in ACM
Transactions on Storage 10(2), 2014 ("Analytic models of SSD write performance").

Conventions (Desnoyers'): T physical pages, U logical (user) pages, spare factor
``Sf = (T - U) / T`` and ``alpha = T / U = 1 / (1 - Sf)``. Write amplification A = NAND page
writes / host page writes, with one write frontier shared by host writes and GC copies.

LRU (FIFO) cleaning under uniform random writes. A block written now is cleaned after the whole
device has been rewritten once; meanwhile the host writes ``T (1 - x)`` pages, x being the fraction
still valid at cleaning. A page survives each host write with probability ``1 - 1/U``, so
``x = exp(-alpha (1 - x))``, whose non-trivial root is ``x = -W0(-alpha e^-alpha) / alpha``
(Lambert W, principal branch), and ``A = 1 / (1 - x) = alpha / (alpha + W0(-alpha e^-alpha))``.

Greedy cleaning: Desnoyers shows that under uniform traffic greedy converges to the LRU result as
the number of pages per block grows (the valid count of a block becomes a deterministic function of
its age, so the emptiest block is the oldest). Real drives clean superblocks of thousands of
mapping units, so the large-block limit is the one used for drives; the Numba simulation
(``nvsim.ftl.simulate``) checks it on a scaled drive.

Static data (never written after the fill) is where greedy and LRU part: LRU copies it once per
pass, greedy never picks its full blocks, so under greedy it leaves the pool and the written data
sees the whole spare (``spare_factor_active_range``, ``waf_classes_greedy_desnoyers2012``).
"""

from __future__ import annotations

import math

import numpy as np


def _alpha(spare_factor: float) -> float:
    if not 0.0 < spare_factor < 1.0:
        raise ValueError(f"spare_factor must be in (0, 1), got {spare_factor}")
    return 1.0 / (1.0 - spare_factor)


def spare_factor_from_capacity(physical_bytes: float, logical_bytes: float) -> float:
    """Desnoyers' Sf = (T - U) / T: unallocated namespace capacity joins the spare pool."""
    if not 0 < logical_bytes < physical_bytes:
        raise ValueError("logical capacity must be positive and below the physical capacity")
    return (physical_bytes - logical_bytes) / physical_bytes


def spare_factor_active_range(spare_factor: float, active_fraction: float) -> float:
    """The spare factor of the data a workload rewrites when it rewrites only ``active_fraction``
    (r) of the user data: ``Sf' = (T - U) / (T - (1 - r) U)``, i.e. ``Sf / (1 - (1 - r)(1 - Sf))``.

    Data never written after the fill (outside the written region, or a zone that takes no writes)
    settles into full blocks with no invalid page, which greedy (and cost-benefit) cleaning never
    picks: they leave the pool, and the whole spare serves the active data (SNIA SSS PTS's "active
    range"; Desnoyers 2012's static data). ``r = 1`` returns ``spare_factor`` itself.
    """
    _alpha(spare_factor)
    if not 0.0 < active_fraction <= 1.0:
        raise ValueError(f"active_fraction must be in (0, 1], got {active_fraction}")
    if active_fraction == 1.0:
        return spare_factor
    return spare_factor / (1.0 - (1.0 - active_fraction) * (1.0 - spare_factor))


def waf_lru_desnoyers2012(spare_factor: float) -> float:
    """LRU / FIFO cleaning, uniform random writes: A = alpha / (alpha + W0(-alpha e^-alpha))."""
    from scipy.special import lambertw  # scipy loads on first use: `nvsim run` rarely needs it

    a = _alpha(spare_factor)
    w = lambertw(-a * math.exp(-a), 0).real
    return a / (a + w)


def waf_greedy_desnoyers2012(spare_factor: float) -> float:
    """Greedy cleaning, uniform random writes, large-block limit (equal to the LRU expression).

    Desnoyers 2012 (Sec. 4): for uniform traffic, greedy's write amplification tends to LRU's as
    pages per block grow; with the thousands of IUs of a real superblock the difference is < 1%.
    """
    return waf_lru_desnoyers2012(spare_factor)


def valid_fraction_at_cleaning_desnoyers2012(spare_factor: float) -> float:
    """x = -W0(-alpha e^-alpha) / alpha: live fraction of the block chosen for cleaning."""
    return 1.0 - 1.0 / waf_lru_desnoyers2012(spare_factor)


def waf_asymptotic_small_spare(spare_factor: float) -> float:
    """Limit Sf -> 0 of the LRU model: A ~ 1 / (2 Sf) (expanding x = exp(-alpha (1 - x)))."""
    return 1.0 / (2.0 * spare_factor)


def waf_hot_cold_lru_desnoyers2012(spare_factor: float, hot_write_fraction: float, hot_data_fraction: float) -> float:
    """LRU cleaning, two traffic classes sharing one frontier (no hot/cold separation).

    A fraction r of writes goes uniformly to a fraction f of the data. Over one pass of the log the
    host writes ``T (1 - x) = U alpha / A`` pages, so a hot page survives with probability
    ``s_h = exp(-alpha r / (f A))`` and a cold one with ``s_c = exp(-alpha (1-r) / ((1-f) A))``;
    each class's NAND stream is its host stream over (1 - survival), so A solves
    ``A = r / (1 - s_h) + (1 - r) / (1 - s_c)`` (Desnoyers' non-uniform LRU model, two classes).
    """
    a = _alpha(spare_factor)
    r, f = hot_write_fraction, hot_data_fraction
    if not (0 < r < 1 and 0 < f < 1):
        raise ValueError("hot_write_fraction and hot_data_fraction must be in (0, 1)")

    def excess(amp: float) -> float:
        sh = math.exp(-a * r / (f * amp))
        sc = math.exp(-a * (1 - r) / ((1 - f) * amp))
        return r / (1 - sh) + (1 - r) / (1 - sc) - amp

    from scipy.optimize import brentq  # loads on first use

    return brentq(excess, 1.0 + 1e-12, 1e6)


def waf_classes_lru_desnoyers2012(spare_factor: float, write_fractions, data_fractions) -> float:
    """LRU cleaning, N traffic classes sharing one frontier (the two-class model, generalised).

    Class i takes a fraction ``r_i`` of the writes, spread uniformly over a fraction ``f_i`` of the
    data. Over one pass of the log a class-i page survives with probability
    ``s_i = exp(-alpha r_i / (f_i A))``; each class's NAND stream is its host stream over
    ``1 - s_i``, so A solves ``A = sum r_i / (1 - s_i)``. A class never written (``r_i = 0``)
    is static data copied once per pass: its term is the limit ``f_i A / alpha`` (LRU's; greedy
    never picks its blocks: ``waf_classes_greedy_desnoyers2012``).
    Law (Jensen: ``t -> t / (1 - exp(-c t))`` is convex, so its perspective summed over classes
    is at least its value at the mean): any skew gives A at least the uniform A; merging two
    classes never raises A (tested with hypothesis).
    """
    a = _alpha(spare_factor)
    r, f = _classes_checked(write_fractions, data_fractions)
    written = r > 0
    static = float(f[~written].sum()) / a

    def excess(amp: float) -> float:
        survive = np.exp(-a * r[written] / (f[written] * amp))
        rewritten = 1.0 - survive
        # a class written so rarely that none of it is rewritten within a pass (a normal
        # distribution's far tails) is copied like static data: the term's limit, f A / alpha
        terms = np.divide(r[written], rewritten, out=f[written] * amp / a, where=rewritten > 0)
        return float(np.sum(terms)) + static * amp - amp

    from scipy.optimize import brentq  # loads on first use

    low = 1.0 + 1e-12
    if excess(low) <= 0:  # the writes all but never reach a page still valid: no copies at all
        return 1.0
    return brentq(excess, low, 1e6)


def waf_classes_greedy_desnoyers2012(spare_factor: float, write_fractions, data_fractions) -> float:
    """Greedy cleaning, N traffic classes sharing one frontier: classes never written (``r_i = 0``)
    are static data in full blocks that greedy never picks, so they leave the pool and the written
    classes see the spare of their own data (``spare_factor_active_range``); there they take the
    LRU multi-class model (``waf_classes_lru_desnoyers2012``; one written class: the uniform
    model). Classes all written: the LRU multi-class model itself. Page simulation (greedy, Sf
    0.127, all the writes to 10% of the data): 1.128, this model 1.128; the LRU model, which
    copies the static 90% once per pass, 5.3.
    """
    r, f = _classes_checked(write_fractions, data_fractions)
    written = r > 0
    if written.all():
        return waf_classes_lru_desnoyers2012(spare_factor, r, f)
    active = float(f[written].sum())
    spare = spare_factor_active_range(spare_factor, active)
    if written.sum() == 1:
        return waf_greedy_desnoyers2012(spare)
    return waf_classes_lru_desnoyers2012(spare, r[written], f[written] / active)


def _classes_checked(write_fractions, data_fractions) -> tuple[np.ndarray, np.ndarray]:
    """(write shares, data shares) as arrays, checked: equal length, >= 0 and > 0, each summing to 1."""
    r = np.asarray(write_fractions, dtype=float)
    f = np.asarray(data_fractions, dtype=float)
    if r.shape != f.shape or r.ndim != 1 or not r.size:
        raise ValueError("write_fractions and data_fractions must be equal-length, non-empty lists")
    if np.any(r < 0) or np.any(f <= 0) or abs(r.sum() - 1) > 1e-9 or abs(f.sum() - 1) > 1e-9:
        raise ValueError("write fractions must be >= 0, data fractions > 0, each summing to 1")
    return r, f


def waf_hot_cold_separated_desnoyers2012(spare_factor: float, hot_write_fraction: float, hot_data_fraction: float) -> float:
    """Hot and cold data in separate pools, each cleaned as uniform traffic, spare split optimally.

    Desnoyers' segregated model: pool i holds ``U_i`` user pages and ``T_i`` physical pages; the
    total is ``r A(Sf_h) + (1 - r) A(Sf_c)``, minimised over the split of the spare. A lower bound
    for what hot/cold separation can gain; a greedy FTL without separation lies between this and
    the unseparated LRU model.
    """
    r, f = hot_write_fraction, hot_data_fraction
    u_total = 1.0 - spare_factor  # per unit physical
    uh, uc = f * u_total, (1 - f) * u_total
    spare = spare_factor

    def total(share: float) -> float:
        th = uh + share * spare
        tc = uc + (1 - share) * spare
        return r * waf_lru_desnoyers2012((th - uh) / th) + (1 - r) * waf_lru_desnoyers2012((tc - uc) / tc)

    from scipy.optimize import minimize_scalar  # loads on first use

    res = minimize_scalar(total, bounds=(1e-6, 1 - 1e-6), method="bounded", options={"xatol": 1e-8})
    return float(res.fun)


def waf_sequential() -> float:
    """Sequential overwrites invalidate whole blocks in write order: GC finds empty victims, A = 1."""
    return 1.0


def iu_rmw_factor(write_bytes: int, iu_bytes: int, offset_bytes: int = 0) -> float:
    """IU bytes programmed per host byte for one write: partial IUs are read, merged, rewritten.

    ``offset_bytes`` is the write's start modulo the IU. Expected over random aligned-to-4 KiB
    offsets, use ``iu_rmw_factor_random``.
    """
    first = offset_bytes // iu_bytes
    last = (offset_bytes + write_bytes - 1) // iu_bytes
    return (last - first + 1) * iu_bytes / write_bytes


def iu_rmw_factor_random(write_bytes: int, iu_bytes: int, align_bytes: int = 4096) -> float:
    """Mean IU-fill factor over offsets uniformly spread on ``align_bytes`` boundaries inside an IU."""
    if align_bytes >= iu_bytes:
        return iu_rmw_factor(write_bytes, iu_bytes, 0)
    starts = np.arange(0, iu_bytes, align_bytes)
    return float(np.mean([iu_rmw_factor(write_bytes, iu_bytes, int(s)) for s in starts]))


__all__ = [
    "spare_factor_from_capacity", "spare_factor_active_range", "waf_lru_desnoyers2012", "waf_greedy_desnoyers2012",
    "valid_fraction_at_cleaning_desnoyers2012", "waf_asymptotic_small_spare",
    "waf_hot_cold_lru_desnoyers2012", "waf_classes_lru_desnoyers2012", "waf_classes_greedy_desnoyers2012",
    "waf_hot_cold_separated_desnoyers2012", "waf_sequential",
    "iu_rmw_factor", "iu_rmw_factor_random",
]
