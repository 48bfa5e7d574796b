"""``nvsim plan``: from requirements to ranked, verified configurations.

The search runs in stages, each cheaper than the next and each counting what it pruned
(docs/plan.md):

1. exact filters over every candidate (``nvsim.plan.space``: compatibility, bays, lanes, racks,
   capacity, price), as NumPy arrays;
2. bounds (``nvsim.plan.bounds``: NAND and link ceilings, the shortest rebuild, idle power,
   endurance), as NumPy arrays; never tighter than the fluid mode;
3. the fluid mode on the survivors (``nvsim.plan.fluid``), in worker processes or on Dask, best
   first: in the order of a lower bound of the objective known before it runs (exact for price,
   $/usable TB and drives), until the top candidates are feasible and no survivor left could beat
   them (``exhaustive: true`` visits every survivor);
4. the event mode on the best, confirming rates and latency percentiles.

The answer: the feasible candidates ranked by the objective (ties broken by the set-up itself, so
the ranking is a total order whatever the input order), each with its margin against every
requirement, listed once per distinct set-up (drive, count, level, engine, server: its best strip,
spares and overprovisioning; ``answer.distinct_set_ups``), every candidate kept beside them; the Pareto front of price, performance and risk; and for each family (engine x RAID
level x drive) with no feasible candidate, the requirement that ruled out its closest candidate,
by how much, at which resource.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..budget import check_workload
from ..catalog import Catalog, default_catalog
from ..errors import InputError
from ..simulation import EVENT_HOST_IOS
from .answer import distinct_set_ups, nth_set_up_objective, pareto_front, performance, rejected_families, set_up_of
from .bounds import bounds_stage, min_write_factor
from .fluid import CHUNK, event_check, needs_rebuild, pool, run_tasks, scenario_data
from .space import STAGES, Candidates, Verdicts, enumerate_candidates, exact_filters, resolve_axes
from ..fio.run import rate_min_note
from .spec import (DEFAULT_MAX_CANDIDATES, FioPick, PlanSpec, check_names, fio_picks, fio_warnings, load_plan,
                   plan_workloads, requirement_workloads)

MAX_FLUID = 200_000
"""Most candidates the fluid stage takes (a bound on its work); past it the plan is refused."""
EVENT_TRIES = 3
STEP = 4 * CHUNK
"""Fewest candidates the best-first fluid stage takes at a time: a fixed number, so that the
candidates it visits, and so every file of a plan, do not depend on the worker processes (it was
two chunks per worker: on one worker the example visited 23 candidates fewer than on two)."""
"""The event mode tries up to ``confirm x EVENT_TRIES`` candidates to confirm ``confirm``."""


@dataclass
class PlanResult:
    """Everything a plan found (``as_dict`` is the JSON ``nvsim plan`` writes)."""

    spec: PlanSpec
    candidates: int
    pruned: dict[str, int]
    ranked: list[dict]
    families: list[dict]
    pareto: list[int]
    scenarios: dict[int, dict] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per stage (not in as_dict: not a result)
    every_candidate: list[dict] = field(default_factory=list)  # every feasible candidate, ranked (``ranked``: one per set-up)
    warnings: list[str] = field(default_factory=list)  # what ``nvsim fio`` warns of the plan's fio files (``spec.fio_warnings``)
    notes: list[str] = field(default_factory=list)  # fio's rate_min missed on a top set-up (``rate_min_notes``)

    def as_dict(self) -> dict:
        return {"candidates": self.candidates, "pruned": self.pruned, "ranked_count": len(self.every_candidate),
                "set_ups_ranked": len(self.ranked),
                "objective": self.spec.objective if isinstance(self.spec.objective, str) else self.spec.objective.model_dump(),
                "ranked": self.ranked, "every_candidate": self.every_candidate, "pareto_ranks": self.pareto,
                "rejected_families": self.families,
                "event_window": {"host_ios": event_host_ios(self.spec), "as_nvsim_run": as_nvsim_run(self.spec)},
                "warnings": self.warnings, "notes": self.notes}


def event_host_ios(spec: PlanSpec) -> int:
    """Host I/Os the event check measures per workload: ``event_host_ios``, else ``nvsim run``'s."""
    return spec.event_host_ios or EVENT_HOST_IOS


