"""Dashboard speed: how long a control change takes to give new fluid-mode numbers (target < 1 s).

Usage: python benchmarks/bench_dashboard.py [--quick] [--browser]. Times the two callbacks a
control change runs, in this process: ``on_change`` (validate the set-up, fluid simulation of its
workloads, bounds, idle rebuild) and ``render`` (cards, the two charts, the table). "first call"
is the first change in a fresh process (imports and caches cold); "after warm-up" is the first
change after ``create_app`` (which computes the default set-up once); "warm" are the following
changes (each a new set-up: drive count, engine, level, namespace, workload). --browser adds the
round trip a user sees in headless Chromium: type a drive count, wait for the new capacity.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHANGES = [{"drives": n} for n in range(23, 3, -1)] + [
    {"engine": "linux-md"}, {"engine": "xinnor-xiraid"}, {"engine": "ideal-raid"}, {"engine": "broadcom-megaraid-9560-16i"},
    {"level": 5}, {"level": 10}, {"level": 0}, {"strip_bytes": 65536}, {"strip_bytes": 524288},
    {"namespace_mode": "op", "namespace_value": "10"}, {"namespace_mode": "op", "namespace_value": "28"},
    {"namespace_mode": "size", "namespace_value": "3.2 TB"}, {"workload": "randwrite-4k"}, {"workload": "randrw-70-30-4k"},
    {"workload": "read-1m"}, {"workload": "write-1m"}, {"workload": "oltp"}, {"drive": "kioxia-cm7-r-7.68tb"},
    {"drive": "solidigm-d5-p5336-61.44tb"}, {"platform": "dell-poweredge-r750"},
]


def one_change(catalog, setup: dict) -> tuple[float, float]:
    """(on_change seconds, render seconds) for one control change to ``setup``."""
    from dashboard.app import on_change, render

    start = time.perf_counter()
    out = on_change(catalog, setup["platform"], setup["drive"], setup["drives"], setup["namespace_mode"],
                    setup["namespace_value"], setup["level"], setup["strip_bytes"], setup["engine"], setup["workload"],
                    setup["numjobs"], setup["iodepth"], None, None)
    middle = time.perf_counter()
    render(out[-1], None)
    return middle - start, time.perf_counter() - middle


def browser_round_trips(repeat: int) -> list[float]:
    """Seconds from typing a drive count to the new capacity on screen, in headless Chromium."""
    from dashboard.app import ServerThread, create_app
    from dashboard.browser import Browser

    server = ServerThread(create_app())
    browser = Browser()
    times = []
    try:
        browser.open(server.url)
        for i in range(repeat):
            drives = 24 - (i % 16)
            target = (drives - 2) * 3_840_000_000_000
            if browser.value("m-capacity") == target:
                drives, target = drives - 1, (drives - 3) * 3_840_000_000_000
            start = time.perf_counter()
            browser.type_into("drives", str(drives))
            browser.wait_value("m-capacity", lambda v: v == target, 20)
            times.append(time.perf_counter() - start)
    finally:
        browser.quit()
        server.stop()
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer warm changes")
    ap.add_argument("--browser", action="store_true", help="also time the round trip in headless Chromium")
    args = ap.parse_args(argv)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")

    start = time.perf_counter()
    from dashboard import core
    from nvsim.catalog import default_catalog

    catalog = default_catalog()
    base = core.default_setup(catalog)
    imported = time.perf_counter() - start
    cold = one_change(catalog, base | {"drives": 22})
    print(f"first call, fresh process: on_change {1000 * cold[0]:.0f} ms + render {1000 * cold[1]:.0f} ms "
          f"(after {1000 * imported:.0f} ms importing nvsim and loading the catalog)")

    start = time.perf_counter()
    from dashboard.app import create_app
    app = create_app(warm=True)
    app.nvsim_runner.shutdown()
    print(f"create_app with warm-up: {time.perf_counter() - start:.2f} s")
    first = one_change(catalog, base | {"drives": 20, "engine": "linux-md"})
    print(f"first change after warm-up: on_change {1000 * first[0]:.0f} ms + render {1000 * first[1]:.0f} ms")

    changes = CHANGES[:12] if args.quick else CHANGES
    totals, computes, renders = [], [], []
    for change in changes:
        compute_s, render_s = one_change(catalog, base | change)
        computes.append(compute_s)
        renders.append(render_s)
        totals.append(compute_s + render_s)
    ms = lambda values: f"median {1000 * statistics.median(values):.0f} ms, max {1000 * max(values):.0f} ms"  # noqa: E731
    print(f"warm, {len(changes)} different set-ups: on_change {ms(computes)}; render {ms(renders)}; both {ms(totals)}")
    slowest = max(zip(totals, changes), key=lambda item: item[0])
    print(f"slowest change: {slowest[1]} ({1000 * slowest[0]:.0f} ms)")

    if args.browser:
        trips = browser_round_trips(6 if args.quick else 12)
        print(f"browser round trip (type a drive count -> new capacity on screen), {len(trips)} changes: {ms(trips)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
