"""Several kinds of work sharing the array at once, as a closed/open queueing network (fluid mode).

The steady fio fluid mode (``fluid.py``) takes the tightest resource; once a rebuild, a degraded
array's extra reads or an OLTP database's users share the resources, each class's rate depends on
the others', so it is solved as a multi-class queueing network with the same per-I/O demands:

* stations: the ``ArraySystem.resources`` list (``nvsim.fabric``), with every drive's NAND pool and
  link directions as stations of their own (a rebuild loads its source and target drives, not the
  mean member), and the rebuild thread;
* closed classes (fio jobs' I/Os in flight, OLTP users, a rebuild's requests in flight): Bard-
  Schweitzer approximate mean value analysis (Schweitzer 1979; Lazowska et al., *Quantitative
  System Performance*, 1984, ch. 7), each cycle made of its demands plus a pure delay;
* open classes (an OLTP database's page flushes): their utilisation slows every closed class
  (the mixed-network rule, Lazowska ch. 7.4);
* a station of ``m`` servers follows Seidmann et al. (1987): a queue of demand D/m plus a delay of
  D (m - 1)/m.
* a station of threads with a queue each (a fio job's core, ``ThreadQueue``): a class bound to them
  waits at its own thread by exact MVA over its few customers there, the one in service for its
  residual time (Reiser), the rest of its cycle a delay.
The waiting time of each station adds to a class's *unloaded* latency, which keeps the member I/Os
of one host I/O in parallel (the sum of demands would serialise them).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..numba_cache import INNER, compiled_in_cache
from .. import fabric
from .system import ArraySystem, HostIoBatch, phase_runs


@dataclass(frozen=True)
class Stations:
    """The stations of one array: labels, keys (``resources`` key, drive index or -1), servers."""

    labels: tuple[str, ...]
    keys: tuple[tuple[str, int], ...]
    servers: np.ndarray

    def index(self, key: str, drive: int = -1) -> int:
        return self.keys.index((key, drive))

    def __len__(self) -> int:
        return len(self.labels)




def fork_join_wait_scale(branches: int) -> float:
    """The scale on each branch's queueing delay that makes a class visiting ``branches`` stations at
    once (a rebuild request reading every survivor) wait for the slowest of them: the expected
    maximum of k independent exponential waits of one mean is H_k (the k-th harmonic number) times
    it, the base term of Nelson & Tantawi's fork-join approximation ("Approximate analysis of
    fork/join synchronization in parallel queues", IEEE Trans. Computers 37(6), 1988), so the k
    branches' waits, summed by the network, are scaled by H_k / k (1 for one branch). Scaled by 1/k
    (their mean) instead, a RAID6 rebuild under a read load ran 1.3-2.8 times the event mode's."""
    k = max(1, int(branches))
    return harmonic_number(k) / k


def harmonic_number(k: int) -> float:
    """H_k = 1 + 1/2 + ... + 1/k: the expected maximum of k unit-mean exponentials."""
    return sum(1.0 / i for i in range(1, k + 1))


def io_wait_scale(net: Stations, batches: list[HostIoBatch]) -> np.ndarray:
    """Per station, the scale on a host I/O class's queueing delay that charges each run of member
    I/Os issued together (a host I/O's phase: a striped read's members, an RMW's reads, its writes)
    the slowest of its k waits (``fork_join_wait_scale``) where the network would sum them: at the
    drives' stations, the runs' H_k over their k, pooled over the sample; 1 elsewhere."""
    sum_k, sum_h = 0, 0.0
    for b in batches:
        if not len(b.op_phase):
            continue
        runs = b.op_runs if b.op_runs is not None else phase_runs(b.op_phase, b.op_start)
        sizes, counts = np.unique(np.diff(np.append(runs, len(b.op_phase))), return_counts=True)
        sum_k += len(b.op_phase)  # the runs' sizes add up to the batch's member I/Os
        sum_h += sum(c * harmonic_number(k) for k, c in zip(sizes.tolist(), counts.tolist()))
    scale = sum_h / sum_k if sum_k else 1.0
    return np.array([scale if fabric.KIND[key].per_drive else 1.0 for key, _drive in net.keys])


def stations(system: ArraySystem) -> Stations:
    """The array's resources (``nvsim.fabric``) with every drive's own, and the rebuild thread."""
    labels, keys, servers = fabric.stations(system.facts, system.array.drives)
    return Stations(tuple(labels), tuple(keys), np.asarray(servers, dtype=float))


