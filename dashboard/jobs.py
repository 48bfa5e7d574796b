"""Event-mode runs and plans off the web server: worker processes, polled by the page (dcc.Interval).

Plans (``PlanRunner``, the Plan view's) run the same way, at most MAX_PLANS at once, each in its
own worker; a worker sends its progress back on a queue (stage, candidates done, total) that a
poll drains, and a plan past PLAN_TIMEOUT_S is stopped like an event-mode job (the pool's workers
are killed: another plan running then ends too, its status saying its worker ended).

The SimPy simulation is pure Python and would hold the server's GIL for seconds; in a separate
(spawned) process it cannot slow the fluid-mode answers or freeze the page. Each workload, and the
rebuild under load, is its own task, so the page can show "k of n done".

A job is bounded three ways: the app refuses one whose estimate is over the work and memory budget
before it starts (``core.check_event_budget``); the worker's address space is capped
(WORKER_ADDRESS_SPACE_BYTES, or the server's own cap where that is lower: a run that grows past it
fails with MemoryError, reported as the workload's error); and a job still running after its
time-out is stopped (the worker is killed and replaced) and reported as such, whether or not a page
polls it (a timer looks at each job once its time-out is past). ``shutdown`` kills the workers too, so a server stopped by SIGTERM
leaves no process behind; a server killed outright leaves none either (``nvsim.workers``: each
worker watches its parent and leaves within half a second of its end).
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import resource
import threading
import time
import traceback
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from nvsim import InputError, default_catalog, parse_scenario
from nvsim.budget import serve_clients
from nvsim.workers import process_pool

from .core import failure_line, rebuild_info, workload_record
from .datasheet import session_catalog

log = logging.getLogger(__name__)

JOB_TIMEOUT_S = 120.0
"""Longest an event-mode job may run (every workload and the rebuild): a job within the budget
takes seconds (256 x 256 in flight: 3 s per workload on one core)."""
WATCH_SLACK_S = 0.5
"""How long after a job's time-out its timer looks at it (``WorkerPool._watch``): past it, surely."""
WORKER_ADDRESS_SPACE_BYTES = 8 * 1024**3
"""The worker's address-space cap (RLIMIT_AS): about 0.9 GB is mapped for a job at the budget's
limit, so this only stops a run that would otherwise grow without bound."""


def run_workload(scenario: dict[str, Any], index: int, host_ios: int, sheets: list[dict] | None = None) -> dict[str, Any]:
    """Worker side: one workload of the scenario in event mode (errors come back as a line of text);
    ``sheets``: the session's datasheet drives (``dashboard.datasheet``)."""
    try:
        catalog = session_catalog(default_catalog(), sheets)
        spec = parse_scenario(scenario, catalog)
        return workload_record(spec, spec.workloads[index], catalog, "event", host_ios)
    except MemoryError:  # over the worker's address-space cap: a refusal, not a bug
        log.warning("event-mode run of workload %d stopped: over the worker's memory cap", index)
        return {"name": f"workload {index}", "error": "MemoryError: over the event-mode worker's memory cap"}
    except Exception as exc:  # an exception object may not pickle back (InputError): send its line
        log.error("event-mode run failed\n%s", traceback.format_exc())
        return {"name": f"workload {index}", "error": failure_line(exc)}


def run_rebuild(scenario: dict[str, Any], sheets: list[dict] | None = None) -> dict[str, Any]:
    """Worker side: rebuild time and risk under the scenario's first workload."""
    try:
        catalog = session_catalog(default_catalog(), sheets)
        return rebuild_info(parse_scenario(scenario, catalog), catalog, under_load=True)
    except Exception as exc:
        log.error("rebuild run failed\n%s", traceback.format_exc())
        return {"na": failure_line(exc)}


def address_space_cap(wanted_bytes: int | None) -> int | None:
    """The worker's address-space cap: ``wanted_bytes`` where this process may have that much, else
    the most it is given (its own RLIMIT_AS, soft or hard, whichever is lower): a limit is never
    raised above the hard one (setrlimit refuses that, and the pool would break). None: no cap."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    given = [limit for limit in (soft, hard) if limit != resource.RLIM_INFINITY]
    caps = ([wanted_bytes] if wanted_bytes else []) + given
    return min(caps) if caps else None


def _worker_init(address_space_bytes: int | None) -> None:
    """Worker initializer: cap the worker's memory within what it was given (``address_space_cap``);
    its work checks are a client's (``nvsim.budget.serve_clients``)."""
    serve_clients()
    cap = address_space_cap(address_space_bytes)
    if address_space_bytes and cap is not None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _warm() -> bool:
    """Start the worker ahead of the first run: unpickling this function imports this module,
    and with it dashboard.core and the models."""
    return True


