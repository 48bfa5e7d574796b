"""Random writes on a drive a sequential fill left: garbage collection's transient.

A drive written sequentially end to end (SNIA PTS's purge and fill, a review's preconditioning, a
database's first load) holds every logical page in full, fully valid blocks; only its spare is
erased. Uniform random writes then land in the spare at WAF 1 (no block needs cleaning) until it is
written, about ``Sf / (1 - Sf)`` drive writes. From there greedy garbage collection finds every old
block invalidated about alike (each lost the share of its pages the writes so far overwrote), copies
most of each victim, and the WAF climbs past the steady state before it settles there: the "write
cliff" SNIA's Solid State Storage Performance Test Specification (PTS-E 1.1, its write saturation
test) plots as IOPS against drive writes. ``steady`` (nvsim's default) is the far end of that curve.

The curve is the page-mapped FTL simulation's (``simulate_ftl_transient``: greedy, one write
frontier, the drive scaled down with its spare factor kept), not a fitted shape. It is read as
``mean_excess``: over the first ``u`` drive writes, the mean of (WAF - 1) over the steady state's
(WAF - 1), 0 while the spare absorbs the writes and 1 far past the transient, so a drive model's
own steady WAF (hotness, active range, trims: ``FtlLoad``) scales it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

GRID_STEP_DRIVE_WRITES = 0.005
"""Spacing of the simulated curve's checkpoints, in drive writes (host writes / logical capacity)."""
GRID_END_DRIVE_WRITES = 4.0
"""Where the simulated curve ends: past it the drive is taken at its steady state (at 4 drive
writes the mean WAF of a 7% spare is within 2% of its steady value, nvsim.ftl's tests)."""
SPARE_FACTOR_MIN = 0.005
"""The smallest spare factor the scaled-down drive (2,048 blocks) simulates with more than a few
spare blocks; a smaller one is taken at it."""


@lru_cache(maxsize=32)
def _curve(spare_milli: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(drive writes, mean WAF over the first that many, the steady WAF the curve ends at) for a
    spare factor of ``spare_milli`` / 1000. The steady WAF is the curve's last drive write alone."""
    from .simulate import simulate_ftl_transient  # Numba: compiled on first use only

    spare = max(SPARE_FACTOR_MIN, spare_milli / 1000.0)
    grid = np.arange(1, int(round(GRID_END_DRIVE_WRITES / GRID_STEP_DRIVE_WRITES)) + 1) * GRID_STEP_DRIVE_WRITES
    mean = simulate_ftl_transient(spare, grid)
    last = int(round(1.0 / GRID_STEP_DRIVE_WRITES))
    steady = (mean[-1] * grid[-1] - mean[-1 - last] * grid[-1 - last]) / (grid[-1] - grid[-1 - last])
    return grid, mean, float(max(steady, 1.0 + 1e-9))


def mean_excess(drive_writes: float, spare_factor: float) -> float:
    """Over the first ``drive_writes`` of uniform random writes after a sequential fill, the mean
    of (WAF - 1) / (steady WAF - 1): 0 while the spare takes them, past 1 through the cliff's
    overshoot, towards 1 far beyond it (the steady state carried on past the simulated curve)."""
    if drive_writes <= 0:
        return 0.0
    grid, mean, steady = _curve(int(round(min(max(spare_factor, 0.0), 0.999) * 1000)))
    if drive_writes <= grid[-1]:
        waf = float(np.interp(drive_writes, np.concatenate(([0.0], grid)), np.concatenate(([1.0], mean))))
        return (waf - 1.0) / (steady - 1.0)
    excess = grid[-1] * (mean[-1] - 1.0) + (drive_writes - grid[-1]) * (steady - 1.0)
    return float(excess / (drive_writes * (steady - 1.0)))


def spare_drive_writes(spare_factor: float) -> float:
    """Drive writes the spare of a sequentially filled drive takes at WAF 1: spare over logical
    pages, ``Sf / (1 - Sf)`` (Desnoyers' Sf = (T - U) / T)."""
    return spare_factor / (1.0 - spare_factor)


__all__ = ["mean_excess", "spare_drive_writes", "GRID_STEP_DRIVE_WRITES", "GRID_END_DRIVE_WRITES", "SPARE_FACTOR_MIN"]
