"""The nvsim command line: run, fio, sweep, plan, catalog, validate, calibrate, dashboard.

Every bad input ends in one line on stderr naming the field, and exit status 2. The models are
reached through the ``nvsim`` package, whose names and submodules load on first use
(nvsim/__init__.py): `nvsim --help` and a bad argument answer without loading the simulator.
"""

from __future__ import annotations

import dataclasses
import math
import errno
import os
import sys
from pathlib import Path
from typing import Optional

import click.exceptions
import typer
from rich.console import Console
from rich.markup import escape

import nvsim

from .constants import PRECISION_MAX, PRECISION_MIN
from .cpus import usable_cpus
from .errors import EXIT_INPUT_ERROR, InputError, escaped, require_extra, suggestion_text, suggestion_then
from .io import atomic_path, check_output_path, json_text, write_json_atomic, write_text_atomic
from .progress import LateProgress
from .shipped import carried_hint
from .units import format_number, format_significant

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


class _CatalogGroup(typer.core.TyperGroup):
    """``nvsim catalog``'s commands: an entry's name where a command is wanted (``nvsim catalog
    linux-md``) is refused with the command that shows it, not as an unknown command."""

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except _CLICK_ERROR:
            if not args or args[0] not in nvsim.default_catalog().all_names():
                raise
            raise InputError("COMMAND", f"{args[0]!r} is a catalog entry, not a command; show it with "
                                        f"`nvsim catalog show {args[0]}`") from None


catalog_app = typer.Typer(help="List the catalog (drives, PCIe links, platforms, engines) or show one entry.",
                          invoke_without_command=True, rich_markup_mode=None, cls=_CatalogGroup)
app.add_typer(catalog_app, name="catalog")


def _cited_text(value) -> str:
    """A cited value as ``catalog show`` prints it: a number exactly, a list of them comma-separated."""
    if isinstance(value, (list, tuple)):
        return ", ".join(map(_cited_text, value))
    return nvsim.units.format_exact(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _show_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"nvsim {nvsim.__version__}\n")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                          help="Print nvsim's version and exit.")) -> None:
    """nvsim: calibrated simulator of NVMe RAID arrays. Predicts capacity, IOPS, GB/s, latency, CPU and wear."""

NOT_A_TERMINAL_COLUMNS = 100  # the width of tables sent to a file or a pipe when COLUMNS does not say


