"""Planner speed: N random 4 KiB writes on a 24-member RAID6 (64 KiB strip), one core.

Usage: python benchmarks/bench_planner.py [--n 1000000]. Compilation excluded (warm-up call);
prints the best of 3 runs in seconds and host I/Os per second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from nvsim.stripe.layout import ArrayGeometry  # noqa: E402
from nvsim.stripe.planner import Mode, plan_ios  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    g = ArrayGeometry(6, 24, 64 * 1024, member_size_bytes=1 << 40)
    rng = np.random.default_rng(0)
    offs = rng.integers(0, g.capacity_bytes // 4096, args.n) * 4096
    plan_ios(g, True, offs[:10], 4096)  # compile / load cache
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        plan = plan_ios(g, True, offs, 4096)
        best = min(best, time.perf_counter() - t0)
    modes = {Mode(m).name: int(c) for m, c in enumerate(np.bincount(plan.mode, minlength=9)) if c}
    print(f"{args.n} random 4 KiB writes, RAID6 x24, 64 KiB strip: {best:.3f} s "
          f"({args.n / best / 1e6:.2f} M host I/Os/s), {plan.n_member_ios} member I/Os, modes {modes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
