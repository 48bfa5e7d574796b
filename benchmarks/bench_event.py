"""Event mode, one case in one process: host I/Os per second of the whole call and of the compiled
kernel alone (the time inside ``nvsim.sim.event.kernel.run``), per wall second and per CPU second
of this process (the latter holds better on a machine that others load).

Usage: python benchmarks/bench_event.py CASE [--host-ios N] [--repeat R], CASE one of gpu-read,
md-read, md-write, gpu-write-1m. It prints one line per run (after a 2,000-I/O warm run
that loads the compiled code): meant to be timed as a whole process against another checkout, pair
by pair (A B A B ...), on a machine that others share: quote the ratios, and the rates as taken
under that load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nvsim.catalog import default_catalog  # noqa: E402
from nvsim.scenario import load_scenario  # noqa: E402
from nvsim.sim.event import kernel, simulate_event  # noqa: E402
from nvsim.sim.memo import MEMO  # noqa: E402
from nvsim.sim.system import ArraySystem  # noqa: E402

CASES = {
    "gpu-read": ("graid-gen5-raid6/scenario.yaml", "randread-b4k-j192-d32", 200_000),
    "md-read": ("graid-gen5-raid6/md-raid6-4k.yaml", "randread-b4k-j192-d32", 200_000),
    "md-write": ("graid-gen5-raid6/md-raid6-4k.yaml", "randwrite-b4k-j192-d16", 200_000),
    "gpu-write-1m": ("graid-gen5-raid6/scenario.yaml", "write-b1m-j192-d16", 20_000),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--host-ios", type=int, default=None, help="measured host I/Os (default: the case's)")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    path, name, host_ios = CASES[args.case]
    catalog = default_catalog()
    spec = load_scenario(ROOT / "scenarios" / path, catalog)
    system = ArraySystem(spec, next(w for w in spec.workloads if w.name == name), catalog)
    simulate_event(system, host_ios=2_000)
    inside = [0.0, 0.0]
    run = kernel.run

    def timed(*a):
        start, cpu = time.perf_counter(), time.process_time()
        code = run(*a)
        inside[0] += time.perf_counter() - start
        inside[1] += time.process_time() - cpu
        return code

    kernel.run = timed  # the modules call it as ``k.run``: the kernel's own time, calls included
    for _ in range(args.repeat):
        MEMO.clear()  # a first run's planning: the same seed would find every plan in the memo
        inside[:] = [0.0, 0.0]
        start, cpu = time.perf_counter(), time.process_time()
        result = simulate_event(system, host_ios=args.host_ios or host_ios)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        done = result.completed_host_ios
        print(f"{args.case} host_ios={done} wall_s={wall:.3f} whole_call_per_s={done / wall:.0f} "
              f"kernel_s={inside[0]:.3f} kernel_per_s={done / max(inside[0], 1e-9):.0f} "
              f"cpu_s={cpu:.3f} whole_call_per_cpu_s={done / cpu:.0f} kernel_per_cpu_s={done / max(inside[1], 1e-9):.0f} "
              f"iops={result.total_iops:.6g} p99={(result.read_latency_us or result.write_latency_us).get('p99')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
