"""A fio job on drives a sequential fill left (``drive_state=filled``): random writes through the
garbage collection's transient (nvsim.ftl.transient).

Two closed loops bound the job: the run at WAF 1 (the spare still erased: ``fresh``) moving ``M1``
bytes a second, and the steady run moving ``Ms``. The NAND time a written byte costs is linear in
the WAF (each extra NAND write is a GC copy: a read and a program), so a job byte costs
``1/M1 + (1/Ms - 1/M1) x`` the transient's excess at that point (0 in the spare, 1 at steady state).
Over the first ``J`` bytes of the job the drives take ``k J`` logical bytes each (``k``: the fresh
run's per-drive writes over its moved bytes), and the job lasts

    T(J) = J / M1 + (1/Ms - 1/M1) J mean_excess(k J / C, Sf)

(``C``: the logical bytes each drive's writes reach; ``Sf``: the spare factor they see). fio's
runtime gives ``T`` (``J`` solved by bisection: ``T`` grows with ``J``), its size ``J`` (cut at the
runtime); the job's rates are ``J / T``. Random writes only: a sequential stream frees whole blocks
in order from any state, and reads do not move the FTL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..ftl.transient import mean_excess, spare_drive_writes
from ..result import Result
from ..wear import member_write_bytes_per_s

BISECTION_STEPS = 80
"""Halvings of the bracket on the job's bytes (2^-80 of it: below a float's precision)."""


@dataclass(frozen=True)
class FilledRun:
    """What the job did on its filled drives: its mean rate over the fresh run's, how long it ran,
    the drive writes it made, when the spare was written (inf: never), and the mean of its WAF's
    excess over the steady state's (``mean_excess``: 0 at WAF 1, 1 at steady state)."""

    factor: float
    runtime_s: float
    drive_writes: float  # passes over the part of each drive the writes reach (the active range), the transient's unit
    spare_s: float
    excess: float = 0.0


def drive_write_bytes_per_s(result: Result, drives: int) -> float:
    """Logical bytes a second each drive takes from a run (the array's writes times its RAID write
    amplification, over the drives; a single drive's own writes)."""
    sim = result.simulation if result.simulation is not None else result.drive
    if sim is None:
        return 0.0
    raid = getattr(sim, "raid_waf", None)
    return member_write_bytes_per_s(sim.write_bytes_per_s * result.scale,
                                    raid if raid is not None and math.isfinite(raid) else None, drives)


def filled_run(fresh_bytes_per_s: float, steady_bytes_per_s: float, drive_bytes_per_job_byte: float,
               active_bytes: float, spare_factor: float, runtime_s: float | None,
               job_bytes: float | None) -> FilledRun:
    """The job on filled drives (module docstring): ``fresh_bytes_per_s``/``steady_bytes_per_s``
    the job's moved bytes a second at WAF 1 and at steady state, ``drive_bytes_per_job_byte`` (k)
    each drive's logical writes per job byte, ``active_bytes`` (C) and ``spare_factor`` (Sf) what its
    writes reach and see, ``runtime_s`` fio's runtime (None: none) and ``job_bytes`` what its size
    moves (None: time-based)."""
    if fresh_bytes_per_s <= 0 or drive_bytes_per_job_byte <= 0 or active_bytes <= 0:
        return FilledRun(1.0, runtime_s or 0.0, 0.0, math.inf, 0.0)
    t1 = 1.0 / fresh_bytes_per_s
    extra = 1.0 / max(steady_bytes_per_s, 1e-30) - t1

    def drive_writes(j: float) -> float:
        return drive_bytes_per_job_byte * j / active_bytes

    def lasts(j: float) -> float:
        return j * t1 + extra * j * mean_excess(drive_writes(j), spare_factor)

    spare_s = spare_drive_writes(spare_factor) * active_bytes / drive_bytes_per_job_byte * t1
    if job_bytes is not None and (runtime_s is None or lasts(job_bytes) <= runtime_s):
        j = job_bytes
    else:
        lo, hi = 0.0, float(runtime_s) / t1  # at WAF 1 all the way the job moves the most it can
        for _ in range(BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if lasts(mid) <= runtime_s else (lo, mid)
        j = lo
    t = lasts(j)
    factor = (j / t) / fresh_bytes_per_s if t > 0 else 1.0
    return FilledRun(factor, t, drive_writes(j), spare_s, mean_excess(drive_writes(j), spare_factor))


def with_mean_waf(target: Result, one: Result, far: Result, excess: float) -> Result:
    """``target`` with the drives' write amplification the run averaged: the WAF-1 run's (``one``)
    plus ``excess`` of the way to the steady run's (``far``; its GC part: an internal
    read-modify-write is the same in both)."""
    if target.drive is not None and one.drive is not None and far.drive is not None:
        ftl = one.drive.waf_ftl + excess * (far.drive.waf_ftl - one.drive.waf_ftl)
        return replace(target, drive=replace(target.drive, waf_ftl=ftl))
    if target.simulation is not None and one.simulation is not None and far.simulation is not None:
        low, high = one.simulation.waf_nand, far.simulation.waf_nand
        if math.isfinite(low) and math.isfinite(high):
            return replace(target, simulation=replace(target.simulation, waf_nand=low + excess * (high - low)))
    return target


def filled_note(name: str, run: FilledRun) -> str:
    """One line: what the transient did to the job."""
    if run.spare_s >= run.runtime_s:
        return (f"job {name}: drive_state=filled: its writes, {run.drive_writes:.3g} passes over the part of each drive "
                f"they reach, fit in the drives' erased "
                f"spare (WAF 1 for its {run.runtime_s:,.1f} s; garbage collection would start after {run.spare_s:,.1f} s) "
                f"(nvsim.ftl.transient)")
    return (f"job {name}: drive_state=filled: the drives' spare takes its random writes at WAF 1 for {run.spare_s:,.1f} s, "
            f"then garbage collection climbs to its steady state; over the run's {run.runtime_s:,.1f} s "
            f"({run.drive_writes:.3g} passes over the part of each drive its writes reach) its rates are {run.factor:.3f} x "
            f"the WAF-1 run's (nvsim.ftl.transient)")


__all__ = ["FilledRun", "filled_run", "filled_note", "drive_write_bytes_per_s", "with_mean_waf"]
