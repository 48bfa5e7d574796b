"""The dashboard's Plan view: a requirements form prefilled from the set-up on screen (its YAML
behind "Advanced (YAML)"), run off the request thread with progress, ranked set-ups out -- each
row one drive x count x level x engine x server (its best strip and spares), with "Open" (into the
set-up controls) and "Add to compare" -- the rejected families and the Pareto front.

``attach(app, catalog, runner)`` registers the view's callbacks; the logic (``form_plan``,
``prefill``, ``plan_from_text``, ``ranked_rows``, ``families_table``, ``pareto_figure``,
``row_setup``) is plain functions tests/ui/test_plan_view.py calls without a browser. A plan runs
in a worker process of ``jobs.PlanRunner`` (the same stages and numbers as `nvsim plan --workers
1`), at most ``jobs.MAX_PLANS`` at once; the page polls its progress. The requirements are the
client's: a ``fio:`` job file (and the trace it replays) is one of the shipped examples
(``client_files.ClientFiles``), and ``${VAR}`` in it is not taken from the server's environment.
"""

from __future__ import annotations

import math
import string
import tempfile
from pathlib import Path
from typing import Any, Callable

import dash
import plotly.graph_objects as go
import yaml
from dash import Dash, Input, Output, State, dcc, html, no_update

from nvsim import Catalog, default_catalog
from nvsim.errors import InputError, client_input
from nvsim.fio.expand import NO_ENVIRONMENT
from nvsim.names import engine_name, platform_name, product_name
from nvsim.plan import prepare_plan, run_plan
from nvsim.plan.answer import performance
from nvsim.plan.output import set_up_text, si_text, stages_text, variants_text
from nvsim.plan.spec import OBJECTIVES, PROFILES

from . import core, guard
from .client_files import ClientFiles

EXAMPLE = """\
requirements:
  usable_bytes: 100 TB
  workloads:
    - {name: oltp, profile: randrw-8k-70, numjobs: 64, iodepth: 16, min_iops: 1M, max_latency_us: {p99: 2000}}
  max_data_loss_probability: 1e-4
search:
  platforms: [supermicro-as-2125hs-tnr]
  priced_only: true
  drive_counts: [8, 12, 16, 24]
  levels: [5, 6, 10]
  strips_bytes: [64KiB]
objective: usd_per_usable_tb
top: 10
confirm: 1
event_host_ios: 4000
"""
"""A small requirements file (seconds, not minutes): what the tests and scripts run through the view."""
MAX_TEXT_CHARS = 100_000
"""Longest requirements text the view takes (the CLI's loader bounds files the same way)."""
ROWS = 10
"""Ranked set-ups the view lists, each with Open and Add to compare (the rows are on the page from
the start, hidden until a plan fills them: the guard accepts only callbacks of fixed ids)."""
POLL_MS = 500
NOTE_OK, NOTE_BUSY, NOTE_WARNING, NOTE_ERROR = "field-note ok", "field-note", "field-note warning", "field-error"
"""The status line's classes: green for an answer, neutral while it runs, amber for an answer that
ranks nothing, red for a refusal."""
PRESET_PROFILES = {"randread-4k": "randread-4k", "randwrite-4k": "randwrite-4k", "randrw-70-30-4k": "randrw-4k-70",
                   "read-1m": "read-1m", "write-1m": "write-1m"}
"""The set-up's workload preset -> the plan's profile of the same rw, bs and mix."""
PROFILE_PRESETS = {profile: preset for preset, profile in PRESET_PROFILES.items()}
"""A plan's profile -> the set-up's preset of the same rw, bs and mix (Open shows the plan's workload)."""
TARGET_SHARE = 0.8
"""The prefilled rate target: this share of what the set-up on screen delivers in fluid mode."""
SEQUENTIAL = ("read-128k", "write-128k", "read-1m", "write-1m")
"""Profiles whose target is a throughput rather than IOPS."""
LEVELS = (0, 1, 5, 6, 10)
SPARES = (0, 1, 2)
FORM = ("usable", "profile", "numjobs", "iodepth", "min-iops", "min-bw", "p99", "max-loss", "max-price", "max-power",
        "objective", "platforms", "drives", "engines", "levels", "counts", "strips", "spares", "priced", "top", "confirm")
