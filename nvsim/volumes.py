"""Several volumes on one server at once: virtual disks sharing a RAID card, cards sharing a host.

A scenario's ``volumes`` (``VolumeSpec``) run beside its array, each under its own workload (the
array under the scenario's first). Each volume is the array simulator's own ``ArraySystem`` with
its own drives; what they share is solved together as one multi-class queueing network (the
fluid mode's ``solve_network``), a closed class per volume:

* a RAID card's server, DRAM and link (and a GPU card's), between the volumes on the same card of
  the same engine (``VolumeSpec.card``; the array is card 0);
* the host's DRAM bandwidth, between every volume;
* each volume's own drives, its engine's lock and threads, and its jobs' cores stay its own (fio
  jobs of different volumes are assumed to run on different CPUs: where together they are more than
  the platform's logical CPUs, ``VolumesResult.warnings`` says so, as the rates are then optimistic).

Each volume's part is its workload's bare closed loop (``FioLoad``), so what the composite rows of
nvsim.workload.compose solve (a rate cap, a think time, trims, a mix of sizes, a latency target, a
phase, fresh drives) and an OLTP database are refused for a volume's workload, and for the
scenario's first (the array's part), in one line (``check_volumes``), as are what the array's own
checks refuse: engine settings its engine does not take, trims its array does not pass, a region
past its end. ``nvsim.scenario.parse_scenario`` runs the check when a scenario loads.

The fluid mode only: the event mode simulates one array at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .catalog import Catalog, catalog_or_default
from .cost import together_power_w
from .sim.foreground import FioLoad
from .sim.network import NetworkSolution, solve_network, stations
from .scenario import as_scenario
from .volume_rules import _parts, check_volumes, volume_scenario  # noqa: F401 (re-exported)
from .specs import ScenarioSpec
from .topology import has_card

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
    cpu_percent: float = 0.0  # its jobs' (and its engine's host threads') share of the platform's logical CPUs
    power_drives_w: float | None = None  # its drives (and hot spares) at its load (None: a figure is missing)


@dataclass(frozen=True)
class VolumesResult:
    runs: tuple[VolumeRun, ...]
    shared: tuple[tuple[str, float], ...]  # each station of two volumes or more: its label and busy share
    power: dict | None = None  # the server's watts with every volume running (``nvsim.cost.together_power_w``)
    warnings: tuple[str, ...] = ()  # what the shared solve leaves out (more jobs than logical CPUs, the faults)


def cpu_warning(scenario: ScenarioSpec, catalog: Catalog) -> str | None:
    """A line when the fio jobs of the array and the volumes together are more than the platform's
    logical CPUs: the shared solve gives each volume's jobs CPUs of their own (None: they fit)."""
    platform = catalog.platforms[scenario.platform]
    logical = platform.total_cores * platform.cpu.threads_per_core.value
    jobs = [(name, w.numjobs) for name, _sc, w, _card in _parts(scenario)]
    total = sum(n for _name, n in jobs)
    if total <= logical:
        return None
    each = ", ".join(f"{name} {n}" for name, n in jobs)
    return (f"volumes: the array's and the volumes' fio jobs are {total} ({each}); {platform.name} has {logical} "
            f"logical CPUs: the shared solve gives each volume's jobs CPUs of their own, so where the host cores "
            f"limit, its rates are optimistic (the jobs would share CPUs)")


def _joint_key(index: int, engine: str, card: int, on_a_card: bool, key: tuple[str, int]) -> tuple:
    """Where station ``key`` of volume ``index`` sits: the host's, its card's (shared by the volumes
    on that card: ``on_a_card``, ``topology.has_card``) or its own. VROC's VMD "device" is no card:
    its md thread is each array's own (until 2026-12-01 two VROC volumes shared one)."""
    kind, drive = key
    if kind in HOST_KEYS:
        return ("host", kind)
    if on_a_card and kind in CARD_KEYS:
        return ("card", engine, card, kind)
    return ("volume", index, kind, drive)


