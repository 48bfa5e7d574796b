"""A fio job on fresh drives (``drive_state=fresh``): WAF 1 until the free blocks are consumed.

A fresh (secure-erased) drive writes into free blocks with no garbage collection. The fresh run's
NAND write rate per drive (host writes x the RAID's write factor x the drive's NAND factor, over
the drives) uses up the drive's free NAND (``nvsim.ftl.load.fresh_free_bytes``: its raw NAND) after
``t1`` seconds; from then on the drive is in steady state. A job that runs longer than ``t1`` moves
``X_fresh t1 + X_steady (T - t1)`` I/Os in its runtime T: its rates are the fresh run's scaled by
that over ``X_fresh T`` (its latencies stay the fresh run's), and a note says when it crossed.
The runtime T is the fresh run's (a job that is not time_based would take a little longer).
"""

from __future__ import annotations

import math
from typing import Any

from ..ftl.load import fresh_free_bytes
from ..result import Result


def fresh_seconds(result: Result, scale: float, drives: int, raw_nand_bytes: float) -> float:
    """Seconds until a fresh drive's free NAND is written at the run's rate (inf: no writes). An
    array's run (``result.simulation``) or a single drive's (``result.drive``: no RAID, its own
    NAND WAF)."""
    sim = result.simulation if result.simulation is not None else result.drive
    if sim is None or sim.write_bytes_per_s <= 0:
        return math.inf
    raid = getattr(sim, "raid_waf", 1.0)
    raid = raid if math.isfinite(raid) else 1.0
    nand = sim.waf_nand if math.isfinite(sim.waf_nand) else 1.0
    per_drive = sim.write_bytes_per_s * scale * raid * nand / max(1, drives)
    return fresh_free_bytes(raw_nand_bytes) / per_drive


def blended_scale(runtime_s: float, fresh_s: float, fresh_iops: float, steady_iops: float) -> float:
    """The factor on the fresh run's rates for a runtime that crosses into steady state at ``fresh_s``."""
    if runtime_s <= fresh_s or fresh_iops <= 0:
        return 1.0
    return (fresh_s + (runtime_s - fresh_s) * steady_iops / fresh_iops) / runtime_s


def crossing_note(name: str, fresh_s: float, runtime_s: float, factor: float) -> str:
    """One line: when the job's fresh drives turned steady and what it did to the job's rate."""
    return (f"job {name}: drive_state=fresh: the drives' free blocks are written after {fresh_s:,.1f} s of its "
            f"{runtime_s:,.1f} s; from then on they garbage-collect at the steady-state WAF, so the job's rates are "
            f"{factor:.3f} x the fresh drives' (nvsim.workload.fresh)")


__all__ = ["fresh_seconds", "blended_scale", "crossing_note"]
