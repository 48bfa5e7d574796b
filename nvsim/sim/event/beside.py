"""The event kernel compiled beside a first run, in a forked process (issue 41).

A first ``nvsim run`` into an empty kernel cache compiles for about 20 s of CPU (2026-11-30): the
planner, the full-stripe walk and the fluid mode's functions before its first event-mode call
(the bounds, each workload's fluid answer), then the event kernel (``kernel.run`` and its callees,
about half of it), which would run one after the other on one core. ``compile_beside`` forks a process at the
start that compiles the kernel, then the copy of a planned batch into its rows
(``compiled.compile_fill_rows``), into the cache while this one compiles the rest (the rebuild
summary's few queueing networks are solved in NumPy: ``network.COMPILE_AFTER_NUMPY_S``); ``wait``
(``simulate_event`` calls it before its kernel run) joins it, and both then load from the cache.
The kernel is compiled by its first call on a state built as ``compiled.KernelStepper`` builds it
(the same argument types as every run's), for a one-job set-up of the array, which returns at
once (its job has no rows yet): nothing is planned or run there. Same bits: the kernel compiled
there is the one this process would have compiled.

While the two compile, Python's cyclic garbage collector waits in both processes (``_pause_collector``):
Numba's compilation allocates millions of objects, and each full collection walks every one of
them (measured on a first run, 2026-11-30: 16 full collections, 2.0 s of the kernel's process, and
11, 1.25 s of this one's). The other process ends when its compilation does. Here the pause ends
when ``wait`` joins it: what this process then holds is frozen (``gc.freeze``: left out of every
later collection, the compilation's garbage with it) and the collector runs again. Collecting
that garbage instead cost the run about 0.4 s at once and its later full collections walked the
compiled heap again; frozen, it stays for the process's life, once (a first run's peak resident
memory 434 MiB against 335 MiB without the pause, graid-gen5-raid6, docs/performance.md).

Nothing is forked where forking is not safe (``nvsim.workers.start_method``), where the kernel is
in the cache already, or where no workload takes the event mode; the fork is a daemon process that
ends with this one, however it ends (a parent-death signal), and leaves Ctrl-C to it.
"""

from __future__ import annotations

import gc
import os

from ...numba_cache import compiled_in_cache
from . import kernel as k

_pending = None
"""The forked process compiling the kernel, until ``wait`` has joined it."""
_paused = False
"""Whether ``compile_beside`` paused this process's cyclic collector (``wait`` resumes it)."""


def compile_beside(scenario, catalog) -> bool:
    """Fork a process compiling the event kernel for ``scenario``'s array (``wait`` joins it);
    True when one was started."""
    global _pending
    if _pending is not None or compiled_in_cache(k.run):
        return False
    import multiprocessing  # a first run only: a warm one loads neither

    from ...workers import start_method

    if start_method() != "fork":
        return False
    _pending = multiprocessing.get_context("fork").Process(target=_compile, args=(os.getpid(), scenario, catalog),
                                                           name="nvsim-kernel-compile", daemon=True)
    _pending.start()
    _pause_collector()
    return True


def wait() -> None:
    """Join the process ``compile_beside`` started, if one runs (then the kernel loads from the
    cache at its first call here)."""
    global _pending
    if _pending is not None:
        _pending.join()
        _pending = None
    _resume_collector()


def _pause_collector() -> None:
    """Pause the cyclic garbage collector while this process compiles (module docstring), if it
    runs."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def _resume_collector() -> None:
    """Resume the collector ``_pause_collector`` paused, this process's objects frozen first
    (module docstring)."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False


def _compile(parent_pid: int, scenario, catalog) -> None:
    """The kernel's first call on a one-job set-up of ``scenario``'s array: it compiles (into the
    source-keyed cache) and returns at once. It ends with the run that forked it (``parent_pid``):
    Ctrl-C is the run's to handle (this process ignores SIGINT and prints nothing), and the run's
    death, however it comes, ends it too (``workers.die_with_parent``, as the pool's workers)."""
    import signal

    from ...workers import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)
    gc.disable()  # a process that compiles, then ends (module docstring)
    from ...specs import WorkloadSpec
    from ..system import ArraySystem
    from .compiled import KernelStepper, compile_fill_rows
    from .rows import HostJobs
    from .servers import ArrayServers

    try:
        workload = WorkloadSpec(name="compile", rw="randread", bs=4096, numjobs=1, iodepth=1)
        system = ArraySystem(scenario, workload, catalog)
        stepper = KernelStepper(system, HostJobs(system, 0, 1, barrier=False), ArrayServers(system, rebuilding=False),
                                0.0, 1.0, None, None, None)
        stepper.first_call()
        compile_fill_rows()  # the copy of each planned batch, which this run needs after the kernel
    except Exception:  # noqa: BLE001 -- whatever stopped it, the run compiles the kernel itself, as without this
        pass


__all__ = ["compile_beside", "wait"]
