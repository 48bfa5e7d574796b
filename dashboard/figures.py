"""The dashboard's charts (Plotly figures from results records; nvsim itself never plots)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from nvsim.bounds import RANDOM_READ, RANDOM_WRITE, SEQUENTIAL_MEMBER_IO_BYTES, SEQUENTIAL_READ, SEQUENTIAL_WRITE

from .core import fmt_count, host_cores_percent, latency_us

FONT = dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", size=12)
BLUE, GREY, RED, GREEN = "#1f5fa8", "#9aa5b1", "#c0392b", "#2e8b57"
LIGHT_GREY, INK = "#d5dbe3", "#1d2733"
BOUNDS_ROOM = 1.2
"""The bounds chart's axis reaches this far past its longest bar: room for the label after it."""
TOP_MARGIN_PX = 64
"""Room above the plot for the title and subplot titles; the toolbar stands vertical at the right
edge (GRAPH_CONFIG shows it on hover only), so it never covers a title."""
SETUP_COLOURS = ("#1f5fa8", "#e67e22", "#2e8b57", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#d4ac0d", "#2c3e50", "#e84393")


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0.01, y=0.99, yanchor="top", yref="container", font=dict(size=14)),
                      template="plotly_white", font=FONT, height=height, margin=dict(l=10, r=44, t=TOP_MARGIN_PX, b=30),
                      showlegend=False, modebar=dict(orientation="v", bgcolor="rgba(255,255,255,0.7)"))
    return fig


def empty_figure(message: str) -> go.Figure:
    """A blank chart carrying a one-line reason (invalid set-up, no data)."""
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper", font=dict(size=13))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _layout(fig, "", 260)


def utilisation_figure(workload: dict[str, Any]) -> go.Figure:
    """Busy share of every resource of the array for one workload; the busiest in red."""
    util = workload.get("utilisation") or {}
    if not util:
        return empty_figure("per-resource utilisation: n/a for a single drive (SSD model, no array simulator)")
    items = sorted(util.items(), key=lambda kv: kv[1])
    top = max(v for _, v in items)
    names = [k for k, _ in items]
    values = [100 * v for _, v in items]
    colours = [RED if v >= top - 1e-9 else BLUE for _, v in items]
    fig = go.Figure(go.Bar(x=values, y=names, orientation="h", marker_color=colours,
                           text=[f"{v:.0f}%" for v in values], textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}: %{x:.1f}% busy<extra></extra>"))
    fig.update_xaxes(range=[0, 112], title="utilisation (%)", ticksuffix="%")
    fig.update_yaxes(automargin=True)
    return _layout(fig, f"Utilisation of each resource ({workload.get('name')})", 90 + 34 * len(items))


def _matching_bound(workload: dict[str, Any]) -> str | None:
    """The array bound that speaks about this workload (4 KiB random or sequential), if any."""
    rw, bs = workload.get("rw"), workload.get("bs_bytes")
    if rw == "randread" and bs == 4096:
        return RANDOM_READ
    if rw == "randwrite" and bs == 4096:
        return RANDOM_WRITE
    return {"read": SEQUENTIAL_READ, "write": SEQUENTIAL_WRITE}.get(rw or "")


def bounds_figure(bounds: list[dict[str, Any]], workload: dict[str, Any] | None) -> go.Figure:
    """The array's bounds (tightest component limit of each, named beside its bar) with the
    prediction under its bound. Horizontal bars, dark text on light bars that runs on past a
    short bar: every label stays readable whatever the bar's length."""
    fig = make_subplots(rows=2, cols=1, subplot_titles=("4 KiB random (M IOPS)", f"{SEQUENTIAL_MEMBER_IO_BYTES // 1024} KiB sequential (GB/s)"),
                        vertical_spacing=0.2)
    match = _matching_bound(workload) if workload else None
    for row, unit, scale in ((1, "IOPS", 1e6), (2, "B/s", 1e9)):
        chosen = [b for b in bounds if b["unit"] == unit]
        names = [b["metric"].rsplit(" ", 1)[1] for b in chosen]  # "read" or "write": the subplot names the rest
        values = [b["value"] / scale for b in chosen]
        fig.add_trace(go.Bar(name="bound", y=names, x=values, orientation="h", marker_color=LIGHT_GREY,
                             text=[f"bound {v:.3g}: {b['limited_by']}" for v, b in zip(values, chosen)],
                             textposition="inside", insidetextanchor="start", constraintext="none",
                             textfont=dict(color=INK, size=11), cliponaxis=False, showlegend=(row == 1),
                             hovertemplate="bound %{x:.3g}: %{text}<extra></extra>"), row=row, col=1)
        predicted = []
        for b in chosen:
            value = None
            if workload and b["metric"] == match:
                value = (workload.get("total_iops") if unit == "IOPS" else workload.get("total_bytes_per_s")) or 0.0
            predicted.append(None if value is None else value / scale)
        fig.add_trace(go.Bar(name="predicted", y=names, x=predicted, orientation="h", marker_color=BLUE, showlegend=(row == 1),
                             text=[None if v is None else f"predicted {v:.3g}" for v in predicted], textposition="outside",
                             cliponaxis=False, textfont=dict(size=11), hovertemplate="predicted %{x:.3g}<extra></extra>"),
                      row=row, col=1)
        fig.update_yaxes(autorange="reversed", row=row, col=1)
        largest = max([v for v in values + predicted if v is not None] or [1.0])
        fig.update_xaxes(range=[0, BOUNDS_ROOM * largest], row=row, col=1)
    fig.update_layout(barmode="group", bargap=0.25)
    note = "" if match else " (no bound for this workload)"
    if match in (SEQUENTIAL_READ, SEQUENTIAL_WRITE) and workload.get("bs_bytes") != SEQUENTIAL_MEMBER_IO_BYTES:
        note = f" (the sequential bounds are of {SEQUENTIAL_MEMBER_IO_BYTES // 1024} KiB transfers: a larger one may pass them)"
    fig = _layout(fig, f"Predicted vs bounds{note}", 380)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.08, x=0))
    fig.update_annotations(font=dict(size=12), x=0, xanchor="left")
    return fig


