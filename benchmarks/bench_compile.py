"""Which compiled functions a command compiles, with how many signatures, and for how long (issue 41).

Usage: python benchmarks/bench_compile.py [--top N] [--json FILE] -- run scenarios/graid-gen5-raid6 [...]
Runs ``nvsim <args>`` in this process with an empty Numba cache and an empty catalog cache (fresh
temporary directories), records Numba's ``numba:compile`` events and prints per compiled function:
its signatures compiled, its own compile seconds (excluding the callees it compiled on the way) and
the seconds with them. A callee inlined by Numba (``inline="always"``) is typed inside its caller and
compiled on its own only when called from Python or without inlining. Timing, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict


def name_of(event) -> str:
    function = event.data["dispatcher"].py_func
    return f"{function.__module__}.{function.__qualname__}"


def recorder():
    """A ``numba:compile`` listener: per dispatcher, its signatures and own and total seconds."""
    from numba.core import event

    class Recorder(event.Listener):
        def __init__(self):
            self.stack: list[list] = []
            self.rows: dict[str, dict] = defaultdict(lambda: {"signatures": [], "own_s": 0.0, "total_s": 0.0,
                                                              "callers": []})

        def on_start(self, event):
            self.stack.append([time.perf_counter(), 0.0, name_of(event)])

        def on_end(self, event):
            started, children, name = self.stack.pop()
            seconds = time.perf_counter() - started
            if self.stack:
                self.stack[-1][1] += seconds
            row = self.rows[name]
            caller = self.stack[-1][2] if self.stack else "(Python)"
            if caller not in row["callers"]:
                row["callers"].append(caller)
            row["signatures"].append(", ".join(str(a) for a in event.data["args"]))
            row["own_s"] += seconds - children
            row["total_s"] += seconds

    listener = Recorder()
    event.register("numba:compile", listener)
    return listener


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args(argv[:split])
    command = argv[split + 1:] or ["run", "scenarios/graid-gen5-raid6", "--json"]
    with tempfile.TemporaryDirectory() as empty:
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(empty, "numba")
        os.environ["XDG_CACHE_HOME"] = os.path.join(empty, "xdg")
        listener = recorder()
        from nvsim.cli import main as nvsim_main

        started = time.perf_counter()
        cpu = time.process_time()
        stdout = sys.stdout
        sys.stdout = open(os.devnull, "w")
        try:
            nvsim_main(command)
        except SystemExit:
            pass
        finally:
            sys.stdout.close()
            sys.stdout = stdout
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    rows = sorted(listener.rows.items(), key=lambda kv: -kv[1]["own_s"])
    own = sum(r["own_s"] for _, r in rows)
    print(f"nvsim {' '.join(command)}: {wall:.1f} s wall, {cpu:.1f} s CPU; compiling {own:.1f} s "
          f"({len(rows)} functions, {sum(len(r['signatures']) for _, r in rows)} signatures)")
    print(f"{'function':62} {'sigs':>4} {'own s':>7} {'with callees s':>14}  first caller")
    for name, row in rows[:args.top]:
        print(f"{name:62} {len(row['signatures']):4d} {row['own_s']:7.2f} {row['total_s']:14.2f}  {row['callers'][0]}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"wall_s": wall, "cpu_s": cpu, "rows": dict(rows)}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
