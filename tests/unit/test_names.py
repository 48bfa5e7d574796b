"""Product names (nvsim.names): what a customer reads for every engine, drive and server of the
catalog; no doubled parentheses, a size's unit said once, never a catalog slug (issue 40)."""

from __future__ import annotations

import re

import pytest

from nvsim import default_catalog
from nvsim.names import device_name, drive_name, engine_name, platform_name, product_name, size_text

CATALOG = default_catalog()
ALL = [(section, name) for section in ("engines", "drives", "platforms") for name in sorted(getattr(CATALOG, section))]


@pytest.mark.parametrize(("section", "name"), ALL)
def test_every_catalog_entry_has_a_clean_product_name(section, name):
    text = product_name(CATALOG, section, name)
    assert text and text != name and "\n" not in text
    assert not re.search(r"\([^)]*\(", text), f"doubled parentheses: {text}"
    assert not re.search(r"\b(TB|GB|TiB) \1\b", text), f"a unit twice: {text}"
    assert not re.search(r"[:;]", text)


def test_names_as_the_catalog_gives_them():
    assert engine_name(CATALOG.engines["graid-supremeraid-sr1010"]) == "Graid Technology SupremeRAID SR-1010"
    assert engine_name(CATALOG.engines["broadcom-megaraid-9560-16i"]) == "Broadcom MegaRAID 9560-16i"  # the card's own name
    assert engine_name(CATALOG.engines["intel-vroc"]).startswith("Intel Virtual RAID on CPU (VROC)")  # a one-word parenthesis stays
    assert engine_name(CATALOG.engines["none"]) == "No RAID"  # no vendor "-"
    assert drive_name(CATALOG.drives["kioxia-cd6-r-15.36tb"]) == "KIOXIA CD6-R 15.36 TB"
    assert platform_name(CATALOG.platforms["dell-poweredge-r750"]).startswith("Dell PowerEdge R750")
    assert device_name("NVIDIA RTX 2000 Ada (GPU-NVQRTX2000-ADA)") == "NVIDIA RTX 2000 Ada"


def test_an_unknown_name_is_itself_and_sizes_read_back_exactly():
    assert product_name(CATALOG, "engines", "my-own-engine") == "my-own-engine"
    assert size_text(15_360_000_000_000) == "15.36 TB" and size_text(6_400_000_000_000) == "6.4 TB"


def test_resource_labels_use_product_names():
    """The GPU's and the drives' labels in a bottleneck sentence (nvsim.fabric through sim/model)."""
    from nvsim import Simulation, load_scenario
    from pathlib import Path

    spec = load_scenario(Path(__file__).resolve().parents[2] / "scenarios/graid-gen5-raid6", CATALOG)
    labels = [u.resource for u in Simulation(spec, spec.workloads[0], catalog=CATALOG).run("fluid").utilisation]
    assert "GPU (NVIDIA RTX 2000 Ada)" in labels
    assert any(label.startswith("drive NAND (KIOXIA CM7-R 3.84 TB") for label in labels)
    assert not any("kioxia-cm7-r-3.84tb" in label or "graid-supremeraid" in label for label in labels)


