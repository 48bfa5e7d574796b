"""What a user sees in a terminal: tables laid out for its width (COLUMNS, or 100 columns when the
output goes to a file), every number whole on one line, no e-notation, units in the headers."""

import json
import os
import re
import subprocess
import sys

import pytest
from rich.cells import cell_len
from rich.console import Console

from nvsim.cli import NOT_A_TERMINAL_COLUMNS, console_width
from nvsim.catalog import default_catalog
from nvsim.io import write_json_atomic
from nvsim.names import product_name
from nvsim.scenario import load_scenario
from nvsim.report import Grid, prediction_columns, print_grid
from nvsim.units import column_scale, format_large, format_probability, format_significant
from tests.conftest import ROOT

SCENARIO = "scenarios/graid-gen5-raid6"
E_NOTATION = re.compile(r"\d[eE][-+]?\d")


def _run(tmp_path, columns: int | None, *args: str) -> str:
    """`nvsim run` with its stdout sent to a file, as `nvsim run ... > file` does."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    out = tmp_path / f"out-{columns}.txt"
    with open(out, "w", encoding="utf-8") as handle:
        done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", SCENARIO, "--fidelity", "fluid", *args],
                              cwd=ROOT, stdout=handle, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def _whole(text: str, cell: str) -> bool:
    """Whether ``cell`` appears in ``text`` as a whole number (not the piece of a longer one)."""
    return re.search(rf"(?<![\d.,]){re.escape(cell)}(?![\d.,])", text) is not None


@pytest.fixture(scope="module")
def predictions():
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", SCENARIO, "--fidelity", "fluid", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("columns", [100, 80, None])
def test_every_number_of_run_survives_whole(tmp_path, predictions, columns):
    """At 100 and 80 columns and to a file (100 columns): no line wider than the width, no cut cell
    ("…"), no e-notation, and every predicted number, bound and risk figure printed whole."""
    text = _run(tmp_path, columns)
    width = columns or NOT_A_TERMINAL_COLUMNS
    assert max(cell_len(line) for line in text.splitlines()) <= width
    assert "…" not in text and not E_NOTATION.search(text)
    cells = [cell for _, column in prediction_columns(predictions["predictions"]) for cell in column if cell != "-"]
    assert len(cells) >= 20
    for bound in predictions["bounds"]:
        factor, _ = column_scale([bound["value"]], "IOPS" if bound["unit"] == "IOPS" else "B/s")
        cells.append(format_significant(bound["value"] / factor))
    risk = predictions["resilience"]["if_one_drive_fails"]
    cells += [format_probability(risk["data_loss_probability"]), format_large(risk["mttdl_years"])]
    costs = predictions["cost_power"]
    cells += [f"{c['power_w']:,.0f}" for c in costs["per_workload"].values()]
    cells += [f"{c['usd_per_gb_per_s']:,.0f}" for c in costs["per_workload"].values()]
    cells.append(f"${costs['idle']['price_usd']:,.0f}")
    missing = [cell for cell in cells if not _whole(text, cell)]
    assert not missing, f"cut or missing at {width} columns: {missing}"


def test_units_are_in_the_headers(tmp_path):
    text = _run(tmp_path, 160)
    for header in ("M IOPS", "GB/s", "CPU %", "RAID WAF", "mean read µs", "mean write µs"):
        assert header in text
    assert "M IOPS" in text.split("Upper bounds")[1]


def test_a_table_too_wide_is_transposed_not_cut():
    """A table with more number columns than the width holds is printed with its rows as columns,
    in pieces, each number whole."""
    headers = ("workload",) + tuple(f"metric {i} GB/s" for i in range(12))
    rows = tuple((f"job-{j}", *(format_significant(123456.789 * (j + 1) / (i + 1)) for i in range(12))) for j in range(5))
    console = Console(width=60, record=True, file=open(os.devnull, "w"))
    print_grid(console, Grid("wide", headers, (False,) + (True,) * 12, rows))
    text = console.export_text()
    assert max(cell_len(line) for line in text.splitlines()) <= 60
    for row in rows:
        for cell in row[1:]:
            assert _whole(text, cell), cell


def test_console_width_honours_columns_then_the_terminal_then_100():
    assert console_width({"COLUMNS": "72"}, is_terminal=False) == 72
    assert console_width({}, is_terminal=False) == NOT_A_TERMINAL_COLUMNS
    assert console_width({}, is_terminal=True) is None  # rich asks the terminal
    assert console_width({"COLUMNS": "wide"}, is_terminal=False) == NOT_A_TERMINAL_COLUMNS


@pytest.mark.parametrize("value, text", [(28.0, "28.00"), (0.24791, "0.2479"), (45740.2, "45,740"), (0.0, "0"),
                                         (87.314, "87.31")])
def test_significant_digits_without_e_notation(value, text):
    assert format_significant(value) == text


@pytest.mark.parametrize("p, text", [(1.98e-11, "1 in 50.5 billion"), (0.025, "2.50%"), (0.0, "0"), (1e-30, "1 in 1.0×10³⁰")])
def test_probabilities_read_as_odds(p, text):
    assert format_probability(p) == text


def test_version_and_full_help():
    version = subprocess.run([sys.executable, "-m", "nvsim.cli", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert version.returncode == 0 and re.fullmatch(r"nvsim \d+\.\d+\.\d+\S*\n", version.stdout)
    helped = subprocess.run([sys.executable, "-m", "nvsim.cli", "--help"], cwd=ROOT, capture_output=True, text=True)
    commands = " ".join(helped.stdout.split("Commands:")[1].split())
    assert "..." not in commands and "write amplification and the resource that limits it." in commands


def test_output_files_get_the_umask_mode(tmp_path):
    """Files written atomically get the mode ``open()`` would give them (0644 under umask 022), not
    mkstemp's 0600."""
    old = os.umask(0o022)
    try:
        path = write_json_atomic(tmp_path / "r.json", {"a": 1})
        assert path.stat().st_mode & 0o777 == 0o644
        os.umask(0o027)
        assert write_json_atomic(tmp_path / "s.json", {}).stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


