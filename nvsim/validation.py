"""Published numbers re-predicted and compared: each number's error, status and fitted label.

Published numbers live only in scenarios/*/published.yaml (found and read by nvsim/published.py); this
module and the declared calibration step are their only users -- the models never see them.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .bounds import capacity
from .catalog import Catalog, default_catalog
from .errors import InputError
from .rebuild import rebuild_summary
from .published import PublishedNumber, fitted_ids as declared_fitted_ids, load_published, require_published_files
from .scenario import load_scenario
from .simulation import predict_workload
from .specs import ScenarioSpec, WorkloadSpec
from .units import format_value
from .workers import process_pool


@dataclass(frozen=True)
class Comparison:
    scenario_dir: str
    number: PublishedNumber
    predicted: float | None
    fitted: bool
    reason: str = ""

    @property
    def published(self) -> float:
        return self.number.numeric_value

    @property
    def error(self) -> float | None:
        """Relative error, or the difference in percentage points for absolute tolerances."""
        if self.predicted is None:
            return None
        if self.number.tolerance.absolute is not None:
            return self.predicted - self.published
        return (self.predicted - self.published) / self.published

    @property
    def status(self) -> str:
        if self.predicted is None:
            return "not modelled yet"
        tol = self.number.tolerance
        limit = tol.absolute if tol.absolute is not None else tol.relative
        return "ok" if abs(self.error) <= limit else "OUT"

    def as_record(self) -> dict:
        return {
            "scenario": f"{self.scenario_dir}/{self.number.scenario}", "id": self.number.id,
            "workload": self.number.workload, "metric": self.number.metric, "unit": self.number.unit,
            "published": self.published, "predicted": self.predicted, "error": self.error,
            "fitted": self.fitted, "status": self.status, "source_table": self.number.table, "reason": self.reason,
        }


def _workload(scenario: ScenarioSpec, name: str | None) -> WorkloadSpec | None:
    if name is None:
        return None
    for workload in scenario.workloads:
        if workload.name == name:
            return workload
    raise InputError("workload", f"scenario {scenario.name} has no workload {name!r}")


IDLE_REBUILD_METRICS = {"rebuild_hours_idle": "rebuild_hours", "rebuild_mb_per_s_idle": "rebuild_mb_per_s"}
"""Published metrics of a rebuild with no host workload -> the ``rebuild_summary`` field each reads:
the whole member's time, or the rebuilt member's bytes per second (what /proc/mdstat's ``speed=``
shows, in MB/s of 10^6 bytes)."""


def predict_metric(scenario: ScenarioSpec, workload: WorkloadSpec | None, metric: str, catalog: Catalog) -> float | None:
    """The model's value for one published metric, or None where nvsim does not model it yet."""
    if metric == "usable_capacity_bytes":
        return float(capacity(scenario, catalog).usable_bytes)
    if metric in IDLE_REBUILD_METRICS:  # one member fails onto a hot spare, no host workload
        summary = rebuild_summary(scenario.model_copy(update={"workloads": ()}), catalog)
        value = summary[IDLE_REBUILD_METRICS[metric]]
        return None if value is None else float(value)
    if workload is None:
        return None
    value = predict_workload(scenario, workload, catalog).get(metric)
    return None if value is None else float(value)


_WORKER_SCENARIOS: dict[str, ScenarioSpec] = {}
"""A pool worker's scenario files, loaded once each for its jobs (a worker serves one validation run
on the default catalog, then ends): a file's workloads are separate jobs, and parsing and checking
the file each time cost about 2.5 ms a job (243 loads, 0.6 s of a 15 s run)."""


def _predict_job(job: tuple[str, str | None, str], catalog: Catalog | None = None,
                 scenarios: dict[str, ScenarioSpec] | None = None) -> tuple[tuple[str, str | None], dict]:
    """One (scenario file, workload) -> all its metrics; runs in a worker process (the default
    catalog, the worker's own scenarios) or in the caller's (its ``catalog`` and ``scenarios``)."""
    path, workload_name, fidelity = job
    if catalog is None:
        catalog, scenarios = default_catalog(), _WORKER_SCENARIOS
    scenario = _scenario({} if scenarios is None else scenarios, path, catalog)
    workload = _workload(scenario, workload_name)
    if workload is None:
        return (path, workload_name), {}
    return (path, workload_name), dict(predict_workload(scenario, workload, catalog, fidelity))


