"""The bottleneck sentence names what sets the operating point: the busiest resource when it is
saturated; otherwise the closed loop (more users or I/Os in flight would go faster), or md's
RAID10 recovery barrier that the foreground waits at (issue 23: "limited by md spinlock at 2%")."""

import pytest

import nvsim
from nvsim.sim.result import SATURATED_UTILISATION, SimResult, Utilisation

OLTP = "scenarios/graid-mysql-oltp"


def _fluid(catalog, path: str, workload: str):
    spec = nvsim.load_scenario(path, catalog)
    w = next(w for w in spec.workloads if w.name == workload)
    return nvsim.Simulation(spec, w, catalog=catalog).run("fluid")


def test_md_raid10_rebuilding_is_limited_by_the_barrier_not_an_idle_lock(catalog):
    result = _fluid(catalog, f"{OLTP}/md-raid10-rebuilding.yaml", "oltp-128")
    assert max(u.utilisation for u in result.simulation.utilisation) < 0.1
    assert result.bottleneck.startswith("md's RAID10 recovery barrier: 128 OLTP users")


def test_unsaturated_oltp_names_the_closed_loop_and_saturated_the_resource(catalog):
    light = _fluid(catalog, f"{OLTP}/sr-raid6.yaml", "oltp-64")
    heavy = _fluid(catalog, f"{OLTP}/sr-raid6.yaml", "oltp-512")
    assert light.bottleneck.startswith("the closed loop of 64 OLTP users (busiest resource: ")
    assert heavy.bottleneck.startswith("host cores") and heavy.bottleneck.endswith("at 100%")
    assert heavy.transactions_per_s > light.transactions_per_s  # more users did go faster


@pytest.mark.parametrize("busy, names_loop", [(SATURATED_UTILISATION - 0.01, True), (SATURATED_UTILISATION, False)])
def test_the_sentence_turns_at_saturation(busy, names_loop):
    result = SimResult(scenario="s", workload="w", fidelity="event", read_iops=1.0, write_iops=0.0,
                       read_bytes_per_s=1.0, write_bytes_per_s=0.0, cpu_percent=1.0,
                       utilisation=(Utilisation("drive NAND", busy), Utilisation("DRAM", 0.1)), limited_by="drive NAND",
                       closed_loop="the closed loop of 4 I/Os in flight (1 job x QD4)")
    assert result.bottleneck_text.startswith("the closed loop") is names_loop
    assert "drive NAND at" in result.bottleneck_text
