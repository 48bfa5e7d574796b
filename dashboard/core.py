"""The dashboard's logic without Dash: controls -> scenario dict -> validated spec -> one results record.

Kept free of Dash (and of plotting) so the callbacks, the event-mode worker process, the benchmark
and the tests all call the same functions. Every record is plain JSON data (it travels through the
browser's ``dcc.Store``); quantities carry their unit in the key.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import json
import logging
import math
import re
import time
from functools import lru_cache
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from nvsim import (Catalog, InputError, Precision, ScenarioSpec, Simulation, WorkloadSpec, array_bounds, default_catalog,
                   parse_scenario, rebuild_summary)
from nvsim.constants import PAGE_BYTES
from nvsim.errors import client_input, not_printable
from nvsim.rebuild import scrub_summary
from nvsim.simulation import run_workload_group, workload_runs
from nvsim.fio import FileOpener, parse_fio_jobfile, platform_keywords
from nvsim.fio.expand import NO_ENVIRONMENT
from nvsim.fio.run import check_regions
from nvsim.budget import check_scenario_regions, check_workload
from nvsim.loader import parse_yaml
from nvsim.names import drive_name, product_name, size_text
from nvsim.specs.scenario import MAX_WORKLOADS
from nvsim.units import format_bytes_binary, format_bytes_decimal, format_large, format_probability, format_significant
from nvsim.bounds import capacity
from nvsim.cost import cost_power
from nvsim.wear import drive_wear

from .client_files import ClientFiles

log = logging.getLogger(__name__)
UPLOAD_LIMIT_BYTES = 1_000_000
"""Largest file the dashboard reads (scenario YAML or fio job file); bigger ones are refused."""
EVENT_HOST_IOS = 20_000
"""Measured host I/Os per workload of the dashboard's event-mode run: seconds, not minutes."""
DEFAULT_NUMJOBS = 192
MAX_DRIVES = 256
"""Most drives the dashboard simulates: the md stripe planner's member limit
(nvsim/stripe/layout.py); a larger count is refused beside the control, not attempted."""
EVENT_MAX_OUTSTANDING_IOS = 65_536
"""Most I/Os one event-mode workload may keep in flight (numjobs x iodepth, or OLTP users): each
costs about EVENT_BYTES_PER_OUTSTANDING_IO of worker memory (measured: 256 x 256 took 0.55 GB
and 3 s for 20,000 host I/Os, 192 x 32 0.32 GB), so this bounds a job near 0.5 GB."""
EVENT_BYTES_PER_OUTSTANDING_IO = 3_700
EVENT_BASE_BYTES = 320_000_000
"""A worker's memory before any I/O is in flight (the models and their kernels loaded)."""
FILE_WORKLOADS = "file"
"""The workload selector's value for workloads from an uploaded fio job file or scenario."""

PRESETS: dict[str, dict[str, Any]] = {
    "randread-4k": {"label": "4K random read", "workload": {"rw": "randread", "bs": "4k", "iodepth": 32}},
    "randwrite-4k": {"label": "4K random write", "workload": {"rw": "randwrite", "bs": "4k", "iodepth": 16}},
    "randrw-70-30-4k": {"label": "4K random 70/30 read/write",
                        "workload": {"rw": "randrw", "rwmixread": 70, "bs": "4k", "iodepth": 32}},
    "read-1m": {"label": "1M sequential read", "workload": {"rw": "read", "bs": "1m", "iodepth": 16}},
    "write-1m": {"label": "1M sequential write", "workload": {"rw": "write", "bs": "1m", "iodepth": 16}},
    "oltp": {"label": "OLTP (sysbench oltp_read_write, 256 users)",
             "workload": {"rw": "oltp", "users": 256,
                          "oltp": {"profile": "sysbench-oltp-rw", "dataset_bytes": "100GB", "buffer_pool_bytes": "32GB"}},
             "jobs": False},
}
"""Workload presets: fio-like jobs (numjobs and iodepth come from the controls) and the OLTP job."""

STRIP_CHOICES_BYTES = (4096, 16384, 65536, 131072, 262144, 524288, 1048576)
LEVELS = (0, 1, 5, 6, 10)

DEFAULT_SETUP: dict[str, Any] = {
    "platform": "supermicro-as-2125hs-tnr", "drive": "kioxia-cm7-r-3.84tb", "drives": 24,
    "namespace_mode": "full", "namespace_value": "", "level": 6, "strip_bytes": 4096,
    "engine": "graid-supremeraid-sr1010", "workload": "randread-4k", "numjobs": None, "iodepth": None,
}
"""The reference set-up of scenarios/graid-gen5-raid6 (24x CM7-R 3.84 TB, GPU RAID6)."""

CONTROLS = ("platform", "drive", "drives", "namespace", "level", "strip", "engine", "workload", "numjobs", "iodepth")
"""Controls that have a validation message slot beside them (``<control>-error`` in the page)."""


# ---------------------------------------------------------------- controls -> scenario


def default_setup(catalog: Catalog | None = None) -> dict[str, Any]:
    """DEFAULT_SETUP, falling back to the catalog's first entries when a default name is missing."""
    catalog = catalog or default_catalog()
    setup = dict(DEFAULT_SETUP)
    for key, section in (("platform", catalog.platforms), ("drive", catalog.drives), ("engine", catalog.engines)):
        if setup[key] not in section:
            setup[key] = sorted(section)[0]
    return setup


def drive_label(catalog: Catalog, name: str) -> str:
    return drive_name(catalog.drives[name])


def setup_names(catalog: Catalog, names: dict[str, str]) -> dict[str, str]:
    """Product names (``nvsim.names``) of a set-up's "drive", "engine" and "platform" catalog names."""
    sections = {"drive": "drives", "engine": "engines", "platform": "platforms"}
    return {key: product_name(catalog, sections[key], value) for key, value in names.items()}


