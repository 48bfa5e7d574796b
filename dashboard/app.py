"""The Dash app: layout, callbacks, and how to serve it (``nvsim dashboard``).

Everything is served from this machine (Dash's own JavaScript with serve_locally, a local CSS
file, no web fonts, no CDN), so it works in a meeting room without internet.
"""

from __future__ import annotations

import io
import ipaddress
import logging
import signal
import socket
import sys
import threading
import time
import zipfile
from html import escape
from pathlib import Path
from typing import Any

import dash
from dash import Dash, Input, Output, State, dcc, html, no_update
from werkzeug.serving import WSGIRequestHandler

from nvsim.budget import serve_clients
from nvsim import Catalog, InputError, default_catalog
from nvsim.errors import require_extra
from nvsim.units import format_significant

from . import choices, core, guard, plan_view, report, views
from .origin import AllowedHosts, Gate, check_host_name
from . import compare as compare_view
from .core import host_cores_percent
from .figures import bounds_figure, compare_figure, empty_figure, utilisation_figure
from .datasheet import session_catalog
from .jobs import EventRunner, PlanRunner, job_id_of

log = logging.getLogger(__name__)
ASSETS = Path(__file__).resolve().parent / "assets"
POLL_MS = 400
MAX_COMPARE = compare_view.MAX_COMPARE
"""Set-ups the comparison holds (A to Z): as many as a meeting compares, a bounded browser store."""
NOTE_OK, NOTE_WARNING, NOTE_ERROR = "field-note ok", "field-note warning", "field-error"
NOTE_CHARS = 600
"""Longest note an upload's line under its button shows (``_note``): a job file's option of 100,000
characters came back whole."""


def _note(text: str) -> str:
    """An upload's note, cut to ``NOTE_CHARS`` with the length it had."""
    return text if len(text) <= NOTE_CHARS else f"{text[:NOTE_CHARS - 40]}...({len(text):,} characters)"
"""Message classes under an upload: green for done, amber for done with a warning, red for refused."""
TABS = (("setup", "Set-up and results"), ("curves", "Curves"), ("compare", "Compare set-ups"), ("report", "Report"), ("plan", "Plan"))
"""The views beside the set-up controls: a tab button ``tab-KEY`` shows ``view-KEY``. A new view
(the Plan view) adds its entry here and its pane in ``layout``; the tab callback covers every entry."""
REQUEST_LIMIT_BYTES = 4 * core.UPLOAD_LIMIT_BYTES
"""Flask refuses larger requests outright; files between the two limits get the one-line message."""
GRAPH_CONFIG = views.GRAPH_CONFIG


# ---------------------------------------------------------------- layout


def _field(label: str, control, name: str, hint: str | None = None) -> html.Div:
    """A control with its label and the slot for its validation message (id ``<name>-error``)."""
    parts = [html.Label(label, className="field-label"), control]
    if hint:
        parts.append(html.Div(hint, className="field-hint"))
    parts.append(html.Div(id=f"{name}-error", className="field-error", role="alert"))
    return html.Div(parts, className="field", id=f"{name}-field")


_workload_options = views.workload_options
_strip_options = core.strip_options


CARDS = (("m-iops", "IOPS"), ("m-gbps", "Throughput"), ("m-p50", "Latency p50"), ("m-p99", "Latency p99"),
         ("m-p999", "Latency p99.9"), ("m-cpu", "Host cores busy"), ("m-capacity", "Usable capacity"), ("m-waf", "Write amplification"),
         ("m-dwpd", "Effective DWPD"), ("m-life", "Drive lifetime"), ("m-power", "Power"), ("m-cost", "Cost"),
         ("m-rebuild", "Rebuild time"), ("m-risk", "Data-loss risk"))