def console_width(environ=os.environ, is_terminal: bool | None = None) -> int | None:
    """The width tables are laid out for: COLUMNS when set, else the terminal's own (None: rich asks
    the terminal), else NOT_A_TERMINAL_COLUMNS for a file or a pipe."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    terminal = sys.stdout.isatty() if is_terminal is None else is_terminal
    return None if terminal else NOT_A_TERMINAL_COLUMNS


console = Console(width=console_width(), highlight=False, markup=False)
"""No colour on digits inside names (randread-b4k-j192); no markup: a name or path the user gave is printed as
written (``[/]`` in a workload's name was read as a closing tag and stopped the run); bold is asked for where wanted."""


def _emit_json(data: object, output: Optional[Path]) -> None:
    if output is not None:
        write_json_atomic(output, data)
    else:
        sys.stdout.write(json_text(data))


MAX_WORKERS = 512
"""Most local worker processes a command starts (--workers)."""
FIDELITY_HELP = "event: SimPy discrete events (latency percentiles); fluid: rates only, ~1000x faster."


def _fidelity(value: str) -> str:
    if value not in ("event", "fluid"):
        raise InputError("--fidelity", f"unknown fidelity {value!r}; allowed: event, fluid")
    return value


RUN_WORKERS_MAX = 8
"""Processes ``nvsim run`` starts at most by default (each holds a workload's simulation, a few
hundred MB: a many-core server does not start one per core)."""


def _pool_workers(requested: int, default_most: int = MAX_WORKERS) -> int:
    """--workers as the processes a command's pool starts: 0, one per CPU this process may run on
    (``usable_cpus``), at most ``default_most``; more than those CPUs is held to them, with a note on
    stderr (a process beyond the CPUs adds its memory, about 200 MB, and no speed)."""
    cpus = usable_cpus()
    if requested > cpus:
        sys.stderr.write(f"note: --workers {requested}: this process may run on {cpus} CPU{'s' if cpus > 1 else ''}; "
                         f"at most {cpus} worker{'s' if cpus > 1 else ''} run\n")
        return cpus
    return requested or min(cpus, default_most)


PRECISION_HELP = (f"Event mode: measure until each direction's p99.99 latency is known within this fraction (half-width "
                  f"of its 95% CI over the estimate), from {format_number(PRECISION_MIN)} to {format_number(PRECISION_MAX)}.")
MAX_SECONDS_HELP = ("Event mode: wall seconds each workload may go on for --precision (its planned window always "
                    "completes). A run stopped by this budget depends on the machine's speed; 0 keeps the planned "
                    "window (same seed, same bits).")


def _runnable_scenario(scenario: Path, fidelity: str, catalog) -> "nvsim.ScenarioSpec":
    """The scenario file, loaded and refused before any work starts where a workload is over the
    work budget or off the array (``nvsim run`` and ``nvsim report`` alike)."""
    spec = nvsim.load_scenario(scenario, catalog)
    for index, workload in enumerate(spec.workloads):
        nvsim.budget.check_workload(workload, fidelity, field=f"workloads[{index}]", source=str(scenario))
    nvsim.budget.check_scenario_regions(spec, lambda: nvsim.Simulation(spec, catalog=catalog).device_extent, source=str(scenario))
    return spec


def _event_window(precision: float, max_seconds: float):
    """--precision and --max-seconds, checked, as the event mode's ``nvsim.Precision``: ``nvsim run``
    and ``nvsim report`` take the same options with the same defaults, so they give the same numbers."""
    if not PRECISION_MIN <= precision <= PRECISION_MAX:  # NaN and infinity fail too
        raise InputError("--precision", f"must be a fraction from {format_number(PRECISION_MIN)} to {format_number(PRECISION_MAX)} (e.g. 0.1), got {format_number(precision)}")
    if not max_seconds >= 0:
        raise InputError("--max-seconds", f"must be 0 or more seconds, got {max_seconds}")
    return nvsim.Precision(relative=precision, max_wall_s=max_seconds)


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario YAML file, or a directory holding scenario.yaml."),
    json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON instead of tables."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the JSON result to this file (atomically)."),
    fidelity: str = typer.Option("event", "--fidelity", help=FIDELITY_HELP),
    precision: float = typer.Option(0.1, "--precision", help=PRECISION_HELP),
    max_seconds: float = typer.Option(1.0, "--max-seconds", help=MAX_SECONDS_HELP),
    workers: int = typer.Option(0, "--workers", min=0, max=MAX_WORKERS, help=f"Processes that run the workloads at once (forked where safe, else the workloads run here in turn), at most one per CPU this process may run on (more is held to that, with a note); 0 (the default): the CPUs, at most {RUN_WORKERS_MAX}. The answer does not depend on it."),
) -> None:
    """Predict a scenario: usable capacity, the bounds of its components, and per workload the IOPS, GB/s, latency, CPU, write amplification and the resource that limits it."""
    fidelity = _fidelity(fidelity)
    check_output_path(output, "--output")
    window = _event_window(precision, max_seconds)
    catalog = nvsim.default_catalog()
    spec = _runnable_scenario(scenario, fidelity, catalog)
    nvsim.numba_cache.compile_notice()  # before the bounds table, which compiles kernels of its own (it had said nothing)
    nvsim.simulation.compile_beside(spec, catalog, fidelity)  # a first run: the event kernel compiles meanwhile
    report = nvsim.array_bounds(spec, catalog)
    loss = None if nvsim.simulation.single_drive(spec) else nvsim.states.failed_at_start(spec, catalog)
    results = {}
    if loss is None:
        with LateProgress() as bar:
            results = nvsim.simulation.run_workloads(spec, catalog, fidelity, window, progress=bar.for_task,
                                                     workers=_pool_workers(workers, RUN_WORKERS_MAX))
    predictions = {name: result.metrics() for name, result in results.items()}
    if loss is not None:  # the faults at t = 0 lost data: every workload gets I/O errors, not rates
        predictions = {w.name: nvsim.rebuild.data_loss_metrics(loss) for w in spec.workloads}
    simulated = {name: result for name, result in results.items() if result.simulation is not None}
    resilience = None if nvsim.simulation.single_drive(spec) else _resilience(spec, catalog)
    costs = _cost_power(spec, catalog, report.capacity.usable_bytes, results)
    together = nvsim.volumes.run_volumes(spec, catalog) if spec.volumes else None
    if json_out or output is not None:
        _emit_json({**report.as_dict(), "setup": _setup_record(spec, catalog), "predictions": predictions,
                    "notes": {name: result.note for name, result in results.items() if result.note},
                    "simulations": {name: r.as_dict() for name, r in simulated.items()},
                    "resilience": resilience, "cost_power": costs,
                    "volumes_together": None if together is None else dataclasses.asdict(together)}, output)
    fallback = nvsim.report.fallback_note(fidelity, results)
    if fallback and json_out:
        sys.stderr.write(fallback + "\n")
    if not json_out:
        if fallback:
            console.print(fallback, markup=False)
        nvsim.report.print_bounds(console, spec, report, catalog)
        if predictions:
            nvsim.report.print_predictions(console, predictions)
        for name, result in results.items():  # what a composite workload's rows did (a cap, a think time, a phase)
            if result.note:
                console.print(f"{name}: {result.note}", markup=False, highlight=False)
        for name, result in simulated.items():
            nvsim.report.print_utilisation(console, name, result)
        if together is not None:
            nvsim.report.print_volumes(console, together, catalog)
        if resilience:
            nvsim.report.print_resilience(console, resilience)
        nvsim.report.print_cost_power(console, costs)


def _cost_power(spec, catalog, usable_bytes: float, results: dict) -> dict:
    """The set-up's bill of parts, its price and idle power, and per workload its watts, dollars
    per usable TB, per 1K IOPS and per GB/s and its endurance cost (nvsim.cost)."""
    cost = nvsim.cost
    per_workload = {}
    for name, result in results.items():
        metrics = result.metrics()
        per_workload[name] = None if metrics is None else cost.cost_power(catalog, spec, usable_bytes, metrics, result.utilisation)
    return {"parts": cost.price_parts(catalog, spec), "idle": cost.cost_power(catalog, spec, usable_bytes, None),
            "per_workload": per_workload}


