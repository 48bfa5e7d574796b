"""The one-page report of a set-up: HTML (no JavaScript, prints on one A4 page) and PDF.

What it holds: the set-up, the predictions of every workload, what limits it, rebuild and risk,
cost and power, and the validation status of the models it uses -- every published number in
scenarios/*/published.yaml whose scenario uses the same drive, RAID engine or platform, re-predicted
now in fluid mode (``nvsim.validation.predict_metric``) against its tolerance, with the declared
reason of a known miss. Numbers that need event mode (latency percentiles) are listed as such;
docs/validation.md has their event-mode status.

The PDF is the HTML printed by headless Chromium (``--print-to-pdf``); without Chromium the PDF is
refused in one line (the HTML prints from any browser).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import json
import math
import re
from contextlib import contextmanager
from datetime import date as calendar_date
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from nvsim import Catalog, InputError, __version__, default_catalog, parse_scenario
from nvsim.errors import not_printable, shown
from nvsim.array_capacity import engine_stripes, layout_text
from nvsim.names import engine_label, product_name
from nvsim.report import TIMELINE_HEADERS, check_lines, timeline_rows
from nvsim.published import fitted_ids, load_published, published_files
from nvsim.rebuild import run_timeline, slot_words, unclean_shutdown_summary
from nvsim.states import ArrayState, data_loss_at_start
from nvsim.scenario import load_scenario
from nvsim.units import format_bytes_binary, format_large, format_probability, format_significant
from nvsim.simulation import EVENT_HOST_IOS, Precision, predict_workload
from nvsim.cost import cost_power
from nvsim.bounds import capacity
from nvsim.validation import Comparison, predict_metric

from . import core, curves
from .browser import CHROMIUM

MISSES_SHOWN, REASON_CHARS = 3, 170
"""The report keeps to one page: the first misses, each reason cut at a word."""
PDF_TIMEOUT_S = 60.0
"""Longest Chromium may take to print the report (it takes about a second)."""
STYLE = """
@page { size: A4; margin: 9mm; }
body { font: 9.5px/1.35 system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; color: #1d2733; margin: 0; }
h1 { font-size: 16px; margin: 0 0 2px; } h2 { font-size: 11.5px; margin: 6px 0 2px; color: #1f5fa8; }
.sub { color: #5b6878; margin-bottom: 6px; } .cols { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 1px solid #dde3ea; padding: 2px 4px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.fields { display: grid; grid-template-columns: repeat(4, 1fr); gap: 4px 10px; margin: 2px 0 6px; }
.fields b { color: #5b6878; font-weight: 600; margin-right: 4px; } svg.curve { width: 100%; height: auto; display: block; }
th { background: #eef2f6; font-weight: 600; } td.num { text-align: right; overflow-wrap: normal; }
.limit { font-size: 12px; margin: 4px 0; padding: 4px 6px; background: #fdf3e7; border-left: 3px solid #d35400; }
.bar { background: #e9eef4; height: 8px; width: 100%; } .bar > div { background: #1f5fa8; height: 8px; }
.bar > div.top { background: #c0392b; } .ok { color: #2e8b57; font-weight: 600; } .out { color: #b3261e; font-weight: 600; }
.foot { color: #6b7785; margin-top: 6px; font-size: 8.5px; }
.faults { font-size: 8px; line-height: 1.2; } .faults p { margin: 2px 0; }
"""


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset(), widths: tuple[int, ...] = ()) -> str:
    """A table; ``widths``: each column's share of the width (%), so that long names wrap and nothing is cut."""
    cells = "".join("<tr>" + "".join(f"<td class='num'>{c}</td>" if i in numeric else f"<td>{c}</td>"
                                     for i, c in enumerate(row)) + "</tr>" for row in rows)
    columns = "<colgroup>" + "".join(f"<col style='width: {w}%'>" for w in widths) + "</colgroup>" if widths else ""
    return f"<table>{columns}<tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>" + cells + "</table>"


def _pairs(rows: list[tuple[str, str]]) -> str:
    return "<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows) + "</table>"


def setup_rows(record: dict[str, Any], catalog: Catalog) -> list[tuple[str, str]]:
    array = record["scenario"]["array"]
    names = core.record_names(record, catalog)
    cap = record["capacity"]
    return [("server", names["platform"]), ("drives", f"{array['drives']} x {names['drive']}{_spares_words(array)}"),
            ("RAID engine", engine_label(catalog, array["engine"], array.get("engine_settings"))),
            ("RAID", layout_text(catalog, array["engine"], array.get("engine_settings"), array["level"],
                                 core.strip_label(int(array["strip_bytes"])))),
            ("namespace per drive", core.fmt_bytes(cap["member_bytes"])),
            ("usable capacity", f"{core.fmt_bytes(cap['usable_bytes'])} ({cap['efficiency']:.1%} of {core.fmt_bytes(cap['raw_bytes'])} raw)")]


def prediction_rows(record: dict[str, Any]) -> list[list[str]]:
    rows = []
    for w in record["workloads"]:
        if "error" in w:
            rows.append([escape(w["name"]), escape(w["error"])] + [""] * 6)
            continue
        cores = core.host_cores_percent(w)
        rate = core.fmt_count(w["total_iops"])
        latency = [core.fmt_us(core.latency_us(w, key)) for key in ("mean", "p99", "p99.9")]
        if w.get("transactions_per_s") is not None:  # an OLTP database: its transactions, and the I/Os they make
            rate = f"{core.fmt_count(w['transactions_per_s'])} TPS ({rate} IOPS)"
            per_tx = w.get("transaction_latency_us") or {}
            latency = [f"{core.fmt_us(per_tx.get(key))} per tx" if per_tx.get(key) is not None else "n/a"
                       for key in ("mean", "p99", "p99.9")]
        rows.append([escape(w["name"]), rate, core.fmt_gb_per_s(w["total_bytes_per_s"]), *latency,
                     "n/a" if cores is None else f"{cores:.0f} %", escape(w.get("bottleneck") or "")])
    return rows


NO_WORKLOAD_NOTE = "the scenario has no workload: an idle array"
REPORT_FIELD_CHARS = 120
"""Longest customer, project or date the report prints (the dashboard's fields take no more)."""
REPORT_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def checked_fields(customer: str, project: str, when: str) -> dict[str, str | None]:
    """The report's customer, project and date as ``report_html`` takes them, refused (one line
    naming the option) when one is not printable text of at most ``REPORT_FIELD_CHARS``, or the
    date is not a real YYYY-MM-DD date (``nvsim report``'s options)."""
    for option, text in (("--customer", customer), ("--project", project), ("--date", when)):
        if (why := not_printable(text)) is not None:
            raise InputError(option, why)
        if len(text) > REPORT_FIELD_CHARS:
            raise InputError(option, f"at most {REPORT_FIELD_CHARS} characters (what the page prints), got {len(text):,}")
    if when and not _real_date(when):
        raise InputError("--date", f"must be a date as YYYY-MM-DD (e.g. 2026-11-30), got {shown(when)}")
    return {"customer": customer, "project": project, "when": when or None}


def _real_date(text: str) -> bool:
    """Whether ``text`` is YYYY-MM-DD and a day of the calendar (not 2024-02-30)."""
    if not REPORT_DATE.fullmatch(text):
        return False
    try:
        calendar_date.fromisoformat(text)
    except ValueError:
        return False
    return True


def utilisation_html(workload: dict[str, Any]) -> str:
    util = sorted((workload.get("utilisation") or {}).items(), key=lambda kv: -kv[1])
    if not workload:
        return f"<p>per-resource utilisation: n/a ({NO_WORKLOAD_NOTE})</p>"
    if not util and str(workload.get("bottleneck") or "").startswith("DATA LOSS"):
        return "<p>per-resource utilisation: n/a (the array has lost data: no I/O completes)</p>"
    if not util:
        return "<p>per-resource utilisation: n/a (a single drive, answered by the SSD model)</p>"
    top = util[0][1]
    rows = [[escape(name), f"<div class='bar'><div class='{'top' if v >= top - 1e-9 else ''}' style='width:{min(100, 100 * v):.1f}%'></div></div>",
             f"{100 * v:.0f}%"] for name, v in util]
    return _table(["resource", "busy", ""], rows, {2}, (58, 30, 12))


def rebuilds(record: dict[str, Any], catalog: Catalog) -> tuple[dict[str, Any], dict[str, Any]]:
    """(idle, under the first workload) rebuild of the record's set-up: the record's own one and the
    other computed in fluid mode (``core.rebuild_info``; cached for the shipped catalog). A set-up
    with no workload has only its own, idle one."""
    own = record.get("rebuild") or {}
    if own.get("rebuild_hours") is None or not record["workloads"]:
        return own, own
    loaded = not own.get("under_load")
    data = record["scenario"]
    try:
        core.check_work(data)  # the record came back from the browser: its blocks within the work budget
        if catalog is default_catalog():
            other = json.loads(_rebuild_cached(json.dumps(data, sort_keys=True), loaded))
        else:
            other = core.rebuild_info(parse_scenario(data, catalog), catalog, under_load=loaded)
    except InputError as exc:
        other = {"na": str(exc)}
    return (own, other) if loaded else (other, own)


@lru_cache(maxsize=32)
def _rebuild_cached(data_json: str, under_load: bool) -> str:
    catalog = default_catalog()
    return json.dumps(core.rebuild_info(parse_scenario(json.loads(data_json), catalog), catalog, under_load=under_load))


def _rebuild_cells(rebuild: dict[str, Any]) -> list[str]:
    if rebuild.get("rebuild_hours") is None:
        return [escape(rebuild.get("na") or "not computed")] + [""] * 4
    risk, mttdl = rebuild.get("data_loss_probability"), rebuild.get("mttdl_years")
    return [f"{format_significant(rebuild['rebuild_hours'], 3)} h", core.fmt_gb_per_s((rebuild.get("rebuild_mb_per_s") or 0) * 1e6),
            escape(str(rebuild.get("rebuild_limited_by") or "")), "n/a" if risk is None else format_probability(risk),
            "n/a" if mttdl is None else f"{format_large(mttdl)} years"]


def scrub_html(record: dict[str, Any]) -> str:
    """The parity scrub's section where the set-up asks for one (``array.scrub``; ``core.scrub_info``):
    what it reads and where its parity runs, its time idle and under the first workload, what
    limits it, the host's rate meanwhile; "" otherwise."""
    scrub = record.get("scrub")
    if not scrub:
        return ""
    if scrub.get("idle_hours") is None:
        return "<h2>Parity scrub (check)</h2>" + _pairs([("scrub", scrub.get("na") or "not computed")])
    rows = [("reads / computes / writes", f"{scrub.get('reads')}; parity on {scrub.get('parity_on')}; writes "
                                          f"{'the member' if scrub.get('writes_member') else 'nothing'}"),
            ("scrub time, idle", f"{format_significant(scrub['idle_hours'], 3)} h "
                                 f"({scrub.get('idle_mb_per_s') or 0:,.0f} MB/s per drive; {scrub.get('idle_limited_by') or ''})")]
    if scrub.get("loaded_hours") is not None:
        share = scrub.get("host_share")
        rows += [(f"scrub time, under {scrub.get('workload', '')}",
                  f"{format_significant(scrub['loaded_hours'], 3)} h ({scrub.get('loaded_mb_per_s') or 0:,.0f} MB/s per "
                  f"drive; {scrub.get('loaded_limited_by') or ''})"),
                 ("host IOPS during / optimal (state solver)", f"{core.fmt_count(scrub.get('host_iops_during'))} / "
                                                f"{core.fmt_count(scrub.get('host_iops_optimal'))}"
                                                + ("" if share is None else f" ({100 * share:.0f} %)"))]
    return "<h2>Parity scrub (check; fluid mode)</h2>" + _pairs(rows)


def resync_info(record: dict[str, Any], catalog: Catalog) -> dict[str, Any] | None:
    """md's resync after an unclean shutdown where the set-up asks for one (``array.unclean_shutdown``):
    ``nvsim.rebuild.unclean_shutdown_summary`` of the record's scenario, as ``nvsim run`` writes it
    under ``resilience.unclean_shutdown`` (fluid mode); {"na": reason} where it cannot be computed;
    None otherwise."""
    data = record.get("scenario") or {}
    if not (data.get("array") or {}).get("unclean_shutdown"):
        return None
    try:
        return unclean_shutdown_summary(parse_scenario(data, catalog), catalog)
    except InputError as exc:
        return {"na": str(exc)}


def _hours(value: float | None) -> str:
    return "n/a" if value is None else f"{format_significant(value, 3)} h"


def _resync_time(resync: dict[str, Any], name: str) -> str:
    """The resync's time ``name`` ("idle", "loaded"), its rate per drive and what limits it."""
    rate, limit = resync.get(f"{name}_mb_per_s"), resync.get(f"{name}_limited_by")
    if rate is None and not limit:  # nothing to resync: no rate was solved
        return _hours(resync.get(f"{name}_hours")) + ("" if resync.get("span_bytes") else " (nothing to resync)")
    return f"{_hours(resync.get(f'{name}_hours'))} ({rate or 0:,.0f} MB/s per drive; {limit or ''})"


def resync_html(record: dict[str, Any], catalog: Catalog) -> str:
    """The resync after an unclean shutdown where the set-up asks for one (``resync_info``), as
    ``nvsim run`` prints it: the workload at the crash and its write rate, the write-intent bitmap
    and its dirty chunks (or every member whole without one), the span of each member resynced,
    its time idle and under the workload with what limits each, the host's IOPS during it against
    without it; "" otherwise."""
    resync = resync_info(record, catalog)
    if resync is None:
        return ""
    heading = "<h2>Resync after an unclean shutdown (fluid mode)</h2>"
    if "na" in resync:
        return heading + _pairs([("resync", resync["na"] or "not computed")])
    if resync.get("bitmap") not in (None, "none"):
        chunk = resync.get("bitmap_chunk_bytes")
        bitmap = (f"{resync['bitmap']}, {'n/a' if chunk is None else format_bytes_binary(chunk, 0)} chunks: "
                  f"{resync.get('dirty_chunks') or 0:,.0f} dirty of the {resync.get('chunks') or 0:,.0f} the writes touch")
    else:
        bitmap = str(resync.get("why") or "")
    rows = [("power lost under", f"{resync.get('workload_at_crash', '')} "
                                 f"({resync.get('write_iops_at_crash') or 0:,.0f} writes/s)"),
            ("write-intent bitmap" if "bitmap" in resync else "what it covers", bitmap),
            ("resynced of each member", core.fmt_bytes(resync.get("span_bytes"))),
            ("resync time, idle", _resync_time(resync, "idle"))]
    if resync.get("loaded_hours") is not None:
        rows.append((f"resync time, under {resync.get('workload') or resync.get('workload_at_crash', '')}",
                     _resync_time(resync, "loaded")))
    if resync.get("host_iops_during") is not None:
        share = resync.get("host_share")
        rows.append(("host IOPS during the resync / without it (state solver)",
                     f"{core.fmt_count(resync['host_iops_during'])} / {core.fmt_count(resync.get('host_iops_optimal'))}"
                     + ("" if share is None else f" ({100 * share:.0f} %)")))
    return heading + _pairs(rows)


def fault_state(record: dict[str, Any], catalog: Catalog) -> tuple[str, dict[str, Any] | None]:
    """What the predictions are of, in words, where the scenario has faults (``scenario.faults``):
    the state its faults at 0 s leave (``ArrayState.at_start``: degraded, rebuilding, or data
    lost), and its fault timeline under the first workload (``nvsim.run_timeline``, as ``nvsim
    run`` prints it); ("", None) without faults."""
    spec = parse_scenario(record["scenario"], catalog)
    if not spec.faults:
        return "", None
    state = ArrayState.at_start(spec)
    loss = data_loss_at_start(spec, catalog)
    if loss is not None:
        words = f"data lost at 0 s: {loss.detail}" + ("; no I/O completes" if loss.stops_io else "")
    elif state.rebuilding is not None:
        words = f"rebuilding member {state.rebuilding} at 0 s (missing: {list(state.missing)})"
    elif state.missing:
        words = f"degraded at 0 s: member(s) {list(state.missing)} missing, no spare"
    else:
        words = "optimal at 0 s; the faults come later (the timeline below)"
    workload = spec.workloads[0] if spec.workloads else None
    return words, run_timeline(spec, workload, catalog).as_dict()


def faults_html(record: dict[str, Any], catalog: Catalog) -> str:
    """The array's state the predictions are of and its fault timeline, where it has faults."""
    words, timeline = fault_state(record, catalog)
    if timeline is None:
        return ""
    rows = [[escape(cell) for cell in row] for row in timeline_rows(timeline)]  # nvsim run's columns
    limits = [row[-1] for row in rows]
    for i in range(1, len(rows)):  # a rebuild's steps repeat their limit: said once, to keep the page one page
        if limits[i] and limits[i] == limits[i - 1]:
            rows[i][-1] = "as above"
    loss = timeline.get("data_loss")
    lost = "" if not loss else (f"<p><b>Data loss at {loss['at_s']:,.0f} s</b>: {escape(loss['detail'])}; "
                                f"{loss['stripes_lost']:,} stripes, {loss['bytes_lost'] / 1e9:,.1f} GB</p>")
    checks = "".join(f"<p>{escape(line)}</p>" for line in check_lines(timeline))  # a refused or stopped scrub too
    return (f"<h2>Faults (the predictions are of the array as its faults leave it at 0 s)</h2><div class='faults'>"
            f"<p>Array state: <b>{escape(words)}</b></p>"
            + _table(list(TIMELINE_HEADERS), rows, {0, 1, 4, 5, 6, 7}, (7, 7, 10, 8, 8, 10, 6, 8, 36))
            + f"<p>Fault timeline under {escape(timeline['workload'] or 'no load')} (fluid mode).</p>" + checks + lost
            + "</div>")


def _slot_words(record: dict[str, Any]) -> str:
    """How the failed drive's slot is filled (``nvsim.rebuild.slot_words``) from a record the
    browser sent back: numbers only, anything else as none."""
    array = record.get("scenario", {}).get("array", {})
    spares, hours = (value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
                     for value in (array.get("hot_spares"), array.get("replace_hours")))
    return slot_words(spares, hours)


def rebuild_html(record: dict[str, Any], catalog: Catalog) -> str:
    """Rebuild of one failed drive onto a spare, on an idle array and under the first workload, side by side."""
    idle, loaded = rebuilds(record, catalog)
    if idle.get("rebuild_hours") is None and loaded.get("rebuild_hours") is None:
        return _pairs([("rebuild", idle.get("na") or "not computed")])
    labels = ("rebuild time", "rebuild speed", "limited by", "data loss per rebuild", "MTTDL")
    if not record["workloads"]:  # an idle scenario: its one rebuild is the idle one
        return _table(["", "idle array"], [[escape(label), a] for label, a in zip(labels, _rebuild_cells(idle))],
                      widths=(16, 84))
    workload = next((w["name"] for w in record["workloads"] if "error" not in w), "the first workload")
    columns = list(zip(_rebuild_cells(idle), _rebuild_cells(loaded)))
    rows = [[escape(label), a, b] for label, (a, b) in zip(labels, columns)]
    return _table(["", "idle array", f"under {workload}"], rows, widths=(16, 42, 42))


CURVE_W, CURVE_H, CURVE_PAD, CURVE_RIGHT = 340, 104, 30, 44
"""The report's small curve (SVG user units): width, height, and the room for its axis labels
left and right (the latency labels: "1.25 ms" fits)."""


def _polyline(points: list[tuple[float, float]], colour: str, dashed: bool = False) -> str:
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dash = " stroke-dasharray='4 3'" if dashed else ""
    return f"<polyline fill='none' stroke='{colour}' stroke-width='1.6'{dash} points='{coords}'/>"


def curve_svg(record: dict[str, Any], catalog: Catalog) -> str:
    """IOPS (solid) and mean latency (dashed) of the first workload against I/Os in flight, as a
    small inline SVG (``dashboard.curves.load_curve``, fluid mode); "" when there is no curve."""
    try:
        curve = curves.load_curve(record["scenario"], catalog)
    except (InputError, ValueError) as exc:
        return _no_curve(str(exc).split(": ", 1)[-1])
    points = [p for p in curve["points"] if p.get("mean_us")]
    if len(points) < 2:
        return _no_curve(curve.get("note") or "the fluid mode gives no mean latency for this set-up's loads")
    xs = [math.log(p["x"]) for p in points]
    top_iops, lat = max(p["iops"] for p in points), [math.log(p["mean_us"]) for p in points]
    width, height = CURVE_W - CURVE_PAD - CURVE_RIGHT, CURVE_H - CURVE_PAD + 8

    def at(x: float, share: float) -> tuple[float, float]:
        return CURVE_PAD + width * (x - xs[0]) / (xs[-1] - xs[0] or 1), 8 + (height - 8) * (1 - share)

    iops = [at(x, p["iops"] / top_iops) for x, p in zip(xs, points)]
    span = (max(lat) - min(lat)) or 1
    latency = [at(x, (v - min(lat)) / span) for x, v in zip(xs, lat)]
    own = next((at(x, p["iops"] / top_iops) for x, p in zip(xs, points) if p["x"] == curve["current"]), None)
    labels = [f"<text x='{CURVE_PAD - 3}' y='14' text-anchor='end' fill='#1f5fa8'>{core.fmt_count(top_iops)}</text>",
              f"<text x='{CURVE_PAD - 3}' y='{height}' text-anchor='end' fill='#1f5fa8'>0</text>",
              f"<text x='{CURVE_W - CURVE_RIGHT + 3}' y='14' fill='#d35400'>{core.fmt_us(points[lat.index(max(lat))]['mean_us'])}</text>",
              f"<text x='{CURVE_W - CURVE_RIGHT + 3}' y='{height}' fill='#d35400'>{core.fmt_us(points[lat.index(min(lat))]['mean_us'])}</text>",
              f"<text x='{CURVE_PAD}' y='{CURVE_H - 4}'>{points[0]['x']:,}</text>",
              f"<text x='{CURVE_W - CURVE_RIGHT}' y='{CURVE_H - 4}' text-anchor='end'>{points[-1]['x']:,}</text>",
              f"<text x='{(CURVE_W + CURVE_PAD - CURVE_RIGHT) / 2}' y='{CURVE_H - 4}' text-anchor='middle'>{escape(curve['axis'])}</text>"]
    marker = "" if own is None else f"<circle cx='{own[0]:.1f}' cy='{own[1]:.1f}' r='3' fill='#1f5fa8'/>"
    cut = (f"<div class='note'>{escape(curve['note'])} (the curve's time budget; the dot marks the set-up's load only "
           f"where it was reached)</div>") if curve.get("note") else ""
    return (f"<svg class='curve' viewBox='0 0 {CURVE_W} {CURVE_H}' font-size='8' fill='#5b6878' role='img' "
            f"aria-label='IOPS and mean latency against load'>"
            f"<rect x='{CURVE_PAD}' y='8' width='{width}' height='{height - 8}' fill='none' stroke='#dde3ea'/>"
            + _polyline(iops, "#1f5fa8") + _polyline(latency, "#d35400", dashed=True) + marker + "".join(labels) + "</svg>"
            f"<div class='sub'>{escape(curve['workload'])}: IOPS (solid) and mean latency (dashed, log scale) against load; "
            "the dot: this set-up's load. Fluid mode.</div>" + cut)


def _no_curve(why: str) -> str:
    """The curve's place when there is none: why, in one line (the heading stood over nothing)."""
    return f"<p>curve: n/a ({escape(why)})</p>"


def idle_cost(record: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """The cost and wear figures of a set-up with no workload (an idle array), in a workload's
    shape (``cost_rows``): its price, what a usable TB costs, its idle power and the drives' rated
    DWPD. The report printed "n/a" for all of them where ``nvsim run`` prints the price and watts."""
    try:
        spec = parse_scenario(record.get("scenario") or {}, catalog)
    except InputError:
        return {}
    cost = cost_power(catalog, spec, capacity(spec, catalog).usable_bytes, None)
    return {"cost_power": cost, "wear": {"effective_dwpd": 0.0, "rated_dwpd": cost.get("rated_dwpd") or 0,
                                         "lifetime_years": cost.get("drive_lifetime_years")}}


def cost_rows(workload: dict[str, Any], missing: str | None = None) -> list[tuple[str, str]]:
    """Price, power and what they buy; ``missing``: the parts without a price, by product name
    (default: as ``nvsim.cost`` names them)."""
    cost = workload.get("cost_power") or {}
    missing = cost.get("price_missing") if missing is None else missing
    wear = workload.get("wear") or {}
    dollars = (lambda v, d=0: "n/a" if v is None else f"${v:,.{d}f}")
    return [("price", dollars(cost.get("price_usd")) + (f" (no price for {missing})" if missing else "")),
            ("power at this load", "n/a" if cost.get("power_w") is None else f"{cost['power_w']:,.0f} W"),
            ("per usable TB", dollars(cost.get("usd_per_usable_tb"))), ("per 1K IOPS", dollars(cost.get("usd_per_kiops"), 2)),
            ("per GB/s", dollars(cost.get("usd_per_gb_per_s"))),
            ("endurance", f"effective {format_significant(wear.get('effective_dwpd') or 0, 3)} DWPD of {wear.get('rated_dwpd', 0):g} rated; "
                          f"drive lifetime {core.fmt_years(wear.get('lifetime_years'))}")]


@lru_cache(maxsize=1)
def _published() -> tuple[tuple[str, Any, str], ...]:
    """(scenario directory, number, scenario file) of every published number, as nvsim reads them."""
    return tuple((path.parent.name, number, str(path.parent / number.scenario))
                 for path in published_files() for number in load_published(path).numbers)


@lru_cache(maxsize=64)
def _scenario(path: str):
    return load_scenario(Path(path), default_catalog())


@lru_cache(maxsize=256)
def _fluid_metrics(path: str, workload: str) -> dict[str, Any]:
    spec = _scenario(path)
    chosen = next(w for w in spec.workloads if w.name == workload)
    return dict(predict_workload(spec, chosen, default_catalog(), "fluid"))


def _models(spec) -> dict[str, str]:
    return {"drive": spec.array.drive, "engine": spec.array.engine, "platform": spec.platform}


@lru_cache(maxsize=32)
def validation_status(drive: str, engine: str, platform: str) -> tuple[dict[str, Any], ...]:
    """Every published number whose scenario uses this drive, engine or platform, re-predicted in
    fluid mode: {"models", "id", "metric", "published", "predicted", "status", "reason", "fitted"}."""
    ours = {"drive": drive, "engine": engine, "platform": platform}
    fitted = fitted_ids()
    out = []
    for directory, number, path in _published():
        spec = _scenario(path)
        shared = [kind for kind, name in _models(spec).items() if ours[kind] == name]
        if not shared:
            continue
        if number.workload is None:
            predicted = predict_metric(spec, None, number.metric, default_catalog())
        else:
            value = _fluid_metrics(path, number.workload).get(number.metric)
            predicted = None if value is None else float(value)
        c = Comparison(directory, number, predicted, f"{directory}/{number.id}" in fitted, number.known_miss or "")
        status = "event mode only" if predicted is None and number.workload is not None else c.status
        out.append({"models": shared, "id": f"{directory}/{number.id}", "metric": number.metric, "unit": number.unit,
                    "published": c.published, "predicted": predicted, "error": c.error, "status": status,
                    "fitted": c.fitted, "reason": c.reason})
    return tuple(out)


def _short(text: str) -> str:
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS].rsplit(" ", 1)[0] + " …"


VALIDATION_ORDER = ("engine", "drive", "platform")
"""The chosen engine's validation status first: what a RAID-engine report is asked about."""


def validation_html(record: dict[str, Any], catalog: Catalog) -> str:
    """The summary line per model (the engine first) and the numbers of the chosen engine's own
    scenarios that miss, with their declared reasons (another engine's misses are not this set-up's)."""
    data = record["scenario"]
    array = data["array"]
    ours = {"drive": array["drive"], "engine": array["engine"], "platform": data["platform"]}
    rows = validation_status(ours["drive"], ours["engine"], ours["platform"])
    found = bool(_published())  # absent published files are "not found", never "no number uses it"
    sections = {"drive": "drives", "engine": "engines", "platform": "platforms"}
    lines = []
    for kind in VALIDATION_ORDER:
        mine = [r for r in rows if kind in r["models"]]
        ok = sum(r["status"] == "ok" for r in mine)
        out = [r for r in mine if r["status"] == "OUT"]
        event = sum(r["status"] == "event mode only" for r in mine)
        text = (f"{len(mine)} published numbers: <span class='ok'>{ok} within tolerance</span>, "
                f"<span class='out'>{len(out)} outside</span>, {event} event mode only" if mine
                else "no published number uses it: its figures are predictions only" if found
                else "not found: this install's published numbers could not be found, so its validation status is unknown")
        lines.append([escape(kind), escape(product_name(catalog, sections[kind], ours[kind])), text])
    misses = [[escape(r["id"]), f"{format_significant(100 * r['error'], 3)}%" if r["error"] is not None and r["unit"] != "percent"
               else "", escape(_short(r["reason"] or "no reason declared"))]
              for r in sorted(rows, key=lambda r: -len(r["models"])) if r["status"] == "OUT" and "engine" in r["models"]]
    table = _table(["model", "product", "published numbers re-predicted now (fluid mode)"], lines, widths=(10, 40, 50))
    if not found:  # no path: the report is also the dashboard's, whose server's folders are not its client's to see
        table += ("<p>Published numbers not found: this install has no scenarios/*/published.yaml "
                  "(<code>nvsim validate</code> on the machine says where it looked).</p>")
    if misses:
        table += "<p>Outside tolerance, in this engine's scenarios:</p>" + _table(
            ["number", "error", "why (declared in published.yaml)"], misses[:MISSES_SHOWN], widths=(30, 8, 62))
        if len(misses) > MISSES_SHOWN:
            table += f"<p>and {len(misses) - MISSES_SHOWN} more: docs/validation.md lists every number with its reason.</p>"
    return table


def title(record: dict[str, Any], catalog: Catalog) -> str:
    """The report's title: the set-up in product names ("24 x KIOXIA CM7-R 3.84 TB, RAID6, Graid ...")."""
    array = record["scenario"]["array"]
    names = core.record_names(record, catalog)
    striped = engine_stripes(catalog, array["engine"], array.get("engine_settings"))
    if not striped:  # no RAID level to name: engine none, a card's pass-through
        return f"{array['drives']} x {names['drive']}, {names['engine']} (drives used directly)"
    return f"{array['drives']} x {names['drive']}{_spares_words(array)}, RAID{array['level']}, {names['engine']}"


def _spares_words(array: dict[str, Any]) -> str:
    """' + 1 hot spare' where the array has hot spares (numbers only, from a record the browser may
    have sent back): the price counted them and the rebuild heading named them, the title did not."""
    spares = array.get("hot_spares")
    if not isinstance(spares, int) or isinstance(spares, bool) or spares <= 0:
        return ""
    return f" + {spares} hot spare{'s' if spares > 1 else ''}"


def fields_html(customer: str, project: str, when: str, mode: str, seed: Any = None) -> str:
    """The report's customer, project and date (blank ones say so, for writing in on paper), and
    the model: nvsim's version, the mode and the scenario's seed (the event mode's draws)."""
    cells = (("Customer", customer), ("Project", project), ("Date", when))
    seeded = f", seed {seed}" if isinstance(seed, int) and not isinstance(seed, bool) else ""
    return "<div class='fields'>" + "".join(f"<div><b>{k}</b>{escape(v.strip()) or '________________'}</div>" for k, v in cells) \
        + f"<div><b>Model</b>nvsim {escape(__version__)}, {mode}{seeded}</div></div>"


def report_html(record: dict[str, Any], catalog: Catalog | None = None, *, customer: str = "", project: str = "",
                when: str | None = None, faults: bool = False) -> str:
    """The one-page report of a results record (``core.evaluate`` / ``core.compute``), for
    ``customer`` and ``project`` on date ``when`` (default today, ISO 8601). ``faults``: a
    scenario file's faults (``nvsim report``): the state they leave and their timeline
    (``faults_html``). The dashboard holds no faults (``core.check_held``) and passes False, so a
    record a client sends back cannot ask the server for a timeline of up to 1,024 events."""
    catalog = catalog or default_catalog()
    workload = next((w for w in record["workloads"] if "error" not in w), {})
    mode = "event mode" if record.get("fidelity") == "event" else "fluid mode (mean latency)"
    body = [f"<h1>{escape(title(record, catalog))}</h1>", fields_html(customer, project, when or calendar_date.today().isoformat(), mode,
                                                                  record["scenario"].get("seed")),
            f"<div class='limit'>Limited by: <b>{escape(workload.get('bottleneck') or 'n/a')}</b> "
            f"({escape(workload.get('name', '') if workload else NO_WORKLOAD_NOTE)})</div>",
            "<div class='cols'><div><h2>Set-up</h2>", _pairs(setup_rows(record, catalog)),
            f"<h2>Cost and power{escape(' at ' + workload['name']) if workload else ' (idle)'}</h2>",
            _pairs(cost_rows(workload or idle_cost(record, catalog), core.missing_prices(record, workload, catalog))),
            "</div><div><h2>Against load</h2>", curve_svg(record, catalog),
            "<h2>Where the time goes</h2>", utilisation_html(workload), "</div></div>",
            faults_html(record, catalog) if faults else "",
            f"<h2>Rebuild and risk (one failed drive, {escape(_slot_words(record))})</h2>", rebuild_html(record, catalog),
            scrub_html(record),
            resync_html(record, catalog),
            "<h2>Predictions</h2>", _table(["workload", "IOPS", "throughput", "latency mean", "p99", "p99.9", "host cores busy", "limited by"],
                                            prediction_rows(record), {1, 2, 3, 4, 5, 6}, (18, 8, 9, 9, 8, 8, 9, 31)),
            "<h2>Validation status of the models used (the RAID engine first)</h2>", validation_html(record, catalog),
            "<div class='foot'>Every catalog figure is cited (docs/catalog.md); published numbers and their sources: "
            "scenarios/*/published.yaml, docs/validation.md. Percentiles need event mode (nvsim run, or Simulate in the dashboard).</div>"]
    return ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>nvsim report: {escape(title(record, catalog))}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>")


def pdf_missing() -> str | None:
    """Why the PDF cannot be printed here, or None."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"the PDF needs Chromium ({CHROMIUM} not found; set CHROMIUM): save the HTML report and print it from a browser"
    return None


BROWSER_PRINTS_AT_ONCE = 2
"""Headless browsers a server runs at once for exports (the report's PDF, the charts' PNG): each is a
Chromium of a few hundred MB; a request beyond these is refused in one line, not queued."""
_BROWSER_SLOTS = threading.BoundedSemaphore(BROWSER_PRINTS_AT_ONCE)


@contextmanager
def browser_slot(field: str):
    """One of the server's ``BROWSER_PRINTS_AT_ONCE`` browser exports, or an InputError naming ``field``."""
    if not _BROWSER_SLOTS.acquire(blocking=False):
        raise InputError(field, f"{BROWSER_PRINTS_AT_ONCE} exports are being printed on this server; "
                                "try again when they are done")
    try:
        yield
    finally:
        _BROWSER_SLOTS.release()


def report_pdf(html_text: str, when: str | None = None) -> bytes:
    """The report printed by headless Chromium, dated ``when`` (the date it prints, YYYY-MM-DD; else
    today: ``dated``); an InputError (one line) without it, or while the server prints
    ``BROWSER_PRINTS_AT_ONCE`` others. Chromium's home is the temporary folder too: it writes its
    crash-report settings and dconf cache under $HOME, not only its profile."""
    reason = pdf_missing()
    if reason:
        raise InputError("pdf", reason)
    with browser_slot("pdf"), tempfile.TemporaryDirectory(prefix="nvsim-report-") as folder:
        source, target = Path(folder) / "report.html", Path(folder) / "report.pdf"
        source.write_text(html_text, encoding="utf-8")
        command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                   f"--user-data-dir={Path(folder) / 'profile'}", "--no-pdf-header-footer", f"--print-to-pdf={target}",
                   source.as_uri()]
        home = {"HOME": folder, "XDG_CONFIG_HOME": str(Path(folder) / "config"), "XDG_CACHE_HOME": str(Path(folder) / "cache")}
        try:
            subprocess.run(command, capture_output=True, timeout=PDF_TIMEOUT_S, check=False, env={**os.environ, **home})
        except subprocess.TimeoutExpired:
            raise InputError("pdf", f"Chromium did not print the report within {PDF_TIMEOUT_S:g} s") from None
        if not target.is_file() or target.stat().st_size == 0:
            raise InputError("pdf", "Chromium printed no PDF")
        return dated(target.read_bytes(), when if when and _real_date(when) else calendar_date.today().isoformat())


PDF_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9]{14}[-+Z][0-9']*\)")
"""A PDF's creation or modification date as Chromium writes it (``D:YYYYMMDDHHmmSS+HH'mm'``)."""


def dated(pdf: bytes, when: str) -> bytes:
    """``pdf`` with its creation and modification dates the report's date ``when`` (YYYY-MM-DD) at
    midnight UTC: Chromium writes the second it printed, so the same report printed twice differed
    in those bytes. A date of another length is left as it is (the cross-reference table counts
    bytes)."""
    day = when.replace("-", "").encode()

    def stamp(found: re.Match) -> bytes:
        text = b"/%s (D:%s000000+00'00')" % (found.group(1), day)
        return text if len(text) == len(found.group(0)) else found.group(0)

    return PDF_DATE.sub(stamp, pdf)


def scenario_record(path: str | Path, catalog: Catalog | None = None, fidelity: str = "fluid",
                    precision: Precision | None = None) -> dict[str, Any]:
    """The results record of a scenario file (``nvsim report``), its event mode that of ``nvsim run``:
    ``EVENT_HOST_IOS`` host I/Os a workload, then as long as ``precision`` asks (``nvsim run``'s
    --precision and --max-seconds), so the report and the run of a scenario give the same numbers
    (the dashboard's own event mode measures fewer, ``core.EVENT_HOST_IOS``, to answer in seconds)."""
    catalog = catalog or default_catalog()
    spec = load_scenario(path, catalog)
    if spec.volumes:  # one page, one array: its price and watts counted every volume's drives
        raise InputError("volumes", f"the one-page report shows one array; {path} has {len(spec.volumes) + 1} (volumes: "
                                    f"{', '.join(v.name for v in spec.volumes)}); `nvsim run` predicts them together")
    # every field, defaults included: the report names the set-up from this dict (engine, strip,
    # level), and a field left at its default is still part of the set-up (md is the default engine)
    data = spec.model_dump(mode="json")
    return core.evaluate(data, parse_scenario(data, catalog), catalog, fidelity, EVENT_HOST_IOS, precision=precision)
