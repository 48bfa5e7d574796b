"""Event mode with many jobs: the 65,536-job QD1 512 B random read of issue 34 (about 13 minutes and
1.1 GB before the fix; docs/performance.md, "Many jobs"), each job count in a fresh process.

Usage: python benchmarks/bench_many_jobs.py [--jobs N ...] [--quick]. The scenario is
graid-gen5-raid6 (24 drives, RAID6, GPU engine) with its workload replaced by ``numjobs: N,
iodepth: 1, bs: 512, rw: randread``, run as ``nvsim run --max-seconds 0`` runs it (the planned
window: same seed, same bits). One line per job count: wall and CPU seconds of the run (after a
2,000-I/O warm run that loads the compiled code), the process's peak resident memory, the Python
work per job (CPU seconds / jobs) and the compactions of the planned rows. Time grows about
linearly in the job count once the per-refill work no longer scans every job; a timing, not a
test (the machine is shared: quote the CPU seconds beside the wall).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

JOBS = (4_096, 16_384, 65_536)
QUICK_JOBS = (1_024, 4_096)


def one(jobs: int) -> str:
    """One job count in this process: the line ``main`` prints."""
    from nvsim.catalog import default_catalog
    from nvsim.scenario import load_scenario
    from nvsim.sim.event import compiled, simulate_event
    from nvsim.sim.system import ArraySystem
    from nvsim.specs import WorkloadSpec

    catalog = default_catalog()
    spec = load_scenario(ROOT / "scenarios" / "graid-gen5-raid6" / "scenario.yaml", catalog)
    workload = WorkloadSpec(name=f"randread-b512-j{jobs}-d1", rw="randread", bs=512, iodepth=1, numjobs=jobs,
                            size="9600G", runtime=300, time_based=True)
    spec = spec.model_copy(update={"workloads": [workload]})
    simulate_event(ArraySystem(spec, workload.model_copy(update={"numjobs": 8}), catalog), host_ios=2_000)
    compactions = [0]
    compact = compiled.Rows.compact

    def counted(self, slot_rows):
        compactions[0] += 1
        return compact(self, slot_rows)

    compiled.Rows.compact = counted
    start, cpu = time.perf_counter(), time.process_time()
    result = simulate_event(ArraySystem(spec, workload, catalog))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"jobs={jobs} host_ios={result.completed_host_ios} wall_s={wall:.1f} cpu_s={cpu:.1f} "
            f"peak_rss_mb={peak_mb:.0f} cpu_ms_per_job={1e3 * cpu / jobs:.2f} compactions={compactions[0]} "
            f"iops={result.total_iops:.6g} p99_us={result.read_latency_us.get('p99')}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, nargs="+", default=None, help=f"job counts (default {JOBS})")
    ap.add_argument("--quick", action="store_true", help=f"job counts {QUICK_JOBS}")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(one(args.one), flush=True)
        return 0
    status = 0
    for jobs in args.jobs or (QUICK_JOBS if args.quick else JOBS):
        status |= subprocess.call([sys.executable, __file__, "--one", str(jobs)])
    return status


if __name__ == "__main__":
    sys.exit(main())