def _resilience(spec, catalog) -> dict:
    """Rebuild time and data-loss risk (one drive failing under the first workload, fluid mode),
    and the scenario's own fault timeline when it has faults."""
    out: dict = {"if_one_drive_fails": nvsim.rebuild_summary(spec, catalog)}
    if spec.array.scrub:
        out["scrub"] = nvsim.rebuild.scrub_summary(spec, catalog)
    if spec.array.unclean_shutdown:
        out["unclean_shutdown"] = nvsim.rebuild.unclean_shutdown_summary(spec, catalog)
    if spec.faults:
        workload = spec.workloads[0] if spec.workloads else None
        timeline = nvsim.run_timeline(spec, workload, catalog).as_dict()
        for segment in timeline["segments"]:  # JSON has no infinity: an open-ended state ends at None
            segment["end_s"] = None if math.isinf(segment["end_s"]) else segment["end_s"]
            segment["foreground_iops"] = None if segment["foreground_iops"] != segment["foreground_iops"] else segment["foreground_iops"]
        out["timeline"] = timeline
    return out


@app.command("fio", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             options_metavar="[OPTIONS] [JOBFILE] [--FIO-OPTION=VALUE ...]")
def fio_command(
    ctx: typer.Context,
    system: Optional[Path] = typer.Option(None, "--system", help="Scenario YAML (or directory) giving platform, drives and array; its workloads are not used (needed for anything but --version and --help)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write fio's JSON to this file (atomically) instead of stdout."),
    output_format: str = typer.Option("json", "--output-format", help="json (fio's normal JSON) or json+ (with fio's latency bins)."),
    fidelity: str = typer.Option("event", "--fidelity", help=FIDELITY_HELP),
) -> None:
    """Run fio jobs against a simulated array; print fio's --output-format=json (or json+).

    Give a job file (JOBFILE, as fio reads it), fio's job options on the command line as fio takes
    them (--name=a --rw=randread --bs=4k ...: options before the first --name are global), or both
    (the command line's global options apply to the file's jobs too).
    """
    fidelity = _fidelity(fidelity)
    arguments = nvsim.fio.parse_fio_arguments(ctx.args)  # as fio's parse_cmd_line: both option forms, fio's own options
    if "version" in arguments.taken:
        console.print(f"fio-{nvsim.fio.FIO_VERSION} (nvsim {nvsim.__version__}: simulated)", markup=False, highlight=False)
        return
    if "help" in arguments.taken:
        console.print(ctx.get_help(), markup=False, highlight=False)
        return
    if system is None:  # a version or help query needs no array; a run does
        raise InputError("--system", "give the scenario whose array the jobs run against (--system scenarios/...)")
    output_format = (arguments.taken.get("output-format") or [output_format])[-1]
    output = Path(arguments.taken["output"][-1]) if output is None and "output" in arguments.taken else output
    if output_format not in ("json", "json+"):
        raise InputError("--output-format", f"unknown format {output_format!r}; allowed: json, json+")
    files, options = arguments.files, arguments.job_options
    if len(files) > 1:
        raise InputError("jobfile", f"one job file at a time, got {', '.join(files)}")
    if not files and not any(arg.startswith("--name=") for arg in options):
        raise InputError("jobfile", "give a fio job file or fio's job options with at least one --name=JOB")
    check_output_path(output, "--output")
    for note in arguments.notes:
        sys.stderr.write(f"note: {note}\n")
    catalog = nvsim.default_catalog()
    spec = _fio_system(system, catalog)
    loss = None if nvsim.simulation.single_drive(spec) else nvsim.rebuild.data_loss_at_start(spec, catalog)
    if loss is not None:  # fio on such an array gets I/O errors: no rates to report
        raise InputError("--system", f"{system}: the faults at t = 0 lose data ({loss.detail}); fio would see I/O errors")
    from .fio import logs as fio_logs, run as fio_run  # the client of Simulation that runs a job file, and its logs

    label = files[0] if files else "command line"
    text = nvsim.fio.read_jobfile_text(STDIN if files[0] == "-" else files[0]) if files else ""  # '-': fio's stdin
    keywords = nvsim.fio.platform_keywords(catalog.platforms[spec.platform])  # $ncpus etc. of the simulated platform
    parsed = nvsim.fio.parse_fio_jobfile(text, label, catalog=catalog, keywords=keywords, command_line=tuple(options),
                                         sections=tuple(arguments.taken.get("section", ())) or None)
    device_bytes = fio_run.check_jobs(parsed, spec, catalog, fidelity, label)  # over the budget or off the array: refused first
    writer = next((job for job in parsed.jobs if job.workload.read_fraction < 1 or job.workload.trim), None)
    if "readonly" in arguments.taken and writer is not None:  # fio's read-only mode refuses a job that writes
        raise InputError("--readonly", f"job [{writer.name}] writes (rw={writer.workload.rw}); fio in read-only mode "
                                       f"refuses it ('has write bit set'); allowed: read-only jobs, or no --readonly")
    fio_logs.check_log_directories(parsed.jobs, Path.cwd())
    if "parse-only" in arguments.taken:  # fio --parse-only: the jobs are read and checked, nothing runs
        return
    for line in ([parsed.unmodelled_warning()] if parsed.unmodelled_warning() else []) + parsed.notes() \
            + fio_run.clamped_sizes(parsed, device_bytes, label) + _volumes_left_out(spec, system):
        sys.stderr.write(f"warning: {line}\n")
    runs = fio_run.simulate_jobs(parsed, spec, catalog, fidelity)
    for run in runs:
        if run.note:
            sys.stderr.write(f"note: {label}: {run.note}\n")
    report = fio_run.fio_report(parsed, runs, catalog, json_plus=output_format == "json+")
    if fio_run.wants_logs(parsed):
        entries = fio_run.log_entries(runs, catalog)
        if fio_logs.uses_default_window(entries):
            sys.stderr.write(f"warning: {label}: log_avg_msec is not set: fio would log every I/O; nvsim writes "
                             f"{fio_logs.DEFAULT_LOG_MSEC} ms windows of the steady state\n")
        fio_logs.write_log_files(entries, Path.cwd())
    _emit_json(report, output)


