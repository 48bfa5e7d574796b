"""The plan's third and fourth stages: each surviving candidate in the fluid mode, then the best
in the event mode.

A candidate becomes a scenario (``scenario_data``: what ``nvsim run`` reads) and runs every
requirement's workload in the fluid mode (``nvsim.Simulation``), with its cost and power at each
operating point (``nvsim.cost``), its rebuild under the stated load and the data-loss risk that
rebuild leaves (``nvsim.rebuild.rebuild_summary``), and its drives' life under the endurance
requirement (``nvsim.wear``). The first requirement it misses rules it out, with the resource
the fluid mode names as the bottleneck. A rebuild solve costs ~30x a workload's, so it runs as
a second pass, down the ranking, until enough candidates pass (``nvsim.plan``). Candidates run in
local processes (spawned, as sweeps) or on a Dask cluster; each is seeded by the plan, so where it
runs does not change its numbers.
"""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from typing import Any, Callable, Iterable

from ..array_capacity import capacity
from ..catalog import default_catalog
from ..cost import cost_power
from ..errors import InputError
from ..rebuild import rebuild_summary
from ..units import format_probability
from ..scenario import parse_scenario
from ..simulation import EVENT_HOST_IOS, Precision, Simulation, run_workload_group, workload_runs
from ..specs import Phase, WorkloadSpec
from ..workload.compose import mean_latency_us
from ..wear import drive_wear
from ..workers import dask_client, process_pool

CHUNK = 32
"""Most candidates a worker process takes at a time (amortises the hand-over)."""
SPLIT = 8
"""A batch of tasks is cut into about this many chunks, so that the workers share even a short one
(a rebuild pass of 25 candidates) and none waits on another's long chunk."""


def scenario_data(row: dict, workloads: Iterable[WorkloadSpec], seed: int, name: str) -> dict:
    """The scenario ``nvsim run`` reads for one candidate (``Candidates.row``)."""
    array: dict[str, Any] = {"level": row["level"], "drive": row["drive"], "drives": row["drives"],
                             "strip_bytes": row["strip_bytes"], "engine": row["engine"], "hot_spares": row["hot_spares"]}
    if row.get("namespace_bytes"):
        array["namespace_bytes"] = row["namespace_bytes"]
    op = f", {row['overprovisioning']:.0%} overprovisioned" if row["overprovisioning"] else ""
    spares = f", {row['hot_spares']} hot spare(s)" if row["hot_spares"] else ""
    return {"name": name, "description": f"nvsim plan: {row['drives']}x {row['drive']} RAID{row['level']} on "
                                         f"{row['engine']}, {row['strip_bytes'] // 1024} KiB strip{op}{spares}, {row['platform']}",
            "platform": row["platform"], "array": array,
            "workloads": [w.model_dump(mode="json", exclude_defaults=True) | {"name": w.name, "rw": w.rw} for w in workloads],
            "seed": seed}


def _miss(label: str, achieved: float, target: float, resource: str) -> dict:
    return {"requirement": label, "achieved": float(achieved), "target": float(target), "resource": resource}


def spares_apart(scenario: dict) -> str:
    """The set-up a fluid run sees, as a key: the scenario without its name, description and hot
    spares (a spare takes no I/O until a member fails, and a plan's candidates have no failure;
    its price and idle power are the cost's, computed per candidate)."""
    array = {k: v for k, v in scenario["array"].items() if k != "hot_spares"}
    return json.dumps({k: v for k, v in scenario.items() if k not in ("name", "description")} | {"array": array},
                      sort_keys=True)


