"""Event-mode runs off the web server: one worker process, polled by the page (dcc.Interval).

The SimPy simulation is pure Python and would hold the server's GIL for seconds; in a separate
(spawned) process it cannot slow the fluid-mode answers or freeze the page. Each workload, and the
rebuild under load, is its own task, so the page can show "k of n done".
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
import traceback
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from nvsim import default_catalog, parse_scenario

from .core import rebuild_info, workload_record

log = logging.getLogger(__name__)


def run_workload(scenario: dict[str, Any], index: int, host_ios: int) -> dict[str, Any]:
    """Worker side: one workload of the scenario in event mode (errors come back as a line of text)."""
    try:
        catalog = default_catalog()
        spec = parse_scenario(scenario, catalog)
        return workload_record(spec, spec.workloads[index], catalog, "event", host_ios)
    except Exception as exc:  # an exception object may not pickle back (InputError): send its line
        log.error("event-mode run failed\n%s", traceback.format_exc())
        return {"name": f"workload {index}", "error": f"{type(exc).__name__}: {exc}"}


def run_rebuild(scenario: dict[str, Any]) -> dict[str, Any]:
    """Worker side: rebuild time and risk under the scenario's first workload."""
    try:
        catalog = default_catalog()
        return rebuild_info(parse_scenario(scenario, catalog), catalog, under_load=True)
    except Exception as exc:
        log.error("rebuild run failed\n%s", traceback.format_exc())
        return {"na": f"{type(exc).__name__}: {exc}"}


def _exit_with_parent() -> None:
    """Worker initializer: leave when the server process is gone (killed without a clean shutdown)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _warm() -> bool:
    """Start the worker ahead of the first run: unpickling this function imports this module,
    and with it dashboard.core and the models."""
    return True


@dataclass
class Job:
    key: str
    workloads: list[Future]
    rebuild: Future | None
    started_s: float = field(default_factory=time.monotonic)
    names: list[str] = field(default_factory=list)


class EventRunner:
    """Starts event-mode jobs in one worker process and reports their progress."""

    def __init__(self, host_ios: int, workers: int = 1):
        self.host_ios = host_ios
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_exit_with_parent)
        return self._pool

    def _submit(self, fn, *args) -> Future:
        """Submit to the worker; a worker that died (killed, out of memory) is replaced once."""
        try:
            return self._executor().submit(fn, *args)
        except BrokenProcessPool:
            self._pool = None
            return self._executor().submit(fn, *args)

    def warm(self) -> None:
        with self._lock:
            self._submit(_warm)

    def start(self, key: str, scenario: dict[str, Any], rebuild: bool = True) -> str:
        """Queue every workload of ``scenario`` (older queued jobs are cancelled); returns the job id."""
        with self._lock:
            for old in self._jobs.values():
                for future in old.workloads + ([old.rebuild] if old.rebuild else []):
                    future.cancel()
            futures = [self._submit(run_workload, scenario, i, self.host_ios) for i in range(len(scenario.get("workloads") or []))]
            after = self._submit(run_rebuild, scenario) if rebuild else None
            job_id = uuid.uuid4().hex[:12]
            self._jobs = {job_id: Job(key, futures, after, names=[w.get("name", "") for w in scenario.get("workloads") or []])}
            return job_id

    def poll(self, job_id: str | None) -> dict[str, Any]:
        """{"state": running|done|unknown, "done", "total", "elapsed_s", and when done "workloads", "rebuild"}."""
        with self._lock:
            job = self._jobs.get(job_id or "")
        if job is None:
            return {"state": "unknown"}
        tasks = job.workloads + ([job.rebuild] if job.rebuild else [])
        done = sum(f.done() for f in tasks)
        out: dict[str, Any] = {"state": "running", "done": done, "total": len(tasks), "key": job.key,
                               "elapsed_s": time.monotonic() - job.started_s}
        if done == len(tasks):
            out["state"] = "done"
            out["workloads"] = [self._value(f, {"name": n, "error": "cancelled"}) for f, n in zip(job.workloads, job.names)]
            out["rebuild"] = self._value(job.rebuild, {"na": "cancelled"}) if job.rebuild else None
        return out

    @staticmethod
    def _value(future: Future, fallback: dict) -> dict:
        if future.cancelled():
            return fallback
        exc = future.exception()
        if exc is not None:  # the worker process died (BrokenProcessPool) or could not send its answer
            return dict(fallback, error=f"{type(exc).__name__}: {exc}", na=f"{type(exc).__name__}: {exc}")
        return future.result()

    def shutdown(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
