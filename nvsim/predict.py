"""One orchestrator: a scenario and a workload in, the predicted metrics out.

Single drives used directly (engine ``none``, one drive) go through the SSD model's steady state
(the KIOXIA namespace study); every array goes through the simulator, in the event mode (SimPy,
latency percentiles) or the fluid mode (rates, for sweeps), over the same component models.
"""

from __future__ import annotations

from typing import Literal

from .catalog import Catalog, default_catalog
from .specs import ScenarioSpec, WorkloadSpec

Fidelity = Literal["event", "fluid"]
EVENT_HOST_IOS = 60_000
"""Measured host I/Os per event-mode run (after warm-up): batch-means 95% CI of IOPS ~1% here."""


def simulate(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
             fidelity: Fidelity = "event", host_ios: int = EVENT_HOST_IOS, seed: int | None = None):
    """The array simulator's full result (``nvsim.sim.SimResult``) for one workload."""
    from .sim.system import ArraySystem

    system = ArraySystem(scenario, workload, catalog or default_catalog())
    if fidelity == "fluid":
        from .sim.fluid import simulate_fluid
        return simulate_fluid(system, seed)
    from .sim.event import simulate_event
    return simulate_event(system, seed=seed, host_ios=host_ios)


def faulted_state(scenario: ScenarioSpec) -> tuple[tuple[int, ...], int | None]:
    """The state the scenario's faults at t = 0 leave: (missing members, the one being rebuilt).

    Scenarios that validate a degraded or rebuilding state start it at time zero; later events are
    the timeline's business (nvsim.rebuild.run_timeline)."""
    missing: list[int] = []
    rebuilding = None
    spares = scenario.array.hot_spares
    for fault in scenario.faults:
        if fault.at_s > 0:
            break
        if fault.action in ("fail", "pull") and fault.drive not in missing:
            missing.append(fault.drive)
            if spares > 0 and rebuilding is None:
                spares -= 1
                rebuilding = fault.drive
        elif fault.action == "replace" and fault.drive in missing and rebuilding is None:
            rebuilding = fault.drive
    return tuple(missing), rebuilding


def simulate_state(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
                   fidelity: Fidelity = "event", overrides: dict | None = None):
    """A workload in the state the scenario's faults leave at t = 0 (optimal without faults).

    OLTP workloads and every state with a missing member go through the network of
    nvsim.sim.mixed in the fluid mode; fio workloads in the event mode run SimPy with the rebuild's
    own requests alongside. An OLTP workload's result carries ``transactions_per_s``; a
    rebuilding state's its ``rebuild_bytes_per_s``.
    """
    catalog = catalog or default_catalog()
    missing, rebuilding = faulted_state(scenario)
    if not workload.is_oltp and not missing and not overrides:
        return simulate(scenario, workload, catalog, fidelity)
    from .rebuild import state_result
    return state_result(scenario, workload, catalog, missing, rebuilding, fidelity, overrides, host_ios=EVENT_HOST_IOS)


def single_drive(scenario: ScenarioSpec) -> bool:
    """One drive used directly: the SSD model's steady state answers, not the array simulator."""
    return scenario.array.engine == "none" and scenario.array.drives == 1


def predict_workload(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
                     fidelity: Fidelity = "event", overrides: dict | None = None) -> dict[str, float | str]:
    """Predicted metrics (the metric names validation compares) and ``limited_by`` in words;
    ``overrides``: parameter values in place of the catalog's (the calibration step only)."""
    catalog = catalog or default_catalog()
    array = scenario.array
    if single_drive(scenario):
        from .bounds import drive_link
        from .ssd import drive_workload_limit, predict_drive_workload
        drive = catalog.drives[array.drive]
        link = drive_link(drive, catalog.platforms[scenario.platform], catalog)
        values = dict(predict_drive_workload(drive, array.namespace_bytes, workload, link))
        values["limited_by"] = drive_workload_limit(drive, array.namespace_bytes, workload, link)
        return values
    result = simulate_state(scenario, workload, catalog, fidelity, overrides)
    values = result.metrics()
    if workload.is_oltp and scenario.faults:  # the same users on the optimal array, for the ratio
        optimal = simulate_state(scenario.model_copy(update={"faults": ()}), workload, catalog, fidelity, overrides)
        values["transactions_per_s_optimal"] = optimal.transactions_per_s
        values["tps_ratio"] = result.transactions_per_s / optimal.transactions_per_s
    return values