def _controls(catalog: Catalog, setup: dict) -> html.Aside:
    """The set-up controls (left column), each with its message slot."""
    choice = choices.initial_options(catalog)  # product names; a choice the set-up refuses is disabled, with why
    platforms, engines = choice["platform"], choice["engine"]
    drives = [{"label": core.drive_label(catalog, name), "value": name} for name in sorted(catalog.drives)]
    controls = html.Aside(className="controls", children=[
        html.H2("Set-up"),
        _field("Server (platform)", dcc.Dropdown(id="platform", options=platforms, value=setup["platform"], clearable=False), "platform"),
        _field("Drive model and capacity", dcc.Dropdown(id="drive", options=drives, value=setup["drive"], clearable=False), "drive"),
        _field("Drive count", dcc.Input(id="drives", type="number", min=1, max=core.MAX_DRIVES, step=1, value=setup["drives"],
                                        className="number-input"), "drives"),
        _field("Namespace per drive", html.Div([
            dcc.RadioItems(id="namespace-mode", inline=True, value=setup["namespace_mode"], className="radio",
                           options=[{"label": "full capacity", "value": "full"}, {"label": "size", "value": "size"},
                                    {"label": "over-provisioning %", "value": "op"}]),
            dcc.Input(id="namespace-value", type="text", value="", debounce=True, placeholder="e.g. 3.2 TB or 20",
                      className="text-input"),
        ]), "namespace", "size: decimal or binary units (3.2 TB, 3 TiB); OP %: share of the drive left unallocated"),
        _field("RAID level", dcc.RadioItems(id="level", inline=True, value=setup["level"], className="radio",
                                            options=choice["level"]), "level"),
        _field("Strip (chunk) size", dcc.Dropdown(id="strip", options=_strip_options(), value=setup["strip_bytes"],
                                                  clearable=False), "strip"),
        _field("RAID engine", dcc.RadioItems(id="engine", value=setup["engine"], className="radio radio-column",
                                             options=engines), "engine"),
        _field("Parity scrub", dcc.Checklist(id="scrub", value=[], className="radio",
                                             options=[{"label": " time a parity check", "value": views.SCRUB_ON}]),
               "scrub", "md's check, a card's consistency check: its time idle and under the workload, and what the "
                        "host keeps meanwhile"),
        _field("Workload", dcc.Dropdown(id="workload", options=_workload_options(None), value=setup["workload"],
                                        clearable=False), "workload"),
        html.Div(className="field-row", children=[
            _field("Jobs", dcc.Input(id="numjobs", type="number", min=1, step=1, placeholder=str(core.DEFAULT_NUMJOBS),
                                     className="number-input"), "numjobs"),
            _field("Queue depth", dcc.Input(id="iodepth", type="number", min=1, step=1, placeholder="preset",
                                            className="number-input"), "iodepth"),
        ]),
        html.Div(className="field", children=[
            html.Label("fio job file", className="field-label"),
            dcc.Upload(id="fio-upload", className="upload", children=html.Div(["Drop or ", html.A("choose"), " a fio job file"])),
            html.Div(id="fio-note", className="field-error", role="alert"),
        ]),
        html.Div(className="field", children=[
            html.Label("Scenario YAML", className="field-label"),
            dcc.Upload(id="scenario-upload", className="upload", children=html.Div(["Drop or ", html.A("choose"), " a scenario to load"])),
            html.Div(id="import-note", className="field-error", role="alert"),
        ]),
        html.Div(id="general-error", className="field-error", role="alert"),
        html.Div(id="url-note", className="field-error", role="alert"),
    ])
    return controls


def _results() -> html.Main:
    """The set-up view: headline, actions, cards, bottleneck, charts, every workload."""
    actions = html.Div(className="actions", children=[
        html.Button("Simulate (event mode)", id="simulate", className="primary", n_clicks=0),
        html.Progress(id="sim-progress", max=1, value=0, className="progress"),
        html.Span(id="sim-status", className="sim-status"),
        html.Button("Add to comparison", id="add-compare", n_clicks=0),
        html.Span(id="add-note", className="export-note"),
        html.Span("Export:", className="export-label"),
        html.Button("scenario YAML", id="export-yaml", n_clicks=0),
        html.Button("results CSV", id="export-csv", n_clicks=0),
        html.Button("charts HTML", id="export-html", n_clicks=0),
        html.Button("charts PNG", id="export-png", n_clicks=0),
        html.Span(id="export-note", className="export-note"),
    ])
    results = html.Main(className="results", children=[
        html.Div(className="headline", children=[html.Span(id="mode", className="mode"), html.Span(id="answer-time", className="answer-time"),
                                                 html.Span(id="scenario-name", className="answer-time")]),
        actions,
        html.Div(id="cards", className="cards",
                 children=[_card(cid, label, "…", "") for cid, label in CARDS]),
        html.Div(className="bottleneck", children=[html.Span("Limited by: "), html.Strong(id="bottleneck")]),
        html.Div(className="graphs", children=[
            dcc.Graph(id="util-graph", config=GRAPH_CONFIG, figure=empty_figure("computing…")),
            dcc.Graph(id="bounds-graph", config=GRAPH_CONFIG, figure=empty_figure("computing…")),
        ]),
        html.H3("Every workload of the set-up"),
        html.Div(id="workload-table"),
    ])
    return results


