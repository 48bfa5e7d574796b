"""Text and JSON renderings of results (no plotting here: the dashboard and notebooks plot)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .bounds import BoundsReport
from .simulation import Result
from .specs import ScenarioSpec
from .units import format_bytes_binary, format_bytes_decimal, format_value
from .validation import Comparison


def print_bounds(console: Console, scenario: ScenarioSpec, report: BoundsReport) -> None:
    array = scenario.array
    cap = report.capacity
    console.print(f"[bold]{scenario.name}[/bold]: {scenario.description}")
    console.print(
        f"RAID{array.level} of {array.drives} x {array.drive}, strip {format_bytes_binary(array.strip_bytes)}, "
        f"engine {array.engine}, platform {scenario.platform}"
    )
    console.print(
        f"Usable capacity: [bold]{format_bytes_decimal(cap.usable_bytes)}[/bold] ({format_bytes_binary(cap.usable_bytes)}) "
        f"of {format_bytes_decimal(cap.raw_bytes)} raw ({cap.efficiency:.1%})"
    )
    table = Table(title="Upper bounds (drives, links, RAID level, engine device)")
    table.add_column("metric")
    table.add_column("bound", justify="right")
    table.add_column("limited by")
    table.add_column("next limit")
    for bound in report.bounds:
        nxt = bound.limits[1] if len(bound.limits) > 1 else None
        unit = "IOPS" if bound.unit == "IOPS" else "B/s"
        table.add_row(bound.metric, format_value(bound.value, unit), bound.limited_by,
                      f"{nxt.component}: {format_value(nxt.value, unit)}" if nxt else "-")
    console.print(table)


def print_validation(console: Console, comparisons: list[Comparison]) -> None:
    table = Table(title="Published vs predicted")
    for column in ("scenario", "metric", "published", "predicted", "error", "fitted", "status"):
        table.add_column(column)
    for c in comparisons:
        err = c.error
        if err is None:
            err_text = "-"
        elif c.number.tolerance.absolute is not None:
            err_text = f"{err:+.1f} pp"
        else:
            err_text = f"{err:+.1%}"
        table.add_row(f"{c.scenario_dir}/{c.number.id}", c.number.metric, format_value(c.published, c.number.unit),
                      format_value(c.predicted, c.number.unit), err_text, "fitted" if c.fitted else "predicted", c.status)
    console.print(table)


PREDICTION_COLUMNS = (("read_iops", "IOPS", "read IOPS"), ("write_iops", "IOPS", "write IOPS"),
                      ("read_bytes_per_s", "B/s", "read"), ("write_bytes_per_s", "B/s", "write"),
                      ("read_latency_p99_us", "us", "p99 read us"), ("write_latency_p99_us", "us", "p99 write us"),
                      ("cpu_percent", "percent", "CPU"), ("raid_waf", "ratio", "RAID WAF"), ("waf_nand", "ratio", "NAND WAF"))


def print_predictions(console: Console, predictions: dict[str, dict[str, float] | None]) -> None:
    """Per-workload predicted metrics; workloads nvsim does not model yet say so."""
    table = Table(title="Predicted steady state per workload")
    table.add_column("workload", no_wrap=True)
    for _, _, header in PREDICTION_COLUMNS:
        table.add_column(header, justify="right")
    extra = [c for c in (("transactions_per_s", "TPS", "TPS"), ("rebuild_bytes_per_s", "B/s", "rebuild"))
             if any(v and v.get(c[0]) is not None for v in predictions.values())]
    for _, _, header in extra:
        table.add_column(header, justify="right")
    table.add_column("limited by")
    for workload, values in predictions.items():
        if values is None:
            table.add_row(workload, *["-"] * (len(PREDICTION_COLUMNS) + len(extra)), "not modelled yet")
            continue
        cells = []
        for name, unit, _ in PREDICTION_COLUMNS + tuple(extra):
            value = values.get(name)
            cells.append("-" if value is None or value != value else format_value(value, unit))
        table.add_row(workload, *cells, str(values.get("limited_by", "")))
    console.print(table)


def print_utilisation(console: Console, workload: str, result: Result) -> None:
    """Every resource's utilisation for one simulated workload, the limiting one first."""
    table = Table(title=f"{workload}: limited by {result.bottleneck} ({result.fidelity} mode)")
    table.add_column("resource")
    table.add_column("utilisation", justify="right")
    for u in sorted(result.utilisation, key=lambda u: -u.utilisation):
        table.add_row(u.resource, f"{100 * u.utilisation:.0f}%")
    console.print(table)


def print_resilience(console: Console, resilience: dict) -> None:
    """Rebuild time, data-loss risk and MTTDL; the fault timeline when the scenario has one."""
    r = resilience["if_one_drive_fails"]
    table = Table(title=f"If one drive fails (hot spare, under {r.get('workload', 'idle')}; fluid mode)")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    if r.get("rebuild_hours") is None:
        table.add_row("data loss", r.get("note", "no redundancy"))
    else:
        table.add_row("rebuild time", f"{r['rebuild_hours']:.2f} h")
        table.add_row("rebuild speed", f"{r['rebuild_mb_per_s']:,.0f} MB/s")
        table.add_row("rebuild limited by", str(r.get("rebuild_limited_by", "")))
        if r.get("rebuild_raid_waf") is not None:
            table.add_row("rebuild RAID WAF (member bytes written / byte rebuilt)", f"{r['rebuild_raid_waf']:.2f}")
            table.add_row("rebuild NAND WAF (new member's sequential fill)", f"{r['rebuild_waf_nand']:.2f}")
        table.add_row("P(data loss during the rebuild)", f"{r['data_loss_probability']:.2e}")
        table.add_row("  from more drive failures", f"{r['p_another_failure']:.2e}")
        table.add_row("  from unrecoverable read errors", f"{r['p_unrecoverable_read']:.2e}")
    table.add_row("MTTDL (Markov)", f"{r['mttdl_years']:.3g} years")
    console.print(table)
    timeline = resilience.get("timeline")
    if not timeline:
        return
    table = Table(title=f"Fault timeline under {timeline['workload'] or 'no load'}")
    for header in ("from (s)", "to (s)", "state", "missing", "rebuilding", "foreground IOPS", "TPS", "rebuild MB/s", "limited by"):
        table.add_column(header)
    for seg in timeline["segments"]:
        end = "-" if seg["end_s"] is None else f"{seg['end_s']:,.0f}"
        iops = "-" if seg["foreground_iops"] is None else f"{seg['foreground_iops']:,.0f}"
        tps = "-" if seg["transactions_per_s"] is None else f"{seg['transactions_per_s']:,.0f}"
        table.add_row(f"{seg['start_s']:,.0f}", end, seg["state"], str(list(seg["missing"])),
                      "-" if seg["rebuilding"] is None else str(seg["rebuilding"]), iops, tps,
                      f"{seg['rebuild_bytes_per_s'] / 1e6:,.0f}", seg["limited_by"])
    console.print(table)
    loss = timeline.get("data_loss")
    if loss:
        console.print(f"DATA LOSS at {loss['at_s']:,.0f} s: {loss['detail']}; {loss['stripes_lost']:,} stripes, "
                      f"{loss['bytes_lost'] / 1e9:,.1f} GB")