MAX_EVENT_JOBS = 4
"""Event-mode jobs a server holds queued or running at once, for all its pages together: one worker
runs them in turn, so a second page's Simulate queues behind the first instead of cancelling it; one
more is refused in one line until a job ends."""
KEEP_FINISHED_JOBS = 32
"""Finished event-mode jobs kept for a poll that comes late (older ones are forgotten)."""


@dataclass
class Job:
    key: str
    workloads: list[Future]
    rebuild: Future | None
    started_s: float = field(default_factory=time.monotonic)
    names: list[str] = field(default_factory=list)
    stopped: str | None = None
    calls: list[tuple] = field(default_factory=list)  # (function, *args) of each task: workloads, then the rebuild
    timeout_s: float = JOB_TIMEOUT_S  # from its start: its own run plus the jobs queued ahead of it

    @property
    def tasks(self) -> list[Future]:
        return self.workloads + ([self.rebuild] if self.rebuild else [])

    def finished(self) -> bool:
        return all(f.done() for f in self.tasks)

    def cancel(self) -> None:
        for future in self.tasks:
            future.cancel()

    def resubmit(self, submit) -> None:
        """Submit again every task the killed worker took down with it (not run, or ended by the
        pool's end rather than its own answer)."""
        futures = [f if f.done() and not f.cancelled() and not isinstance(f.exception(), BrokenProcessPool)
                   else submit(*call) for f, call in zip(self.tasks, self.calls)]
        self.workloads = futures[:len(self.workloads)]
        self.rebuild = futures[len(self.workloads)] if self.rebuild else None


class WorkerPool:
    """Spawned worker processes a server starts jobs in, and stops (killed, replaced) when a job
    runs past its time-out or the server ends; ``initializer(address_space_bytes, *initargs)``
    runs in each worker."""

    def __init__(self, workers: int = 1, timeout_s: float = JOB_TIMEOUT_S,
                 address_space_bytes: int | None = WORKER_ADDRESS_SPACE_BYTES, initializer=None, initargs: tuple = ()):
        self.workers = workers
        self.timeout_s = timeout_s
        self.address_space_bytes = address_space_bytes
        self._initializer = initializer or _worker_init
        self._initargs = initargs
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._pids: set[int] = set()
        self._timers: dict[str, threading.Timer] = {}  # each running job's time-out (``_watch``)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # workers start from request threads that end long before them: no parent-death signal
            # (it follows the starting thread); they watch for the server's end instead (nvsim.workers).
            # Spawned, never forked: their address space is capped, and a fork starts as big as the server
            self._pool = process_pool(self.workers, self._initializer, (self.address_space_bytes, *self._initargs),
                                      parent_death_signal=False, spawn=True)
        return self._pool

    def worker_pids(self) -> set[int]:
        """The pids of the worker processes started so far (those still alive or not yet reaped)."""
        return set(self._pids)

    def _kill_workers(self) -> None:
        """Stop every worker now (a running task cannot be cancelled otherwise); the next job gets
        a fresh pool."""
        pool, self._pool = self._pool, None
        ours = self.worker_pids()
        for process in multiprocessing.active_children():  # live children only: no stale pid is signalled
            if process.pid in ours:
                process.kill()
                process.join(5)
        self._pids.clear()
        if pool is not None:  # the pool now fails every unfinished task (BrokenProcessPool); cancelling
            pool.shutdown(wait=True)  # them here as well would race it (CPython's InvalidStateError)

    def _submit(self, fn, *args) -> Future:
        """Submit to the worker; a worker that died (killed, out of memory) is replaced once. The
        pool starts its processes inside ``submit``: the children that appear then are its workers
        (known at once, before they have even finished importing, so they can always be stopped)."""
        before = {p.pid for p in multiprocessing.active_children()}
        try:
            future = self._executor().submit(fn, *args)
        except BrokenProcessPool:
            self._pool = None
            future = self._executor().submit(fn, *args)
        self._pids |= {p.pid for p in multiprocessing.active_children()} - before
        return future

    def shutdown(self) -> None:
        """Cancel queued tasks and stop the workers, running ones included (server exit)."""
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
            self._kill_workers()

    def _watch(self, job_id: str, running: set[str], timeout_s: float | None = None) -> None:
        """Hold the time-out (``timeout_s``, default the pool's) whether or not a client polls: a
        timer polls the job once it is due (a page that started a job and went away left its worker
        running to the end). Timers of jobs no longer ``running`` are cancelled, so there are never
        more than the running jobs."""
        for old in [j for j in self._timers if j not in running]:
            self._timers.pop(old).cancel()
        timer = threading.Timer((timeout_s or self.timeout_s) + WATCH_SLACK_S, self.poll, args=(job_id,))
        timer.daemon = True
        self._timers[job_id] = timer
        timer.start()


