"""The fabric of a built array, declared once: the resources a host I/O (or a rebuild request) loads.

Each ``ResourceKind`` says, in one place, what both fidelities and every report need to know of one
kind of resource:

* its key, its label and its server count on a given array (from ``ArrayFacts``), and whether the
  array has it at all (a lock only where the engine has one, a card's link only where host data
  crosses it);
* whether each drive has its own (``member``: then the kind is loaded by member I/Os, and says which
  member-I/O column of a batch it sums and in which direction), or it is one resource loaded by host
  I/Os (``host_fields``: which per-host-I/O demands of a ``HostIoBatch`` add up to its demand; a
  rebuild request may load another set, ``rebuild_fields``);
* how a request visits it (once, once per member I/O, or as the event mode visits the engine), and
  whether its busy time is host CPU time.

``ArraySystem.resources`` (the report and the event mode's servers), the per-host-I/O fields and
``totals``, the fluid mode's demand table, the network's stations, demands and visits, and the
grouped utilisation and CPU share of the mixed solve are all read from ``KINDS``: a new kind of
resource (a PCIe switch, a DPU's cores) is a new entry here, plus the engine or device that loads it.

``mean_demands`` is the one computation of a request's mean demand at each station, for the fluid
mode (drives pooled: the mean member) and for the network (each drive a station of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


class ArrayFacts(NamedTuple):
    """What the resource list needs to know of one built array: names and server counts."""

    job_cpus: int
    lock_label: str | None  # the engine's serialised section, if it has one
    engine_label: str | None  # the engine's own server (md's stripe thread, a GPU, a card), if any
    engine_servers: int
    engine_on_host_cpu: bool
    engine_name: str
    bandwidth_limited: bool  # the engine's device has an advertised read bandwidth
    device_link: str | None  # the engine device's link, when host data crosses it
    drive_name: str
    drive_units: int  # servers of one drive's NAND pool
    drive_link: str
    rebuild_threads: int = 1  # threads the engine's rebuild runs on (``Engine.rebuild_threads``)
    uplink: str | None = None  # the drives' switches' uplinks, when they hang behind switches
    uplinks: int = 1  # how many switch uplinks (each a server)
    bandwidth_label: str | None = None  # the engine device's bandwidth limit (a GPU's advertised, a card's DRAM)


@dataclass(frozen=True)
class MemberDemand:
    """The member-I/O column a per-drive resource sums, and the direction it takes."""

    column: str  # a member-I/O column of ``HostIoBatch``: op_die_s or op_link_s
    direction: str = "any"  # "any", "read" (to the host) or "write" (to the drive)

    def select(self, batch) -> tuple[np.ndarray, np.ndarray | slice]:
        """The column of ``batch`` and the mask of the member I/Os that load this resource."""
        values = getattr(batch, self.column)
        if self.direction == "any":
            return values, slice(None)
        return values, (batch.op_is_write if self.direction == "write" else ~batch.op_is_write)


def _always(facts: ArrayFacts) -> bool:
    return True


def _one(facts: ArrayFacts) -> float:
    return 1.0


def _has_shared_link(facts: ArrayFacts) -> bool:
    return facts.device_link is not None or facts.uplink is not None


def _shared_link(facts: ArrayFacts, towards: str) -> str:
    """The label of the card's link or the switches' uplinks, in one direction."""
    if facts.device_link is not None:
        return f"RAID card link {facts.device_link} to {towards}"
    return f"{facts.uplink} to {towards}"


@dataclass(frozen=True)
class ResourceKind:
    """One kind of resource of a built array (see the module docstring)."""

    key: str
    label: Callable[[ArrayFacts, str], str]  # (facts, which drive: "busiest" or "drive 3") -> label
    servers: Callable[[ArrayFacts], float] = _one
    present: Callable[[ArrayFacts], bool] = _always
    host_fields: tuple[str, ...] = ()  # per host I/O seconds summed into its demand
    rebuild_fields: tuple[str, ...] | None = None  # the same for a rebuild request (None: host_fields)
    member: MemberDemand | None = None  # per drive: loaded by member I/Os
    visits: str = "once"  # "once", "member" (each member I/O) or "engine" (``HostIoBatch.engine_visits``)
    host_cpu: Callable[[ArrayFacts], bool] = lambda facts: False  # its busy time is host CPU time
    reported: bool = True  # in the array's resource list (False: a station only a rebuild adds)
    threads: bool = False  # each server is a thread with a queue of its own (a job's core), not a pool

    @property
    def per_drive(self) -> bool:
        return self.member is not None

    def fields(self, rebuild: bool) -> tuple[str, ...]:
        """The per-request demands summed into this resource, for host I/Os or rebuild requests."""
        if rebuild and self.rebuild_fields is not None:
            return self.rebuild_fields
        return self.host_fields


KINDS: tuple[ResourceKind, ...] = (
    ResourceKind("cores", lambda f, _w: f"host cores ({f.job_cpus} job CPUs)", servers=lambda f: float(f.job_cpus),
                 host_fields=("submit_s", "complete_s"), rebuild_fields=(), host_cpu=lambda f: True, threads=True),
    ResourceKind("lock", lambda f, _w: f.lock_label, present=lambda f: bool(f.lock_label), host_fields=("lock_s",)),
    ResourceKind("engine", lambda f, _w: f.engine_label, servers=lambda f: float(f.engine_servers),
                 present=lambda f: bool(f.engine_label), host_fields=("pre_s", "mid_s"), visits="engine",
                 host_cpu=lambda f: f.engine_on_host_cpu),
    ResourceKind("device_bw", lambda f, _w: f.bandwidth_label or f"{f.engine_name} bandwidth limit",
                 present=lambda f: f.bandwidth_limited,
                 host_fields=("device_bw_s",)),
    # the shared link between the drives and host memory: a hardware RAID card's own link, or the
    # uplinks of the PCIe switches the drives hang behind (one server each; never both: a card's
    # drives hang from its own ports, nvsim.topology)
    ResourceKind("device_up", lambda f, _w: _shared_link(f, "host"), servers=lambda f: float(f.uplinks),
                 present=_has_shared_link, host_fields=("device_up_s",)),
    ResourceKind("device_down", lambda f, _w: _shared_link(f, "card" if f.device_link else "drives"),
                 servers=lambda f: float(f.uplinks), present=_has_shared_link, host_fields=("device_down_s",)),
    ResourceKind("nand", lambda f, w: f"drive NAND ({f.drive_name}, {w})", servers=lambda f: float(f.drive_units),
                 member=MemberDemand("op_die_s"), visits="member"),
    ResourceKind("link_up", lambda f, w: f"drive link {f.drive_link} to host ({w})",
                 member=MemberDemand("op_link_s", "read"), visits="member"),
    ResourceKind("link_down", lambda f, w: f"drive link {f.drive_link} to drive ({w})",
                 member=MemberDemand("op_link_s", "write"), visits="member"),
    ResourceKind("memory", lambda f, _w: "DRAM", host_fields=("memory_s",)),
    # md's resync thread or a card driver's rebuild thread: only rebuild requests load it (their
    # submit cost runs there, not on the job cores)
    ResourceKind("rebuild_thread", lambda f, _w: f"{f.engine_name} rebuild thread{'s' if f.rebuild_threads > 1 else ''}",
                 servers=lambda f: float(f.rebuild_threads), rebuild_fields=("submit_s", "complete_s"), host_cpu=lambda f: True, reported=False),
)
KIND = {kind.key: kind for kind in KINDS}
RESOURCE_KEYS = tuple(kind.key for kind in KINDS if kind.reported)
PER_DRIVE = tuple(kind.key for kind in KINDS if kind.per_drive)
HOST_FIELDS = tuple(dict.fromkeys(f for kind in KINDS for rebuild in (False, True) for f in kind.fields(rebuild)))
"""Every per-host-I/O demand of ``HostIoBatch`` some resource sums (seconds)."""
BUSIEST = "busiest"
"""What a per-drive resource's label names in the array's list: its busiest drive."""


def resources(facts: ArrayFacts) -> list[tuple[str, str, float]]:
    """(key, label, servers) of every resource the array has, in report order (drives: the busiest)."""
    return [(kind.key, kind.label(facts, BUSIEST), kind.servers(facts))
            for kind in KINDS if kind.reported and kind.present(facts)]


def stations(facts: ArrayFacts, drives: int) -> tuple[list[str], list[tuple[str, int]], list[float]]:
    """Labels, keys ``(resource key, drive or -1)`` and servers of the network's stations: the
    array's resources with every drive's own, then the stations only rebuild requests load."""
    labels, keys, servers = [], [], []
    for kind in KINDS:
        if not kind.present(facts):
            continue
        count = kind.servers(facts)
        for drive in (range(drives) if kind.per_drive else (-1,)):
            labels.append(kind.label(facts, f"drive {drive}" if drive >= 0 else BUSIEST))
            keys.append((kind.key, drive))
            servers.append(count)
    return labels, keys, servers


def batch_totals(batch) -> dict[str, float]:
    """Each host field of ``batch`` summed over its host I/Os (one reduction for all of them), and
    each per-drive resource's member-I/O column summed over its member I/Os (all drives)."""
    sums = np.array([getattr(batch, f) for f in HOST_FIELDS]).sum(axis=1)  # the rows stacked, as np.vstack
    out = dict(zip(HOST_FIELDS, sums.tolist()))
    for key, member in _MEMBER_DEMANDS:
        values, mask = member.select(batch)
        out[key] = float(values[mask].sum())
    return out