def record_names(record: dict[str, Any], catalog: Catalog | None = None) -> dict[str, str]:
    """Product names of a results record's drive, engine and server."""
    data = record.get("scenario") or {}
    array = data.get("array") or {}
    return setup_names(catalog or default_catalog(), {"drive": str(array.get("drive")), "engine": str(array.get("engine")),
                                                      "platform": str(data.get("platform"))})


def missing_prices(record: dict[str, Any], workload: dict[str, Any], catalog: Catalog | None = None) -> str:
    """The parts the catalog has no price for (``nvsim.cost``'s ``price_missing``), by product name."""
    data = record.get("scenario") or {}
    array = data.get("array") or {}
    names = record_names(record, catalog)
    named = {array.get("drive"): names["drive"], array.get("engine"): names["engine"], data.get("platform"): names["platform"]}
    parts = str((workload.get("cost_power") or {}).get("price_missing") or "").split(",")
    return ", ".join(named.get(p.strip(), p.strip()) for p in parts if p.strip())


def control_for(error: InputError) -> str:
    """The control whose message slot shows ``error`` (from the field it names)."""
    field, message = error.field or "", error.message
    lead = re.match(r"^([a-z_]+): ", message)
    if field in ("", "array") and lead:  # model-level checks name their field at the start of the message
        field = f"array.{lead.group(1)}" if field == "array" else lead.group(1)
    if field.startswith("workloads"):
        for key in ("numjobs", "iodepth"):
            if field.endswith(f".{key}"):
                return key
        return "workload"
    table = {"array.drives": "drives", "array.near_copies": "drives", "drives": "drives",
             "array.namespace_bytes": "namespace", "namespace_bytes": "namespace",
             "array.strip_bytes": "strip", "strip_bytes": "strip", "array.engine": "engine", "engine": "engine",
             "array.level": "level", "array.layout": "level", "layout": "level", "array.scrub": "level", "scrub": "level",
             "array.drive": "drive",
             "platform": "platform", "numjobs": "numjobs", "iodepth": "iodepth"}
    for prefix, control in table.items():
        if field == prefix or field.startswith(prefix + "."):
            return control
    return "drives" if field.startswith("placement") else "workload" if field.startswith("oltp") else "general"


def _whole(value: Any, field: str, label: str) -> int | None:
    """A whole number from a number box (None when empty); a fraction or text is an InputError."""
    if value in (None, ""):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(field, f"{label} must be a whole number, got {value!r}") from None
    if not number.is_integer():
        raise InputError(field, f"{label} must be a whole number, got {value!r}")
    return int(number)


def preset_workload(key: str, numjobs: Any = None, iodepth: Any = None) -> dict[str, Any]:
    """The preset's workload dict, with the jobs and queue depth of the controls (blank: preset's)."""
    if key not in PRESETS:
        raise InputError("workloads", f"unknown preset {key!r}; allowed: {', '.join(PRESETS)}")
    preset = PRESETS[key]
    workload = {"name": key, **preset["workload"]}
    if preset.get("jobs", True):
        jobs = _whole(numjobs, "workloads[0].numjobs", "jobs")
        depth = _whole(iodepth, "workloads[0].iodepth", "queue depth")
        workload["numjobs"] = DEFAULT_NUMJOBS if jobs is None else jobs
        if depth is not None:
            workload["iodepth"] = depth
    return workload


def namespace_bytes_for(setup: dict[str, Any], catalog: Catalog) -> int | str | None:
    """The member namespace the controls ask for: None (full drive), a size as typed, or from OP %."""
    mode = setup.get("namespace_mode") or "full"
    value = setup.get("namespace_value")
    text = "" if value is None else str(value).strip()
    if mode == "full":
        return None
    if mode == "size":
        if not text:
            raise InputError("array.namespace_bytes", "enter a namespace size per drive, e.g. 3.2 TB")
        return text
    if mode == "op":
        try:
            op_percent = float(text) if text else 0.0
        except ValueError:
            raise InputError("array.namespace_bytes", f"over-provisioning must be a percentage, got {text!r}") from None
        if not 0.0 <= op_percent < 100.0:
            raise InputError("array.namespace_bytes", f"over-provisioning must be 0 to under 100 % of the drive, got {op_percent:g} %")
        drive = catalog.drives.get(setup.get("drive") or "")
        if drive is None or op_percent == 0.0:
            return None
        return int(drive.capacity_bytes.value * (1.0 - op_percent / 100.0)) // PAGE_BYTES * PAGE_BYTES
    raise InputError("array.namespace_bytes", f"unknown namespace mode {mode!r}; allowed: full, size, op")


