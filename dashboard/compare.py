"""The Compare view: the set-ups added from the Set-up tab (A to Z) as a table (product names,
price and power rows), every set-up's IOPS and latency against load on one chart, side-by-side
bars, and "Simulate all" (each set-up in turn in the event-mode worker, replacing its fluid
numbers with event-mode ones: percentiles, rebuild under load).

The records come back from the browser: every one is validated again (``parse_scenario``, its key,
the event budget) before it is simulated or drawn.
"""

from __future__ import annotations

import string
import time
from typing import Any

import dash
from dash import Dash, Input, Output, State, dcc, html, no_update

from nvsim import Catalog, InputError
from nvsim.units import format_significant

from . import core, curves, guard, views
from .datasheet import session_catalog
from .figures import compare_curves_figure, compare_figure
from .jobs import EventRunner, job_id_of

MAX_COMPARE = guard.MAX_COMPARE_ENTRIES
"""Set-ups the comparison holds (A to Z): as many as a meeting compares, a bounded browser store."""
CURVES_BUDGET_S = 12.0
"""Longest the comparison's curves may compute together; later set-ups are left out (said below the chart)."""
POLL_MS = 500


def pane() -> html.Div:
    """The comparison view: its actions, table, curves and bars."""
    return html.Div(className="compare", children=[
        html.Div(className="actions", children=[
            html.Span(id="compare-count", className="mode"),
            html.Button("Simulate all (event mode)", id="simulate-all", className="primary", n_clicks=0),
            html.Span(id="compare-sim-status", className="sim-status"),
            html.Button("Clear comparison", id="clear-compare", n_clicks=0),
            html.Span("Export:", className="export-label"),
            html.Button("comparison CSV", id="export-compare-csv", n_clicks=0),
            html.Button("charts HTML", id="export-compare-html", n_clicks=0),
            html.Span(id="compare-note", className="export-note"),
        ]),
        html.Div(id="compare-table"),
        dcc.Graph(id="compare-curves", config=views.GRAPH_CONFIG, figure=compare_curves_figure([])),
        html.Div(id="compare-curves-note", className="field-hint"),
        dcc.Graph(id="compare-graph", config=views.GRAPH_CONFIG, figure=compare_figure([])),
        dcc.Store(id="compare-job"), dcc.Interval(id="compare-poll", interval=POLL_MS, disabled=True),
    ])


def entry_label(letter: str, record: dict[str, Any], catalog: Catalog) -> str:
    """"A: 24x KIOXIA CM7-R 3.84 TB RAID6, Linux kernel md (mdadm) (randread-4k, fluid)"."""
    array = record["scenario"]["array"]
    names = core.record_names(record, catalog)
    return f"{letter}: {array['drives']}x {names['drive']} RAID{array['level']}, {names['engine']} ({record['workloads'][0]['name']}, {record['fidelity']})"


def _money(value: float) -> str:
    return f"${value:,.0f}"


def _three(value: float) -> str:
    """Three significant digits, never e-notation, as the report writes its figures (``.3g`` wrote
    an md rebuild of 1,490 h as "1.49e+03")."""
    return format_significant(value, 3)


TABLE_ROWS = (("server", "platform", str), ("engine", "engine", str), ("drives", "drives", lambda v: f"{v:.0f}"),
              ("drive", "drive", str), ("RAID level", "level", lambda v: f"RAID{v:.0f}"),
              ("strip", "strip_bytes", lambda v: core.strip_label(int(v))), ("namespace per drive", "namespace_bytes", core.fmt_bytes),
              ("workload", "workload", str), ("mode", "fidelity", str), ("IOPS", "total_iops", core.fmt_count),
              ("read GB/s", "read_bytes_per_s", lambda v: _three(v / 1e9)), ("write GB/s", "write_bytes_per_s", lambda v: _three(v / 1e9)),
              ("latency mean", "latency_mean_us", core.fmt_us), ("latency p99", "latency_p99_us", core.fmt_us),
              ("latency p99.9", "latency_p99_9_us", core.fmt_us), ("host cores busy %", "host_cores_busy_percent", lambda v: f"{v:.0f}"),
              ("hardware threads busy % (top)", "cpu_percent", lambda v: f"{v:.1f}"),
              ("usable capacity", "usable_bytes", core.fmt_bytes), ("price", "price_usd", _money),
              ("price per usable TB", "usd_per_usable_tb", _money), ("power at this load", "power_w", lambda v: f"{v:,.0f} W"),
              ("RAID WAF", "raid_waf", lambda v: f"{v:.2f}"), ("NAND WAF", "waf_nand", lambda v: f"{v:.2f}"),
              ("effective DWPD", "effective_dwpd", _three), ("drive lifetime", "lifetime_years", core.fmt_years),
              ("rebuild time (h)", "rebuild_hours", _three),
              ("data-loss risk per rebuild", "data_loss_probability", core.fmt_probability), ("limited by", "bottleneck", str))