def as_nvsim_run(spec: PlanSpec) -> bool | None:
    """Whether the event check runs ``nvsim run --max-seconds 0``'s window (None: no event check)."""
    return None if spec.confirm == 0 else event_host_ios(spec) == EVENT_HOST_IOS


def _tasks(spec: PlanSpec, cands: Candidates, idx: np.ndarray, workloads: dict) -> dict[int, dict]:
    """Each candidate's fluid-stage task, by candidate index: its scenario and the requirements."""
    requirements = spec.requirements.model_dump(mode="json")
    factors = min_write_factor(cands.level[idx], cands.count[idx])
    tasks = {}
    for i, factor in zip(idx.tolist(), factors.tolist()):
        row = candidate_row(cands, i)
        tasks[i] = ({"index": i, "requirements": requirements, "min_write_factor": factor,
                      "scenario": scenario_data(row, workloads.values(), spec.seed, candidate_name(row))})
    return tasks


def candidate_row(cands: Candidates, i: int) -> dict:
    """A candidate's set-up with its namespace (None: the whole drive)."""
    row = cands.row(i)
    row["namespace_bytes"] = int(cands.columns["member_bytes"][i]) if row["overprovisioning"] else None
    return row


def candidate_name(row: dict) -> str:
    """A stable, readable name for a candidate's scenario."""
    op = f"-op{round(row['overprovisioning'] * 100)}" if row["overprovisioning"] else ""
    spares = f"-hs{row['hot_spares']}" if row["hot_spares"] else ""
    return (f"plan-{row['drives']}x-{row['drive']}-raid{row['level']}-{row['strip_bytes'] // 1024}k-{row['engine']}"
            f"{op}{spares}-{row['platform']}")


def _reject_one(verdicts: Verdicts, i: int, stage: int, miss: dict) -> int:
    """Rule out candidate ``i`` for the requirement an answer names (``plan.fluid._miss``)."""
    return verdicts.reject_one(i, stage, miss["requirement"], miss["achieved"], miss["target"], miss["resource"])


def objective_floor(spec: PlanSpec, cands: Candidates, idx: np.ndarray) -> np.ndarray:
    """A lower bound of each candidate's objective, known before the fluid mode: exact for price,
    $/usable TB and drives; idle watts for power; for $/1K IOPS (the dearest workload's) the price
    over the least of the workloads' IOPS bounds (each workload's $/1K IOPS is at least its price
    over its bound, so the highest is at least the highest of those). A weighted mix has none
    (zeros: the search then visits every survivor)."""
    if not isinstance(spec.objective, str):
        return np.zeros(len(idx))
    columns = cands.columns
    if spec.objective == "drives":
        return cands.count[idx].astype(float)
    if spec.objective == "power_w":
        return columns["idle_power_w"][idx]
    if spec.objective == "usd_per_kiops":  # the dearest workload's: the price over the least IOPS bound
        least = np.min([columns[f"{w.name}.iops_bound"][idx] for w in spec.requirements.workloads], axis=0)
        return columns["price_usd"][idx] / (least / 1e3)
    return columns[spec.objective][idx]


def _evaluate(spec: PlanSpec, cands: Candidates, verdicts: Verdicts, make_tasks, batch: list[int], where,
              progress) -> list[dict]:
    """The fluid mode on ``batch``: rates, power and endurance, then (where asked) the rebuild and
    its risk for those that meet them; misses are ruled out; returns the feasible rows."""
    tasks = make_tasks(batch)
    answers = {a["index"]: a for a in run_tasks([tasks[i] for i in batch], where, progress)}
    for i, answer in answers.items():
        if answer["miss"] is not None:
            _reject_one(verdicts, i, 3, answer["miss"])
    passing = [i for i in batch if answers[i]["miss"] is None]
    if passing and needs_rebuild(spec.requirements.model_dump(mode="json")):
        _rebuild_checks(cands, verdicts, tasks, passing, answers, where)
    alive = np.zeros(len(cands), bool)
    alive[[i for i in passing if verdicts.stage[i] == 0]] = True
    return feasible_rows(spec, cands, answers, alive)


