"""Jobs with different workloads that fio runs at the same time (no stonewall between them), on one
simulated array.

Each job j is first simulated alone: its closed loop of N_j = numjobs x iodepth I/Os gives its
rate X_j and each resource's utilisation u_r,j, so the job costs ``d_r,j = u_r,j / X_j`` of
resource r's servers per I/O (as ``nvsim.workload.mix`` reads them); its depth-1 run gives its unloaded
latency R0_j (``1 / X_1``, Little's law). Together, the jobs wait in the same queue at a saturated
resource r: every I/O that passes through r waits the same W_r there (first come, first served,
the work ahead of it), and an I/O that never passes through r (``d_r,j`` = 0: md's chunk-aligned
reads, which bypass raid5d, beside writes that saturate it) does not wait there. So job j runs at
``X_j(W) = N_j / (R0_j + sum_r [d_r,j > 0] W_r)`` (a rate cap: at most its cap; think time Z:
``N_j / (R0_j + W_j + Z)``), and each W_r is the least wait at which r is loaded to at most its
servers, ``sum_j X_j(W) d_r,j <= 1``, found by bisection resource by resource, busiest first, until
no wait moves (a resource that is not saturated keeps W_r = 0). With one job, or jobs that all pass
through the one saturated resource, this is one common wait; with one job it is the fluid mode's
answer; with no saturated resource every W_r = 0 and each job runs as it would alone. An I/O that
passes through r on only some of its I/Os (a degraded read that needs raid5d) is charged the whole
W_r: the record gives each job's demand on r, not how many of its I/Os visit it. fio's ``flow``
(jobs of one ``flow_id`` kept at I/O counts in the ratio of their weights) slows the jobs ahead of
their share.

Each job's own CPUs (fabric's ``cores``) are not shared: they cap only their job. Each job's
latency is then R0_j + W_j (its own run's when its CPUs hold it back), its own run's latency
distribution (event mode) scaled to that mean; its CPU share and utilisation follow its rate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..result import Result
from .mix import latency_dict

WAIT_BISECTIONS = 80
"""Bisection steps for the common wait W (its bracket shrinks 2^80-fold)."""
JOB_CPUS_LABEL = "host cores ("
"""The start of the label of ``nvsim.fabric``'s ``cores`` kind ("host cores (N job CPUs)"): each
job's own CPUs, which the jobs running together do not share; they cap only their own job."""


@dataclass(frozen=True)
class Member:
    """One job of a phase as the shared solve sees it: its own closed loop's run, its unloaded
    latency, population, and pacing (rate cap in IOPS, think time in seconds, flow weight and id)."""

    alone: Result
    unloaded_s: float
    population: int
    cap_iops: float | None = None
    think_s: float = 0.0
    flow_weight: float | None = None
    flow_id: int = 0


def demands(members: list[Member]) -> dict[str, np.ndarray]:
    """Each shared resource's share of its servers one I/O of each job takes (``u_r,j / X_j``);
    the jobs' own CPUs are not shared (``own_cpu_cap``)."""
    out: dict[str, np.ndarray] = {}
    for j, m in enumerate(members):
        for u in m.alone.simulation.utilisation:
            if not u.resource.startswith(JOB_CPUS_LABEL):
                out.setdefault(u.resource, np.zeros(len(members)))[j] = u.utilisation / m.alone.total_iops
    return out


def own_cpu_cap(member: Member) -> float:
    """The I/Os per second the job's own CPUs allow it (inf: they never saturate)."""
    shares = [u.utilisation / member.alone.total_iops for u in member.alone.simulation.utilisation
              if u.resource.startswith(JOB_CPUS_LABEL) and u.utilisation > 0]
    return 1.0 / max(shares) if shares else float("inf")


def rates_at(members: list[Member], waits_s) -> np.ndarray:
    """Each job's rate when its I/Os wait ``waits_s`` (one per job, or one for all) at the shared
    queues (at most its own CPUs' and its rate cap's), flow ratios applied."""
    waits = np.broadcast_to(np.asarray(waits_s, dtype=float), (len(members),))
    x = np.array([min(m.population / (m.unloaded_s + w + m.think_s), own_cpu_cap(m)) for m, w in zip(members, waits)])
    x = np.array([min(v, m.cap_iops) if m.cap_iops is not None else v for v, m in zip(x, members)])
    for flow_id in {m.flow_id for m in members if m.flow_weight}:
        group = [j for j, m in enumerate(members) if m.flow_weight and m.flow_id == flow_id]
        pace = min(x[j] / members[j].flow_weight for j in group)
        for j in group:
            x[j] = pace * members[j].flow_weight
    return x


