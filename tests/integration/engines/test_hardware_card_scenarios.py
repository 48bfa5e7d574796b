"""The shipped RAID card scenarios (scenarios/hardware-cards/): pass-through, a card that keeps data
off its path, and a rebuild at each priority mode under load and idle, with what limits it."""

from pathlib import Path

import pytest

from nvsim.rebuild import rebuild_summary
from nvsim.scenario import load_scenario
from nvsim.sim.system import ArraySystem
from nvsim.simulation import Simulation

CARDS = Path(__file__).resolve().parents[3] / "scenarios" / "hardware-cards"


def _metrics(name, index=0):
    scenario = load_scenario(CARDS / f"{name}.yaml")
    return Simulation(scenario, scenario.workloads[index]).run("fluid")


def test_pass_through_reads_cross_the_cards_link_not_the_drives_own():
    """16 CM7-R could give 43M 4 KiB reads; through the card its x16 Gen4 link carries fewer than
    its processor's 12M commands."""
    result = _metrics("passthrough")
    assert 5e6 < result.metrics()["read_iops"] < 12e6
    assert "RAID card link" in result.bottleneck


def test_a_card_off_the_data_path_puts_no_host_bytes_on_its_link():
    scenario = load_scenario(CARDS / "smartraid-4300-raid5.yaml")
    system = ArraySystem(scenario, scenario.workloads[0])
    labels = " ".join(label for _key, label, _servers in system.resources())
    assert "RAID card link" not in labels and "RAID card processor" in labels


def _rebuild(name):
    scenario = load_scenario(CARDS / f"{name}.yaml")
    summary = rebuild_summary(scenario, fidelity="fluid")
    return summary


@pytest.fixture(scope="module")
def rebuilds():
    return {p: _rebuild(f"rebuild-{p}") for p in ("low", "normal", "high", "idle")}


def test_a_higher_priority_rebuilds_faster_under_load_and_idle_is_fastest(rebuilds):
    hours = {p: summary["rebuild_hours"] for p, summary in rebuilds.items()}
    assert hours["low"] > hours["normal"] > hours["high"] >= hours["idle"] * 0.9999


def test_the_rebuild_names_its_limit_the_cards_rate_under_load_its_engine_idle(rebuilds):
    assert rebuilds["normal"]["rebuild_limited_by"].startswith("rebuild rate 30% (firmware default), priority normal")
    assert "RAID card processor and parity engine" in rebuilds["idle"]["rebuild_limited_by"]
