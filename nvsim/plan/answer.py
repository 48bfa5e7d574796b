"""What a plan tells a planner beyond the ranking: its distinct set-ups, why each family failed,
and the Pareto front.

A set-up is a drive, a drive count, a RAID level, an engine and a server (``SET_UP_KEY``): the
ranking lists each once, as its best candidate (its strip, hot spares and overprovisioning the
best of those the search tried), with the strips, spares and shares of its other feasible
candidates beside it (``distinct_set_ups``); the full list of candidates stays in plan.json.

A rejected family is an engine x RAID level x drive. When none of its candidates is feasible, its closest
candidate speaks for it: the one that got through the most stages, and among those the one that
came nearest its failing requirement (achieved over target, or target over achieved for a
ceiling). Its line names the requirement, the shortfall and the limiting resource ("linux-md
RAID6 on 24x kioxia-cm7-r-3.84tb: oltp IOPS 1.2M short of 2M (40%) at md raid6 thread").

The Pareto front is the feasible set not dominated on price (lower), performance (the least
headroom over the workload targets, higher) and risk (P(data loss), lower).
"""

from __future__ import annotations

import math

import numpy as np

from ..units import format_probability, format_significant, format_value
from .space import STAGES, Candidates, Verdicts

CEILINGS = ("max_", "rebuild hours", "P(data loss)", "latency", "drive bays", "PCIe lanes", "engine's drive limit", "within the top")
"""Requirement labels that are upper limits (achieved must stay under the target)."""


def is_ceiling(label: str) -> bool:
    return any(label.startswith(c) or c in label for c in CEILINGS)


RANKING = STAGES.index("ranking")
"""The objective's cut: a candidate no better than the top set-ups, never checked against the
requirements the later stages check."""


def closeness(verdicts: Verdicts) -> np.ndarray:
    """Per rejected candidate, how near it came: its stage (a requirement's miss at a later stage is
    nearer; the objective's cut, made in the fluid stage's search, between the bounds and the fluid
    mode: a member that ran in the fluid or event mode and missed a requirement says more than one
    cut unchecked, and one cut says more than a smaller member's miss of a filter or bound); within
    the filters and bounds, how many checks it passed (their labels are recorded in the order they
    run); then its achieved/target ratio in [0, 1)."""
    labels = np.asarray([is_ceiling(label) for label in verdicts.labels] + [False])
    ceiling = labels[verdicts.requirement]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ceiling, verdicts.target / verdicts.achieved, verdicts.achieved / verdicts.target)
    ratio = np.nan_to_num(ratio, nan=0.0, posinf=0.0, neginf=0.0)
    order = np.where(verdicts.stage <= 2, np.maximum(verdicts.requirement, 0), 0)
    stage = np.where(verdicts.stage == RANKING, STAGES.index("bounds") + 0.5, verdicts.stage)
    return stage * 1e6 + order * 1e3 + np.clip(ratio, 0.0, 0.999)


def _amounts(achieved: float, target: float, label: str) -> tuple[str, str]:
    """Both amounts of a miss, told apart: where three significant digits print a plain figure
    the same for both (6.0046 h against 6 h read "6.00 over 6.00"), the digits that part them."""
    a, t = _amount(achieved, label), _amount(target, label)
    digits = 4
    while a == t and achieved != target and digits <= 9:  # a figure with a unit of its own keeps its form
        a, t = _amount(achieved, label, digits), _amount(target, label, digits)
        digits += 1
    return a, t


def _gap(gap: float, sign: str) -> str:
    """A miss as a share of its target: whole percent, or two decimals where it rounds to 0%."""
    return f"{gap:{sign}.2%}" if 0 < abs(gap) < 0.005 else f"{gap:{sign}.0%}"


def _amount(value: float, label: str, digits: int | None = None) -> str:
    """A figure of a requirement as a planner reads it (1.2M IOPS, 40 GB/s, 150 TB, $120,000);
    ``digits``: significant digits of a plain figure (hours, years, W), to part two that read alike."""
    if not math.isfinite(value):
        return "none"
    for key, unit in (("bytes/s", "B/s"), ("bytes", "bytes"), ("IOPS", "IOPS")):
        if key in label:
            return format_value(value, unit)
    if "usd" in label:
        return f"${value:,.0f}"
    if "P(" in label:  # a probability as odds, as `nvsim run` writes it (1.71e-05 read as '1 in 58,480')
        return format_probability(value)
    if digits is not None:
        return format_significant(value, digits)
    return format_significant(value, 3) if value < 1000 else f"{value:,.0f}"


def reason_text(verdicts: Verdicts, i: int) -> str:
    """'oltp IOPS 1.2M short of 2M (40%) at drive NAND': the requirement that ruled candidate ``i`` out."""
    label = verdicts.labels[verdicts.requirement[i]]
    achieved, target = float(verdicts.achieved[i]), float(verdicts.target[i])
    resource = verdicts.resources[verdicts.resource[i]] if verdicts.resource[i] >= 0 else ""
    if math.isnan(achieved) or math.isnan(target):
        return f"{label}: not met ({resource})"
    shown, wanted = _amounts(achieved, target, label)
    if is_ceiling(label):
        gap = (achieved - target) / target if target else math.inf
        text = f"{label} {shown} over {wanted} ({_gap(gap, '+')})"
    else:
        gap = (target - achieved) / target if target else 0.0
        text = f"{label} {shown} short of {wanted} ({_gap(gap, '')})"
    return f"{text} at {resource}" if resource else text