def _fio_system(system: Path, catalog) -> "nvsim.ScenarioSpec":
    """The scenario ``--system`` names, loaded; one missing or not a scenario is refused naming
    ``--system``, the option typed (``SCENARIO`` is ``nvsim run``'s argument)."""
    try:
        return nvsim.load_scenario(system, catalog)
    except InputError as exc:
        if exc.field != "SCENARIO":
            raise
        raise InputError("--system", exc.message, source=exc.source) from None


@app.command()
def sweep(
    spec: Path = typer.Argument(..., help="Sweep YAML: base scenario, grid/points over any field, constraints, objective."),
    output: Path = typer.Option(..., "--output", "-o", help="Output path: writes OUT.parquet (with pyarrow) and OUT.csv (atomically); OUT.csv or OUT.parquet name the same pair."),
    workers: int = typer.Option(0, "--workers", min=0, max=MAX_WORKERS, help="Local worker processes, at most one per CPU this process may run on (more is held to that, with a note); 0: one per CPU. Not used with --dask."),
    dask: Optional[str] = typer.Option(None, "--dask", help="Address of an existing Dask distributed scheduler to run the points on."),
) -> None:
    """Run a sweep of set-ups (fluid or event mode) into a tidy table; re-running finishes only missing points."""
    if not str(output).strip() or output.name in ("", ".", ".."):
        raise InputError("--output", f"an output path without suffix is needed (OUT gives OUT.parquet and OUT.csv), got {str(output)!r}")
    nvsim.sweep.prepare_sweep(spec)  # a bad sweep file or base stops here, before the progress bar draws anything
    with LateProgress() as bar:
        summary = nvsim.sweep.run_sweep(spec, output, workers=1 if dask else _pool_workers(workers), dask_address=dask,
                                        progress=bar.for_task("sweep"))
    if summary["damaged_partial_lines"]:
        sys.stderr.write(f"note: {summary['partial']}: {summary['damaged_partial_lines']} damaged line(s) of the resumed "
                         f"run were not rows; their set-ups ran again\n")
    wrote = f"{summary['parquet']} and {summary['csv']}" if summary["parquet"] else summary["csv"]
    resumed = summary["points"] - summary["computed_now"]
    console.print(f"{summary['points']} set-ups ({summary['computed_now']} computed now"
                  f"{f', {resumed} resumed' if resumed else ''}), "
                  f"{summary['rows']} rows; {summary['meeting_constraints']} rows meet the constraints; wrote {wrote}",
                  markup=False, soft_wrap=True)  # a path is never broken across lines
    if not summary["parquet"]:
        console.print(nvsim.sweep.PARQUET_MISSING_NOTE, markup=False, soft_wrap=True)
    nvsim.report.print_sweep_best(console, _printable_best(summary["best"]), summary["objective"])
    if 0 < summary["invalid"] < summary["rows"]:  # some refused: said, not only in the table ("N rows meet" read as a verdict)
        sys.stderr.write(f"note: {summary['invalid']} of {summary['rows']} rows were refused (status invalid in "
                         f"{summary['csv']}); the first: {escaped(summary['first_error'])}\n")
    if summary["rows"] and summary["invalid"] == summary["rows"]:  # the table says why; the status says nothing ran
        sys.stderr.write(f"error: every set-up of the sweep was refused (status invalid in {summary['csv']}); "
                         f"the first: {escaped(summary['first_error'])}\n")
        raise typer.Exit(1)


def _printable_best(best: list[dict]) -> list[dict]:
    """The best set-ups as the terminal shows them: a control or formatting character in a text
    the sweep set (a description's newline or escape) written as its code (``\\x1b``), not sent raw."""
    def printable(value):
        return escaped(value) if isinstance(value, str) else value
    return [{**b, "fields": {printable(k): printable(v) for k, v in b["fields"].items()},
             "variants": {k: [printable(v) for v in values] if isinstance(values, list) else values
                          for k, values in (b.get("variants") or {}).items()}} for b in best]


