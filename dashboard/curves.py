"""Curves of a set-up: IOPS and latency against offered load and against drive count (fluid mode).

A point is the set-up's first workload with one thing changed, answered by the same fluid model as
the cards (``nvsim.Simulation(...).run("fluid")``, milliseconds a point). Offered load is what a
closed-loop benchmark offers: I/Os kept in flight (fio's numjobs x iodepth; OLTP: users). Fluid
mode gives mean latency, not percentiles; the event-mode p99 of a load curve runs in the worker
(``load_workloads`` builds its workloads, ``dashboard.jobs`` runs them under the job budget).

Bounded work: at most CURVE_POINTS points a curve, and a curve stops at CURVE_BUDGET_S (the points
so far are shown, with a note), so a curve never holds the server for long.
"""

from __future__ import annotations

import time
from typing import Any

from nvsim import Catalog, InputError, Simulation, WorkloadSpec, parse_scenario
from nvsim.raid import MIN_DRIVES
from nvsim.workload.compose import mean_latency_us

from .core import EVENT_MAX_OUTSTANDING_IOS, MAX_DRIVES, latency_us

CURVE_POINTS = 17
"""Most points of one curve (offered load: 1 to 65,536 I/Os in flight in powers of two)."""
CURVE_BUDGET_S = 3.0
"""Longest one curve may compute; later points are left out (said under the chart)."""
DRIVE_COUNTS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256)
"""Drive counts the drive-count curve tries (those the level and the platform accept)."""
EVENT_CURVE_POINTS = 6
"""Load points of the event-mode p99 curve (each one event-mode workload in the worker)."""


def _load_steps(workload: WorkloadSpec, current: int) -> list[int]:
    """I/Os in flight to try: about the powers of two from 1 to 4x the set-up's own (at least
    1,024), each one the workload can keep in flight (whole jobs times a whole queue depth)."""
    top = min(EVENT_MAX_OUTSTANDING_IOS, max(1024, 4 * current))
    steps = {current}
    for n in (2**k for k in range(CURVE_POINTS) if 2**k <= top):
        jobs = n if workload.is_oltp else max(1, min(workload.numjobs, n))
        steps.add(jobs * max(1, round(n / jobs)))
    return sorted(steps)


