"""The nvsim command line: run, catalog, validate.

Every bad input ends in one line on stderr naming the field, and exit status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click.exceptions
import typer
from rich.console import Console

from .errors import EXIT_INPUT_ERROR, InputError

try:  # Typer >= 0.26 vendors its own copy of click
    from typer._click import exceptions as _vendored
except ImportError:  # pragma: no cover - older Typer raises click's own
    _vendored = click.exceptions
_EXIT = tuple({click.exceptions.Exit, typer.Exit})
_ABORT = tuple({click.exceptions.Abort, typer.Abort})
_CLICK_ERROR = tuple({click.exceptions.ClickException, _vendored.ClickException})
_NO_ARGS = tuple(c for c in (getattr(_vendored, "NoArgsIsHelpError", None), getattr(click.exceptions, "NoArgsIsHelpError", None)) if c)

app = typer.Typer(
    name="nvsim",
    help="nvsim: calibrated simulator of NVMe RAID arrays. Predicts capacity, IOPS, GB/s, latency, CPU and wear.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
catalog_app = typer.Typer(help="List the catalog (drives, PCIe links, platforms, engines) or show one entry.",
                          invoke_without_command=True, rich_markup_mode=None)
app.add_typer(catalog_app, name="catalog")

console = Console(width=None if sys.stdout.isatty() else 120)


def _emit_json(data: object, output: Optional[Path]) -> None:
    from .io import write_json_atomic
    if output is not None:
        write_json_atomic(output, data)
    else:
        sys.stdout.write(json.dumps(data, indent=2, default=float) + "\n")


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario YAML file, or a directory holding scenario.yaml."),
    json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON instead of tables."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the JSON result to this file (atomically)."),
) -> None:
    """Predict a scenario: usable capacity, the bounds its drives, links, RAID level, engine and platform allow, and per-workload predictions where modelled."""
    from .bounds import array_bounds
    from .catalog import default_catalog
    from .predict import predict_workload
    from .report import print_bounds, print_predictions
    from .scenario import load_scenario

    catalog = default_catalog()
    spec = load_scenario(scenario, catalog)
    report = array_bounds(spec, catalog)
    predictions = {w.name: predict_workload(spec, w, catalog) for w in spec.workloads}
    if json_out or output is not None:
        _emit_json({"scenario": spec.model_dump(mode="json"), **report.as_dict(), "predictions": predictions}, output)
    if not json_out:
        print_bounds(console, spec, report)
        if predictions:
            print_predictions(console, predictions)


@catalog_app.callback()
def catalog_list(
    ctx: typer.Context,
    kind: Optional[str] = typer.Option(None, "--kind", help="Only one section: drives, links, platforms or engines."),
) -> None:
    """List every catalog entry with the sources its numbers cite."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from .catalog import SECTIONS, default_catalog, iter_cited
    from .errors import suggestion_text

    if kind is not None and kind not in SECTIONS:
        raise InputError("--kind", f"unknown section {kind!r}{suggestion_text(kind, SECTIONS)} allowed: {', '.join(SECTIONS)}")
    catalog = default_catalog()
    table = Table(title="nvsim catalog (models/)")
    for column in ("section", "name", "description", "sources"):
        table.add_column(column)
    for section, entry in catalog.entries():
        if kind and section != kind:
            continue
        sources = sorted({cited.source for _, cited in iter_cited(entry)})
        description = getattr(entry, "model", None) or getattr(entry, "product", "")
        if section == "drives":
            description = f"{entry.vendor} {entry.model}, {entry.capacity_bytes.value / 1e12:g} TB, Gen{entry.pcie_generation.value} x{entry.lanes.value}"
        table.add_row(section, entry.name, str(description), ", ".join(sources))
    console.print(table)


@catalog_app.command("show")
def catalog_show(
    name: str = typer.Argument(..., help="Catalog entry name, e.g. kioxia-cm7-r-3.84tb."),
    json_out: bool = typer.Option(False, "--json", help="Print the entry as JSON."),
) -> None:
    """Show one catalog entry: every number with its value, basis and source."""
    from rich.table import Table

    from .catalog import default_catalog, iter_cited

    catalog = default_catalog()
    entry = catalog.get(name)
    if json_out:
        _emit_json(entry.model_dump(mode="json"), None)
        return
    console.print(f"[bold]{entry.name}[/bold] ({catalog.files[entry.name]})")
    table = Table()
    for column in ("field", "value", "basis", "source", "note"):
        table.add_column(column)
    for path, cited in iter_cited(entry):
        table.add_row(path, f"{cited.value:,}" if isinstance(cited.value, (int, float)) else str(cited.value),
                      cited.basis, cited.source, cited.note or "")
    console.print(table)
    used = sorted({cited.source for _, cited in iter_cited(entry)})
    for key in used:
        source = catalog.bibliography[key]
        console.print(f"  [{key}] {source.title}. {source.publisher}, {source.year}. {source.location}")


@app.command()
def validate(
    json_out: bool = typer.Option(False, "--json", help="One JSON record per published number."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the JSON records to this file (atomically)."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 if any modelled number is outside its tolerance."),
) -> None:
    """Re-predict every published number in scenarios/*/published.yaml and compare."""
    from .report import print_validation
    from .validation import compare_all, summary

    comparisons = compare_all()
    records = [c.as_record() for c in comparisons]
    if json_out or output is not None:
        _emit_json(records, output)
    if not json_out:
        print_validation(console, comparisons)
        stats = summary(comparisons)
        console.print(f"{stats['modelled']} of {stats['numbers']} numbers modelled, {stats['out_of_tolerance']} out of tolerance")
    if strict and any(c.status == "OUT" for c in comparisons):
        raise typer.Exit(1)


@app.command()
def calibrate() -> None:
    """Re-run the declared fits on their published numbers and show them beside the values in use."""
    from .calibrate import DECLARED_FITS, fit_all

    values = fit_all()
    for fit in DECLARED_FITS:
        now, used = values[fit.parameter]
        console.print(f"{fit.parameter} = {now:.4g} (in use: {used:.4g}, {fit.where}); fitted on {', '.join(fit.published_ids)}: {fit.why}")


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning input errors into one line and exit status 2."""
    try:
        app(args=argv, standalone_mode=False, prog_name="nvsim")
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(EXIT_INPUT_ERROR) from None
    except _EXIT as exc:
        raise SystemExit(exc.exit_code) from None
    except _ABORT:
        sys.stderr.write("error: aborted\n")
        raise SystemExit(1) from None
    except _NO_ARGS as exc:  # bare `nvsim`: show the help, not an error
        sys.stdout.write(exc.format_message() + "\n")
        raise SystemExit(0) from None
    except _CLICK_ERROR as exc:
        sys.stderr.write("error: " + " ".join(exc.format_message().split()) + "\n")
        raise SystemExit(EXIT_INPUT_ERROR) from None


if __name__ == "__main__":
    main()
