"""Open-loop arrivals: fio's ``rate_process=poisson`` (and a trace replayed at its timestamps):
I/Os arrive at random at a mean rate, whatever the array is doing, so they queue more than fio's
evenly paced (linear) submissions, and latency rises with load towards the array's capacity.

The array is seen as a flow-equivalent server (Chandy, Herzog and Woo's decomposition): its
closed loops of n I/Os in flight (``nvsim.workload.compose.population_ladder``: 1..numjobs jobs at depth 1, then
numjobs jobs at depth 2..iodepth) complete X(n) I/Os per second; n between the simulated points
is interpolated, and beyond the job's numjobs x iodepth the extra I/Os wait for a slot at the full
loop's rate. Arrivals at rate lambda make the number in the system a birth-death chain, p(n)
proportional to prod_{k<=n} lambda / X(k); the mean latency is L / lambda (Little's law, L the
mean of n). The event mode's latency distribution is the loops' samples taken in proportion to
p(n) and scaled to that mean; the fluid mode reports the mean. At or above the full loop's rate
the queue does not settle: the job runs at the loop's rate and a note says so.

The decomposition is exact for product-form networks and an approximation for the array (its
drives and engine are not exponential servers); docs/fio.md shows the curve it draws.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..result import Result
from ..specs import WorkloadSpec
from .mix import latency_dict, mix_samples

LADDER_POINTS = 12
"""Closed loops of the ladder simulated to draw X(n): the first, the last and up to ten between,
spaced evenly in log population (the curve bends near the start)."""


def ladder_picks(length: int, points: int = LADDER_POINTS) -> list[int]:
    """Indices of ``length`` ladder rungs to simulate: evenly spaced in log(index + 1), ends included."""
    if length <= points:
        return list(range(length))
    spots = np.unique(np.round(np.geomspace(1, length, points)).astype(int) - 1)
    return sorted({0, length - 1, *spots.tolist()})


def occupancy(rates: np.ndarray, arrival_iops: float) -> np.ndarray:
    """p(0..N) and the tail beyond N of the birth-death chain with departure rate ``rates[n-1]`` at
    n in the system (n = 1..N; N + m: rates[-1]); returns (p over 0..N normalised with the tail,
    the tail's mass, its mean n)."""
    ratio = arrival_iops / rates
    log_q = np.concatenate(([0.0], np.cumsum(np.log(ratio))))
    log_q -= log_q.max()
    q = np.exp(log_q)
    r = ratio[-1]
    n_top = len(rates)
    tail = q[-1] * r / (1 - r)
    tail_n = q[-1] * (n_top * r / (1 - r) + r / (1 - r) ** 2)
    total = q.sum() + tail
    return np.append(q / total, [tail / total, tail_n / total])


def open_loop_result(workload: WorkloadSpec, arrival_iops: float, loops: list[tuple[int, Result]]) -> tuple[Result, float, bool]:
    """The array under Poisson arrivals at ``arrival_iops``: (a Result at that rate with the chain's
    latency, the mean I/Os in system, whether the rate is reached). ``loops``: (population, its
    closed loop's Result) for the simulated rungs, in growing population."""
    population = np.array([p for p, _ in loops], dtype=float)
    capacity = np.array([r.total_iops for _, r in loops])
    top = workload.numjobs * workload.iodepth
    rates = np.interp(np.arange(1, top + 1), population, capacity)
    if arrival_iops >= rates[-1] * 0.999:
        return loops[-1][1], float(top), False
    chain = occupancy(rates, arrival_iops)
    p, tail_n = chain[:-2], chain[-1]
    in_system = float(np.arange(len(p)) @ p + tail_n)
    latency_s = in_system / arrival_iops
    nearest = int(np.argmin(np.abs(population - max(1.0, in_system))))
    base = loops[nearest][1]
    if base.simulation is None:
        return base, in_system, True
    weights = np.zeros(len(loops))
    for n, share in enumerate(p[1:], start=1):  # an arrival finds n - 1 others: the loop of n answers it
        weights[int(np.argmin(np.abs(population - n)))] += share
    weights[-1] += chain[-2]
    samples = mix_samples([r.simulation for _, r in loops], weights)
    sim = base.simulation
    scaled = {}
    for ddir, values in samples.items():
        scaled[ddir] = values * (latency_s / float(np.mean(values))) if len(values) else values
    f_read = sim.read_iops / sim.total_iops if sim.total_iops else 0.0
    simulation = replace(sim, read_latency_us=latency_dict(scaled.get("read"), latency_s, f_read > 0),
                         write_latency_us=latency_dict(scaled.get("write"), latency_s, f_read < 1),
                         latency_samples_s=scaled, tail_ci95_us={})
    return replace(base, simulation=simulation), in_system, True


__all__ = ["LADDER_POINTS", "ladder_picks", "occupancy", "open_loop_result"]