def scenario_dict(setup: dict[str, Any], custom: dict | None = None, extras: dict | None = None,
                  catalog: Catalog | None = None) -> dict[str, Any]:
    """The scenario the controls describe, as the YAML `nvsim run` reads (not yet validated).

    custom: workloads from an uploaded fio job file or scenario ({"label", "workloads": [dict]}),
    used when the workload selector is FILE_WORKLOADS. extras: what an imported scenario had that
    has no control (layout, near_copies, scrub, placement, seed; its engine's settings and rebuild
    throttle, while that engine is chosen); placement.drive_sockets is dropped once the drive count
    no longer matches it.
    """
    catalog = catalog or default_catalog()
    extras = extras or {}
    drives = _whole(setup.get("drives"), "array.drives", "drives")
    if drives is None:
        raise InputError("array.drives", "enter the number of drives")
    if not 1 <= drives <= MAX_DRIVES:
        raise InputError("array.drives", f"the dashboard simulates 1 to {MAX_DRIVES} drives, got {drives}")
    level = _whole(setup.get("level"), "array.level", "RAID level")
    strip = _whole(setup.get("strip_bytes"), "array.strip_bytes", "strip")
    array: dict[str, Any] = {"level": level, "drive": setup.get("drive"), "drives": drives,
                             "strip_bytes": strip if strip is not None else 512 * 1024, "engine": setup.get("engine")}
    for key in ("layout", "near_copies", "scrub"):
        if extras.get(key) is not None and (key != "near_copies" or level == 10):  # RAID10's copies, at RAID10
            array[key] = extras[key]
    settings = extras.get("engine_settings")
    if settings and settings.get("engine") == array["engine"]:  # an imported engine's settings, while it is chosen
        array["engine_settings"] = dict(settings["values"])
    rebuild = extras.get("rebuild")
    if rebuild and rebuild.get("engine") == array["engine"] and level != 0:  # md's speed limits or a card's
        array["rebuild"] = dict(rebuild["values"])  # priority, likewise; RAID0 rebuilds nothing (refused there)
    namespace = namespace_bytes_for(setup, catalog)
    if namespace is not None:
        array["namespace_bytes"] = namespace
    if setup.get("workload") == FILE_WORKLOADS:
        workloads = [dict(w) for w in (custom or {}).get("workloads") or []]
        if not workloads:
            raise InputError("workloads", "no uploaded workloads: upload a fio job file or a scenario, or pick a preset")
    else:
        workloads = [preset_workload(setup.get("workload") or "randread-4k", setup.get("numjobs"), setup.get("iodepth"))]
    engine = str(setup.get("engine"))
    drive = str(setup.get("drive"))
    named = setup_names(catalog, {"drive": drive, "engine": engine, "platform": str(setup.get("platform"))})
    out: dict[str, Any] = {
        "name": _own_words(f"dashboard-{drives}x-{drive}-raid{level}-{array['strip_bytes'] // 1024}k-{engine}",
                           "dashboard-set-up"),
        "description": _own_words(f"{drives}x {named['drive']}, RAID{level}, {named['engine']}, on {named['platform']} "
                                  f"(nvsim dashboard)", "a set-up of the nvsim dashboard"),
        "platform": setup.get("platform"),
        "array": array,
    }
    placement = dict(extras.get("placement") or {})
    if placement.get("drive_sockets") is not None and len(placement["drive_sockets"]) != drives:
        placement.pop("drive_sockets")
    if placement:
        out["placement"] = placement
    out["workloads"] = workloads
    out["seed"] = extras.get("seed", 1)
    return out


SET_UP_NAME_CHARS = 200
"""Longest name a scenario takes (``nvsim.specs.base.Label``)."""


def _own_words(text: str, instead: str) -> str:
    """The set-up's name or description, which the dashboard writes from the controls' values:
    ``instead`` where a value the client sent would make it too long or not printable, so that the
    value's own control is named by the check that refuses it (a level of 1e308 was refused as
    "name: String should have at most 200 characters")."""
    return instead if len(text) > SET_UP_NAME_CHARS or not_printable(text) is not None else text


def _canonical(value: Any) -> Any:
    """The value as it comes back from the browser: a whole float is a JavaScript integer."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def scenario_key(data: dict[str, Any]) -> str:
    """A short fingerprint of a scenario dict: results belong to the set-up with the same key (the
    same before and after a trip through the browser's JSON)."""
    return hashlib.sha256(json.dumps(_canonical(data), sort_keys=True, default=str).encode()).hexdigest()[:16]


def validate(setup: dict[str, Any], custom: dict | None = None, extras: dict | None = None,
             catalog: Catalog | None = None) -> tuple[dict | None, ScenarioSpec | None, dict[str, str]]:
    """(scenario dict, validated spec, {} ) or (dict or None, None, {control: one-line message})."""
    catalog = catalog or default_catalog()
    try:
        data = scenario_dict(setup, custom, extras, catalog)
    except InputError as exc:
        return None, None, {control_for(exc): str(exc)}
    try:
        spec = parse_scenario(data, catalog)
        check_scenario_regions(spec, lambda: Simulation(spec, catalog=catalog).device_extent)  # an offset or size off the array
        _check_planned(spec.workloads)  # the planner's work for its sample, as `nvsim run` bounds it
    except InputError as exc:
        return data, None, {control_for(exc): str(exc)}
    return data, spec, {}


# ---------------------------------------------------------------- results


def _clean(value: Any) -> Any:
    """JSON-safe: NaN -> None, numpy scalars -> float."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return None if math.isnan(number) else number


def workload_record(spec: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog, fidelity: str = "fluid",
                    host_ios: int = EVENT_HOST_IOS, result: Any = None) -> dict[str, Any]:
    """One workload's predicted numbers (``nvsim.Simulation``: the array simulator, the OLTP
    network, or the SSD model for a single drive; ``result``: its run, where one was made) and its
    drives' wear."""
    array = spec.array
    if result is None:
        result = Simulation(spec, workload, catalog=catalog).run(fidelity, host_ios=host_ios)
    record = {"read_iops": result.read_iops, "write_iops": result.write_iops,
              "read_bytes_per_s": result.read_bytes_per_s, "write_bytes_per_s": result.write_bytes_per_s,
              "cpu_percent": result.cpu_percent, "read_latency_us": dict(result.read_latency_us),
              "write_latency_us": dict(result.write_latency_us), "raid_waf": result.raid_waf,
              "waf_nand": result.waf_nand, "utilisation": {u.resource: u.utilisation for u in result.utilisation},
              "bottleneck": result.bottleneck, "fidelity": result.fidelity,
              "transactions_per_s": result.transactions_per_s}
    if result.simulation is not None:
        record["simulated_host_ios"] = result.simulation.simulated_host_ios
        if result.simulation.transaction_latency_us:  # an OLTP database: each transaction's latency
            record["transaction_latency_us"] = dict(result.simulation.transaction_latency_us)
    record = _clean(record)
    record["name"] = workload.name
    record["rw"] = workload.rw
    record["bs_bytes"] = workload.bs
    record["trim_iops"] = result.trim_iops  # fio counts trims as I/Os, as nvsim run's total_iops does
    record["total_iops"] = (record["read_iops"] or 0.0) + (record["write_iops"] or 0.0) + (result.trim_iops or 0.0)
    record["total_bytes_per_s"] = (record["read_bytes_per_s"] or 0.0) + (record["write_bytes_per_s"] or 0.0)
    record["wear"] = _clean(drive_wear(catalog, array.drive, array.drives, record["write_bytes_per_s"] or 0.0,
                                       record["raid_waf"], record["waf_nand"]))
    record["cost_power"] = _clean(cost_power(catalog, spec, capacity(spec, catalog).usable_bytes, result.metrics(),
                                             result.utilisation))  # docs/cost-power.md
    return record