"""The table's rows: (title, result_rows column, format); a missing value (no price in the catalog) reads n/a."""
NO_WRITES = ("raid_waf", "waf_nand", "lifetime_years")
"""Columns a workload without writes has no value in: "no writes", as the cards and the report say."""


def _cell(row: dict[str, Any], key: str, fmt) -> str:
    value = row.get(key)
    if value is None and key in NO_WRITES and row.get("write_bytes_per_s") == 0:
        return "no writes"
    return "n/a" if value is None else fmt(value)


def compare_table(entries: list[dict], catalog: Catalog) -> html.Table | html.Div:
    if not entries:
        return html.Div("No set-ups yet.", className="field-hint")
    rows = []
    for entry in entries:
        found = core.result_rows(entry["record"], entry["label"], first_only=True)
        rows.append((found[0] if found else {}) | core.record_names(entry["record"], catalog))
    body = []
    for title, key, fmt in TABLE_ROWS:
        cells = []
        for row in rows:
            value = row.get(key)
            cells.append(html.Td(_cell(row, key, fmt), **{"data-value": "" if value is None else repr(value)}))
        body.append(html.Tr([html.Th(title)] + cells, id=f"compare-row-{key}"))
    head = html.Thead(html.Tr([html.Th("")] + [html.Th(e["label"]) for e in entries]))
    return html.Table(className="table compare-table", id="compare-values", children=[head, html.Tbody(body)])


def curves_of(entries: list[dict], catalog: Catalog) -> tuple[list[tuple[str, dict]], str]:
    """Each set-up's load curve (fluid mode), within CURVES_BUDGET_S; and a note on any left out.
    The entries came back from the browser: each scenario must match its key and fit the served
    work budget (``views.checked_scenario``) before any is drawn, as the main view's record must."""
    scenarios = [views.checked_scenario(entry["record"], "compare.data") for entry in entries]
    start, out, left = time.perf_counter(), [], []
    for entry, scenario in zip(entries, scenarios):
        if time.perf_counter() - start > CURVES_BUDGET_S:
            left.append(entry["label"].split(":", 1)[0])
            continue
        try:
            out.append((entry["label"], curves.load_curve(scenario, catalog)))
        except (InputError, ValueError) as exc:
            left.append(f"{entry['label'].split(':', 1)[0]} ({str(exc).splitlines()[0]})")
    return out, (f"curves left out: {', '.join(left)}" if left else "")


def curves_figure(entries: list[dict], catalog: Catalog):
    """The chart of every set-up's curves (``curves_of``), its note on any left out in its title."""
    drawn, note = curves_of(entries, catalog)
    fig = compare_curves_figure(drawn)
    if note:
        fig.update_layout(title_text=f"{fig.layout.title.text} ({note})")
    return fig


def add_entry(current: dict | None, event: dict | None, entries: list[dict], catalog: Catalog) -> tuple:
    """(entries, add note) for the Add button."""
    record = core.shown(current, event)
    if record is None or not any("error" not in w for w in record["workloads"]):
        return no_update, "the set-up is invalid: nothing to add"
    if len(entries) >= MAX_COMPARE:
        return no_update, f"already {MAX_COMPARE} set-ups: clear the comparison first"
    label = entry_label(string.ascii_uppercase[len(entries)], record, catalog)
    return entries + [{"label": label, "record": record}], f"added {label}"


def _next_fluid(entries: list[dict], after: int = -1) -> int | None:
    return next((i for i, e in enumerate(entries) if i > after and e["record"].get("fidelity") != "event"), None)


def start_next(entries: list[dict], after: int, sheets, catalog: Catalog, runner: EventRunner,
               replaces: str | None = None) -> tuple[dict | None, str]:
    """Start the event-mode run of the next set-up still in fluid mode: (job or None, status);
    ``replaces``: the comparison's previous job, which gives way."""
    index = _next_fluid(entries, after)
    while index is not None:
        record = entries[index]["record"]
        refusal = views.event_refusal(record, session_catalog(catalog, sheets))
        if refusal is None:
            try:
                job_id = runner.start(record["key"], record["scenario"], sheets=sheets, replaces=replaces)
            except InputError as exc:
                return None, exc.message
            letter = entries[index]["label"].split(":", 1)[0]
            return {"id": job_id, "index": index, "key": record["key"]}, f"event mode: set-up {letter}…"
        index = _next_fluid(entries, index)
    return None, "every set-up is in event mode"


