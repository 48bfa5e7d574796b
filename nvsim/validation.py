"""Published numbers: load them, re-predict each, and compare.

Published numbers live only in scenarios/*/published.yaml. This module (and the declared
calibration step) are the only readers; the models never see them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .catalog import Catalog, default_catalog, read_yaml
from .errors import InputError, from_validation_error
from .scenario import load_scenario
from .specs import ScenarioSpec, WorkloadSpec

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"


class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    relative: float | None = Field(default=None, gt=0)
    absolute: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one(self) -> "Tolerance":
        if (self.relative is None) == (self.absolute is None):
            raise ValueError("give exactly one of relative, absolute")
        return self


class PublishedNumber(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    scenario: str
    workload: str | None = None
    metric: str
    value: float | str
    unit: Literal["bytes", "B/s", "IOPS", "percent", "TPS", "ratio", "MB/s"]
    tolerance: Tolerance
    table: str
    wording: str
    reading: str | None = None

    @property
    def numeric_value(self) -> float:
        from .units import parse_bytes, parse_bytes_per_s, parse_count
        parse = {"bytes": parse_bytes, "B/s": parse_bytes_per_s, "IOPS": parse_count}.get(self.unit, float)
        return float(parse(self.value))


class PublishedFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: str
    notes: str | None = None
    numbers: tuple[PublishedNumber, ...]


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


def load_published(path: Path) -> PublishedFile:
    try:
        return PublishedFile.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise from_validation_error(exc, PublishedFile, source=str(path)) from None


def published_files(root: Path | None = None) -> list[Path]:
    return sorted((root or SCENARIOS_DIR).glob("*/published.yaml"))


def _workload(scenario: ScenarioSpec, name: str | None) -> WorkloadSpec | None:
    if name is None:
        return None
    for workload in scenario.workloads:
        if workload.name == name:
            return workload
    raise InputError("workload", f"scenario {scenario.name} has no workload {name!r}")


def predict_metric(scenario: ScenarioSpec, workload: WorkloadSpec | None, metric: str, catalog: Catalog) -> float | None:
    """The model's value for one published metric, or None where nvsim does not model it yet."""
    from .bounds import capacity
    if metric == "usable_capacity_bytes":
        return float(capacity(scenario, catalog).usable_bytes)
    if workload is None:
        return None
    from .predict import predict_workload
    values = predict_workload(scenario, workload, catalog)
    return None if values is None else values.get(metric)


def compare_all(root: Path | None = None, catalog: Catalog | None = None, fitted_ids: frozenset[str] | None = None) -> list[Comparison]:
    """Every published number re-predicted; ``fitted_ids`` defaults to the declared calibration step's."""
    from .calibrate import fitted_ids as declared

    catalog = catalog or default_catalog()
    fitted_ids = declared() if fitted_ids is None else fitted_ids
    out: list[Comparison] = []
    for path in published_files(root):
        published = load_published(path)
        cache: dict[str, ScenarioSpec] = {}
        for number in published.numbers:
            if number.scenario not in cache:
                cache[number.scenario] = load_scenario(path.parent / number.scenario, catalog)
            scenario = cache[number.scenario]
            predicted = predict_metric(scenario, _workload(scenario, number.workload), number.metric, catalog)
            out.append(Comparison(path.parent.name, number, predicted, f"{path.parent.name}/{number.id}" in fitted_ids))
    return out


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
        "median_relative_error": statistics.median(errors) if errors else None,
    }