def _workload_checks(task: dict, scenario, catalog, usable: float, runs: dict) -> tuple[dict, dict | None]:
    """Every workload in the fluid mode: its rates, bottleneck, power and cost; the first miss.
    ``runs``: fluid results by ``spares_apart`` and workload, shared by the candidates of a chunk
    that differ in their hot spares only (one solve for both)."""
    figures: dict[str, dict] = {}
    key = spares_apart(task["scenario"])
    for req in task["requirements"]["workloads"]:
        name = req["name"]
        if (key, name) not in runs:
            runs[key, name] = Simulation(scenario, name, catalog=catalog).run("fluid")
        result = runs[key, name]
        metrics = result.metrics()
        money = cost_power(catalog, scenario, usable, metrics, result.utilisation)
        iops = metrics["total_iops"]  # trims too (Result.metrics): a trim job's IOPS are its trims
        rate = result.read_bytes_per_s + result.write_bytes_per_s
        figures[name] = {"iops": iops, "bytes_per_s": rate, "limited_by": str(metrics.get("limited_by", "")),
                         "power_w": money["power_w"], "usd_per_kiops": money["usd_per_kiops"],
                         "raid_waf": metrics.get("raid_waf"), "waf_nand": metrics.get("waf_nand"),
                         "write_share": result.write_bytes_per_s / rate if rate else 0.0,
                         "mean_latency_us": mean_latency_us(result)}  # over reads and writes (it was the reads' alone)
        if req.get("min_iops") and iops < req["min_iops"]:
            return figures, _miss(f"{name} IOPS", iops, req["min_iops"], figures[name]["limited_by"])
        if req.get("min_bytes_per_s") and rate < req["min_bytes_per_s"]:
            return figures, _miss(f"{name} bytes/s", rate, req["min_bytes_per_s"], figures[name]["limited_by"])
    return figures, None


def _power_and_wear(task: dict, scenario, catalog, figures: dict) -> tuple[dict, dict | None]:
    """The highest power over the workloads, and the drives' life under the endurance rate."""
    req = task["requirements"]
    powers = [f["power_w"] for f in figures.values() if f["power_w"] is not None]
    out: dict[str, Any] = {"power_w": max(powers) if powers else None}
    if req.get("max_power_w") is not None and out["power_w"] is not None and out["power_w"] > req["max_power_w"]:
        worst = max(figures, key=lambda k: figures[k]["power_w"] or 0.0)
        return out, _miss("max_power_w", out["power_w"], req["max_power_w"], f"drives and CPUs busy under {worst}")
    endurance = req.get("endurance")
    if endurance:
        writing = [f for f in figures.values() if f["write_share"] > 0]
        worst = max(writing, key=lambda f: (f["raid_waf"] or 1.0) * (f["waf_nand"] or 1.0), default=None)
        raid_waf = worst["raid_waf"] if worst else task["min_write_factor"]
        waf_nand = worst["waf_nand"] if worst else 1.0
        wear = drive_wear(catalog, scenario.array.drive, scenario.array.drives, endurance["host_write_bytes_per_s"],
                          raid_waf, waf_nand)
        years = wear["lifetime_years"] if wear["lifetime_years"] is not None else math.inf
        out.update(lifetime_years=years, effective_dwpd=wear["effective_dwpd"], rated_dwpd=wear["rated_dwpd"])
        if years < endurance["service_life_years"]:
            return out, _miss("endurance years", years, endurance["service_life_years"], "drives' rated writes")
    return out, None


def _risk_source(summary: dict, rebuild_limit: str) -> str:
    """What a P(data loss) miss comes from: unrecoverable read errors over the survivors' bytes the
    rebuild reads, where they are most of it (a faster rebuild does not mend that: fewer bytes read
    per rebuild, a drive of a lower UBER, or more redundancy does), else the rebuild's length, and
    what limits it (it named the rebuild's limit for a miss that was 99.9% unrecoverable reads)."""
    ure, failures = summary.get("p_unrecoverable_read") or 0.0, summary.get("p_another_failure") or 0.0
    if ure > failures:
        return (f"unrecoverable read errors over the {summary.get('survivor_bytes_read', 0.0) / 1e12:,.1f} TB the "
                f"rebuild reads ({format_probability(ure)} from them; {format_probability(failures)} from more drive "
                f"failures)")
    return rebuild_limit


def _rebuild_load(scenario, name: str, fraction: float) -> WorkloadSpec | Phase:
    """The rebuild's load: ``fraction`` of workload ``name``'s jobs (whole jobs, at least one), and
    of each job fio runs with it (its phase, ``plan.spec.FioPick``), as one ``Phase``."""
    base = next(w for w in scenario.workloads if w.name == name)
    found = scenario.phase(base.phase) if base.phase is not None else None
    jobs = tuple(w.model_copy(update={"numjobs": max(1, round(w.numjobs * fraction))})
                 for w in (found.jobs if found is not None else (base,)))
    return Phase(name=found.name, jobs=jobs) if found is not None else jobs[0]