def io_demands(system: ArraySystem, net: Stations, batches: list[HostIoBatch], drive_weights: np.ndarray | None = None,
               rebuild: bool = False) -> np.ndarray:
    """Mean demand (seconds) of one host I/O (``rebuild``: rebuild request) of ``batches`` at every
    station (``nvsim.fabric.mean_demands``).

    Drives: per member from the batches' member I/Os; ``drive_weights`` (jobs bound to drives
    without RAID) spreads them by share instead.
    """
    return np.asarray(fabric.mean_demands(net.keys, batches, system.array.drives, rebuild=rebuild,
                                          drive_weights=drive_weights), dtype=float)


def io_visits(system: ArraySystem, net: Stations, batches: list[HostIoBatch]) -> np.ndarray:
    """Mean visits of one host I/O to every station: member I/Os per drive station, the event
    mode's one or two to the engine (``HostIoBatch.engine_visits``), one elsewhere (where it has a
    demand). With the demands they give the service time per visit."""
    return np.asarray(fabric.mean_visits(net.keys, batches, system.array.drives), dtype=float)


STACK = 64
"""Depth of ``_pairwise_sum``'s stack: NumPy's pairwise tree over 2**63 values is shallower."""


@dataclass
class NetworkSolution:
    throughput: np.ndarray  # per closed class, cycles per second
    cycle_s: np.ndarray  # per closed class, mean time of one cycle
    utilisation: np.ndarray  # per station (closed + open classes), busy share of its servers
    waiting_s: np.ndarray  # (classes, stations) queueing delay per cycle
    queue: np.ndarray  # (classes, stations) mean queue lengths (a warm start for a nearby solve)


@dataclass(frozen=True)
class ThreadQueue:
    """A station of threads each with a queue of its own (a fio job's core: the event mode books
    each job's I/Os on its own CPU, one server), and how each class waits there: ``per_thread``
    customers of the class at each thread (0: not bound to one; the station's rule is then the
    pooled one), ``residual`` the service left, as a share of its mean, of the one in service when a
    customer arrives (E[S^2] / 2 E[S]^2: 1 exponential, 1/2 a fixed time). A bound class's wait there
    is the exact MVA of its thread's few customers with the rest of its cycle as their delay
    (``thread_wait_s``): Schweitzer's approximation of a pooled exponential station over 1-8
    customers a thread left a fio job at QD4 15% below the event mode."""

    station: int
    per_thread: np.ndarray
    residual: np.ndarray

    @classmethod
    def none(cls, classes: int) -> ThreadQueue:
        return cls(-1, np.zeros(classes), np.ones(classes))


def thread_wait_s(service_s: float, rest_s: float, population: float, residual: float) -> float:
    """The wait of one of ``population`` customers at their thread's single server (``service_s``
    each, ``rest_s`` the rest of their cycle), by exact MVA with Reiser's residual rule: an arrival
    waits for the queue it finds, the one in service for ``residual`` of its time. A population that
    is not whole starts its steps from its fraction."""
    q = u = w = 0.0
    steps = max(1, int(math.ceil(population - 1e-9)))
    n = population - (steps - 1)
    for _ in range(steps):
        w = service_s * max(q - (1.0 - residual) * u, 0.0)
        x = n / (rest_s + service_s + w)
        q, u = x * (service_s + w), x * service_s
        n += 1.0
    return w


_thread_wait_compiled = njit(cache=True, _nrt=False, **INNER)(thread_wait_s)