def run_volumes(scenario: ScenarioSpec | str | Path, catalog: Catalog | None = None) -> VolumesResult:
    """The array and every volume of ``scenario`` at once, each under its workload (fluid mode):
    each one's rates, latency, limit, CPU and drives' watts, the resources they share, the server's
    watts with all of them running, and a warning where their jobs are more than the logical CPUs."""
    catalog = catalog_or_default(catalog)
    scenario = as_scenario(scenario, catalog)  # a spec checked again (model_copy checks nothing), or a path
    check_volumes(scenario, catalog)
    parts = _parts(scenario)
    loads = [FioLoad(sc, w, catalog, (), scenario.seed) for _name, sc, w, _card in parts]
    keys: dict[tuple, int] = {}
    users: dict[tuple, set[int]] = {}  # which volumes each station belongs to
    labels: list[str] = []
    servers: list[float] = []
    columns = []
    for i, ((name, sc, _w, card), load) in enumerate(zip(parts, loads)):
        net = stations(load.system)
        on_a_card = has_card(catalog, sc.array.engine)
        cols = []
        for j, key in enumerate(net.keys):
            joint = _joint_key(i, sc.array.engine, card, on_a_card, key)
            users.setdefault(joint, set()).add(i)
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
    own = [load.result(net, _view(sol, i, cols)) for i, (load, (net, cols)) in enumerate(zip(loads, columns))]
    power = together_power_w(catalog, scenario, [(sc, (sc.array.engine, card), r.metrics(), r.utilisation)
                                                 for (_name, sc, _w, card), r in zip(parts, own)])
    runs = tuple(_run(parts[i], loads[i], sol, i, labels, demand, own[i], power["parts_drives_w"][i])
                 for i in range(len(parts)))
    shared = tuple((labels[j], float(sol.utilisation[j])) for joint, j in keys.items() if len(users[joint]) > 1)
    warnings = tuple(line for line in (cpu_warning(scenario, catalog), faults_warning(scenario)) if line)
    return VolumesResult(runs, shared, {k: v for k, v in power.items() if k != "parts_drives_w"}, warnings)


def faults_warning(scenario: ScenarioSpec) -> str | None:
    """A line when the scenario has faults: the shared solve is of every member present (its rates
    printed beside a degraded workload's, with nothing said, read as the same state)."""
    if not scenario.faults:
        return None
    return (f"volumes: the shared solve runs every volume with all its members present; the scenario's "
            f"{len(scenario.faults)} fault event(s) are not applied to it (each workload's own row and the fault "
            f"timeline have them)")


def _view(sol: NetworkSolution, i: int, cols: list[int]) -> NetworkSolution:
    """Volume ``i``'s share of the joint solution, on its own stations (``cols``): its throughput
    and cycle, and each of its stations' busy share (a shared one's, every volume's load on it)."""
    return NetworkSolution(throughput=sol.throughput[i:i + 1], cycle_s=sol.cycle_s[i:i + 1],
                           utilisation=sol.utilisation[cols], waiting_s=sol.waiting_s[i:i + 1][:, cols],
                           queue=sol.queue[i:i + 1][:, cols])


def _run(part, load: FioLoad, sol, i: int, labels: list[str], demand: np.ndarray, own, drives_w) -> VolumeRun:
    name, sc, w, card = part
    x = float(sol.throughput[i])
    f_read = 1.0 - float(np.mean(np.concatenate([b.is_write for b in load.batches])))
    used = np.flatnonzero(demand[i] > 0)
    j = int(used[np.argmax(sol.utilisation[used])]) if len(used) else 0
    return VolumeRun(name, w.name, sc.array.engine, card, x * f_read, x * (1 - f_read), x * f_read * w.bs,
                     x * (1 - f_read) * w.bs, float(sol.cycle_s[i]) * 1e6, labels[j], float(sol.utilisation[j]),
                     float(own.cpu_percent), drives_w)


__all__ = ["run_volumes", "check_volumes", "cpu_warning", "volume_scenario", "VolumesResult", "VolumeRun", "NOT_SHARED"]
