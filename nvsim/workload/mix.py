"""A job whose I/Os are a mix (fio's ``bssplit``, ``bsrange``, a replayed trace): one closed loop
whose host I/Os are drawn from parts, each a workload of one block size and direction with its
share of the I/Os.

The solvers carry one block size per workload, so each part is simulated as the job's closed loop
of that size (the closed-loop runner the caller hands in, ``loop``), and the mix is put together from what each part costs per I/O:

* **fluid mode** (exact for the fluid model, whose demands are means over the sampled I/Os and so
  linear in the mix): each resource's demand per I/O is the parts' demands weighted by their
  shares, read from each part's run as utilisation over throughput (``u_r / X``: seconds of the
  resource's servers per I/O); the unloaded latency is the weighted mean of the parts' (each
  part's depth-1 run, ``1 / X_1``). The mix runs at the lower of the busiest resource's cap
  ``1 / max_r sum_i p_i u_r,i / X_i`` and the loop's ``N / sum_i p_i R0_i``; latency ``N / X``.
* **event mode**: each part's I/Os take, in the mix, the time they take in the part's own loop:
  ``X = 1 / sum_i p_i / X_i`` (the time-share mixture), and the latency samples are the parts'
  samples taken in proportion to their shares (their mean is then ``N / X``, Little's law). Where
  the parts are limited by different resources the mix can overlap them and go faster: this rate
  is then a lower bound (the fluid mode's is not).

CPU, utilisation and write amplification are the parts' per-I/O values weighted the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..result import ClosedLoop, Result
from ..sim.result import Utilisation
from ..specs import ScenarioSpec, WorkloadSpec
from ..specs.mix import MAX_MIX_PARTS, MixPart

def binned(parts: list[MixPart], most: int = MAX_MIX_PARTS) -> list[MixPart]:
    """``parts`` with the shares summed per (size, direction) and normalised, binned into at most
    ``most`` parts per direction (equal shares of I/Os, each its I/O-weighted mean size)."""
    out: list[MixPart] = []
    total = sum(p.share for p in parts)
    for rw in dict.fromkeys(p.rw for p in parts):
        sizes: dict[int, float] = {}
        for p in parts:
            if p.rw == rw:
                sizes[p.bs] = sizes.get(p.bs, 0.0) + p.share / total
        items = sorted(sizes.items())
        if len(items) <= most:
            out += [MixPart(bs, share, rw) for bs, share in items]
            continue
        weight = sum(s for _, s in items)
        edges = np.cumsum([s for _, s in items]) / weight
        bins = np.minimum((edges * most - 1e-9).astype(int), most - 1)
        for b in range(most):
            members = [(bs, s) for (bs, s), k in zip(items, bins) if k == b]
            share = sum(s for _, s in members)
            if share > 0:
                mean = sum(bs * s for bs, s in members) / share
                out.append(MixPart(max(512, int(round(mean / 512)) * 512), share, rw))
    return out


def part_workload(workload: WorkloadSpec, part: MixPart) -> WorkloadSpec:
    """The job's closed loop issuing only ``part``'s I/Os (one size: no mix)."""
    update: dict[str, Any] = {"bs": part.bs, "bs_mix": None}
    if part.rw is not None:
        update["rw"] = ("rand" if workload.is_random else "") + part.rw
    return workload.model_copy(update=update)


def mixed_result(workload: WorkloadSpec, parts: list[MixPart], spec: ScenarioSpec, fidelity: str, loop: ClosedLoop) -> Result:
    """The job's closed loop with its I/Os drawn from ``parts`` (see the module's text); each part's
    closed loop is run through ``loop``."""
    parts = binned(parts)
    shares = np.array([p.share for p in parts])
    shares = shares / shares.sum()
    loads = [part_workload(workload, p) for p in parts]
    results = [loop(spec, w, fidelity) for w in loads]
    if len(results) == 1:
        return results[0]
    rates = np.array([r.total_iops for r in results])
    if fidelity == "fluid" and all(r.simulation is not None for r in results):
        unloaded = [loop(spec, w.model_copy(update={"numjobs": 1, "iodepth": 1}), "fluid") for w in loads]
        r0 = np.array([1.0 / r.total_iops for r in unloaded])
        x, limited = _fluid_rate(results, shares, rates, r0, workload.numjobs * workload.iodepth)
    else:
        x = 1.0 / float(np.sum(shares / rates))
        slowest = int(np.argmax(shares / rates))
        limited = f"a mix of {len(parts)} block sizes (most of its time: {parts[slowest].bs} B, {results[slowest].simulation.limited_by if results[slowest].simulation else 'drive'})"
    return _combined(results, shares, rates, x, limited, workload)


def _fluid_rate(results: list[Result], shares: np.ndarray, rates: np.ndarray, r0: np.ndarray, population: int) -> tuple[float, str]:
    """The fluid mode's rate of the mix: the busiest resource's cap of the weighted demands, or the loop's."""
    demand: dict[str, float] = {}
    for share, rate, result in zip(shares, rates, results):
        for u in result.simulation.utilisation:
            demand[u.resource] = demand.get(u.resource, 0.0) + share * u.utilisation / rate
    label, busiest = max(demand.items(), key=lambda item: item[1])
    x_cap = 1.0 / busiest if busiest > 0 else float("inf")
    x_loop = population / float(np.sum(shares * r0))
    if x_cap <= x_loop:
        return x_cap, label
    return x_loop, f"I/Os in flight ({population}) with a mix of block sizes"