_MEMBER_DEMANDS = tuple((kind.key, kind.member) for kind in KINDS if kind.per_drive)
_FIELDS = {(kind.key, rebuild): kind.fields(rebuild) for kind in KINDS for rebuild in (False, True)}


def _per_drive(kind: ResourceKind, batches: Sequence, drives: int, drive_weights: np.ndarray | None) -> np.ndarray:
    """A per-drive resource's column summed per drive (``drive_weights``: the total spread by share)."""
    total = np.zeros(drives)
    for b in batches:
        values, mask = kind.member.select(b)
        total += np.bincount(b.op_drive[mask], weights=values[mask], minlength=drives)[:drives]
    if drive_weights is not None:
        total = total.sum() * drive_weights
    return total


def _total(totals: list[dict[str, float]], field: str) -> float:
    """``sum`` of ``field`` over the batches' totals (one batch, the common case: ``0.0 + x``, what
    ``sum`` gives for one float, without a generator)."""
    if len(totals) == 1:
        return 0.0 + totals[0][field]
    return sum(t[field] for t in totals)


def mean_demands(keys: Sequence[tuple[str, int]], batches: Sequence, drives: int, *, rebuild: bool = False,
                 pooled_scale: float = 0.0, drive_weights: np.ndarray | None = None) -> list[float]:
    """Mean demand (seconds) of one request of ``batches`` at each station ``(key, drive)``.

    A resource loaded by host I/Os: the mean of each of its fields (``rebuild``: a rebuild
    request's fields), added. A per-drive resource at drive ``d >= 0``: its member I/Os on that
    drive (``drive_weights``: all of them spread by share instead); at ``d = -1`` (the fluid mode's
    pooled drive): all of them times ``pooled_scale`` (1 / (drives x requests), times an imbalance).
    """
    n = sum(len(b) for b in batches)
    totals = [b.totals() for b in batches]
    per_drive: dict[str, np.ndarray] = {}
    out = []
    for key, drive in keys:
        kind = KIND[key]
        if kind.member is None:
            value = 0.0
            for i, field in enumerate(_FIELDS[key, rebuild]):
                mean = _total(totals, field) / n
                value = mean if i == 0 else value + mean
            out.append(value)
        elif drive < 0:
            out.append(_total(totals, key) * pooled_scale)
        else:
            if key not in per_drive:
                per_drive[key] = _per_drive(kind, batches, drives, drive_weights) / n
            out.append(per_drive[key][drive])
    return out