@app.command()
def plan(
    requirements: Path = typer.Argument(..., help="Plan YAML: requirements (capacity, workload targets, rebuild, risk, endurance, power, bays, budget), the search space and the objective."),
    output: Path = typer.Option(Path("plan-out"), "--output", "-o", help="Folder for plan.json, ranking.csv, rejected.csv, pareto.html and scenarios/rank-NN.yaml (written together, atomically)."),
    workers: int = typer.Option(0, "--workers", min=0, max=MAX_WORKERS, help="Local worker processes for the fluid stage, at most one per CPU this process may run on (more is held to that, with a note); 0: one per CPU. Not used with --dask."),
    dask: Optional[str] = typer.Option(None, "--dask", help="Address of an existing Dask distributed scheduler to run the fluid stage on."),
) -> None:
    """Turn requirements into ranked configurations: exact filters, bounds, the fluid mode on the survivors, the event mode on the best; margins against every requirement, the Pareto front and why each rejected family failed."""
    if not str(output).strip() or output.name in ("", ".", ".."):
        raise InputError("--output", f"a folder for the plan's files is needed, got {str(output)!r}")
    spec = nvsim.plan.prepare_plan(requirements)[0]  # a bad plan stops here, before any work
    from .plan import output as plan_output
    plan_output.check_outputs(output, spec.top)
    if dask:
        require_extra("distributed", "dask", "--dask", "a plan on a Dask cluster")
    with LateProgress() as bar:
        result = nvsim.plan.run_plan(requirements, workers=1 if dask else _pool_workers(workers), dask_address=dask,
                                     progress=bar.for_stages())
    written = plan_output.write_outputs(result, output)
    plan_output.print_plan(console, result, written)
    for kind, lines in (("warning", result.warnings), ("note", result.notes)):  # as `nvsim fio` writes them
        for line in lines:
            sys.stderr.write(f"{kind}: {line}\n")
    if not result.ranked:  # the files say why each family failed; the exit status says nothing was found
        sys.stderr.write(f"error: no set-up meets the requirements of {requirements} (see rejected.csv under {output})\n")
        raise typer.Exit(1)


@catalog_app.callback()
def catalog_list(
    ctx: typer.Context,
    kind: Optional[str] = typer.Option(None, "--kind", help="Only one section (drives, links, platforms, engines, ...): the list, or where `show` looks."),
) -> None:
    """List every catalog entry with the sources its numbers cite."""
    sections = nvsim.catalog.SECTIONS
    if kind is not None and kind not in sections:
        raise InputError("--kind", f"unknown section {kind!r}{suggestion_then(kind, sections)}allowed: {', '.join(sections)}")
    ctx.obj = kind  # `catalog --kind K show NAME` shows NAME only from section K
    if ctx.invoked_subcommand is not None:
        return
    catalog = nvsim.default_catalog()
    rows = []
    for section, entry in catalog.entries():
        if kind and section != kind:
            continue
        sources = sorted({cited.source for _, cited in nvsim.catalog.iter_cited(entry)})
        description = getattr(entry, "model", None) or getattr(entry, "product", "")
        if section == "drives":
            description = f"{entry.vendor} {entry.model}, {entry.capacity_bytes.value / 1e12:g} TB, Gen{entry.pcie_generation.value} x{entry.lanes.value}"
        rows.append((section, entry.name, str(description), ", ".join(sources)))
    nvsim.report.print_grid(console, nvsim.report.Grid("nvsim catalog (models/)", ("section", "name", "description", "sources"),
                                                       (False,) * 4, tuple(rows)))


@catalog_app.command("show")
def catalog_show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Catalog entry name, e.g. kioxia-cm7-r-3.84tb."),
    json_out: bool = typer.Option(False, "--json", help="Print the entry as JSON."),
) -> None:
    """Show one catalog entry: every number with its value, basis and source."""
    catalog = nvsim.default_catalog()
    entry = catalog.get(name)
    kind = ctx.obj
    if kind is not None and name not in getattr(catalog, kind):
        section = next(section for section, e in catalog.entries() if e is entry)
        raise InputError("NAME", f"{name!r} is in {section}, not in --kind {kind}{suggestion_text(name, getattr(catalog, kind))}")
    if json_out:
        _emit_json(entry.model_dump(mode="json"), None)
        return
    console.print(f"[bold]{escape(entry.name)}[/bold] ({escape(str(catalog.files[entry.name]))})", markup=True)
    rows = tuple((path, _cited_text(cited.value), cited.basis, cited.source, cited.note or "")
                 for path, cited in _shown_cited(entry))
    nvsim.report.print_grid(console, nvsim.report.Grid("", ("field", "value", "basis", "source", "note"),
                                                       (False, True, False, False, False), rows))
    derived = nvsim.engines.build_engine(entry).derived_costs() if name in catalog.engines else ()
    if derived:
        nvsim.report.print_grid(console, nvsim.report.Grid("What the simulation derives from these figures",
                                                           ("part", "value", "from"), (False, True, False), derived))
    used = sorted({cited.source for _, cited in nvsim.catalog.iter_cited(entry)})
    for key in used:
        source = catalog.bibliography[key]
        console.print(f"  [{key}] {source.title}. {source.publisher}, {source.year}. {source.location}")


def _setup_record(spec, catalog) -> dict:
    """The scenario as ``nvsim run --json`` records it beside its name (``scenario``): the checked
    scenario, defaults filled, and the engine as the tables name it (a GPU card with its driver).
    The scenario's dump had been written under ``scenario`` and then overwritten by its name.
    ``array.rebuild`` holds the fields the engine's rebuild reads (``Engine.rebuild_fields``): md's
    speed limits under a RAID card or a GPU card read as what paced its rebuild."""
    record = spec.model_dump(mode="json")
    engine = catalog.engine_class(spec.array.engine)
    read = engine.rebuild_fields if spec.array.checkable else frozenset()
    record["array"]["rebuild"] = {k: v for k, v in record["array"]["rebuild"].items() if k in read}
    return {**record, "engine_label": nvsim.names.engine_label(catalog, spec.array.engine, spec.array.engine_settings)}