def _combined(results: list[Result], shares: np.ndarray, rates: np.ndarray, x: float, limited: str,
              workload: WorkloadSpec) -> Result:
    """One Result of the parts' per-I/O values weighted by their shares, at rate ``x``."""
    per_io = shares / rates  # each part's seconds of the loop per I/O of the mix
    read = np.array([r.read_iops / r.total_iops for r in results])
    read_bytes = np.array([r.read_bytes_per_s / r.total_iops for r in results])
    write_bytes = np.array([r.write_bytes_per_s / r.total_iops for r in results])
    first = results[0]
    if first.simulation is None:
        return replace(first, drive=replace(first.drive, read_iops=x * float(shares @ read), write_iops=x * float(shares @ (1 - read)),
                                            read_bytes_per_s=x * float(shares @ read_bytes),
                                            write_bytes_per_s=x * float(shares @ write_bytes)))
    sims = [r.simulation for r in results]
    util: dict[str, float] = {}
    for share_time, sim in zip(per_io, sims):
        for u in sim.utilisation:
            util[u.resource] = util.get(u.resource, 0.0) + x * share_time * u.utilisation
    samples = mix_samples(sims, shares)
    population = workload.numjobs * workload.iodepth
    means_s = direction_means_s(sims, shares, read, population / x)
    simulation = replace(
        first.simulation, workload=workload.name, read_iops=x * float(shares @ read), write_iops=x * float(shares @ (1 - read)),
        read_bytes_per_s=x * float(shares @ read_bytes), write_bytes_per_s=x * float(shares @ write_bytes),
        cpu_percent=x * float(sum(t * (s.cpu_percent or 0.0) for t, s in zip(per_io, sims))),
        read_latency_us=latency_dict(samples.get("read"), means_s["read"], float(shares @ read) > 0),
        write_latency_us=latency_dict(samples.get("write"), means_s["write"], float(shares @ (1 - read)) > 0),
        raid_waf=_weighted_waf([s.raid_waf for s in sims], shares * write_bytes),
        waf_nand=_weighted_waf([s.waf_nand for s in sims], shares * write_bytes),
        utilisation=tuple(Utilisation(k, min(1.0, v)) for k, v in util.items()), limited_by=limited,
        simulated_host_ios=sum(s.simulated_host_ios for s in sims), completed_host_ios=sum(s.completed_host_ios for s in sims),
        simulated_s=max(s.simulated_s for s in sims), wall_s=sum(s.wall_s for s in sims), latency_samples_s=samples,
        # the runs' own intervals are not combined here: unknown in the event mode (null in JSON), not a
        # zero-width one; the fluid mode's rates are exact
        iops_ci95=math.nan if first.simulation.fidelity == "event" else 0.0, tail_ci95_us={})
    return replace(first, workload=workload.name, simulation=simulation)