def layout(catalog: Catalog) -> html.Div:
    controls, results, compare = _controls(catalog, core.default_setup(catalog)), _results(), compare_view.pane()
    controls.children.append(views.datasheet_panel())
    panes = {"setup": results, "curves": views.curves_view(), "compare": compare, "report": views.report_view(), "plan": plan_view.layout(catalog)}
    return html.Div(className="page", children=[
        html.Header(className="top", children=[
            html.H1("nvsim: NVMe RAID what-if"),
            html.Span("predictions from calibrated models of drives, links, platform and RAID engine", className="tagline"),
        ]),
        html.Div(className="grid", children=[controls, html.Div(className="right", children=[
            html.Nav(className="tab-bar", children=[
                html.Button(label, id=f"tab-{key}", className="tab active" if key == TABS[0][0] else "tab", n_clicks=0)
                for key, label in TABS]),
            *[html.Div(id=f"view-{key}", className="view", style={} if key == TABS[0][0] else {"display": "none"},
                       children=panes[key]) for key, _ in TABS],
        ])]),
        dcc.Store(id="current"), dcc.Store(id="event"), dcc.Store(id="job"), dcc.Store(id="custom"),
        dcc.Store(id="extras"), dcc.Store(id="compare", data=[]), dcc.Store(id="tab", data=TABS[0][0]),
        dcc.Store(id="sheets", data=[]), dcc.Store(id="curve-event"), dcc.Location(id="url", refresh=False),
        dcc.Store(id="link-state", data=views.LINK_WAITING),
        dcc.Interval(id="poll", interval=POLL_MS, disabled=True),
        dcc.Download(id="download"), dcc.Download(id="download-compare"), dcc.Download(id="download-report"),
    ])


def _card(cid: str, label: str, value: str, sub: str, raw: Any = None) -> html.Div:
    return html.Div(className="card", children=[
        html.Div(label, className="card-label"),
        html.Div(value, id=cid, className="card-value", **{"data-value": "" if raw is None else repr(raw)}),
        html.Div(sub, className="card-sub", id=f"{cid}-sub"),
    ])


# ---------------------------------------------------------------- rendering


shown = core.shown


def cards(record: dict) -> list[html.Div]:
    """The headline numbers of the record's first workload (the table has every workload)."""
    workload = next((w for w in record["workloads"] if "error" not in w), None)
    cap = record["capacity"]
    rebuild = record.get("rebuild") or {"na": "not computed"}
    out = []
    if workload is None:
        return [_card(cid, label, "n/a", "no workload could be predicted") for cid, label in CARDS]
    fluid = workload.get("fidelity") == "fluid"
    tps = workload.get("transactions_per_s")
    out.append(_card("m-iops", "IOPS", core.fmt_count(workload["total_iops"]),
                     f"read {core.fmt_count(workload['read_iops'])}, write {core.fmt_count(workload['write_iops'])}"
                     + (f"; {core.fmt_count(tps)} transactions/s" if tps else ""), workload["total_iops"]))
    out.append(_card("m-gbps", "Throughput", core.fmt_gb_per_s(workload["total_bytes_per_s"]),
                     f"read {core.fmt_gb_per_s(workload['read_bytes_per_s'])}, write {core.fmt_gb_per_s(workload['write_bytes_per_s'])}",
                     workload["total_bytes_per_s"]))
    mean = core.latency_us(workload, "mean")
    for cid, label, key in (("m-p50", "Latency p50", "p50"), ("m-p99", "Latency p99", "p99"), ("m-p999", "Latency p99.9", "p99.9")):
        value = core.latency_us(workload, key)
        if value is None and fluid:
            sub = f"fluid mode gives the mean, {core.fmt_us(mean)}: press Simulate for percentiles"
        elif value is None:
            sub = "not given by the single-drive model"
        else:
            sub = "event mode, slower direction" if workload.get("read_latency_us") and workload.get("write_latency_us") else "event mode"
        out.append(_card(cid, label, core.fmt_us(value), sub, value))
    cpu, cores = workload.get("cpu_percent"), host_cores_percent(workload)
    threads = "n/a" if cpu is None else f"{cpu:.1f} % of hardware threads busy (what top shows)"
    out.append(_card("m-cpu", "Host cores busy", "n/a" if cores is None else f"{cores:.0f} %",
                     threads if cores is not None else "no host-core resource in this model", cores))
    out.append(_card("m-capacity", "Usable capacity", core.fmt_bytes(cap["usable_bytes"]),
                     f"{cap['efficiency']:.1%} of {core.fmt_bytes(cap['raw_bytes'])} raw; {core.fmt_bytes(cap['member_bytes'])} per drive",
                     cap["usable_bytes"]))
    raid_waf, waf_nand = workload.get("raid_waf"), workload.get("waf_nand")
    waf_text = "no writes" if raid_waf is None and waf_nand is None else \
        f"RAID {raid_waf:.2f} × NAND {waf_nand:.2f}" if raid_waf is not None and waf_nand is not None else "n/a"
    out.append(_card("m-waf", "Write amplification", waf_text, "member bytes / host bytes × NAND bytes / member bytes"))
    wear = workload.get("wear") or {}
    effective = wear.get("effective_dwpd")
    out.append(_card("m-dwpd", "Effective DWPD", "0" if not effective else format_significant(effective, 3),
                     f"rated {wear.get('rated_dwpd', 0):g} DWPD; {format_significant(wear.get('member_dwpd') or 0, 3)} "
                     "drive writes/day arrive per drive",
                     effective))
    life = wear.get("lifetime_years")
    out.append(_card("m-life", "Drive lifetime", core.fmt_years(life),
                     f"at this load, all day; warranty {wear.get('warranty_years', 0):g} years", life))
    cost = workload.get("cost_power") or {}
    watts, usd = cost.get("power_w"), cost.get("price_usd")
    out.append(_card("m-power", "Power", "n/a" if watts is None else f"{watts:,.0f} W",
                     "at this load: drives, RAID device, server" if watts is not None else "no power figure in the catalog", watts))
    out.append(_card("m-cost", "Cost", "n/a" if usd is None else f"${usd:,.0f}",
                     f"${cost.get('usd_per_usable_tb') or 0:,.0f} per usable TB; ${cost.get('usd_per_kiops') or 0:,.2f} per 1K IOPS"
                     if usd is not None else f"no price for {core.missing_prices(record, workload) or 'a part'}", usd))
    return out + rebuild_cards(rebuild) + scrub_cards(record.get("scrub"))


