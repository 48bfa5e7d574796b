"""What a user waits for at `nvsim run` (issue 41): the first run into an empty kernel cache, the
set-up's compilation (`python -m nvsim.warm`) and the first run after it, and warm runs.

Usage: python benchmarks/bench_first_run.py [--scenario DIR] [--base TREE] [--runs N]. Each figure is a
fresh process (`nvsim run SCENARIO --json`) with its own empty NUMBA_CACHE_DIR and
XDG_CACHE_HOME (so the catalog's cache starts empty too): wall and CPU seconds. ``--base``: the same
for another checkout of nvsim (e.g. an export of the commit before), run with PYTHONPATH set to it,
one after the other with this tree's, so the ratios hold on a busy machine. A timing, not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "scenarios/graid-gen5-raid6"


def timed(argv: list[str], tree: Path, cache: Path) -> tuple[float, float]:
    """Wall and CPU (user + sys of the child) seconds of one command run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache / "numba"),
               XDG_CACHE_HOME=str(cache / "xdg"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def figures(tree: Path, scenario: str, runs: int, warm: bool) -> dict[str, tuple[float, float]]:
    """First run into an empty cache, then the best of ``runs`` warm runs on the cache it filled;
    with ``warm``, into another empty cache the set-up's compilation and the first run after it."""
    run = [sys.executable, "-m", "nvsim.cli", "run", scenario, "--json"]
    out = {}
    with tempfile.TemporaryDirectory() as empty:
        out["first run, empty cache"] = timed(run, tree, Path(empty))
        out["warm run (best)"] = min((timed(run, tree, Path(empty)) for _ in range(runs)), key=lambda f: f[1])
    if warm:
        with tempfile.TemporaryDirectory() as empty:
            out["set-up: python -m nvsim.warm"] = timed([sys.executable, "-m", "nvsim.warm"], tree, Path(empty))
            out["first run after the set-up"] = timed(run, tree, Path(empty))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=SCENARIO)
    ap.add_argument("--base", type=Path, default=None, help="another nvsim checkout to time the same way")
    ap.add_argument("--runs", type=int, default=3, help="warm runs (the best is shown)")
    args = ap.parse_args(argv)
    trees = [("this tree", ROOT, True)] + ([("base", args.base, False)] if args.base else [])
    print(f"{'tree':10} {'figure':32} {'wall s':>8} {'cpu s':>8}")
    for label, tree, warm in trees:
        for name, (wall, cpu) in figures(tree, args.scenario, args.runs, warm).items():
            print(f"{label:10} {name:32} {wall:8.1f} {cpu:8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
