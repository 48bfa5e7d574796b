"""Planning a batch of host I/Os: the planner on the whole batch (``plan_ios``) against plans by
place in the layout's period (``stripe.positions.PositionPlans``), on the default scenario's
geometry (24 members, RAID6, 4 KiB strips) and md's default (8 members, RAID6, 512 KiB strips).

Usage: python benchmarks/bench_positions.py [--batches N]. Per case: microseconds per batch of
each, after a first batch that loads the compiled planner and fills the table's places; the two
give the same arrays (tests/unit/test_plan_positions.py). A timing, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nvsim.stripe.layout import ArrayGeometry  # noqa: E402
from nvsim.stripe.planner import plan_ios  # noqa: E402
from nvsim.stripe.positions import PositionPlans  # noqa: E402

CASES = [  # (name, geometry, bs, batch, random, write share)
    ("24x RAID6 4K strip, 4K random read", ArrayGeometry(6, 24, 4096, member_size_bytes=1 << 40), 4096, 64, True, 0.0),
    ("24x RAID6 4K strip, 4K random write", ArrayGeometry(6, 24, 4096, member_size_bytes=1 << 40), 4096, 64, True, 1.0),
    ("24x RAID6 4K strip, 1M sequential read", ArrayGeometry(6, 24, 4096, member_size_bytes=1 << 40), 1 << 20, 64,
     False, 0.0),
    ("8x RAID6 512K strip, 4K random 70/30", ArrayGeometry(6, 8, 512 << 10, member_size_bytes=1 << 40), 4096, 64, True,
     0.3),
]


def batches(geom: ArrayGeometry, bs: int, n: int, random: bool, writes: float, count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    slots = (geom.capacity_bytes - bs) // bs
    start = int(rng.integers(0, slots - n * count))
    for b in range(count):
        offsets = rng.integers(0, slots, n) * bs if random else (start + b * n + np.arange(n)) * bs
        yield offsets.astype(np.int64), rng.random(n) < writes


def per_batch_us(plan, work) -> float:
    start = time.perf_counter()
    for offsets, is_write in work:
        plan(is_write, offsets)
    return 1e6 * (time.perf_counter() - start) / len(work)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=500)
    args = ap.parse_args(argv)
    print(f"{'case':42} {'plan_ios us':>12} {'by place us':>12} {'ratio':>7}")
    for name, geom, bs, n, random, writes in CASES:
        work = list(batches(geom, bs, n, random, writes, args.batches))
        table = PositionPlans(geom, bs)
        whole = lambda w, o, g=geom, b=bs: plan_ios(g, w, o, b)  # noqa: E731
        for plan in (whole, table.plan):  # load the compiled planner; fill the places
            for offsets, is_write in batches(geom, bs, n, random, writes, 200, seed=2):
                plan(is_write, offsets)
        a, b = per_batch_us(whole, work), per_batch_us(table.plan, work)
        print(f"{name:42} {a:12.0f} {b:12.0f} {b / a:7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