def solve_network(demand_s: np.ndarray, servers: np.ndarray, population: np.ndarray, base_s: np.ndarray,
                  open_utilisation: np.ndarray | None = None, iterations: int = 400, tolerance: float = 1e-7,
                  start: np.ndarray | None = None, wait_scale: np.ndarray | None = None,
                  visits: np.ndarray | None = None, threads: ThreadQueue | None = None) -> NetworkSolution:
    """Schweitzer's approximate MVA for closed classes (``demand_s``: classes x stations).

    ``population``: customers of each closed class (real numbers allowed); ``base_s``: each class's
    cycle time with no queueing (unloaded latency plus any pure delay); ``open_utilisation``: the
    busy share of each station taken by open classes. Returns throughputs, cycle times and
    utilisations. ``wait_scale`` (classes x stations) weighs each station's waiting in a class's
    cycle: 1/k where a cycle waits at k such stations at once (a rebuild request reads every
    survivor in parallel, so it waits for the slowest, not the sum). ``visits`` (classes x
    stations): with them a FCFS station's waiting is the work queued ahead in the other classes'
    own service times per visit (Bard's multi-class FCFS rule), not the arriving class's.
    ``threads``: a station of threads each with a queue of its own (a fio job's core), where the
    classes bound to them wait as ``ThreadQueue`` says.

    The fixed-point iteration runs compiled (``_mva``) or in NumPy (``_schweitzer_numpy``); the
    compiled loop does NumPy's operations in NumPy's order (its pairwise sums included), so both
    give the same bits, and which one ran (``_compiled_pays``) changes no number.
    """
    demand_s = np.atleast_2d(np.asarray(demand_s, dtype=float))
    classes, k = demand_s.shape
    population = np.asarray(population, dtype=float)
    base_s = np.asarray(base_s, dtype=float)
    u_open = np.zeros(k) if open_utilisation is None else np.minimum(np.asarray(open_utilisation, float), 0.999)
    m = np.maximum(servers, 1.0)
    queue_part = demand_s / m / (1.0 - u_open)  # Seidmann: a single queue of D/m, slowed by open work
    scale = np.ones_like(demand_s) if wait_scale is None else np.atleast_2d(wait_scale)
    v = service = np.zeros((0, 0))
    if visits is not None:
        v = np.maximum(np.atleast_2d(visits), 1e-12)
        service = np.where(demand_s > 0, demand_s / v, 0.0) / m / (1.0 - u_open)  # per visit, per server
    # open work slows a closed customer's own service too (R = D (1 + Q) / (1 - U_open)): the
    # stretch of the queue part of its demand, beside its waiting
    stretch = queue_part - demand_s / m
    queue = np.zeros((classes, k)) if start is None or start.shape != (classes, k) else start.copy()
    x, waiting = np.zeros(classes), np.zeros((classes, k))
    shape = (classes, k)
    arrays = [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=float) for a in (demand_s, queue_part, stretch, scale)]
    if visits is not None:
        v, service = (np.ascontiguousarray(np.broadcast_to(a, shape), dtype=float) for a in (v, service))
    rest = (np.ascontiguousarray(m, dtype=float), np.ascontiguousarray(u_open, dtype=float),
            np.ascontiguousarray(population), np.ascontiguousarray(base_s), iterations, tolerance)
    threads = threads or ThreadQueue.none(classes)
    bound = (threads.station, np.ascontiguousarray(threads.per_thread, dtype=float),
             np.ascontiguousarray(threads.residual, dtype=float))
    if _compiled_pays():
        _mva(*arrays, v, service, *rest, *bound, queue, x, waiting, np.zeros((3, classes, k)),
             np.zeros((4, max(classes, k))), np.zeros(classes, np.int64), np.zeros((STACK, 3), np.int64), np.zeros(STACK))
    else:
        global _numpy_s
        started = time.perf_counter()
        _schweitzer_numpy(*arrays, v, service, *rest, *bound, queue, x, waiting)
        _numpy_s += time.perf_counter() - started
    utilisation = np.minimum(1.0, (x[:, None] * demand_s).sum(axis=0) / m + u_open)
    cycle = np.divide(population, x, out=np.full(classes, np.inf), where=x > 0)
    return NetworkSolution(throughput=x, cycle_s=cycle, utilisation=utilisation, waiting_s=waiting, queue=queue)


COMPILE_AFTER_NUMPY_S = 2.0
"""Seconds of NumPy solves a process spends before it compiles ``_mva``, when no compiled loop is
at hand (``_compiled_pays``): about what compiling it costs (2.2-2.3 s of a core, 2026-11-30, this
2-core machine), after which a solve takes 20-100 times less. Renting until the rent paid equals
the price, then buying, never costs more than twice the better choice made with hindsight,
whatever the number of solves to come (the ski-rental rule). A run's rebuild summary solves 8
networks (10 ms in NumPy) and never compiles it; ``nvsim validate``'s states, sweeps and plans do,
or load it from the cache."""

_numpy_s = 0.0
"""Seconds this process has spent in ``_schweitzer_numpy``."""
_at_hand = False
"""Whether ``_mva`` is compiled in this process or in the cache (once True, stays so)."""


def _compiled_pays() -> bool:
    """Whether a solve runs the compiled loop: it is compiled here or in the cache already (loading
    it takes milliseconds), or this process has spent ``COMPILE_AFTER_NUMPY_S`` in NumPy solves."""
    global _at_hand
    _at_hand = _at_hand or bool(_mva.signatures) or compiled_in_cache(_mva)
    return _at_hand or _numpy_s >= COMPILE_AFTER_NUMPY_S