def _shown_cited(entry) -> list[tuple[str, "nvsim.catalog.Cited"]]:
    """The entry's cited numbers as ``catalog show`` lists them: a family's parameter that the entry
    carries as its own, the same number, once (a GPU card's ``parameters.gpu_stripe_us`` and its
    ``gpu_family.parameters.gpu_stripe_us`` were two rows of one value)."""
    cited = list(nvsim.catalog.iter_cited(entry))
    own = dict(cited)
    return [(path, c) for path, c in cited
            if not ("_family.parameters." in path and own.get("parameters." + path.rsplit(".", 1)[1]) == c)]


@app.command()
def validate(
    json_out: bool = typer.Option(False, "--json", help="One JSON record per published number."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the JSON records to this file (atomically)."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 if any modelled number is outside its tolerance without a written reason."),
    workers: int = typer.Option(0, "--workers", min=0, max=MAX_WORKERS, help="Processes to simulate with, at most one per CPU this process may run on (more is held to that, with a note); 0: one per CPU."),
    scenarios: Optional[Path] = typer.Option(None, "--scenarios", help="Directory of scenario folders, or one scenario folder holding its published.yaml (default: the clone's scenarios/, else the copy an installed nvsim carries)."),
) -> None:
    """Re-predict every published number in scenarios/*/published.yaml and compare (fitted or predicted, error, status); none found is an error (exit 2)."""
    check_output_path(output, "--output")
    if scenarios is not None and not scenarios.is_dir():
        what = "is not a directory" if scenarios.exists() else "no such directory"
        raise InputError("--scenarios", f"{scenarios}: {what} (a folder of scenario folders, or one with a published.yaml)"
                                        f"{carried_hint(scenarios)}")
    with LateProgress() as bar:
        comparisons = nvsim.compare_all(root=scenarios, workers=_pool_workers(workers),
                                        progress=bar.for_task("validate"))
    if not comparisons:  # files found, numbers none: a check of nothing is not a pass (exit 0 and [] before)
        raise InputError("--scenarios", f"{nvsim.published.where_looked(scenarios)}: the published.yaml files found hold "
                                        f"no numbers, so nothing was compared; allowed: files with at least one number")
    records = [c.as_record() for c in comparisons]
    if json_out or output is not None:
        _emit_json(records, output)
    if not json_out:
        nvsim.report.print_validation(console, comparisons)
        stats = nvsim.validation.summary(comparisons)
        pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
        console.print(
            f"{stats['modelled']} of {stats['numbers']} numbers modelled; {stats['fitted']} fitted, "
            f"{stats['modelled'] - stats['fitted']} predicted; {stats['out_of_tolerance']} out of tolerance "
            f"({stats['out_without_reason']} without a written reason); median error "
            f"{pct(stats['median_relative_error'])} (predictions only: {pct(stats['median_relative_error_of_predictions'])})")
    if strict and any(c.status == "OUT" and not c.reason for c in comparisons):
        raise typer.Exit(1)


@app.command()
def calibrate(
    write: bool = typer.Option(False, "--write", help="Store the fitted values in models/ (with their provenance)."),
) -> None:
    """Re-run the declared fits (least squares on the declared published numbers); --write stores them."""
    if write and nvsim.catalog.catalog_dir().resolve() == nvsim.catalog.BUNDLED_CATALOG_DIR.resolve():
        raise InputError("--write", "this nvsim is installed, and its catalog is inside the package (the next pip install "
                                    "would undo the write); allowed: --write from a source checkout's models/, or with "
                                    "NVSIM_CATALOG set to a copy of the catalog")
    values = nvsim.calibrate.fit_all()
    for fit in nvsim.published.DECLARED_FITS:
        names = [name for name in values if name == fit.parameter or name.startswith(fit.parameter.split(" ")[0] + " ")]
        for name in names:
            if name.split(" ", 1)[-1] in fit.parameter or name == fit.parameter:
                now, used = values[name]
                console.print(f"{name} = {format_significant(now, 4)} (in use: {format_significant(used, 4)}; {fit.where})")
        on = ", ".join(fit.published_ids) or "no published number"  # kioxia-cm7's controller time: a catalog figure, its why says
        console.print(f"  fitted on {on}: {fit.why}")
    console.print(f"{nvsim.published.fitted_parameter_count()} fitted parameters in all")
    if write:
        for path in nvsim.calibrate.write_fitted(values):
            console.print(f"wrote {path}")


@app.command()
def dashboard(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8050, "--port", help="TCP port to listen on."),
    allow_host: list[str] = typer.Option([], "--allow-host", help="Also answer requests for this host name (repeat for more); "
                                         "it answers localhost, 127.0.0.1, [::1] and --host only (no DNS-rebinding page)."),
) -> None:
    """Start the Dash dashboard: build a set-up from the catalog, see its predictions, compare set-ups, export (works offline; needs the dashboard extra: pip install 'nvsim[dashboard]')."""
    require_extra("dash", "dashboard", "dashboard", "the dashboard")
    from dashboard.app import run as run_dashboard  # Dash (optional and heavy) loads only for this command

    run_dashboard(host=host, port=port, allow_hosts=tuple(allow_host))


