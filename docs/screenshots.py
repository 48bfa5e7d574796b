"""Screenshots of the dashboard for docs/dashboard.md, taken in headless Chromium.

    .venv/bin/python docs/screenshots.py     # writes docs/images/dashboard-*.png

Needs Debian's chromium and chromium-driver (`make system-packages`). The main view: 24x KIOXIA
CM7-R 3.84 TB, GPU RAID6, 4K random 70/30, after an event-mode run; the comparison: 4K random
writes on md RAID6, GPU RAID6, md RAID10 and xiRAID RAID6, their curves on one chart; the curves of
the reference set-up with event-mode p99; an engine the set-up refuses (Intel VROC on an AMD
server); the report tab for a customer and project; the datasheet form with a customer's drive
added; the main view at 1280x800 (a laptop in a meeting room); the Plan tab's form and its ranked
set-ups (16 drives of the reference set-up, two drives and two engines searched).

    .venv/bin/python docs/screenshots.py plan   # only the shots named (main, compare, curves, invalid, report, small, plan)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
IMAGES = ROOT / "docs" / "images"
DATASHEET = {"ds-model": "PM1743 15.36 TB", "ds-vendor": "Samsung", "ds-capacity": "15.36 TB", "ds-dwpd": "1",
             "ds-seq-read": "14 GB/s", "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K"}
"""An example datasheet typed into the form (figures as a datasheet gives them)."""


def shot_main(page) -> None:
    page.choose_option("workload", "randrw-70-30-4k")
    page.wait(lambda: "randrw-70-30-4k" in page.text("workloads"), 20, "the 70/30 numbers")
    page.click("simulate")
    page.wait(lambda: "finished" in page.text("sim-status"), 120, "the event-mode run")
    page.wait(lambda: page.text("mode").startswith("event mode") and page.value("m-p99"), 20, "event-mode numbers")
    page.screenshot(IMAGES / "dashboard-main.png", full_page=True)


def shot_compare(page) -> None:
    page.choose_option("workload", "randwrite-4k")
    for letter, (engine, level, strip) in zip("ABCD", (("linux-md", "6", 4096), ("graid-supremeraid-sr1010", "6", 4096),
                                                       ("linux-md", "10", 524288), ("xinnor-xiraid", "6", 65536))):
        page.choose_radio("engine", engine)
        page.choose_radio("level", level)
        page.choose_option("strip", strip)
        name = f"raid{level}-{strip // 1024}k-{engine}"
        page.wait(lambda: page.text("scenario-name").endswith(name) and "randwrite-4k" in page.text("workloads"), 20, name)
        page.click("add-compare")
        page.wait(lambda: page.text("add-note").startswith(f"added {letter}:"), 20, f"adding {letter}")
    page.click("tab-compare")
    page.wait(lambda: page.element("compare-values").is_displayed(), 20, "the comparison")
    page.wait(lambda: page.driver.execute_script(
        "const g = document.querySelector('#compare-curves .js-plotly-plot');"
        "return g && g.data && g.data.filter(t => t.mode === 'lines').length === 8;"), 60, "the four set-ups' curves")
    page.screenshot(IMAGES / "dashboard-compare.png", full_page=True)


def shot_invalid_engine(page, url: str) -> None:
    """Intel VROC offered on an AMD server: disabled, its reason beside it."""
    page.open(url)
    page.choose_radio("level", "5")
    page.wait(lambda: "runs only on Intel CPUs" in page.text("engine-field"), 20, "VROC's reason")
    page.screenshot(IMAGES / "dashboard-invalid-engine.png")


def shot_curves(page, url: str) -> None:
    page.open(url)
    page.click("tab-curves")
    page.click("curve-simulate")
    page.wait(lambda: "finished" in page.text("curve-status"), 180, "the event-mode load points")
    page.wait(lambda: page.driver.execute_script(
        "const g = document.querySelector('#load-graph .js-plotly-plot');"
        "return g && g.data.some(t => t.name === 'p99 (event mode)');"), 20, "the p99 curve")
    page.screenshot(IMAGES / "dashboard-curves.png", full_page=True)


def shot_report_and_datasheet(page, url: str) -> None:
    page.open(url)
    page.click("tab-report")
    page.type_into("report-customer", "ACME Bank")
    page.type_into("report-project", "Trading database refresh")
    page.wait(lambda: "Trading database refresh" in (page.element("report-frame").get_attribute("srcdoc") or ""), 120, "the report")
    page.screenshot(IMAGES / "dashboard-report.png", full_page=True)
    page.click("tab-setup")
    page.driver.find_element("css selector", "#datasheet summary").click()
    for field, text in DATASHEET.items():
        page.type_into(field, text)
    page.click("ds-add")
    page.wait(lambda: page.text("ds-note").startswith("added"), 20, "the datasheet drive")
    page.wait(lambda: page.value("m-capacity") == 22 * 15_360_000_000_000, 20, "its numbers")
    page.screenshot(IMAGES / "dashboard-datasheet.png", full_page=True)


def shot_plan(page, url: str) -> None:
    page.open(url)
    page.type_into("drives", "16")
    page.wait(lambda: page.value("m-capacity") == 14 * 3_840_000_000_000, 20, "the 16-drive set-up")
    page.click("tab-plan")
    page.wait(lambda: page.element("plan-counts").get_attribute("value") == "8, 12, 16", 10, "the form prefilled")
    page.type_into("plan-usable", "40 TB")
    page.type_into("plan-min-iops", "2M")
    page.type_into("plan-counts", "8, 12, 16, 20, 24")
    page.choose_option("plan-drives", "kioxia-cm7-r-7.68tb")
    page.choose_option("plan-engines", "xinnor-xiraid")
    page.wait(lambda: "xinnor-xiraid" in page.element("plan-text").get_attribute("value"), 10, "the YAML of the form")
    page.click("plan-run")
    page.wait(lambda: "distinct set-ups" in page.text("plan-status"), 240, "the plan's answer")
    page.screenshot(IMAGES / "dashboard-plan.png", full_page=True)


SHOTS = ("main", "compare", "curves", "invalid", "report", "small", "plan")


def main(names: list[str] | None = None) -> int:
    from dashboard.app import ServerThread, create_app
    from dashboard.browser import Browser, missing

    if missing():
        print(missing(), file=sys.stderr)
        return 1
    chosen = set(names or SHOTS)
    unknown = chosen - set(SHOTS)
    if unknown:
        print(f"unknown shot {sorted(unknown)[0]!r}; allowed: {', '.join(SHOTS)}", file=sys.stderr)
        return 2
    server = ServerThread(create_app())
    page = Browser(width=1500, height=1100)
    try:
        page.open(server.url)
        if "main" in chosen:
            shot_main(page)
        if "compare" in chosen:
            shot_compare(page)
        if "curves" in chosen:
            shot_curves(page, server.url)
        if "invalid" in chosen:
            shot_invalid_engine(page, server.url)
        if "report" in chosen:
            shot_report_and_datasheet(page, server.url)
        if "plan" in chosen:
            shot_plan(page, server.url)
        if "small" in chosen:
            page.driver.set_window_size(1280, 800)
            page.open(server.url)
            page.screenshot(IMAGES / "dashboard-1280x800.png", full_page=True)
    finally:
        page.quit()
        server.stop()
    print(f"wrote {', '.join(sorted(p.name for p in IMAGES.glob('dashboard-*.png')))} in {IMAGES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
