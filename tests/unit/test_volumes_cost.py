"""Price and power of a scenario with volumes (nvsim.cost, docs/cost-power.md): every volume's drives
and every card are bought and draw power; a second virtual disk on a card adds drives, not a card."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nvsim.array_capacity import capacity
from nvsim.cost import cost_power, price_parts, setup_parts
from nvsim.scenario import parse_scenario

CARDS = Path(__file__).resolve().parents[2] / "scenarios" / "hardware-cards"
DRIVE, CARD = "kioxia-cm7-r-3.84tb", "broadcom-megaraid-9670w-16i"


def shipped(name: str) -> dict:
    return yaml.safe_load((CARDS / f"{name}.yaml").read_text())


def idle(spec, catalog) -> dict:
    return cost_power(catalog, spec, capacity(spec, catalog).usable_bytes, None)


def test_a_second_virtual_disk_adds_its_drives_not_a_card(catalog):
    spec = parse_scenario(shipped("two-virtual-disks"), catalog)
    drive, card, server = catalog.drives[DRIVE], catalog.engines[CARD], catalog.platforms[spec.platform]
    out = idle(spec, catalog)
    assert out["price_usd"] == pytest.approx(16 * drive.price_usd.value + card.price_usd.value + server.price_usd.value)
    assert out["price_usd"] == pytest.approx(26_900)  # $19,700 when the volume's 8 drives were left out
    assert out["power_w"] == pytest.approx(16 * drive.power_idle_w.value + card.device.power_idle_w.value
                                           + server.power_idle_w.value)  # 275 W; 235 W without them
    assert [(p["part"], p["count"]) for p in price_parts(catalog, spec)] == [(DRIVE, 16), (CARD, 1), (spec.platform, 1)]


def test_a_volume_on_a_card_of_its_own_adds_the_card(catalog):
    spec = parse_scenario(shipped("two-cards"), catalog)
    card = catalog.engines[CARD]
    assert [(p["part"], p["count"]) for p in price_parts(catalog, spec)][:2] == [(DRIVE, 16), (CARD, 2)]
    alone = parse_scenario({**shipped("two-cards"), "volumes": []}, catalog)
    both, one = idle(spec, catalog), idle(alone, catalog)
    drive = catalog.drives[DRIVE]
    assert both["price_engine_usd"] == pytest.approx(2 * card.price_usd.value)
    assert both["price_usd"] - one["price_usd"] == pytest.approx(8 * drive.price_usd.value + card.price_usd.value)
    assert both["power_w"] - one["power_w"] == pytest.approx(8 * drive.power_idle_w.value + card.device.power_idle_w.value)


def test_other_drive_models_are_lines_of_their_own_and_a_licence_is_bought_once(catalog):
    other = "micron-9550-pro-7.68tb"
    xiraid = {"level": 5, "drive": other, "drives": 4, "strip_bytes": "64KiB", "engine": "xinnor-xiraid"}
    data = {"name": "x", "platform": "supermicro-as-2125hs-tnr",
            "array": {"level": 5, "drive": DRIVE, "drives": 4, "strip_bytes": "64KiB", "engine": "xinnor-xiraid"},
            "volumes": [{"name": "a", "workload": "r", "array": xiraid}, {"name": "b", "workload": "r", "array": xiraid}],
            "workloads": [{"name": "r", "rw": "randread", "bs": "4k"}]}
    spec = parse_scenario(data, catalog)
    assert [(p["part"], p["count"]) for p in price_parts(catalog, spec)] == [
        (DRIVE, 4), (other, 8), ("xinnor-xiraid", 1), ("supermicro-as-2125hs-tnr", 1)]
    parts = setup_parts(catalog, spec)
    assert parts.drive_count == 12
    assert parts.drives_usd == pytest.approx(4 * catalog.drives[DRIVE].price_usd.value
                                             + 8 * catalog.drives[other].price_usd.value)
    assert parts.array_drives_usd == pytest.approx(4 * catalog.drives[DRIVE].price_usd.value)


def test_dollars_per_usable_tb_count_the_volumes_capacity_and_wear_the_arrays_drives(catalog):
    spec = parse_scenario(shipped("two-virtual-disks"), catalog)
    out = idle(spec, catalog)
    usable = 26.88e12 + 15.36e12  # RAID5 of 8 and RAID10 of 8 x 3.84 TB
    assert out["usd_per_usable_tb"] == pytest.approx(out["price_usd"] / (usable / 1e12))
    writes = {"write_iops": 100_000.0, "write_bytes_per_s": 409.6e6, "raid_waf": 2.0, "waf_nand": 1.0}
    loaded = cost_power(catalog, spec, capacity(spec, catalog).usable_bytes, writes)
    alone = parse_scenario({**shipped("two-virtual-disks"), "volumes": []}, catalog)
    assert loaded["wear_usd_per_year"] == pytest.approx(
        cost_power(catalog, alone, capacity(alone, catalog).usable_bytes, writes)["wear_usd_per_year"])


def test_a_raid_card_draws_for_its_processors_busy_share(catalog):
    """The card's row is labelled 'RAID card processor and parity engine (PRODUCT, RAID-on-chip)':
    its busy share raises the card's watts as a GPU's row does (it drew idle power at any load)."""
    spec = parse_scenario({**shipped("two-cards"), "volumes": []}, catalog)
    device = catalog.engines[CARD].device

    class Busy:
        def __init__(self, resource, utilisation):
            self.resource, self.utilisation = resource, utilisation

    label = "RAID card processor and parity engine (MegaRAID 9670W-16i, Broadcom SAS4116W tri-mode RAID-on-chip)"
    out = cost_power(catalog, spec, 1e12, {"read_iops": 1.0}, [Busy(label, 0.5)])
    assert out["power_engine_w"] == pytest.approx(device.power_idle_w.value
                                                  + 0.5 * (device.power_active_w.value - device.power_idle_w.value))
