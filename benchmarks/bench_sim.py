"""Simulator speed: simulated host I/Os per wall second, event mode, one core; fluid set-ups per second, one core.

Usage: python benchmarks/bench_sim.py [--quick]. The event-mode figure counts every host I/O the
run completed (warm-up included) over the wall time of the whole call (planning, the fluid guess
that sizes the window, the SimPy run); a short warm-up run compiles the planner first, and the
plan memo is emptied before each timed run (a run with the same seed would otherwise find every
plan there: 1.5-5x faster than a first run). ``benchmarks/bench_event.py`` times one case per
process, for A/B pairs against another checkout.
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

from nvsim.catalog import default_catalog  # noqa: E402
from nvsim.scenario import load_scenario  # noqa: E402
from nvsim.sim.event import simulate_event  # noqa: E402
from nvsim.sim.fluid import simulate_fluid  # noqa: E402
from nvsim.sim.memo import MEMO  # noqa: E402
from nvsim.sim.system import ArraySystem  # noqa: E402

CASES = (
    ("graid-gen5-raid6/scenario.yaml", "randread-b4k-j192-d32", "24x Gen5 RAID6, GPU engine, 4K random read (issue 5 target)"),
    ("graid-gen5-raid6/md-raid6-4k.yaml", "randread-b4k-j192-d32", "24x Gen5 RAID6, md, 4K random read (spinlock)"),
    ("graid-gen5-raid6/md-raid6-4k.yaml", "randwrite-b4k-j192-d16", "24x Gen5 RAID6, md, 4K random write (RMW, two phases)"),
    ("graid-gen5-raid6/scenario.yaml", "write-b1m-j192-d16", "24x Gen5 RAID6, GPU engine, 1M sequential write (~40 merged member I/Os each)"),
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer host I/Os")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case (this VM's timing varies by ~20%%)")
    ap.add_argument("--ab", action="store_true", help="also time each case on the SimPy slots (compiled=False), "
                    "alternating with the kernel: the ratio holds on a busy machine where the rates do not")
    args = ap.parse_args(argv)
    host_ios = 50_000 if args.quick else 200_000
    catalog = default_catalog()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{'case':70s} {'host I/Os':>10s} {'median I/Os/s':>16s} {'best I/Os/s':>14s}   (of {args.repeat} runs)")
    for path, name, label in CASES:
        spec = load_scenario(ROOT / "scenarios" / path, catalog)
        system = ArraySystem(spec, next(w for w in spec.workloads if w.name == name), catalog)
        simulate_event(system, host_ios=2_000)  # compile and warm caches
        n = host_ios if "b1m" not in name else host_ios // 10
        rates, windows = [], []
        for _ in range(args.repeat):
            MEMO.clear()
            start = time.perf_counter()
            result = simulate_event(system, host_ios=n)
            wall = time.perf_counter() - start
            rates.append(result.completed_host_ios / wall)
            windows.append(result.simulated_host_ios / wall)
        print(f"{label:70s} {result.completed_host_ios:10d} {statistics.median(rates):16,.0f} {max(rates):14,.0f}  "
              f"(measured window alone, median: {statistics.median(windows):,.0f})")
        if args.ab:
            print(f"{'':70s} kernel / SimPy slots, whole call: {_ab_ratio(system, n, args.repeat):.2f}x")
    # fluid mode: the 1,440-point sweep of scenarios/sweeps (two workloads each), in this process
    from nvsim.sweep import expand, prepare_sweep, run_point

    spec, base, names = prepare_sweep(ROOT / "scenarios" / "sweeps" / "drive-count-level-strip.yaml")
    points, data = expand(spec), base.model_dump(mode="json")
    if args.quick:
        points = points[:360]
    run_point({"point": points[0], "base": data, "workloads": names, "fidelity": "fluid", "host_ios": 1000})
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for p in points:
            run_point({"point": p, "base": data, "workloads": names, "fidelity": "fluid", "host_ios": 1000})
        rates.append(len(points) * len(names) / (time.perf_counter() - start))
    label = f"fluid mode: {len(points)}-point sweep x {len(names)} workloads, set-ups (workloads) per s"
    print(f"{label:70s} {len(points) * len(names):10d} {statistics.median(rates):16,.0f} {max(rates):14,.0f}")
    return 0


def _ab_ratio(system, host_ios: int, repeat: int) -> float:
    """Median over ``repeat`` alternating pairs of (kernel host I/Os per s) / (SimPy slots')."""
    simulate_event(system, host_ios=2_000, compiled=False)
    ratios = []
    for _ in range(repeat):
        rate = {}
        for compiled in (True, False):
            MEMO.clear()
            start = time.perf_counter()
            result = simulate_event(system, host_ios=host_ios, compiled=compiled)
            rate[compiled] = result.completed_host_ios / (time.perf_counter() - start)
        ratios.append(rate[True] / rate[False])
    return statistics.median(ratios)


if __name__ == "__main__":
    sys.exit(main())