COMPARE_METRICS = (
    ("IOPS", lambda r, w: w.get("total_iops"), fmt_count),
    ("throughput (GB/s)", lambda r, w: (w.get("total_bytes_per_s") or 0) / 1e9, lambda v: f"{v:.3g}"),
    ("latency p99 (µs, event mode)", lambda r, w: latency_us(w, "p99"), lambda v: f"{v:,.0f}"),
    ("latency mean (µs)", lambda r, w: latency_us(w, "mean"), lambda v: f"{v:,.0f}"),
    ("host cores busy (%)", lambda r, w: host_cores_percent(w), lambda v: f"{v:.0f}%"),
    ("usable capacity (TB)", lambda r, w: r["capacity"]["usable_bytes"] / 1e12, lambda v: f"{v:.1f}"),
    ("power at this load (W)", lambda r, w: (w.get("cost_power") or {}).get("power_w"), lambda v: f"{v:,.0f}"),
    ("price per usable TB ($)", lambda r, w: (w.get("cost_power") or {}).get("usd_per_usable_tb"), lambda v: f"{v:,.0f}"),
    ("drive lifetime (years)", lambda r, w: (w.get("wear") or {}).get("lifetime_years"), lambda v: f"{v:.3g}"),
)
"""The comparison's charts: each title says what its bars are (p99 only from event mode: a fluid
set-up shows n/a there, not its mean; host cores busy is the figure of the "limited by" line)."""


def setup_letter(entry: dict[str, Any]) -> str:
    return entry["label"].split(":", 1)[0]


def compare_figure(entries: list[dict[str, Any]]) -> go.Figure:
    """Side-by-side bars of the headline numbers of any number of set-ups (their first workload)."""
    if not entries:
        return empty_figure("no set-ups to compare yet: build one on the Set-up tab and press 'Add to comparison'")
    fig = make_subplots(rows=3, cols=3, subplot_titles=[m[0] for m in COMPARE_METRICS], vertical_spacing=0.12)
    for position, entry in enumerate(entries):
        record = entry["record"]
        workload = record["workloads"][0]
        for index, (title, get, fmt) in enumerate(COMPARE_METRICS):
            row, col = divmod(index, 3)
            value = get(record, workload)
            fig.add_trace(go.Bar(x=[setup_letter(entry)], y=[0 if value is None else value], name=entry["label"],
                                 marker_color=SETUP_COLOURS[position % len(SETUP_COLOURS)],
                                 text=[fmt(value) if value is not None else "n/a"], textposition="outside", cliponaxis=False,
                                 hovertemplate=f"{entry['label']}: %{{y:.4g}}<extra>{title}</extra>"), row=row + 1, col=col + 1)
    fig.update_yaxes(rangemode="tozero")
    fig = _layout(fig, f"{len(entries)} set-ups side by side (first workload of each)", 760)
    fig.update_layout(margin=dict(t=90))
    return fig


def _current_line(fig: go.Figure, x: float, rows: int) -> None:
    for row in range(1, rows + 1):
        fig.add_vline(x=x, line=dict(color=GREY, dash="dash"), row=row, col=1)