def compile_network() -> None:
    """``_mva`` compiled (``python -m nvsim.warm``), by one solve of a one-station network through
    the compiled loop: its argument types are the same for every network (``solve_network`` makes
    each a contiguous float array)."""
    global _at_hand
    _at_hand = True  # as it is once compiled
    one = np.ones((1, 1))
    solve_network(one, np.ones(1), np.ones(1), np.ones(1), wait_scale=one, visits=one,
                  threads=ThreadQueue(0, np.ones(1), np.ones(1)))


def _schweitzer_numpy(demand_s, queue_part, stretch, scale, v, service, m, u_open, population, base_s, iterations,
                      tolerance, station, per_thread, residual, queue, x, waiting) -> None:
    """``_mva`` in NumPy (the loop it was compiled from): ``queue``, ``x`` and ``waiting`` end
    with the same bits. ``v`` and ``service`` of shape (0, 0): no visits."""
    classes = len(x)
    q, xs, w = queue, x, waiting
    for _ in range(iterations):
        total = q.sum(axis=0)
        # arrival theorem (Schweitzer): a customer sees the queue less its own share
        own = np.divide(q, population[:, None], out=np.zeros_like(q), where=population[:, None] > 0)
        if not v.size:
            w = queue_part * np.maximum(total[None, :] - own, 0.0) + stretch
        else:  # the work ahead: each class's queue in its own service time
            ahead = (q * service).sum(axis=0)[None, :] - own * service
            w = np.where(demand_s > 0, v * np.maximum(ahead, 0.0), 0.0) + stretch
        if station >= 0:
            w = w.copy()
            for c in range(classes):
                w[c, station] = _bound_wait_py(c, station, w, demand_s, scale, stretch, base_s, per_thread, residual)
        cycle = base_s + (w * scale).sum(axis=1)
        x_new = np.divide(population, cycle, out=np.zeros(classes), where=cycle > 0)
        x_new, w = _capacity_numpy(x_new, w, demand_s, m, u_open, population, cycle, scale)
        queue_new = x_new[:, None] * (queue_part + w - stretch)  # Little's law at each station
        if np.allclose(x_new, xs, rtol=tolerance, atol=0.0) and np.allclose(queue_new, q, rtol=1e-5, atol=1e-9):
            xs, q = x_new, queue_new
            break
        xs, q = x_new, 0.5 * (q + queue_new)
    queue[...], x[...], waiting[...] = q, xs, w


def _bound_wait_py(c, t, waiting, demand_s, scale, stretch, base_s, per_thread, residual) -> float:
    """Class ``c``'s waiting at the threads' station ``t``: ``thread_wait_s`` where it is bound to
    a thread (the rest of its cycle its unloaded time but its service there and its waits elsewhere,
    added in station order), else as found."""
    if per_thread[c] <= 0 or demand_s[c, t] <= 0:
        return waiting[c, t]
    rest = base_s[c] - demand_s[c, t]
    for j in range(demand_s.shape[1]):
        if j != t:
            rest += waiting[c, j] * scale[c, j]
    return thread_wait_s(demand_s[c, t], rest, per_thread[c], residual[c]) + stretch[c, t]


def _capacity_numpy(x, waiting, demand_s, m, u_open, population, cycle, scale):
    """``_at_capacity`` in NumPy: (throughputs, waiting) with no station beyond its capacity."""
    held_at = np.full(len(x), -1)
    for _ in range(len(m)):
        over = (x[:, None] * demand_s).sum(axis=0) / m / (1.0 - u_open)
        j = int(np.argmax(over))
        if over[j] <= 1.0:
            break
        visitors = demand_s[:, j] > 0
        x = np.where(visitors, x / over[j], x)
        held_at = np.where(visitors & (held_at < 0) & (scale[:, j] > 0), j, held_at)
    if (held_at < 0).all():
        return x, waiting
    missing = np.maximum(np.divide(population, x, out=np.zeros_like(x), where=x > 0) - cycle, 0.0)
    waiting = waiting.copy()
    for c in np.flatnonzero(held_at >= 0):
        waiting[c, held_at[c]] += missing[c] / scale[c, held_at[c]]
    return x, waiting


