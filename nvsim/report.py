"""Text and JSON renderings of results (no plotting here: the dashboard and notebooks plot).

Every table is laid out for the console's width (nvsim.cli: the terminal's, or COLUMNS, or 100
columns when the output is a file or a pipe): numbers are never cut or folded. A table too wide for
the width is transposed (its rows become columns) and split into as many pieces as it takes; the
unit of every numeric column is in its header (M IOPS, GB/s, µs) and no cell uses e-notation.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .array_capacity import layout_text
from .bounds import BoundsReport
from .names import engine_label, product_name
from .simulation import Result
from .topology import has_card
from .specs import ScenarioSpec
from .units import (column_scale, format_bytes_binary, format_bytes_decimal, format_large, format_probability,
                    format_significant, format_value)

if TYPE_CHECKING:  # a name for the annotation only: `nvsim run` does not load validation (its workers, published files)
    from .validation import Comparison

TEXT_MIN_WIDTH = 12  # the narrowest a column of words is squeezed to (its words wrap, and fold if longer)
TABLE_OVERHEAD_PER_COLUMN = 3  # rich's default box: one space of padding each side and one rule
MISSING = "-"


def hours_text(value: float | None) -> str:
    """A time in hours as every table of nvsim writes it: three significant digits ("0.0485 h",
    "5.58 h", "1,235 h"), as the one-page report does; None ``MISSING``. (Two decimals wrote a 1.3 s
    rebuild as "0.00 h" and a resync of 0.0485 h and one of 0.0518 h both as "0.05 h".)"""
    return MISSING if value is None else f"{format_significant(value, 3)} h"


@dataclass(frozen=True)
class Grid:
    """A table to print: a header per column (the first column labels the rows), which columns hold
    numbers (kept whole on one line), and the rows of cell text."""

    title: str
    headers: tuple[str, ...]
    numeric: tuple[bool, ...]
    rows: tuple[tuple[str, ...], ...]


NAME_PART = re.compile(r"[^-_/\s]+[-_/]*|[-_/]+")
"""A piece of a name a line may end after: up to and with its '-', '_' or '/' (randread-|b4k-|j192-|d32)."""


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def _longest_part(text: str) -> int:
    return max((cell_len(part) for part in NAME_PART.findall(text)), default=0)


def _break_names(text: str, width: int) -> str:
    """``text`` with each word wider than ``width`` broken into lines after its '-', '_' or '/', so a
    name wraps at its parts, never mid-token (rich folds only a part still wider than ``width``)."""
    words = []
    for word in text.split(" "):
        lines = [""]
        for part in NAME_PART.findall(word) if cell_len(word) > width else [word]:
            if lines[-1] and cell_len(lines[-1] + part) > width:
                lines.append("")
            lines[-1] += part
        words.append("\n".join(lines))
    return " ".join(words)


def _allocate(natural: list[int], minimum: list[int], available: int, numeric: list[bool] | None = None) -> list[int] | None:
    """Column widths no wider than ``natural`` and no narrower than ``minimum`` whose table fits
    ``available`` cells; None if none fits. Number columns give way first (their headers wrap),
    then the widest column of words, one cell at a time."""
    budget = available - TABLE_OVERHEAD_PER_COLUMN * len(natural) - 1
    if sum(minimum) > budget:
        return None
    widths, numeric = list(natural), numeric or [True] * len(natural)
    for stage in ((True,), (True, False)):
        while sum(widths) > budget:
            squeezable = [j for j in range(len(widths)) if widths[j] > minimum[j] and numeric[j] in stage]
            if not squeezable:
                break
            widths[max(squeezable, key=lambda j: widths[j])] -= 1
    return widths


def _column_widths(headers, numeric, columns) -> tuple[list[int], list[int]]:
    """Natural and smallest widths of each column: a number column never narrower than its widest
    number (or its header's longest word); a text column down to TEXT_MIN_WIDTH, or to the longest
    part of a name in it (``_break_names``) where that is wider."""
    natural, minimum = [], []
    for header, is_number, cells in zip(headers, numeric, columns):
        widest = max([cell_len(c) for c in cells] + [cell_len(header) if is_number else _longest_word(header)])
        natural.append(widest)
        parts = max([_longest_part(c) for c in cells] + [_longest_part(header)])
        floor = max([cell_len(c) for c in cells] + [_longest_word(header)]) if is_number \
            else min(widest, max(TEXT_MIN_WIDTH, parts))
        minimum.append(floor)
    return natural, minimum


def _table(title: str, headers, widths, numeric_cells, rows) -> Table:
    """A rich table with fixed column widths; cells flagged as numbers do not wrap, names wrap at
    their parts (``_break_names``). Titles, headers and cells are plain text: no markup, no
    highlighting of the digits inside names."""
    table = Table(title=Text(title))
    for i, (header, width) in enumerate(zip(headers, widths)):
        table.add_column(Text(_break_names(header, width), overflow="fold"), width=width, overflow="fold",
                         justify="right" if any(numeric_cells(r, i) for r in range(len(rows))) else "left")
    for r, row in enumerate(rows):
        table.add_row(*(Text(cell, no_wrap=True, overflow="fold") if numeric_cells(r, c) else Text(_break_names(cell, widths[c]), overflow="fold")
                        for c, cell in enumerate(row)))
    return table


def print_grid(console: Console, grid: Grid) -> None:
    """Print ``grid`` as it is if it fits the console, else transposed in as many pieces as needed."""
    columns = list(zip(*grid.rows)) if grid.rows else [()] * len(grid.headers)
    natural, minimum = _column_widths(grid.headers, grid.numeric, columns)
    widths = _allocate(natural, minimum, console.width, list(grid.numeric))
    if widths is not None or not grid.rows:
        widths = widths or natural
        console.print(_table(grid.title, grid.headers, widths, lambda r, c: grid.numeric[c], grid.rows))
        return
    _print_transposed(console, grid)


def _print_transposed(console: Console, grid: Grid) -> None:
    """Rows become columns (headed by each row's label), split into pieces that fit the width."""
    labels = list(grid.headers[1:])
    data = [row[1:] for row in grid.rows]
    numeric = grid.numeric[1:]
    label_natural = max(cell_len(label) for label in labels)
    label_min = min(label_natural, TEXT_MIN_WIDTH)
    column_min = [max([cell_len(c) for c, n in zip(row, numeric) if n] + [TEXT_MIN_WIDTH if not all(numeric) else 1])
                  for row in data]
    column_natural = [max(max(cell_len(c) for c in row), _longest_word(grid.rows[i][0]), column_min[i])
                      for i, row in enumerate(data)]
    start = 0
    while start < len(data):
        end = start + 1
        while end < len(data) and _allocate([label_natural] + column_natural[start:end + 1],
                                            [label_min] + column_min[start:end + 1], console.width):
            end += 1
        widths = _allocate([label_natural] + column_natural[start:end], [label_min] + column_min[start:end],
                           console.width) or [label_natural] + column_natural[start:end]
        headers = [grid.headers[0]] + [row[0] for row in grid.rows[start:end]]
        rows = [[label] + [data[j][i] for j in range(start, end)] for i, label in enumerate(labels)]
        suffix = "" if start == 0 and end == len(data) else f" ({start + 1}-{end} of {len(data)})"
        console.print(_table(grid.title + suffix, headers, widths, lambda r, c: c > 0 and numeric[r], rows))
        start = end


def print_bounds(console: Console, scenario: ScenarioSpec, report: BoundsReport, catalog=None) -> None:
    """The set-up in one line (product names from ``catalog``; its names without one), its usable
    capacity and the upper bounds of its components."""
    array = scenario.array
    cap = report.capacity

    def name(section: str, key: str) -> str:
        return key if catalog is None else product_name(catalog, section, key)

    def layout(array) -> str:
        strip = format_bytes_binary(array.strip_bytes)
        if catalog is None:
            return f"RAID{array.level}, strip {strip}"
        return layout_text(catalog, array.engine, array.engine_settings, array.level, strip)

    console.print(f"[bold]{escape(scenario.name)}[/bold]: {escape(scenario.description)}", markup=True)
    console.print(
        f"{array.drives} x {name('drives', array.drive)}, {layout(array)}, "
        f"engine {name('engines', array.engine) if catalog is None else engine_label(catalog, array.engine, array.engine_settings)}, platform {name('platforms', scenario.platform)}", markup=False, highlight=False
    )
    console.print(
        f"Usable capacity: [bold]{format_bytes_decimal(cap.usable_bytes)}[/bold] ({format_bytes_binary(cap.usable_bytes)}) "
        f"of {format_bytes_decimal(cap.raw_bytes)} raw ({cap.efficiency:.1%})", markup=True
    )
    rows = []
    for bound in report.bounds:
        nxt = bound.limits[1] if len(bound.limits) > 1 else None
        unit = "IOPS" if bound.unit == "IOPS" else "B/s"
        factor, header = column_scale([bound.value] + ([nxt.value] if nxt else []), unit)
        rows.append((bound.metric, f"{format_significant(bound.value / factor)} {header}", bound.limited_by,
                     f"{format_significant(nxt.value / factor)} {header}" if nxt else MISSING,
                     nxt.component if nxt else MISSING))
    # each under its canonical job over the whole array at the drives' steady state: a job of a small
    # region writes at a lower NAND WAF and may pass the random-write bound (docs/getting-started.md)
    print_grid(console, Grid("Upper bounds of canonical jobs over the whole array (drives, links, RAID level, engine device)",
                             ("metric", "bound", "limited by", "next bound", "next limit"),
                             (False, True, False, True, False), tuple(rows)))


def print_validation(console: Console, comparisons: list[Comparison]) -> None:
    rows = []
    for c in comparisons:
        err = c.error
        if err is None:
            err_text = MISSING
        elif c.number.tolerance.absolute is not None:
            err_text = f"{err:+.1f} pp"
        else:
            err_text = f"{100 * err:+.1f}%"
        rows.append((f"{c.scenario_dir}/{c.number.id}", c.number.metric, _plain(c.published, c.number.unit),
                     _plain(c.predicted, c.number.unit), err_text, "fitted" if c.fitted else "predicted", c.status))
    print_grid(console, Grid("Published vs predicted", ("scenario", "metric", "published", "predicted", "error", "fitted", "status"),
                             (False, False, True, True, True, False, False), tuple(rows)))


def _plain(value: float | None, unit: str) -> str:
    """A validation value with its unit, in a form without e-notation."""
    if value is None:
        return MISSING
    if unit in ("B/s", "bytes", "IOPS", "percent"):
        return format_value(value, unit)
    return f"{format_significant(value)} {unit}".strip()


# (metric key, unit kind, header before the unit): a column whose cells are all missing is left out
PREDICTION_COLUMNS = (("read_iops", "IOPS", "read"), ("write_iops", "IOPS", "write"), ("trim_iops", "IOPS", "trim"),
                      ("read_bytes_per_s", "B/s", "read"), ("write_bytes_per_s", "B/s", "write"),
                      ("transactions_per_s", "TPS", ""),
                      ("read_latency_mean_us", "us", "mean read"), ("write_latency_mean_us", "us", "mean write"),
                      ("read_latency_p99_us", "us", "p99 read"), ("write_latency_p99_us", "us", "p99 write"),
                      ("read_latency_p99_99_us", "us", "p99.99 read"), ("write_latency_p99_99_us", "us", "p99.99 write"),
                      ("transaction_latency_mean_us", "us", "mean transaction"),
                      ("cpu_percent", "percent", "CPU"), ("raid_waf", "ratio", "RAID WAF"), ("waf_nand", "ratio", "NAND WAF"),
                      ("rebuild_bytes_per_s", "B/s", "rebuild"))


def _number(value) -> float | None:
    return None if value is None or isinstance(value, str) or value != value else float(value)


def prediction_columns(predictions: dict[str, dict | None]) -> list[tuple[str, list[str]]]:
    """Each shown column of the predictions table: its header (with its unit) and its cells, one per
    workload in order; columns with no value at all are left out."""
    out = []
    for key, unit, name in PREDICTION_COLUMNS:
        values = [_number(v.get(key)) if v else None for v in predictions.values()]
        if all(v is None for v in values):
            continue
        if unit in ("IOPS", "B/s", "TPS"):
            factor, unit_header = column_scale(values, unit)
            cells = [MISSING if v is None else format_significant(v / factor) for v in values]
        elif unit == "us":
            unit_header, cells = "µs", [MISSING if v is None else format_significant(v) for v in values]
        elif unit == "percent":
            unit_header, cells = "%", [MISSING if v is None else f"{v:,.1f}" for v in values]
        else:
            unit_header, cells = "", [MISSING if v is None else f"{v:,.2f}" for v in values]
        out.append((f"{name} {unit_header}".strip(), cells))
    return out


def print_predictions(console: Console, predictions: dict[str, dict[str, float] | None]) -> None:
    """Per-workload predicted metrics, then what limits each; workloads nvsim does not model yet say so."""
    columns = prediction_columns(predictions)
    rows = tuple((workload, *(cells[i] for _, cells in columns)) for i, workload in enumerate(predictions))
    print_grid(console, Grid("Predicted steady state per workload", ("workload", *(h for h, _ in columns)),
                             (False,) + (True,) * len(columns), rows))
    for workload, values in predictions.items():
        why = "not modelled yet" if values is None else values.get("limited_by", "")
        console.print(f"  {workload}: limited by {why}")


FALLBACK_REASONS = {"fluid": "the event mode simulates fio jobs (on a degraded or rebuilding array too); an OLTP "
                             "database is solved on the queueing network: rates and mean latency, no percentiles",
                    "drive model": "one drive used directly is the SSD model's steady state: rates, no latency"}
"""Why a workload asked for in the event mode was solved another way, by the fidelity it got."""


def fallback_note(asked: str, results: dict[str, Result]) -> str | None:
    """The headline note of a run whose workloads did not all get the mode asked for (None: all did)."""
    other = {name: r.fidelity for name, r in results.items() if r.fidelity != asked}
    if asked != "event" or not other:
        return None
    parts = [f"{', '.join(n for n, f in other.items() if f == mode)} ran in the {mode} mode "
             f"({FALLBACK_REASONS.get(mode, 'its route has no event mode')})" for mode in dict.fromkeys(other.values())]
    return f"note: event mode asked for; {len(other)} of {len(results)} workloads did not get it: " + "; ".join(parts)


def print_utilisation(console: Console, workload: str, result: Result) -> None:
    """Every resource's utilisation for one simulated workload, the limiting one first."""
    rows = tuple((u.resource, f"{100 * u.utilisation:.0f}") for u in sorted(result.utilisation, key=lambda u: -u.utilisation))
    print_grid(console, Grid(f"{workload}: limited by {result.bottleneck} ({result.fidelity} mode)",
                             ("resource", "utilisation %"), (False, True), rows))


def _rebuild_rows(r: dict) -> list[tuple[str, str]]:
    rows = [("rebuild time", hours_text(r['rebuild_hours'])), ("rebuild speed", f"{r['rebuild_mb_per_s']:,.0f} MB/s"),
            ("rebuild limited by", str(r.get("rebuild_limited_by", "")))]
    if r.get("rebuild_raid_waf") is not None:
        rows += [("rebuild RAID WAF (member bytes written / byte rebuilt)", f"{r['rebuild_raid_waf']:.2f}"),
                 ("rebuild NAND WAF (new member's sequential fill)", f"{r['rebuild_waf_nand']:.2f}")]
    if r.get("rebuild_member_waf_nand") is not None:
        rows += [("new member's NAND WAF (the fill and the host writes it takes meanwhile)",
                  f"{r['rebuild_member_waf_nand']:.2f}")]
    if r.get("replace_hours"):
        rows.insert(0, ("wait for a replacement (array.replace_hours)", hours_text(r['replace_hours'])))
    window = "the wait and the rebuild" if r.get("replace_hours") else "the rebuild"
    return rows + [(f"P(data loss during {window})", format_probability(r["data_loss_probability"])),
                   ("  from more drive failures", format_probability(r["p_another_failure"])),
                   ("  from unrecoverable read errors", format_probability(r["p_unrecoverable_read"]))]


def print_volumes(console: Console, together, catalog=None) -> None:
    """The array and its volumes run at once (``nvsim.volumes``): each one's rates, latency and
    limit, and how busy the resources they share are (engines by product name, given ``catalog``)."""
    def engine(name: str) -> str:
        return name if catalog is None else product_name(catalog, "engines", name)

    def watts(value) -> str:
        return MISSING if value is None else f"{value:,.0f}"

    def card(run) -> str:  # md and VROC hang from no card
        return f" card {run.card}" if catalog is None or has_card(catalog, run.engine) else ""

    rows = tuple((run.volume, run.workload, f"{engine(run.engine)}{card(run)}", f"{run.read_iops + run.write_iops:,.0f}",
                  f"{(run.read_bytes_per_s + run.write_bytes_per_s) / 1e6:,.0f}", f"{run.mean_latency_us:,.1f}",
                  f"{run.limited_by} at {100 * run.utilisation:.0f}%", f"{run.cpu_percent:.1f}",
                  watts(run.power_drives_w)) for run in together.runs)
    print_grid(console, Grid("Volumes run together (fluid mode)", ("volume", "workload", "engine", "IOPS", "MB/s",
                                                                    "mean latency us", "limited by", "CPU %", "drives W"),
                             (False, False, False, True, True, True, False, True, True), rows))
    shared = tuple((label, f"{100 * busy:.0f}") for label, busy in together.shared)
    print_grid(console, Grid("Resources the volumes share", ("resource", "utilisation %"), (False, True), shared))
    power = getattr(together, "power", None)
    if power and power.get("power_w") is not None:
        console.print(f"Server power with every volume running: {power['power_w']:,.0f} W (drives "
                      f"{power['power_drives_w']:,.0f} W, cards {power['power_engine_w']:,.0f} W, server "
                      f"{power['power_platform_w']:,.0f} W, switches {power['power_switches_w']:,.0f} W)",
                      markup=False, highlight=False)
    for line in getattr(together, "warnings", ()):
        console.print(f"warning: {line}", markup=False, highlight=False)


def print_resilience(console: Console, resilience: dict) -> None:
    """Rebuild time, data-loss risk and MTTDL; the fault timeline when the scenario has one."""
    r = resilience["if_one_drive_fails"]
    if r.get("rebuild_hours") is None:
        rows = [("data loss", r.get("note", "no redundancy"))]
    else:
        rows = _rebuild_rows(r)
    rows.append(("MTTDL (Markov)", f"{format_large(r['mttdl_years'])} years"))
    title = ("If one drive fails (no redundancy)" if r.get("rebuild_hours") is None else  # nothing is rebuilt
             f"If one drive fails ({r.get('replacement', 'onto a hot spare')}; under {r.get('workload', 'idle')}; fluid mode)")
    print_grid(console, Grid(title, ("quantity", "value"), (False, False), tuple(rows)))
    if resilience.get("scrub"):
        _print_scrub(console, resilience["scrub"])
    if resilience.get("unclean_shutdown"):
        _print_unclean_shutdown(console, resilience["unclean_shutdown"])
    timeline = resilience.get("timeline")
    if timeline:
        _print_timeline(console, timeline)


def _print_scrub(console: Console, scrub: dict) -> None:
    """The parity scrub (``array.scrub``): its time idle and under load, what limits it, the host's rate meanwhile."""
    rows = [("reads / computes / writes", f"{scrub['protocol']['reads']}; parity on {scrub['protocol']['parity_on']}; "
             f"writes {'the member' if scrub['protocol']['writes_member'] else 'nothing'}"),
            ("scrub time, idle", f"{hours_text(scrub['idle_hours'])} ({scrub['idle_mb_per_s']:,.0f} MB/s per member)"),
            ("limited by, idle", scrub["idle_limited_by"])]
    if "loaded_hours" in scrub:
        rows += [(f"scrub time, under {scrub['workload']}", f"{hours_text(scrub['loaded_hours'])} "
                  f"({scrub['loaded_mb_per_s']:,.0f} MB/s per member)"),
                 ("limited by, under load", scrub["loaded_limited_by"]),
                 ("host IOPS during / optimal", f"{scrub['host_iops_during']:,.0f} / {scrub['host_iops_optimal']:,.0f}")]
    print_grid(console, Grid("Parity scrub (check; fluid mode)", ("quantity", "value"), (False, False), tuple(rows)))


def _print_unclean_shutdown(console: Console, resync: dict) -> None:
    """md's resync after an unclean shutdown (``array.unclean_shutdown``): what it covers and why,
    its time idle and under the workload, the host's rate meanwhile."""
    rows = [("power lost under", f"{resync['workload_at_crash']} ({resync['write_iops_at_crash']:,.0f} writes/s)"),
            ("resynced of each member", f"{resync['span_bytes'] / 1e9:,.1f} GB: {resync['why']}"),
            ("resync time, idle", hours_text(resync.get("idle_hours")))]
    if resync.get("idle_limited_by"):
        rows.append(("limited by, idle", resync["idle_limited_by"]))
    if resync.get("loaded_limited_by"):
        rows += [(f"resync time, under {resync['workload']}", hours_text(resync.get("loaded_hours"))),
                 ("limited by, under load", resync["loaded_limited_by"]),
                 ("host IOPS during / optimal", f"{resync['host_iops_during']:,.0f} / {resync['host_iops_optimal']:,.0f}")]
    print_grid(console, Grid("Resync after an unclean shutdown (fluid mode)", ("quantity", "value"), (False, False),
                             tuple(rows)))


TIMELINE_HEADERS = ("from s", "to s", "state", "missing", "rebuilding", "foreground IOPS", "TPS", "sync MB/s", "limited by")
"""The fault timeline's columns (``timeline_rows``), as ``nvsim run`` prints them and the one-page report."""


def timeline_rows(timeline: dict) -> list[tuple[str, ...]]:
    """The fault timeline's segments (``Timeline.as_dict``) as text, one per ``TIMELINE_HEADERS``:
    an open end, an absent rate or no rebuild is ``MISSING``."""
    def count(value) -> str:
        return MISSING if value is None or not math.isfinite(value) else f"{value:,.0f}"

    return [(count(seg["start_s"]), count(seg["end_s"]), seg["state"], str(list(seg["missing"])),
             MISSING if seg["rebuilding"] is None else str(seg["rebuilding"]), count(seg["foreground_iops"]),
             count(seg["transactions_per_s"]), f"{seg['rebuild_bytes_per_s'] / 1e6:,.0f}", seg["limited_by"])
            for seg in timeline["segments"]]


def check_lines(timeline: dict) -> list[str]:
    """The timeline's parity checks (``Timeline.as_dict``'s ``checks``), a line each, as ``nvsim
    run`` prints them and the one-page report."""
    return [f"Parity check from {check['start_s']:,.0f} s: {check['outcome']}"
            + ("" if check["end_s"] is None else f" at {check['end_s']:,.0f} s")
            + f", {check['bytes_checked'] / 1e9:,.1f} GB of each member checked"
            for check in timeline.get("checks", ())]


def _print_timeline(console: Console, timeline: dict) -> None:
    print_grid(console, Grid(f"Fault timeline under {timeline['workload'] or 'no load'}", TIMELINE_HEADERS,
                             (True, True, False, False, True, True, True, True, False), tuple(timeline_rows(timeline))))
    for line in check_lines(timeline):
        console.print(line)
    loss = timeline.get("data_loss")
    if loss:
        console.print(f"DATA LOSS at {loss['at_s']:,.0f} s: {loss['detail']}; {loss['stripes_lost']:,} stripes, "
                      f"{loss['bytes_lost'] / 1e9:,.1f} GB")


def _dollars(value: float | None) -> str:
    return MISSING if value is None or value != value else f"{value:,.0f}"  # NaN: no writes, no wear to price


def _price_line(parts: list[dict], idle: dict) -> str:
    """The bill of parts in one sentence: each part's count, price and what kind of price it is."""
    items = []
    for p in parts:
        each = "no price in the catalog" if p["usd_each"] is None else f"${p['usd_each']:,.0f} ({p['kind']} {p['date']})"
        name = p.get("product") or p["part"]
        items.append(f"{p['count']} x {name} {each}" if p["count"] != 1 else f"{name} {each}")
    total = idle.get("price_usd")
    head = "Set-up price: unknown" if total is None else f"Set-up price: ${total:,.0f}"
    per_tb = idle.get("usd_per_usable_tb")
    tail = "" if per_tb is None else f"; ${per_tb:,.0f} per usable TB"
    idle_w = idle.get("power_w")
    watts = "" if idle_w is None else f"; {idle_w:,.0f} W idle"
    return f"{head} ({'; '.join(items)}){tail}{watts}"


def print_cost_power(console: Console, costs: dict) -> None:
    """The set-up's price and idle power, then per workload its watts at the predicted load and what
    each 1K IOPS and GB/s costs, and the endurance its writes use (docs/cost-power.md)."""
    console.print(_price_line(costs["parts"], costs["idle"]))
    rated = costs["idle"].get("rated_dwpd")
    rows = []
    for workload, c in costs["per_workload"].items():
        if c is None:
            rows.append((workload,) + (MISSING,) * 7)
            continue
        rows.append((workload, _dollars(c["power_w"]), _optional(c["watts_per_kiops"], 3), _optional(c["usd_per_kiops"], 3),
                     _dollars(c["usd_per_gb_per_s"]), _optional(c["effective_dwpd"], 3),
                     _optional(c["drive_lifetime_years"], 3), _dollars(c["wear_usd_per_year"])))
    if rows:
        print_grid(console, Grid("Cost and power at the predicted load",
                                 ("workload", "power W", "W per 1K IOPS", "$ per 1K IOPS", "$ per GB/s",
                                  f"drive writes per day (rated {format_significant(rated, 2) if rated else MISSING})",
                                  "drive life years", "wear $ per year"), (False,) + (True,) * 7, tuple(rows)))


def _optional(value: float | None, digits: int) -> str:
    return MISSING if value is None or value != value else format_significant(value, digits)


def print_sweep_best(console: Console, best: list[dict], objective: str | None) -> None:
    """The end of `nvsim sweep`: its best set-ups (ranked by the objective, or those meeting the
    constraints), each with the fields the sweep set, the objective, usable TB, price and watts."""
    if not best:
        console.print("No set-up meets the constraints.")
        return
    fields = list(dict.fromkeys(k for b in best for k in b["fields"]))
    factor, unit = _objective_scale(objective or "")
    # the rank among the set-ups (a set-up's strips and spares are one): the files rank each point
    headers = ("set-up rank", *fields) + ((f"{objective} {unit}".strip(),) if objective else ()) + (
        "usable TB", "price $", "power W", "points meeting")
    rows = []
    for i, b in enumerate(best, start=1):
        cells = [str(b["rank"] if b["rank"] is not None else i)] + [str(b["fields"].get(f, MISSING)) for f in fields]
        if objective:
            value = None if b["objective"] is None else b["objective"] / factor
            probability = objective.endswith("_probability") and value is not None and value == value
            cells.append(format_probability(value) if probability else _optional(value, 4))  # 2.9e-10 read 0.000000000
        usable = b.get("usable_bytes")
        cells += [_optional(None if usable is None else usable / 1e12, 4), _dollars(b.get("price_usd")), _dollars(b.get("power_w")),
                  _variants_text(b.get("variants") or {})]
        rows.append(tuple(cells))
    title = f"Best set-ups by {objective}" if objective else "Set-ups meeting the constraints"
    print_grid(console, Grid(title, headers,
                             (True,) + (False,) * len(fields) + (True,) * (len(headers) - 2 - len(fields)) + (False,), tuple(rows)))


def _variants_text(variants: dict) -> str:
    """'3: strip_bytes 64KiB 128KiB 512KiB': the points of a best set-up meeting the constraints, and
    the strips and spares they take where more than one."""
    chosen = [f"{field.rpartition('.')[2]} {' '.join(map(str, values))}" for field, values in variants.items()
              if field != "points" and len(values) > 1]
    return f"{variants.get('points', 1)}" + (f": {', '.join(chosen)}" if chosen else "")


def _objective_scale(column: str) -> tuple[float, str]:
    """A sweep objective's factor and unit for the best-points table: bytes in TB, rates in GB/s,
    IOPS in M IOPS; anything else as it is."""
    metric = column.rpartition(".")[2]
    if "bytes_per_s" in metric:
        return 1e9, "GB/s"
    if "bytes" in metric:
        return 1e12, "TB"
    if metric.endswith("_iops"):
        return 1e6, "M IOPS"
    return 1.0, ""

