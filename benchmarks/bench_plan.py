"""How fast `nvsim plan` searches: the candidates of plans/benchmark.yaml (the whole catalog,
643,500 set-ups), the prunes of each stage, wall time and CPU time (this process and its worker
processes), on ``--workers`` local processes (default 2).

    python benchmarks/bench_plan.py [--workers N] [--quick]

--quick searches plans/example.yaml's priced part of the catalog without the event stage.
Results are recorded by hand in docs/performance.md ("nvsim plan: the search").
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nvsim.plan import run_plan  # noqa: E402 - after the path is set


def cpu_s() -> float:
    """CPU seconds of this process and its finished children (the spawned workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    plan = ROOT / "plans" / ("example.yaml" if args.quick else "benchmark.yaml")
    with tempfile.TemporaryDirectory() as folder:
        if args.quick:  # the example without its event stage
            data = yaml.safe_load(plan.read_text())
            plan = Path(folder) / "plan.yaml"
            plan.write_text(yaml.safe_dump(dict(data, confirm=0)))
        wall, cpu = time.perf_counter(), cpu_s()
        result = run_plan(plan, workers=args.workers)
        wall, cpu = time.perf_counter() - wall, cpu_s() - cpu
    print(f"plan: {plan.name}, {args.workers} worker processes, load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"candidates: {result.candidates:,}")
    for stage, count in result.pruned.items():
        print(f"  pruned by {stage}: {count:,}")
    print(f"  ranked: {len(result.every_candidate):,} ({len(result.ranked):,} distinct set-ups)")
    print(f"seconds per stage: " + ", ".join(f"{k} {v:.1f}" for k, v in result.seconds.items()))
    print(f"wall {wall:.1f} s, CPU {cpu:.1f} s (this process and its workers): {result.candidates / wall:,.0f} candidates per wall second")


if __name__ == "__main__":
    main()