def failure_line(exc: BaseException) -> str:
    """What a page is told of a failure: an InputError's own line (the client's set-up refused),
    else only the exception's type -- its text may name the server's files; the caller logs it whole."""
    if isinstance(exc, InputError):
        return f"{type(exc).__name__}: {exc}"
    return f"internal error (see the server log): {type(exc).__name__}"


def rebuild_info(spec: ScenarioSpec, catalog: Catalog, under_load: bool = False) -> dict[str, Any]:
    """Rebuild time and data-loss risk (``nvsim.rebuild_summary``), or {"na": reason} where the
    set-up has no rebuild (no redundancy) or cannot be rebuilt (an input error).

    The fast answer is for an idle array (milliseconds); under_load (the scenario's first workload)
    takes seconds and runs with the event-mode simulation.
    """
    trial = spec if under_load else spec.model_copy(update={"workloads": ()})
    try:
        summary = rebuild_summary(trial, catalog)
    except InputError as exc:
        return {"na": str(exc)}
    out = _clean({k: v for k, v in dict(summary).items() if isinstance(v, (int, float, str, type(None)))})
    out["under_load"] = bool(under_load and spec.workloads)
    if out.get("rebuild_hours") is None:
        out["na"] = str(out.get("note") or "no rebuild for this set-up")
    return out


def scrub_info(spec: ScenarioSpec, catalog: Catalog) -> dict[str, Any]:
    """The parity scrub of a set-up that asks for one (``array.scrub``; ``nvsim.rebuild.scrub_summary``,
    fluid mode): its time idle and under the first workload, what limits it, the host's share of
    its optimal rate meanwhile, what it reads and where its parity runs; {"na": reason} where it
    cannot be computed."""
    try:
        summary = scrub_summary(spec, catalog)
    except InputError as exc:
        return {"na": str(exc)}
    protocol = summary["protocol"]
    out = _clean({k: v for k, v in summary.items() if isinstance(v, (int, float, str, type(None)))})
    out.update(reads=protocol["reads"], parity_on=protocol["parity_on"], writes_member=protocol["writes_member"],
               pacing_loaded=protocol["pacing_loaded"])
    return out


@lru_cache(maxsize=64)
def _idle_rebuild_cached(key: str, spec_json: str) -> str:
    spec = ScenarioSpec.model_validate_json(spec_json, context={"catalog": default_catalog()})
    return json.dumps(rebuild_info(spec, default_catalog(), under_load=False))


WORKLOADS_BUDGET_S = 10.0
"""Seconds of solving a control change may spend on the set-up's workloads: past it the workloads
not yet answered are refused (a 256-job fio upload of 8-size mixes on their own zipf skews held a
request thread 33-147 s on every control change, and the server has 8)."""


def _workload_records(spec: ScenarioSpec, catalog: Catalog, fidelity: str, host_ios: int,
                      precision: Precision | None = None, budget_s: float | None = None) -> list[dict[str, Any]]:
    """Every workload's record, in the scenario's order: the workloads of one phase from one solve
    of the phase (``nvsim.simulation.workload_runs``), as ``nvsim run`` does (once per workload, 256
    flow-weighted workloads held the request thread for minutes); a run refused is each of its
    workloads' error. ``budget_s``: once the solves have taken that long, the workloads left are
    refused (each with the same line) instead of solved."""
    out: dict[int, dict[str, Any]] = {}
    start = time.perf_counter()
    runs = workload_runs(spec)
    for done, run in enumerate(runs):
        if budget_s is not None and time.perf_counter() - start > budget_s:
            left = sum(len(r) for r in runs[done:])
            why = (f"not solved: the dashboard stops after {budget_s:g} s of solving a set-up's workloads "
                   f"({len(spec.workloads) - left} of {len(spec.workloads)} answered); `nvsim fio` or `nvsim run` "
                   f"answer them all")
            out.update({i: {"name": spec.workloads[i].name, "error": f"workloads: {why}"} for r in runs[done:] for i in r})
            break
        try:
            results = run_workload_group(spec, catalog, fidelity, run, precision, host_ios=host_ios)
            for i, result in zip(run, results):
                out[i] = workload_record(spec, spec.workloads[i], catalog, fidelity, host_ios, result)
        except InputError as exc:
            out.update({i: {"name": spec.workloads[i].name, "error": str(exc)} for i in run if i not in out})
    return [out[i] for i in range(len(spec.workloads))]