def rejected_families(cands: Candidates, verdicts: Verdicts) -> list[dict]:
    """One record per family with no feasible candidate, from its closest candidate (``closeness``: a
    member that missed a requirement in the fluid or event mode before the objective's cut, else
    the cut, else a filter's or bound's miss; where a miss speaks for a family whose other members
    were cut, the reason says so); sorted by engine, level and drive."""
    a = cands.axes
    family = (cands.engine.astype(np.int64) * 16 + cands.level) * len(a.drives) + cands.drive
    feasible = set(np.unique(family[verdicts.stage == 0]).tolist())
    cut = set(np.unique(family[verdicts.stage == RANKING]).tolist())
    score = closeness(verdicts)
    order = np.lexsort((-score, family))  # per family, the closest first
    first = np.ones(len(order), bool)
    first[1:] = family[order][1:] != family[order][:-1]
    out = []
    for i in order[first].tolist():
        if int(family[i]) in feasible:
            continue
        row = cands.row(i)
        out.append({"engine": row["engine"], "level": row["level"], "drive": row["drive"],
                    "stage": STAGES[verdicts.stage[i]], "requirement": verdicts.labels[verdicts.requirement[i]],
                    "achieved": _plain(verdicts.achieved[i]), "target": _plain(verdicts.target[i]),
                    "resource": verdicts.resources[verdicts.resource[i]] if verdicts.resource[i] >= 0 else "",
                    "closest": row, "reason": f"{row['engine']} RAID{row['level']} on {row['drives']}x {row['drive']}: "
                                              f"{reason_text(verdicts, i)}{_cut_too(verdicts, i, int(family[i]) in cut)}"})
    return sorted(out, key=lambda f: (f["engine"], f["level"], f["drive"]))


def _cut_too(verdicts: Verdicts, i: int, family_cut: bool) -> str:
    """What a family's reason adds when its closest miss is a requirement's and others of its
    members were cut by the objective (never checked against the later stages' requirements)."""
    if not family_cut or verdicts.stage[i] == RANKING:
        return ""
    return "; its other members no better than the top set-ups (the objective's cut)"


SET_UP_KEY = ("drive", "drives", "level", "engine", "platform")
"""What makes two candidates distinct set-ups; the strip, the hot spares and the overprovisioning
are chosen within one (the ranking shows its best)."""


def set_up_of(row: dict) -> tuple:
    return tuple(row[k] for k in SET_UP_KEY)


def distinct_set_ups(ranked: list[dict]) -> list[dict]:
    """One row per set-up, in the order of the ranking (``ranked``, best first): its best
    candidate, with ``variants``: how many of its candidates are feasible and the strips, hot
    spares and overprovisioning shares they take."""
    members: dict[tuple, list[dict]] = {}
    for row in ranked:
        members.setdefault(set_up_of(row), []).append(row)
    return [dict(rows[0], variants={"candidates": len(rows), "strips_bytes": sorted({r["strip_bytes"] for r in rows}),
                                    "hot_spares": sorted({r["hot_spares"] for r in rows}),
                                    "overprovisioning": sorted({r["overprovisioning"] for r in rows})})
            for rows in members.values()]


def nth_set_up_objective(ranked: list[dict], values: list[float], n: int) -> float | None:
    """The objective of the ``n``-th distinct set-up of ``ranked`` (best first, ``values`` its
    objectives), or None when it has fewer."""
    seen: set[tuple] = set()
    for row, value in zip(ranked, values):
        key = set_up_of(row)
        if key not in seen:
            seen.add(key)
            if len(seen) == n:
                return value
    return None


def _plain(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def performance(row: dict, workloads) -> float:
    """The least headroom over the workload targets (1.0: exactly met), the Pareto front's axis."""
    ratios = []
    for w in workloads:
        fig = row["workloads"][w.name]
        if w.min_iops:
            ratios.append(fig["iops"] / w.min_iops)
        if w.min_bytes_per_s:
            ratios.append(fig["bytes_per_s"] / w.min_bytes_per_s)
    if not ratios:
        ratios = [sum(f["iops"] for f in row["workloads"].values())]
    return min(ratios)


def pareto_front(points: list[tuple[float, float, float]]) -> list[int]:
    """Indices of the points no other point dominates (price lower, performance higher, risk lower)."""
    if not points:
        return []
    p = np.asarray([(c, -perf, r) for c, perf, r in points], float)
    p = np.nan_to_num(p, nan=np.inf)
    front = []
    for i in range(len(p)):
        dominated = np.all(p <= p[i], axis=1) & np.any(p < p[i], axis=1)
        if not dominated.any():
            front.append(i)
    return front


__all__ = ["SET_UP_KEY", "set_up_of", "distinct_set_ups", "nth_set_up_objective", "rejected_families", "reason_text", "closeness",
           "is_ceiling", "performance", "pareto_front"]