def finished(entries: list[dict], job: dict, status: dict, catalog: Catalog) -> list[dict]:
    """The entries with the finished job's event-mode numbers in place of its set-up's fluid ones."""
    index = job["index"]
    fluid = entries[index]["record"] if index < len(entries) else None
    if fluid is None or fluid.get("key") != job["key"]:
        return entries  # the comparison changed meanwhile
    record = core.shown(fluid, {"key": job["key"], "workloads": status["workloads"], "rebuild": status["rebuild"]})
    if record is None or not any("error" not in w for w in record["workloads"]):
        return entries
    letter = entries[index]["label"].split(":", 1)[0]
    out = list(entries)
    out[index] = {"label": entry_label(letter, record, catalog), "record": record}
    return out


def attach(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    """The comparison's callbacks: add and clear, draw, and simulate all."""
    @app.callback(Output("compare", "data"), Output("add-note", "children"), Output("compare-note", "children"),
                  Input("add-compare", "n_clicks"), Input("clear-compare", "n_clicks"),
                  State("current", "data"), State("event", "data"), State("compare", "data"), State("sheets", "data"),
                  prevent_initial_call=True)
    @guard.client_data("current.data/event.data/compare.data/sheets.data")
    def _compare(_add, _clear, current, event, entries, sheets):
        if dash.ctx.triggered_id == "clear-compare":
            return [], "", "cleared"
        added, note = add_entry(current, event, list(entries or []), session_catalog(catalog, sheets))
        return added, note, "" if added is not no_update else no_update

    @app.callback(Output("compare-table", "children"), Output("compare-graph", "figure"), Output("compare-count", "children"),
                  Input("compare", "data"), State("sheets", "data"))
    @guard.client_data("compare.data/sheets.data")
    def _render(entries, sheets):
        entries = entries or []
        return (compare_table(entries, session_catalog(catalog, sheets)), compare_figure(entries),
                f"{len(entries)} set-up{'s' if len(entries) != 1 else ''} (up to {MAX_COMPARE})")

    @app.callback(Output("compare-curves", "figure"), Output("compare-curves-note", "children"),
                  Input("compare", "data"), Input("tab", "data"), State("sheets", "data"))
    @guard.client_data("compare.data/sheets.data")
    def _curves(entries, tab, sheets):
        if tab != "compare":
            return no_update, no_update
        drawn, note = curves_of(entries or [], session_catalog(catalog, sheets))
        return compare_curves_figure(drawn), note

    _simulate_all_callbacks(app, catalog, runner)


def _simulate_all_callbacks(app: Dash, catalog: Catalog, runner: EventRunner) -> None:
    @app.callback(Output("compare-job", "data"), Output("compare-poll", "disabled"), Output("simulate-all", "disabled"),
                  Output("compare-sim-status", "children"),
                  Input("simulate-all", "n_clicks"), State("compare", "data"), State("sheets", "data"), State("compare-job", "data"),
                  prevent_initial_call=True)
    @guard.client_data("compare.data/sheets.data/compare-job.data")
    def _start(_clicks, entries, sheets, previous):
        job, text = start_next(entries or [], -1, sheets, catalog, runner, replaces=job_id_of(previous))
        return job, job is None, job is not None, text if entries else "add set-ups first"

    @app.callback(Output("compare", "data", allow_duplicate=True), Output("compare-job", "data", allow_duplicate=True),
                  Output("compare-poll", "disabled", allow_duplicate=True), Output("simulate-all", "disabled", allow_duplicate=True),
                  Output("compare-sim-status", "children", allow_duplicate=True),
                  Input("compare-poll", "n_intervals"), State("compare-job", "data"), State("compare", "data"), State("sheets", "data"),
                  prevent_initial_call=True)
    @guard.client_data("compare-job.data/compare.data/sheets.data")
    def _poll(_n, job, entries, sheets):
        status = runner.poll((job or {}).get("id"))
        if status["state"] == "unknown":  # a tick after the last run ended, or a job the server no longer holds (restarted)
            text = no_update if job is None else "stopped: the server no longer holds this run (Simulate all goes on from here)"
            return no_update, None, True, False, text
        if status["state"] == "running":
            return no_update, no_update, False, True, f"event mode: set-up {string.ascii_uppercase[job['index']]}, " \
                                                      f"{status['done']} of {status['total']} tasks, {status['elapsed_s']:.0f} s"
        entries = finished(entries or [], job, status, catalog)
        following, text = start_next(entries, job["index"], sheets, catalog, runner, replaces=job_id_of(job))
        return entries, following, following is None, following is not None, text
