"""Jobs with different workloads that fio runs at the same time (no stonewall between them), on one
simulated array.

Each job j is first simulated alone: its closed loop of N_j = numjobs x iodepth I/Os gives its
rate X_j and each resource's utilisation u_r,j, so the job costs ``d_r,j = u_r,j / X_j`` of
resource r's servers per I/O (as ``nvsim.workload.mix`` reads them); its depth-1 run gives its unloaded
latency R0_j (``1 / X_1``, Little's law). Together, the jobs wait in the same queue at a saturated
resource: every job's I/Os wait the same W there (first come, first served), so a job runs at
``X_j(W) = N_j / (R0_j + W)`` (a rate cap: at most its cap; think time Z: ``N_j / (R0_j + W + Z)``),
and W is the least wait at which no resource is loaded past its servers,
``sum_j X_j(W) d_r,j <= 1`` (bisection). With one job this is the fluid mode's answer; with no
saturated resource W = 0 and each job runs as it would alone. fio's ``flow`` (jobs of one
``flow_id`` kept at I/O counts in the ratio of their weights) slows the jobs ahead of their share.

Each job's own CPUs (fabric's ``cores``) are not shared: they cap only their job. Each job's
latency is then R0_j + W (its own run's when its CPUs hold it back), its own run's latency
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


def rates_at(members: list[Member], wait_s: float) -> np.ndarray:
    """Each job's rate when its I/Os wait ``wait_s`` at the shared queue (at most its own CPUs'
    and its rate cap's), flow ratios applied."""
    x = np.array([min(m.population / (m.unloaded_s + wait_s + m.think_s), own_cpu_cap(m)) for m in members])
    x = np.array([min(v, m.cap_iops) if m.cap_iops is not None else v for v, m in zip(x, members)])
    for flow_id in {m.flow_id for m in members if m.flow_weight}:
        group = [j for j, m in enumerate(members) if m.flow_weight and m.flow_id == flow_id]
        pace = min(x[j] / members[j].flow_weight for j in group)
        for j in group:
            x[j] = pace * members[j].flow_weight
    return x


def shared_wait(members: list[Member]) -> tuple[float, np.ndarray, str]:
    """(W, the jobs' rates, the busiest resource): the least wait at which every resource carries
    at most its servers' time."""
    table = demands(members)

    def load(wait_s: float) -> tuple[float, str]:
        x = rates_at(members, wait_s)
        label, value = max(((k, float(d @ x)) for k, d in table.items()), key=lambda item: item[1])
        return value, label

    if not table:
        return 0.0, rates_at(members, 0.0), "each job's own CPUs"
    busiest, label = load(0.0)
    if busiest <= 1.0 + 1e-9:
        return 0.0, rates_at(members, 0.0), label
    high = max(m.unloaded_s for m in members)
    while load(high)[0] > 1.0:
        high *= 2.0
    low = 0.0
    for _ in range(WAIT_BISECTIONS):
        middle = (low + high) / 2
        low, high = (middle, high) if load(middle)[0] > 1.0 else (low, middle)
    return high, rates_at(members, high), label


def shared_results(members: list[Member]) -> tuple[list[tuple[Result, float]], float, str]:
    """Each job's (Result with its shared latency, rate scale over its own run), the wait and the
    busiest resource."""
    wait_s, rates, label = shared_wait(members)
    out = []
    for m, x in zip(members, rates):
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
                           limited_by=f"{label}, shared with the jobs running at the same time" if wait_s > 0 else sim.limited_by)
        out.append((replace(m.alone, simulation=together), float(x) / m.alone.total_iops))
    return out, wait_s, label


__all__ = ["Member", "demands", "own_cpu_cap", "rates_at", "shared_wait", "shared_results", "WAIT_BISECTIONS", "JOB_CPUS_LABEL"]