def _rebuild_checks(cands: Candidates, verdicts: Verdicts, tasks: dict[int, dict], passing: list[int], answers: dict,
                    where) -> None:
    """The rebuild and its risk for ``passing``, solved once per set-up less its hot spares (the
    rebuild starts on a spare either way: ``rebuild_summary``)."""
    key = {i: (int(cands.platform[i]), int(cands.drive[i]), int(cands.count[i]), int(cands.level[i]), int(cands.strip[i]),
               int(cands.engine[i]), int(cands.op[i])) for i in passing}
    first = {}
    for i in passing:
        first.setdefault(key[i], i)
    solved = {a["index"]: a for a in run_tasks([dict(tasks[i], rebuild=True) for i in first.values()], where)}
    for i in passing:
        answer = solved[first[key[i]]]
        if answer["miss"] is not None:
            _reject_one(verdicts, i, 3, answer["miss"])
        else:
            answers[i].update({k: answer[k] for k in ("rebuild_hours", "data_loss_probability", "mttdl_years")})


def fluid_stage(spec: PlanSpec, cands: Candidates, verdicts: Verdicts, make_tasks, where,
                progress: Callable[[int], None] | None = None) -> tuple[int, list[dict], int]:
    """Stage 3, best first: the survivors in the order of their objective's lower bound, in
    batches, until ``top`` distinct set-ups (and the event stage's tries) are feasible and no
    candidate left can beat them (its lower bound is above the last one's best objective); ``exhaustive`` (or a weighted
    objective) visits every survivor. Returns (pruned, feasible rows, survivors left unvisited)."""
    alive = np.flatnonzero(verdicts.alive())
    floor = objective_floor(spec, cands, alive)
    order = alive[np.lexsort((alive, np.nan_to_num(floor, nan=np.inf)))]
    floor_of = dict(zip(alive.tolist(), floor.tolist()))
    wanted = max(spec.top, spec.confirm * EVENT_TRIES)
    visit_all = spec.exhaustive or not isinstance(spec.objective, str)
    step = len(order) if visit_all else max(4 * wanted, STEP)
    before, feasible, done = int(verdicts.alive().sum()), [], 0
    while done < len(order):
        cutoff = nth_set_up_objective(feasible, objective_values(spec, feasible), wanted)
        if cutoff is not None and cutoff < floor_of[int(order[done])]:
            break
        batch = order[done:done + step].tolist()
        done += len(batch)
        feasible = rank(spec, feasible + _evaluate(spec, cands, verdicts, make_tasks, batch, where, progress))
    pruned = before - int(verdicts.alive().sum())
    left = np.zeros(len(cands), bool)
    left[order[done:]] = True
    if left.any():
        floors = np.full(len(cands), np.nan)
        floors[alive] = floor
        verdicts.reject(left, 5, f"{spec.objective} within the top {wanted} set-ups", floors,
                        nth_set_up_objective(feasible, objective_values(spec, feasible), wanted), "the objective's lower bound")
    return pruned, feasible, int(left.sum())


def objective_values(spec: PlanSpec, rows: list[dict]) -> list[float]:
    """Each feasible row's objective (lower is better): one metric, or the weighted geometric mean
    of the metrics (``weighted_value``); a metric unknown is infinite. Each row's value is its own:
    no other row changes it, so adding a candidate never reorders two others."""
    keys = spec.objective_keys
    if isinstance(spec.objective, str):
        return [r[keys[0]] if _finite(r.get(keys[0])) else math.inf for r in rows]
    return [weighted_value(spec.objective.weights, r) for r in rows]


def weighted_value(weights: dict[str, float], row: dict) -> float:
    """The product of each metric to the power of its weight's share of the weights (a weighted
    geometric mean, in the metrics' mixed units): 1% more of a metric weighs its weight's share
    of 1%, whatever its unit or the other candidates' figures; each factor lies between 1 and its
    metric, so no weight overflows it. Infinite where a metric is unknown."""
    if not all(_finite(row.get(k)) for k in weights):
        return math.inf
    total = sum(weights.values())
    return math.prod(row[k] ** (w / total) for k, w in weights.items())


def _finite(value) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def sort_key(row: dict) -> tuple:
    """The set-up as a tuple: the tie-break that makes the ranking a total order."""
    return (row["platform"], row["drive"], row["drives"], row["level"], row["strip_bytes"], row["engine"],
            row["overprovisioning"], row["hot_spares"])


