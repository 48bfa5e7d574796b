"""A sweep on a Dask cluster: the 1,440 points of scenarios/sweeps/drive-count-level-strip.yaml on a
``LocalCluster`` of 2 worker processes (one thread each), one point per task against the batches
`nvsim sweep --dask` sends (``nvsim.sweep.DASK_TASKS_PER_THREAD`` per worker thread), and the same
sweep on 2 local processes. Each is run after a warm-up sweep (imports, Numba's cache).

    python benchmarks/bench_sweep_dask.py

Results are recorded by hand in docs/performance.md ("Sweeps on a Dask cluster").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nvsim.sweep as sweep  # noqa: E402 - after the path is set

SPEC = ROOT / "scenarios" / "sweeps" / "drive-count-level-strip.yaml"
ONE_POINT_PER_TASK = 10**9  # more tasks per thread than points: every batch holds one point


def timed(label: str, out: Path, **where) -> None:
    started = time.perf_counter()
    summary = sweep.run_sweep(SPEC, out, **where)
    print(f"{label}: {summary['points']} points in {time.perf_counter() - started:.1f} s", flush=True)


def main() -> None:
    try:
        from dask.distributed import LocalCluster
    except ImportError:
        print("skipped: dask[distributed] is not installed (pip install 'nvsim[dask]')")
        return
    out = Path(tempfile.mkdtemp())
    batched = sweep.DASK_TASKS_PER_THREAD
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        sweep.run_sweep(SPEC, out / "warm", dask_address=address)
        for label, per_thread in (("Dask, one point per task", ONE_POINT_PER_TASK), (f"Dask, {batched} batches per thread", batched)):
            sweep.DASK_TASKS_PER_THREAD = per_thread
            timed(label, out / f"dask-{per_thread}", dask_address=address)
    sweep.DASK_TASKS_PER_THREAD = batched
    timed("2 local processes", out / "local", workers=2)


if __name__ == "__main__":
    main()
