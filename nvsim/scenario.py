"""Load a scenario: YAML file (or a directory holding scenario.yaml) -> validated ScenarioSpec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .catalog import Catalog, default_catalog
from .loader import load_yaml
from .engines import engine_settings
from .errors import InputError, from_validation_error
from .specs import ScenarioSpec

SCENARIO_FILE = "scenario.yaml"


def scenario_path(path: str | Path) -> Path:
    """A scenario file, or ``DIR/scenario.yaml`` when given a directory."""
    path = Path(path)
    if path.is_dir():
        candidate = path / SCENARIO_FILE
        if not candidate.exists():
            others = sorted(p.name for p in path.glob("*.yaml"))
            hint = f"; YAML files here: {', '.join(others)}" if others else ""
            raise InputError("SCENARIO", f"directory {path} has no {SCENARIO_FILE}{hint}")
        return candidate
    if not path.exists():
        raise InputError("SCENARIO", f"no such file or directory: {path}")
    return path


def parse_scenario(data: Any, catalog: Catalog | None = None, *, source: str | None = None) -> ScenarioSpec:
    """Validate already-loaded data (from YAML, the dashboard, a sweep) against the catalog."""
    catalog = catalog or default_catalog()
    if not isinstance(data, dict):
        raise InputError("", "a scenario must be a YAML mapping (name, platform, array, workloads)", source=source)
    try:
        scenario = ScenarioSpec.model_validate(data, context={"catalog": catalog})
    except ValidationError as exc:
        raise from_validation_error(exc, ScenarioSpec, source=source) from None
    engine_settings(catalog.engines[scenario.array.engine], scenario.array.engine_settings, source=source)
    return scenario


def load_scenario(path: str | Path, catalog: Catalog | None = None) -> ScenarioSpec:
    file = scenario_path(path)
    return parse_scenario(load_yaml(file), catalog, source=str(file))
