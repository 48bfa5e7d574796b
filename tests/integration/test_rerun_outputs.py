"""Outputs are what a rerun gives: a plan folder holds exactly the answer just written (a `top: 3`
answer written where a `top: 10` one was leaves no rank-04..10.yaml behind, and the removal is part
of the one commit), and every file is byte-identical for the same input and seed -- the HTML files
too (plan's pareto.html, the report, the dashboard's chart export), whose Plotly div ids were
random."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from nvsim.cli import main
from nvsim.io import commit_together, journal_path, recover_commit

PLAN = {
    "requirements": {"usable_bytes": "1 TB",
                     "workloads": [{"name": "rr", "profile": "randread-4k", "numjobs": 4, "iodepth": 8, "min_iops": 1000}]},
    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"],
               "engines": ["linux-md", "xinnor-xiraid"], "drive_counts": [4, 6, 8], "levels": [0, 5],
               "strips_bytes": ["64KiB", "128KiB"]},
    "objective": "drives", "top": 10, "confirm": 0, "seed": 3,
}


def _nvsim(*argv) -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in argv])
        except SystemExit as exc:
            assert exc.code in (0, None), err.getvalue()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _plan(tmp_path: Path, out: str, **changes) -> Path:
    spec = tmp_path / f"plan-{out}.yaml"
    spec.write_text(yaml.safe_dump({**PLAN, **changes}))
    _nvsim("plan", spec, "-o", tmp_path / out, "--workers", "1")
    return tmp_path / out


def test_a_plan_twice_gives_the_same_bytes_in_every_file_pareto_html_included(tmp_path):
    first, second = _files(_plan(tmp_path, "a")), _files(_plan(tmp_path, "b"))
    assert "pareto.html" in first and "scenarios/rank-10.yaml" in first
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_a_top_3_answer_over_a_top_10_folder_leaves_exactly_the_top_3_answer(tmp_path):
    _plan(tmp_path, "out", top=10)
    (tmp_path / "out" / "notes.txt").write_text("mine")  # not a plan's file: left alone
    _plan(tmp_path, "out", top=3)
    fresh = _files(_plan(tmp_path, "fresh", top=3))
    assert sorted(p.name for p in (tmp_path / "out" / "scenarios").iterdir()) == ["rank-01.yaml", "rank-02.yaml", "rank-03.yaml"]
    assert _files(tmp_path / "out") == fresh | {"notes.txt": b"mine"}


def test_a_removal_is_part_of_the_commit_a_killed_writer_leaves(tmp_path, monkeypatch):
    """The stale file is in the commit's journal: a writer killed after the journal (here: at its
    first rename) has already removed it with the old files, and the next writer finishes the
    commit; the journal gone, the folder holds the new answer only."""
    keep, stale = tmp_path / "plan.json", tmp_path / "scenarios" / "rank-04.yaml"
    commit_together([(keep, lambda t: Path(t).write_text("old")), (stale, lambda t: Path(t).write_text("old"))])
    real_replace = os.replace
    calls = []

    def die_at_the_first_rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # the journal's own rename (the commit point), then plan.json's: killed here
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", die_at_the_first_rename)
    with contextlib.suppress(KeyboardInterrupt):
        commit_together([(keep, lambda t: Path(t).write_text("new"))], remove=[stale])
    monkeypatch.setattr(os, "replace", real_replace)
    assert not keep.exists() and not stale.exists()  # the old files went first, the stale one with them
    assert recover_commit(journal_path(keep))
    assert keep.read_text() == "new" and not stale.exists() and not journal_path(keep).exists()


def test_the_report_html_twice_is_the_same_bytes(tmp_path):
    scenario = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid6-4k.yaml"
    _nvsim("report", scenario, "-o", tmp_path / "a.html", "--fidelity", "fluid")
    _nvsim("report", scenario, "-o", tmp_path / "b.html", "--fidelity", "fluid")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


def _pdf_report_missing() -> str | None:
    from dashboard import report
    return report.pdf_missing()


@pytest.mark.skipif(_pdf_report_missing() is not None, reason="no Chromium to print with")
def test_the_report_pdf_is_dated_the_reports_date_so_twice_is_the_same_bytes(tmp_path):
    """The PDF's creation and modification dates are the date the report prints (--date), at
    midnight UTC, not the moment Chromium printed it: the same report twice is the same bytes."""
    scenario = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid6-4k.yaml"
    for name in ("a.pdf", "b.pdf"):
        _nvsim("report", scenario, "-o", tmp_path / name, "--fidelity", "fluid", "--date", "2020-01-02")
    first = (tmp_path / "a.pdf").read_bytes()
    assert re.findall(rb"/(?:Creation|Mod)Date \((D:[^)]*)\)", first) == [b"D:20200102000000+00'00'"] * 2
    assert first == (tmp_path / "b.pdf").read_bytes()


def test_the_dashboards_chart_export_twice_is_the_same_bytes(catalog):
    from dashboard import core
    from dashboard.app import _main_figures, charts_html

    record = core.compute(core.default_setup(), catalog=catalog)
    pages = [charts_html("same", list(_main_figures(record).values()), core.result_rows(record)) for _ in range(2)]
    assert "plotly-graph-div" in pages[0] and pages[0] == pages[1]
