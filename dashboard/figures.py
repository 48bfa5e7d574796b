"""The dashboard's charts (Plotly figures from results records; nvsim itself never plots)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .core import fmt_count, latency_us

FONT = dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", size=12)
BLUE, GREY, RED, GREEN = "#1f5fa8", "#9aa5b1", "#c0392b", "#2e8b57"
SETUP_COLOURS = ("#1f5fa8", "#e67e22", "#2e8b57")


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0.01, font=dict(size=14)), template="plotly_white", font=FONT,
                      height=height, margin=dict(l=10, r=20, t=50, b=30), showlegend=False)
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
        return "4K random read"
    if rw == "randwrite" and bs == 4096:
        return "4K random write"
    return {"read": "sequential read", "write": "sequential write"}.get(rw or "")


def bounds_figure(bounds: list[dict[str, Any]], workload: dict[str, Any] | None) -> go.Figure:
    """The array's bounds (tightest component limit of each) with the prediction beside its bound."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("4 KiB random (IOPS, millions)", "sequential (GB/s)"),
                        horizontal_spacing=0.12)
    match = _matching_bound(workload) if workload else None
    for col, unit, scale in ((1, "IOPS", 1e6), (2, "B/s", 1e9)):
        chosen = [b for b in bounds if b["unit"] == unit]
        names = [b["metric"].replace("4K random ", "").replace("sequential ", "") for b in chosen]
        fig.add_trace(go.Bar(name="bound", x=names, y=[b["value"] / scale for b in chosen], marker_color=GREY,
                             customdata=[b["limited_by"] for b in chosen],
                             hovertemplate="bound %{y:.3g}: %{customdata}<extra></extra>",
                             text=[b["limited_by"] for b in chosen], textposition="inside", insidetextanchor="start",
                             textangle=-90, showlegend=(col == 1)), row=1, col=col)
        predicted = []
        for b in chosen:
            if workload and b["metric"] == match:
                value = workload.get("total_iops") if unit == "IOPS" else workload.get("total_bytes_per_s")
                predicted.append((value or 0.0) / scale)
            else:
                predicted.append(None)
        fig.add_trace(go.Bar(name="predicted", x=names, y=predicted, marker_color=BLUE, showlegend=(col == 1),
                             hovertemplate="predicted %{y:.3g}<extra></extra>"), row=1, col=col)
    fig.update_layout(barmode="group")
    note = "" if match else " (no bound for this workload)"
    fig = _layout(fig, f"Predicted vs bounds{note}", 360)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", y=-0.1, x=0), margin=dict(t=80))
    fig.update_annotations(yshift=6, font=dict(size=12))
    return fig


COMPARE_METRICS = (
    ("IOPS", lambda r, w: w.get("total_iops"), fmt_count),
    ("GB/s", lambda r, w: (w.get("total_bytes_per_s") or 0) / 1e9, lambda v: f"{v:.3g}"),
    ("latency p99 (µs; mean in fluid mode)", lambda r, w: latency_us(w, "p99") or latency_us(w, "mean"), lambda v: f"{v:,.0f}"),
    ("CPU (%)", lambda r, w: w.get("cpu_percent"), lambda v: f"{v:.1f}"),
    ("usable capacity (TB)", lambda r, w: r["capacity"]["usable_bytes"] / 1e12, lambda v: f"{v:.1f}"),
    ("drive lifetime (years)", lambda r, w: (w.get("wear") or {}).get("lifetime_years"), lambda v: f"{v:.3g}"),
)


def compare_figure(entries: list[dict[str, Any]]) -> go.Figure:
    """Side-by-side bars of the headline numbers of up to three set-ups (their first workload)."""
    if not entries:
        return empty_figure("no set-ups to compare yet: build one on the Set-up tab and press 'Add to comparison'")
    fig = make_subplots(rows=2, cols=3, subplot_titles=[m[0] for m in COMPARE_METRICS], vertical_spacing=0.16)
    for position, entry in enumerate(entries):
        letter = entry["label"].split(":", 1)[0]
        record = entry["record"]
        workload = record["workloads"][0]
        for index, (title, get, fmt) in enumerate(COMPARE_METRICS):
            row, col = divmod(index, 3)
            value = get(record, workload)
            fig.add_trace(go.Bar(x=[letter], y=[value], name=entry["label"],
                                 marker_color=SETUP_COLOURS[position % len(SETUP_COLOURS)],
                                 text=[fmt(value) if value is not None else "n/a"], textposition="auto",
                                 hovertemplate=f"{entry['label']}: %{{y:.4g}}<extra>{title}</extra>"), row=row + 1, col=col + 1)
    letters = ", ".join(e["label"].split(" (")[0] for e in entries)
    fig = _layout(fig, f"Set-ups side by side ({letters})", 620)
    fig.update_layout(margin=dict(t=80))
    return fig
