"""The volumes' shared solve (nvsim.volumes) with its watts and its warnings: each volume's drives
at its own load, each card once at its busy share, the server at the volumes' CPU together; a
warning where the volumes' fio jobs are more than the platform's logical CPUs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from nvsim.report import print_volumes
from nvsim.scenario import parse_scenario
from nvsim.volumes import cpu_warning, run_volumes

CARDS = Path(__file__).resolve().parents[2] / "scenarios" / "hardware-cards"


def shipped(name: str, jobs: int | None = None) -> dict:
    raw = yaml.safe_load((CARDS / f"{name}.yaml").read_text())
    if jobs is not None:
        raw["workloads"] = [dict(w, numjobs=jobs) for w in raw["workloads"]]
    return raw


@pytest.fixture(scope="module")
def together(catalog):
    return {name: run_volumes(parse_scenario(shipped(name), catalog), catalog) for name in ("two-cards", "two-virtual-disks")}


def test_the_servers_watts_add_every_volumes_drives_and_each_card_once(together, catalog):
    device = catalog.engines["broadcom-megaraid-9670w-16i"].device
    for name, cards in (("two-cards", 2), ("two-virtual-disks", 1)):
        result = together[name]
        power = result.power
        assert power["power_drives_w"] == pytest.approx(sum(run.power_drives_w for run in result.runs))
        assert cards * device.power_idle_w.value < power["power_engine_w"] <= cards * device.power_active_w.value
        server = catalog.platforms["asus-rs520a-e12-rs24u"]
        cpu = sum(run.cpu_percent for run in result.runs) / 100
        assert power["power_platform_w"] == pytest.approx(server.power_idle_w.value + min(cpu, 1.0) * (
            server.power_active_w.value - server.power_idle_w.value))
        assert power["power_w"] == pytest.approx(sum(power[k] for k in ("power_drives_w", "power_engine_w",
                                                                         "power_platform_w", "power_switches_w")))
    writer = together["two-virtual-disks"].runs[1]  # 8 drives writing at their NAND's limit: near 25 W each
    assert writer.power_drives_w > 8 * 20


def test_more_jobs_than_logical_cpus_is_a_warning_naming_the_counts(together, catalog):
    assert together["two-cards"].warnings == (
        "volumes: the array's and the volumes' fio jobs are 128 (array 64, card1-raid5 64); asus-rs520a-e12-rs24u has "
        "64 logical CPUs: the shared solve gives each volume's jobs CPUs of their own, so where the host cores limit, "
        "its rates are optimistic (the jobs would share CPUs)",)
    assert "are 96 (array 64, vd1-raid10 32)" in together["two-virtual-disks"].warnings[0]
    assert cpu_warning(parse_scenario(shipped("two-cards", jobs=32), catalog), catalog) is None  # 64 jobs: they fit


def test_the_table_prints_the_watts_and_the_warning(together, catalog):
    out = io.StringIO()
    print_volumes(Console(file=out, width=200), together["two-cards"], catalog)
    text = out.getvalue()
    assert f"Server power with every volume running: {together['two-cards'].power['power_w']:,.0f} W" in text
    assert "warning: volumes: the array's and the volumes' fio jobs are 128" in text
    assert "drives W" in text and "CPU %" in text


def test_the_table_names_a_card_only_for_an_engine_with_one(catalog):
    """An md volume (and VROC, md behind the CPU's VMD) hangs from no card: the engine column read
    'Linux md ... card 0' although ``card`` above 0 is refused for it; a RAID card's volume keeps
    its card's number."""
    from nvsim.volumes import VolumeRun, VolumesResult

    def run(name, engine, card):
        return VolumeRun(name, "w", engine, card, 1.0, 0.0, 4096.0, 0.0, 1.0, "DRAM", 0.1)
    result = VolumesResult((run("array", "linux-md", 0), run("vroc", "intel-vroc", 0),
                            run("vd", "broadcom-megaraid-9670w-16i", 1)), (("DRAM", 0.1),))
    out = io.StringIO()
    print_volumes(Console(file=out, width=400), result, catalog)
    rows = {line.split("│")[1].strip(): line for line in out.getvalue().splitlines() if line.count("│") > 3}
    assert "card" not in rows["array"] and "card" not in rows["vroc"]
    assert "card 1" in rows["vd"]