def evaluate(data: dict[str, Any], spec: ScenarioSpec, catalog: Catalog | None = None, fidelity: str = "fluid",
             host_ios: int = EVENT_HOST_IOS, rebuild: bool = True, precision: Precision | None = None,
             budget_s: float | None = None) -> dict[str, Any]:
    """The whole results record of a validated set-up: capacity, bounds, every workload, rebuild;
    an event-mode run measures ``host_ios`` host I/Os, then goes on as ``precision`` asks (None: no longer);
    ``budget_s``: the workloads' solving time a control change allows (``WORKLOADS_BUDGET_S``)."""
    catalog = catalog or default_catalog()
    report = array_bounds(spec, catalog)
    cap = report.capacity
    record: dict[str, Any] = {
        "key": scenario_key(data), "scenario": data, "fidelity": fidelity,
        "capacity": {"usable_bytes": cap.usable_bytes, "raw_bytes": cap.raw_bytes, "member_bytes": cap.member_bytes,
                     "efficiency": cap.efficiency},
        "bounds": [{"metric": b.metric, "unit": b.unit, "value": b.value, "limited_by": b.limited_by,
                    "limits": [{"component": lim.component, "value": lim.value} for lim in b.limits]}
                   for b in report.bounds],
        "workloads": [],
    }
    record["workloads"] = _workload_records(spec, catalog, fidelity, host_ios, precision, budget_s)
    if rebuild:
        if catalog is default_catalog():
            record["rebuild"] = json.loads(_idle_rebuild_cached(record["key"], spec.model_dump_json()))
        else:
            record["rebuild"] = rebuild_info(spec, catalog)
    if spec.array.scrub:
        record["scrub"] = scrub_info(spec, catalog)
    return _clean(record) | {"scenario": data}


def check_work(scenario: dict) -> None:
    """Refuse (one line) a scenario's workload whose sample the planner could not plan within the
    default work budget (``nvsim.budget.check_workload``, served: the server's environment neither
    read nor named), checked on each workload's own fields before anything is built."""
    workloads = scenario.get("workloads")
    specs = []
    for index, raw in enumerate(workloads if isinstance(workloads, list) else []):
        try:
            specs.append(WorkloadSpec.model_validate(raw))
        except ValidationError:
            raise InputError(f"workloads[{index}]", "not a workload the dashboard made") from None
    _check_planned(specs)


def _check_planned(workloads) -> None:
    """Each of ``workloads`` (in the scenario's order) within the planner's default work budget for
    its sample (``nvsim.budget.check_workload``, served: the server's environment neither read nor
    named)."""
    for index, workload in enumerate(workloads):
        check_workload(workload, "fluid", field=f"workloads[{index}]", served=True)


def outstanding_ios(workload: WorkloadSpec) -> int:
    """I/Os the workload keeps in flight: OLTP users, else fio's numjobs x iodepth."""
    return workload.users if workload.is_oltp and workload.users else workload.numjobs * workload.iodepth


def check_event_budget(spec: ScenarioSpec) -> int:
    """Refuse an event-mode job over the work and memory budget before any work starts: one
    InputError naming the workload, its estimate and the limit. Returns the estimated bytes."""
    worst = 0
    for index, workload in enumerate(spec.workloads):
        in_flight = outstanding_ios(workload)
        if in_flight > EVENT_MAX_OUTSTANDING_IOS:
            estimate = EVENT_BASE_BYTES + in_flight * EVENT_BYTES_PER_OUTSTANDING_IO
            raise InputError(f"workloads[{index}].iodepth",
                             f"{workload.name} keeps {in_flight:,} I/Os in flight (about {estimate / 1e9:,.1f} GB in "
                             f"event mode); the dashboard simulates at most {EVENT_MAX_OUTSTANDING_IOS:,}: lower jobs or queue depth")
        check_workload(workload, "event", field=f"workloads[{index}]", host_ios=EVENT_HOST_IOS,
                       instead="choose the fluid mode", served=True)  # the event mode's planned pages
        worst = max(worst, in_flight)
    return EVENT_BASE_BYTES + worst * EVENT_BYTES_PER_OUTSTANDING_IO


def compute(setup: dict[str, Any], custom: dict | None = None, extras: dict | None = None,
            catalog: Catalog | None = None) -> dict[str, Any]:
    """What a control change computes (fluid mode): {"errors": {...}} or the results record."""
    catalog = catalog or default_catalog()
    data, spec, errors = validate(setup, custom, extras, catalog)
    if errors:
        return {"errors": errors, "scenario": data}
    try:
        record = evaluate(data, spec, catalog, "fluid", budget_s=WORKLOADS_BUDGET_S)
    except ValueError as exc:  # a model's own limit (e.g. the planner's member count): say it, no traceback
        log.warning("set-up refused by the model: %s", exc)
        return {"errors": {"general": f"cannot simulate this set-up: {exc}"}, "scenario": data}
    bad = [w for w in record["workloads"] if "error" in w]
    record["errors"] = {"workload": bad[0]["error"]} if bad else {}
    return record


def shown(current: dict | None, event: dict | None) -> dict | None:
    """The record on screen: the event-mode one when it belongs to the current set-up, else fluid."""
    if not current or current.get("errors") or "workloads" not in current:
        return None
    if event and event.get("key") == current.get("key"):
        record = dict(current, fidelity="event", workloads=event["workloads"])
        rebuild = event.get("rebuild")
        if rebuild and not (rebuild.get("na") and rebuild.get("rebuild_hours") is None and "cancelled" in rebuild["na"]):
            record["rebuild"] = rebuild
        return record
    return current


# ---------------------------------------------------------------- formatting


def _three_in(value: float, scales: tuple[tuple[float, str], ...]) -> str:
    """``value`` to three significant digits in the largest of ``scales`` (factor, suffix; the last
    factor 1) it reaches; one that rounds up to 1,000 of it takes the next (999,700 IOPS was
    "1,000 K", 999.7 us "1,000 µs"), as the plan's cells and nvsim's formatters do."""
    index = next(i for i, (factor, _) in enumerate(scales) if abs(value) >= factor or factor == 1)
    text = format_significant(value / scales[index][0], 3)
    rounded = float(text.replace(",", ""))
    if index and abs(rounded) >= 1000:  # the rounded value in the next prefix: 1,000 K is 1.00 M
        text = format_significant(rounded * scales[index][0] / scales[index - 1][0], 3)
        index -= 1
    return f"{text}{scales[index][1]}"