def compare_all(root: Path | None = None, catalog: Catalog | None = None, fitted_ids: frozenset[str] | None = None,
                workers: int = 1, fidelity: str = "event",
                progress: Callable[[int, int], None] | None = None) -> list[Comparison]:
    """Every published number re-predicted; ``fitted_ids`` defaults to the declared calibration step's.

    Each (scenario, workload) is simulated once, for all its numbers; ``workers`` > 1 runs them in
    that many processes, this one and ``workers - 1`` spawned ones, largest blocks first (results
    do not depend on it: each run has its own seeded streams).
    ``root``: a directory of scenario folders, or one folder holding a published.yaml (default: the
    clone's scenarios/, else the installed package's); none found there is an ``InputError``.
    ``fidelity="fluid"`` re-predicts in seconds (rates and CPU; no latency percentiles). Worker
    processes load the default catalog, so a ``catalog`` given here runs in this process.
    ``progress(done, total)`` as each (scenario, workload) is simulated.
    """
    own_catalog = catalog is not None
    catalog = catalog or default_catalog()
    fitted_ids = declared_fitted_ids() if fitted_ids is None else fitted_ids
    entries = []
    jobs: dict[tuple[str, str | None], tuple[str, str | None, str]] = {}
    scenarios: dict[str, ScenarioSpec] = {}
    for path in require_published_files(root):
        for index, number in enumerate(load_published(path).numbers):
            scenario_path = str(path.parent / number.scenario)
            _check_named(path, index, number, _named_scenario(scenarios, path, index, number, catalog))
            entries.append((path.parent.name, number, scenario_path))
            if number.workload is not None:
                jobs[(scenario_path, number.workload)] = (scenario_path, number.workload, fidelity)
    results: dict[tuple[str, str | None], dict] = {}
    tick = progress or (lambda done, total: None)
    tick(0, len(jobs))
    if workers > 1 and len(jobs) > 1 and not own_catalog:
        _run_beside_pool(_largest_first(jobs, scenarios, catalog), workers - 1, catalog, scenarios, results,
                         lambda: tick(len(results), len(jobs)))
    else:
        for job in jobs.values():
            key, value = _predict_job(job, catalog, scenarios)
            results[key] = value
            tick(len(results), len(jobs))
    out: list[Comparison] = []
    for directory, number, scenario_path in entries:
        if number.workload is None:
            predicted = predict_metric(_scenario(scenarios, scenario_path, catalog), None, number.metric, catalog)
        else:
            value = results[(scenario_path, number.workload)].get(number.metric)
            predicted = None if value is None else float(value)
        comparison = Comparison(directory, number, predicted, f"{directory}/{number.id}" in fitted_ids,
                                number.known_miss or "")
        out.append(comparison)
    return out


IN_FLIGHT_PER_WORKER = 3
"""Jobs handed to each pool worker ahead (so it never waits for this process to finish its own)."""


def _run_beside_pool(order: list[tuple[str, str | None, str]], pool_workers: int, catalog: Catalog,
                     scenarios: dict[str, ScenarioSpec], results: dict, tick: Callable[[], None]) -> None:
    """Every job of ``order`` into ``results``: ``pool_workers`` workers (``nvsim.workers``: forked
    where safe, else spawned; they die with this process) and this process take them in turn from
    the front, so this process computes too instead of waiting (one worker fewer: its kernel loads
    and memo, and for a spawned one its imports, 3-4 s of CPU in all)."""
    def take(answer: tuple[tuple[str, str | None], dict]) -> None:
        results[answer[0]] = answer[1]
        tick()

    queue, pending = deque(order), deque()
    with process_pool(pool_workers) as pool:
        while queue or pending:
            while queue and len(pending) < IN_FLIGHT_PER_WORKER * pool_workers:
                pending.append(pool.submit(_predict_job, queue.popleft()))
            while pending and pending[0].done():
                take(pending.popleft().result())
            if queue:
                take(_predict_job(queue.popleft(), catalog, scenarios))
            elif pending:
                take(pending.popleft().result())