def _rebuild_and_risk(task: dict, scenario, catalog) -> tuple[dict, dict | None]:
    """One member failing under the stated load: rebuild hours, P(data loss), MTTDL."""
    req = task["requirements"]
    rebuild = req.get("rebuild")
    if not rebuild and req.get("max_data_loss_probability") is None and req.get("min_mttdl_years") is None:
        return {}, None
    load = _rebuild_load(scenario, rebuild["workload"], rebuild["load_fraction"]) if rebuild and rebuild.get("workload") else None
    summary = rebuild_summary(scenario, catalog, load)
    hours = summary["rebuild_hours"] if summary["rebuild_hours"] is not None else math.inf
    out = {"rebuild_hours": hours, "data_loss_probability": summary["data_loss_probability"],
           "mttdl_years": summary["mttdl_years"]}
    limit = summary.get("rebuild_limited_by") or "no redundancy"
    if rebuild and hours > rebuild["max_hours"]:
        return out, _miss("rebuild hours", hours, rebuild["max_hours"], limit)
    if req.get("max_data_loss_probability") is not None and out["data_loss_probability"] > req["max_data_loss_probability"]:
        return out, _miss("P(data loss)", out["data_loss_probability"], req["max_data_loss_probability"], _risk_source(summary, limit))
    if req.get("min_mttdl_years") is not None and out["mttdl_years"] < req["min_mttdl_years"]:
        return out, _miss("MTTDL years", out["mttdl_years"], req["min_mttdl_years"], limit)
    return out, None


def evaluate(task: dict, runs: dict | None = None) -> dict:
    """One candidate in the fluid mode against the rate, power and endurance requirements, or
    (``task["rebuild"]``) against the rebuild and risk ones (runs in a worker process); ``runs``:
    the fluid results its chunk has so far (``_workload_checks``)."""
    catalog = default_catalog()
    try:
        scenario = parse_scenario(task["scenario"], catalog, source=f"plan candidate {task['index']}")
    except InputError as exc:
        return {"index": task["index"], "miss": _miss("a valid set-up", math.nan, math.nan, str(exc))}
    if task.get("rebuild"):
        out, miss = _rebuild_and_risk(task, scenario, catalog)
        return dict(out, index=task["index"], miss=miss)
    usable = float(capacity(scenario, catalog).usable_bytes)
    figures, miss = _workload_checks(task, scenario, catalog, usable, {} if runs is None else runs)
    out: dict[str, Any] = {"index": task["index"], "workloads": figures}
    if miss is None:
        extra, miss = _power_and_wear(task, scenario, catalog, figures)
        out.update(extra)
    out["miss"] = miss
    return out


def evaluate_chunk(tasks: list[dict]) -> list[dict]:
    """Each task's answer; candidates of the chunk that differ in their hot spares only share
    their fluid runs (the plan's order keeps them side by side)."""
    runs: dict = {}
    return [evaluate(t, runs) for t in tasks]


def needs_rebuild(requirements: dict) -> bool:
    """Whether the plan asks for a rebuild time, P(data loss) or MTTDL (each needs a rebuild solve)."""
    return bool(requirements.get("rebuild")) or requirements.get("max_data_loss_probability") is not None \
        or requirements.get("min_mttdl_years") is not None


def _start_worker() -> None:
    """A worker's set-up, asked for as the pool opens: nvsim imported and the catalog loaded."""
    default_catalog()


@contextmanager
def pool(workers: int, dask_address: str | None = None):
    """Where candidates run: a Dask client, local spawned processes, or this process (None)."""
    if dask_address:  # refused in one line naming --dask when no scheduler answers
        with dask_client(dask_address) as client:
            yield client
    elif workers > 1:  # spawned workers that die with this process (nvsim.workers)
        with process_pool(workers) as executor:
            for _ in range(workers):  # each starts now (imports, catalog), not at the first chunk
                executor.submit(_start_worker)
            yield executor
    else:
        yield None