def at_load(workload: WorkloadSpec, in_flight: int) -> dict[str, Any]:
    """The workload (as scenario data) with ``in_flight`` I/Os outstanding: OLTP users, or fio
    jobs (at most the workload's own numjobs) times a queue depth."""
    data = workload.model_dump(mode="json", exclude_defaults=True) | {"name": f"{workload.name}@{in_flight}", "rw": workload.rw}
    if workload.is_oltp:
        data["users"] = in_flight
        return data
    jobs = max(1, min(workload.numjobs, in_flight))
    data["numjobs"], data["iodepth"] = jobs, max(1, in_flight // jobs)
    return data


def _point(data: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    spec = parse_scenario(data, catalog)
    result = Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid")
    transaction = dict(result.simulation.transaction_latency_us).get("mean") \
        if spec.workloads[0].is_oltp and result.simulation is not None else None  # OLTP: a transaction's, not its pages'
    return {"iops": result.total_iops, "bytes_per_s": (result.read_bytes_per_s or 0.0) + (result.write_bytes_per_s or 0.0),
            "mean_us": transaction if transaction is not None else mean_latency_us(result),  # over its I/Os, as the card's
            "bottleneck": result.bottleneck}


def _alone_note(spec) -> str:
    """What a curve of the first workload leaves out: the jobs of its phase that run with it (drawn
    alone, its rate is not the set-up's: 138K against 27K IOPS beside a second job)."""
    first = spec.workloads[0]
    phase = spec.phase(first.phase) if first.phase is not None else None
    others = [job.name for job in phase.jobs if job.name != first.name] if phase is not None else []
    return f"{first.name} drawn alone: {', '.join(others)} of its phase, which run with it, are left out" if others else ""


def _sweep(scenario: dict[str, Any], catalog: Catalog, xs: list[int], variant) -> dict[str, Any]:
    """Points of ``variant(scenario, x)`` for each x, within the time budget; invalid ones skipped."""
    start = time.perf_counter()
    points, skipped, note = [], [], ""
    for x in xs:
        if time.perf_counter() - start > CURVE_BUDGET_S:
            note = f"stopped after {CURVE_BUDGET_S:g} s: {len(points)} points"
            break
        try:
            points.append({"x": x} | _point(variant(scenario, x), catalog))
        except (InputError, ValueError) as exc:
            skipped.append(f"{x}: {str(exc).splitlines()[0]}")
    return {"points": points, "skipped": skipped, "note": note}


NO_WORKLOAD = "a curve needs a workload, and the scenario has none"


def _first_workload(spec) -> WorkloadSpec:
    """The workload a curve sweeps (the first); an InputError naming ``workloads`` when there is none
    (an idle scenario, such as a rebuild with no host I/O)."""
    if not spec.workloads:
        raise InputError("workloads", NO_WORKLOAD)
    return spec.workloads[0]


def load_curve(scenario: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """IOPS and mean latency of the first workload against I/Os in flight; ``current`` marks the
    set-up's own load."""
    spec = parse_scenario(scenario, catalog)
    workload = _first_workload(spec)
    current = workload.users if workload.is_oltp else workload.numjobs * workload.iodepth

    def variant(data, in_flight):
        return dict(data, workloads=[at_load(workload, in_flight)])

    return _noted(_sweep(scenario, catalog, _load_steps(workload, current), variant), _alone_note(spec)) | {
        "current": current, "workload": workload.name,
        "axis": "OLTP users" if workload.is_oltp else "I/Os in flight (jobs x queue depth)"}


def _noted(result: dict[str, Any], note: str) -> dict[str, Any]:
    """``result`` with ``note`` joined to the sweep's own (its time budget)."""
    return result | {"note": "; ".join(n for n in (result["note"], note) if n)}


def drive_counts(level: int, current: int) -> list[int]:
    """Drive counts to try for ``level``: from its minimum to twice the set-up's count."""
    top = min(MAX_DRIVES, max(8, 2 * current))
    return sorted({n for n in DRIVE_COUNTS if MIN_DRIVES[level] <= n <= top} | {current})


def drive_curve(scenario: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """IOPS and mean latency of the first workload against the number of drives (the rest of the
    set-up unchanged; a count the platform or level refuses is skipped, with its reason)."""
    array = scenario["array"]
    if not scenario.get("workloads"):
        raise InputError("workloads", NO_WORKLOAD)

    def variant(data, drives):
        out = dict(data, array=dict(array, drives=drives), workloads=data["workloads"][:1])
        placement = {k: v for k, v in (out.pop("placement", None) or {}).items() if k != "drive_sockets"}
        return out | ({"placement": placement} if placement else {})

    result = _sweep(scenario, catalog, drive_counts(int(array["level"]), int(array["drives"])), variant)
    return _noted(result, _alone_note(parse_scenario(scenario, catalog))) | {"current": int(array["drives"]), "workload": scenario["workloads"][0].get("name", ""),
                     "axis": "drives"}


def load_workloads(scenario: dict[str, Any], catalog: Catalog, points: int = EVENT_CURVE_POINTS) -> dict[str, Any]:
    """The scenario with one workload per load point (for an event-mode p99 curve in the worker):
    ``points`` loads spread over the fluid curve's range, the set-up's own load among them."""
    spec = parse_scenario(scenario, catalog)
    workload = _first_workload(spec)
    current = workload.users if workload.is_oltp else workload.numjobs * workload.iodepth
    steps = _load_steps(workload, current)
    stride = max(1, len(steps) // points)
    chosen = sorted(set(steps[::stride][:points - 1]) | {current})
    return dict(scenario, workloads=[at_load(workload, n) for n in chosen])


def event_points(workloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An event-mode run of ``load_workloads`` -> points with their p99 (and mean) latency."""
    out = []
    for w in workloads:
        if "error" in w or "@" not in str(w.get("name")):
            continue
        out.append({"x": int(str(w["name"]).rsplit("@", 1)[1]), "iops": w.get("total_iops"),
                    "p99_us": latency_us(w, "p99"), "mean_us": latency_us(w, "mean")})
    return sorted(out, key=lambda p: p["x"])
