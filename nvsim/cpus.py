"""The CPUs of the machine nvsim itself runs on (not a simulated platform's: nvsim.platform): how
many worker processes a command starts by default, and at most. Light on purpose (``os`` only), so
that a command that runs no pool loads no multiprocessing (tests/integration/test_lazy_imports.py)."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity mask where the system keeps one (a container's
    cpuset, ``taskset``), which ``os.cpu_count`` ignores (it counts the machine's), else the
    machine's count; at least 1. The default worker count of every pool and its ceiling."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks (macOS, Windows)
        return os.cpu_count() or 1
