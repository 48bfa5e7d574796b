"""Every topology field a scenario accepts changes what is modelled (issue 34): a field that would
change nothing where it is given is refused in one line naming it, not silently ignored."""

from __future__ import annotations

import dataclasses

import pytest

from nvsim.catalog import Catalog, default_catalog
from nvsim.errors import InputError
from nvsim.links import drive_link
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()
AMD, INTEL = "supermicro-as-2125hs-tnr", "dell-poweredge-r750"


def scenario(topology, drive="kioxia-cm7-r-3.84tb", drives=2, engine="linux-md", level=1, platform=AMD):
    return {"name": "t", "platform": platform, "topology": topology,
            "array": {"level": level, "drive": drive, "drives": drives, "strip_bytes": "64KiB", "engine": engine},
            "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}]}


def refusal(data, catalog: Catalog = CATALOG) -> str:
    with pytest.raises(InputError) as info:
        parse_scenario(data, catalog)
    message = str(info.value)
    assert "\n" not in message
    return message


def with_card(catalog: Catalog) -> Catalog:
    """The catalog with an x8 add-in-card copy of the CM7-R."""
    base = catalog.drives["kioxia-cm7-r-3.84tb"]
    card = base.model_copy(update={"name": "aic-x8", "form_factor": "HHHL add-in card",
                                   "lanes": base.lanes.model_copy(update={"value": 8})})
    return dataclasses.replace(catalog, drives={**catalog.drives, "aic-x8": card})


def test_a_bifurcation_with_no_drive_in_a_slot_is_refused():
    message = refusal(scenario({"bifurcation": {"slot1-x16": [8, 8]}}))
    assert message.startswith("topology.bifurcation: splits a slot into links for add-in cards, and with attach: bays")
    cards = with_card(CATALOG)  # where cards are in the slots, it splits a slot into links: 3 cards fit 2 slots
    assert "3 add-in cards need 3 slot links" in refusal(scenario({"attach": "slots"}, drive="aic-x8", drives=3), cards)
    parse_scenario(scenario({"attach": "slots", "bifurcation": {"slot1-x16": [8, 8]}}, drive="aic-x8", drives=3), cards)


def test_bay_drives_do_not_go_in_slots():
    message = refusal(scenario({"attach": "slots"}))
    assert message.startswith("topology.attach: slots take add-in cards; kioxia-cm7-r-3.84tb is 2.5-inch U.2/U.3")
    cards = with_card(CATALOG)
    spec = parse_scenario(scenario({"attach": "slots"}, drive="aic-x8"), cards)
    assert drive_link(cards.drives["aic-x8"], cards.platforms[AMD], cards, spec.topology, 2).lanes == 8


def test_a_backplane_under_add_in_cards_is_refused():
    message = refusal(scenario({"attach": "slots", "backplane": "supermicro-2u-24x-nvme-gen5"}, drive="aic-x8"),
                      with_card(CATALOG))
    assert message.startswith("topology.backplane: add-in cards (attach: slots) hang in slots")


def test_a_count_of_backplanes_none_of_which_is_named_is_refused():
    assert refusal(scenario({"backplanes": 2})).startswith("topology.backplanes: counts the backplane topology.backplane names")
    # named, the count is bays: 25 drives fit two 24-bay backplanes and not the platform's 24 bays
    parse_scenario(scenario({"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": 2}, drives=25, level=0), CATALOG)
    assert "25 drives do not fit the 24 bays" in refusal(scenario({}, drives=25, level=0))


def test_vmd_under_an_engine_without_a_vmd_model_is_refused():
    message = refusal(scenario({"vmd": True}, platform=INTEL))
    assert message.startswith("topology.vmd: nvsim models a VMD domain only under a vroc engine")
    assert "linux-md" in message
    parse_scenario(scenario({"vmd": True}, platform=INTEL, engine="intel-vroc", drives=4, level=5), CATALOG)
    # on AMD the CPU is refused first, whatever the engine
    assert "VMD is a feature of Intel Xeon CPUs" in refusal(scenario({"vmd": True}))