def _named_scenario(scenarios: dict[str, ScenarioSpec], published: Path, index: int, number: PublishedNumber,
                    catalog: Catalog) -> ScenarioSpec:
    """The scenario file a published number names, beside its published.yaml; a name that is no file
    there is refused naming the number (it read as nvsim run's SCENARIO argument)."""
    path = published.parent / number.scenario
    if not path.is_file():
        here = sorted(p.name for p in published.parent.glob("*.yaml") if p.name != published.name)
        raise InputError(f"numbers[{index}].scenario", f"no scenario file {number.scenario!r} beside {published.name}; "
                                                        f"allowed: {', '.join(here) or 'none here'}", source=str(published))
    return _scenario(scenarios, str(path), catalog)


def _check_named(published: Path, index: int, number: PublishedNumber, scenario: ScenarioSpec) -> None:
    """A published number's workload is one of its scenario's (the error named neither the file nor the number)."""
    names = [w.name for w in scenario.workloads]
    if number.workload is not None and number.workload not in names:
        raise InputError(f"numbers[{index}].workload", f"{number.scenario} has no workload {number.workload!r}; allowed: "
                                                        f"{', '.join(names) or 'none (the scenario runs no workload)'}",
                         source=str(published))


def _scenario(scenarios: dict[str, ScenarioSpec], path: str, catalog: Catalog) -> ScenarioSpec:
    """The scenario file at ``path``, loaded once (``scenarios``: those loaded so far)."""
    if path not in scenarios:
        scenarios[path] = load_scenario(Path(path), catalog)
    return scenarios[path]


def _largest_first(jobs: dict[tuple[str, str | None], tuple[str, str | None, str]],
                   scenarios: dict[str, ScenarioSpec], catalog: Catalog) -> list[tuple[str, str | None, str]]:
    """The jobs in the order the workers take them: largest block first (the event mode books
    each host I/O's member I/Os, so a 1 MiB job costs several times a 4 KiB one: 1.3-1.9 s of CPU
    against 0.1-0.6 s), so that no long job starts last while the other workers idle; file order
    among equals. The answer does not depend on the order (each job has its own seeded streams)."""
    def block_bytes(job: tuple[str, str | None, str]) -> int:
        workload = _workload(_scenario(scenarios, job[0], catalog), job[1])
        return 0 if workload is None else workload.bs
    return sorted(jobs.values(), key=block_bytes, reverse=True)


def summary(comparisons: list[Comparison]) -> dict:
    modelled = [c for c in comparisons if c.predicted is not None and c.number.tolerance.relative is not None]
    errors = [abs(c.error) for c in modelled]
    predicted = [abs(c.error) for c in modelled if not c.fitted]
    return {
        "numbers": len(comparisons),
        "fitted": sum(c.fitted for c in comparisons),
        "median_relative_error_of_predictions": statistics.median(predicted) if predicted else None,
        "modelled": sum(c.predicted is not None for c in comparisons),
        "out_of_tolerance": sum(c.status == "OUT" for c in comparisons),
        "out_without_reason": sum(c.status == "OUT" and not c.reason for c in comparisons),
        "predicted_numbers": sum(c.predicted is not None and not c.fitted for c in comparisons),
        "median_relative_error": statistics.median(errors) if errors else None,
    }


def markdown_table(comparisons: list[Comparison]) -> str:
    """The validation table of docs/validation.md (rendered from a run, checked by the tests)."""
    rows = ["| scenario | number | metric | published | predicted | error | fitted | status |",
            "|---|---|---|---:|---:|---:|---|---|"]
    for c in comparisons:
        if c.error is None:
            err = "-"
        elif c.number.tolerance.absolute is not None:
            err = f"{c.error:+.1f} pt"
        else:
            err = f"{100 * c.error:+.1f}%"
        status = c.status if not (c.status == "OUT" and c.reason) else "OUT (reason below)"
        rows.append(f"| {c.scenario_dir} | {c.number.id} | {c.number.metric} | {format_value(c.published, c.number.unit)} "
                    f"| {format_value(c.predicted, c.number.unit)} | {err} | {'fitted' if c.fitted else 'predicted'} | {status} |")
    stats = summary(comparisons)
    rows.append("")
    rows.append(f"{stats['numbers']} numbers; {stats['fitted']} fitted, {stats['numbers'] - stats['fitted']} predicted; "
                f"{stats['out_of_tolerance']} out of tolerance, each with its reason:")
    rows.append("")
    for c in comparisons:
        if c.status == "OUT":
            rows.append(f"- **{c.scenario_dir}/{c.number.id}**: {c.reason or 'NO REASON WRITTEN'}")
    return "\n".join(rows)
