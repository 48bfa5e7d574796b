"""Several volumes on one server at once: virtual disks sharing a RAID card, cards sharing a host.

A scenario's ``volumes`` (``VolumeSpec``) run beside its array, each under its own workload (the
array under the scenario's first). Each volume is the array simulator's own ``ArraySystem`` with
its own drives; what they share is solved together as one multi-class queueing network (the
fluid mode's ``solve_network``), a closed class per volume:

* a RAID card's server, DRAM and link (and a GPU card's), between the volumes on the same card of
  the same engine (``VolumeSpec.card``; the array is card 0);
* the host's DRAM bandwidth, between every volume;
* each volume's own drives, its engine's lock and threads, and its jobs' cores stay its own (fio
  jobs of different volumes are assumed to run on different CPUs).

The fluid mode only: the event mode simulates one array at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .catalog import Catalog, default_catalog
from .sim.foreground import FioLoad
from .sim.network import solve_network, stations
from .specs import PlacementSpec, ScenarioSpec, WorkloadSpec

CARD_KEYS = ("engine", "device_bw", "device_up", "device_down")
"""Stations of an engine with a device of its own that every volume on that device shares."""
HOST_KEYS = ("memory",)
"""Stations every volume on the server shares."""


@dataclass(frozen=True)
class VolumeRun:
    """One volume's share of the joint solve."""

    volume: str
    workload: str
    engine: str
    card: int
    read_iops: float
    write_iops: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    mean_latency_us: float
    limited_by: str
    utilisation: float  # the busy share of that resource


@dataclass(frozen=True)
class VolumesResult:
    runs: tuple[VolumeRun, ...]
    shared: tuple[tuple[str, float], ...]  # each shared station's label and busy share


def volume_scenario(scenario: ScenarioSpec, array, name: str) -> ScenarioSpec:
    """One volume as a scenario of its own: the array's platform and seed, its own drives (default
    placement, no topology, no faults)."""
    return scenario.model_copy(update={"name": f"{scenario.name}/{name}", "array": array, "volumes": (),
                                       "faults": (), "topology": None, "placement": PlacementSpec()})


def _parts(scenario: ScenarioSpec) -> list[tuple[str, ScenarioSpec, WorkloadSpec, int]]:
    workloads = {w.name: w for w in scenario.workloads}
    first = volume_scenario(scenario, scenario.array, "array").model_copy(
        update={"placement": scenario.placement, "topology": scenario.topology})
    out = [("array", first, scenario.workloads[0], 0)]
    for volume in scenario.volumes:
        out.append((volume.name, volume_scenario(scenario, volume.array, volume.name), workloads[volume.workload],
                    volume.card))
    return out


def _joint_key(index: int, engine: str, card: int, has_device: bool, key: tuple[str, int]) -> tuple:
    kind, drive = key
    if kind in HOST_KEYS:
        return ("host", kind)
    if has_device and kind in CARD_KEYS:
        return ("card", engine, card, kind)
    return ("volume", index, kind, drive)


def run_volumes(scenario: ScenarioSpec, catalog: Catalog | None = None) -> VolumesResult:
    """The array and every volume of ``scenario`` at once, each under its workload (fluid mode)."""
    catalog = catalog or default_catalog()
    parts = _parts(scenario)
    loads = [FioLoad(sc, w, catalog, (), scenario.seed) for _name, sc, w, _card in parts]
    keys: dict[tuple, int] = {}
    labels: list[str] = []
    servers: list[float] = []
    columns = []
    for i, ((name, sc, _w, card), load) in enumerate(zip(parts, loads)):
        net = stations(load.system)
        has_device = catalog.engines[sc.array.engine].device is not None
        cols = []
        for j, key in enumerate(net.keys):
            joint = _joint_key(i, sc.array.engine, card, has_device, key)
            if joint not in keys:
                keys[joint] = len(labels)
                shared = joint[0] != "volume"
                labels.append(net.labels[j] if not shared or joint[0] == "host" else f"{net.labels[j]} [card {card}]")
                servers.append(float(net.servers[j]))
            cols.append(keys[joint])
        columns.append((net, cols))
    k = len(labels)
    demand, visits, base, population = np.zeros((len(parts), k)), np.zeros((len(parts), k)), [], []
    scale = np.ones((len(parts), k))  # a station only another volume visits: no wait of this one's to scale
    for i, (load, (net, cols)) in enumerate(zip(loads, columns)):
        d, b, pop = load.demands(net)
        np.add.at(demand[i], cols, d)
        np.add.at(visits[i], cols, load.visits)
        scale[i, cols] = load.wait_scale
        base.append(b)
        population.append(pop)
    sol = solve_network(demand, np.array(servers), np.array(population), np.array(base), wait_scale=scale,
                        visits=visits)
    runs = tuple(_run(parts[i], loads[i], sol, i, labels, demand) for i in range(len(parts)))
    shared = tuple((labels[j], float(sol.utilisation[j])) for joint, j in keys.items() if joint[0] != "volume")
    return VolumesResult(runs, shared)


def _run(part, load: FioLoad, sol, i: int, labels: list[str], demand: np.ndarray) -> VolumeRun:
    name, sc, w, card = part
    x = float(sol.throughput[i])
    f_read = 1.0 - float(np.mean(np.concatenate([b.is_write for b in load.batches])))
    used = np.flatnonzero(demand[i] > 0)
    j = int(used[np.argmax(sol.utilisation[used])]) if len(used) else 0
    return VolumeRun(name, w.name, sc.array.engine, card, x * f_read, x * (1 - f_read), x * f_read * w.bs,
                     x * (1 - f_read) * w.bs, float(sol.cycle_s[i]) * 1e6, labels[j], float(sol.utilisation[j]))


__all__ = ["run_volumes", "volume_scenario", "VolumesResult", "VolumeRun"]