class EventRunner(WorkerPool):
    """Starts event-mode jobs in one worker process, reports their progress, stops them."""

    def __init__(self, host_ios: int, workers: int = 1, timeout_s: float = JOB_TIMEOUT_S,
                 address_space_bytes: int | None = WORKER_ADDRESS_SPACE_BYTES):
        super().__init__(workers, timeout_s, address_space_bytes)
        self.host_ios = host_ios
        self._jobs: dict[str, Job] = {}

    def warm(self) -> None:
        with self._lock:
            self._submit(_warm)

    def start(self, key: str, scenario: dict[str, Any], rebuild: bool = True, sheets: list[dict] | None = None,
              host_ios: int | None = None, replaces: str | None = None) -> str:
        """Queue every workload of ``scenario`` behind the jobs already queued; returns the job id.
        ``replaces``: the page's previous job, cancelled (another page's jobs are not touched);
        ``sheets``: the session's datasheet drives; ``host_ios``: per workload (default the
        runner's). Past ``MAX_EVENT_JOBS`` unfinished jobs, an InputError (one line)."""
        with self._lock:
            old = self._jobs.pop(replaces, None) if replaces else None
            if old is not None:
                old.cancel()
            live = [j for j in self._jobs if not self._jobs[j].finished()]
            if len(live) >= MAX_EVENT_JOBS:
                raise InputError("simulate", f"the server is running {len(live)} event-mode jobs (at most "
                                             f"{MAX_EVENT_JOBS} at once); try again when one ends")
            for done in [j for j in self._jobs if j not in live][:-KEEP_FINISHED_JOBS or None]:
                del self._jobs[done]
            calls = [(run_workload, scenario, i, host_ios or self.host_ios, sheets)
                     for i in range(len(scenario.get("workloads") or []))] + ([(run_rebuild, scenario, sheets)] if rebuild else [])
            futures = [self._submit(*call) for call in calls]
            count = len(calls) - bool(rebuild)
            job_id = uuid.uuid4().hex[:12]
            job = Job(key, futures[:count], futures[count] if rebuild else None, calls=calls,
                      names=[w.get("name", "") for w in scenario.get("workloads") or []],
                      timeout_s=self.timeout_s * (len(live) + 1))  # the jobs ahead may each take their time-out
            self._jobs[job_id] = job
            self._watch(job_id, {*live, job_id}, job.timeout_s)
        return job_id

    def poll(self, job_id: str | None) -> dict[str, Any]:
        """{"state": running|done|unknown, "done", "total", "elapsed_s", and when done "workloads", "rebuild"}."""
        with self._lock:
            job = self._jobs.get(job_id or "")
        if job is None:
            return {"state": "unknown"}
        elapsed_s = time.monotonic() - job.started_s
        if job.stopped is None and elapsed_s > job.timeout_s and not job.finished():
            self._stop(job, f"stopped: still running after the time-out of {self.timeout_s:g} s")
        tasks = job.tasks
        done = sum(f.done() for f in tasks)
        out: dict[str, Any] = {"state": "running", "done": done, "total": len(tasks), "key": job.key,
                               "elapsed_s": elapsed_s}
        if done == len(tasks):
            reason = job.stopped or "cancelled"
            out["state"] = "done"
            out["stopped"] = job.stopped
            out["workloads"] = [self._value(f, {"name": n, "error": reason}, job.stopped) for f, n in zip(job.workloads, job.names)]
            out["rebuild"] = self._value(job.rebuild, {"na": reason}, job.stopped) if job.rebuild else None
        return out

    def _stop(self, job: Job, reason: str) -> None:
        """End a job over its time-out: kill the worker, mark every unfinished task with the reason;
        the other pages' jobs queued behind it are submitted again to the fresh worker."""
        log.warning("event-mode job %s", reason)
        with self._lock:
            job.stopped = reason
            self._kill_workers()
            for other in self._jobs.values():
                if other is not job and other.stopped is None:
                    other.resubmit(self._submit)

    @staticmethod
    def _value(future: Future, fallback: dict, stopped: str | None = None) -> dict:
        if future.cancelled():
            return fallback
        exc = future.exception()
        if exc is not None:  # stopped, the worker process died (BrokenProcessPool) or could not answer
            reason = stopped or f"{type(exc).__name__}: {exc}"
            return dict(fallback, error=reason, na=reason)
        return future.result()


def job_id_of(job: Any) -> str | None:
    """The job id a page's job store holds (a client's store: anything but a short string is none)."""
    value = job.get("id") if isinstance(job, dict) else None
    return value if isinstance(value, str) and len(value) <= 64 else None