def fmt_count(value: float | None) -> str:
    """A count to three significant digits with its prefix ("1.00 M" beside "1.01 M", never "1e+03 G")."""
    return "n/a" if value is None else _three_in(value, ((1e9, " G"), (1e6, " M"), (1e3, " K"), (1.0, "")))


def fmt_gb_per_s(bytes_per_s: float | None) -> str:
    """A rate in the decimal prefix its size takes (6.46 MB/s, not 0.00646 GB/s), three significant digits."""
    if bytes_per_s is None:
        return "n/a"
    return _three_in(bytes_per_s, ((1e9, " GB/s"), (1e6, " MB/s"), (1e3, " kB/s"), (1.0, " B/s")))


def fmt_us(value: float | None) -> str:
    """A time given in microseconds, in s, ms or µs by its size (never e-notation: 1.75e+03 ms was written)."""
    return "n/a" if value is None else _three_in(value, ((1e6, " s"), (1e3, " ms"), (1.0, " µs")))


def fmt_bytes(value: float | None) -> str:
    return "n/a" if value is None else format_bytes_decimal(value)


def fmt_years(value: float | None) -> str:
    """A drive's life in years to three significant digits, as `nvsim run` and the report write it
    (1.013 years read "1 years", 0.0000123 "1.2e-05 years"); from 100 on in whole years."""
    if value is None:
        return "no writes"
    return f"{value:,.0f} years" if value >= 100 else f"{format_significant(value, 3)} years"


def fmt_probability(value: float | None) -> str:
    """A probability as people read it (nvsim's own: "2.5%", "1 in 190 billion"), never e-notation."""
    return "n/a" if value is None else format_probability(value)


def fmt_large(value: float | None) -> str:
    """A large number in words ("1.18 trillion"), never e-notation."""
    return "n/a" if value is None else format_large(value)


def host_cores_percent(workload: dict[str, Any]) -> float | None:
    """Busy share of the host cores resource (%), the figure the "limited by" line gives (``cpu_percent``
    is the share of all hardware threads, as top shows it: with SMT about half of this at saturation)."""
    util = workload.get("utilisation") or {}
    busy = [v for k, v in util.items() if k.startswith("host cores")]
    return 100 * busy[0] if busy else None


def latency_us(workload: dict[str, Any], key: str) -> float | None:
    """A latency statistic of the workload: the mean over its I/Os (each direction's weighted by its
    I/Os: it was the worse direction's, 1.85 ms for a 70/30 mix whose I/Os took 1.21 ms on average);
    a percentile the worse direction's (two directions' percentiles do not add up to one)."""
    reads, writes = workload.get("read_latency_us") or {}, workload.get("write_latency_us") or {}
    if key == "mean" and reads.get(key) is not None and writes.get(key) is not None:
        r, w = workload.get("read_iops") or 0.0, workload.get("write_iops") or 0.0
        if r + w > 0:
            return (r * reads[key] + w * writes[key]) / (r + w)
    values = [v for v in (reads.get(key), writes.get(key)) if v is not None]
    return max(values) if values else None


# ---------------------------------------------------------------- export


def scenario_yaml(data: dict[str, Any]) -> str:
    """The set-up as a scenario YAML file that `nvsim run` reads unchanged."""
    header = "# Written by the nvsim dashboard: `nvsim run THIS_FILE` predicts it.\n"
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


RESULT_COLUMNS = (
    "setup", "scenario", "platform", "drive", "drives", "namespace_bytes", "level", "strip_bytes", "engine",
    "workload", "fidelity", "total_iops", "read_iops", "write_iops", "read_bytes_per_s", "write_bytes_per_s",
    "latency_mean_us", "latency_p50_us", "latency_p99_us", "latency_p99_9_us", "cpu_percent", "host_cores_busy_percent",
    "usable_bytes", "raid_waf", "waf_nand", "member_dwpd", "effective_dwpd", "lifetime_years",
    "rebuild_hours", "data_loss_probability", "mttdl_years", "price_usd", "power_w", "usd_per_usable_tb", "bottleneck",
)


def result_rows(record: dict[str, Any], label: str = "", first_only: bool = False) -> list[dict[str, Any]]:
    """Flat rows (one per workload) with units in the column names, for CSV and tables."""
    data = record.get("scenario") or {}
    array = data.get("array") or {}
    rebuild = record.get("rebuild") or {}
    rows = []
    for workload in record.get("workloads") or []:
        if "error" in workload:
            continue
        wear_, cost = workload.get("wear") or {}, workload.get("cost_power") or {}
        rows.append({
            "setup": label, "scenario": data.get("name"), "platform": data.get("platform"), "drive": array.get("drive"),
            "drives": array.get("drives"), "namespace_bytes": (record.get("capacity") or {}).get("member_bytes"),
            "level": array.get("level"), "strip_bytes": array.get("strip_bytes"), "engine": array.get("engine"),
            "workload": workload["name"], "fidelity": workload.get("fidelity"),
            "total_iops": workload.get("total_iops"), "read_iops": workload.get("read_iops"),
            "write_iops": workload.get("write_iops"), "read_bytes_per_s": workload.get("read_bytes_per_s"),
            "write_bytes_per_s": workload.get("write_bytes_per_s"),
            "latency_mean_us": latency_us(workload, "mean"), "latency_p50_us": latency_us(workload, "p50"),
            "latency_p99_us": latency_us(workload, "p99"), "latency_p99_9_us": latency_us(workload, "p99.9"),
            "cpu_percent": workload.get("cpu_percent"), "host_cores_busy_percent": host_cores_percent(workload),
            "usable_bytes": (record.get("capacity") or {}).get("usable_bytes"),
            "raid_waf": workload.get("raid_waf"), "waf_nand": workload.get("waf_nand"),
            "member_dwpd": wear_.get("member_dwpd"), "effective_dwpd": wear_.get("effective_dwpd"),
            "lifetime_years": wear_.get("lifetime_years"), "rebuild_hours": rebuild.get("rebuild_hours"),
            "data_loss_probability": rebuild.get("data_loss_probability"), "mttdl_years": rebuild.get("mttdl_years"),
            "price_usd": cost.get("price_usd"), "power_w": cost.get("power_w"), "usd_per_usable_tb": cost.get("usd_per_usable_tb"),
            "bottleneck": workload.get("bottleneck"),
        })
        if first_only:
            break
    return rows


