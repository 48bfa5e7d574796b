"""What ``nvsim plan`` writes and prints: the ranking, the rejected families, the Pareto front,
and a scenario per top candidate, all committed together (``nvsim.io.commit_together``).

OUT/plan.json        every stage's prunes, the ranking with margins, the rejected families
OUT/ranking.csv      the ranking, one row per distinct set-up (its best candidate; margins as columns)
OUT/candidates.csv   every feasible candidate ranked, each with its set-up's rank
OUT/rejected.csv     one row per family with no feasible candidate: why, by how much, where
OUT/pareto.html      price against performance against risk (Plotly; skipped, with a note, without it)
OUT/scenarios/rank-NN.yaml   each top candidate as a scenario ``nvsim run`` reads
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
from pathlib import Path
from typing import Callable

import yaml
from rich.console import Console

from ..errors import InputError
from ..io import check_output_path, commit_together, json_ready
from ..report import Grid, print_grid
from .answer import performance
from ..simulation import EVENT_HOST_IOS
from .search import PlanResult

RANK_FILE = re.compile(r"rank-\d+\.yaml")
PARETO_DIV_ID = "nvsim-plan-pareto"
"""The chart's HTML id (Plotly draws a random one): a rerun writes the same bytes."""
SET_UP = ("platform", "drive", "drives", "level", "strip_bytes", "engine", "overprovisioning", "hot_spares")
FIGURES = ("usable_bytes", "price_usd", "usd_per_usable_tb", "usd_per_kiops", "power_w", "rebuild_hours",
           "data_loss_probability", "mttdl_years", "lifetime_years", "objective", "event")


def has_plotly() -> bool:
    """Whether the optional Plotly (the ``dashboard`` extra) can be imported."""
    return importlib.util.find_spec("plotly") is not None


def output_paths(out: Path, top: int) -> list[Path]:
    """Every file a plan writes under ``out`` (checked before any work starts)."""
    names = ["plan.json", "ranking.csv", "candidates.csv", "rejected.csv", "pareto.html"]
    return [out / n for n in names] + [out / "scenarios" / f"rank-{r:02d}.yaml" for r in range(1, top + 1)]


def check_outputs(out: Path, top: int) -> None:
    """Refuse an output folder that cannot take the plan's files (one line naming --output)."""
    if out.exists() and not out.is_dir():
        raise InputError("--output", f"{out} is a file; give a folder")
    scenarios = out / "scenarios"
    if (scenarios.exists() or scenarios.is_symlink()) and not scenarios.is_dir():  # commit_together raised on it
        raise InputError("--output", f"{scenarios} is a file; the plan writes its top set-ups in a folder of that name")
    for path in output_paths(out, top):
        if path.is_dir():
            raise InputError("--output", f"{path} is a directory; the plan writes a file there")
        if path.is_symlink():  # a loop of links is refused (it was replaced by the file)
            check_output_path(path, "--output")
    for path in output_paths(out, top)[:1]:
        check_output_path(path, "--output")


def ranking_rows(ranked: list[dict]) -> list[dict]:
    """A ranking as flat rows: rank, set-up, figures, per-workload rates, margins; a set-up's
    variants (the strips, spares and shares its feasible candidates take) or a candidate's set-up rank."""
    rows = []
    for r in ranked:
        row = {"rank": r["rank"], **{k: r[k] for k in SET_UP}, **{k: r.get(k) for k in FIGURES}}
        if "variants" in r:
            row.update({f"variants.{k}": " ".join(f"{v:g}" for v in vs) if isinstance(vs, list) else vs
                        for k, vs in r["variants"].items()})
        if "set_up_rank" in r:
            row["set_up_rank"] = r["set_up_rank"]
        for name, fig in r["workloads"].items():
            row.update({f"{name}.iops": fig["iops"], f"{name}.bytes_per_s": fig["bytes_per_s"],
                        f"{name}.limited_by": fig["limited_by"]})
            event = (r.get("event_workloads") or {}).get(name)
            if event:
                row[f"{name}.event_over_fluid"] = event["event_over_fluid"]
                row.update({f"{name}.event_{p}_us": v for p, v in event["latency_us"].items()})
        row.update({f"margin.{k}": v for k, v in r["margins"].items()})
        rows.append(row)
    return rows


REJECTED_COLUMNS = ("engine", "level", "drive", "stage", "requirement", "achieved", "target", "resource", "reason")
"""rejected.csv's columns: written as its header even when no family was rejected (it was an empty line)."""


