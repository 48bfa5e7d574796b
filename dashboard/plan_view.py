"""The dashboard's Plan view: requirements in (YAML, as `nvsim plan` reads), ranked configurations
out -- the ranked table with margins, the rejected families and the Pareto front.

``attach(app)`` adds the view below the page and registers its one callback; the logic
(``plan_from_text``, ``ranked_table``, ``families_table``, ``pareto_figure``) is plain functions
tests/ui/test_plan_view.py calls without a browser. The plan runs in the server's process on one
worker (the same stages and numbers as `nvsim plan --workers 1`). The requirements are the
client's: a ``fio:`` job file (and the trace it replays) is one of the shipped examples
(``client_files.ClientFiles``), and ``${VAR}`` in it is not taken from the server's environment.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import plotly.graph_objects as go
from dash import Dash, Input, Output, State, dcc, html

from nvsim.errors import InputError
from nvsim.fio.expand import NO_ENVIRONMENT
from nvsim.plan import run_plan
from nvsim.plan.answer import performance
from nvsim.plan.output import si_text, stages_text
from nvsim.plan.spec import PlanSpec

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
"""The requirements the view opens with (a small search: seconds, not minutes)."""
MAX_TEXT_CHARS = 100_000
"""Longest requirements text the view takes (the CLI's loader bounds files the same way)."""


def layout() -> html.Details:
    """The view: a requirements editor, a button, the answer (status, tables, Pareto chart)."""
    return html.Details(id="plan-view", className="plan-view", children=[
        html.Summary("Plan: from requirements to ranked configurations"),
        dcc.Textarea(id="plan-text", value=EXAMPLE, className="plan-text", style={"width": "100%", "height": "18em"}),
        html.Button("Plan (filters, bounds, fluid, event)", id="plan-run", className="primary", n_clicks=0),
        html.Div(id="plan-status", className="field-error", role="status"),
        html.Div(id="plan-ranked"),
        dcc.Graph(id="plan-pareto", figure=go.Figure()),
        html.Div(id="plan-families"),
    ])


def plan_from_text(text: str, workers: int = 1) -> dict:
    """Run the plan in ``text``: {"error": one line} or {"result": the plan's JSON, "spec": PlanSpec}."""
    if len(text) > MAX_TEXT_CHARS:
        return {"error": f"requirements: {len(text):,} characters; the view takes at most {MAX_TEXT_CHARS:,}"}
    with tempfile.TemporaryDirectory(prefix="nvsim-plan-") as folder:
        path = Path(folder) / "plan.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            result = run_plan(path, workers=workers, open_file=ClientFiles(), environ=NO_ENVIRONMENT)
        except InputError as exc:
            return {"error": str(exc).replace(str(path), "requirements")}
    return {"result": result.as_dict(), "spec": result.spec}


def ranked_table(answer: dict, limit: int = 20) -> html.Table:
    """The ranked candidates: set-up, usable bytes, price, power, each workload's IOPS, margins."""
    rows = answer["ranked"][:limit]
    names = list(rows[0]["workloads"]) if rows else []
    rate = {n: ("bytes_per_s", "B/s") if any(k == f"{n} bytes/s" for k in rows[0]["margins"]) else ("iops", "IOPS") for n in names}
    head = ["rank", "set-up", "usable B", "price $", "power W", *(f"{n} {rate[n][1]}" for n in names), "margins", "event"]
    body = []
    for r in rows:
        margins = ", ".join(f"{k} {v:+.0%}" for k, v in r["margins"].items())
        cells = [r["rank"], f"{r['drives']}x {r['drive']} RAID{r['level']} {r['strip_bytes'] // 1024}K {r['engine']} {r['platform']}",
                 si_text(r["usable_bytes"]), si_text(r.get("price_usd")), si_text(r.get("power_w")),
                 *(si_text(r["workloads"][n][rate[n][0]]) for n in names), margins, r["event"]]
        body.append(html.Tr([html.Td(str(c)) for c in cells]))
    return html.Table(className="table", id="plan-ranked-table",
                      children=[html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)])


def families_table(answer: dict) -> html.Table:
    """Each family with no feasible candidate and why (the closest candidate's miss)."""
    body = [html.Tr([html.Td(f"{f['engine']} RAID{f['level']} {f['drive']}"), html.Td(f["stage"]),
                     html.Td(f["reason"].split(": ", 1)[1])]) for f in answer["rejected_families"]]
    return html.Table(className="table", id="plan-families-table",
                      children=[html.Thead(html.Tr([html.Th(h) for h in ("family", "stage", "why")])), html.Tbody(body)])


def pareto_figure(answer: dict, spec: PlanSpec) -> go.Figure:
    """Price against the least headroom over the targets, coloured by P(data loss); the front ringed."""
    front = set(answer["pareto_ranks"])
    ranked = answer["ranked"]
    figure = go.Figure()
    for on_front, name in ((False, "ranked"), (True, "Pareto front")):
        rows = [r for r in ranked if (r["rank"] in front) == on_front]
        figure.add_trace(go.Scatter(
            x=[r.get("price_usd") or r["objective"] for r in rows], y=[performance(r, spec.requirements.workloads) for r in rows],
            mode="markers", name=name, text=[f"#{r['rank']} {r['drives']}x {r['drive']} RAID{r['level']} {r['engine']}" for r in rows],
            marker={"size": 12 if on_front else 7, "color": [r.get("data_loss_probability") or 0.0 for r in rows],
                    "colorscale": "Viridis", "line": {"width": 2 if on_front else 0}}))
    figure.update_layout(xaxis_title="price (USD)", yaxis_title="least headroom over the targets (x)",
                         title="Price, performance and risk (colour: P(data loss))")
    return figure


def on_plan(text: str) -> tuple:
    """The callback's work: (status, ranked table, Pareto figure, families table)."""
    out = plan_from_text(text or "")
    if "error" in out:
        return f"error: {out['error']}", None, go.Figure(), None
    answer = out["result"]
    return stages_text(answer), ranked_table(answer), pareto_figure(answer, out["spec"]), families_table(answer)


def attach(app: Dash) -> None:
    """Register the Plan view's callback (its pane is the app's "plan" tab: dashboard/app.py TABS)."""

    @app.callback(Output("plan-status", "children"), Output("plan-ranked", "children"), Output("plan-pareto", "figure"),
                  Output("plan-families", "children"), Input("plan-run", "n_clicks"), State("plan-text", "value"),
                  prevent_initial_call=True)
    def _plan(_clicks, text):
        return on_plan(text)


__all__ = ["attach", "layout", "plan_from_text", "ranked_table", "families_table", "pareto_figure", "on_plan", "EXAMPLE"]
