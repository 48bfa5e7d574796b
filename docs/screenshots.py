"""Screenshots of the dashboard for docs/dashboard.md, taken in headless Chromium.

    .venv/bin/python docs/screenshots.py     # writes docs/images/dashboard-main.png and -compare.png

Needs Debian's chromium and chromium-driver (`make system-packages`). The main view: 24x KIOXIA
CM7-R 3.84 TB, GPU RAID6, 4K random 70/30, after an event-mode run; the comparison: 4K random
writes on md RAID6, GPU RAID6 and md RAID10.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
IMAGES = ROOT / "docs" / "images"


def main() -> int:
    from dashboard.app import ServerThread, create_app
    from dashboard.browser import Browser, missing

    if missing():
        print(missing(), file=sys.stderr)
        return 1
    server = ServerThread(create_app())
    page = Browser(width=1500, height=1100)
    try:
        page.open(server.url)
        page.choose_option("workload", "randrw-70-30-4k")
        page.wait(lambda: "randrw-70-30-4k" in page.text("workloads"), 20, "the 70/30 numbers")
        page.click("simulate")
        page.wait(lambda: "finished" in page.text("sim-status"), 120, "the event-mode run")
        page.wait(lambda: page.text("mode").startswith("event mode") and page.value("m-p99"), 20, "event-mode numbers")
        page.screenshot(IMAGES / "dashboard-main.png", full_page=True)

        page.choose_option("workload", "randwrite-4k")
        for engine, level, strip in (("linux-md", "6", 4096), ("graid-supremeraid-sr1010", "6", 4096), ("linux-md", "10", 524288)):
            page.choose_radio("engine", engine)
            page.choose_radio("level", level)
            page.choose_option("strip", strip)
            key = f"RAID{level} {engine}"
            name = f"raid{level}-{strip // 1024}k-{engine}"
            before = page.text("add-note")
            page.wait(lambda: page.text("scenario-name").endswith(name) and "randwrite-4k" in page.text("workloads"), 20, name)
            page.click("add-compare")
            page.wait(lambda: page.text("add-note") != before and key in page.text("add-note"), 20, f"adding {key}")
        page.click("tab-compare")
        page.wait(lambda: page.element("compare-values").is_displayed(), 20, "the comparison")
        page.screenshot(IMAGES / "dashboard-compare.png", full_page=True)
    finally:
        page.quit()
        server.stop()
    print(f"wrote {IMAGES / 'dashboard-main.png'} and {IMAGES / 'dashboard-compare.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