def _csv(rows: list[dict], columns: tuple[str, ...] = ()) -> str:
    columns = list(dict.fromkeys([*columns, *(k for row in rows for k in row)]))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def pareto_html(result: PlanResult) -> str:
    """An interactive 3-D scatter of the ranked candidates, the Pareto front highlighted."""
    import plotly.graph_objects as go  # noqa: PLC0415 - optional (the dashboard extra)

    front = set(result.pareto)
    traces = []
    for on_front, label, size in ((False, "ranked", 3), (True, "Pareto front", 6)):
        rows = [r for r in result.ranked if (r["rank"] in front) == on_front]
        traces.append(go.Scatter3d(
            x=[r.get("price_usd") or r["objective"] for r in rows],
            y=[performance(r, result.spec.requirements.workloads) for r in rows],
            z=[r.get("data_loss_probability") or 0.0 for r in rows], mode="markers", name=label,
            marker={"size": size}, text=[f"#{r['rank']} {r['drives']}x {r['drive']} RAID{r['level']} {r['engine']} "
                                        f"{r['strip_bytes'] // 1024}K {r['platform']}" for r in rows]))
    figure = go.Figure(traces)
    figure.update_layout(title="nvsim plan: price, performance, risk", scene={
        "xaxis_title": "price (USD)", "yaxis_title": "least headroom over the targets (x)",
        "zaxis_title": "P(data loss) per failure"})
    return figure.to_html(include_plotlyjs=True, full_html=True, div_id=PARETO_DIV_ID)  # not a random id: same input, same bytes


def _json(data: dict) -> str:
    """plan.json's text: a number that is undefined or unbounded (an unpriced candidate's
    objective) is null, as ``nvsim.io.json_ready`` writes it; Python's json writes NaN and
    Infinity, which strict JSON readers refuse."""
    return json.dumps(json_ready(data), indent=1, sort_keys=True, default=lambda v: json_ready(float(v)),
                      allow_nan=False) + "\n"


