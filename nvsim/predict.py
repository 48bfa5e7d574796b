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
    from .sim.des import simulate_event
    return simulate_event(system, seed=seed, host_ios=host_ios)


def single_drive(scenario: ScenarioSpec) -> bool:
    """One drive used directly: the SSD model's steady state answers, not the array simulator."""
    return scenario.array.engine == "none" and scenario.array.drives == 1


def predict_workload(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
                     fidelity: Fidelity = "event") -> dict[str, float | str]:
    """Predicted metrics (the metric names validation compares) and ``limited_by`` in words."""
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
    return simulate(scenario, workload, catalog, fidelity).metrics()
