"""The dashboard in a real browser: headless Chromium (Debian's chromium + chromium-driver) drives
the page served by a Dash server started here on a free port.

Without Chromium these tests FAIL (CI installs it: `make system-packages`); set NVSIM_NO_BROWSER=1
to skip them on purpose.
"""

import os
from pathlib import Path

import pytest

from dashboard import core, curves
from dashboard.browser import Browser, missing
from nvsim import Simulation, load_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def page():
    reason = missing()
    if reason:
        if os.environ.get("NVSIM_NO_BROWSER") == "1":
            pytest.skip(f"NVSIM_NO_BROWSER=1: {reason}")
        pytest.fail(reason)
    from dashboard.app import ServerThread, create_app

    server = ServerThread(create_app())
    browser = Browser()
    try:
        browser.open(server.url)
        browser.url = server.url
        yield browser
    finally:
        browser.quit()
        server.stop()


def reset(page: Browser) -> None:
    """Back to the default set-up (a fresh page load)."""
    page.open(page.url)


def expected_iops(catalog, **changes) -> float:
    """What the page must show for the default set-up with ``changes`` (the same fluid model)."""
    record = core.compute(core.default_setup(catalog) | changes, catalog=catalog)
    return record["workloads"][0]["total_iops"]


def shows_iops(page: Browser, value: float) -> float:
    return page.wait_value("m-iops", lambda v: v == pytest.approx(value, rel=1e-9), 20)