def mix_samples(sims: list, shares: np.ndarray) -> dict:
    """Each direction's latency samples drawn from the runs ``sims`` in proportion to their
    ``shares`` of that direction's I/Os, interleaved evenly (no random draw: same inputs, same samples)."""
    out = {}
    for ddir in ("read", "write"):
        pieces = [(share * (s.read_iops if ddir == "read" else s.write_iops) / s.total_iops, np.asarray(s.latency_samples_s[ddir]))
                  for share, s in zip(shares, sims) if s.latency_samples_s.get(ddir) is not None and len(s.latency_samples_s[ddir])]
        pieces = [(w, a) for w, a in pieces if w > 0]
        if not pieces:
            continue
        total = sum(w for w, _ in pieces)
        count = min(len(a) / (w / total) for w, a in pieces)
        taken = [(a[: max(1, int(count * w / total))]) for w, a in pieces]
        position = np.concatenate([(np.arange(len(a)) + 0.5) / len(a) for a in taken])
        out[ddir] = np.concatenate(taken)[np.argsort(position, kind="stable")]
    return out


def direction_means_s(sims: list, shares: np.ndarray, read: np.ndarray, cycle_s: float) -> dict[str, float]:
    """Each direction's mean latency of the mix where no samples give it (the fluid mode): the
    parts' own means of that direction weighted by its I/Os in each part, scaled together so that
    their mean over the mix's directions is the mix's cycle (Little's law: population over rate).
    Where a part's direction has no mean, or no direction has one, both are the cycle (a 70/30 mix
    of 4 KiB and 128 KiB gave reads and writes one mean, 215 us, where the event mode's are 207 and
    364 us)."""
    weights = {"read": shares * read, "write": shares * (1.0 - read)}
    raw: dict[str, float] = {}
    for ddir, w in weights.items():
        means = [(s.read_latency_us if ddir == "read" else s.write_latency_us).get("mean") for s in sims]
        if w.sum() <= 0 or any(m is None for m, wi in zip(means, w) if wi > 0):
            continue
        raw[ddir] = float(sum(wi * m for wi, m in zip(w, means) if wi > 0) / w.sum()) * 1e-6
    f_read = float(weights["read"].sum() / shares.sum())
    overall = f_read * raw.get("read", 0.0) + (1.0 - f_read) * raw.get("write", 0.0)
    if len(raw) < sum(1 for w in weights.values() if w.sum() > 0) or not overall > 0:
        return {"read": cycle_s, "write": cycle_s}
    return {ddir: cycle_s * raw.get(ddir, overall) / overall for ddir in ("read", "write")}


def latency_dict(samples: np.ndarray | None, mean_s: float, present: bool) -> dict[str, float]:
    """mean and percentiles in microseconds: of the samples (event mode), else the loop's mean."""
    if not present:
        return {}
    if samples is None or not len(samples):
        return {"mean": mean_s * 1e6}
    us = np.asarray(samples) * 1e6
    points = {"p50": 50, "p90": 90, "p99": 99, "p99.9": 99.9, "p99.99": 99.99}
    return {"mean": float(us.mean()), **{k: float(np.percentile(us, q)) for k, q in points.items()}}


def _weighted_waf(values: list[float], weights: np.ndarray) -> float:
    pairs = [(v, w) for v, w in zip(values, weights) if w > 0 and v == v]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else float("nan")


__all__ = ["MixPart", "MAX_MIX_PARTS", "binned", "part_workload", "mixed_result", "mix_samples", "latency_dict"]