NAME_PARTS = re.compile(r"[^-_/\s]+[-_/]*")


def _names(predictions) -> list[str]:
    """The names a run prints: its workloads, and its drive's, engine's and server's product names."""
    spec, catalog = load_scenario(ROOT / SCENARIO), default_catalog()
    return [*predictions["predictions"], product_name(catalog, "drives", spec.array.drive),
            product_name(catalog, "engines", spec.array.engine), catalog.platforms[spec.platform].model.split()[0]]  # prose wraps at spaces


def _cut_mid_part(text: str, names: list[str]) -> list[str]:
    """Table cell pieces (between '│' rules) that are a piece of a name only where it begins or
    ends inside one of the name's parts: 'randread-b4k-j192' then '-d32' (a fold mid-token), where
    'randread-b4k-' then 'j192-d32' is a wrap at its parts."""
    def at_parts(piece: str, name: str) -> bool | None:
        ends = {0, len(name)} | {m.end() for m in NAME_PARTS.finditer(name)} \
            | {m.start() + len(m.group().rstrip("-_/")) for m in NAME_PARTS.finditer(name)}
        starts = [i for i in range(len(name)) if name.startswith(piece, i)]
        return any(i in ends and i + len(piece) in ends for i in starts) if starts else None

    cut = []
    for line in text.splitlines():
        for piece in (p.strip() for p in line.split("│")[1:-1]):
            verdicts = [at_parts(piece, name) for name in names] if len(piece) >= 3 else []
            if any(v is False for v in verdicts) and not any(verdicts):
                cut.append(piece)
    return cut


@pytest.mark.parametrize("columns", [80, 100])
def test_names_fold_only_at_their_parts(tmp_path, predictions, columns):
    """At 80 and 100 columns a name too long for its cell wraps after a '-' (randread-b4k-|j192-d32),
    never inside a part (randread-b4k-j1|92-d32)."""
    text = _run(tmp_path, columns)
    words = [word for name in _names(predictions) for word in name.split()]  # product names wrap at their spaces
    assert not _cut_mid_part(text, words)


def test_a_name_longer_than_its_cell_wraps_at_its_parts():
    rows = tuple((f"randread-b4k-j192-d32-{j}", "kioxia-cm7-r-3.84tb", f"{j * 1000:,}") for j in range(3))
    console = Console(width=40, record=True, file=open(os.devnull, "w"))
    print_grid(console, Grid("names", ("workload", "drive", "IOPS"), (False, False, True), rows))
    text = console.export_text()
    assert "│ b4k-j192-" in text and not _cut_mid_part(text, [r[0] for r in rows] + [rows[0][1]])  # randread-|b4k-j192-|d32-0


@pytest.mark.parametrize("columns", [80, 100])
def test_names_are_not_coloured_inside(tmp_path, columns, predictions):
    """On a colour terminal (FORCE_COLOR) no escape code falls inside a name (rich's highlighter
    colours the 3.84 of kioxia-cm7-r-3.84tb as a number): each name is found as often as in the
    same output without colour."""
    env = {**{k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}, "COLUMNS": str(columns),
           "FORCE_COLOR": "1", "TERM": "xterm-256color"}
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", SCENARIO, "--fidelity", "fluid"], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" in done.stdout  # colour is on: the table's bold headers
    plain = _run(tmp_path, columns)
    for name in _names(predictions):
        assert done.stdout.count(name) == plain.count(name) > 0, name