def test_a_gpu_cards_driver_is_named_beside_it_in_the_run_and_the_report():
    """Two set-ups of one GPU card that differ only in the driver predict differently (its write
    data path and factors), so `nvsim run`'s set-up line and the report's "RAID engine" name the
    driver, the family's default where the scenario names none; an engine with no such choice
    keeps its bare product name. Both printed "Graid Technology SupremeRAID SR-1010" for either."""
    from rich.console import Console

    from dashboard.report import setup_rows
    from nvsim.bounds import array_bounds
    from nvsim.names import engine_label
    from nvsim.report import print_bounds
    from nvsim.scenario import parse_scenario

    card = "graid-supremeraid-sr1010"
    assert engine_label(CATALOG, card, {"driver": "2.x"}) == "Graid Technology SupremeRAID SR-1010 (driver 2.x)"
    assert engine_label(CATALOG, card, None) == "Graid Technology SupremeRAID SR-1010 (driver 1.x)"  # the default
    assert engine_label(CATALOG, "xinnor-xiraid", {"recon_prio": 50}) == product_name(CATALOG, "engines", "xinnor-xiraid")
    for driver in ("1.x", "2.x"):
        data = {"name": "t", "platform": "asus-rs520a-e12-rs24u",
                "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": "64KiB",
                          "engine": card, "engine_settings": {"driver": driver}},
                "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}]}
        spec = parse_scenario(data, CATALOG)
        console = Console(record=True, width=300)
        print_bounds(console, spec, array_bounds(spec, CATALOG), CATALOG)
        assert f"engine Graid Technology SupremeRAID SR-1010 (driver {driver})," in console.export_text()
        data["array"]["strip_bytes"] = 65536  # a record holds the parsed scenario's bytes
        record = {"scenario": data, "capacity": {"usable_bytes": 1, "raw_bytes": 1, "member_bytes": 1, "efficiency": 1.0}}
        assert ("RAID engine", f"Graid Technology SupremeRAID SR-1010 (driver {driver})") in setup_rows(record, CATALOG)


def test_md_is_named_with_its_kernel_and_mdadm_in_the_run_and_the_report():
    """md on kernel 5.10 and 6.6 predicts 3.03M and 6.06M 4K random read IOPS on 24 drives (the
    aligned read's device_lock before 5.14), and mdadm's version chooses its bitmap; `nvsim run`'s
    set-up line and the report's "RAID engine" printed "Linux kernel md (mdadm)" for both."""
    from dashboard.report import setup_rows

    assert engine_label_of("linux-md", None) == "Linux kernel md (mdadm) (kernel 6.6, mdadm 4.3)"  # the defaults
    assert engine_label_of("linux-md", {"kernel": "5.10", "mdadm": "4.4"}) == "Linux kernel md (mdadm) (kernel 5.10, mdadm 4.4)"
    data = {"name": "t", "platform": "supermicro-as-2125hs-tnr",
            "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": 4096, "engine": "linux-md",
                      "engine_settings": {"kernel": "5.10"}}}
    record = {"scenario": data, "capacity": {"usable_bytes": 1, "raw_bytes": 1, "member_bytes": 1, "efficiency": 1.0}}
    assert ("RAID engine", "Linux kernel md (mdadm) (kernel 5.10, mdadm 4.3)") in setup_rows(record, CATALOG)


def test_a_card_passing_its_drives_through_is_named_with_its_familys_word_for_it():
    """A card's pass-through (MegaRAID JBOD, Microchip HBA: ``firmware.passthrough_modes``, which
    nothing read) printed the bare card name: `nvsim run`'s set-up line read 'no RAID (drives used
    directly), engine Broadcom MegaRAID 9670W-16i', the report's "RAID engine" the same."""
    from dashboard.report import setup_rows

    assert engine_label_of("broadcom-megaraid-9670w-16i", {"mode": "passthrough"}) == \
        "Broadcom MegaRAID 9670W-16i (JBOD pass-through)"
    assert engine_label_of("microchip-smartraid-4300", {"mode": "passthrough"}).endswith("(HBA pass-through)")
    assert engine_label_of("broadcom-megaraid-9670w-16i", {"mode": "raid"}) == "Broadcom MegaRAID 9670W-16i"
    assert engine_label_of("broadcom-megaraid-9670w-16i", None) == "Broadcom MegaRAID 9670W-16i"
    data = {"name": "t", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 16, "strip_bytes": 262144,
                      "engine": "broadcom-megaraid-9670w-16i", "engine_settings": {"mode": "passthrough"}}}
    record = {"scenario": data, "capacity": {"usable_bytes": 1, "raw_bytes": 1, "member_bytes": 1, "efficiency": 1.0}}
    assert ("RAID engine", "Broadcom MegaRAID 9670W-16i (JBOD pass-through)") in setup_rows(record, CATALOG)


def engine_label_of(engine: str, settings: dict | None) -> str:
    from nvsim.names import engine_label
    return engine_label(CATALOG, engine, settings)