def _text_writer(text: str) -> Callable[[str], None]:
    def write(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")
    return write


def write_outputs(result: PlanResult, out: Path) -> list[Path]:
    """Write every output together; returns the paths written (pareto.html only with Plotly)."""
    files: list[tuple[Path, str]] = [
        (out / "plan.json", _json(result.as_dict())),
        (out / "ranking.csv", _csv(ranking_rows(result.ranked))),
        (out / "candidates.csv", _csv(ranking_rows(result.every_candidate))),
        (out / "rejected.csv", _csv([{k: v for k, v in f.items() if k != "closest"} for f in result.families],
                                    REJECTED_COLUMNS)),
    ]
    if has_plotly():
        files.append((out / "pareto.html", pareto_html(result)))
    for rank, scenario in sorted(result.scenarios.items()):
        files.append((out / "scenarios" / f"rank-{rank:02d}.yaml", yaml.safe_dump(scenario, sort_keys=False)))
    commit_together([(path, _text_writer(text)) for path, text in files], remove=stale_outputs(out, [p for p, _ in files]))
    return [path for path, _ in files]


def stale_outputs(out: Path, written: list[Path]) -> list[Path]:
    """The files an earlier plan left under ``out`` that this one does not write (a ``top: 10``
    answer's rank-04..10.yaml under a ``top: 3`` one; pareto.html without Plotly): removed in the
    same commit, so the folder holds exactly the answer just written. Only a plan's own file
    names are touched."""
    ours = [out / "pareto.html"] + sorted(p for p in (out / "scenarios").glob("rank-*.yaml") if RANK_FILE.fullmatch(p.name))
    return [p for p in ours if p.is_file() and p not in written]


SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K"), (1.0, ""))
"""The prefixes of the plan tables' cells, largest first (2^64 bytes is 18.4 EB)."""


def si_text(value, unit: str = "") -> str:
    """Three significant digits with an SI prefix (K, M, G, T, P, E): the plan tables' cells; "-"
    for none. A value that rounds up to 1,000 of its prefix takes the next one (999.7 TB is 1 PB).
    Until 2026-12-01 there was no prefix above T: a 1.35 PB array's cell read '1.35e+03TB'."""
    if value is None:
        return "-"
    for index, (factor, prefix) in enumerate(SI_PREFIXES):
        if abs(value) >= factor or factor == 1.0:
            text = f"{value / factor:.3g}"
            if index and abs(float(text)) >= 1000:
                factor, prefix = SI_PREFIXES[index - 1]
                text = f"{value / factor:.3g}"
            return f"{text}{prefix}{unit}"
    raise AssertionError("unreachable")


def set_up_text(r: dict) -> str:
    """'16x kioxia-cm7-r-30.72tb RAID6 64K xiraid asus-rs520a op10% +1 spare': a ranked row's set-up."""
    return (f"{r['drives']}x {r['drive']} RAID{r['level']} {r['strip_bytes'] // 1024}K {r['engine']} {r['platform']}"
            + (f" op{r['overprovisioning']:.0%}" if r["overprovisioning"] else "")
            + (f" +{r['hot_spares']} spare" if r["hot_spares"] else ""))


def variants_text(r: dict) -> str:
    """'3: strips 64K 128K 512K, spares 0 1': how many candidates of a ranked set-up are feasible and
    the strips, spares and overprovisioning shares they take (values that vary only)."""
    v = r.get("variants") or {}
    if v.get("candidates", 1) <= 1:
        return "1"
    parts = [(f"strips {' '.join(f'{b // 1024}K' for b in v['strips_bytes'])}", len(v["strips_bytes"])),
             (f"spares {' '.join(map(str, v['hot_spares']))}", len(v["hot_spares"])),
             (f"OP {' '.join(f'{x:.0%}' for x in v['overprovisioning'])}", len(v["overprovisioning"]))]
    return f"{v['candidates']}: " + ", ".join(text for text, n in parts if n > 1)


def stages_text(answer: dict) -> str:
    """'86,400 candidates: 75,474 pruned by exact filters, ...; 12 ranked' (the CLI's and the view's line)."""
    p = answer["pruned"]
    return (f"{answer['candidates']:,} candidates: {p['filters']:,} pruned by exact filters, {p['bounds']:,} by bounds, "
            f"{p['fluid']:,} by the fluid mode, {p.get('ranking', 0):,} by the objective (no better than the top), "
            f"{p['event']:,} by the event mode; {answer['ranked_count']:,} ranked, "
            f"{answer.get('set_ups_ranked', answer['ranked_count']):,} distinct set-ups{window_text(answer)}")


def window_text(answer: dict) -> str:
    """What the stages line adds when the event check did not run ``nvsim run``'s window
    (``event_host_ios`` set): the window it ran, so no one reads its figures as the run's."""
    window = answer.get("event_window") or {}
    if window.get("as_nvsim_run") is not False:
        return ""
    return (f"; the event check measured {window['host_ios']:,} host I/Os per workload (event_host_ios), not the "
            f"{EVENT_HOST_IOS:,} of `nvsim run --max-seconds 0`: its rates and percentiles are not the run's")


def print_plan(console: Console, result: PlanResult, written: list[Path]) -> None:
    """The stages' prunes, the ranked table with margins, and the rejected families."""
    console.print(stages_text(result.as_dict()), markup=False)
    reqs = result.spec.requirements.workloads
    names = [w.name for w in reqs]
    rate = {w.name: ("bytes_per_s", "B/s") if w.min_bytes_per_s and not w.min_iops else ("iops", "IOPS") for w in reqs}
    headers = ("rank", "set-up (best strip, spares, OP)", "feasible variants", "usable", "price $", "power W",
               *(f"{n} {rate[n][1]}" for n in names), "least margin", "event")
    rows = []
    for r in result.ranked[:result.spec.top]:
        least = min(r["margins"].items(), key=lambda kv: kv[1])
        rows.append((str(r["rank"]), set_up_text(r), variants_text(r),
                     si_text(r["usable_bytes"], "B"), si_text(r.get("price_usd")), si_text(r.get("power_w")),
                     *(si_text(r["workloads"][n][rate[n][0]]) for n in names), f"{least[0]} {least[1]:+.0%}", r["event"]))
    print_grid(console, Grid("Ranked set-ups (one per drive, count, level, engine and server; every candidate in candidates.csv)",
                             headers, (True, False, False) + (True,) * (len(headers) - 5) + (False, False), tuple(rows)))
    if result.families:
        print_grid(console, Grid("Rejected families (engine x RAID level x drive): the closest candidate's miss",
                                 ("family", "stage", "why"), (False, False, False),
                                 tuple((f"{f['engine']} RAID{f['level']} {f['drive']}", f["stage"], f["reason"].split(": ", 1)[1])
                                       for f in result.families)))
    if not has_plotly():
        console.print("note: plotly is not installed (pip install 'nvsim[dashboard]'): pareto.html not written", markup=False, soft_wrap=True)
    console.print(f"wrote {len(written)} files under {written[0].parent if written else '-'}", markup=False)


__all__ = ["write_outputs", "print_plan", "ranking_rows", "pareto_html", "has_plotly", "check_outputs", "output_paths", "stages_text", "window_text", "si_text",
           "set_up_text", "variants_text", "stale_outputs"]
