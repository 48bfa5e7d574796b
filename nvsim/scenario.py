"""Load a scenario: YAML file (or a directory holding scenario.yaml) -> validated ScenarioSpec."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .catalog import Catalog, default_catalog
from .loader import load_yaml
from .engines import engine_settings
from .errors import InputError, from_validation_error
from .shipped import carried_hint
from .specs import ScenarioSpec

SCENARIO_FILE = "scenario.yaml"
OTHER_FILES = (("numbers", "a published-numbers file", "nvsim validate --scenarios {folder}", "reads"),
               ("base", "a sweep spec", "nvsim sweep {file} -o OUT", "runs"),
               ("requirements", "a plan file", "nvsim plan {file}", "runs"))
"""YAML files that are not scenarios, by the top-level key each requires (``PublishedFile.numbers``,
``SweepSpec.base``, ``PlanSpec.requirements``, none a scenario's): what each is and the command that takes it."""


def scenario_path(path: str | Path) -> Path:
    """A scenario file, or ``DIR/scenario.yaml`` when given a directory."""
    path = Path(path)
    if path.is_dir():
        candidate = path / SCENARIO_FILE
        if not candidate.exists():
            from .published import PUBLISHED_FILE  # the published numbers, not a scenario (loaded on this error only)

            others = sorted(p.name for p in path.glob("*.yaml") if p.name != PUBLISHED_FILE)
            hint = f"; scenario files here: {', '.join(others)}" if others else ""
            raise InputError("SCENARIO", f"directory {path} has no {SCENARIO_FILE}{hint}")
        return candidate
    if not path.exists():
        raise InputError("SCENARIO", f"no such file or directory: {path}{carried_hint(path)}")
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
    if scenario.volumes:  # each volume's engine settings and workload, as the array's are checked (nvsim.volumes)
        from .volume_rules import check_volumes

        check_volumes(scenario, catalog, source=source)
    return scenario


def check_is_scenario(data: Any, file: Path) -> None:
    """Refuse a published-numbers file, a sweep spec or a plan file given as a scenario (``OTHER_FILES``:
    its own top-level key, none of a scenario's required ones), naming the command that takes it."""
    required = [key for key, field in ScenarioSpec.model_fields.items() if field.is_required()]
    if not isinstance(data, dict) or any(key in data for key in required):
        return
    for key, what, command, verb in OTHER_FILES:
        if key in data:
            command = command.format(file=shlex.quote(str(file)), folder=shlex.quote(str(file.parent)))
            raise InputError("SCENARIO", f"{file} is {what} (top-level {key}:), not a scenario; `{command}` {verb} it")


def as_scenario(scenario: Any, catalog: Catalog | None = None) -> ScenarioSpec:
    """A scenario the Python API was handed: a ``ScenarioSpec``, checked again as a scenario file is
    (``model_copy`` checks nothing: an array of 0 drives made a division by zero deep in a run) and
    returned as it is; a path (a YAML file, or a directory holding scenario.yaml), loaded; anything
    else, one ``InputError``."""
    if isinstance(scenario, ScenarioSpec):
        parse_scenario(scenario.model_dump(mode="json", exclude_unset=True), catalog, source=f"scenario {scenario.name!r}")
        return scenario
    if isinstance(scenario, (str, Path)):
        return load_scenario(scenario, catalog)
    raise InputError("scenario", f"a nvsim ScenarioSpec or the path of a scenario YAML file, got {type(scenario).__name__}")


def load_scenario(path: str | Path, catalog: Catalog | None = None) -> ScenarioSpec:
    """The scenario YAML file at ``path`` (or the scenario.yaml of a directory), checked against
    ``catalog`` (None: the shipped one); one ``InputError`` naming the file and field if it is not
    a valid scenario."""
    if not isinstance(path, (str, Path)):
        raise InputError("scenario", f"the path of a scenario YAML file (or of a folder holding scenario.yaml), got "
                                     f"{type(path).__name__}; a mapping: nvsim.parse_scenario(mapping)")
    file = scenario_path(path)
    data = load_yaml(file)  # a fio job file is named as one there
    check_is_scenario(data, file)
    return parse_scenario(data, catalog, source=str(file))
