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


def _fault_scenario(tmp_path, faults, spares=0):
    data = yaml.safe_load((ROOT / "scenarios" / "scrub" / "md-raid5.yaml").read_text())
    data["faults"] = faults
    data["array"].pop("scrub", None)
    data["array"]["hot_spares"] = spares
    path = tmp_path / "faults.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_the_report_says_which_state_its_predictions_are_of_and_gives_the_fault_timeline(tmp_path, catalog):
    """A scenario with a member failed at 0 s and no spare is predicted degraded: the report says
    so, with the fault timeline ``nvsim run`` prints (until 2026-11-30 it printed the degraded
    figures with no word of the fault)."""
    path = _fault_scenario(tmp_path, [{"at_s": 0, "drive": 0, "action": "fail"}])
    html = report.report_html(report.scenario_record(path, catalog, fidelity="fluid"), catalog, faults=True)
    assert "<h2>Faults" not in report.report_html(report.scenario_record(path, catalog, fidelity="fluid"), catalog)
    assert "Array state: <b>degraded at 0 s: member(s) [0] missing, no spare</b>" in html
    section = html.split("<h2>Faults", 1)[1].split("<h2>", 1)[0]
    assert "<td>degraded</td>" in section and "Fault timeline under" in section


def test_the_report_gives_each_parity_check_as_nvsim_run_does(tmp_path, catalog):
    """A check refused (a member is missing) and one that runs: the same lines ``nvsim run`` prints
    (the report left both out)."""
    from nvsim.report import check_lines
    path = _fault_scenario(tmp_path, [{"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 60, "action": "check"}])
    html = report.report_html(report.scenario_record(path, catalog, fidelity="fluid"), catalog, faults=True)
    timeline = report.fault_state(report.scenario_record(path, catalog, fidelity="fluid"), catalog)[1]
    lines = check_lines(timeline)
    assert lines and "refused" in lines[0] and all(f"<p>{escape(line)}</p>" in html for line in lines)
    path = _fault_scenario(tmp_path, [{"at_s": 60, "action": "check"}])
    html = report.report_html(report.scenario_record(path, catalog, fidelity="fluid"), catalog, faults=True)
    assert "Parity check from 60 s: done at " in html


def test_a_report_of_an_array_that_has_lost_data_says_so_everywhere(tmp_path, catalog):
    path = _fault_scenario(tmp_path, [{"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 0, "drive": 1, "action": "fail"}])
    html = report.report_html(report.scenario_record(path, catalog, fidelity="fluid"), catalog, faults=True)
    assert "Array state: <b>data lost at 0 s:" in html and "<b>Data loss at 0 s</b>" in html
    assert "the array has lost data: no I/O completes" in html and "a single drive, answered by the SSD model" not in html


def test_a_report_without_faults_has_no_fault_section(catalog):
    record = report.scenario_record(ROOT / "scenarios" / "scrub" / "md-raid5.yaml", catalog, fidelity="fluid")
    assert "<h2>Faults" not in report.report_html(record, catalog, faults=True)


def test_an_oltp_workloads_row_gives_its_transactions_and_their_latency():
    """The Predictions table gave an OLTP workload's I/Os only, its mean latency 'n/a': the
    transactions per second and each one's latency, which ``nvsim run`` prints, were left out."""
    from nvsim import Simulation, default_catalog, load_scenario

    catalog = default_catalog()
    spec = load_scenario(ROOT / "scenarios" / "graid-mysql-oltp" / "md-raid6.yaml", catalog)
    workload = spec.workloads[0]
    record = {"workloads": [dict(core.workload_record(spec, workload, catalog, "fluid"))]}
    result = Simulation(spec, workload, catalog=catalog).run("fluid")
    row = report.prediction_rows(record)[0]
    assert row[1] == f"{core.fmt_count(result.transactions_per_s)} TPS ({core.fmt_count(result.total_iops)} IOPS)"
    assert row[3] == f"{core.fmt_us(result.simulation.transaction_latency_us['mean'])} per tx"


def test_the_report_refuses_volumes_and_writes_no_e_notation_and_means_over_every_io(tmp_path):
    """A scenario with volumes got a page of its first array priced with every volume's drives; a
    transaction of 1.75 s read '1.75e+03 ms'; the mean latency was the worse direction's."""
    from tests.conftest import run_cli

    done = run_cli("report", str(ROOT / "scenarios" / "hardware-cards" / "two-virtual-disks.yaml"), "-o",
                   str(tmp_path / "r.html"), "--fidelity", "fluid")
    assert done.returncode == 2 and "the one-page report shows one array" in done.stderr
    assert not (tmp_path / "r.html").exists()
    assert [core.fmt_us(v) for v in (1_746_000, 999_999, 1234.5, 50.5)] == ["1.75 s", "1.00 s", "1.23 ms", "50.5 µs"]
    mix = {"read_iops": 700.0, "write_iops": 300.0, "read_latency_us": {"mean": 940.5, "p99": 2000.0},
           "write_latency_us": {"mean": 1849.0, "p99": 3000.0}}
    assert core.latency_us(mix, "mean") == pytest.approx(0.7 * 940.5 + 0.3 * 1849.0)
    assert core.latency_us(mix, "p99") == 3000.0  # a percentile: the worse direction's


def test_the_rebuild_heading_says_how_the_slot_is_filled():
    """It said 'onto a spare' on arrays without one (nvsim run says the same: nvsim.rebuild.slot_words)."""
    assert report._slot_words({"scenario": {"array": {"hot_spares": 1}}}) == "onto a hot spare"
    assert report._slot_words({"scenario": {"array": {"hot_spares": 0}}}) == "no hot spare: replaced at once"
    assert report._slot_words({"scenario": {"array": {"replace_hours": 24}}}) == "no hot spare: replaced after 24 h"


def test_the_rebuild_heading_takes_only_numbers_from_a_record_the_browser_sent_back():
    """The report renders records a client sent back: a string in place of replace_hours made the
    heading's number format raise (a page error) instead of reading as no wait."""
    assert report._slot_words({"scenario": {"array": {"replace_hours": "x{y}", "hot_spares": "1"}}}) == \
        "no hot spare: replaced at once"


def test_an_idle_array_has_its_price_and_idle_power_and_a_spare_is_in_the_title(tmp_path):
    """An idle scenario's report printed n/a for its price and watts, which nvsim run prints; a hot
    spare was counted in the price and named by the rebuild heading, but not in the title."""
    import re

    from dashboard import report

    record = report.scenario_record("scenarios/graid-gen5-raid6/capacity-24x-30.72tb.yaml", fidelity="fluid")
    text = re.sub(r"<[^>]+>", " ", report.report_html(record))
    assert "Cost and power (idle)" in text and "price $192,000" in " ".join(text.split())
    assert "of 1 rated" in text
    spared = report.scenario_record("scenarios/hardware-cards/rebuild-high.yaml", fidelity="fluid")
    assert report.title(spared, report.default_catalog()).startswith("16 x KIOXIA CM7-R 3.84 TB + 1 hot spare, RAID5")


def test_an_oltp_report_draws_its_curve_against_users_and_a_cut_curve_says_so(monkeypatch):
    """OLTP curves had no mean latency (a transaction's was not read) and the heading stood over
    nothing; a curve cut by its time budget drew a short line with no word of it."""
    import re

    from dashboard import curves, report

    record = report.scenario_record("scenarios/graid-mysql-oltp/md-raid6.yaml", fidelity="fluid")
    svg = report.curve_svg(record, report.default_catalog())
    assert "<svg" in svg and "OLTP users" in svg
    monkeypatch.setattr(curves, "CURVE_BUDGET_S", 0.0)
    cut = report.curve_svg(report.scenario_record("scenarios/graid-gen5-raid6", fidelity="fluid"), report.default_catalog())
    assert "curve's time budget" in cut or "curve: n/a (stopped after 0 s" in re.sub(r"\s+", " ", cut)


def test_the_pages_counts_and_rates_keep_their_digits_and_take_the_prefix_their_size_takes():
    """'0.00646 GB/s' for 6.46 MB/s, '1 M' beside '1.01 M', and e-notation past 1,000 G."""
    from dashboard.core import fmt_count, fmt_gb_per_s

    assert [fmt_count(v) for v in (1e6, 1.01e6, 1.2e12)] == ["1.00 M", "1.01 M", "1,200 G"]
    assert [fmt_gb_per_s(v) for v in (6.46e6, 2.5e9, 1.2e12)] == ["6.46 MB/s", "2.50 GB/s", "1,200 GB/s"]