def load_figure(curve: dict[str, Any], event: list[dict[str, Any]] | None = None) -> go.Figure:
    """IOPS and latency against offered load (log axis): fluid mean, and event-mode p99 points when run."""
    points = curve.get("points") or []
    if not points:
        return empty_figure("no load curve: " + ("; ".join(curve.get("skipped") or []) or "fix the set-up"))
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=("IOPS", "latency (µs): fluid mean; p99 from an event-mode run"))
    xs = [p["x"] for p in points]
    hover = [p["bottleneck"] for p in points]
    fig.add_trace(go.Scatter(x=xs, y=[p["iops"] for p in points], mode="lines+markers", name="IOPS (fluid)", line_color=BLUE,
                             customdata=hover, hovertemplate="%{x}: %{y:.4s} IOPS, %{customdata}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(x=xs, y=[p["mean_us"] for p in points], mode="lines+markers", name="mean latency (fluid)",
                             line_color=BLUE, hovertemplate="%{x}: mean %{y:.4g} µs<extra></extra>"), row=2, col=1)
    if event:
        fig.add_trace(go.Scatter(x=[p["x"] for p in event], y=[p["p99_us"] for p in event], mode="lines+markers", name="p99 (event mode)",
                                 line=dict(color=RED), marker=dict(symbol="diamond", size=9),
                                 hovertemplate="%{x}: p99 %{y:.4g} µs<extra>event mode</extra>"), row=2, col=1)
        fig.add_trace(go.Scatter(x=[p["x"] for p in event], y=[p["iops"] for p in event], mode="markers", name="IOPS (event mode)",
                                 marker=dict(color=RED, symbol="diamond", size=9),
                                 hovertemplate="%{x}: %{y:.4s} IOPS<extra>event mode</extra>"), row=1, col=1)
    _current_line(fig, curve["current"], 2)
    fig.update_xaxes(type="log")
    fig.update_xaxes(title_text=curve.get("axis", ""), row=2, col=1)
    fig = _layout(fig, f"Against offered load ({curve.get('workload')}; dashed: this set-up)", 520)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.18, x=0))
    fig.update_annotations(font=dict(size=12), x=0, xanchor="left")
    return fig


def drive_figure(curve: dict[str, Any]) -> go.Figure:
    """IOPS and mean latency against the number of drives (fluid mode)."""
    points = curve.get("points") or []
    if not points:
        return empty_figure("no drive-count curve: " + ("; ".join(curve.get("skipped") or []) or "fix the set-up"))
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1, subplot_titles=("IOPS", "mean latency (µs, fluid)"))
    xs = [p["x"] for p in points]
    hover = [p["bottleneck"] for p in points]
    fig.add_trace(go.Scatter(x=xs, y=[p["iops"] for p in points], mode="lines+markers", line_color=GREEN, customdata=hover,
                             hovertemplate="%{x} drives: %{y:.4s} IOPS, %{customdata}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(x=xs, y=[p["mean_us"] for p in points], mode="lines+markers", line_color=GREEN,
                             hovertemplate="%{x} drives: mean %{y:.4g} µs<extra></extra>"), row=2, col=1)
    _current_line(fig, curve["current"], 2)
    fig.update_xaxes(title_text="drives", row=2, col=1)
    fig = _layout(fig, f"Against drive count ({curve.get('workload')}; dashed: this set-up)", 520)
    fig.update_annotations(font=dict(size=12), x=0, xanchor="left")
    return fig


def compare_curves_figure(curves: list[tuple[str, dict[str, Any]]]) -> go.Figure:
    """Every set-up's IOPS and mean latency against I/Os in flight (jobs x queue depth) on one
    chart, the view vendor calculators lead with: one colour per set-up, its own load marked."""
    drawn = [(label, curve) for label, curve in curves if curve.get("points")]
    if not drawn:
        return empty_figure("no curves yet: add set-ups on the Set-up tab")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=("IOPS", "mean latency (µs, fluid mode)"))
    for position, (label, curve) in enumerate(curves):
        points = curve.get("points") or []
        if not points:
            continue
        colour = SETUP_COLOURS[position % len(SETUP_COLOURS)]
        letter = label.split(":", 1)[0]
        xs = [p["x"] for p in points]
        fig.add_trace(go.Scatter(x=xs, y=[p["iops"] for p in points], mode="lines", name=label, legendgroup=letter,
                                 line=dict(color=colour), hovertemplate=f"{letter}: %{{x}} in flight, %{{y:.4s}} IOPS<extra></extra>"),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=xs, y=[p["mean_us"] for p in points], mode="lines", name=label, legendgroup=letter,
                                 showlegend=False, line=dict(color=colour),
                                 hovertemplate=f"{letter}: %{{x}} in flight, mean %{{y:.4g}} µs<extra></extra>"), row=2, col=1)
        own = next((p for p in points if p["x"] == curve.get("current")), None)
        if own is not None:
            for row, key in ((1, "iops"), (2, "mean_us")):
                fig.add_trace(go.Scatter(x=[own["x"]], y=[own[key]], mode="markers+text", text=[letter], textposition="top center",
                                         marker=dict(color=colour, size=9), showlegend=False, legendgroup=letter, cliponaxis=False,
                                         hoverinfo="skip"), row=row, col=1)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", row=2, col=1)
    fig.update_xaxes(title_text=drawn[0][1].get("axis", ""), row=2, col=1)
    fig = _layout(fig, "IOPS and latency against load, every set-up (lettered dot: the set-up's own load)", 640)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.14, x=0, yanchor="top"), margin=dict(b=40))
    fig.update_annotations(font=dict(size=12), x=0, xanchor="left")
    return fig
