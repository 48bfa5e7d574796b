"""Where parallel work runs: local worker processes that die with their parent, or a Dask cluster.

Every process pool of nvsim (sweeps, the plan's fluid and event stages, ``nvsim validate``, the
dashboard's event-mode worker) is made here. Its workers are forked where that is safe (Linux, a
parent with one thread and Numba's thread pool not started: a forked child of a process whose
Numba thread pool or any other thread is running can deadlock or crash), else spawned
(``start_method``). A forked worker starts with what its parent has loaded (modules, compiled
kernels, the catalog): no imports and no kernel loads of its own, 2-4 s of CPU less per worker.
Each one, before it takes any task:

* asks Linux to SIGKILL it when its parent goes (``prctl(PR_SET_PDEATHSIG)``): a ``kill -9`` of
  ``nvsim sweep`` or ``nvsim plan`` then leaves no worker (about 200 MB each) computing for
  nobody. The signal follows the *thread* that started the worker, so it is asked for only where
  that thread outlives the pool (a ``with`` block in the caller's thread: sweep, plan, validate);
  the dashboard starts workers from short-lived request threads and passes
  ``parent_death_signal=False``.
* leaves at once if its parent is already gone (it died before the signal was asked for), and
  watches its parent (a thread polling ``getppid`` every ``PARENT_POLL_S``) on every system.

multiprocessing's resource tracker (a process the parent starts for the pool's semaphores) needs
nothing more: it reads a pipe whose writing ends the parent and the workers hold, and exits when
the last of them is gone (measured: within 0.5 s of the workers' end).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable

from .errors import InputError

PARENT_POLL_S = 0.5
"""How often a worker looks whether its parent is still there (where no death signal is set)."""
DASK_CONNECT_TIMEOUT_S = 5.0
"""Longest a sweep or a plan waits for a Dask scheduler to answer before it is refused in one line."""
PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal the calling process gets when its parent (thread) dies."""


def set_parent_death_signal(signum: int = signal.SIGKILL) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent_pid: int, parent_death_signal: bool = True) -> None:
    """Make this (worker) process end when ``parent_pid`` does: the death signal where asked for,
    an exit now if the parent is already gone, and a watching thread."""
    if parent_death_signal:
        set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the signal was set: nothing will send it
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker(parent_pid: int, parent_death_signal: bool, initializer: Callable | None, initargs: tuple) -> None:
    die_with_parent(parent_pid, parent_death_signal)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the pool (``Pool``)
    if initializer is not None:
        initializer(*initargs)


class Pool(ProcessPoolExecutor):
    """A process pool whose ``with`` block, left by an exception (Ctrl-C's KeyboardInterrupt, an
    error of a task's result), ends its workers at once instead of waiting for every task it was
    given: a sweep interrupted with SIGINT had hung for good in ``atexit``, joining a worker the
    pool never shut down (or took 3-8 s to finish tasks nobody would read)."""

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return super().__exit__(exc_type, exc, tb)
        processes = list((self._processes or {}).values())
        manager = self._executor_manager_thread  # shutdown forgets it; it reaps workers too
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        if manager is not None:
            # The executor's own thread joins the same workers: where it reaped one first, this
            # thread's join found no child and returned before the worker's exit code was recorded
            # (is_alive then said True). Once that thread is done, every worker's end is recorded.
            manager.join(timeout=5)
        return False


def start_method() -> str:
    """"fork" where a forked worker is safe: Linux, this process running one thread, and Numba's
    thread pool (``parallel=True`` kernels: the parity core's large inputs) not started; else
    "spawn". Either way a worker computes the same bits (every task has its own seeded streams;
    what it inherits is loaded code and caches)."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return "spawn"
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return "spawn" if parallel is not None and getattr(parallel, "_is_initialized", True) else "fork"


def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple[Any, ...] = (),
                 parent_death_signal: bool = True, spawn: bool = False) -> Pool:
    """A pool of ``workers`` processes (forked where safe, else spawned: ``start_method``; always
    spawned with ``spawn``: a worker that must start small, as the dashboard's, whose address space
    is capped, cannot start as a copy of its parent) that die with this one; ``initializer(*initargs)``
    runs in each after that is arranged. Use it where the thread that makes it outlives it (a
    ``with`` block), or pass ``parent_death_signal=False``. The compile notice (a terminal only, an
    empty kernel cache) is said here, once, rather than by each worker."""
    from .numba_cache import compile_notice

    compile_notice()
    method = "spawn" if spawn else start_method()
    return Pool(max_workers=workers, mp_context=multiprocessing.get_context(method), initializer=_start_worker,
                initargs=(os.getpid(), parent_death_signal, initializer, tuple(initargs)))


@contextmanager
def dask_client(address: str, timeout_s: float = DASK_CONNECT_TIMEOUT_S):
    """A Dask client of the scheduler at ``address`` whose every worker runs this nvsim on this
    catalog (``check_dask_workers``), or a one-line refusal naming --dask: no scheduler answers
    within ``timeout_s`` (an address nothing listens on, a malformed one), it has no worker, or a
    worker differs."""
    from dask.distributed import Client  # optional and heavy: only work on a cluster loads it

    try:
        client = Client(address, timeout=timeout_s)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise InputError("--dask", f"no Dask scheduler answers at {address!r} within {timeout_s:g} s ({reason})") from None
    with client:
        check_dask_workers(client, address, timeout_s)
        yield client


def worker_identity() -> dict[str, str]:
    """What a Dask worker must share with its client for a point to give the same bits wherever it
    runs: nvsim's version, a digest of its source and a digest of its catalog's files."""
    from .catalog import DEFAULT_CATALOG_DIR
    from .numba_cache import source_digest

    version = sys.modules[__package__].__version__  # the package, loaded before any of its modules
    return {"nvsim": version, "source": source_digest(), "catalog": source_digest(DEFAULT_CATALOG_DIR, "*.yaml")}


def check_dask_workers(client, address: str, timeout_s: float = DASK_CONNECT_TIMEOUT_S) -> int:
    """Refuse (one line naming --dask) a cluster with no worker within ``timeout_s``, or with a
    worker that cannot run nvsim or runs another version, source or catalog than this process;
    the number of workers otherwise."""
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except (TimeoutError, OSError):
        raise InputError("--dask", f"the Dask scheduler at {address!r} has no worker after {timeout_s:g} s; "
                                   f"start one with: dask worker {address}") from None
    here = worker_identity()
    answers = client.run(worker_identity, on_error="return")
    for worker, theirs in sorted(answers.items()):
        if isinstance(theirs, BaseException):
            raise InputError("--dask", f"worker {worker} cannot run nvsim ({type(theirs).__name__}: "
                                       f"{' '.join(str(theirs).split())[:120]}); install nvsim {here['nvsim']} there")
        if theirs != here:
            differs = ", ".join(f"{k} {theirs.get(k)} (here {v})" for k, v in here.items() if theirs.get(k) != v)
            raise InputError("--dask", f"worker {worker} differs from this nvsim: {differs}; start the workers "
                                       f"from the same nvsim and catalog")
    return len(answers)


__all__ = ["process_pool", "start_method", "die_with_parent", "set_parent_death_signal", "dask_client", "check_dask_workers",
           "worker_identity", "DASK_CONNECT_TIMEOUT_S",
           "PARENT_POLL_S"]