def chunk_size(tasks: int) -> int:
    """Candidates per chunk: about ``tasks / SPLIT``, at most ``CHUNK``, and even (a candidate and
    its hot-spare twin, side by side in the plan's order, share a chunk and so their fluid runs)."""
    size = -(-tasks // SPLIT)
    return max(2, min(CHUNK, size + size % 2))


def run_tasks(tasks: list[dict], where, progress: Callable[[int], None] | None = None) -> list[dict]:
    """Every task's answer, in the tasks' order, from ``pool``'s executor (or this process)."""
    size = chunk_size(len(tasks))
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    if where is None or len(chunks) <= 1:
        results: Iterable[list[dict]] = map(evaluate_chunk, chunks)
    elif hasattr(where, "gather"):  # a Dask client
        results = (future.result() for future in where.map(evaluate_chunk, chunks, pure=False))
    else:
        results = where.map(evaluate_chunk, chunks)
    answers: list[dict] = []
    for chunk in results:
        answers.extend(chunk)
        if progress:
            progress(len(chunk))
    return sorted(answers, key=lambda a: a["index"])


RUN_WINDOW = Precision(max_wall_s=0.0)
"""The event mode as ``nvsim run --max-seconds 0`` runs it (its default --precision, no wall time to
go on past the planned window): the same seed, the same window, the same bits."""


def event_runs(scenario, catalog, host_ios: int | None) -> dict[str, Any]:
    """Each workload's event-mode Result, by name, as ``nvsim run --max-seconds 0`` runs the
    exported scenario (``nvsim.simulation.run_workload_group``: a phase solved whole); ``host_ios``
    None: the run's own window (``EVENT_HOST_IOS``), else that many measured host I/Os."""
    out: dict[str, Any] = {}
    for run in workload_runs(scenario):
        names = [scenario.workloads[i].name for i in run]
        out.update(zip(names, run_workload_group(scenario, catalog, "event", run, RUN_WINDOW,
                                                 host_ios=host_ios or EVENT_HOST_IOS)))
    return out


def event_figures(result, fluid: dict, percentiles) -> dict:
    """One workload's event figures: its rates, their ratio to the fluid mode's, the latency
    percentiles asked for, the host I/Os it measured and the 95% intervals it knows them to."""
    metrics = result.metrics()
    iops = metrics.get("total_iops") or 0.0  # trims too, as the fluid stage counts them (Result.metrics)
    simulated = result.simulation
    return {"iops": iops, "bytes_per_s": (metrics.get("read_bytes_per_s") or 0.0) + (metrics.get("write_bytes_per_s") or 0.0),
            "event_over_fluid": iops / fluid["iops"] if fluid["iops"] else None,
            "latency_us": {p: _percentile(metrics, p) for p in percentiles},
            "limited_by": str(metrics.get("limited_by", "")),
            "host_ios": int(simulated.simulated_host_ios) if simulated is not None else None,
            "iops_ci95": float(simulated.iops_ci95) if simulated is not None else None,
            "tail_ci95_us": {d: list(ci) for d, ci in simulated.tail_ci95_us.items()} if simulated is not None else {}}


def event_check(scenario_dict: dict, requirements: dict, host_ios: int | None, fluid: dict) -> dict:
    """The event mode on one candidate, as ``nvsim run --max-seconds 0`` runs its scenario
    (``event_runs``): each workload's rate and latency percentiles against the targets, and its
    rate over the fluid mode's."""
    catalog = default_catalog()
    scenario = parse_scenario(scenario_dict, catalog, source="plan candidate")
    results = event_runs(scenario, catalog, host_ios)
    out: dict[str, Any] = {"workloads": {}, "miss": None}
    for req in requirements["workloads"]:
        name = req["name"]
        figures = out["workloads"][name] = event_figures(results[name], fluid[name], req.get("max_latency_us", {}))
        checks = [(f"{name} IOPS", figures["iops"], req.get("min_iops"), False),
                  (f"{name} bytes/s", figures["bytes_per_s"], req.get("min_bytes_per_s"), False)]
        checks += [(f"{name} {p} latency us", figures["latency_us"][p], limit, True) for p, limit in req.get("max_latency_us", {}).items()]
        for label, value, target, is_max in checks:
            if target is not None and out["miss"] is None and (value > target if is_max else value < target):
                out["miss"] = _miss(label, value, target, figures["limited_by"])
    return out


def _percentile(metrics: dict, p: str) -> float:
    """The worse direction's latency at percentile ``p`` (microseconds)."""
    key = p.replace(".", "_")
    values = [metrics.get(f"{d}_latency_{key}_us") for d in ("read", "write")]
    values = [v for v in values if v is not None]
    return max(values) if values else math.inf


__all__ = ["scenario_data", "spares_apart", "evaluate", "evaluate_chunk", "run_tasks", "pool", "needs_rebuild", "event_check", "event_runs", "RUN_WINDOW", "CHUNK", "SPLIT", "chunk_size"]
