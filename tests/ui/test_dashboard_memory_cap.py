"""The dashboard works under the memory cap it is given: started under ``ulimit -v`` below the
event worker's own cap (8 GiB), Simulate runs and the worker keeps within what the server has,
instead of failing every job with BrokenProcessPool (the worker raised its RLIMIT_AS above the hard
limit, which setrlimit refuses)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from conftest import ROOT
from dashboard.jobs import WORKER_ADDRESS_SPACE_BYTES, address_space_cap

GIB = 1024**3
SERVER_CAP_BYTES = 6 * GIB
"""Below the worker's own cap (8 GiB), above what a worker needs to load the models and run a job."""

WORKER_UNDER_A_CAP = """
import json, resource, sys, time
from pathlib import Path
from dashboard import core
from dashboard.jobs import EventRunner


def main():
    record = core.compute(core.default_setup())
    runner = EventRunner(host_ios=2000)
    try:
        job = runner.start(record["key"], record["scenario"], rebuild=False)
        deadline = time.monotonic() + 240
        while (status := runner.poll(job))["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        limits = {}
        for pid in runner.worker_pids():
            line = next(l for l in Path(f"/proc/{pid}/limits").read_text().splitlines() if l.startswith("Max address space"))
            limits[pid] = line.split()[3:5]
        print(json.dumps({"status": status, "limits": list(limits.values()),
                          "own": list(resource.getrlimit(resource.RLIMIT_AS))}))
    finally:
        runner.shutdown()


if __name__ == "__main__":  # the worker is spawned: it imports this file as a module
    main()
"""


def _cap(limit_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/PID/limits are Linux's")
def test_simulate_runs_under_a_server_cap_below_the_workers_own(tmp_path):
    """A server started under a 6 GiB cap (soft and hard, as ``ulimit -v`` sets them) runs an
    event-mode job: the workload has figures, no error, and the worker's cap is the server's."""
    script = tmp_path / "worker_under_a_cap.py"
    script.write_text(WORKER_UNDER_A_CAP)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=300, preexec_fn=_cap(SERVER_CAP_BYTES))
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["own"] == [SERVER_CAP_BYTES, SERVER_CAP_BYTES]
    status = answer["status"]
    assert status["state"] == "done" and status["stopped"] is None, status
    workload = status["workloads"][0]
    assert "error" not in workload, workload["error"]
    assert workload["total_iops"] > 0
    assert answer["limits"] and all(limit == [str(SERVER_CAP_BYTES)] * 2 for limit in answer["limits"]), answer["limits"]


def test_the_worker_cap_is_never_above_what_the_process_is_given(monkeypatch):
    """The cap asked for where nothing is lower; else the lower of the soft and hard limits given."""
    infinity = resource.RLIM_INFINITY
    for given, expected in (((infinity, infinity), WORKER_ADDRESS_SPACE_BYTES),
                            ((infinity, 6 * GIB), 6 * GIB),          # ulimit -Hv
                            ((4 * GIB, infinity), 4 * GIB),          # a soft cap only: not raised either
                            ((5 * GIB, 7 * GIB), 5 * GIB),
                            ((16 * GIB, 32 * GIB), WORKER_ADDRESS_SPACE_BYTES)):
        monkeypatch.setattr(resource, "getrlimit", lambda _which, given=given: given)
        assert address_space_cap(WORKER_ADDRESS_SPACE_BYTES) == expected, given
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (infinity, infinity))
    assert address_space_cap(None) is None