# ---------------------------------------------------------------- plans

MAX_PLANS = 2
"""Plans that run at once (one worker process each); a further one is refused until one ends."""
PLAN_TIMEOUT_S = 300.0
"""Longest a plan may run in the dashboard: the view's searches take seconds; a larger one belongs
to `nvsim plan`, which has no such limit."""
_progress_queue = None
"""In a plan worker: the queue its progress goes back to the server on (``_plan_worker_init``)."""


def _plan_worker_init(address_space_bytes: int | None, queue) -> None:
    global _progress_queue
    _worker_init(address_space_bytes)
    _progress_queue = queue


def run_plan_job(job_id: str, text: str) -> dict[str, Any]:
    """Worker side: the plan in ``text`` (``plan_view.plan_from_text``), its progress sent back as
    (job, stage, advance, total) as each batch of candidates is done."""
    from .plan_view import plan_from_text  # noqa: PLC0415 - only a plan worker loads the Plan view (and Plotly)

    def progress(stage: str, advance: int, total: int | None) -> None:
        if _progress_queue is not None:
            _progress_queue.put((job_id, stage, advance, total))
    try:
        return plan_from_text(text, progress=progress)
    except MemoryError:
        return {"error": "MemoryError: over the plan worker's memory cap; narrow the search"}
    except Exception as exc:  # the view says one line; the traceback goes to the log
        log.error("plan failed\n%s", traceback.format_exc())
        return {"error": failure_line(exc)}


@dataclass
class PlanJob:
    future: Future
    started_s: float = field(default_factory=time.monotonic)
    stages: dict[str, list] = field(default_factory=dict)  # stage -> [done, total]
    stopped: str | None = None


class PlanRunner(WorkerPool):
    """Runs plans off the request thread, at most MAX_PLANS at once, each in a worker process, and
    reports their progress (``poll``) from what the workers send back."""

    KEEP = 16
    """Finished jobs kept for a poll that comes late (older ones are forgotten)."""

    def __init__(self, workers: int = MAX_PLANS, timeout_s: float = PLAN_TIMEOUT_S,
                 address_space_bytes: int | None = WORKER_ADDRESS_SPACE_BYTES):
        self._queue = multiprocessing.get_context("spawn").Queue()
        super().__init__(workers, timeout_s, address_space_bytes, _plan_worker_init, (self._queue,))
        self._jobs: dict[str, PlanJob] = {}

    def running(self) -> int:
        return sum(not j.future.done() for j in self._jobs.values())

    def start(self, text: str) -> str | None:
        """Queue a plan; its job id, or None when MAX_PLANS are running already."""
        with self._lock:
            if self.running() >= self.workers:
                return None
            job_id = uuid.uuid4().hex[:12]
            self._jobs[job_id] = PlanJob(self._submit(run_plan_job, job_id, text))
            for old in list(self._jobs)[:-self.KEEP]:
                if self._jobs[old].future.done():
                    del self._jobs[old]
            self._watch(job_id, {j for j, job in self._jobs.items() if not job.future.done()})
        return job_id

    def _drain(self) -> None:
        """Take every progress message the workers sent into its job's stages."""
        while True:
            try:
                job_id, stage, advance, total = self._queue.get_nowait()
            except (queue.Empty, OSError, ValueError):
                return
            job = self._jobs.get(job_id)
            if job is not None:
                done = job.stages.setdefault(stage, [0, total])
                done[0] += advance

    def poll(self, job_id: str | None) -> dict[str, Any]:
        """{"state": running|done|unknown, "elapsed_s", "stages": {stage: [done, total]}, and when
        done "answer" (``plan_from_text``'s) or "error"}."""
        with self._lock:
            self._drain()
            job = self._jobs.get(job_id or "")
        if job is None:
            return {"state": "unknown"}
        elapsed_s = time.monotonic() - job.started_s
        if job.stopped is None and not job.future.done() and elapsed_s > self.timeout_s:
            job.stopped = f"stopped: still running after the time-out of {self.timeout_s:g} s; narrow the search"
            log.warning("plan %s", job.stopped)
            with self._lock:  # every plan's worker goes: a running task cannot be stopped otherwise
                self._kill_workers()
        out: dict[str, Any] = {"state": "running", "elapsed_s": elapsed_s, "stages": dict(job.stages)}
        if not job.future.done():
            return out
        out["state"] = "done"
        if job.stopped or job.future.cancelled() or job.future.exception() is not None:
            reason = job.stopped or ("cancelled" if job.future.cancelled() else
                                     f"the plan's worker process ended ({type(job.future.exception()).__name__}); run it again")
            out["answer"] = {"error": reason}
        else:
            out["answer"] = job.future.result()
        return out