def mean_visits(keys: Sequence[tuple[str, int]], batches: Sequence, drives: int) -> list[float]:
    """Mean visits of one request to every station: its member I/Os at a drive's, the event mode's
    one or two at the engine (``HostIoBatch.engine_visits``), one elsewhere."""
    n = sum(len(b) for b in batches)
    counts: dict[str, np.ndarray] = {}
    out = []
    for key, drive in keys:
        kind = KIND[key]
        if kind.visits == "member":
            if key not in counts:
                total = np.zeros(drives)
                for b in batches:
                    _values, mask = kind.member.select(b)
                    total += np.bincount(b.op_drive[mask], minlength=drives)[:drives]
                counts[key] = total / n
            out.append(counts[key][drive])
        elif kind.visits == "engine":
            out.append(max(sum(float(b.engine_visits().sum()) for b in batches) / n, 1e-9))
        else:
            out.append(1.0)
    return out


def host_cpu_keys(facts: ArrayFacts) -> tuple[str, ...]:
    """Keys of the resources whose busy time is host CPU time, in declaration order."""
    return tuple(kind.key for kind in KINDS if kind.host_cpu(facts))


__all__ = ["ArrayFacts", "MemberDemand", "ResourceKind", "KINDS", "KIND", "RESOURCE_KEYS", "PER_DRIVE", "HOST_FIELDS",
           "resources", "stations", "batch_totals", "mean_demands", "mean_visits", "host_cpu_keys"]
