"""The one-page report (``nvsim report``) has a "Resync after an unclean shutdown" section where
the scenario asks for one (``array.unclean_shutdown``), with the figures ``nvsim run`` prints and
writes under ``resilience.unclean_shutdown`` (``nvsim.rebuild.unclean_shutdown_summary``); a
scenario without one has none. Fluid mode throughout."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import pytest
import yaml

from dashboard import core, report
from nvsim.units import format_bytes_binary, format_significant

ROOT = Path(__file__).resolve().parents[2]
UNCLEAN = ROOT / "scenarios" / "unclean-shutdown"
HEADING = "Resync after an unclean shutdown"


@pytest.fixture(scope="module")
def md_raid6(tmp_path_factory):
    """(the report's HTML from the CLI, ``resilience.unclean_shutdown`` of ``nvsim run --json``)."""
    from tests.conftest import run_cli
    scenario = UNCLEAN / "md-raid6.yaml"
    out = tmp_path_factory.mktemp("report") / "us.html"
    written = run_cli("report", str(scenario), "-o", str(out), "--fidelity", "fluid")
    assert written.returncode == 0, written.stderr
    ran = run_cli("run", str(scenario), "--fidelity", "fluid", "--json")
    assert ran.returncode == 0, ran.stderr
    return out.read_text(encoding="utf-8"), json.loads(ran.stdout)["resilience"]["unclean_shutdown"]


def test_the_report_has_the_resync_with_the_figures_nvsim_run_gives(md_raid6):
    html, resync = md_raid6
    assert f"<h2>{HEADING} (fluid mode)</h2>" in html
    section = html.split(f"<h2>{HEADING}", 1)[1].split("<h2>", 1)[0]
    hours = lambda value: f"{format_significant(value, 3)} h"  # noqa: E731
    expected = [
        f"{resync['workload_at_crash']} ({resync['write_iops_at_crash']:,.0f} writes/s)",
        f"{resync['bitmap']}, {format_bytes_binary(resync['bitmap_chunk_bytes'], 0)} chunks: "
        f"{resync['dirty_chunks']:,.0f} dirty of the {resync['chunks']:,.0f} the writes touch",
        core.fmt_bytes(resync["span_bytes"]),
        f"{hours(resync['idle_hours'])} ({resync['idle_mb_per_s']:,.0f} MB/s per drive; {resync['idle_limited_by']})",
        f"resync time, under {resync['workload']}",
        f"{hours(resync['loaded_hours'])} ({resync['loaded_mb_per_s']:,.0f} MB/s per drive; {resync['loaded_limited_by']})",
        f"{core.fmt_count(resync['host_iops_during'])} / {core.fmt_count(resync['host_iops_optimal'])} "
        f"({100 * resync['host_share']:.0f} %)",
    ]
    for text in expected:  # each as the section writes it: escaped (report._pairs)
        assert escape(text) in section, text


def test_without_a_bitmap_the_report_resyncs_every_member_whole(catalog):
    record = report.scenario_record(UNCLEAN / "no-bitmap.yaml", catalog, fidelity="fluid")
    section = report.resync_html(record, catalog)
    assert HEADING in section
    assert "<td>no write-intent bitmap: every member whole</td>" in section
    assert "<td>3.84 TB</td>" in section  # the whole 3.84 TB member
    assert section in report.report_html(record, catalog)


def test_a_workload_name_in_the_section_is_escaped(catalog):
    data = yaml.safe_load((UNCLEAN / "no-bitmap.yaml").read_text())
    data["workloads"][0]["name"] = "<i>w&x</i>"
    section = report.resync_html({"scenario": data}, catalog)
    assert HEADING in section and "<i>" not in section
    assert "&lt;i&gt;w&amp;x&lt;/i&gt; (" in section


def test_a_scenario_without_an_unclean_shutdown_has_no_resync_section(catalog):
    record = report.scenario_record(ROOT / "scenarios" / "graid-gen5-raid6", catalog, fidelity="fluid")
    assert not record["scenario"]["array"].get("unclean_shutdown")
    assert report.resync_html(record, catalog) == ""
    assert HEADING not in report.report_html(record, catalog)
