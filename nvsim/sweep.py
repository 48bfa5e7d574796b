"""Sweeps: a grid (or a list) of set-ups over any scenario field, run in fluid or event mode.

A sweep file (YAML, checked like a scenario: ``extra="forbid"``, one-line errors)::

    base: ../scenarios/graid-gen5-raid6/scenario.yaml   # relative to the sweep file
    workloads: [randread-b4k-j192-d32]                  # default: every workload of the base
    fidelity: fluid                                     # or event
    grid:                                               # cartesian product ...
      array.drive: [kioxia-cm7-r-3.84tb, kioxia-cm7-r-7.68tb]
      array.drives: [8, 16, 24]
      array.level: [5, 6, 10]
    # points: [{array.drives: 8, array.level: 6}, ...]  # ... or a list (or both: the list is added)
    constraints: ["randread-b4k-j192-d32.read_iops >= 10M", "read-b1m-j192-d16.read_bytes_per_s >= 100 GB/s"]
    objective: {maximize: usable_bytes_per_drive}

Every point becomes one row per workload in a tidy table (its fields, then the metrics, the
bottleneck, usable capacity, whether the set-up meets the constraints, its rank), written atomically as
Parquet and CSV. Finished points are appended to ``<out>.partial.jsonl`` as they come, so a
killed sweep re-run finishes only the missing points. Points run in local worker processes, or on
a Dask distributed cluster (``dask_address``: its workers checked to run this nvsim and catalog,
the points sent in ``DASK_TASKS_PER_THREAD`` batches per worker thread); each point is seeded by
the scenario, so where it runs does not change its numbers.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import itertools
import json
import math
import operator
import os
import re
import typing
from collections.abc import Sequence
from contextlib import contextmanager
from concurrent.futures import as_completed as done_first
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from .bounds import capacity
from .budget import MAX_SWEEP_POINTS, MAX_SWEEP_POINTS_CEILING, check_points, check_scenario_regions, check_workload
from .catalog import catalog_dir, default_catalog
from .cost import cost_power
from .loader import load_model
from .numba_cache import source_digest
from .errors import InputError, close_matches, require_extra, shown
from .io import check_output_path, commit_together, journal_path, recover_commit
from .rebuild import data_loss_metrics, rebuild_summary
from .scenario import load_scenario, parse_scenario
from .states import failed_at_start
from .simulation import EVENT_HOST_IOS, HOST_IOS_MAX, HOST_IOS_MIN, Simulation, run_workload_group, workload_runs
from .specs import SECTOR_BYTES, ArraySpec, NumbersNotTruthValues, ScenarioSpec, WorkloadSpec
from .specs.base import FORMULA_STARTS
from .units import (parse_bytes, parse_bytes_per_s, parse_count, parse_plain, parse_size_bound, parse_time_in,
                    parse_with_unit)
from .workers import dask_client, process_pool

OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq}
CONSTRAINT = re.compile(r"^\s*([a-z0-9_][a-z0-9_.-]*)\s*(>=|<=|==|>|<)\s*(.+?)\s*$")
NAMESPACE_FRACTION = "array.namespace_fraction"
"""The one sweep field that is not a scenario's: each member's namespace as a share of its drive's
capacity (1: the whole drive), so a namespace axis follows every drive of a drive axis (a size in
bytes would not fit a 3.84 TB drive and a 61.44 TB one alike)."""
WITHIN_SET_UP = ("array.strip_bytes", "array.hot_spares")
"""Fields the best points choose within a set-up: the best strip and spare count is listed once,
not as rows of their own (the table keeps every point)."""
FIXED_COLUMNS = ("workload", "key", "status", "error", "usable_bytes", "usable_bytes_per_drive", "point",
                 "meets_constraints", "rank")
"""Columns every sweep table has besides the set fields and the metrics of its rows."""


class Objective(NumbersNotTruthValues):
    model_config = ConfigDict(extra="forbid", frozen=True)
    maximize: str | None = None
    minimize: str | None = None

    @model_validator(mode="after")
    def _one_direction(self) -> "Objective":
        if (self.maximize is None) == (self.minimize is None):
            raise ValueError("give exactly one of maximize, minimize (a column to rank the set-ups by)")
        return self

    @property
    def column(self) -> str | None:
        return self.maximize or self.minimize


class SweepSpec(NumbersNotTruthValues):
    """A sweep: a base scenario, the fields to vary, what to keep and how to rank."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    base: str
    workloads: tuple[str, ...] | None = Field(default=None, min_length=1, description=(
        "the base's workloads each point runs (default: every one); an empty list chose none and ran them all"))
    fidelity: Literal["fluid", "event"] = "fluid"
    grid: dict[str, list[Any]] = Field(default_factory=dict)
    points: list[dict[str, Any]] = Field(default_factory=list)
    constraints: tuple[str, ...] = ()
    objective: Objective | None = None
    host_ios: int = Field(default=EVENT_HOST_IOS, ge=HOST_IOS_MIN, le=HOST_IOS_MAX, description=(
        "event mode: measured host I/Os per point (default nvsim run's: a row is `nvsim run --max-seconds 0`'s numbers)"))
    rebuild: bool = Field(default=False, description="add each point's rebuild time and data-loss risk (one drive "
                                                     "failing under the row's workload, fluid mode)")
    max_points: int = Field(default=MAX_SWEEP_POINTS, ge=1, le=MAX_SWEEP_POINTS_CEILING, description=(
        "most set-ups the sweep may have (a bound on its work and memory)"))

    @field_validator("workloads")
    @classmethod
    def _each_workload_once(cls, workloads: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """A workload listed twice was run twice: two rows of each point under one key."""
        for i, name in enumerate(workloads or ()):
            if name in workloads[:i]:
                raise ValueError(f"{name!r} is listed more than once (each repeat would be a second row of every "
                                 f"point under the same key); give each workload once")
        return workloads

    @field_validator("grid")
    @classmethod
    def _non_empty_lists(cls, grid: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for field, values in grid.items():
            if not values:
                raise ValueError(f"{field}: give at least one value")
            if not field or any(not part for part in field.split(".")):
                raise ValueError(f"{field!r}: a field is a dotted path such as array.drives")
            if (at := first_repeat(values, field)) is not None:
                raise ValueError(f"{field}: the value {shown(values[at])} is given more than once (each repeat would "
                                 f"run the same point again); give each value once")
        return grid

    @model_validator(mode="after")
    def _each_setting_used(self) -> "SweepSpec":
        """A field that would change nothing is refused: ``host_ios`` (the event mode's window) in a
        fluid sweep, and a point that sets the member namespace twice (``namespace_fraction``, which
        replaces ``namespace_bytes``, beside it: the bytes were dropped without a word)."""
        if self.fidelity == "fluid" and "host_ios" in self.model_fields_set:
            raise ValueError("host_ios: the event mode's measured host I/Os; a fluid sweep measures none: "
                             "set fidelity: event, or drop host_ios")
        both = {NAMESPACE_FRACTION, "array.namespace_bytes"}
        for where, fields in [("grid", set(self.grid))] + [(f"points[{i}]", set(p)) for i, p in enumerate(self.points)]:
            if both <= fields:
                raise ValueError(f"{where}: {NAMESPACE_FRACTION} and array.namespace_bytes both set the member "
                                 f"namespace; give one")
        return self

    @model_validator(mode="after")
    def _each_point_once(self) -> "SweepSpec":
        """A listed point that is the grid's, or an earlier listed one, is refused: it ran again, a
        second row under the same key."""
        grid = {field: {_value_identity(v, field) for v in values} for field, values in self.grid.items()}
        seen: set[str] = set()
        for i, point in enumerate(self.points):  # values as their fields read them (64KiB and 65536 are one)
            if grid and set(point) == set(grid) and all(_value_identity(v, f) in grid[f] for f, v in point.items()):
                raise ValueError(f"points[{i}]: the grid has this point already; give each point once")
            same = json.dumps({f: _value_identity(v, f) for f, v in point.items()}, sort_keys=True)
            if same in seen:
                raise ValueError(f"points[{i}]: an earlier point of points is the same; give each point once")
            seen.add(same)
        return self

    @property
    def point_count(self) -> int:
        """Set-ups the sweep has, counted without expanding the grid."""
        return math.prod(len(values) for values in self.grid.values()) * bool(self.grid) + len(self.points) or 1

    @field_validator("constraints")
    @classmethod
    def _parse_constraints(cls, constraints: tuple[str, ...]) -> tuple[str, ...]:
        for text in constraints:
            parse_constraint(text)
        return constraints


def _as_read(field: str, value: Any) -> Any:
    """``value`` as the scenario's field at the dotted path ``field`` reads it (its units parsed),
    or as given where the path is not one field of the array or a workload, or the value does not
    read (the sweep's own check of the point refuses it)."""
    section, _, name = field.partition(".")
    model = {"array": ArraySpec, "workload": WorkloadSpec}.get(section)
    info = model.model_fields.get(name) if model is not None else None
    if info is None:
        return value
    try:
        return TypeAdapter(Annotated[info.annotation, *info.metadata]).validate_python(value)
    except (ValidationError, TypeError, ValueError):
        return value


def _value_identity(value: Any, field: str = "") -> str:
    """What makes two grid values the same point (as ``point_key`` sees it; 8.0 is 8); for a field of
    the array or the workload, the value as the field reads it (4k and 4KiB, 50 and 50us of a
    thinktime are one point)."""
    value = _as_read(field, value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True, default=str)


def first_repeat(values: Sequence[Any], field: str = "") -> int | None:
    """Where in ``values`` the first value given before it stands (two values the same as ``_value_identity``
    sees them for ``field``: 8.0 is 8, 4k is 4KiB), or None: a sweep's grid and a plan's search lists give each once."""
    seen: set[str] = set()
    for at, value in enumerate(values):
        if (same := _value_identity(value, field)) in seen:
            return at
        seen.add(same)
    return None


def parse_constraint(text: str) -> tuple[str, str, float]:
    """'read_iops >= 10M' -> (column, operator, value); the value a plain number in the column's
    unit or one with a unit of the column's kind (``column_kind``: 10M IOPS, 100 GB/s, 7.68 TB)."""
    match = CONSTRAINT.match(text)
    if not match:
        raise ValueError(f"constraint {text!r}: write 'column OP value', OP one of {', '.join(OPS)}")
    column, op, raw = match.groups()
    metric = _split_column(column)[1]
    takes, parse = column_kind(metric)
    try:
        value = float(parse(raw))
    except (ValueError, InputError):
        value = math.nan
    if value != value:  # unreadable, a unit of another kind, or NaN (every comparison with NaN is false)
        raise ValueError(f"constraint {text!r}: cannot read the value {raw!r}: {metric} takes {takes}")
    if math.isinf(value):  # every row is below inf: no set-up could meet '>= inf', every one '<= inf'
        raise ValueError(f"constraint {text!r}: {raw!r} is no bound; {metric} takes {takes}, a finite number")
    return column, op, value


def _size(raw: str) -> float:
    """Bytes: a plain number, or a byte unit (20 TB, 4 KiB, 20.95 TiB: a bound to compare against
    need not be whole bytes); fio's bare 4k is refused (is 10M a million bytes or a MiB?)."""
    try:
        return float(raw)
    except ValueError:
        if not raw.strip().endswith("B"):
            raise
        return parse_size_bound(raw)


def _probability(raw: str) -> float:
    value = float(raw)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{raw!r} is not a probability")
    return value


COLUMN_KINDS: tuple[tuple[Callable[[str], bool], str, Callable[[str], float]], ...] = (
    (lambda m: m.endswith("_bytes_per_s"), "a rate: bytes per second (2e9) or with its unit (2 GB/s, 500 MiB/s)",
     lambda raw: float(raw) if not raw.strip().endswith("/s") else parse_bytes_per_s(raw)),
    (lambda m: m.endswith(("_bytes", "_bytes_per_drive")), "a size: bytes (2e13) or with a byte unit (20 TB, 4 KiB)",
     _size),
    (lambda m: m.endswith("_iops") or m == "transactions_per_s", "a count: a number (2e6) or with K, M, G (2M, 2M IOPS)",
     lambda raw: parse_plain(raw) if "iops" not in raw.lower() else parse_count(raw)),
    (lambda m: m.endswith("_probability"), "a probability: a number from 0 to 1 (1e-5)", _probability),
    (lambda m: m.endswith("_mb_per_s"), "MB/s: a number (500) or a rate (2 GB/s)", lambda raw: (
        parse_bytes_per_s(raw) / 1e6 if raw.strip().endswith("/s") else parse_plain(raw))),
    (lambda m: m.endswith("_hours"), "hours: a number (2) or a time with its unit (2 h, 90 min)", parse_time_in(3600.0)),
    (lambda m: m.endswith("_w"), "watts: a number (400) or with W (400 W, 1.5 kW)", parse_with_unit("W")),
    (lambda m: m.endswith("_us"), "microseconds: a number (500) or a time with its unit (500 us, 0.2 ms)", parse_time_in(1e-6)),
)
"""Each column's kind, by its name (the first that matches), as a constraint reads its value: what
it takes and the parser. A value with a unit of another kind is refused, never converted (2 GB/s
against read_iops was compared as 2e9 IOPS)."""
PLAIN = ("a plain number in the column's own unit, or with K, M, G (1.5K)", parse_plain)
"""The kind of every other column (dollars, years, percentages, ratios, set fields)."""


def column_kind(metric: str) -> tuple[str, Callable[[str], float]]:
    """What a constraint on ``metric`` takes (words) and how its value is read (``COLUMN_KINDS``)."""
    return next(((takes, parse) for test, takes, parse in COLUMN_KINDS if test(metric)), PLAIN)


def load_sweep(path: str | Path) -> tuple[SweepSpec, Path]:
    """The sweep spec and its folder (the scenario it names is relative to it); one-line errors."""
    return load_model(path, SweepSpec, "SPEC")


def expand(spec: SweepSpec) -> list[dict[str, Any]]:
    """The points: the grid's cartesian product (in field order), then the listed points."""
    points: list[dict[str, Any]] = []
    if spec.grid:
        fields = list(spec.grid)
        for values in itertools.product(*(spec.grid[f] for f in fields)):
            points.append(dict(zip(fields, values)))
    points.extend(dict(p) for p in spec.points)
    return points or [{}]


def point_key(point: dict[str, Any], workload: str, fidelity: str, sweep: str = "") -> str:
    """Stable identity of one row (for resuming): the point's fields, the workload, the fidelity
    and the ``sweep_fingerprint`` of everything else that changes the row."""
    text = json.dumps({"point": point, "workload": workload, "fidelity": fidelity, "sweep": sweep},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sweep_fingerprint(spec: SweepSpec, base_data: dict[str, Any]) -> str:
    """What a row depends on besides its point, workload and fidelity: the base scenario's data,
    ``host_ios``, ``rebuild``, nvsim's source and its catalog's files (their names and bytes, not
    the folder they lie in: the same nvsim in another clone gives the same keys). A journal row of
    a sweep that differed in any of them has another key, so it is recomputed, never resumed into
    this sweep's table."""
    text = json.dumps({"base": base_data, "host_ios": spec.host_ios, "rebuild": spec.rebuild,
                       "nvsim": source_digest(), "catalog": source_digest(catalog_dir(), "*")}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


REBUILD_COLUMNS = ("rebuild_hours", "rebuild_mb_per_s", "data_loss_probability", "mttdl_years")
"""The columns ``rebuild: true`` adds to each row (``rebuild_summary``'s): a constraint or objective
naming one in a sweep without it is refused before any point runs."""


BLOCK_SIZE_FIELDS = ("bs", "bssplit", "bsrange", "bs_mix")
"""A workload's ways of giving its block sizes: a point that sets one drops the base's others."""


def apply_point(base: dict[str, Any], point: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Set dotted fields on a copy of the scenario data; ``workload.X`` fields go to the workloads
    (one of ``BLOCK_SIZE_FIELDS`` replaces the base workload's block sizes, a mix or one size).

    When a point changes the drive count and the base pins each drive to a socket, a placement with
    every drive on one socket keeps that socket; any other falls back to the even default.
    """
    data = json.loads(json.dumps(base))
    workload_fields: dict[str, Any] = {}
    for field, value in point.items():
        check_settable(data, field)
        parts = field.split(".")
        if parts[0] == "workload":
            workload_fields[".".join(parts[1:])] = value
            continue
        node = data
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        node[parts[-1]] = value
    replaced = [key for key in BLOCK_SIZE_FIELDS if key not in workload_fields] \
        if any(key in workload_fields for key in BLOCK_SIZE_FIELDS) else []  # a point's block sizes replace the base's
    for w in data.get("workloads", []):
        for key in replaced:
            w.pop(key, None)
        w.update(workload_fields)
    placement = data.get("placement") or {}
    sockets = placement.get("drive_sockets")
    drives = (data.get("array") or {}).get("drives")
    if sockets and "placement.drive_sockets" not in point and isinstance(drives, int) and len(sockets) != drives:
        # the drive count changed: keep "all on one socket" placements, else spread them evenly
        placement["drive_sockets"] = [sockets[0]] * drives if len(set(sockets)) == 1 else None
    return data, workload_fields


def namespace_share(value: Any) -> float:
    """A ``array.namespace_fraction`` value: a number above 0 and at most 1, or a one-line refusal."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError(NAMESPACE_FRACTION, f"a share of each drive's capacity, above 0 and at most 1 (1: the whole "
                                             f"drive), got {value!r}")
    return float(value)


def apply_namespace_fraction(data: dict[str, Any], catalog) -> None:
    """Turn the point's ``array.namespace_fraction`` into the member namespace of its drive, in
    whole sectors (1: the whole drive, no namespace_bytes); an unknown drive is left to the
    scenario's own check."""
    array = data.get("array") or {}
    if "namespace_fraction" not in array:
        return
    share = namespace_share(array.pop("namespace_fraction"))
    drive = catalog.drives.get(array.get("drive"))
    array.pop("namespace_bytes", None)
    if drive is not None and share < 1:
        array["namespace_bytes"] = int(drive.capacity_bytes.value * share) // SECTOR_BYTES * SECTOR_BYTES


def check_known_field(field: str) -> None:
    """Refuse (one line) a dotted field the scenario's schema does not have (``array.nope``), with
    the nearest name: otherwise every point would be an invalid row. ``workload.X`` is field X of a
    workload; below a free-form mapping (``array.engine_settings``, each engine's own) the point's
    own check names what is wrong."""
    if field == NAMESPACE_FRACTION:
        return
    parts = field.split(".")
    model: type[BaseModel] | None = WorkloadSpec if parts[0] == "workload" else ScenarioSpec
    for depth in range(1 if parts[0] == "workload" else 0, len(parts)):
        if model is None:
            return
        part, known = parts[depth], model.model_fields
        if part not in known and not (model is WorkloadSpec and part in WORKLOAD_TEXT_FORMS):
            near = close_matches(part, known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else f"; its fields: {', '.join(known)}"
            raise InputError("grid", f"{field!r}: {'.'.join(parts[:depth]) or 'the scenario'} has no field {part!r}{hint}")
        model = _section_model(known[part].annotation) if part in known else None


WORKLOAD_TEXT_FORMS = ("bssplit", "bsrange")
"""A workload's keys in fio's written form, read into its fields (``WorkloadSpec._fio_forms``)."""


def _section_model(annotation: Any) -> type[BaseModel] | None:
    """The model a field's value is (through Optional and Annotated), or None: a value, a mapping or
    a list (set whole: ``check_settable`` refuses a path through one)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (list, tuple, dict):
        return None
    for arg in typing.get_args(annotation):
        found = _section_model(arg)
        if found is not None:
            return found
    return None


def check_settable(data: dict[str, Any], field: str) -> None:
    """Refuse (one line) a dotted field that goes through a list of the scenario (``workloads``,
    ``faults``) or through a value: a point sets a list or a value whole, and ``workload.X`` sets
    field X of every workload; absent sections (``topology.switches``) are created; a name the
    scenario's schema does not have is refused too (``check_known_field``)."""
    parts = field.split(".")
    node: Any = data
    for depth, part in enumerate(parts[:-1] if parts[0] != "workload" else ()):
        child = node.get(part)
        if child is None:
            break
        where = ".".join(parts[:depth + 1])
        if isinstance(child, list):
            hint = "; set a workload's field with workload.<field> (every workload the sweep runs)" \
                if where == "workloads" else ""
            raise InputError("grid", f"{field!r}: {where} is a list in the scenario, set whole or not at all{hint}")
        if not isinstance(child, dict):
            raise InputError("grid", f"{field!r}: {where} is a value ({child!r}), not a section with fields")
        node = child
    check_known_field(field)


def run_point(task: dict[str, Any]) -> list[dict[str, Any]]:
    """One point: every selected workload of it, as table rows (runs in a worker process)."""
    catalog = default_catalog()
    point, fidelity, sweep = task["point"], task["fidelity"], task.get("sweep", "")
    rows = []
    data, _ = apply_point(task["base"], point)
    try:
        apply_namespace_fraction(data, catalog)
        scenario = parse_scenario(data, catalog, source=f"sweep point {point}")
        _check_selected(scenario, task["workloads"])
        running = _running(scenario, task["workloads"])
        for index in sorted(running):
            check_workload(scenario.workloads[index], fidelity, host_ios=task["host_ios"])
        check_scenario_regions(scenario, lambda: Simulation(scenario, catalog=catalog).device_extent,
                               only=running)  # a point's region off its array, of the workloads it runs
    except InputError as exc:
        return [dict(_fields(point), workload=name, key=point_key(point, name, fidelity, sweep), status="invalid", error=str(exc))
                for name in task["workloads"]]
    usable = capacity(scenario, catalog).usable_bytes
    loss = None if scenario.array.single_drive else failed_at_start(scenario, catalog)
    results = {} if loss is not None else _selected_runs(scenario, catalog, fidelity, task["host_ios"], task["workloads"])
    for name in task["workloads"]:
        if loss is not None:  # the array has lost data: its workloads get errors, not rates
            rows.append(dict(_fields(point), workload=name, key=point_key(point, name, fidelity, sweep), status="data loss",
                             error=loss.detail, usable_bytes=float(usable),
                             usable_bytes_per_drive=float(usable) / scenario.array.drives, **data_loss_metrics(loss)))
            continue
        result = results[name]
        metrics = result.metrics()
        metrics.update(cost_power(catalog, scenario, float(usable), metrics, result.utilisation))
        if task.get("rebuild"):
            workload = next(w for w in scenario.workloads if w.name == name)
            r = rebuild_summary(scenario, catalog, workload)
            metrics.update({k: r.get(k) for k in REBUILD_COLUMNS})
        rows.append(dict(_fields(point), workload=name, key=point_key(point, name, fidelity, sweep), status="ok", error="",
                         usable_bytes=float(usable), usable_bytes_per_drive=float(usable) / scenario.array.drives,
                         **{k: v for k, v in metrics.items()}))
    return rows


def _check_selected(scenario, names) -> None:
    """Every workload the sweep runs is one of the point's: a point may set ``workloads`` whole, and
    one that dropped a selected workload stopped the sweep with a KeyError traceback."""
    have = [w.name for w in scenario.workloads]
    missing = [name for name in names if name not in have]
    if missing:
        raise InputError("workloads", f"the point's scenario has no workload {missing[0]!r}, which the sweep runs; "
                                      f"its workloads: {', '.join(have) or 'none'}")


def _running(scenario, names) -> set[int]:
    """The indices of the workloads a point runs: the selected ones and the jobs of their phases
    (``_selected_runs``). Only these are checked: a base workload the sweep does not run (its
    region past a smaller array's end) made every row of the point invalid, while
    ``Simulation(point, workload).run`` answered the selected one."""
    return {i for run in workload_runs(scenario) if any(scenario.workloads[j].name in names for j in run) for i in run}


def _selected_runs(scenario, catalog, fidelity: str, host_ios: int, names) -> dict[str, Any]:
    """The Result of each selected workload, by name: the workloads of one phase from one solve of
    it (``nvsim.simulation.workload_runs``), as ``nvsim run`` does; solved once per workload, a phase
    of N was N solves of it."""
    out: dict[str, Any] = {}
    for run in workload_runs(scenario):
        group = [scenario.workloads[i].name for i in run]
        if any(name in names for name in group):
            out.update(zip(group, run_workload_group(scenario, catalog, fidelity, run, host_ios=host_ios)))
    return out


def _fields(point: dict[str, Any]) -> dict[str, Any]:
    return {f"set.{k}": (v if isinstance(v, (int, float, str, bool)) or v is None else json.dumps(v)) for k, v in point.items()}


def prepare_sweep(spec_path: str | Path):
    """Check a sweep before running it: the file, its size, its base scenario, the workloads it
    names (in its list, its constraints and its objective) and their work."""
    spec, here = load_sweep(spec_path)
    check_points(spec.point_count, spec.max_points)
    try:
        base = load_scenario(here / spec.base)
    except InputError as exc:  # the base not found: named by the sweep's field, in the sweep's file
        if exc.field != "SCENARIO":
            raise
        raise InputError("base", exc.message, source=str(spec_path)) from None
    if not base.workloads:  # an idle scenario (a rebuild with no host I/O): nothing to simulate per point
        raise InputError("workloads", f"the base scenario {spec.base} has no workload, so a sweep has nothing to "
                                      "run at each point; give it one (its workloads:)")
    names = list(spec.workloads or [w.name for w in base.workloads])
    unknown = [n for n in names if n not in {w.name for w in base.workloads}]
    if unknown:
        raise InputError("workloads", f"the base scenario has no workload {unknown[0]!r}; it has {', '.join(w.name for w in base.workloads)}")
    columns = [("constraints", c) for c, _, _ in map(parse_constraint, spec.constraints)]
    columns += [("objective", spec.objective.column)] if spec.objective else []
    for field, column in columns:
        workload, metric = _split_column(column or "")
        if workload and workload not in names:
            raise InputError(field, f"{column!r} names workload {workload!r}, which the sweep does not run; "
                                    f"it runs {', '.join(names)}", source=str(spec_path))
        if metric.startswith("set."):
            _check_set_column(spec, field, column, metric[4:], spec_path)
        if metric in REBUILD_COLUMNS and not spec.rebuild:  # no row has it: refused once every point had run
            raise InputError(field, f"{column!r}: {metric} is a column of rebuild: true (each row's rebuild time and "
                                    f"data-loss risk); set rebuild: true in the sweep file", source=str(spec_path))
    for workload in base.workloads:
        if workload.name in names:
            check_workload(workload, spec.fidelity, field=f"base workload {workload.name}", host_ios=spec.host_ios)
    base_data = base.model_dump(mode="json")
    for field in [*spec.grid, *(f for point in spec.points for f in point)]:
        check_settable(base_data, field)
    for value in [*spec.grid.get(NAMESPACE_FRACTION, []), *(p[NAMESPACE_FRACTION] for p in spec.points if NAMESPACE_FRACTION in p)]:
        namespace_share(value)
    return spec, base, names


def _check_set_column(spec: SweepSpec, field: str, column: str, name: str, spec_path) -> None:
    """A constraint or objective on a field the sweep sets (``set.array.drives``) is refused before any
    point runs when the sweep does not set that field, or sets it to a value that is not a number
    that does not read as a number (a drive's name): both were refused only once every point had run (no
    such column; not a number column). A size with its unit reads as its bytes (``_set_value``)."""
    values = [*spec.grid.get(name, []), *(p[name] for p in spec.points if name in p)]
    if not values:
        fields = list(dict.fromkeys([*spec.grid, *(f for p in spec.points for f in p)]))
        raise InputError(field, f"{column!r}: the sweep sets no field {name!r}; it sets "
                                f"{', '.join(fields) or 'none'}", source=str(spec_path))
    text = next((v for v in values if not _is_number(_set_value(name, v))), None)
    if text is not None:
        raise InputError(field, f"{column!r} is not a number column (the sweep sets {name} to {shown(text)}); "
                                f"give a column of numbers", source=str(spec_path))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _set_value(name: str, value: Any) -> Any:
    """A set field's value as a constraint or the objective reads it: as the field reads it, so a
    size written with its unit is its bytes (``64KiB``: 65536, which 'set.array.strip_bytes <= 64KiB'
    compares against); as given where that is not a number."""
    read = _as_read(name, value)
    return read if _is_number(read) else value


def _split_column(column: str) -> tuple[str, str]:
    """'randread-b4k.read_iops' -> ('randread-b4k', 'read_iops'); 'read_iops' and 'set.X' -> ('', column)."""
    if "." in column and column.split(".")[0] != "set":
        workload, _, metric = column.rpartition(".")
        return workload, metric
    return "", column


def run_sweep(spec_path: str | Path, out: str | Path, *, workers: int = 1, dask_address: str | None = None,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run (or finish) a sweep; write ``out``.parquet and ``out``.csv together (the CSV alone,
    with a note, where pyarrow is not installed); return a summary.

    Everything is checked before a point runs (the file, its size, the output paths, the Dask
    scheduler); a constraint naming a column no row has is refused before the first row is
    logged, and one comparing a column of text removes the journal this run began, so a refused
    sweep leaves no ``.partial.jsonl`` (a killed run's, there before, is kept to resume).
    Journal rows are keyed by ``sweep_fingerprint`` too: an edited base scenario, ``host_ios``,
    ``rebuild``, nvsim or catalog recomputes its rows instead of resuming another sweep's."""
    spec, base, names = prepare_sweep(spec_path)
    if dask_address:
        require_extra("distributed", "dask", "--dask", "a sweep on a Dask cluster")
    out = Path(out)
    for path in table_paths(out):
        check_output_path(path, "--output")
    for path in table_paths(out):
        recover_commit(journal_path(path))  # a commit a killed run left half done
    partial = out.with_name(out.name + ".partial.jsonl")
    existed = partial.exists()  # a killed run's journal: kept whatever happens to this run
    done, damaged = _load_partial(partial)
    points = expand(spec)
    base_data = base.model_dump(mode="json")
    sweep = sweep_fingerprint(spec, base_data)
    done, wrong = _resumable(done, {point_key(p, n, spec.fidelity, sweep): (p, n) for p in points for n in names})
    damaged += wrong
    tasks = [{"point": p, "base": base_data, "workloads": names, "fidelity": spec.fidelity, "host_ios": spec.host_ios,
              "rebuild": spec.rebuild, "sweep": sweep}
             for p in points if any(point_key(p, n, spec.fidelity, sweep) not in done for n in names)]
    already = len(points) - len(tasks)
    if progress:
        progress(already, len(points))
    with _executor(tasks, workers, dask_address) as results:
        log = _PartialLog(partial, spec, done)
        try:
            for rows in results:
                log.add(rows)
                already += 1
                if progress:
                    progress(already, len(points))
        finally:
            log.close()
    rows = [dict(done[point_key(p, n, spec.fidelity, sweep)], point=i) for i, p in enumerate(points) for n in names]
    try:
        table = _rank(rows, spec)
    except InputError:  # a column of text ranked or compared: refused, and this run's journal goes with it
        if not existed:
            partial.unlink(missing_ok=True)
        raise
    parquet = _write_table(table, out)
    partial.unlink(missing_ok=True)
    return {"points": len(points), "rows": len(table), "computed_now": len(tasks),
            "meeting_constraints": sum(1 for r in table if r.get("meets_constraints")),
            "invalid": sum(1 for r in table if r.get("status") == "invalid"),
            "first_error": next((r.get("error", "") for r in table if r.get("status") == "invalid"), ""),
            "parquet": str(parquet) if parquet else None, "csv": str(table_paths(out)[0]),
            "best": best_points(table, spec), "objective": spec.objective.column if spec.objective else None,
            "damaged_partial_lines": damaged, "partial": str(partial)}


BEST_POINTS = 10
"""How many set-ups `nvsim sweep` lists at its end."""


def best_points(table: list[dict], spec: SweepSpec, limit: int = BEST_POINTS) -> list[dict]:
    """The best set-ups, one record each: by rank when the sweep has an objective, else those
    meeting the constraints in sweep order. A set-up is the fields the sweep set but the strip and
    spares (``WITHIN_SET_UP``): its best point speaks for it, the strips and spares of its other
    points meeting the constraints listed in ``variants``. Each holds its rank among the set-ups,
    the point's own rank, the fields, and per set-up the objective's value (the worst workload's,
    as ranked), its usable bytes, price and highest power over its workloads."""
    by_point: dict[int, list[dict]] = {}
    for row in table:
        if row.get("meets_constraints"):
            by_point.setdefault(row["point"], []).append(row)
    chosen = sorted(by_point.items(), key=lambda item: (item[1][0].get("rank") is None, item[1][0].get("rank") or 0, item[0]))
    families: dict[tuple, list[list[dict]]] = {}
    for _, rows in chosen:
        fields = _set_fields(rows[0])
        families.setdefault(tuple((k, json.dumps(v)) for k, v in fields.items() if k not in WITHIN_SET_UP), []).append(rows)
    column = spec.objective.column if spec.objective else None
    best = []
    for order, members in enumerate(list(families.values())[:limit], start=1):
        rows = members[0]
        first = rows[0]
        powers = [r.get("power_w") for r in rows if r.get("power_w") is not None]
        variants = {"points": len(members), **{f: _in_grid_order(spec, f, [_set_fields(m[0]).get(f) for m in members])
                                                for f in WITHIN_SET_UP if f in _set_fields(first)}}
        best.append({"rank": order if first.get("rank") is not None else None, "point_rank": first.get("rank"),
                     "fields": _set_fields(first), "variants": variants,
                     "objective": _objective_value(rows, column, spec) if column else None,
                     "usable_bytes": first.get("usable_bytes"), "price_usd": first.get("price_usd"),
                     "power_w": max(powers) if powers else None})
    return best


def _in_grid_order(spec: SweepSpec, field: str, values: list[Any]) -> list[Any]:
    """The distinct ``values`` of a field, in the order the grid lists them (listed points' last)."""
    order = {json.dumps(v): i for i, v in enumerate(spec.grid.get(field, []))}
    return sorted({json.dumps(v): v for v in values}.values(), key=lambda v: order.get(json.dumps(v), len(order)))


def _set_fields(row: dict) -> dict[str, Any]:
    return {k[4:]: v for k, v in row.items() if k.startswith("set.")}


def _objective_value(rows: list[dict], column: str, spec: SweepSpec) -> float | None:
    """The objective as ``_rank`` scores a set-up: its worst workload row (lowest when maximizing)."""
    workload, metric = _split_column(column)
    values = [_set_value(metric[4:], r.get(metric)) if metric.startswith("set.") else r.get(metric)
              for r in rows if (not workload or r["workload"] == workload) and r.get(metric) is not None]
    if not values:
        return None
    return min(values) if spec.objective.maximize else max(values)


def _columns_named(spec: SweepSpec) -> set[str]:
    """The metric columns the constraints and the objective read."""
    columns = [c for c, _, _ in map(parse_constraint, spec.constraints)]
    if spec.objective and spec.objective.column:
        columns.append(spec.objective.column)
    return {_split_column(c)[1] for c in columns}


class _PartialLog:
    """The sweep's ``.partial.jsonl``: finished rows appended and flushed to disk as they come.

    Rows wait in memory until every column the constraints and objective name has been seen in
    a row (or the resumed file): a sweep whose constraint names no column is refused by ``_rank``
    before the file is ever created."""

    def __init__(self, path: Path, spec: SweepSpec, done: dict[str, dict]):
        self.path, self.done, self.handle = path, done, None
        self.needed = _columns_named(spec)
        self.seen: set[str] = set(FIXED_COLUMNS).union(*(row.keys() for row in done.values()))
        self.waiting: list[dict] = []

    def add(self, rows: list[dict]) -> None:
        for row in rows:
            self.done[row["key"]] = row
            self.seen.update(row)
        self.waiting.extend(rows)
        if self.handle is None and not self.needed <= self.seen:
            return
        if self.handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.path, "a", encoding="utf-8")
        for row in self.waiting:
            self.handle.write(json.dumps(row, default=float) + "\n")
        self.waiting.clear()
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


ROW_STATUSES = ("ok", "invalid", "data loss")
"""A row's ``status``: what ``run_point`` writes."""
TEXT_COLUMNS = ("workload", "key", "status", "error", "price_missing")
"""Columns of text a row has besides its ``set.`` fields and the ``*limited_by`` ones: text in any
other column (``"read_iops": "lots"``) is not a row nvsim wrote, so a journal line holding it is
damaged (a new text metric not listed here only costs its rows a recomputation, never a wrong row)."""


def _is_row(row: Any) -> bool:
    """Whether a journal line's object is shaped like a row: a key, a status, and in every column
    a number, true/false, nothing, or text where rows hold text."""
    if not isinstance(row, dict) or not isinstance(row.get("key"), str) or row.get("status") not in ROW_STATUSES:
        return False
    for column, value in row.items():
        if isinstance(value, str):
            if not (column in TEXT_COLUMNS or column.startswith("set.") or column.endswith("limited_by")):
                return False
        elif not (value is None or isinstance(value, (bool, int, float))):
            return False
    return True


def _resumable(done: dict[str, dict], wanted: dict[str, tuple[dict[str, Any], str]]) -> tuple[dict[str, dict], int]:
    """The journal's rows this sweep resumes, by key (``wanted``: each key's point and workload),
    and how many rows under a wanted key are not that point's and workload's (damaged: they run
    again). Rows of other keys (another sweep, an edited one) are left out, not counted."""
    kept: dict[str, dict] = {}
    wrong = 0
    for key, row in done.items():
        if key not in wanted:
            continue
        point, workload = wanted[key]
        fields = {k: v for k, v in row.items() if k.startswith("set.")}
        if row.get("workload") == workload and isinstance(row.get("error"), str) \
                and json.dumps(fields, sort_keys=True) == json.dumps(_fields(point), sort_keys=True):
            kept[key] = row
        else:
            wrong += 1
    return kept, wrong


ROW_LINE_BYTES_MAX = 1 << 20
"""Longest line of a resume file read as a row: a longer one is damaged (its point runs again),
skipped without being held (a 3 GB file of one line had been read whole, 3.3 GB resident)."""


def _load_partial(partial: Path) -> tuple[dict[str, dict], int]:
    """Rows a killed run finished, by key, and how many whole lines were damaged (not a row,
    ``_is_row``, or over ``ROW_LINE_BYTES_MAX``: their points run again, and the sweep says so),
    read line by line. A torn last line (the kill came mid-write) is cut off the file, so the next
    row appended starts on a line of its own and is not lost to the fragment; it is not counted as
    damaged. A resume file that is not a regular file, or cannot be read and written, is refused
    in one line naming ``-o``."""
    done: dict[str, dict] = {}
    damaged = 0
    if not partial.exists() and not partial.is_symlink():
        return done, damaged
    if not partial.is_file():
        raise InputError("--output", f"{partial} (this sweep's resume file) is not a file; remove it, or give another -o")
    try:
        with open(partial, "rb+") as handle:
            whole = 0  # the end of the last whole line
            while line := handle.readline(ROW_LINE_BYTES_MAX + 1):
                if not line.endswith(b"\n"):
                    if len(line) <= ROW_LINE_BYTES_MAX or not _skip_line(handle):
                        break  # the torn last line: cut off below
                    damaged, whole = damaged + 1, handle.tell()
                    continue
                whole = handle.tell()
                row = _row_of(line)
                if _is_row(row):
                    done[row["key"]] = row
                elif line.strip():
                    damaged += 1
            if whole < handle.seek(0, os.SEEK_END):
                handle.truncate(whole)
    except OSError as exc:
        raise InputError("--output", f"cannot read and write this sweep's resume file {partial}: "
                                     f"{exc.strerror or exc}") from None
    return done, damaged


def _skip_line(handle) -> bool:
    """Read on to the end of an over-long line; whether it ends in a newline (False: at the end of
    the file, a torn line)."""
    while chunk := handle.readline(ROW_LINE_BYTES_MAX):
        if chunk.endswith(b"\n"):
            return True
    return False


def _row_of(line: bytes) -> Any:
    """A resume file's line as JSON, or None where it is damaged."""
    try:
        return json.loads(line.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return None


@contextmanager
def _executor(tasks: list[dict], workers: int, dask_address: str | None):
    """Each task's rows as it finishes (order of completion does not matter: rows are keyed), on
    a Dask cluster (connected before any row runs, refused within ``nvsim.workers.DASK_CONNECT_TIMEOUT_S``),
    in local processes, or in this one."""
    if not tasks:
        yield iter(())
    elif dask_address:
        with dask_client(dask_address) as client:
            yield _dask_results(client, tasks)
    elif workers <= 1:
        yield map(run_point, tasks)
    else:  # spawned workers that die with this process (nvsim.workers)
        with process_pool(workers) as pool:
            futures = [pool.submit(run_point, t) for t in tasks]
            yield (future.result() for future in done_first(futures))


DASK_TASKS_PER_THREAD = 4
"""Tasks a sweep on a cluster gives each worker thread: points go in batches (a task per point
costs the scheduler more than a fluid point's milliseconds; a few per thread keep them all busy)."""


def batches(tasks: list, count: int) -> list[list]:
    """``tasks`` in at most ``count`` batches of near-equal size, in order."""
    count = max(1, min(count, len(tasks)))
    size, extra = divmod(len(tasks), count)
    bounds = [0]
    for i in range(count):
        bounds.append(bounds[-1] + size + (i < extra))
    return [tasks[a:b] for a, b in zip(bounds, bounds[1:])]


def run_points(tasks: list[dict]) -> list[list[dict]]:
    """A batch of points (one Dask task): each point's rows, as ``run_point`` gives them."""
    return [run_point(task) for task in tasks]


def _dask_results(client, tasks: list[dict]):
    from dask.distributed import as_completed  # optional and heavy: only a sweep on a cluster loads it

    threads = sum(client.nthreads().values()) or 1
    futures = client.map(run_points, batches(tasks, threads * DASK_TASKS_PER_THREAD), pure=False)
    for future in as_completed(futures):
        yield from future.result()


EMPTY_MEANS = {"drive_lifetime_years": math.inf, "rebuild_hours": math.inf, "rebuild_mb_per_s": 0.0}
"""Columns whose empty cell is a number: a workload that writes nothing wears its drives for no
time, so their life is unbounded (a read-only row failed 'drive_lifetime_years >= 0.1' and went
unranked when the life was maximised); an array without redundancy (RAID0, no RAID) never
rebuilds a failed drive (``rebuild_summary``: no hours, P(data loss) 1), so its rebuild takes
for ever at no speed (RAID0 met 'rebuild_hours <= 2' and 'rebuild_mb_per_s >= 500')."""


def _rank(rows: list[dict], spec: SweepSpec) -> list[dict]:
    """Mark the set-ups meeting every constraint and rank them by the objective (1 = best).

    A constraint or objective names a column (``read_iops``: must hold on every workload row of
    the set-up) or a workload's column (``randread-b4k-j192-d32.read_iops``); a set-up's rows share
    its verdict and rank. An empty cell is a quantity the row does not have (no writes: no write
    latency, no RAID WAF, a drive's NaN NAND WAF with no writes; ``EMPTY_MEANS`` gives the few that read as a number): a constraint holds
    on it, and a set-up with no value of the objective is ranked after those with one, in sweep
    order, so every set-up meeting the constraints has a rank (an objective no row had left every
    rank empty in the files while the printed table ranked them).
    """
    constraints = [parse_constraint(c) for c in spec.constraints]
    table = [{k: _cell(v) for k, v in r.items()} for r in rows]  # NaN is an empty cell, as the files write it
    by_point: dict[int, list[dict]] = {}
    for row in table:
        by_point.setdefault(row["point"], []).append(row)
    columns = set().union(*(r.keys() for r in table)) if table else set()

    def values(point_rows: list[dict], column: str, field: str = "constraints") -> list[Any]:
        workload, metric = _split_column(column)
        if metric not in columns:
            raise InputError(field, f"no column {metric!r} in the results; columns: {', '.join(sorted(columns))}")
        chosen = [r for r in point_rows if not workload or r["workload"] == workload]
        if workload and not chosen:
            raise InputError(field, f"no workload {workload!r} in the sweep")
        found = [EMPTY_MEANS.get(metric) if r.get(metric) is None else r.get(metric) for r in chosen]
        if metric.startswith("set."):  # a size set with its unit (64KiB) compares as its bytes
            found = [None if v is None else _set_value(metric[4:], v) for v in found]
        text = next((v for v in found if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)))), None)
        if text is not None:  # ranked or compared, it ended in a traceback after every point had run
            raise InputError(field, f"{metric!r} is not a number column (a row holds {str(text)[:60]!r}); "
                                    f"give a column of numbers")
        return found

    verdicts: dict[int, bool] = {}
    for point, point_rows in by_point.items():
        ok = all(r.get("status") == "ok" for r in point_rows)
        for column, op, value in constraints:
            ok = ok and all(v is None or OPS[op](float(v), value) for v in values(point_rows, column))
        verdicts[point] = bool(ok)
    for row in table:
        row["meets_constraints"] = verdicts[row["point"]]
        row["rank"] = None
    objective = spec.objective
    if objective and objective.column:
        scored, unscored = [], []
        for point, point_rows in by_point.items():
            if verdicts[point]:
                vals = [v for v in values(point_rows, objective.column, "objective") if v is not None]
                if vals:
                    scored.append((min(vals) if objective.maximize else max(vals), point))
                else:
                    unscored.append(point)
        scored.sort(key=lambda item: item[0], reverse=objective.maximize is not None)
        ranks = {point: i for i, point in enumerate([p for _, p in scored] + unscored, start=1)}
        for row in table:
            row["rank"] = ranks.get(row["point"])
    return table


TABLE_SUFFIXES = (".csv", ".parquet")
"""Suffixes that name a sweep's table itself in ``-o`` (``res.csv``: res.csv and res.parquet)."""


def table_paths(out: Path) -> tuple[Path, Path]:
    """The CSV and the Parquet ``-o OUT`` names: OUT.csv and OUT.parquet. A name ending in .csv or
    .parquet names the pair by its stem; any other dot is part of the name (``res.w1``: res.w1.csv
    and res.w1.parquet; taken as a suffix, ``res.w1`` and ``res.w2`` both wrote res.csv)."""
    stem = out.with_suffix("") if out.suffix.lower() in TABLE_SUFFIXES else out
    return stem.with_name(stem.name + ".csv"), stem.with_name(stem.name + ".parquet")


PARQUET_MISSING_NOTE = "note: pyarrow is not installed (pip install 'nvsim[parquet]'): the CSV only, no Parquet"


def _write_table(rows: list[dict], out: Path) -> Path | None:
    """The CSV (the standard library's writer) and, where pyarrow is installed, the Parquet,
    committed together (``nvsim.io.commit_together``): a kill never leaves a new Parquet beside an
    old CSV, and a CSV written without pyarrow removes an older Parquet. The Parquet's path, or None."""
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    csv_file, parquet = table_paths(out)
    writers = [(csv_file, lambda tmp: _write_csv(columns, rows, tmp))]
    if importlib.util.find_spec("pyarrow") is None:
        commit_together(writers, remove=[parquet] if parquet.exists() else [])
        return None
    import pyarrow as pa  # optional and heavy (with its parquet module): only writing a table loads it
    import pyarrow.parquet as pq

    table = pa.table({c: _arrow_column(pa, [_cell(r.get(c)) for r in rows]) for c in columns})
    commit_together([(parquet, lambda tmp: pq.write_table(table, tmp)), *writers])
    return parquet


def _arrow_column(pa, values: list) -> Any:
    """One Parquet column. A set field whose grid mixes kinds of value (``array.strip_bytes:
    ["64KiB", 131072]``, or a refused ``true`` beside ``8``) has no one Arrow type: such a column
    is written as text, each value as the CSV shows it (pyarrow raised, a traceback after every
    point had run)."""
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return pa.array([None if v is None else v if isinstance(v, str) else json.dumps(v, default=float)
                         for v in values])


CSV_FORMULA_STARTS = (*FORMULA_STARTS, "\t", "\r")
"""First characters of a text cell a spreadsheet would read as a formula (OWASP's CSV injection
list: the names' ``FORMULA_STARTS`` and tab and carriage return): such a cell is written after a
single quote, so it reads as text."""


def _write_csv(columns: list[str], rows: list[dict], path) -> None:
    """The sweep's table as CSV: a header of the columns, a line per row; a missing value (None,
    NaN) is an empty field, booleans are true/false, a text that would start a formula (a grid's
    value, a description, the refused value of an invalid row's ``set.`` cell) begins with ``'``."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([_csv_text(c) for c in columns])
        for row in rows:
            writer.writerow([_csv_text(_cell(row.get(c))) for c in columns])


def _csv_text(value: Any) -> Any:
    """One CSV cell: numbers as numbers (-1.5 stays a number), text starting with one of
    ``CSV_FORMULA_STARTS`` after a single quote (``'=1+1``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(CSV_FORMULA_STARTS):
        return "'" + value
    return value


def _cell(value: Any) -> Any:
    if isinstance(value, float) and value != value:
        return None
    return value


__all__ = ["SweepSpec", "sweep_fingerprint", "best_points", "load_sweep", "prepare_sweep", "expand", "run_sweep", "run_point", "run_points", "batches",
           "PARQUET_MISSING_NOTE", "point_key", "apply_point", "check_settable", "parse_constraint", "NAMESPACE_FRACTION",
           "WITHIN_SET_UP", "apply_namespace_fraction", "namespace_share"]