SWEEPS = 24
"""Rounds of the resource-by-resource bisections (busiest first) at most: one round settles a single
saturated resource, or several whose users are not the same jobs; resources saturated together by
jobs they share converge slowly this way, and are then solved jointly (``_joint_waits``)."""
NEWTON_STEPS = 60
"""Newton steps at most on the saturated resources' loads (each step halved until it helps)."""
LOAD_TOLERANCE = 1e-12
"""How far a saturated resource's load may stay from its servers' time once solved."""


@dataclass(frozen=True)
class SharedWaits:
    """The jobs' solve together: each saturated resource's wait (0 where it is not saturated), each
    job's total wait and rate, and per job the resource it waits longest at (None: none)."""

    resource_waits_s: dict[str, float]
    job_waits_s: np.ndarray
    rates: np.ndarray
    job_resources: tuple[str | None, ...]
    busiest: str


def shared_waits(members: list[Member]) -> SharedWaits:
    """The least waits at which every resource carries at most its servers' time. Resources that the
    same jobs pass through share one wait (only its busiest can bind it); each group's is found by
    bisection with the others' held, busiest first, round after round until none moves, and jointly
    where groups saturated together share jobs (``_joint_waits``)."""
    table = demands(members)
    none = np.zeros(len(members))
    if not table:
        return SharedWaits({}, none, rates_at(members, none), (None,) * len(members), "each job's own CPUs")
    groups = _user_groups(table)
    at_zero = [float(np.max(g.demand @ rates_at(members, none))) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: (-at_zero[i], groups[i].names))
    groups = [groups[i] for i in order]
    waits = np.zeros(len(groups))
    moved = at_zero[order[0]] > 1.0 + 1e-9
    for _ in range(SWEEPS if moved else 0):
        moved = False
        for i, group in enumerate(groups):
            others = sum((w * g.uses for k, (g, w) in enumerate(zip(groups, waits)) if k != i), none)
            wait = _tight_wait(members, group.demand, group.uses, others)
            moved = moved or wait != waits[i]
            waits[i] = wait
        if not moved:
            break
    if moved:  # groups saturated together by jobs they share: their waits move each other
        waits = _joint_waits(members, groups, waits)
    job_waits = sum((w * g.uses for g, w in zip(groups, waits)), none)
    rates = rates_at(members, job_waits)
    resource_waits = dict.fromkeys(table, 0.0)
    for group, wait in zip(groups, waits):
        if wait > 0:  # the group's wait is its busiest resource's
            resource_waits[group.names[int(np.argmax(group.demand @ rates))]] = float(wait)
    longest = tuple(max((r for r in table if table[r][j] > 0 and resource_waits[r] > 0), key=lambda r: resource_waits[r],
                        default=None) for j in range(len(members)))
    busiest = max(table, key=lambda name: (resource_waits[name], float(table[name] @ rates)))
    return SharedWaits(resource_waits, job_waits, rates, longest, busiest)


@dataclass(frozen=True)
class _Group:
    """Resources the same jobs pass through: their names, demands (one row each) and the jobs' use."""

    names: tuple[str, ...]
    demand: np.ndarray
    uses: np.ndarray


def _user_groups(table: dict[str, np.ndarray]) -> list[_Group]:
    """The resources grouped by the jobs that pass through them (a wait at any of them is a wait of
    the same jobs: the one wait of the group is bound by its busiest)."""
    by_users: dict[tuple[bool, ...], list[str]] = {}
    for name, demand in table.items():
        by_users.setdefault(tuple(bool(v) for v in demand > 0), []).append(name)
    return [_Group(tuple(names), np.array([table[n] for n in names]), np.array(key, dtype=float))
            for key, names in by_users.items()]


def shared_wait(members: list[Member]) -> tuple[np.ndarray, np.ndarray, str]:
    """(each job's wait, the jobs' rates, the resource waited at longest, else the busiest)."""
    solved = shared_waits(members)
    return solved.job_waits_s, solved.rates, solved.busiest


def _tight_wait(members: list[Member], demand: np.ndarray, uses: np.ndarray, others: np.ndarray) -> float:
    """The least wait at a group of resources (rows of ``demand``; its users' I/Os wait it on top of
    ``others``) at which each carries at most its servers' time: 0 when they do without one, else
    bisection."""
    def load(wait_s: float) -> float:
        return float(np.max(demand @ rates_at(members, others + wait_s * uses)))

    if load(0.0) <= 1.0 + 1e-9:
        return 0.0
    high = max(m.unloaded_s for m in members)
    while load(high) > 1.0:
        high *= 2.0
    low = 0.0
    for _ in range(WAIT_BISECTIONS):
        middle = (low + high) / 2
        low, high = (middle, high) if load(middle) > 1.0 else (low, middle)
    return high