def test_page_loads_with_numbers_and_fetches_nothing_from_outside(page):
    reset(page)
    assert page.value("m-iops") > 1e6 and page.text("m-iops").endswith("M")
    assert page.value("m-capacity") == 84_480_000_000_000
    assert "fluid mode" in page.text("mode")
    assert "at 100%" in page.text("bottleneck")
    assert page.external_requests(page.url) == []
    severe = [e for e in page.driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_changing_the_drive_count_changes_the_numbers(page, catalog):
    reset(page)
    page.choose_radio("engine", "xinnor-xiraid")  # host cores limit 24 drives; the drives limit 12
    iops_24 = shows_iops(page, expected_iops(catalog, engine="xinnor-xiraid"))
    assert page.text("bottleneck").startswith("host cores")
    page.type_into("drives", "12")
    iops_12 = shows_iops(page, expected_iops(catalog, engine="xinnor-xiraid", drives=12))
    assert iops_12 < iops_24 and page.text("bottleneck").startswith("drive NAND")
    assert page.value("m-capacity") == 10 * 3_840_000_000_000  # RAID6: 12 - 2 members of data
    assert "ms" in page.text("answer-time")


def test_invalid_input_shows_its_message_next_to_the_control_and_the_server_stays_up(page, tmp_path):
    reset(page)
    page.type_into("drives", "3")
    message = page.wait(lambda: page.text("drives-error"), 15, "the drive-count message")
    assert message == "array: drives: RAID6 needs at least 4 drives, got 3"
    assert page.element("drives-field").find_element("id", "drives-error").is_displayed()
    assert page.text("m-iops") == "n/a"
    page.type_into("drives", "24")
    page.wait(lambda: page.text("drives-error") == "" and page.value("m-iops"), 15, "the message to clear")

    page.choose_radio("namespace-mode", "size")
    page.type_into("namespace-value", "10 TB")
    # the field is empty for a moment after the mode switch ("enter a namespace size..."): wait for
    # the message about what was typed, not the first one
    message = page.wait(lambda: "10.00 TB" in page.text("namespace-error") and page.text("namespace-error"), 15,
                        "the namespace message")
    assert "namespace_bytes: 10.00 TB is larger than the drive" in message

    broken = tmp_path / "broken.fio"
    broken.write_text("[global]\nioengine=libaio\n[job]\nrw=randread\nbs=4q\n")
    page.upload("fio-upload", broken)
    note = page.wait(lambda: page.text("fio-note"), 15, "the fio message")
    assert note.startswith("broken.fio line 5") and "bs" in note

    page.type_into("namespace-value", "3.2 TB")  # the server is still up and answers
    page.wait(lambda: page.text("namespace-error") == "" and page.value("m-capacity") == 22 * 3_200_000_000_000,
              15, "the shrunken namespace's capacity")


def test_simulate_runs_the_event_model_with_progress_and_replaces_the_numbers(page):
    reset(page)
    assert page.text("m-p99") == "n/a"
    page.click("simulate")
    page.wait(lambda: page.text("sim-status").startswith("event mode"), 10, "the progress text")
    assert not page.element("simulate").is_enabled()  # one run at a time; the page stays live
    page.wait(lambda: "finished" in page.text("sim-status"), 90, "the event-mode run")
    page.wait(lambda: page.text("mode").startswith("event mode") and page.value("m-p99"), 10, "the event-mode numbers")
    p50, p99, p999 = page.value("m-p50"), page.value("m-p99"), page.value("m-p999")
    assert 0 < p50 <= p99 <= p999
    assert page.element("simulate").is_enabled()
    page.type_into("drives", "20")  # a new set-up: back to fluid numbers, percentiles n/a again
    page.wait(lambda: page.text("m-p99") == "n/a" and "fluid" in page.text("mode"), 15, "fluid numbers")


def test_compare_two_set_ups_side_by_side(page, catalog):
    reset(page)
    page.choose_radio("engine", "linux-md")
    md_iops = shows_iops(page, expected_iops(catalog, engine="linux-md"))
    page.click("add-compare")
    page.wait(lambda: "added A:" in page.text("add-note"), 10, "set-up A")
    page.choose_radio("engine", "graid-supremeraid-sr1010")
    gpu_iops = shows_iops(page, expected_iops(catalog))
    page.click("add-compare")
    page.wait(lambda: "added B:" in page.text("add-note"), 10, "set-up B")
    page.click("tab-compare")  # the views switch in the browser after the click returns: wait for it
    assert page.wait(lambda: not page.element("view-setup").is_displayed(), 10, "the set-up view to hide")
    table = page.wait(lambda: page.element("compare-values"), 10, "the comparison table")
    assert "A: 24x KIOXIA CM7-R 3.84 TB RAID6, Linux kernel md (mdadm)" in table.text
    assert "B: 24x KIOXIA CM7-R 3.84 TB RAID6, Graid Technology SupremeRAID SR-1010" in table.text
    cells = page.element("compare-row-total_iops").find_elements("tag name", "td")
    assert [float(c.get_attribute("data-value")) for c in cells] == [pytest.approx(md_iops), pytest.approx(gpu_iops)]
    bars = page.wait(lambda: page.driver.execute_script(
        "const g = document.querySelector('#compare-graph .js-plotly-plot');"
        "return g && g.data && g.data.map(t => t.y.length);"), 10, "the comparison bars")
    assert bars == [1] * 18  # nine charts, one bar per set-up in each
    page.click("tab-setup")  # the view switches in the browser after the click returns: wait for it
    assert page.wait(lambda: page.element("m-iops").is_displayed(), 10, "the set-up view again")


def test_exported_scenario_gives_the_same_prediction_and_imports_back(page, catalog):
    reset(page)
    page.choose_radio("level", "10")
    page.type_into("drives", "16")
    page.wait(lambda: page.value("m-capacity") == 8 * 3_840_000_000_000, 15, "RAID10 capacity")
    shown_iops = page.value("m-iops")
    before = {p.name for p in page.downloads.iterdir()}
    page.click("export-yaml")
    exported = page.downloaded(".yaml", after=before)
    spec = load_scenario(exported, catalog)
    assert (spec.array.level, spec.array.drives) == (10, 16)
    assert Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid").total_iops == pytest.approx(shown_iops, rel=1e-9)

    page.click("export-csv")
    table = page.downloaded(".csv", after=before).read_text()
    assert table.splitlines()[0].startswith("setup,scenario,platform") and len(table.splitlines()) == 2

    reset(page)  # load the exported file back through the upload control
    page.upload("scenario-upload", exported)
    page.wait(lambda: page.value("m-capacity") == 8 * 3_840_000_000_000, 15, "the imported set-up")
    assert page.value("m-iops") == pytest.approx(shown_iops, rel=1e-9)
    assert "loaded" in page.text("import-note")


def test_reference_scenario_import_lists_all_its_workloads(page):
    reset(page)
    page.upload("scenario-upload", ROOT / "scenarios/graid-gen5-raid6/md-raid6-4k.yaml")
    page.wait(lambda: "write-b1m-j192-d16" in page.text("workloads"), 20, "the imported workloads")
    rows = page.element("workloads").find_elements("css selector", "tbody tr")
    assert len(rows) == 4
    assert page.element("engine").find_element("css selector", "input[value='linux-md']").is_selected()


# ---------------------------------------------------------------- issue 23: the selling views

DATASHEET = {"ds-model": "PM1743 7.68 TB", "ds-vendor": "Samsung", "ds-capacity": "7.68 TB", "ds-dwpd": "1",
             "ds-seq-read": "14 GB/s", "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K"}


def traces(page: Browser, graph: str) -> list:
    """[name, x, y] of every trace of a chart, as the browser holds them."""
    return page.driver.execute_script(
        f"const g = document.querySelector('#{graph} .js-plotly-plot');"
        "return g && g.data && g.data.map(t => [t.name || '', Array.from(t.x || []), Array.from(t.y || [])]);")


def test_curves_follow_the_set_up_and_add_event_mode_p99(page, catalog):
    reset(page)
    page.click("tab-curves")
    load = page.wait(lambda: traces(page, "load-graph"), 20, "the load curve")
    assert load[0][0] == "IOPS (fluid)" and len(load[0][1]) >= 8 and 192 * 32 in load[0][1]
    expected = curves.drive_curve(core.compute(core.default_setup(catalog), catalog=catalog)["scenario"], catalog)
    drives = page.wait(lambda: traces(page, "drives-graph"), 20, "the drive-count curve")
    assert drives[0][1] == [p["x"] for p in expected["points"]]
    assert drives[0][2] == [pytest.approx(p["iops"], rel=1e-9) for p in expected["points"]]
    refused = ", ".join(s.split(":")[0] for s in expected["skipped"])
    assert refused and refused in page.text("curve-note")  # what the engine or server refuses is said, not drawn
    page.type_into("drives", "12")  # the controls stay beside the curves, and the curves follow them
    page.wait(lambda: page.driver.execute_script(
        "return document.querySelector('#drives-graph .js-plotly-plot').layout.shapes[0].x0") == 12, 20, "the new set-up's line")
    page.click("curve-simulate")
    page.wait(lambda: "finished" in page.text("curve-status"), 150, "the event-mode load points")
    p99 = page.wait(lambda: next((t for t in traces(page, "load-graph") if t[0] == "p99 (event mode)"), None), 20, "the p99 curve")
    mean = dict(zip(load[1][1], load[1][2]))
    assert len(p99[1]) >= 4 and all(y > 0 for y in p99[2])
    assert p99[2][-1] > p99[2][0]  # deeper queues wait longer
    assert page.element("simulate").is_enabled() and page.element("curve-simulate").is_enabled()
    assert mean  # the fluid mean is drawn beside it


def test_a_link_reopens_the_set_up_and_a_bad_link_says_why(page):
    reset(page)
    page.choose_radio("engine", "linux-md")
    page.type_into("drives", "12")
    page.wait(lambda: "drives=12" in page.driver.current_url and "engine=linux-md" in page.driver.current_url, 20, "the link")
    page.wait(lambda: page.value("m-capacity") == 10 * 3_840_000_000_000, 15, "the 12-drive numbers")
    link, iops = page.driver.current_url, page.value("m-iops")
    page.open(page.url)  # the default set-up first, then the link in a fresh page
    assert page.value("m-capacity") == 22 * 3_840_000_000_000
    page.open(link)
    page.wait(lambda: page.value("m-capacity") == 10 * 3_840_000_000_000, 20, "the linked set-up")
    assert page.value("m-iops") == pytest.approx(iops, rel=1e-9)
    assert page.element("engine").find_element("css selector", "input[value='linux-md']").is_selected()
    assert page.driver.current_url == link
    page.open(page.url + "?drives=many")
    assert page.wait(lambda: page.text("url-note"), 15, "the link's message") == \
        "the link was not read: link drives: must be a whole number, got 'many'"


def test_a_drive_from_its_datasheet_is_checked_added_and_kept_in_the_link(page):
    reset(page)
    page.driver.find_element("css selector", "#datasheet summary").click()
    for field, text in dict(DATASHEET, **{"ds-capacity": "lots"}).items():
        page.type_into(field, text)
    page.click("ds-add")
    assert "not a size" in page.wait(lambda: page.text("ds-capacity-error"), 15, "the capacity message")
    assert page.value("m-capacity") == 22 * 3_840_000_000_000  # the set-up is untouched
    page.type_into("ds-capacity", "7.68 TB")
    page.click("ds-add")
    page.wait(lambda: page.value("m-capacity") == 22 * 7_680_000_000_000, 20, "the set-up with the new drive")
    assert page.text("ds-capacity-error") == "" and page.text("ds-note").startswith("added datasheet-pm1743-7.68-tb")
    assert "ok" in page.element("ds-note").get_attribute("class")
    assert "(your datasheet)" in page.text("drive")
    page.wait(lambda: "more=" in page.driver.current_url, 15, "the link with the drive")
    link = page.driver.current_url
    page.open(link)  # a fresh page: the drive comes back from the link
    page.wait(lambda: page.value("m-capacity") == 22 * 7_680_000_000_000, 20, "the drive from the link")


def test_the_report_tab_and_its_html_and_pdf(page):
    reset(page)
    page.click("tab-report")
    page.wait(lambda: "Validation status" in (page.element("report-frame").get_attribute("srcdoc") or ""), 20, "the report")
    before = {p.name for p in page.downloads.iterdir()}
    page.click("report-html")
    assert "Cost and power" in page.downloaded(".html", after=before).read_text()
    page.click("report-pdf")
    assert page.downloaded(".pdf", after=before, timeout_s=60).read_bytes().startswith(b"%PDF")
    assert page.text("report-note").endswith("-report.pdf")


def test_the_sandboxed_preview_shows_the_report_and_the_page_cannot_reach_into_it(page):
    """The Report preview is sandboxed with nothing allowed (dashboard/views.py): it still shows the
    report, in an origin of its own that the page cannot reach into."""
    reset(page)
    page.click("tab-report")
    page.wait(lambda: "Validation status" in (page.element("report-frame").get_attribute("srcdoc") or ""), 60, "the report")
    assert page.element("report-frame").get_attribute("sandbox") == ""
    assert page.driver.execute_script("return document.getElementById('report-frame').contentDocument") is None  # an origin of its own
    page.driver.switch_to.frame(page.element("report-frame"))
    try:
        shown = page.driver.find_element("tag name", "body")
        assert "Validation status" in shown.text and shown.size["height"] > 500
    finally:
        page.driver.switch_to.default_content()


def test_rough_edges_of_issue_23(page, tmp_path):
    reset(page)
    assert page.text("m-risk").startswith("1 in ") and "e-" not in page.text("m-risk-sub")
    good = tmp_path / "good.fio"
    good.write_text("[global]\nioengine=libaio\ndirect=1\n[job]\nrw=randread\nbs=4k\niodepth=8\nnumjobs=4\n")
    page.upload("fio-upload", good)
    page.wait(lambda: page.text("fio-note").startswith("loaded"), 15, "the upload note")
    assert page.element("fio-note").value_of_css_property("color") == "rgba(46, 125, 50, 1)"  # green, not red
    page.click("add-compare")
    page.wait(lambda: page.text("add-note").startswith("added A:"), 15, "set-up A")
    page.type_into("drives", "3")  # invalid now: the note about the last set-up goes
    page.wait(lambda: page.text("drives-error") and page.text("add-note") == "", 15, "the stale note to go")
    page.type_into("drives", "24")
    for letter, engine in zip("BCD", ("linux-md", "xinnor-xiraid", "graid-supremeraid-sr1010")):  # four set-ups: more than three
        page.choose_radio("engine", engine)
        page.wait(lambda: engine in page.text("scenario-name"), 15, engine)
        page.click("add-compare")
        page.wait(lambda: page.text("add-note").startswith(f"added {letter}:"), 15, f"adding {engine}")
    page.click("tab-compare")
    page.wait(lambda: page.text("compare-count").startswith("4 set-ups"), 15, "four set-ups")
    page.click("tab-setup")
    page.driver.set_window_size(1280, 800)  # the laptop in the meeting room
    try:
        page.wait(lambda: page.element("bounds-graph").is_displayed(), 10, "the charts")
        widths = page.driver.execute_script(
            "const w = document.documentElement.clientWidth;"
            "return ['util-graph', 'bounds-graph'].map(id => document.getElementById(id).getBoundingClientRect().right <= w);")
        covered = page.driver.execute_script(
            "return ['util-graph', 'bounds-graph'].map(id => { const g = document.querySelector('#' + id + ' .js-plotly-plot');"
            "const m = g.querySelector('.modebar').getBoundingClientRect();"
            "return [...g.querySelectorAll('.gtitle, .annotation-text')].map(e => e.getBoundingClientRect())"
            ".filter(t => !(t.right < m.left || t.left > m.right || t.bottom < m.top || t.top > m.bottom)).length; });")
    finally:
        page.driver.set_window_size(1500, 1200)
    assert widths == [True, True] and covered == [0, 0]


def test_the_plan_form_runs_with_progress_and_its_rows_open_and_add_to_compare(page):
    """Issue 40: the Plan tab is a form prefilled from the set-up on screen (its YAML behind
    "Advanced (YAML)"); the plan runs off the request thread with progress; its ranked set-ups
    open in the set-up controls and add to the comparison."""
    reset(page)
    page.type_into("drives", "16")
    page.wait(lambda: page.value("m-capacity") == 14 * 3_840_000_000_000, 20, "the 16-drive set-up")
    page.click("tab-plan")
    page.wait(lambda: page.element("plan-counts").get_attribute("value") == "8, 12, 16", 10, "the form prefilled from 16 drives")
    assert page.element("plan-usable").is_displayed() and not page.element("plan-text").is_displayed()  # YAML: advanced
    page.type_into("plan-usable", "20 TB")
    page.type_into("plan-min-iops", "1M")
    page.type_into("plan-counts", "8, 12, 16, 24")
    page.driver.find_element("css selector", "#plan-advanced summary").click()
    page.wait(lambda: "drive_counts: [8, 12, 16, 24]" in page.element("plan-text").get_attribute("value"), 10, "the YAML of the form")
    assert "usable_bytes: 20 TB" in page.element("plan-text").get_attribute("value")
    page.click("plan-run")
    page.wait(lambda: page.text("plan-status").startswith("planning:"), 15, "the plan's progress")
    assert not page.element("plan-run").is_enabled() and "field-error" not in page.element("plan-status").get_attribute("class")
    page.wait(lambda: "distinct set-ups" in page.text("plan-status"), 180, "the plan's answer")
    assert "ok" in page.element("plan-status").get_attribute("class") and page.element("plan-run").is_enabled()
    rows = [page.element(f"plan-row-{i}") for i in (1, 2)]
    assert all(r.is_displayed() for r in rows)
    first, second = (r.find_elements("tag name", "td")[1].text for r in rows)
    assert first != second and first.startswith(("8x", "12x", "16x", "24x"))
    page.click("plan-add-1")
    page.wait(lambda: "added A: plan #1" in page.text("plan-note"), 20, "set-up #1 in the comparison")
    page.click("plan-open-2")
    page.wait(lambda: page.element("view-setup").is_displayed(), 10, "the set-up view")
    drives, level = second.split("x ")[0], second.split(" RAID")[1].split(" ")[0]
    page.wait(lambda: page.element("drives").get_attribute("value") == drives, 10, "the row's drive count in the controls")
    page.wait(lambda: page.text("scenario-name").startswith(f"scenario: dashboard-{drives}x-") and f"raid{level}-" in
              page.text("scenario-name"), 20, "the row's set-up computed")
    page.click("tab-compare")
    # the table is drawn once the tab shows it: wait for its text, not only for the element
    page.wait(lambda: "A: plan #1" in page.element("compare-values").text, 10, "the comparison table with plan #1")
    page.click("tab-plan")  # the form follows the set-up now on screen (the row opened)
    page.wait(lambda: page.element("plan-usable").get_attribute("value") not in ("20 TB", ""), 10, "the form prefilled again")
    page.type_into("plan-usable", "-1 TB")
    page.click("plan-run")
    page.wait(lambda: page.text("plan-status").startswith("error: requirements"), 15, "the refusal")
    assert "usable_bytes" in page.text("plan-status") and "field-error" in page.element("plan-status").get_attribute("class")
def add_set_ups(page: Browser, engines: tuple[str, ...]) -> None:
    """Add the default set-up with each engine in turn to the comparison (A, B, ...)."""
    for letter, engine in zip("ABCDEFGH", engines):
        page.choose_radio("engine", engine)
        page.wait(lambda: page.text("scenario-name").endswith(engine) and page.value("m-iops"), 20, engine)
        page.wait(lambda: page.element("add-compare").is_enabled(), 10, "Add enabled")
        page.click("add-compare")
        page.wait(lambda: page.text("add-note").startswith(f"added {letter}:"), 15, f"adding {engine}")


def test_compare_draws_four_set_ups_curves_on_one_chart_with_price_and_power_rows(page):
    reset(page)
    page.choose_option("strip", 256 * 1024)  # a strip all four take (a MegaRAID virtual drive: 8 KiB to 1024 KiB)
    engines = ("linux-md", "xinnor-xiraid", "graid-supremeraid-sr1010", "broadcom-megaraid-9560-16i")
    add_set_ups(page, engines)
    page.click("tab-compare")
    traces = page.wait(lambda: page.driver.execute_script(
        "const g = document.querySelector('#compare-curves .js-plotly-plot');"
        "return g && g.data && g.data.length > 4 && g.data.map(t => [t.name || '', t.mode, t.x.length, t.xaxis, t.yaxis]);"),
        60, "the comparison's curves")
    lines = [t for t in traces if t[1] == "lines"]
    assert sorted({t[0][:2] for t in lines}) == ["A:", "B:", "C:", "D:"]  # every set-up on the same chart
    assert {(t[3], t[4]) for t in lines} == {("x", "y"), ("x2", "y2")}  # IOPS and latency, one shared load axis
    assert all(t[2] >= 8 for t in lines)  # a curve, not a point
    table = page.element("compare-values")
    header = table.find_element("tag name", "thead").text
    assert "Linux kernel md (mdadm)" in header and "Broadcom MegaRAID 9560-16i" in header and "linux-md" not in header
    for key in ("price_usd", "power_w", "usd_per_usable_tb"):
        cells = page.element(f"compare-row-{key}").find_elements("tag name", "td")
        assert len(cells) == 4 and all(c.text == "n/a" or c.text[0] in "$0123456789" for c in cells)
    assert page.element("simulate-all").is_enabled()


def test_the_report_from_the_dashboard_names_products_customer_project_and_date(page):
    reset(page)
    page.click("tab-report")
    page.type_into("report-customer", "ACME Bank")
    page.type_into("report-project", "Trading DB")
    page.type_into("report-date", "2026-12-01")
    srcdoc = page.wait(lambda: (lambda s: "2026-12-01" in s and "Trading DB" in s and s)(
        page.element("report-frame").get_attribute("srcdoc") or ""), 120, "the report with its fields")
    assert "<h1>24 x KIOXIA CM7-R 3.84 TB, RAID6, Graid Technology SupremeRAID SR-1010</h1>" in srcdoc
    assert "ACME Bank" in srcdoc and "<svg class='curve'" in srcdoc
    assert "idle array" in srcdoc and "under randread-4k" in srcdoc  # rebuild side by side
    validation = srcdoc.split("Validation status", 1)[1]
    assert validation.index("<td>engine</td>") < validation.index("<td>drive</td>")  # the engine's status first
    assert "graid-supremeraid-sr1010" not in srcdoc.split("<h2>Predictions", 1)[0]  # product names, not catalog names
    for earlier in page.downloads.glob("*.html"):  # Chromium writes over a download of the same name
        earlier.unlink()
    page.click("report-html")
    assert "ACME Bank" in page.downloaded(".html", timeout_s=90).read_text()


def test_an_invalid_engine_is_refused_at_its_control_with_its_reason(page):
    reset(page)  # an AMD server, RAID6
    vroc = page.element("engine").find_element("css selector", "input[value='intel-vroc']")
    assert not vroc.is_enabled()
    row = vroc.find_element("xpath", "./ancestor::label").text
    assert "not with this set-up" in row and "RAID levels" in row
    page.choose_radio("level", "5")
    page.wait(lambda: "runs only on Intel CPUs" in page.element("engine").find_element(
        "css selector", "input[value='intel-vroc']").find_element("xpath", "./ancestor::label").text, 20, "VROC's reason on AMD")
    page.choose_radio("engine", "intel-vroc")  # a disabled choice cannot be made
    assert page.element("engine").find_element("css selector", "input[value='intel-vroc']").is_selected() is False
    page.type_into("drives", "2")  # invalid for RAID5: Simulate and Add go off, the reason beside the drive count, not in a chart
    page.wait(lambda: page.text("drives-error") and not page.element("simulate").is_enabled()
              and not page.element("add-compare").is_enabled(), 20, "Simulate and Add off")
    chart = page.driver.execute_script("return document.querySelector('#util-graph').innerText")
    assert "needs at least" not in chart
    page.type_into("drives", "24")
    page.wait(lambda: page.element("simulate").is_enabled() and page.element("add-compare").is_enabled(), 20, "both on again")


def test_simulate_all_puts_every_compared_set_up_in_event_mode(page):
    reset(page)
    add_set_ups(page, ("linux-md", "graid-supremeraid-sr1010"))
    page.click("tab-compare")
    page.wait(lambda: page.element("simulate-all").is_displayed(), 10, "the Compare view")
    page.click("simulate-all")
    page.wait(lambda: page.text("compare-sim-status").startswith("event mode: set-up A"), 20, "set-up A running")

    def modes():
        return [c.text for c in page.element("compare-row-fidelity").find_elements("tag name", "td")]

    page.wait(lambda: modes() == ["event", "event"], 300, "both set-ups in event mode")
    p99 = [c.get_attribute("data-value") for c in page.element("compare-row-latency_p99_us").find_elements("tag name", "td")]
    assert all(v and float(v) > 0 for v in p99)  # percentiles now, where fluid mode had n/a
    assert page.text("compare-sim-status") == "every set-up is in event mode" and page.element("simulate-all").is_enabled()