@njit(cache=True, _nrt=False, **INNER)
def _bound_wait_compiled(c, t, waiting, demand_s, scale, stretch, base_s, per_thread, residual) -> float:
    """``_bound_wait_py`` compiled (the same steps, so the same bits)."""
    if per_thread[c] <= 0 or demand_s[c, t] <= 0:
        return waiting[c, t]
    rest = base_s[c] - demand_s[c, t]
    for j in range(demand_s.shape[1]):
        if j != t:
            rest += waiting[c, j] * scale[c, j]
    return _thread_wait_compiled(demand_s[c, t], rest, per_thread[c], residual[c]) + stretch[c, t]


@njit(cache=True, _nrt=False)
def _mva(demand_s, queue_part, stretch, scale, v, service, m, u_open, population, base_s, iterations, tolerance,
         station, per_thread, residual, queue, x, waiting, work, rows, held_at, frames, lefts) -> None:
    """Schweitzer's iteration in place: ``queue``, ``x`` and ``waiting`` end as the NumPy loop left
    them; ``work`` (3 x classes x stations), ``rows`` (4 x max(classes, stations)) and ``held_at``
    (classes) are scratch."""
    own, queue_new, weighted = work[0], work[1], work[2]
    total, x_new, cycle = rows[0], rows[1], rows[2]
    classes, k = demand_s.shape
    for _ in range(iterations):
        _column_sums(queue, total)
        _waiting(queue, total, population, queue_part, stretch, demand_s, v, service, own, waiting, rows[3])
        if station >= 0:
            for c in range(classes):
                waiting[c, station] = _bound_wait_compiled(c, station, waiting, demand_s, scale, stretch, base_s,
                                                           per_thread, residual)
        for c in range(classes):
            for j in range(k):
                weighted[c, j] = waiting[c, j] * scale[c, j]
            cycle[c] = base_s[c] + _pairwise_sum(weighted[c], 0, k, frames, lefts)
            x_new[c] = population[c] / cycle[c] if cycle[c] > 0 else 0.0
        _at_capacity(x_new, waiting, demand_s, m, u_open, population, cycle, scale, rows[3], held_at)
        for c in range(classes):
            for j in range(k):
                queue_new[c, j] = x_new[c] * (queue_part[c, j] + waiting[c, j] - stretch[c, j])  # Little's law
        done = _all_close(x_new, x, 1, classes, tolerance, 0.0) and _all_close(queue_new, queue, classes, k, 1e-5, 1e-9)
        for c in range(classes):
            x[c] = x_new[c]
            for j in range(k):
                queue[c, j] = queue_new[c, j] if done else 0.5 * (queue[c, j] + queue_new[c, j])
        if done:
            break


@njit(cache=True, _nrt=False, **INNER)
def _column_sums(a, out) -> None:
    """``a.sum(axis=0)`` into ``out``: NumPy adds the rows in turn."""
    for j in range(a.shape[1]):
        out[j] = 0.0
    for c in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[c, j]


@njit(cache=True, _nrt=False, **INNER)
def _waiting(queue, total, population, queue_part, stretch, demand_s, v, service, own, waiting, ahead) -> None:
    """Each class's waiting at each station, by the arrival theorem (a customer sees the queue less
    its own share): in its own service time, or (``visits``) in the work queued ahead in each
    class's own service time (``ahead``: scratch, stations)."""
    classes, k = queue.shape
    for c in range(classes):
        for j in range(k):
            own[c, j] = queue[c, j] / population[c] if population[c] > 0 else 0.0
    if v.shape[0] == 0:
        for c in range(classes):
            for j in range(k):
                waiting[c, j] = queue_part[c, j] * _max0(total[j] - own[c, j]) + stretch[c, j]
        return
    _column_products(queue, service, ahead)
    for c in range(classes):
        for j in range(k):
            mine = v[c, j] * _max0(ahead[j] - own[c, j] * service[c, j]) if demand_s[c, j] > 0 else 0.0
            waiting[c, j] = mine + stretch[c, j]


@njit(cache=True, _nrt=False, **INNER)
def _column_products(a, b, out) -> None:
    """``(a * b).sum(axis=0)`` into ``out`` (rows in turn, as NumPy)."""
    for j in range(a.shape[1]):
        out[j] = 0.0
    for c in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[c, j] * b[c, j]


