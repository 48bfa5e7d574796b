"""Compile the simulator's kernels into the cache at set-up, not in a user's first answer.

``python -m nvsim.warm`` (``make setup`` runs it; a pip user runs it once after installing or
upgrading) runs a short fluid and event-mode pass over the first workloads of scenarios that
between them reach the compiled kernels a ``nvsim run`` uses: a GPU RAID6 array (random and
sequential, reads and writes; the default scenario), Intel VROC's RAID5 (md's planner and a
partial parity log) and md RAID0 (random reads and a 70/30 mix), and each one's rebuild summary;
then the state solvers' queueing network, which a run solves in NumPy but the commands that solve
many compile. Each kernel compiles once into the source-keyed cache (``nvsim.numba_cache``); a
later process loads it. Nothing of the answers is kept: the runs are
too short to mean anything, and a warm cache changes no number (same seed, same bits). It also
writes nvsim's own bytecode (``compile_bytecode``), which an editable install under
PYTHONDONTWRITEBYTECODE would otherwise compile from source on every command.
"""

from __future__ import annotations

import compileall
import sys
import time
from pathlib import Path

from .catalog import default_catalog
from .numba_cache import cache_is_empty, use_source_keyed_cache
from .published import scenarios_dir
from .rebuild import rebuild_summary
from .scenario import load_scenario
from .sim.network import compile_network
from .simulation import Simulation

SCENARIOS = ("graid-gen5-raid6", "vroc-example", "latency-tails")
"""Shipped scenarios whose workloads reach the kernels (engines, levels, random and sequential)."""
WORKLOADS = 4
"""Workloads of each scenario run (its first ones)."""
WARM_HOST_IOS = 2_000
"""Host I/Os of each event-mode pass: enough to run every kernel once."""


def warm(scenarios: tuple[str, ...] = SCENARIOS, stream=None) -> float:
    """Run each scenario's workloads briefly in both modes; the seconds it took."""
    stream = stream or sys.stderr
    started = time.perf_counter()
    directory = use_source_keyed_cache()
    stream.write(f"nvsim: compiling the simulator's kernels into {directory} "
                 f"({'empty' if cache_is_empty(directory) else 'already filled'}) ...\n")
    compile_bytecode()
    catalog = default_catalog()
    for name in scenarios:
        spec = load_scenario(scenarios_dir() / name, catalog)
        for workload in spec.workloads[:WORKLOADS]:
            simulation = Simulation(spec, workload, catalog=catalog)
            simulation.run("fluid")
            simulation.run("event", host_ios=WARM_HOST_IOS)
        rebuild_summary(spec, catalog)  # the rebuild's states (their few networks solved in NumPy)
    compile_network()  # the states' compiled queueing network, which many solves (validate, sweeps) use
    seconds = time.perf_counter() - started
    stream.write(f"nvsim: kernels ready ({seconds:.0f} s)\n")
    return seconds


def compile_bytecode() -> bool:
    """Write the bytecode of nvsim's modules beside them (``__pycache__``), whatever
    PYTHONDONTWRITEBYTECODE says: with it set (as in some containers and CI images) an editable
    install's modules were compiled from source on every command, 0.2-0.25 s of a warm `nvsim run`.
    Python still checks each file's time stamp, so an edited module is compiled afresh (in memory)
    until the next set-up. True when every module was written; a read-only install (whose
    installer wrote its own) is left as it is."""
    try:
        return bool(compileall.compile_dir(Path(__file__).parent, quiet=2))
    except OSError:
        return False


def main() -> int:
    warm()
    return 0


if __name__ == "__main__":
    sys.exit(main())