def rebuild_cards(rebuild: dict) -> list[html.Div]:
    """The rebuild time and data-loss risk cards (or n/a with the reason)."""
    if rebuild.get("rebuild_hours") is not None:
        where = "under this workload" if rebuild.get("under_load") else "idle array (Simulate: under load)"
        return [_card("m-rebuild", "Rebuild time", f"{format_significant(rebuild['rebuild_hours'], 3)} h",
                      f"{core.fmt_gb_per_s((rebuild.get('rebuild_mb_per_s') or 0) * 1e6)}, {where}", rebuild["rebuild_hours"]),
                _card("m-risk", "Data-loss risk", core.fmt_probability(rebuild.get("data_loss_probability")),
                      f"per rebuild; MTTDL {core.fmt_large(rebuild.get('mttdl_years'))} years", rebuild.get("data_loss_probability"))]
    reason = rebuild.get("na") or "n/a"
    risk = rebuild.get("data_loss_probability")
    return [_card("m-rebuild", "Rebuild time", "n/a", reason),
            _card("m-risk", "Data-loss risk", core.fmt_probability(risk) if risk is not None else "n/a", reason, risk)]


def scrub_cards(scrub: dict | None) -> list[html.Div]:
    """The parity scrub's card where the set-up asks for one (``array.scrub``): its time idle, and
    under the first workload with the host's share of its rate (fluid mode); none otherwise."""
    if not scrub:
        return []
    if scrub.get("idle_hours") is None:
        return [_card("m-scrub", "Parity scrub", "n/a", scrub.get("na") or "not computed")]
    sub = f"idle, {scrub.get('idle_mb_per_s') or 0:,.0f} MB/s per drive ({scrub.get('idle_limited_by') or ''})"
    if scrub.get("loaded_hours") is not None:
        share = scrub.get("host_share")
        sub += (f"; {format_significant(scrub['loaded_hours'], 3)} h under {scrub.get('workload', 'the workload')}, the host keeping "
                f"{'n/a' if share is None else f'{100 * share:.0f} %'} of its rate (fluid mode)")
    return [_card("m-scrub", "Parity scrub", f"{format_significant(scrub['idle_hours'], 3)} h", sub, scrub["idle_hours"])]


def workload_table(record: dict) -> html.Table:
    head = ["workload", "IOPS", "GB/s", "p50", "p99", "p99.9", "mean", "cores busy %", "threads busy %", "RAID WAF", "NAND WAF",
            "lifetime", "limited by"]
    rows = []
    for w in record["workloads"]:
        if "error" in w:
            rows.append(html.Tr([html.Td(w["name"]), html.Td(w["error"], colSpan=len(head) - 1, className="field-error")]))
            continue
        cells = [w["name"], core.fmt_count(w["total_iops"]), core.fmt_gb_per_s(w["total_bytes_per_s"]),
                 core.fmt_us(core.latency_us(w, "p50")), core.fmt_us(core.latency_us(w, "p99")),
                 core.fmt_us(core.latency_us(w, "p99.9")), core.fmt_us(core.latency_us(w, "mean")),
                 "n/a" if host_cores_percent(w) is None else f"{host_cores_percent(w):.0f}",
                 "n/a" if w.get("cpu_percent") is None else f"{w['cpu_percent']:.1f}",
                 "-" if w.get("raid_waf") is None else f"{w['raid_waf']:.2f}",
                 "-" if w.get("waf_nand") is None else f"{w['waf_nand']:.2f}",
                 core.fmt_years((w.get("wear") or {}).get("lifetime_years")), w.get("bottleneck", "")]
        rows.append(html.Tr([html.Td(c) for c in cells]))
    return html.Table(className="table", id="workloads", children=[html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(rows)])