def rows_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=RESULT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in RESULT_COLUMNS})
    return out.getvalue()


# ---------------------------------------------------------------- import


def decode_upload(contents: str | None, filename: str | None) -> str:
    """The text of a dcc.Upload (base64 data URL), at most UPLOAD_LIMIT_BYTES, UTF-8."""
    name = filename or "upload"
    if not contents or "," not in contents:
        raise InputError("", "empty upload", source=name)
    try:
        raw = base64.b64decode(contents.split(",", 1)[1], validate=True)
    except (binascii.Error, ValueError):
        raise InputError("", "the upload is not base64 data", source=name) from None
    if len(raw) > UPLOAD_LIMIT_BYTES:
        raise InputError("", f"file is {len(raw):,} bytes; the limit is {UPLOAD_LIMIT_BYTES:,} bytes", source=name)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("", f"not UTF-8 text (byte {exc.start})", source=name) from None


def _workload_data(workload: WorkloadSpec) -> dict[str, Any]:
    return workload.model_dump(mode="json", exclude_defaults=True) | {"name": workload.name, "rw": workload.rw}


def load_yaml(text: str, filename: str) -> Any:
    """An uploaded YAML document as data, through the CLI's own boundary (``nvsim.loader``:
    libyaml, no duplicate keys, bounded size, depth and values, one-line errors), its bounds the
    defaults whatever the server's environment says (``nvsim.errors.client_input``)."""
    with client_input():
        return parse_yaml(text, filename)


SCENARIO_FIELDS_HELD = ("name", "description", "source", "platform", "array", "placement", "workloads", "seed")
"""The scenario fields an upload carries into the controls, ``custom`` and ``extras`` (a name,
description and source are the file's words; the dashboard names its set-up itself)."""
ARRAY_FIELDS_HELD = ("level", "drive", "drives", "strip_bytes", "layout", "near_copies", "namespace_bytes", "engine",
                     "engine_settings", "rebuild", "scrub")
"""The ``array`` fields an upload carries (``scenario_dict`` writes them back)."""
NOT_HELD_ADVICE = {
    "faults": "the dashboard simulates the array as built, without a failure or replacement",
    "volumes": "the dashboard simulates one array, with no volume beside it",
    "topology": "the dashboard hangs the drives in the platform's own bays, with no switch, retimer or slot",
    "array.hot_spares": "the dashboard's set-up has no hot spares (a rebuild starts on a new drive)",
    "array.unclean_shutdown": "the dashboard reports no resync after a power loss",
}
"""Why a field the dashboard cannot hold is refused; any other such field gets a general line."""


def _is_empty(value: Any, default: Any) -> bool:
    """A field at its default, or an empty section (``topology: {}``: every field at its default)."""
    if value == default:
        return True
    try:
        return isinstance(value, BaseModel) and value == type(value)()
    except ValidationError:  # a section with a required field is never empty
        return False


def _set_fields(model: BaseModel, held: tuple[str, ...], prefix: str = "") -> list[str]:
    """The fields of ``model`` outside ``held`` that are set to other than their default, in order."""
    return [prefix + name for name, field in type(model).model_fields.items()
            if name not in held and not _is_empty(getattr(model, name), field.get_default(call_default_factory=True))]


def check_held(spec: ScenarioSpec, filename: str) -> None:
    """Refuse a scenario with a field the dashboard cannot hold (faults, hot spares, a topology,
    volumes, ...): dropped without a word, the dashboard would predict a healthy array where
    `nvsim run` of the same file predicts a degraded one. One line: the first such field, and what to
    use instead."""
    unheld = _set_fields(spec.array, ARRAY_FIELDS_HELD, "array.") + _set_fields(spec, SCENARIO_FIELDS_HELD)
    if unheld:
        field = unheld[0]
        why = NOT_HELD_ADVICE.get(field, "the dashboard has no place for it")
        raise InputError(field, f"{why}; run this file with nvsim run, or remove {field} to load the rest here",
                         source=filename)


