"""What the volumes' shared solve (``nvsim.volumes``) can answer, checked when a scenario is read
(``nvsim.scenario.parse_scenario``): each volume as a scenario of its own, and the one-line refusal
of what the shared solve does not model. Apart from ``nvsim.volumes`` so that the scenario reader
and the solver, which reads scenarios given as paths, do not import each other."""

from __future__ import annotations

from .catalog import Catalog, default_catalog
from .engines import build_engine, engine_settings
from .errors import InputError
from .sim.system import ArraySystem
from .specs import PlacementSpec, ScenarioSpec, WorkloadSpec
from .workload.compose import composite_route

NOT_SHARED = {"phase": ("phase", "jobs that run at the same time"), "trim": ("rw", "trims"),
              "trimwrite": ("rw", "a trim before each write"), "fresh": ("drive_state", "fresh drives"),
              "filled": ("drive_state", "drives a sequential fill left"),
              "direction_caps": ("rate_iops_by_direction", "a rate cap per direction"),
              "poisson": ("rate_iops", "a rate cap with Poisson arrivals"), "paced": ("rate_iops", "a rate cap"),
              "think": ("thinktime", "a think time"), "latency_target": ("latency_target", "a latency target"),
              "mix": ("bs_mix", "a mix of block sizes: bssplit, bsrange or bs_mix")}
"""The composite rows of nvsim.workload.compose as the field a workload sets them with: none is
modelled in the volumes' shared solve, which runs each volume's bare closed loop."""



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


def check_volumes(scenario: ScenarioSpec, catalog: Catalog | None = None, source: str | None = None) -> None:
    """Refuse, in one line, what the volumes' shared solve cannot answer as the scenario's array
    would: each volume's engine settings as its engine takes them (md's keys, a GPU card's driver);
    the workload of each volume, and the scenario's first (the array's part), with trims on an array
    that does not pass them, with a feature of the composite rows (``NOT_SHARED``) or an OLTP
    database, or (a volume's) with a region past the end of its volume."""
    if not scenario.volumes:
        return
    catalog = catalog or default_catalog()
    for i, volume in enumerate(scenario.volumes):
        spec = catalog.engines[volume.array.engine]
        try:
            settings = engine_settings(spec, volume.array.engine_settings)
            build_engine(spec, settings, members=volume.array.drives, strip_bytes=volume.array.strip_bytes)
        except InputError as exc:
            raise InputError(f"volumes[{i}].{exc.field}", exc.message, source=source) from None
    _one_driver_per_card(scenario, catalog, source)
    for index, (name, sc, workload, _card) in enumerate(_parts(scenario)):
        field = "workloads[0]" if index == 0 else f"volumes[{index - 1}].workload"
        who = (f"the array runs {workload.name!r} beside the volumes" if index == 0
               else f"volume {name!r} runs {workload.name!r}")
        why = _not_modelled(sc, workload, catalog)
        if why:
            raise InputError(field, f"{who}, {why}", source=source)
        why = index and _off_the_volume(workload, lambda: ArraySystem(sc, workload, catalog).device_bytes)
        if why:  # (the array's own region is checked as every workload's is: nvsim.budget.check_scenario_regions)
            raise InputError(field, f"{who}: {why}", source=source)


def _driver(catalog: Catalog, array) -> str | None:
    """The driver a GPU card runs for ``array`` (its setting, else its family's default; None: the
    engine has no driver setting)."""
    entry = catalog.engines[array.engine]
    if "driver" not in catalog.engine_class(array.engine).Settings.model_fields:
        return None
    family = entry.gpu_family
    return array.engine_settings.get("driver") or (family.default_driver if family is not None else None)


def _one_driver_per_card(scenario: ScenarioSpec, catalog: Catalog, source: str | None) -> None:
    """A GPU card runs one driver: every volume on it (``card``) runs the driver the first on it runs."""
    first: dict[tuple[str, int], tuple[str, str]] = {}
    parts = [("the array's", scenario.array, 0)] + [(f"volume {v.name!r}'s", v.array, v.card) for v in scenario.volumes]
    for index, (who, array, card) in enumerate(parts):
        driver = _driver(catalog, array)
        if driver is None:
            continue
        seen = first.setdefault((array.engine, card), (driver, who))
        if seen[0] != driver:
            raise InputError(f"volumes[{index - 1}].array.engine_settings.driver",
                             f"card {card} of {array.engine} runs driver {seen[0]} ({seen[1]}); a card runs one driver; "
                             f"allowed: {seen[0]}, or a card of its own (volumes[{index - 1}].card: "
                             f"{1 + max(c for e, c in first if e == array.engine)})", source=source)


def _off_the_volume(workload: WorkloadSpec, device_bytes) -> str | None:
    """Why ``workload``'s region is not on its volume (``device_bytes()``, asked only when the
    workload places its I/O): ``WorkloadSpec.region_error``, as ``nvsim.budget.check_region`` says
    it of the array."""
    if not (workload.offset or workload.size):
        return None
    found = workload.region_error(device_bytes(), "volume")
    return None if found is None else f"{found[0]}: {found[1]}"


def _not_modelled(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog) -> str | None:
    """Why the shared solve cannot run ``workload`` on ``scenario``'s array (None: it can)."""
    engine, level = catalog.engine_class(scenario.array.engine), scenario.array.level
    if workload.trim is not None and not engine.passes_discards(level):
        why = engine.discard_refusal(level, catalog.engines[scenario.array.engine].name)
        return (f"whose trims (rw: {workload.trim}) cannot be simulated on its array: {why}; trims are simulated on "
                f"drives without RAID and on md RAID 0, 1 and 10")
    if workload.is_oltp:
        field, what = "rw", "an OLTP database"
    else:
        row = composite_route(workload, frozenset())
        if row is None:
            return None
        field, what = NOT_SHARED.get(row, (row, f"the composite row {row}"))
    return (f"whose {field} ({what}) the volumes' shared solve does not model: it runs each volume's bare closed "
            f"loop (nvsim.volumes); allowed: a workload without rate caps, think times, trims, mixes of sizes, latency "
            f"targets, phases, fresh drives or OLTP, or {workload.name!r} on the array alone (no volumes)")


__all__ = ["check_volumes", "volume_scenario", "NOT_SHARED"]