@app.command()
def report(
    scenario: Path = typer.Argument(..., help="Scenario YAML file, or a directory holding scenario.yaml."),
    out: Path = typer.Option(..., "--out", "-o", help="The report file: NAME.html, or NAME.pdf (printed by headless Chromium)."),
    fidelity: str = typer.Option("event", "--fidelity", help=FIDELITY_HELP),
    customer: str = typer.Option("", "--customer", help="The customer the report is for (printed at its top)."),
    project: str = typer.Option("", "--project", help="The project it is for (printed at its top)."),
    date: str = typer.Option("", "--date", help="The report's date as printed (default: today, YYYY-MM-DD)."),
    precision: float = typer.Option(0.1, "--precision", help=PRECISION_HELP),
    max_seconds: float = typer.Option(1.0, "--max-seconds", help=MAX_SECONDS_HELP),
) -> None:
    """Write the one-page report of a scenario: set-up, predictions, bottleneck, rebuild and risk, cost and power, validation status of its models (HTML or PDF)."""
    fidelity = _fidelity(fidelity)
    check_output_path(out, "--out")
    if out.suffix.lower() not in (".html", ".pdf"):
        raise InputError("--out", f"must end in .html or .pdf, got {out.name!r}")
    from dashboard import report as one_page  # the dashboard's report (no Dash needed), loaded only for this command

    fields = one_page.checked_fields(customer, project, date)  # before the run: a bad option costs nothing
    if out.suffix.lower() == ".pdf" and (reason := one_page.pdf_missing()):  # as the options: before the run (7.6 s)
        raise InputError("--out", reason)
    window = _event_window(precision, max_seconds)  # the event mode as `nvsim run` runs it: the same numbers
    _runnable_scenario(scenario, fidelity, nvsim.default_catalog())  # refused as `nvsim run` refuses it
    html_text = one_page.report_html(one_page.scenario_record(scenario, fidelity=fidelity, precision=window), faults=True,
                                     **fields)
    if out.suffix.lower() == ".pdf":
        data = one_page.report_pdf(html_text, fields["when"])
        with atomic_path(out) as tmp:
            Path(tmp).write_bytes(data)
    else:
        write_text_atomic(out, html_text)
    Console(stderr=True, markup=False, highlight=False).print(f"wrote {out}")


def _full_short_help(command) -> None:
    """Each command's whole first paragraph in its group's list (click cuts it at 45 characters)."""
    for sub in getattr(command, "commands", {}).values():
        if sub.help and not sub.short_help:
            sub.short_help = " ".join(sub.help.split("\n\n")[0].split())
        _full_short_help(sub)


OUTPUT_PARAMS = ("output", "out")
"""Options that name a file nvsim writes: a value ending in a path separator names a folder."""
EMPTY_OUTPUT = {"sweep": "an output path without suffix is needed (OUT gives OUT.parquet and OUT.csv)",
                "plan": "a folder for the plan's files is needed"}
"""What an empty output option of a command is refused for wanting (else an output file path), as
the command's own check of its value says it."""


def check_arguments(command, argv: list[str]) -> None:
    """What click would take without a word: a single-valued option given twice (click keeps the
    last, so ``-o A --output=B`` wrote B alone), an output file written as a folder (``-o out/``:
    the Path type drops the trailing separator) and an empty output (``-o ''``: the Path type
    reads it as '.', which the refusal then quoted). One InputError naming the option."""
    tokens = list(argv)
    while tokens and tokens[0] in getattr(command, "commands", {}):  # typer's vendored click: no isinstance
        command, tokens = command.commands[tokens[0]], tokens[1:]
    options = {opt: param for param in command.params if getattr(param, "param_type_name", "") == "option"
               and not param.is_flag and not param.multiple and not param.count for opt in param.opts}
    seen: dict[str, str] = {}
    index = 0
    while index < len(tokens) and tokens[index] != "--":
        token, value = tokens[index], None
        if token in options:
            name, value = token, tokens[index + 1] if index + 1 < len(tokens) else None
            index += 1
        elif token.startswith("--") and token.split("=", 1)[0] in options:
            name, value = token.split("=", 1)
        elif token[:1] == "-" and token[1:2] != "-" and token[:2] in options:
            name, value = token[:2], token[2:]
        else:
            index += 1
            continue
        index += 1
        param = options[name]
        label = max(param.opts, key=len)
        if param.name in seen:
            raise InputError(label, f"given more than once ({seen[param.name]} and {name}); give it once")
        seen[param.name] = name
        if param.name in OUTPUT_PARAMS and value == "":  # the Path type makes '' '.', and the refusal quoted that
            raise InputError(label, f"{EMPTY_OUTPUT.get(command.name, 'an output file path is needed')}, got {value!r}")
        if param.name in OUTPUT_PARAMS and value and value.endswith(("/", os.sep)):
            raise InputError(label, f"{value!r} ends in a path separator, which names a folder; give a file path")


def _help_hint(error: Exception) -> str:
    """Where a usage error (a missing argument, an unknown option) points for help: the command it
    was made at (``nvsim run``), or nothing when click gives none."""
    ctx = getattr(error, "ctx", None)
    return f" (try `{ctx.command_path} --help`)" if ctx is not None else ""