def import_scenario(text: str, filename: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """A scenario YAML (data only: yaml.safe_load) -> {"setup", "custom", "extras"}; a scenario with
    a field the dashboard cannot hold is refused (``check_held``), not loaded without it."""
    catalog = catalog or default_catalog()
    data = load_yaml(text, filename)
    spec = parse_scenario(data, catalog, source=filename)
    check_held(spec, filename)
    array = spec.array
    setup = {"platform": spec.platform, "drive": array.drive, "drives": array.drives,
             "namespace_mode": "size" if array.namespace_bytes else "full",
             "namespace_value": exact_size_text(array.namespace_bytes) if array.namespace_bytes else "",
             "level": array.level, "strip_bytes": array.strip_bytes, "engine": array.engine,
             "workload": FILE_WORKLOADS if spec.workloads else None, "numjobs": None, "iodepth": None}
    extras: dict[str, Any] = {"seed": spec.seed}
    if array.layout is not None:
        extras["layout"] = array.layout
    if array.level == 10:
        extras["near_copies"] = array.near_copies
    if array.scrub:
        extras["scrub"] = True
    if array.engine_settings:
        extras["engine_settings"] = {"engine": array.engine, "values": dict(array.engine_settings)}
    rebuild = array.rebuild.model_dump(mode="json", exclude_defaults=True)
    if rebuild:
        extras["rebuild"] = {"engine": array.engine, "values": rebuild}
    placement = spec.placement.model_dump(mode="json", exclude_defaults=True)
    if placement:
        extras["placement"] = placement
    custom = {"label": f"{filename}: {len(spec.workloads)} workload(s)",
              "workloads": [_workload_data(w) for w in spec.workloads]} if spec.workloads else None
    return {"setup": setup, "custom": custom, "extras": extras}


exact_size_text = size_text
"""The shortest decimal size text ("6.4 TB") that reads back as exactly ``n_bytes`` (``nvsim.names``)."""


def import_fio(text: str, filename: str, scenario: dict[str, Any] | None, catalog: Catalog | None = None,
               open_file: FileOpener | None = None) -> dict[str, Any]:
    """A fio job file -> {"label", "workloads", "warning"}; N% sizes resolved against the current array.

    The file is the client's: ``${VAR}`` is not taken from the server's environment, ``$ncpus``-style
    keywords are the current set-up's platform's, and a trace it names (read_iolog) is reached only
    through ``open_file`` (``ClientFiles``: uploaded files and the shipped examples). Its bounds (job
    sections, trace records, a trace's bytes) are the defaults, the server's environment neither read
    nor named (``nvsim.errors.client_input``)."""
    with client_input():
        return _import_fio(text, filename, scenario, catalog, open_file)


def _import_fio(text: str, filename: str, scenario: dict[str, Any] | None, catalog: Catalog | None,
                open_file: FileOpener | None) -> dict[str, Any]:
    catalog = catalog or default_catalog()
    name = scenario.get("platform") if isinstance(scenario, dict) else None
    platform = catalog.platforms.get(name) if isinstance(name, str) else None
    keywords = platform_keywords(platform) if platform is not None else None
    parsed = parse_fio_jobfile(text, filename, catalog=catalog, keywords=keywords, environ=NO_ENVIRONMENT,
                               open_file=open_file or ClientFiles(),
                               max_jobs=(MAX_WORKLOADS, "a set-up"))  # a scenario's bound, before any job is read
    warnings = [line for line in (parsed.unmodelled_warning(), parsed.buffered_note()) if line]
    warnings += _fio_log_note(parsed, filename)
    together = {job.phase for phase in parsed.phases() if len(phase) > 1 for job in phase}
    device_bytes = None
    workloads = []
    for job in parsed.jobs:  # the whole job (mix, pacing, trims), as `nvsim fio` runs it
        workload = job.workload
        if job.needs_device_bytes:
            if device_bytes is None:
                device_bytes = _device_bytes(scenario, workload, catalog, filename)
            workload = job.resolved(device_bytes)
        if job.phase in together:  # jobs fio runs at the same time share the array (nvsim.workload.compose.phase)
            workload = workload.model_copy(update={"phase": f"fio phase {job.phase + 1}"})
        workloads.append(_workload_data(workload))
    if scenario and any(j.workload.offset or j.workload.size or j.needs_device_bytes for j in parsed.jobs):
        check_regions(parsed, parse_scenario(dict(scenario, workloads=[]), catalog), catalog, filename)  # as `nvsim fio`
    return {"label": f"{filename}: {len(workloads)} fio job(s)", "workloads": workloads, "warning": "; ".join(warnings)}


FIO_REPORT_OPTIONS = ("percentile_list", "clat_percentiles", "lat_percentiles")
"""fio's options that shape only `nvsim fio`'s JSON report (``nvsim.fio.run.report_options``): the
dashboard's cards and tables show their own percentiles, which these do not change
(group_reporting is not among them: the dashboard reports each job as one row, as it does)."""


def _fio_log_note(parsed: Any, filename: str) -> list[str]:
    """The warnings for fio's log options (write_bw_log, log_avg_msec, ...) and report options
    (percentile_list, ...): `nvsim fio` writes the log files and shapes its JSON
    with them, the dashboard runs no fio job and writes neither, so they are accepted with a note."""
    from nvsim.fio.logs import LOG_FILE_OPTIONS

    def used(options: tuple[str, ...]) -> list[str]:
        return [option for option in options if any(option in job.options for job in parsed.jobs)]

    notes = []
    if logs := used(LOG_FILE_OPTIONS):
        notes.append(f"{filename}: fio log options write nothing on the dashboard (nvsim fio writes the log files): "
                     f"{', '.join(logs)}")
    if report := used(FIO_REPORT_OPTIONS):
        notes.append(f"{filename}: fio report options change nothing on the dashboard (they shape nvsim fio's JSON): "
                     f"{', '.join(report)}")
    return notes


def _device_bytes(scenario: dict[str, Any] | None, workload: WorkloadSpec, catalog: Catalog, filename: str) -> int:
    """The array's device size, for fio's size=N% (as `nvsim fio` resolves it)."""
    if not scenario:
        raise InputError("size", "size=N% needs a valid set-up first (fix the set-up, then upload again)", source=filename)
    spec = parse_scenario(dict(scenario, workloads=[]), catalog)
    return Simulation(spec, workload, catalog=catalog).device_bytes


def strip_label(strip_bytes: int) -> str:
    return format_bytes_binary(strip_bytes, 0)


def strip_options(extra: int | None = None) -> list[dict]:
    """The strip selector's choices: the usual strips, and ``extra`` (a loaded set-up's own) among them."""
    values = sorted(set(STRIP_CHOICES_BYTES) | ({extra} if extra else set()))
    return [{"label": strip_label(v), "value": v} for v in values]
