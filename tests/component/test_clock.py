"""CPU clocks as the load allows (nvsim.platform.active_core_clock_ghz): a CPU-bound prediction
follows the clock its few busy cores hold, above the base clock, in both fidelities."""

import dataclasses

import pytest

from nvsim.scenario import load_scenario
from nvsim.simulation import predict_workload

from conftest import ROOT

R750 = "dell-poweredge-r750"  # base 2.0 GHz, max turbo 3.2 GHz: one busy core holds 3.2 GHz


def base_clock_only(catalog):
    """The catalog with the R750's all-core figure removed: every load at the base clock."""
    platform = catalog.platforms[R750]
    cpu = platform.cpu.model_copy(update={"all_core_boost_clock_ghz": None})
    return dataclasses.replace(catalog, platforms={**catalog.platforms, R750: platform.model_copy(update={"cpu": cpu})})


@pytest.mark.parametrize("fidelity", ["fluid", "event"])
def test_one_cpu_bound_job_runs_at_the_boost_clock_not_the_base(catalog, fidelity):
    """One libaio job at depth 128 on four drives is bound by its core (scenarios/host-io-paths):
    its IOPS rise by the clock's ratio, 3.2 / 2.0, when one busy core holds the maximum turbo."""
    scenario = load_scenario(ROOT / "scenarios" / "host-io-paths" / "scenario.yaml", catalog)
    workload = next(w for w in scenario.workloads if w.name == "libaio-qd128")
    boosted = predict_workload(scenario, workload, catalog, fidelity)["read_iops"]
    base = predict_workload(scenario, workload, base_clock_only(catalog), fidelity)["read_iops"]
    assert boosted / base == pytest.approx(3.2 / 2.0, rel=0.03)