"""The form's fields (ids ``plan-<field>``), in the order ``form_plan`` takes them."""
LIST_FIELDS = ("platforms", "drives", "engines", "levels", "strips", "spares", "priced")
"""Fields whose value is a list (multiple choice)."""
COLUMNS = ("rank", "set-up (best strip, spares, OP)", "feasible variants", "usable", "price $", "power W", "workloads",
           "least margin", "event", "")


# ---------------------------------------------------------------- the form


def two_digits_down(value: float | None) -> float | None:
    """``value`` rounded down to two significant digits (a target the set-up on screen meets)."""
    if not value or value <= 0 or not math.isfinite(value):
        return None
    scale = 10 ** (math.floor(math.log10(value)) - 1)
    return math.floor(value / scale) * scale


def _si(value: float | None, unit: str = "") -> str:
    """'84 TB', '5.3M', '12 GB/s': a prefilled target as nvsim's units read it back."""
    if value is None:
        return ""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            number = f"{value / factor:g}"
            return f"{number} {prefix}{unit}" if unit else f"{number}{prefix}"
    return f"{value:g} {unit}".strip()


def prefill(current: dict | None, catalog: Catalog) -> dict[str, Any]:
    """The form's values for the set-up on screen (``current``, the fluid record, with its
    ``setup``): its server, drive, engine and strip to search, its level and neighbouring ones,
    half to all of its drive count, its workload's profile, and as targets what it delivers
    (its usable bytes, and TARGET_SHARE of the workload's fluid rate: the event mode confirms a
    little less; both rounded down to two digits); cost first when the
    catalog prices all three, else the fewest drives."""
    setup = dict(core.default_setup(catalog), **((current or {}).get("setup") or {}))
    n = int(setup.get("drives") or 8)
    profile = PRESET_PROFILES.get(str(setup.get("workload")), "randread-4k")
    preset = core.PRESETS.get(str(setup.get("workload")), core.PRESETS["randread-4k"])
    workload = next((w for w in (current or {}).get("workloads") or [] if "error" not in w), {})
    usable = ((current or {}).get("capacity") or {}).get("usable_bytes")
    sequential = profile in SEQUENTIAL
    names = (setup["platform"], setup["drive"], setup["engine"])
    priced = all(getattr(section.get(name), "price_usd", None) is not None
                 for section, name in zip((catalog.platforms, catalog.drives, catalog.engines), names))
    return {
        "usable": _si(two_digits_down(usable) or 10e12, "B"), "profile": profile,
        "numjobs": str(setup.get("numjobs") or core.DEFAULT_NUMJOBS),
        "iodepth": str(setup.get("iodepth") or preset["workload"].get("iodepth", 32)),
        "min-iops": "" if sequential else _si(two_digits_down(TARGET_SHARE * (workload.get("total_iops") or 0)) or 1e6),
        "min-bw": _si(two_digits_down(TARGET_SHARE * (workload.get("total_bytes_per_s") or 0)) or 10e9, "B/s") if sequential else "",
        "p99": "", "max-loss": "", "max-price": "", "max-power": "",
        "objective": "usd_per_usable_tb" if priced else "drives",
        "platforms": [setup["platform"]], "drives": [setup["drive"]], "engines": [setup["engine"]],
        "levels": sorted({int(setup.get("level") or 6), 5, 6, 10}),
        "counts": ", ".join(str(c) for c in sorted({max(2, n // 2), max(2, 3 * n // 4), n})),
        "strips": [int(setup.get("strip_bytes") or 512 * 1024)], "spares": [0, 1], "priced": [],
        "top": str(ROWS), "confirm": "1",
    }


def _number(text: Any) -> Any:
    """A box's text as a number where it is one (YAML then carries 8, not '8'), else as typed."""
    text = str(text).strip()
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def form_plan(values: dict[str, Any]) -> dict[str, Any]:
    """The plan file the form describes (what the YAML box shows); fields left blank are left out,
    and a value is passed as typed, for the plan's own checks to name it when it is wrong."""
    v = {k: (x.strip() if isinstance(x, str) else x) for k, x in values.items()}
    workload: dict[str, Any] = {"name": "workload", "profile": v["profile"] or "randread-4k"}
    for key, field in (("numjobs", "numjobs"), ("iodepth", "iodepth"), ("min-iops", "min_iops"), ("min-bw", "min_bytes_per_s")):
        if v.get(key) not in (None, ""):
            workload[field] = _number(v[key])
    if v.get("p99") not in (None, ""):
        workload["max_latency_us"] = {"p99": _number(v["p99"])}
    requirements: dict[str, Any] = {"usable_bytes": v.get("usable") or "", "workloads": [workload]}
    for key, field in (("max-loss", "max_data_loss_probability"), ("max-price", "max_price_usd"), ("max-power", "max_power_w")):
        if v.get(key) not in (None, ""):
            requirements[field] = _number(v[key])
    search: dict[str, Any] = {}
    for key in ("platforms", "drives", "engines", "levels"):
        if v.get(key):
            search[key] = list(v[key])
    counts = [_number(c) for c in str(v.get("counts") or "").replace(",", " ").split()]
    if counts:
        search["drive_counts"] = counts
    if v.get("strips"):
        search["strips_bytes"] = list(v["strips"])
    if v.get("spares"):
        search["hot_spares"] = list(v["spares"])
    if v.get("priced"):
        search["priced_only"] = True
    plan = {"requirements": requirements, "search": search, "objective": v.get("objective") or "usd_per_usable_tb"}
    for key in ("top", "confirm"):
        if v.get(key) not in (None, ""):
            plan[key] = _number(v[key])
    return plan


def form_yaml(values: dict[str, Any]) -> str:
    return yaml.safe_dump(form_plan(values), sort_keys=False, default_flow_style=None, width=100)


def _box(field: str, label: str, control, hint: str | None = None) -> html.Div:
    parts = [html.Label(label, className="field-label", htmlFor=f"plan-{field}"), control]
    if hint:
        parts.append(html.Div(hint, className="field-hint"))
    return html.Div(parts, className="field plan-field")


def _text(field: str, value: str, placeholder: str = "") -> dcc.Input:
    return dcc.Input(id=f"plan-{field}", type="text", value=value, placeholder=placeholder, debounce=True, className="text-input")


def _form(catalog: Catalog, values: dict[str, Any]) -> html.Div:
    """The requirements (left) and the search (right), prefilled with ``values``."""
    platforms = [{"label": platform_name(p), "value": n} for n, p in sorted(catalog.platforms.items())]
    drives = [{"label": core.drive_label(catalog, n), "value": n} for n in sorted(catalog.drives)]
    engines = [{"label": engine_name(e), "value": n} for n, e in sorted(catalog.engines.items())]
    strips = [{"label": core.strip_label(s), "value": s} for s in core.STRIP_CHOICES_BYTES]
    requirements = html.Fieldset(className="plan-group", children=[
        html.Legend("Requirements"),
        _box("usable", "Usable capacity at least", _text("usable", values["usable"], "e.g. 100 TB")),
        _box("profile", "Workload", dcc.Dropdown(id="plan-profile", options=list(PROFILES), value=values["profile"], clearable=False)),
        html.Div(className="field-row", children=[
            _box("numjobs", "Jobs", _text("numjobs", values["numjobs"])),
            _box("iodepth", "Queue depth", _text("iodepth", values["iodepth"]))]),
        html.Div(className="field-row", children=[
            _box("min-iops", "IOPS at least", _text("min-iops", values["min-iops"], "e.g. 1M")),
            _box("min-bw", "Throughput at least", _text("min-bw", values["min-bw"], "e.g. 30 GB/s"))]),
        _box("p99", "p99 latency at most (µs)", _text("p99", values["p99"], "e.g. 2000 (event mode checks it)")),
        _box("max-loss", "P(data loss) per failure at most", _text("max-loss", values["max-loss"], "e.g. 1e-5")),
        html.Div(className="field-row", children=[
            _box("max-price", "Budget (USD) at most", _text("max-price", values["max-price"], "e.g. 150000")),
            _box("max-power", "Power (W) at most", _text("max-power", values["max-power"], "e.g. 2500"))]),
        _box("objective", "Rank by (lowest first)", dcc.Dropdown(id="plan-objective", options=list(OBJECTIVES),
                                                                 value=values["objective"], clearable=False)),
    ])
    search = html.Fieldset(className="plan-group", children=[
        html.Legend("Search"),
        _box("platforms", "Servers", dcc.Dropdown(id="plan-platforms", options=platforms, value=values["platforms"], multi=True),
             "none chosen: every server"),
        _box("drives", "Drives", dcc.Dropdown(id="plan-drives", options=drives, value=values["drives"], multi=True),
             "none chosen: every drive"),
        _box("engines", "RAID engines", dcc.Dropdown(id="plan-engines", options=engines, value=values["engines"], multi=True),
             "none chosen: every engine that is a product"),
        _box("levels", "RAID levels", dcc.Checklist(id="plan-levels", inline=True, className="radio", value=values["levels"],
                                                    options=[{"label": f"RAID{v}", "value": v} for v in LEVELS])),
        _box("counts", "Drive counts", _text("counts", values["counts"], "e.g. 8, 12, 16, 24")),
        _box("strips", "Strips", dcc.Dropdown(id="plan-strips", options=strips, value=values["strips"], multi=True)),
        _box("spares", "Hot spares", dcc.Checklist(id="plan-spares", inline=True, className="radio", value=values["spares"],
                                                   options=[{"label": str(v), "value": v} for v in SPARES])),
        dcc.Checklist(id="plan-priced", className="radio", value=values["priced"],
                      options=[{"label": "only catalog entries with a price", "value": "priced"}]),
        html.Div(className="field-row", children=[
            _box("top", "Set-ups listed", _text("top", values["top"])),
            _box("confirm", "Confirmed in event mode", _text("confirm", values["confirm"]))]),
    ])
    return html.Div(className="plan-form", children=[requirements, search])


def _row(i: int) -> html.Tr:
    """Ranked row ``i`` (hidden until a plan fills it); its buttons keep their ids."""
    return html.Tr(id=f"plan-row-{i}", style={"display": "none"}, children=_cells(i, None))


def shown(row: dict, catalog: Catalog | None) -> dict:
    """A ranked row or family with its drive, engine and server as product names (``nvsim.names``),
    for display only; the catalog names stay in the row store (Open and Add to compare use them)."""
    if catalog is None:
        return row
    sections = {"drive": "drives", "engine": "engines", "platform": "platforms"}
    return {**row, **{k: product_name(catalog, s, row[k]) for k, s in sections.items() if k in row}}


def _cells(i: int, row: dict | None, names: list[str] | None = None, catalog: Catalog | None = None) -> list[html.Td]:
    actions = html.Td(className="plan-actions", children=[
        html.Button("Open", id=f"plan-open-{i}", n_clicks=0, title="load this set-up into the controls"),
        html.Button("Add to compare", id=f"plan-add-{i}", n_clicks=0, title="add this set-up to the comparison")])
    if row is None:
        return [html.Td("") for _ in COLUMNS[:-1]] + [actions]
    least = min(row["margins"].items(), key=lambda kv: kv[1]) if row.get("margins") else ("", 0.0)
    rates = "; ".join(f"{n} {si_text(row['workloads'][n]['iops'])} IOPS, {si_text(row['workloads'][n]['bytes_per_s'], 'B/s')}"
                      for n in names or row["workloads"])
    cells = [row["rank"], set_up_text(shown(row, catalog)), variants_text(row), si_text(row["usable_bytes"], "B"), si_text(row.get("price_usd")),
             si_text(row.get("power_w")), rates, f"{least[0]} {least[1]:+.0%}", row.get("event", "")]
    return [html.Td(str(c)) for c in cells] + [actions]


def layout(catalog: Catalog | None = None) -> html.Div:
    """The view: the form (prefilled from the default set-up until the tab opens on another), the
    YAML it makes, Run with its progress, the ranked set-ups, the Pareto chart, the rejected families."""
    catalog = catalog or default_catalog()
    values = prefill(None, catalog)
    return html.Div(id="plan-view", className="plan-view", children=[
        html.H3("Plan: from requirements to ranked set-ups"),
        html.Div("Prefilled from the set-up on screen when this tab opens: change the targets and what to search, then Plan.",
                 className="field-hint"),
        _form(catalog, values),
        html.Details(id="plan-advanced", className="plan-advanced", children=[
            html.Summary("Advanced (YAML)"),
            html.Div("The plan file the form makes (nvsim plan reads the same); edit it to use what the form has no field for. "
                     "A change to the form writes it again.", className="field-hint"),
            dcc.Textarea(id="plan-text", value=form_yaml(values), className="plan-text", style={"width": "100%", "height": "16em"}),
        ]),
        html.Div(className="actions", children=[
            html.Button("Plan", id="plan-run", className="primary", n_clicks=0),
            html.Button("Fill from the set-up", id="plan-fill", n_clicks=0),
            html.Progress(id="plan-progress", max=1, value=0, className="progress"),
            html.Span(id="plan-status", className=NOTE_BUSY, role="status"),
        ]),
        html.Div(id="plan-note", className="field-note", role="status"),
        html.Table(id="plan-ranked-table", className="table plan-ranked", children=[
            html.Thead(html.Tr([html.Th(h) for h in COLUMNS])), html.Tbody([_row(i) for i in range(1, ROWS + 1)])]),
        dcc.Graph(id="plan-pareto", figure=go.Figure()),
        html.Div(id="plan-families"),
        dcc.Store(id="plan-job"), dcc.Store(id="plan-rows", data=[]),
        dcc.Interval(id="plan-poll", interval=POLL_MS, disabled=True),
    ])


# ---------------------------------------------------------------- running a plan


def _with_file(text: str, run: Callable[[Path], dict]) -> dict:
    """``run`` on the text as a plan file; an InputError is {"error": one line naming the field}.
    Text that is not Unicode (a lone surrogate) cannot be written to the file: refused first."""
    if len(text) > MAX_TEXT_CHARS:
        return {"error": f"requirements: {len(text):,} characters; the view takes at most {MAX_TEXT_CHARS:,}"}
    if (why := guard.not_unicode(text)) is not None:
        return {"error": f"requirements: {why}"}
    with tempfile.TemporaryDirectory(prefix="nvsim-plan-") as folder, client_input():  # bounds: the defaults
        path = Path(folder) / "plan.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            return run(path)
        except InputError as exc:
            return {"error": str(exc).replace(str(path), "requirements")}


def check_text(text: str) -> str | None:
    """Why the plan in ``text`` cannot run (one line naming the field), or None: the file, the
    names, the prices, the workloads and the size, checked before a worker is asked."""
    return _with_file(text, lambda path: prepare_plan(path, open_file=ClientFiles(), environ=NO_ENVIRONMENT) and {}).get("error")


def plan_from_text(text: str, workers: int = 1, progress: Callable[[str, int, int | None], None] | None = None) -> dict:
    """Run the plan in ``text``: {"error": one line} or {"result": the plan's JSON, "spec": PlanSpec}."""
    def run(path: Path) -> dict:
        result = run_plan(path, workers=workers, progress=progress, open_file=ClientFiles(), environ=NO_ENVIRONMENT)
        return {"result": result.as_dict(), "spec": result.spec}
    return _with_file(text, run)


def progress_text(status: dict) -> tuple[str, float | None]:
    """'fluid mode: 96 candidates solved (of at most 512), 3.2 s' and the bar's share (None: busy)."""
    stages = status.get("stages") or {}
    elapsed = f"{status.get('elapsed_s', 0.0):.1f} s"
    if "event" in stages:
        done, total = stages["event"]
        return f"planning: event mode, {done} of {total} set-ups confirmed or ruled out, {elapsed}", 0.9 + 0.1 * done / max(total or 1, 1)
    if "fluid" in stages:
        done, total = stages["fluid"]
        return f"planning: fluid mode, {done:,} candidates solved (of at most {total:,}), {elapsed}", 0.9 * min(1.0, done / max(total or 1, 1))
    return f"planning: starting, exact filters and bounds, {elapsed}", None


def ranked_rows(answer: dict, catalog: Catalog | None = None) -> list[tuple[list[html.Td], dict]]:
    """The first ROWS ranked set-ups: each row's cells and style (the rest hidden)."""
    ranked = answer["ranked"][:ROWS]
    names = list(ranked[0]["workloads"]) if ranked else []
    return [(_cells(i, ranked[i - 1], names, catalog), {}) if i <= len(ranked) else (_cells(i, None), {"display": "none"})
            for i in range(1, ROWS + 1)]


def row_store(answer: dict, workload: dict[str, Any] | None = None) -> list[dict]:
    """What Open and Add to compare need of each row shown: its set-up and the plan's workload
    controls (``plan_workload``; None where its profile is no preset) (the browser keeps it)."""
    keys = ("rank", "platform", "drive", "drives", "level", "strip_bytes", "engine", "overprovisioning", "hot_spares")
    return [{k: r[k] for k in keys} | {"workload": workload} for r in answer["ranked"][:ROWS]]


def plan_workload(spec) -> dict[str, Any] | None:
    """The workload controls of the plan's first workload (the one the rows' numbers lead with):
    its profile's preset, jobs and queue depth; None where the profile is no preset (a fio job
    file, a mix the presets lack)."""
    first = spec.requirements.workloads[0] if spec.requirements.workloads else None
    preset = PROFILE_PRESETS.get(first.profile) if first is not None else None
    return None if preset is None else {"workload": preset, "numjobs": first.numjobs, "iodepth": first.iodepth}


def families_table(answer: dict, catalog: Catalog | None = None) -> html.Table:
    """Each family with no feasible candidate and why (the closest candidate's miss)."""
    families = [shown(f, catalog) for f in answer["rejected_families"]]
    body = [html.Tr([html.Td(f"{f['engine']} RAID{f['level']} {f['drive']}"), html.Td(f["stage"]),
                     html.Td(f["reason"].split(": ", 1)[1])]) for f in families]
    return html.Table(className="table", id="plan-families-table",
                      children=[html.Thead(html.Tr([html.Th(h) for h in ("family", "stage", "why")])), html.Tbody(body)])


def pareto_figure(answer: dict, spec, catalog: Catalog | None = None) -> go.Figure:
    """Price against the least headroom over the targets, coloured by P(data loss); the front ringed."""
    front = set(answer["pareto_ranks"])
    ranked = answer["ranked"]
    figure = go.Figure()
    for on_front, name in ((False, "ranked"), (True, "Pareto front")):
        rows = [shown(r, catalog) for r in ranked if (r["rank"] in front) == on_front]
        figure.add_trace(go.Scatter(
            x=[r.get("price_usd") or r["objective"] for r in rows], y=[performance(r, spec.requirements.workloads) for r in rows],
            mode="markers", name=name, text=[f"#{r['rank']} {r['drives']}x {r['drive']} RAID{r['level']} {r['engine']}" for r in rows],
            marker={"size": 12 if on_front else 7, "color": [r.get("data_loss_probability") or 0.0 for r in rows],
                    "colorscale": "Viridis", "line": {"width": 2 if on_front else 0}}))
    figure.update_layout(xaxis_title="price (USD)", yaxis_title="least headroom over the targets (x)",
                         title="Price, performance and risk of the ranked set-ups (colour: P(data loss))")
    return figure


def answer_outputs(out: dict, catalog: Catalog | None = None) -> tuple:
    """(status, status class, rows' cells, rows' styles, Pareto figure, families, row store) for a
    finished plan (``plan_from_text``'s answer)."""
    if "error" in out:
        blank = ranked_rows({"ranked": []})
        return (f"error: {out['error']}", NOTE_ERROR, [c for c, _ in blank], [s for _, s in blank], go.Figure(), None, [])
    answer = out["result"]
    rows = ranked_rows(answer, catalog)
    more = answer.get("set_ups_ranked", 0) - ROWS
    status = stages_text(answer) + (f"; the first {ROWS} are listed ({more} more)" if more > 0 else "")
    if not answer["ranked"]:
        status += ": nothing meets the requirements (the rejected families below say why)"
    said = [*answer.get("warnings", ()), *answer.get("notes", ())]  # the fio reader's, as `nvsim plan` prints them
    if said:
        status += ". " + " ".join(said)
    return (status, NOTE_OK if answer["ranked"] else NOTE_WARNING, [c for c, _ in rows], [s for _, s in rows], pareto_figure(answer, out["spec"], catalog),
            families_table(answer, catalog), row_store(answer, plan_workload(out["spec"])))


def on_plan(text: str) -> tuple:
    """A plan run here at once (tests, scripts): (status, ranked rows, Pareto figure, families table)."""
    status, _, cells, styles, figure, families, _ = answer_outputs(plan_from_text(text or ""))
    return status, [c for c, s in zip(cells, styles) if not s], figure, families


# ---------------------------------------------------------------- Open, Add to compare


def row_setup(row: dict, workload: dict[str, Any]) -> dict[str, Any]:
    """The set-up controls' values for a ranked row, under the plan's workload (``plan_workload``:
    the numbers the plan promised), else the workload on screen (its preset, jobs and queue
    depth): the row's overprovisioning as the namespace's OP %."""
    op = float(row.get("overprovisioning") or 0.0)
    return {"platform": row["platform"], "drive": row["drive"], "drives": int(row["drives"]), "level": int(row["level"]),
            "strip_bytes": int(row["strip_bytes"]), "engine": row["engine"],
            "namespace_mode": "op" if op else "full", "namespace_value": f"{op * 100:g}" if op else "",
            **{key: (row.get("workload") or workload).get(key) for key in ("workload", "numjobs", "iodepth")}}


def compare_entry(row: dict, setup: dict, entries: list[dict], custom: dict | None, catalog: Catalog) -> tuple[dict | None, str]:
    """The comparison entry of a ranked row (its fluid record under the workload on screen) and
    the note, or None and why not."""
    if len(entries) >= guard.MAX_COMPARE_ENTRIES:
        return None, f"already {guard.MAX_COMPARE_ENTRIES} set-ups: clear the comparison first"
    record = core.compute(setup, custom, None, catalog)
    if record.get("errors") or "workloads" not in record:
        return None, f"plan #{row['rank']} cannot be added: " + "; ".join((record.get("errors") or {}).values())
    record["setup"] = setup
    letter = string.ascii_uppercase[len(entries)]
    spares = f" +{row['hot_spares']} spare" if row.get("hot_spares") else ""
    label = (f"{letter}: plan #{row['rank']} {setup['drives']}x RAID{setup['level']} {product_name(catalog, 'engines', setup['engine'])}{spares} "
             f"({record['workloads'][0]['name']}, fluid)")
    return {"label": label, "record": record}, f"added {label} to the comparison"


# ---------------------------------------------------------------- callbacks


def attach(app: Dash, catalog: Catalog, runner) -> None:
    """Register the Plan view's callbacks (its pane is the app's "plan" tab: dashboard/app.py TABS);
    ``runner``: a ``jobs.PlanRunner``."""
    _form_callbacks(app, catalog)
    _run_callbacks(app, catalog, runner)
    _row_callbacks(app, catalog)


def _form_callbacks(app: Dash, catalog: Catalog) -> None:
    fields = [Output(f"plan-{f}", "value") for f in FORM]

    @app.callback(*fields, Input("tab", "data"), Input("plan-fill", "n_clicks"), State("current", "data"),
                  prevent_initial_call=True)
    @guard.client_data("current.data")
    def _prefill(tab, _fill, current):
        if dash.ctx.triggered_id == "tab" and tab != "plan":
            return [no_update] * len(FORM)
        values = prefill(current if current and not current.get("errors") else None, catalog)
        return [values[f] for f in FORM]

    @app.callback(Output("plan-text", "value"), *[Input(f"plan-{f}", "value") for f in FORM], prevent_initial_call=True)
    def _yaml(*values):
        return form_yaml(dict(zip(FORM, values)))


def _run_callbacks(app: Dash, catalog: Catalog, runner) -> None:
    results = [Output("plan-status", "children", allow_duplicate=True), Output("plan-status", "className", allow_duplicate=True),
               *[Output(f"plan-row-{i}", "children") for i in range(1, ROWS + 1)],
               *[Output(f"plan-row-{i}", "style") for i in range(1, ROWS + 1)],
               Output("plan-pareto", "figure"), Output("plan-families", "children"), Output("plan-rows", "data")]

    @app.callback(Output("plan-job", "data"), Output("plan-poll", "disabled"), Output("plan-run", "disabled"),
                  Output("plan-status", "children"), Output("plan-status", "className"), Output("plan-progress", "value"),
                  Input("plan-run", "n_clicks"), State("plan-text", "value"), prevent_initial_call=True)
    def _run(_clicks, text):
        refusal = check_text(text or "")
        if refusal:
            return no_update, True, False, f"error: {refusal}", NOTE_ERROR, 0
        job_id = runner.start(text)
        if job_id is None:
            return no_update, True, False, f"{runner.workers} plans are running on this server: try again when one ends", NOTE_ERROR, 0
        return job_id, False, True, "planning: starting…", NOTE_BUSY, None

    @app.callback(*results, Output("plan-poll", "disabled", allow_duplicate=True), Output("plan-run", "disabled", allow_duplicate=True),
                  Output("plan-progress", "value", allow_duplicate=True),
                  Input("plan-poll", "n_intervals"), State("plan-job", "data"), prevent_initial_call=True)
    def _poll(_n, job_id):
        status = runner.poll(job_id)
        if status["state"] == "running":
            text, share = progress_text(status)
            return (text, NOTE_BUSY, *[no_update] * (len(results) - 2), False, True, share)
        if status["state"] == "unknown":
            return ("", NOTE_BUSY, *[no_update] * (len(results) - 2), True, False, 0)
        status_text, cls, cells, styles, figure, families, store = answer_outputs(status["answer"], catalog)
        if "error" not in status["answer"]:
            status_text += f" ({status['elapsed_s']:.1f} s)"
        return (status_text, cls, *cells, *styles, figure, families, store, True, False, 1)


def _row_callbacks(app: Dash, catalog: Catalog) -> None:
    tabs = app.nvsim_tabs
    controls = [Output(c, "value", allow_duplicate=True) for c in ("platform", "drive", "drives", "namespace-mode", "namespace-value",
                                                                   "level", "strip", "engine", "workload", "numjobs", "iodepth")]
    views = [*[Output(f"view-{key}", "style", allow_duplicate=True) for key, _ in tabs],
             *[Output(f"tab-{key}", "className", allow_duplicate=True) for key, _ in tabs], Output("tab", "data", allow_duplicate=True)]

    @app.callback(*controls, Output("strip", "options", allow_duplicate=True), *views,
                  Output("compare", "data", allow_duplicate=True), Output("plan-note", "children"), Output("plan-note", "className"),
                  *[Input(f"plan-open-{i}", "n_clicks") for i in range(1, ROWS + 1)],
                  *[Input(f"plan-add-{i}", "n_clicks") for i in range(1, ROWS + 1)],
                  State("plan-rows", "data"), State("compare", "data"), State("workload", "value"), State("numjobs", "value"),
                  State("iodepth", "value"), State("custom", "data"), prevent_initial_call=True)
    @guard.client_data("plan-rows.data/compare.data")
    def _row_action(*args):
        rows, entries, workload, numjobs, iodepth, custom = args[2 * ROWS:]
        skip = [no_update] * (len(controls) + 1 + len(views) + 1)
        which = str(dash.ctx.triggered_id or "")
        clicked = dash.ctx.triggered[0]["value"] if dash.ctx.triggered else None
        index = int(which.rpartition("-")[2]) if which.rpartition("-")[2].isdigit() else 0
        if not clicked or not 1 <= index <= len(rows or []):
            return (*skip, no_update, no_update)
        row = rows[index - 1]
        setup = row_setup(row, {"workload": workload, "numjobs": numjobs, "iodepth": iodepth})
        if which.startswith("plan-add-"):
            entry, note = compare_entry(row, setup, list(entries or []), custom, catalog)
            if entry is None:
                return (*skip, note, NOTE_ERROR)
            return (*[no_update] * (len(controls) + 1 + len(views)), list(entries or []) + [entry], note, NOTE_OK)
        shown = [{} if key == "setup" else {"display": "none"} for key, _ in tabs]
        classes = ["tab active" if key == "setup" else "tab" for key, _ in tabs]
        spares = f"; its {row['hot_spares']} hot spare(s) are not a control of the set-up" if row.get("hot_spares") else ""
        spares += "" if row.get("workload") else "; the plan's workload is no preset: the workload on screen is kept"
        return (setup["platform"], setup["drive"], setup["drives"], setup["namespace_mode"], setup["namespace_value"],
                setup["level"], setup["strip_bytes"], setup["engine"], setup["workload"], setup["numjobs"], setup["iodepth"],
                core.strip_options(setup["strip_bytes"]),
                *shown, *classes, "setup", no_update, f"opened plan #{row['rank']} in the set-up{spares}", NOTE_OK)


__all__ = ["attach", "layout", "prefill", "form_plan", "form_yaml", "check_text", "plan_from_text", "progress_text", "ranked_rows",
           "row_store", "plan_workload", "families_table", "pareto_figure", "answer_outputs", "on_plan", "row_setup", "compare_entry", "ROWS", "EXAMPLE"]