PATH_ERRNOS = (errno.ENAMETOOLONG, errno.ELOOP)
"""A path given on the command line that no file can have (a name over the file system's 255
bytes, a loop of symbolic links): one line wherever in a command it is met, as any bad input."""
FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
"""A write the file system refuses for room (a full disk, a quota): the output was not written (the
atomic writer leaves the old file and no temporary), said in one line, exit 1."""


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the app, turning input errors into one line and exit status 2."""
    command = typer.main.get_command(app)
    _full_short_help(command)
    try:
        check_arguments(command, sys.argv[1:] if argv is None else argv)
        code = command(args=argv, standalone_mode=False, prog_name="nvsim")
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(EXIT_INPUT_ERROR) from None
    except OSError as exc:
        if exc.errno in FULL_ERRNOS:  # the machine's, not the input's: one line and 1 (a 42-line traceback before)
            sys.stderr.write(f"error: cannot write {exc.filename or 'the output'}: {exc.strerror}\n")
            raise SystemExit(1) from None
        if exc.errno not in PATH_ERRNOS:  # anything else is not the input's
            raise
        sys.stderr.write(f"error: {InputError('', f'{exc.strerror}: {exc.filename}')}\n")
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
        sys.stderr.write("error: " + " ".join(exc.format_message().split()) + _help_hint(exc) + "\n")
        raise SystemExit(EXIT_INPUT_ERROR) from None
    if isinstance(code, int) and code:  # click hands typer.Exit(n) back as n when not standalone
        raise SystemExit(code)


def _volumes_left_out(spec, system) -> list[str]:
    """The line saying a system's other volumes do not run beside the job file (`nvsim fio` runs it on
    the array alone; a second virtual disk sharing the card was left out with nothing said)."""
    if not spec.volumes:
        return []
    names = ", ".join(volume.name for volume in spec.volumes)
    return [f"{system}: its volumes ({names}) do not run beside the job file's jobs, which run on the array alone "
            f"(`nvsim run` solves the volumes together)"]


STDIN = "/dev/stdin"
"""Where a job file named '-' is read from, as fio reads it (through the loader's size bound)."""
FIO_SHIM_SYSTEM = "NVSIM_SYSTEM"
FIO_SHIM_FIDELITY = "NVSIM_FIDELITY"


def fio_main(argv: Optional[list[str]] = None) -> None:
    """``nvsim-fio``: ``nvsim fio`` under fio's own calling convention, for tools that run ``fio``
    (link it as ``fio`` first on PATH): the array from $NVSIM_SYSTEM (a scenario), the mode from
    $NVSIM_FIDELITY (default event); every argument is fio's."""
    argv = list(sys.argv[1:] if argv is None else argv)
    system = os.environ.get(FIO_SHIM_SYSTEM, "").strip()
    if not system and {"--version", "--help"} & set(argv):  # wrappers probe `fio --version` first: no array needed
        main(["fio", *argv])
        return
    if not system:
        sys.stderr.write(f"error: {FIO_SHIM_SYSTEM}: set it to the scenario whose array fio runs against "
                         f"(e.g. {FIO_SHIM_SYSTEM}=scenarios/graid-gen5-raid6)\n")
        raise SystemExit(EXIT_INPUT_ERROR)
    for option, variable in (("--system", FIO_SHIM_SYSTEM), ("--fidelity", FIO_SHIM_FIDELITY)):
        if any(arg == option or arg.startswith(option + "=") for arg in argv):  # nvsim's options, not fio's
            sys.stderr.write(f"error: {option}: nvsim-fio takes it from ${variable} (every argument is fio's); "
                             f"drop {option}, or set {variable}\n")
            raise SystemExit(EXIT_INPUT_ERROR)
    if not Path(system).exists():  # named here: nvsim fio would name --system, which this user did not type
        sys.stderr.write(f"error: {FIO_SHIM_SYSTEM}: {system}: no such file or directory; set it to a scenario "
                         f"(a YAML file, or a directory holding scenario.yaml){carried_hint(system)}\n")
        raise SystemExit(EXIT_INPUT_ERROR)
    fidelity = os.environ.get(FIO_SHIM_FIDELITY, "event").strip() or "event"
    main(["fio", "--system", system, "--fidelity", fidelity, *argv])


def entry_point() -> None:
    """The ``nvsim`` command (pyproject's console script): ``main``, then the process ends as soon as
    its output is out (``_end_without_teardown``)."""
    _end_without_teardown(main)


def fio_entry_point() -> None:
    """The ``nvsim-fio`` command: ``fio_main``, ended as ``entry_point`` ends."""
    _end_without_teardown(fio_main)


def _end_without_teardown(entry) -> None:
    """Run ``entry`` and end the process with its exit status, skipping the interpreter's teardown of
    its modules: with the simulator loaded (Numba, its compiled kernels, LLVM) the teardown took
    0.3-0.4 s of a warm `nvsim run`'s 2.3 s, to free memory the process gives back anyway. Everything
    a normal exit does for the user still happens, in its order: other non-daemon threads joined,
    the atexit handlers run (temporary folders, logging, multiprocessing's children), stdout and
    stderr flushed. A failed flush (a closed pipe) or an exception other than SystemExit takes
    Python's own way out, its message and status unchanged. Only the commands' entry points end
    this way; ``main`` called from Python returns (tests, notebooks)."""
    import atexit
    import threading

    try:
        entry()
        code = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):  # SystemExit("text"): Python prints it, status 1
        raise SystemExit(code)
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(code)
    os._exit(code or 0)


if __name__ == "__main__":
    entry_point()