def _joint_waits(members: list[Member], groups: list[_Group], waits: np.ndarray) -> np.ndarray:
    """The waits of groups saturated together, from the bisections' ``waits``: the complementarity
    of each group's wait and its spare capacity (a wait only where its busiest resource's load is
    its servers' time), solved as one system by Newton's method on the Fischer-Burmeister function
    ``phi(a, b) = a + b - sqrt(a^2 + b^2)`` (zero exactly when a >= 0, b >= 0 and a b = 0; Fischer,
    Optimization 24, 1992), a = the wait over the longest unloaded latency, b = 1 - the load; the
    Jacobian by finite differences, each step halved until the residual falls. The better of the
    two answers is kept; then any group still loaded past its servers has its wait raised until it
    is not (a raised wait lowers every load, so that pass leaves none past its servers)."""
    use = np.array([g.uses for g in groups])
    scale = max(m.unloaded_s for m in members)

    def loads(values: np.ndarray) -> np.ndarray:
        x = rates_at(members, use.T @ values)
        return np.array([float(np.max(g.demand @ x)) for g in groups])

    def residual(values: np.ndarray) -> np.ndarray:
        a, b = values / scale, 1.0 - loads(values)
        return a + b - np.sqrt(a * a + b * b)

    start = waits.copy()
    w = start.copy()
    for _ in range(NEWTON_STEPS):
        now = residual(w)
        if np.max(np.abs(now)) <= LOAD_TOLERANCE:
            break
        jacobian = np.empty((len(groups), len(groups)))
        for col in range(len(groups)):
            step = max(1e-9 * scale, 1e-7 * w[col])
            shifted = w.copy()
            shifted[col] += step
            jacobian[:, col] = (residual(shifted) - now) / step
        move = np.linalg.lstsq(jacobian, -now, rcond=None)[0]
        for _halving in range(40):
            trial = np.maximum(w + move, 0.0)
            if np.linalg.norm(residual(trial)) < np.linalg.norm(now):
                w = trial
                break
            move = move / 2.0
        else:
            break
    w = np.where(w > 1e-9 * scale, w, 0.0)  # a slack group's wait as Newton leaves it, a hair above 0
    if np.linalg.norm(residual(w)) > np.linalg.norm(residual(start)):
        w = start
    for i in np.flatnonzero(loads(w) > 1.0 + 1e-9):
        w[i] = _tight_wait(members, groups[i].demand, groups[i].uses, use.T @ w - w[i] * groups[i].uses)
    return w


def shared_results(members: list[Member]) -> tuple[list[tuple[Result, float]], SharedWaits]:
    """Each job's (Result with its shared latency, rate scale over its own run), and the solve."""
    solved = shared_waits(members)
    out = []
    for m, x, wait_s, where in zip(members, solved.rates, solved.job_waits_s, solved.job_resources):
        sim = m.alone.simulation
        mean_s = m.unloaded_s + wait_s
        if x >= own_cpu_cap(m) * (1 - 1e-9):  # held back by its own CPUs: its I/Os wait there (Little's law)
            mean_s = max(mean_s, m.population / x - m.think_s)
        samples = {}
        for ddir, values in sim.latency_samples_s.items():
            if values is not None and len(values):
                samples[ddir] = np.asarray(values) * (mean_s / float(np.mean(values)))
        f_read = sim.read_iops / sim.total_iops if sim.total_iops else 0.0
        together = replace(sim, read_latency_us=latency_dict(samples.get("read"), mean_s, f_read > 0),
                           write_latency_us=latency_dict(samples.get("write"), mean_s, f_read < 1),
                           latency_samples_s=samples, tail_ci95_us={},
                           limited_by=f"{where}, shared with the jobs running at the same time" if wait_s > 0 else sim.limited_by)
        out.append((replace(m.alone, simulation=together), float(x) / m.alone.total_iops))
    return out, solved


__all__ = ["Member", "SharedWaits", "demands", "own_cpu_cap", "rates_at", "shared_wait", "shared_waits", "shared_results", "WAIT_BISECTIONS", "SWEEPS", "NEWTON_STEPS", "LOAD_TOLERANCE",
           "JOB_CPUS_LABEL"]
