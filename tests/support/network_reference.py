"""Today's NumPy Schweitzer solver, kept as the oracle of the compiled one (nvsim.sim.network):
the compiled loop must give the same bits (tests/component/test_network_compiled.py)."""

from __future__ import annotations

import numpy as np

from nvsim.sim.network import NetworkSolution


def solve_network_reference(demand_s: np.ndarray, servers: np.ndarray, population: np.ndarray, base_s: np.ndarray,
                  open_utilisation: np.ndarray | None = None, iterations: int = 400, tolerance: float = 1e-7,
                  start: np.ndarray | None = None, wait_scale: np.ndarray | None = None,
                  visits: np.ndarray | None = None) -> NetworkSolution:
    """nvsim.sim.network.solve_network as it was in NumPy (its docstring says what each argument is)."""
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
        if np.allclose(x_new, x, rtol=tolerance, atol=0.0) and np.allclose(queue_new, queue, rtol=1e-5, atol=1e-9):
            x, queue = x_new, queue_new
            break
        x, queue = x_new, 0.5 * (queue + queue_new)
    utilisation = np.minimum(1.0, (x[:, None] * demand_s).sum(axis=0) / m + u_open)
    cycle = np.divide(population, x, out=np.full(classes, np.inf), where=x > 0)
    return NetworkSolution(throughput=x, cycle_s=cycle, utilisation=utilisation, waiting_s=waiting, queue=queue)


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
