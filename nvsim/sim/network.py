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
The waiting time of each station adds to a class's *unloaded* latency, which keeps the member I/Os
of one host I/O in parallel (the sum of demands would serialise them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import fabric
from .system import ArraySystem, HostIoBatch


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


@dataclass
class NetworkSolution:
    throughput: np.ndarray  # per closed class, cycles per second
    cycle_s: np.ndarray  # per closed class, mean time of one cycle
    utilisation: np.ndarray  # per station (closed + open classes), busy share of its servers
    waiting_s: np.ndarray  # (classes, stations) queueing delay per cycle
    queue: np.ndarray  # (classes, stations) mean queue lengths (a warm start for a nearby solve)


def solve_network(demand_s: np.ndarray, servers: np.ndarray, population: np.ndarray, base_s: np.ndarray,
                  open_utilisation: np.ndarray | None = None, iterations: int = 400, tolerance: float = 1e-7,
                  start: np.ndarray | None = None, wait_scale: np.ndarray | None = None,
                  visits: np.ndarray | None = None) -> NetworkSolution:
    """Schweitzer's approximate MVA for closed classes (``demand_s``: classes x stations).

    ``population``: customers of each closed class (real numbers allowed); ``base_s``: each class's
    cycle time with no queueing (unloaded latency plus any pure delay); ``open_utilisation``: the
    busy share of each station taken by open classes. Returns throughputs, cycle times and
    utilisations. ``wait_scale`` (classes x stations) weighs each station's waiting in a class's
    cycle: 1/k where a cycle waits at k such stations at once (a rebuild request reads every
    survivor in parallel, so it waits for the slowest, not the sum). ``visits`` (classes x
    stations): with them a FCFS station's waiting is the work queued ahead in the other classes'
    own service times per visit (Bard's multi-class FCFS rule), not the arriving class's.
    """
    demand_s = np.atleast_2d(np.asarray(demand_s, dtype=float))
    classes, k = demand_s.shape
    population = np.asarray(population, dtype=float)
    base_s = np.asarray(base_s, dtype=float)
    u_open = np.zeros(k) if open_utilisation is None else np.minimum(np.asarray(open_utilisation, float), 0.999)
    m = np.maximum(servers, 1.0)
    queue_part = demand_s / m / (1.0 - u_open)  # Seidmann: a single queue of D/m, slowed by open work
    scale = np.ones_like(demand_s) if wait_scale is None else np.atleast_2d(wait_scale)
    if visits is not None:
        v = np.maximum(np.atleast_2d(visits), 1e-12)
        service = np.where(demand_s > 0, demand_s / v, 0.0) / m / (1.0 - u_open)  # per visit, per server
    # open work slows a closed customer's own service too (R = D (1 + Q) / (1 - U_open)): the
    # stretch of the queue part of its demand, beside its waiting
    stretch = queue_part - demand_s / m
    queue = np.zeros((classes, k)) if start is None or start.shape != (classes, k) else start.copy()
    x = np.zeros(classes)
    for _ in range(iterations):
        total = queue.sum(axis=0)
        # arrival theorem (Schweitzer): a customer sees the queue less its own share
        own = np.divide(queue, population[:, None], out=np.zeros_like(queue), where=population[:, None] > 0)
        seen = np.maximum(total[None, :] - own, 0.0)
        if visits is None:
            waiting = queue_part * seen + stretch
        else:  # the work ahead: each class's queue in its own service time
            ahead = (queue * service).sum(axis=0)[None, :] - own * service
            waiting = np.where(demand_s > 0, v * np.maximum(ahead, 0.0), 0.0) + stretch
        cycle = base_s + (waiting * scale).sum(axis=1)
        x_new = np.divide(population, cycle, out=np.zeros(classes), where=cycle > 0)
        x_new, waiting = _at_capacity(x_new, waiting, demand_s, m, u_open, population, cycle, scale)
        queue_new = x_new[:, None] * (queue_part + waiting - stretch)  # Little's law at each station
        if _all_close(x_new, x, tolerance, 0.0) and _all_close(queue_new, queue, 1e-5, 1e-9):
            x, queue = x_new, queue_new
            break
        x, queue = x_new, 0.5 * (queue + queue_new)
    utilisation = np.minimum(1.0, (x[:, None] * demand_s).sum(axis=0) / m + u_open)
    cycle = np.divide(population, x, out=np.full(classes, np.inf), where=x > 0)
    return NetworkSolution(throughput=x, cycle_s=cycle, utilisation=utilisation, waiting_s=waiting, queue=queue)


def _all_close(x: np.ndarray, y: np.ndarray, rtol: float, atol: float) -> bool:
    """``np.allclose(x, y, rtol=rtol, atol=atol)``: for finite arrays its test itself,
    ``|x - y| <= atol + rtol |y|`` (the solve's convergence check, up to 400 times a solve, spent
    most of its time in ``np.isclose``'s argument handling); else NumPy's."""
    if np.isfinite(x).all() and np.isfinite(y).all():
        return bool((np.abs(x - y) <= atol + rtol * np.abs(y)).all())
    return bool(np.allclose(x, y, rtol=rtol, atol=atol))


def _at_capacity(x: np.ndarray, waiting: np.ndarray, demand_s: np.ndarray, m: np.ndarray, u_open: np.ndarray,
                 population: np.ndarray, cycle: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """No station beyond the capacity the open work leaves it (the approximation can overshoot near
    saturation): the classes that visit the most overloaded station are scaled down together until
    its closed load is ``1 - U_open``, station after station; the cycle time a class loses that way
    is waiting at the station that held it, so Little's law holds over the cycle's parts (N = X x
    cycle) at every iterate. A class that does not visit a station is not held by it."""
    if not len(m):
        return x, waiting
    held_at = np.full(len(x), -1)
    for _ in range(len(m)):
        over_k = (x[:, None] * demand_s).sum(axis=0) / m / (1.0 - u_open)
        j = int(np.argmax(over_k))
        if over_k[j] <= 1.0:
            break
        visitors = demand_s[:, j] > 0
        x = np.where(visitors, x / over_k[j], x)
        held_at = np.where(visitors & (held_at < 0) & (scale[:, j] > 0), j, held_at)
    if (held_at < 0).all():
        return x, waiting
    missing = np.maximum(np.divide(population, x, out=np.zeros_like(x), where=x > 0) - cycle, 0.0)
    waiting = waiting.copy()
    for c in np.flatnonzero(held_at >= 0):
        waiting[c, held_at[c]] += missing[c] / scale[c, held_at[c]]
    return x, waiting


__all__ = ["Stations", "stations", "io_demands", "solve_network", "NetworkSolution"]