def rank(spec: PlanSpec, rows: list[dict]) -> list[dict]:
    """Rows sorted by objective, then by set-up; each gets its objective value and rank (1 = best)."""
    values = objective_values(spec, rows)
    order = sorted(range(len(rows)), key=lambda i: (values[i], sort_key(rows[i])))
    return [dict(rows[i], objective=values[i], rank=r) for r, i in enumerate(order, start=1)]


def margins(spec: PlanSpec, row: dict) -> dict[str, float]:
    """Headroom against every requirement as a share of it (+0.25: 25% to spare; negative: missed).
    Rates come from the event mode where it confirmed the row (``event_workloads``), else from the
    fluid mode; a latency percentile has a margin only where the event mode ran."""
    req = spec.requirements
    out = {"usable_bytes": row["usable_bytes"] / req.usable_bytes - 1.0}
    out.update(_workload_margins(spec, row))
    ceilings = [("max_price_usd", row.get("price_usd")), ("max_power_w", row.get("power_w"))]
    if req.max_bays is not None:  # members and spares, as the exact filter counts them
        ceilings.append(("max_bays", row["drives"] + row["hot_spares"]))
    if req.max_rack_units is not None:
        ceilings.append(("max_rack_units", spec.search.rack_units[row["platform"]]))
    for name, value in ceilings:
        limit = getattr(req, name)
        if limit is not None and _finite(value):
            out[name] = 1.0 - value / limit
    if req.rebuild is not None:
        out["rebuild hours"] = 1.0 - row["rebuild_hours"] / req.rebuild.max_hours
    if req.max_data_loss_probability is not None:
        out["P(data loss)"] = 1.0 - row["data_loss_probability"] / req.max_data_loss_probability
    if req.min_mttdl_years is not None:
        out["MTTDL years"] = row["mttdl_years"] / req.min_mttdl_years - 1.0
    if req.endurance is not None:
        out["endurance years"] = row["lifetime_years"] / req.endurance.service_life_years - 1.0
    return out


def _workload_margins(spec: PlanSpec, row: dict) -> dict[str, float]:
    """Each workload's rate margins (the event figures of a confirmed row, else the fluid ones) and
    its latency margins (the event percentile: none where the event mode did not run)."""
    out = {}
    events = row.get("event_workloads") or {}
    for w in spec.requirements.workloads:
        fig = row_figures(row, w.name)
        if w.min_iops:
            out[f"{w.name} IOPS"] = fig["iops"] / w.min_iops - 1.0
        if w.min_bytes_per_s:
            out[f"{w.name} bytes/s"] = fig["bytes_per_s"] / w.min_bytes_per_s - 1.0
        for p, limit in w.max_latency_us.items() if w.name in events else ():
            out[f"{w.name} {p} latency us"] = 1.0 - events[w.name]["latency_us"][p] / limit
    return out


def row_figures(row: dict, name: str) -> dict:
    """Workload ``name``'s figures on a ranked row: the event mode's where it confirmed the row,
    else the fluid mode's."""
    return (row.get("event_workloads") or {}).get(name) or row["workloads"][name]


def rate_min_notes(picks: dict[str, FioPick], ranked: list[dict]) -> list[str]:
    """``nvsim fio``'s note (``nvsim.fio.run.rate_min_note``) for each top set-up on which a fio
    requirement's job runs below its rate_min: fio would stop the job there."""
    notes = []
    for row in ranked:
        for name, pick in picks.items():
            note = rate_min_note(pick.job, row_figures(row, name)["iops"])
            if note is not None:
                notes.append(f"{pick.parsed.path}: set-up ranked {row['rank']}: {note}")
    return notes


def feasible_rows(spec: PlanSpec, cands: Candidates, answers: dict[int, dict], alive: np.ndarray) -> list[dict]:
    """The candidates alive after the fluid stage, as rows: set-up, capacity, price, fluid figures."""
    rows = []
    for i in np.flatnonzero(alive).tolist():
        answer = answers[i]
        row = candidate_row(cands, i)
        row.update(index=i, usable_bytes=int(cands.columns["usable_bytes"][i]), price_usd=_num(cands.columns["price_usd"][i]),
                   usd_per_usable_tb=_num(cands.columns["usd_per_usable_tb"][i]), workloads=answer["workloads"],
                   **{k: answer.get(k) for k in ("power_w", "rebuild_hours", "data_loss_probability", "mttdl_years",
                                                 "lifetime_years", "effective_dwpd")})
        row["usd_per_kiops"] = dearest_kiops(answer["workloads"])
        rows.append(row)
    return rows


