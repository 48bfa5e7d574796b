"""nvsim.cpus: the CPUs a command's worker pools count by default."""

import os

from nvsim.cpus import usable_cpus


def test_usable_cpus_are_the_affinity_mask_not_the_machine(monkeypatch):
    """A process held to one CPU (a container's cpuset, ``taskset -c 0``) gets one worker by default
    and a pool of one at most: ``os.cpu_count`` counts the machine's CPUs, not the ones it may use."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_cpus() == 1
    monkeypatch.delattr(os, "sched_getaffinity")
    assert usable_cpus() == 64
