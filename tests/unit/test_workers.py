"""nvsim.workers' Dask checks (without a cluster): a worker of another nvsim or catalog, one that
cannot import nvsim, or no worker at all is refused in one line naming --dask."""

import pytest

from nvsim.errors import InputError
from nvsim.workers import check_dask_workers, worker_identity


class FakeClient:
    def __init__(self, answers: dict, workers: bool = True):
        self.answers, self.workers = answers, workers

    def wait_for_workers(self, n, timeout=None):
        if not self.workers:
            raise TimeoutError("no workers")

    def run(self, function, on_error="raise"):
        assert function is worker_identity and on_error == "return"
        return self.answers


def test_worker_identity_names_version_source_and_catalog():
    here = worker_identity()
    assert set(here) == {"nvsim", "source", "catalog"} and all(len(v) >= 5 for v in here.values())
    assert here == worker_identity()


def test_matching_workers_are_counted():
    assert check_dask_workers(FakeClient({"tcp://a:1": worker_identity(), "tcp://b:1": worker_identity()}), "tcp://s:8786") == 2


@pytest.mark.parametrize("field", ["nvsim", "catalog", "source"])
def test_a_worker_that_differs_is_refused_in_one_line(field):
    theirs = dict(worker_identity(), **{field: "other"})
    with pytest.raises(InputError) as refused:
        check_dask_workers(FakeClient({"tcp://a:1": worker_identity(), "tcp://b:1": theirs}), "tcp://s:8786")
    text = str(refused.value)
    assert text.startswith("--dask: worker tcp://b:1 differs") and f"{field} other (here" in text and "\n" not in text


def test_a_worker_without_nvsim_and_a_cluster_without_workers_are_refused():
    with pytest.raises(InputError, match="worker tcp://a:1 cannot run nvsim .ModuleNotFoundError"):
        check_dask_workers(FakeClient({"tcp://a:1": ModuleNotFoundError("No module named 'nvsim'")}), "tcp://s:8786")
    with pytest.raises(InputError, match="has no worker after .* start one with: dask worker tcp://s:8786"):
        check_dask_workers(FakeClient({}, workers=False), "tcp://s:8786", timeout_s=0.1)


def test_a_pool_is_forked_only_where_the_parent_runs_one_thread_and_no_numba_pool(monkeypatch):
    """A forked child of a process running other threads (a server's, Numba's pool) can deadlock
    on a lock one of them held: such a parent spawns its workers."""
    import sys
    import threading
    import types

    from nvsim import workers

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(workers.threading, "active_count", lambda: 1)  # as if this process ran one thread
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel", types.SimpleNamespace(_is_initialized=False))
    assert workers.start_method() == "fork"
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel", types.SimpleNamespace(_is_initialized=True))
    assert workers.start_method() == "spawn"
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel", types.SimpleNamespace(_is_initialized=False))
    monkeypatch.undo()
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel", types.SimpleNamespace(_is_initialized=False))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert workers.start_method() == "spawn"
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert workers.start_method() == "spawn"


def test_a_pool_worker_computes_what_this_process_does():
    """Same task, same answer in a pool's worker (forked or spawned, as ``start_method`` says)."""
    from nvsim.workers import process_pool

    with process_pool(1) as pool:
        assert pool.submit(sum, [1, 2, 3]).result(timeout=60) == 6


def _sleep(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


def test_a_pool_left_by_an_interrupt_ends_its_workers_at_once():
    """A sweep interrupted with SIGINT hung for good in atexit, joining a worker the pool had never
    shut down, or took seconds to finish tasks nobody would read."""
    import time

    from nvsim.workers import process_pool

    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        with process_pool(2, parent_death_signal=False) as pool:
            futures = [pool.submit(_sleep, 30.0) for _ in range(4)]
            time.sleep(0.5)
            processes = list(pool._processes.values())
            raise KeyboardInterrupt
    assert time.perf_counter() - started < 10 and not any(p.is_alive() for p in processes)
    # the executor hands up to workers + 1 tasks to its call queue at once (running, not cancellable); the rest wait
    assert all(f.cancelled() or f.done() for f in futures[3:])
