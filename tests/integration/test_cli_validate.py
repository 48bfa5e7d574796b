"""`nvsim validate` with no published numbers to find fails in one line (exit status 2), with or
without --strict: validating nothing is not a pass (issue 40)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, run_cli


def test_validate_with_no_published_numbers_exits_2_in_one_line(tmp_path):
    for strict in ((), ("--strict",)):
        done = run_cli("validate", "--scenarios", str(tmp_path), "--workers", "1", *strict)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: published numbers: none found: looked for ")
        assert str(tmp_path) in done.stderr and "published.yaml" in done.stderr
        assert "numbers modelled" not in done.stdout


def test_published_files_without_numbers_are_not_a_pass(tmp_path):
    """A published.yaml of `numbers: []` printed an empty table and exited 0, --strict and --json too
    (a helper's finding): nothing compared is exit 2 in one line, and no output is written."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "published.yaml").write_text("source: kioxia-cm7-brief\nnumbers: []\n")
    out = tmp_path / "o.json"
    for extra in (("--strict",), ("--json", "-o", str(out))):
        done = run_cli("validate", "--scenarios", str(tmp_path / "a"), "--workers", "1", *extra)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "hold no numbers, so nothing was compared" in done.stderr
    assert not out.exists()


def test_an_install_without_the_clones_scenarios_and_without_the_package_copy_fails(tmp_path):
    """The default search (a clone's scenarios/, then nvsim._scenarios) finding nothing: exit 2."""
    code = ("import sys; from pathlib import Path; import nvsim.published as p; "
            f"p.SCENARIO_ROOTS = (Path({str(tmp_path / 'clone')!r}), Path({str(tmp_path / 'package')!r})); "
            "from nvsim.cli import main; main(sys.argv[1:])")
    done = subprocess.run([sys.executable, "-c", code, "validate", "--strict", "--workers", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert str(tmp_path / "clone") in done.stderr and str(tmp_path / "package") in done.stderr


def test_strict_exits_1_on_a_number_out_of_tolerance_without_a_reason(tmp_path):
    """`--strict` is an exit status, not only a flag: a number outside its tolerance with no written
    reason gives 1 (it gave 0: click hands typer.Exit back as a return value)."""
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "scenario.yaml").write_text((ROOT / "scenarios/graid-gen5-raid6/capacity-24x-30.72tb.yaml").read_text())
    (folder / "published.yaml").write_text(
        "source: seed-000\nnumbers:\n  - {id: capacity-wrong, scenario: scenario.yaml, metric: usable_capacity_bytes, "
        "value: 100 TB, unit: bytes, tolerance: {relative: 0.005}, table: t, wording: w}\n")
    loose = run_cli("validate", "--scenarios", str(folder), "--workers", "1")
    strict = run_cli("validate", "--scenarios", str(folder), "--workers", "1", "--strict")
    assert loose.returncode == 0 and "OUT" in loose.stdout, loose.stderr
    assert strict.returncode == 1, strict.stderr
