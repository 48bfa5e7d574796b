"""nvsim.cpus: the CPUs a command's worker pools count by default."""

import os

import pytest

from nvsim.cpus import usable_cpus


def test_usable_cpus_are_the_affinity_mask_not_the_machine(monkeypatch):
    """A process held to one CPU (a container's cpuset, ``taskset -c 0``) gets one worker by default
    and a pool of one at most: ``os.cpu_count`` counts the machine's CPUs, not the ones it may use."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_cpus() == 1
    monkeypatch.delattr(os, "sched_getaffinity")
    assert usable_cpus() == 64


class _Started(Exception):
    """Raised by a stand-in for a command's work, once it has the pool's size."""


def test_sweep_plan_and_validate_hold_workers_to_the_cpus_and_say_so(monkeypatch, capsys, tmp_path):
    """``--workers 512`` on a machine whose process may run on 2 CPUs started 512 processes (about
    200 MB each) for sweep, plan and validate; ``nvsim run``'s pool was always held to the CPUs.
    Now each pool is held to them, and a note says so; 0 is still one per CPU, 1 still 1."""
    import types

    import nvsim
    import nvsim.cli
    from nvsim.plan import output as plan_output

    monkeypatch.setattr(nvsim.cli, "usable_cpus", lambda: 2)
    asked = []

    def started(*args, workers, **kwargs):
        asked.append(workers)
        raise _Started

    monkeypatch.setattr(nvsim.sweep, "prepare_sweep", lambda path: None)
    monkeypatch.setattr(nvsim.sweep, "run_sweep", started)
    monkeypatch.setattr(nvsim.plan, "prepare_plan", lambda path: (types.SimpleNamespace(top=1),))
    monkeypatch.setattr(plan_output, "check_outputs", lambda *a: None)
    monkeypatch.setattr(nvsim.plan, "run_plan", started)
    monkeypatch.setattr(nvsim, "compare_all", started)
    commands = (["sweep", "s.yaml", "-o", str(tmp_path / "t")], ["plan", "p.yaml", "-o", str(tmp_path / "p")],
                ["validate"])
    for command in commands:
        for workers, expected in (("512", 2), ("0", 2), ("1", 1)):
            with pytest.raises(_Started):
                nvsim.cli.main([*command, "--workers", workers])
            assert asked.pop() == expected, (command, workers)
            err = capsys.readouterr().err
            assert ("note: --workers 512" in err) == (workers == "512"), (command, err)