def dearest_kiops(workloads: dict[str, dict]) -> float | None:
    """A set-up's $/1K IOPS: its dearest workload's (the highest, as its power is the highest over
    them), whatever their order; None where one is unknown (no price, or no I/O)."""
    values = [f["usd_per_kiops"] for f in workloads.values()]
    return max(values) if values and None not in values else None


def _num(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def event_stage(spec: PlanSpec, ranked: list[dict], tasks: dict[int, dict], verdicts: Verdicts,
                progress: Callable[[int], None] | None = None) -> tuple[int, list[dict]]:
    """Stage 4: the event mode down the ranking until ``confirm`` candidates meet every target
    (rates and latency percentiles) or ``confirm x EVENT_TRIES`` were tried. Returns (pruned,
    the ranking without the candidates it ruled out), each tried row carrying its event figures."""
    requirements = spec.requirements.model_dump(mode="json")
    confirmed = pruned = 0
    kept = []
    for tried, row in enumerate(ranked):
        if confirmed >= spec.confirm or tried >= spec.confirm * EVENT_TRIES:
            kept.append(dict(row, event="not run"))
            continue
        check = event_check(tasks[row["index"]]["scenario"], requirements, spec.event_host_ios, row["workloads"])
        if progress:
            progress(1)
        if check["miss"] is not None:
            pruned += _reject_one(verdicts, row["index"], 4, check["miss"])
            continue
        confirmed += 1
        kept.append(dict(row, event="confirmed", event_workloads=check["workloads"]))
    return pruned, [dict(r, rank=i) for i, r in enumerate(kept, start=1)]


def prepare_plan(path: str | Path, catalog: Catalog | None = None, **files):
    """Check a plan before it runs: the file, the names, the prices, the workloads, the size.
    ``files``: how its fio job files are reached (``open_file``, ``environ``: plan.spec.fio_picks);
    a plan given an ``environ`` of its own is a server's client's (the dashboard), whose work limits
    are the defaults and never name the server's environment (``budget.Limits.served``). Returns
    (spec, axes, workloads: ``plan_workloads``, catalog)."""
    return _prepared(path, catalog, **files)[:4]


def _prepared(path: str | Path, catalog: Catalog | None = None, **files):
    """``prepare_plan``'s answer and the fio requirements' jobs (``fio_picks``)."""
    catalog = catalog or default_catalog()
    spec, here = load_plan(path)
    try:
        check_names(spec, catalog)
        axes = resolve_axes(spec, catalog)
        picks = fio_picks(spec, here, catalog, **files)
        workloads = plan_workloads(spec, catalog, picks)
    except InputError as exc:  # the plan file named, on the command line (a served plan's file is a temporary one)
        if exc.source is not None or files.get("environ") is not None:
            raise
        raise InputError(exc.field, exc.message, source=str(path)) from None
    _check_budget(spec, workloads, served=files.get("environ") is not None)
    if files.get("environ") is not None and spec.max_candidates > DEFAULT_MAX_CANDIDATES:
        raise InputError("max_candidates", f"a plan served to a client searches at most {DEFAULT_MAX_CANDIDATES:,} "
                                           f"candidates; allowed: 1 to {DEFAULT_MAX_CANDIDATES:,}, got {spec.max_candidates:,} "
                                           f"(nvsim plan on your own machine takes up to 50,000,000)")
    if axes.size > spec.max_candidates:
        enumerate_candidates(axes, spec.max_candidates)  # the one-line refusal
    return spec, axes, workloads, catalog, picks


def _check_budget(spec: PlanSpec, workloads: dict, served: bool) -> None:
    """The stages' work budget, as `nvsim run` applies it, on each requirement's workload and the
    jobs fio runs with it (named by the requirement's field, and a job beside it by its name)."""
    for i, req in enumerate(spec.requirements.workloads):
        for workload in requirement_workloads(req.name, workloads):
            beside = "" if workload.name == req.name else f".job [{workload.name.split('/', 1)[1]}]"
            check_workload(workload, "event" if spec.confirm else "fluid", field=f"requirements.workloads[{i}]{beside}",
                           host_ios=event_host_ios(spec), instead="set confirm: 0 to skip the event stage", served=served)


def run_plan(path: str | Path, *, workers: int = 1, dask_address: str | None = None,
             progress: Callable[[str, int, int | None], None] | None = None, **files) -> PlanResult:
    """Run every stage of a plan file; ``progress(stage, advance, total)`` as it goes; ``files``: how
    its fio job files are reached (``open_file``, ``environ``; the dashboard's Plan view passes them)."""
    spec, axes, workloads, catalog, picks = _prepared(path, **files)
    tasks: dict[int, dict] = {}
    tick = (lambda stage, total: (lambda k: progress(stage, k, total))) if progress else (lambda stage, total: None)
    with pool(workers, dask_address) as where:  # its workers start while the filters and bounds run
        started = time.perf_counter()
        cands = enumerate_candidates(axes, spec.max_candidates)
        verdicts = Verdicts.empty(len(cands))
        pruned = {"filters": exact_filters(spec, cands, catalog, verdicts)}
        pruned["bounds"] = bounds_stage(spec, cands, catalog, verdicts, workloads)
        seconds = {"filters+bounds": time.perf_counter() - started}

        def make_tasks(idx: list[int]) -> dict[int, dict]:
            tasks.update(_tasks(spec, cands, np.asarray(idx, np.int64), workloads))
            return tasks
        pruned["fluid"], ranked, pruned["ranking"] = fluid_stage(spec, cands, verdicts, make_tasks, where,
                                                                 tick("fluid", int(verdicts.alive().sum())))
    seconds["fluid"] = time.perf_counter() - started - seconds["filters+bounds"]
    pruned["event"], everyone, ranked = _event_on_set_ups(spec, ranked, tasks, verdicts, tick)
    seconds["event"] = time.perf_counter() - started - sum(seconds.values())
    for row in everyone + ranked:
        row["margins"] = margins(spec, row)
    points = [(r.get("price_usd") if r.get("price_usd") is not None else r["objective"],
               performance(r, spec.requirements.workloads), r.get("data_loss_probability") or 0.0) for r in ranked]
    return PlanResult(spec, len(cands), pruned, ranked, rejected_families(cands, verdicts),
                      [ranked[i]["rank"] for i in pareto_front(points)],
                      {r["rank"]: tasks[r["index"]]["scenario"] for r in ranked[:spec.top]}, seconds=seconds,
                      every_candidate=everyone, warnings=fio_warnings(picks),
                      notes=rate_min_notes(picks, ranked[:spec.top]))


def _event_on_set_ups(spec: PlanSpec, ranked: list[dict], tasks: dict[int, dict], verdicts: Verdicts, tick) -> tuple:
    """The event stage down the distinct set-ups (each one's best candidate); returns (pruned,
    every feasible candidate ranked, each with its set-up's rank, one row per set-up ranked). A
    set-up whose best candidate the event mode rules out is then led by its next feasible one."""
    tried = distinct_set_ups(ranked)
    pruned, checked = event_stage(spec, tried, tasks, verdicts, tick("event", min(len(tried), spec.confirm * EVENT_TRIES)))
    events = {r["index"]: {k: v for k, v in r.items() if k != "variants"} for r in checked}
    alive = [events.get(r["index"], dict(r, event="not run")) for r in ranked if verdicts.stage[r["index"]] == 0]
    everyone = [dict(r, rank=i) for i, r in enumerate(alive, start=1)]
    set_ups = [dict(r, rank=i) for i, r in enumerate(distinct_set_ups(everyone), start=1)]
    rank_of = {set_up_of(r): r["rank"] for r in set_ups}
    for row in everyone:
        row["set_up_rank"] = rank_of[set_up_of(row)]
    return pruned, everyone, set_ups


__all__ = ["PlanResult", "run_plan", "prepare_plan", "rank", "margins", "objective_values", "sort_key", "candidate_name",
           "candidate_row", "fluid_stage", "objective_floor", "event_stage", "feasible_rows", "STAGES", "MAX_FLUID", "EVENT_TRIES",
           "weighted_value", "dearest_kiops", "event_host_ios", "as_nvsim_run", "row_figures", "rate_min_notes"]
