"""The plan's second stage: bounds, over NumPy arrays, that no set-up can beat.

Each bound is a ceiling the fluid mode cannot exceed, so a bound never prunes a candidate the
fluid mode would accept (tests/unit/plan/test_plan_search.py checks it on random spaces):

* throughput: the workload's own pacing (fio's rate cap, its think time: ``pacing_ceiling_iops``),
  the drives' NAND pool (``nvsim.ssd.SsdModel``'s pool seconds; one pool second per
  drive per second, as the fluid mode's NAND servers) and the drives' links (payload bytes at the
  link's usable rate), with the least member bytes a host write can cost at the level (a full
  stripe's, ``nvsim.raid``) and the least pool time the SSD model charges per byte programmed
  (no partial-IU reads, no program suspend);
* rebuild: the replacement drive has every member byte programmed at its sequential rate, no
  faster than the engine's rebuild throttle allows (md's speed_limit_max; a vendor's paced share
  of the drive's time under load);
* risk: P(data loss) and MTTDL at that shortest rebuild (``nvsim.risk`` is monotone in it),
  reading at least one member's bytes;
* endurance: the drives' writes at the level's least write amplification and a NAND WAF of 1;
* power: the parts' idle draw (the power at any load is at least that).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..catalog import Catalog
from ..engines import build_engine
from ..links import drive_link
from ..raid import MIN_DRIVES, full_stripe_write_bytes_per_host_byte
from ..risk import HOURS_PER_YEAR, rebuild_risk
from ..specs import SECTOR_BYTES, RebuildSpec, WorkloadSpec
from ..ssd.model import SsdModel
from ..wear import SECONDS_PER_DAY, rated_waf
from ..workload.compose import pacing_ceiling_iops
from .space import NEAR_COPIES, Axes, Candidates, Verdicts
from .spec import PlanSpec

REBUILD_SLACK = 1e-3
"""The shortest rebuild is taken 0.1% shorter still: the rebuild solve rounds the span it rebuilds
(a paced GPU rebuild of a 3.2 TB namespace came 6 ppm under the unrounded bound)."""
NAND, LINKS = "drive NAND (pool ceiling)", "drive links (payload ceiling)"
"""The bounds' limiting resources, named as the report prints them."""
def min_write_factor(level: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Least member bytes written per host byte at each level: a full stripe's (``raid``); infinite
    for a count the level does not take (RAID6 of 2 drives: the exact filters reject it, and the
    bounds still see every candidate). Computed once per (level, count) present, looked up by both."""
    level, n = np.asarray(level, np.int64), np.asarray(n, np.int64)
    if not len(level):
        return np.zeros(0)
    width = int(n.max()) + 1
    table = np.full((int(level.max()) + 1, width), np.nan)
    for key in np.flatnonzero(np.bincount(level * width + n)).tolist():
        lv, k = divmod(key, width)
        table[lv, k] = full_stripe_write_bytes_per_host_byte(lv, k, NEAR_COPIES) if k >= MIN_DRIVES[lv] else np.inf
    return table[level, n]


@dataclass(frozen=True)
class DriveCeilings:
    """Per (drive, overprovisioning) of the axes: pool seconds per read of ``bs`` and per host byte
    written (the least the SSD model charges), and the link's usable bytes per second per platform."""

    read_pool_s: np.ndarray  # [drive, op]
    write_pool_s_per_byte: np.ndarray  # [drive, op]
    link_bytes_per_s: np.ndarray  # [drive, platform]


def drive_ceilings(axes: Axes, catalog: Catalog, workload: WorkloadSpec | None) -> DriveCeilings:
    """The SSD model's least pool time per I/O of ``workload`` (None: sequential, for rebuilds)."""
    shape = (len(axes.drives), len(axes.overprovisioning))
    reads, writes = np.zeros(shape), np.zeros(shape)
    random = workload.is_random if workload is not None else False
    bs = workload.bs if workload is not None else 1 << 20
    for (i, name), (j, share) in itertools.product(enumerate(axes.drives), enumerate(axes.overprovisioning)):
        drive = catalog.drives[name]
        namespace = int(drive.capacity_bytes.value * (1.0 - share)) // SECTOR_BYTES * SECTOR_BYTES
        ssd = SsdModel.from_drive(drive, namespace if share > 0 else None)
        p = ssd.params
        reads[i, j] = ssd.read_pool_s(bs, random)
        eta = p.random_write_efficiency if random else 1.0
        writes[i, j] = ssd.waf_ftl(random) / (eta * p.nand_program_bytes_per_s)
    links = np.asarray([[drive_link(catalog.drives[d], catalog.platforms[p], catalog).usable_bytes_per_s()
                         for p in axes.platforms] for d in axes.drives])
    return DriveCeilings(reads, writes, links)


def throughput_bound(cands: Candidates, ceilings: DriveCeilings, workload: WorkloadSpec,
                     alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(host I/Os per second no set-up can exceed, 0: the NAND pool limits it, 1: the links) for
    the alive candidates (others: NaN)."""
    idx = np.flatnonzero(alive)
    r = workload.read_fraction
    n = cands.count[idx].astype(float)
    wf = min_write_factor(cands.level[idx], cands.count[idx])
    read_s = ceilings.read_pool_s[cands.drive[idx], cands.op[idx]]
    write_s = ceilings.write_pool_s_per_byte[cands.drive[idx], cands.op[idx]] * workload.bs * wf
    nand = n / (r * read_s + (1.0 - r) * write_s)
    link = ceilings.link_bytes_per_s[cands.drive[idx], cands.platform[idx]] * n
    with np.errstate(divide="ignore"):
        link_read = np.where(r > 0, link / (r * workload.bs), np.inf)
        link_write = np.where(r < 1, link / ((1.0 - r) * workload.bs * wf), np.inf)
    link_cap = np.minimum(link_read, link_write)
    bound, which = np.full(len(cands), np.nan), np.full(len(cands), -1, np.int32)
    bound[idx] = np.minimum(nand, link_cap)
    which[idx] = np.where(link_cap < nand, 1, 0)
    return bound, which


def _throughput_bounds(spec: PlanSpec, cands: Candidates, catalog: Catalog, verdicts: Verdicts,
                       workloads: dict[str, WorkloadSpec]) -> None:
    """Each workload's IOPS and bytes-per-second targets against the NAND and link ceilings."""
    resources = [verdicts.index_of(verdicts.resources, NAND), verdicts.index_of(verdicts.resources, LINKS)]
    for req in spec.requirements.workloads:
        workload = workloads[req.name]
        bound, which = throughput_bound(cands, drive_ceilings(cands.axes, catalog, workload), workload, verdicts.alive())
        paced_iops, paced_by = pacing_ceiling_iops(workload)  # the same on every set-up: the workload's own limit
        if paced_by:
            slower = bound > paced_iops  # NaN (not alive) stays as it is
            which = np.where(slower, 2, which)
            bound = np.where(slower, paced_iops, bound)
            resources = resources[:2] + [verdicts.index_of(verdicts.resources, f"the workload's pacing: {paced_by}")]
        cands.columns[f"{req.name}.iops_bound"] = bound
        resource = np.where(which >= 0, np.asarray(resources)[np.maximum(which, 0)], -1)
        if req.min_iops is not None:
            verdicts.reject(bound < req.min_iops, 2, f"{req.name} IOPS", bound, req.min_iops, resource)
        if req.min_bytes_per_s is not None:
            rate = bound * workload.bs
            verdicts.reject(rate < req.min_bytes_per_s, 2, f"{req.name} bytes/s", rate, req.min_bytes_per_s, resource)


def rebuild_throttles(axes: Axes, catalog: Catalog, loaded: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per engine of the axes, through its rebuild protocol's pacing (``Engine.rebuild_protocol``; the
    pacing does not depend on the level) at the scenario default
    ``RebuildSpec``: the rate its rebuild never passes (md's speed_limit_max; inf: none) and the
    share of a drive's busy time a paced rebuild takes (a vendor's priority, under load), or of its
    maximum rate (xiRAID's recon_prio: never faster than that share of the drive); 1: none."""
    limits, shares = [], []
    for name in axes.engines:
        throttle = build_engine(catalog.engines[name], None).rebuild_protocol(5, RebuildSpec()).pacing(loaded)
        limits.append(throttle.limit_bytes_per_s if throttle.limit_bytes_per_s is not None else np.inf)
        shares.append(throttle.share if throttle.paced else
                      throttle.alone_share if throttle.alone_share is not None else 1.0)
    return np.asarray(limits, float), np.asarray(shares, float)


def shortest_rebuild_hours(cands: Candidates, catalog: Catalog, loaded: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(hours, True where the engine's throttle sets them) the replacement drive needs at least:
    every member byte (less the largest strip a rounding can drop) written no faster than the
    drive's sequential program rate (the SSD model's least pool time per byte) times the share of
    the drive a paced rebuild may take (the drive it loads most is busy with it that share of the
    time), and no faster than the engine's rate limit. Depends on the drive, its
    overprovisioning and the engine only."""
    ceilings = drive_ceilings(cands.axes, catalog, None)
    member = np.maximum(cands.columns["member_bytes"] - max(cands.axes.strips), 0)
    limits, shares = rebuild_throttles(cands.axes, catalog, loaded)
    drive_rate = shares[cands.engine] / ceilings.write_pool_s_per_byte[cands.drive, cands.op]
    throttle = limits[cands.engine]
    throttled = (throttle < drive_rate) | (shares[cands.engine] < 1.0)
    return member / np.minimum(drive_rate, throttle) / 3600.0 * (1.0 - REBUILD_SLACK), throttled


def _risk_table(cands: Candidates, catalog: Catalog, hours: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(data loss) and MTTDL years at ``hours`` for the candidates ``idx``, solved once per
    (level, count, drive, overprovisioning, engine); no unrecoverable read is counted (a lower bound)."""
    p_loss, mttdl = np.full(len(cands), np.nan), np.full(len(cands), np.nan)
    if not len(idx):
        return p_loss, mttdl
    keys = np.stack([cands.level[idx], cands.count[idx], cands.drive[idx], cands.op[idx], cands.engine[idx]], axis=1)
    uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    values = np.zeros((len(uniq), 2))
    for k, (level, count, drive_i, _op, _engine) in enumerate(uniq.tolist()):
        drive = catalog.drives[cands.axes.drives[drive_i]]
        if level == 0:
            values[k] = (1.0, drive.mtbf_hours.value / count / HOURS_PER_YEAR)
            continue
        risk = rebuild_risk(level, count, drive.mtbf_hours.value, drive.uber_per_bit.value,
                            max(float(hours[idx[first[k]]]), 1e-9), 0.0, NEAR_COPIES)
        values[k] = (risk.p_data_loss, risk.mttdl_years)
    p_loss[idx], mttdl[idx] = values[inverse.reshape(-1), 0], values[inverse.reshape(-1), 1]
    return p_loss, mttdl


def _risk_bounds(spec: PlanSpec, cands: Candidates, catalog: Catalog, verdicts: Verdicts) -> None:
    """Rebuild time, P(data loss) and MTTDL at the shortest rebuild the drives allow."""
    req = spec.requirements
    hours, throttled = shortest_rebuild_hours(cands, catalog, bool(req.rebuild and req.rebuild.workload))
    if req.rebuild is not None:
        verdicts.reject(cands.level == 0, 2, "rebuild hours", np.nan, req.rebuild.max_hours,
                        "RAID0 has no redundancy to rebuild")
        resource = np.where(throttled, verdicts.index_of(verdicts.resources, "the engine's rebuild throttle"),
                            verdicts.index_of(verdicts.resources, "replacement drive's NAND (sequential program rate)"))
        verdicts.reject(hours > req.rebuild.max_hours, 2, "rebuild hours", hours, req.rebuild.max_hours, resource)
    if req.max_data_loss_probability is None and req.min_mttdl_years is None:
        return
    p_loss, mttdl = _risk_table(cands, catalog, hours, np.flatnonzero(verdicts.alive()))
    if req.max_data_loss_probability is not None:
        verdicts.reject(p_loss > req.max_data_loss_probability, 2, "P(data loss)", p_loss, req.max_data_loss_probability,
                        "failures during the shortest rebuild")
    if req.min_mttdl_years is not None:
        verdicts.reject(mttdl < req.min_mttdl_years, 2, "MTTDL years", mttdl, req.min_mttdl_years,
                        "failures during the shortest rebuild")


def endurance_years(cands: Candidates, catalog: Catalog, host_write_bytes_per_s: float, raid_waf, waf_nand) -> np.ndarray:
    """Years the drives last under ``host_write_bytes_per_s`` (``nvsim.wear``'s arithmetic over
    arrays): the members' NAND writes per day against the rated DWPD for the warranty."""
    a = cands.axes
    drives = [catalog.drives[d] for d in a.drives]
    capacity = np.asarray([d.capacity_bytes.value for d in drives], float)[cands.drive]
    rating_waf = np.asarray([rated_waf(d) for d in drives])[cands.drive]
    rated = np.asarray([d.dwpd.value * d.warranty_years.value for d in drives], float)[cands.drive]
    nand = host_write_bytes_per_s * raid_waf / cands.count * waf_nand
    effective = nand * SECONDS_PER_DAY / capacity / rating_waf
    with np.errstate(divide="ignore"):
        return np.where(effective > 0, rated / effective, np.inf)


def bounds_stage(spec: PlanSpec, cands: Candidates, catalog: Catalog, verdicts: Verdicts,
                 workloads: dict[str, WorkloadSpec]) -> int:
    """Stage 2: prune what no set-up of its kind can reach; returns how many it pruned."""
    before = int(verdicts.alive().sum())
    req = spec.requirements
    if req.max_power_w is not None:
        idle = cands.columns["idle_power_w"]
        verdicts.reject(idle > req.max_power_w, 2, "max_power_w", idle, req.max_power_w, "idle draw of the parts")
    if req.endurance is not None:
        years = endurance_years(cands, catalog, req.endurance.host_write_bytes_per_s,
                                min_write_factor(cands.level, cands.count), 1.0)
        verdicts.reject(years < req.endurance.service_life_years, 2, "endurance years", years,
                        req.endurance.service_life_years, "drives' rated writes")
    _throughput_bounds(spec, cands, catalog, verdicts, workloads)
    _risk_bounds(spec, cands, catalog, verdicts)
    return before - int(verdicts.alive().sum())


__all__ = ["bounds_stage", "throughput_bound", "drive_ceilings", "min_write_factor", "shortest_rebuild_hours",
           "endurance_years", "rebuild_throttles", "DriveCeilings", "NAND", "LINKS"]