@njit(cache=True, _nrt=False)
def _at_capacity(x, waiting, demand_s, m, u_open, population, cycle, scale, over, held_at) -> None:
    """No station beyond the capacity the open work leaves it (the approximation can overshoot near
    saturation): the classes that visit the most overloaded station are scaled down together until
    its closed load is ``1 - U_open``, station after station; the cycle time a class loses that way
    is waiting at the station that held it, so Little's law holds over the cycle's parts (N = X x
    cycle) at every iterate. A class that does not visit a station is not held by it. ``over``
    (stations) and ``held_at`` (classes) are scratch."""
    classes, k = demand_s.shape
    held_at[:] = -1
    for _ in range(k):
        _column_loads(x, demand_s, over)
        for j in range(k):
            over[j] = over[j] / m[j] / (1.0 - u_open[j])
        j = _argmax(over, k)
        if over[j] <= 1.0:
            break
        for c in range(classes):
            if demand_s[c, j] > 0:
                x[c] = x[c] / over[j]
                if held_at[c] < 0 and scale[c, j] > 0:
                    held_at[c] = j
    for c in range(classes):
        if held_at[c] >= 0:
            h = held_at[c]
            missing = _max0((population[c] / x[c] if x[c] > 0 else 0.0) - cycle[c])
            waiting[c, h] += missing / scale[c, h]


@njit(cache=True, _nrt=False, **INNER)
def _column_loads(x, demand_s, out) -> None:
    """``(x[:, None] * demand_s).sum(axis=0)`` into ``out`` (rows in turn, as NumPy)."""
    for j in range(demand_s.shape[1]):
        out[j] = 0.0
    for c in range(demand_s.shape[0]):
        for j in range(demand_s.shape[1]):
            out[j] += x[c] * demand_s[c, j]


@njit(cache=True, _nrt=False, **INNER)
def _argmax(a, n) -> int:
    """``np.argmax(a[:n])``: the first largest, or the first NaN."""
    best = 0
    for i in range(n):
        if a[i] != a[i]:
            return i
        if a[i] > a[best]:
            best = i
    return best


@njit(cache=True, _nrt=False, **INNER)
def _max0(a: float) -> float:
    """``np.maximum(a, 0.0)``: NaN stays NaN."""
    return a if a >= 0.0 or a != a else 0.0


@njit(cache=True, _nrt=False, **INNER)
def _all_close(a, b, rows, cols, rtol, atol) -> bool:
    """``np.allclose(a, b, rtol, atol)`` over the first ``rows`` x ``cols`` (a 1-D ``a``: rows 1)."""
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    for i in range(rows * cols):
        x, y = flat_a[i], flat_b[i]
        close = abs(x - y) <= atol + rtol * abs(y) and abs(y) < np.inf
        if not (close or x == y):
            return False
    return True


@njit(cache=True, _nrt=False)
def _pairwise_sum(a, lo, n, frames, lefts) -> float:
    """NumPy's pairwise sum of ``a[lo:lo + n]`` (its ``sum`` along a contiguous axis): blocks of at
    most 128 (``_block_sum``) added up a binary tree that halves at multiples of 8, walked with
    ``frames`` (depth x 3: start, length, left half done) and ``lefts`` (depth) as its stack."""
    depth = 0
    frames[0, 0], frames[0, 1], frames[0, 2] = lo, n, 0
    while True:
        start, length = frames[depth, 0], frames[depth, 1]
        if length > 128:  # descend into the left half
            depth += 1
            frames[depth, 0], frames[depth, 1], frames[depth, 2] = start, _half(length), 0
            continue
        value = _block_sum(a, start, length)
        while True:  # hand the value up until a node still owes its right half
            depth -= 1
            if depth < 0:
                return value
            if frames[depth, 2] == 0:
                lefts[depth] = value
                frames[depth, 2] = 1
                half = _half(frames[depth, 1])
                frames[depth + 1, 0], frames[depth + 1, 1], frames[depth + 1, 2] = frames[depth, 0] + half, frames[depth, 1] - half, 0
                depth += 1
                break
            value = lefts[depth] + value


@njit(cache=True, _nrt=False, **INNER)
def _half(n) -> int:
    """Where NumPy's pairwise sum splits ``n`` values: half, down to a multiple of 8."""
    half = n // 2
    return half - half % 8


@njit(cache=True, _nrt=False, **INNER)
def _block_sum(a, lo, n) -> float:
    """NumPy's sum of at most 128 values: in turn below 8, else eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3], a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


__all__ = ["fork_join_wait_scale", "io_wait_scale", "Stations", "ThreadQueue", "thread_wait_s", "stations", "io_demands", "solve_network", "NetworkSolution"]
