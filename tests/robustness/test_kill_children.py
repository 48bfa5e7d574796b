"""Workers die with their parent: a SIGKILL of `nvsim sweep --workers 2` or of `nvsim plan --workers
2`, once its worker processes are up, leaves no process of its own behind within 5 s -- neither
the workers (about 200 MB each, computing for nobody) nor multiprocessing's resource tracker
(``nvsim.workers``; started where the workers are spawned: forked ones need none). The command runs in a session of its own, so every process it started is
found by its process group; the descendants seen before the kill (by /proc's parent links) are
checked too, in case one left the group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads processes from /proc")

ENV = dict(os.environ, COLUMNS="160", PYTHONPATH=str(ROOT))
GONE_WITHIN_S = 5.0


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of a live process, None if it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else (fields[0], int(fields[1]), int(fields[2]))


def _processes() -> dict[int, tuple[str, int, int]]:
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            out[int(name)] = stat
    return out


def _group(pgid: int) -> set[int]:
    return {pid for pid, (_, _, group) in _processes().items() if group == pgid}


def _descendants(root: int) -> set[int]:
    table = _processes()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (_, ppid, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def _kill_when_workers_are_up(args: list[str], children: int, tmp_path: Path) -> tuple[set[int], set[int]]:
    """Start ``nvsim ARGS`` in its own session, wait for ``children`` processes under it (the
    workers; a spawning pool's resource tracker comes on top) and a moment for the workers to start their tasks, SIGKILL
    it; returns (its descendants before the kill, what is alive of them or of its group 5 s on)."""
    parent = subprocess.Popen([sys.executable, "-m", "nvsim.cli", *args], cwd=tmp_path, env=ENV, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while len(_descendants(parent.pid)) < children and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.1)
        time.sleep(2.0)  # the workers import the models and take their first tasks
        # a count can include a short-lived helper (an import's subprocess) while a worker is still
        # being spawned: count again until the workers and the tracker are all there
        while len(before := _descendants(parent.pid)) < children and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.1)
        assert parent.poll() is None and len(before) >= children, f"{len(before)} children; the command ended early?"
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        time.sleep(GONE_WITHIN_S)
        return before, ({pid for pid in before if _stat(pid) is not None} | _group(parent.pid)) - {parent.pid}
    finally:
        for pid in _group(parent.pid) | _descendants(parent.pid):  # never leave one behind for the next test
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if parent.poll() is None:
            parent.kill()
            parent.wait(10)


def test_a_killed_sweep_leaves_no_worker_and_no_resource_tracker(tmp_path):
    # 252 event-mode points of 200,000 host I/Os each: long enough to be killed with its workers up (at
    # the sweep's default 20,000 the whole sweep took 2.8 s on a warm cache, and ended before the kill)
    spec = {"base": str(ROOT / "scenarios" / "xiraid-qlc-raid5" / "scenario.yaml"), "workloads": ["randread-b4k-j16-d64"],
            "fidelity": "event", "host_ios": 200_000, "grid": {"array.drives": list(range(4, 25)), "array.strip_bytes": ["16KiB", "64KiB", "128KiB", "512KiB"],
                     "array.level": [0, 5, 6]}}
    (tmp_path / "sweep.yaml").write_text(json.dumps(spec))
    before, alive = _kill_when_workers_are_up(["sweep", "sweep.yaml", "-o", "out", "--workers", "2"], 2, tmp_path)
    assert alive == set(), f"alive {GONE_WITHIN_S:g} s after the SIGKILL: {sorted(alive)} of {sorted(before)}"


def test_a_killed_plan_leaves_no_worker_and_no_resource_tracker(tmp_path):
    before, alive = _kill_when_workers_are_up(["plan", str(ROOT / "plans" / "benchmark.yaml"), "-o", "out", "--workers", "2"],
                                              2, tmp_path)
    assert alive == set(), f"alive {GONE_WITHIN_S:g} s after the SIGKILL: {sorted(alive)} of {sorted(before)}"