def charts_html(title: str, figures: list, table_rows: list[dict] | None = None) -> str:
    """One self-contained HTML file (plotly.js inlined: opens offline) with the charts and a table."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title></head>"
             "<body style='font-family: system-ui, sans-serif'>", f"<h1>{escape(title)}</h1>"]
    for index, fig in enumerate(figures):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(index == 0), div_id=f"nvsim-chart-{index}"))  # not random: same bytes
    if table_rows:
        keys = [k for k in core.RESULT_COLUMNS if any(r.get(k) is not None for r in table_rows)]
        parts.append("<table border='1' cellspacing='0' cellpadding='3'><tr>" + "".join(f"<th>{k}</th>" for k in keys) + "</tr>")
        for row in table_rows:
            parts.append("<tr>" + "".join(f"<td>{escape(str(row.get(k) if row.get(k) is not None else ''))}</td>" for k in keys) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def charts_png_zip(figures: dict[str, Any]) -> bytes:
    """PNG of every chart (kaleido drives a local Chrome/Chromium), zipped."""
    import plotly.io as pio

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, fig in figures.items():
            archive.writestr(f"{name}.png", pio.to_image(fig, format="png", width=1100, height=fig.layout.height or 500, scale=2))
    return buffer.getvalue()


def _main_figures(record: dict) -> dict[str, Any]:
    workload = next((w for w in record["workloads"] if "error" not in w), None)
    return {"utilisation": utilisation_figure(workload) if workload else empty_figure("no workload"),
            "bounds": bounds_figure(record["bounds"], workload)}


# ---------------------------------------------------------------- app


def create_app(catalog: Catalog | None = None, *, warm: bool = True, host_ios: int = core.EVENT_HOST_IOS,
               allowed_hosts: AllowedHosts | None = None) -> Dash:
    """The Dash app; ``warm`` pre-computes one fluid answer and starts the event worker in the background.
    ``allowed_hosts``: the Host names it answers (default: this machine's loopback names; ``dashboard.origin``)."""
    catalog = catalog or default_catalog()
    app = Dash(__name__, title="nvsim dashboard", serve_locally=True, assets_folder=str(ASSETS),
               update_title=None, external_scripts=[], external_stylesheets=[])
    app.server.config["MAX_CONTENT_LENGTH"] = REQUEST_LIMIT_BYTES
    app.server.wsgi_app = Gate(app.server.wsgi_app, allowed_hosts or AllowedHosts.served_on("127.0.0.1"))
    app.layout = layout(catalog)
    runner = EventRunner(host_ios)
    app.nvsim_runner = runner  # the server owner shuts it down (ServerThread.stop, run)
    _import_models()
    if warm:  # the first answer on screen is then as fast as the later ones
        runner.warm()
        core.compute(core.default_setup(catalog), catalog=catalog)
    app.nvsim_tabs = TABS
    _callbacks(app, catalog, runner)
    _file_callbacks(app, catalog)
    _export_callbacks(app, catalog)
    views.register(app, catalog, runner)
    app.nvsim_plans = PlanRunner()  # plans off the request thread (shut down with the event runner)
    plan_view.attach(app, catalog, app.nvsim_plans)  # the Plan view's callbacks: dashboard/plan_view.py
    choices.attach(app, catalog)  # the choices a set-up refuses, disabled with their reason
    guard.install(app.server, app.callback_map, app.config.routes_pathname_prefix)
    return app


def _import_models() -> None:
    """Import the plotting modules here, once: first imports racing in two server threads can see
    a partly initialised module (numpy's, through plotly). The models are imported with
    dashboard.core."""
    import numpy  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import plotly.io  # noqa: F401


def on_change(catalog: Catalog, platform, drive, drives, namespace_mode, namespace_value, level, strip, engine,
              workload, numjobs, iodepth, custom, extras, sheets=None) -> tuple:
    """The control-change callback's work (also what benchmarks/bench_dashboard.py times).
    ``sheets``: the session's datasheet drives, added to the catalog for this answer."""
    start = time.perf_counter()
    setup = {"platform": platform, "drive": drive, "drives": drives, "namespace_mode": namespace_mode,
             "namespace_value": namespace_value, "level": level, "strip_bytes": strip, "engine": engine,
             "workload": workload, "numjobs": numjobs, "iodepth": iodepth}
    try:
        session = session_catalog(catalog, sheets)
    except InputError as exc:
        session = catalog
        log.warning("datasheet drives refused: %s", exc)
    record = core.compute(setup, custom, extras, session)
    record["setup"] = setup
    record["compute_ms"] = 1000 * (time.perf_counter() - start)
    errors = record.get("errors") or {}
    messages = [errors.get(control, "") for control in core.CONTROLS] + [errors.get("general", "")]
    return (*messages, record)


def render(current: dict | None, event: dict | None) -> tuple:
    """The results area from the current (fluid) record and the event-mode one when it matches."""
    record = shown(current, event)
    if record is None:
        reason = "no chart: the set-up is invalid (why: beside its control)" if current else "computing…"
        blank = [_card(cid, label, "n/a", "") for cid, label in CARDS]
        return blank, "", empty_figure(reason), empty_figure(reason), html.Div(), "invalid set-up" if current else "", "", ""
    figures = _main_figures(record)
    workload = next((w for w in record["workloads"] if "error" not in w), {})
    if record["fidelity"] == "event":
        mode = f"event mode: discrete events, {core.EVENT_HOST_IOS:,} host I/Os per workload"
    else:
        mode = "fluid mode: rates, updated as you change the set-up (Simulate adds latency percentiles)"
    answer = f"fluid answer in {record.get('compute_ms', 0):.0f} ms" if "compute_ms" in record else ""
    return (cards(record), workload.get("bottleneck", ""), figures["utilisation"], figures["bounds"],
            workload_table(record), mode, answer, f"scenario: {record['scenario']['name']}")


simulation_refusal = views.event_refusal
"""Why a Simulate request is not started, or None (``views.event_refusal``)."""


def poll_outputs(status: dict, kind: str) -> tuple:
    """What a poll of an event-mode job shows: (event, curve-event, poll off, Simulate off, curve
    button off, status text, curve status text, progress); ``kind`` is "setup" or "curve"."""
    curve = kind == "curve"

    def say(text: str, progress, poll_off: bool, data=no_update) -> tuple:
        buttons = not poll_off
        return (no_update if curve else data, data if curve else no_update, poll_off, buttons, buttons,
                no_update if curve else text, text if curve else no_update, progress)

    if status["state"] == "unknown":
        return say("", 0, True)
    if status["state"] == "running":
        text = f"event mode: {status['done']} of {status['total']} tasks done, {status['elapsed_s']:.1f} s"
        return say(text, (status["done"] / status["total"]) if status["done"] else None, False)
    if status.get("stopped"):
        return say(f"event mode {status['stopped']}", 0, True)
    errors = [w["error"] for w in status["workloads"] if "error" in w]
    text = f"event mode finished in {status['elapsed_s']:.1f} s" + (f"; {errors[0]}" if errors else "")
    data = {"key": status["key"], "workloads": status["workloads"], "rebuild": status["rebuild"]}
    return say(text, 1, True, data)


def _callbacks(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    """The main page's callbacks, grouped by concern: the set-up, the event-mode run, the comparison."""
    _setup_callbacks(app, catalog)
    _simulation_callbacks(app, catalog, runner)
    compare_view.attach(app, catalog, runner)  # the Compare view: dashboard/compare.py


def _setup_callbacks(app: Dash, catalog: Catalog) -> None:
    """The controls: every change re-validates the set-up (fluid mode) and the page re-renders its answer."""
    control_inputs = [Input("platform", "value"), Input("drive", "value"), Input("drives", "value"),
                      Input("namespace-mode", "value"), Input("namespace-value", "value"), Input("level", "value"),
                      Input("strip", "value"), Input("engine", "value"), Input("workload", "value"),
                      Input("numjobs", "value"), Input("iodepth", "value"), Input("custom", "data"), Input("extras", "data"),
                      Input("sheets", "data")]
    error_outputs = [Output(f"{control}-error", "children") for control in core.CONTROLS] + [Output("general-error", "children")]

    @app.callback(*error_outputs, Output("current", "data"), *control_inputs)
    def _on_change(*values):
        try:
            return on_change(catalog, *values)
        except Exception as exc:  # the page must say something; the traceback and its text go to the server log
            log.exception("fluid-mode update failed")  # the text may name the server's files: the type only
            messages = [""] * len(core.CONTROLS) + [f"internal error (see the server log): {type(exc).__name__}"]
            return (*messages, None)

    @app.callback(Output("extras", "data", allow_duplicate=True), Output("scrub", "value"),
                  Input("scrub", "value"), Input("extras", "data"), prevent_initial_call=True)
    @guard.client_data("scrub.value/extras.data")
    def _scrub(value, extras):
        return views.scrub_sync(dash.ctx.triggered_id, value, extras)

    @app.callback(Output("cards", "children"), Output("bottleneck", "children"), Output("util-graph", "figure"),
                  Output("bounds-graph", "figure"), Output("workload-table", "children"), Output("mode", "children"),
                  Output("answer-time", "children"), Output("scenario-name", "children"),
                  Input("current", "data"), Input("event", "data"))
    @guard.client_data("current.data/event.data")
    def _render(current, event):
        return render(current, event)


def _simulation_callbacks(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    """The event-mode run: the Simulate button starts a background job and the poll timer reports it."""
    @app.callback(Output("job", "data"), Output("poll", "disabled"), Output("simulate", "disabled"),
                  Output("sim-status", "children"), Output("sim-progress", "value"),
                  Input("simulate", "n_clicks"), State("current", "data"), State("sheets", "data"), State("job", "data"),
                  prevent_initial_call=True)
    @guard.client_data("current.data/sheets.data/job.data")
    def _simulate(_clicks, current, sheets, job):
        if not current or current.get("errors") or "workloads" not in current:
            return no_update, True, False, "fix the set-up first", 0
        refusal = simulation_refusal(current, session_catalog(catalog, sheets))
        if refusal:
            return no_update, True, False, refusal, 0
        try:  # this page's previous job gives way; another page's goes on
            job_id = runner.start(current["key"], current["scenario"], sheets=sheets, replaces=job_id_of(job))
        except InputError as exc:
            return no_update, True, False, exc.message, 0
        return {"id": job_id, "key": current["key"], "kind": "setup"}, False, True, "event mode: starting…", None

    @app.callback(Output("event", "data"), Output("curve-event", "data"), Output("poll", "disabled", allow_duplicate=True),
                  Output("simulate", "disabled", allow_duplicate=True), Output("curve-simulate", "disabled"),
                  Output("sim-status", "children", allow_duplicate=True), Output("curve-status", "children"),
                  Output("sim-progress", "value", allow_duplicate=True),
                  Input("poll", "n_intervals"), State("job", "data"), prevent_initial_call=True)
    def _poll(_n, job):
        return poll_outputs(runner.poll((job or {}).get("id")), (job or {}).get("kind") or "setup")


def _file_callbacks(app: Dash, catalog: Catalog) -> None:
    """Uploads: a fio job file (its jobs become the workload) and a scenario (into the controls)."""
    @app.callback(Output("custom", "data"), Output("workload", "value"), Output("workload", "options"),
                  Output("fio-note", "children"), Output("fio-note", "className"),
                  Input("fio-upload", "contents"), State("fio-upload", "filename"),
                  State("current", "data"), prevent_initial_call=True)
    @guard.client_data("current.data")
    def _upload_fio(contents, filename, current):
        try:
            text = core.decode_upload(contents, filename)
            custom = core.import_fio(text, filename or "job.fio", (current or {}).get("scenario"), catalog)
        except InputError as exc:
            return no_update, no_update, no_update, _note(str(exc)), NOTE_ERROR
        note = f"loaded {custom['label']}" + (f"; warning: {custom['warning']}" if custom["warning"] else "")
        return custom, core.FILE_WORKLOADS, _workload_options(custom), _note(note), NOTE_WARNING if custom["warning"] else NOTE_OK

    @app.callback(Output("platform", "value"), Output("drive", "value"), Output("drives", "value"),
                  Output("namespace-mode", "value"), Output("namespace-value", "value"), Output("level", "value"),
                  Output("strip", "options"), Output("strip", "value"), Output("engine", "value"),
                  Output("workload", "value", allow_duplicate=True), Output("workload", "options", allow_duplicate=True),
                  Output("custom", "data", allow_duplicate=True), Output("extras", "data"), Output("import-note", "children"),
                  Output("import-note", "className"),
                  Input("scenario-upload", "contents"), State("scenario-upload", "filename"), State("workload", "value"),
                  prevent_initial_call=True)
    def _import(contents, filename, workload):
        try:
            text = core.decode_upload(contents, filename)
            loaded = core.import_scenario(text, filename or "scenario.yaml", catalog)
        except InputError as exc:
            return (*[no_update] * 13, _note(str(exc)), NOTE_ERROR)
        s = loaded["setup"]
        custom = loaded["custom"]
        return (s["platform"], s["drive"], s["drives"], s["namespace_mode"], s["namespace_value"], s["level"],
                _strip_options(s["strip_bytes"]), s["strip_bytes"], s["engine"],
                s["workload"] or (workload if workload != core.FILE_WORKLOADS else "randread-4k"),
                _workload_options(custom), custom, loaded["extras"], _note(f"loaded {filename}"), NOTE_OK)


def _export_callbacks(app: Dash, catalog: Catalog) -> None:
    """Exports: the set-up as scenario YAML, results CSV, charts HTML/PNG, and the comparison's."""
    @app.callback(Output("download", "data"), Output("export-note", "children"),
                  Input("export-yaml", "n_clicks"), Input("export-csv", "n_clicks"), Input("export-html", "n_clicks"),
                  Input("export-png", "n_clicks"), State("current", "data"), State("event", "data"), prevent_initial_call=True)
    @guard.client_data("current.data/event.data")
    def _export(_y, _c, _h, _p, current, event):
        record = shown(current, event)
        if record is None:
            return no_update, "nothing to export: the set-up is invalid"
        name = record["scenario"]["name"]
        which = dash.ctx.triggered_id
        if which == "export-yaml":
            return dcc.send_string(core.scenario_yaml(record["scenario"]), f"{name}.yaml"), f"wrote {name}.yaml"
        if which == "export-csv":
            return dcc.send_string(core.rows_csv(core.result_rows(record)), f"{name}.csv"), f"wrote {name}.csv"
        figures = _main_figures(record)
        if which == "export-html":
            html_text = charts_html(record["scenario"]["description"], list(figures.values()), core.result_rows(record))
            return dcc.send_string(html_text, f"{name}.html"), f"wrote {name}.html"
        try:
            with report.browser_slot("png"):
                data = charts_png_zip(figures)
        except InputError as exc:
            return no_update, exc.message
        except Exception as exc:  # kaleido needs a local Chrome/Chromium; say so, keep the server up
            log.exception("PNG export failed")  # its text names kaleido's and Chromium's files: the type only
            return no_update, (f"PNG export needs Chrome or Chromium for kaleido ({type(exc).__name__}: see the server log); "
                               "use the camera icon above each chart instead")
        return dcc.send_bytes(data, f"{name}-charts.zip"), f"wrote {name}-charts.zip"

    @app.callback(Output("download-compare", "data"), Output("compare-note", "children", allow_duplicate=True),
                  Input("export-compare-csv", "n_clicks"), Input("export-compare-html", "n_clicks"),
                  State("compare", "data"), State("sheets", "data"), prevent_initial_call=True)
    @guard.client_data("compare.data/sheets.data")
    def _export_compare(_c, _h, entries, sheets):
        if not entries:
            return no_update, "nothing to export: add set-ups first"
        rows = [row for e in entries for row in core.result_rows(e["record"], e["label"], first_only=True)]
        if dash.ctx.triggered_id == "export-compare-csv":
            return dcc.send_string(core.rows_csv(rows), "nvsim-comparison.csv"), "wrote nvsim-comparison.csv"
        figures = [compare_view.curves_figure(entries, session_catalog(catalog, sheets)), compare_figure(entries)]
        return (dcc.send_string(charts_html("nvsim: set-ups compared", figures, rows), "nvsim-comparison.html"),
                "wrote nvsim-comparison.html")


# ---------------------------------------------------------------- serving


class NvsimRequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler whose ``Server:`` header (and ``SERVER_SOFTWARE``) says "nvsim" only:
    Werkzeug's own names its version and the Python build. A subclass, so Werkzeug is left as it is."""

    server_version = "nvsim"
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version


class ServerThread:
    """The app on a werkzeug server in a background thread (tests, screenshots); ``stop()`` ends it."""

    def __init__(self, app: Dash, host: str = "127.0.0.1", port: int = 0):
        from werkzeug.serving import make_server

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
        self.app = app
        self._server = make_server(host, port, app.server, threaded=True, request_handler=NvsimRequestHandler)
        self.port = self._server.server_port
        self.url = f"http://{host}:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever, name="nvsim-dashboard", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(10)
        for name in ("nvsim_runner", "nvsim_plans"):
            runner = getattr(self.app, name, None)
            if runner is not None:
                runner.shutdown()


def check_address(host: str, port: int) -> None:
    """A bad --host/--port is one line naming the option (exit status 2), not a traceback."""
    if not 1 <= port <= 65535:
        raise InputError("--port", f"must be 1 to 65535, got {port}")
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((host, port))
    except socket.gaierror:
        raise InputError("--host", f"cannot resolve {host!r}") from None
    except OSError as exc:
        field = "--port" if exc.errno in (98, 48, 13) else "--host"  # in use / in use (macOS) / no permission
        raise InputError(field, f"cannot listen on {host}:{port}: {exc.strerror}") from None


WAITRESS_THREADS = 8
"""Request threads of waitress (the dashboard served beyond this machine); event runs go to their own worker."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host.lower() == "localhost"


def run(host: str = "127.0.0.1", port: int = 8050, debug: bool = False, allow_hosts: tuple[str, ...] = ()) -> None:
    """Serve the dashboard until interrupted (what ``nvsim dashboard`` calls): on a loopback address
    with Werkzeug's development server (this machine's user only), on any other with waitress, a
    production WSGI server (the ``dashboard`` extra; its absence is one line naming it). It answers
    requests for this machine's loopback names, ``host`` and ``allow_hosts`` (``--allow-host``) only."""
    allowed = AllowedHosts.served_on(host, [check_host_name(name) for name in allow_hosts])
    check_address(host, port)
    local = is_loopback(host)
    if not local:
        require_extra("waitress", "dashboard", "--host", f"serving the dashboard on {host} (beyond this machine)")
    serve_clients()  # no work check reads or names this server's environment for a client
    app = create_app(allowed_hosts=allowed)
    print(f"nvsim dashboard on http://{host}:{port}/ (Ctrl+C to stop)", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill`: leave serve_forever, stop the workers below
    try:
        if local:
            app.run(host=host, port=port, debug=debug, use_reloader=False, request_handler=NvsimRequestHandler)
        else:
            from waitress import serve  # only a dashboard served beyond this machine loads it

            serve(app.server, host=host, port=port, threads=WAITRESS_THREADS)
    finally:
        app.nvsim_runner.shutdown()
        app.nvsim_plans.shutdown()
