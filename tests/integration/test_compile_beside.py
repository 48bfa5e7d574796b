"""A first event-mode run compiles the event kernel in a forked process while it compiles the rest
(``nvsim.sim.event.beside``): the kernel is then loaded from the cache, not compiled again, and the
answer is the one a warm cache gives. Each case runs in a fresh process with an empty kernel cache
of its own (about 15 s of compilation)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_RUN = """
import json, sys
import nvsim
from nvsim.numba_cache import use_source_keyed_cache
use_source_keyed_cache()
from nvsim.simulation import compile_beside
from nvsim.sim.event import beside, kernel
catalog = nvsim.default_catalog()
spec = nvsim.load_scenario(sys.argv[1], catalog)
started = compile_beside(spec, catalog, "event")
beside.wait()
again = compile_beside(spec, catalog, "event")  # the kernel is in the cache now: nothing forked
out = {"started": started, "again": again, "compiled_here_before": len(kernel.run.signatures)}
from nvsim.sim.system import ArraySystem
from nvsim.sim.event import simulate_event
result = simulate_event(ArraySystem(spec, spec.workloads[0], catalog), host_ios=2000)
out.update(hits=sum(kernel.run.stats.cache_hits.values()), misses=sum(kernel.run.stats.cache_misses.values()),
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
    warm = run_fresh(tmp_path, scenario)  # the same cache, filled: nothing forked, the same answer
    assert not warm["started"] and warm["hits"] == 1
    assert (warm["iops"], warm["p99"]) == (first["iops"], first["p99"])
