"""A first event-mode run compiles the event kernel (and the copy of a batch into its rows) in a
forked process while it compiles the rest (``nvsim.sim.event.beside``): both are then loaded from
the cache, not compiled again, and the answer is the one a warm cache gives; the cyclic collector
waits meanwhile. Each case runs in a fresh process with an empty kernel cache
of its own (about 15 s of compilation)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_RUN = """
import gc, json, sys
import nvsim
from nvsim.numba_cache import use_source_keyed_cache
use_source_keyed_cache()
from nvsim.simulation import compile_beside
from nvsim.sim.event import beside, compiled, kernel
catalog = nvsim.default_catalog()
spec = nvsim.load_scenario(sys.argv[1], catalog)
started = compile_beside(spec, catalog, "event")
paused = not gc.isenabled()
beside.wait()
resumed, frozen = gc.isenabled(), gc.get_freeze_count()
again = compile_beside(spec, catalog, "event")  # the kernel is in the cache now: nothing forked
out = {"started": started, "again": again, "compiled_here_before": len(kernel.run.signatures), "paused": paused,
       "resumed": resumed, "frozen": frozen, "collecting_after_again": gc.isenabled()}
from nvsim.sim.system import ArraySystem
from nvsim.sim.event import simulate_event
result = simulate_event(ArraySystem(spec, spec.workloads[0], catalog), host_ios=2000)
out.update(hits=sum(kernel.run.stats.cache_hits.values()), misses=sum(kernel.run.stats.cache_misses.values()),
           fill_hits=sum(compiled._fill_rows.stats.cache_hits.values()),
           fill_misses=sum(compiled._fill_rows.stats.cache_misses.values()),
           iops=result.total_iops, p99=result.read_latency_us.get("p99"))
print(json.dumps(out))
"""


def run_fresh(tmp_path: Path, scenario: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = subprocess.run([sys.executable, "-c", FIRST_RUN, scenario], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_kernel_compiled_beside_is_loaded_not_compiled_again_and_answers_alike(tmp_path):
    scenario = str(ROOT / "scenarios" / "latency-tails")
    first = run_fresh(tmp_path, scenario)
    assert first["started"] and not first["again"]
    assert first["compiled_here_before"] == 0  # the parent had not compiled it: the forked process did
    assert first["hits"] == 1 and first["misses"] == 0  # loaded from the cache at its first call here
    # the copy of each batch into its rows too: compiled beside for the types a run passes
    assert first["fill_hits"] == 1 and first["fill_misses"] == 0
    # the cyclic collector waits from the fork to the join (its full collections walk every object
    # Numba's compilation allocates), then runs again with that heap frozen (left out of them)
    assert first["paused"] and first["resumed"] and first["frozen"] > 0 and first["collecting_after_again"]
    warm = run_fresh(tmp_path, scenario)  # the same cache, filled: nothing forked, the same answer
    assert not warm["started"] and warm["hits"] == 1
    assert not warm["paused"] and warm["resumed"] and warm["frozen"] == 0  # nothing forked: the collector left alone
    assert (warm["iops"], warm["p99"]) == (first["iops"], first["p99"])


def test_the_compiling_process_leaves_ctrl_c_to_the_run(tmp_path):
    """SIGINT (a terminal's Ctrl-C reaches the whole process group) to the process compiling the
    kernel beside a first run: it ignores it, prints nothing (it printed a hundred-line traceback
    and left the run to compile the kernel again) and the run completes with its answer."""
    import signal
    import time

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    out = tmp_path / "out.json"
    run = subprocess.Popen([sys.executable, "-m", "nvsim.cli", "run", str(ROOT / "scenarios" / "latency-tails"),
                            "--json", "-o", str(out), "--max-seconds", "0"], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children: list[int] = []
    for _ in range(100):  # the fork comes once the scenario is read
        time.sleep(0.1)
        with open(f"/proc/{run.pid}/task/{run.pid}/children") as listing:
            children = [int(pid) for pid in listing.read().split()]
        if children:
            break
    assert children, "no process compiling beside the first run"
    time.sleep(1.0)  # compiling now
    os.kill(children[0], signal.SIGINT)
    _stdout, err = run.communicate(timeout=600)
    assert run.returncode == 0 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert json.loads(out.read_text())["predictions"]
