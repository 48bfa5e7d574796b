"""Platform topology (issue 20): where drives hang, what fits, the links and latencies it gives them."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.catalog import Catalog
from nvsim.errors import InputError
from nvsim.links import drive_link, switch_bytes_per_s, switch_uplink
from nvsim.pcie import NVME_READ_TRAVERSALS, NVME_WRITE_TRAVERSALS
from nvsim.scenario import parse_scenario
from nvsim.sim.drive import drive_timing
from nvsim.sim.model import build
from nvsim.topology import drive_attachment, drives_per_switch, placement_error, slot_links

PLATFORM = "supermicro-as-2125hs-tnr"  # 24 bays x4, 2 x16 Gen5 slots, 2 x 64 lanes
RR = {"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 8, "numjobs": 4}


def scenario(drives=8, topology=None, drive="kioxia-cm7-r-3.84tb", engine="linux-md", level=0, platform=PLATFORM):
    data = {"name": "t", "platform": platform, "array": {"level": level, "drive": drive, "drives": drives,
                                                        "strip_bytes": "64KiB", "engine": engine}, "workloads": [RR]}
    if topology is not None:
        data["topology"] = topology
    return data


def with_card_drive(catalog: Catalog, lanes: int) -> Catalog:
    """The catalog with an add-in-card copy of the CM7-R (HHHL, x``lanes``, Gen5)."""
    base = catalog.drives["kioxia-cm7-r-3.84tb"]
    card = base.model_copy(update={"name": "aic-x", "form_factor": "HHHL add-in card",
                                   "lanes": base.lanes.model_copy(update={"value": lanes})})
    return dataclasses.replace(catalog, drives={**catalog.drives, "aic-x": card})


def error_of(data, catalog) -> str:
    with pytest.raises(InputError) as info:
        parse_scenario(data, catalog)
    return str(info.value)


def test_more_drives_than_bays_is_one_line(catalog):
    message = error_of(scenario(drives=25), catalog)
    assert "array.drives: 25 drives do not fit the 24 bays of supermicro-as-2125hs-tnr" in message and "\n" not in message
    # two backplanes of 24 bays take them
    parse_scenario(scenario(drives=25, topology={"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": 2}), catalog)


def test_a_x16_card_in_a_x8_slot_is_refused_and_a_x8_card_keeps_its_x8_link(catalog):
    cards = with_card_drive(catalog, 16)
    message = error_of(scenario(drives=2, drive="aic-x", topology={"attach": "slots", "bifurcation": {"slot1-x16": [8, 8]}}),
                       cards)
    assert "is a x16 card and slot slot1-x16 gives it x8" in message
    eights = with_card_drive(catalog, 8)
    spec = parse_scenario(scenario(drives=2, drive="aic-x", topology={"attach": "slots"}), eights)
    link = drive_link(eights.drives["aic-x"], eights.platforms[PLATFORM], eights, spec.topology, 2)
    assert link.lanes == 8  # not cut to a bay's x4
    assert "add-in card" in error_of(scenario(drives=2, drive="aic-x"), eights)  # a card is not a bay drive


def test_root_port_lanes_beyond_the_platform_are_refused(catalog):
    message = error_of(scenario(topology={"switches": {"model": "broadcom-pex89104", "count": 9}}), catalog)
    assert "need 144 PCIe lanes of root ports; supermicro-as-2125hs-tnr has 128" in message
    assert "topology: the switches' uplinks need" in message and message.endswith("fewer switches or narrower uplinks (topology.switches)")


def test_the_root_port_message_names_no_card_for_an_engine_without_one(catalog):
    """md has no card: its message named 'the engine's card' (a card's lanes are named where
    ``engine_cards`` counts them)."""
    md = error_of(scenario(engine="linux-md", topology={"switches": {"model": "broadcom-pex89104", "count": 9}}), catalog)
    assert "the engine's card" not in md and "the switches' uplinks need 144" in md


def test_switch_ports_and_lanes_are_checked(catalog):
    message = error_of(scenario(drives=24, topology={"switches": {"model": "broadcom-pex89104"}}), catalog)
    assert "24 drives x4 and a x16 uplink need 112 lanes of one broadcom-pex89104; it has 104" in message
    parse_scenario(scenario(drives=24, topology={"switches": {"model": "broadcom-pex89104", "count": 2}}), catalog)


def test_vmd_needs_an_intel_cpu_and_vroc_needs_vmd(catalog):
    assert "VMD is a feature of Intel Xeon CPUs" in error_of(scenario(topology={"vmd": True}), catalog)
    intel = "dell-poweredge-r750"
    vroc = scenario(level=5, engine="intel-vroc", platform=intel, topology={})
    assert "set topology.vmd: true" in error_of(vroc, catalog)
    parse_scenario(scenario(level=5, engine="intel-vroc", platform=intel, topology={"vmd": True}), catalog)


def test_without_a_topology_a_drive_keeps_its_bay_link(catalog):
    drive, platform = catalog.drives["kioxia-cm7-r-3.84tb"], catalog.platforms[PLATFORM]
    assert drive_attachment(None, platform, drive, 8, catalog).switches == 0
    spec = parse_scenario(scenario(), catalog)
    model = build(spec, spec.workloads[0], catalog)
    assert model.drive is drive_timing(catalog, "kioxia-cm7-r-3.84tb", None, PLATFORM)
    assert model.switch_uplink is None and model.facts.uplink is None


def test_a_switch_and_retimer_add_their_latency_on_every_trip(catalog):
    topo = {"switches": {"model": "broadcom-pex89104"}, "retimer": "astera-aries-pt5161l"}
    spec = parse_scenario(scenario(topology=topo), catalog)
    direct = parse_scenario(scenario(), catalog)
    model, plain = build(spec, spec.workloads[0], catalog), build(direct, direct.workloads[0], catalog)
    one_way_s = (115 + 10) * 1e-9
    assert model.drive.read_fixed_s - plain.drive.read_fixed_s == pytest.approx(NVME_READ_TRAVERSALS * one_way_s)
    assert model.drive.write_fixed_s - plain.drive.write_fixed_s == pytest.approx(NVME_WRITE_TRAVERSALS * one_way_s)


def test_the_uplink_is_timed_as_its_own_link(catalog):
    spec = parse_scenario(scenario(drives=24, topology={"switches": {"model": "broadcom-pex89104", "count": 2,
                                                                     "uplink_lanes": 8}}), catalog)
    model = build(spec, spec.workloads[0], catalog)
    path = drive_attachment(spec.topology, catalog.platforms[PLATFORM], catalog.drives[spec.array.drive], 24, catalog)
    uplink = switch_uplink(catalog.platforms[PLATFORM], catalog, path)
    assert uplink.lanes == 8 and model.facts.uplinks == 2
    assert model.switch_uplink.link == uplink and model.switch_uplink.bytes_per_s == switch_bytes_per_s(uplink, path)
    _, down = uplink.nvme_io_load(4096, False)
    assert model.switch_uplink.data_s(4096, True) == pytest.approx(down / switch_bytes_per_s(uplink, path))
    # about half a x4 drive link's time on a x8 uplink of the same generation (its own DLLPs)
    assert model.switch_uplink.data_s(131072, False) == pytest.approx(model.drive.link_s(131072, True) / 2, rel=0.02)


@given(drives=st.integers(1, 300), switches=st.integers(1, 64))
def test_drives_spread_evenly_over_switches(drives, switches):
    split = drives_per_switch(drives, switches)
    assert sum(split) == drives and max(split) - min(split) <= 1 and len(split) == switches


@settings(deadline=None, max_examples=60)
@given(drives=st.integers(1, 40), count=st.integers(1, 10), lanes=st.sampled_from([4, 8, 16]),
       backplanes=st.integers(1, 2))
def test_an_accepted_placement_fits_its_platform(catalog, drives, count, lanes, backplanes):
    """Whatever the loader accepts fits: drives within bays, drives and uplinks within each switch's
    ports and lanes, uplinks within the root ports' lanes; whatever it refuses says why in one line."""
    data = scenario(drives=drives, topology={"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": backplanes,
                                             "switches": {"model": "broadcom-pex89104", "count": count,
                                                          "uplink_lanes": lanes}})
    try:
        parse_scenario(data, catalog)
    except InputError as error:
        assert "\n" not in str(error)
        return
    assert drives <= 24 * backplanes and count * lanes <= 128
    most = max(drives_per_switch(drives, count))
    assert most + 1 <= 52 and most * 4 + lanes <= 104


def test_bifurcation_splits_a_slot_into_links(catalog):
    slots = catalog.platforms[PLATFORM].slots
    links = slot_links(slots, {"slot1-x16": (4, 4, 4, 4)})
    assert [link.lanes for link in links] == [16, 4, 4, 4, 4]
    assert placement_error(parse_scenario(scenario(), catalog), catalog) is None


def test_a_hardware_raid_cards_drives_do_not_hang_behind_a_switch(catalog):
    data = scenario(level=5, engine="broadcom-megaraid-9560-16i", topology={"switches": {"model": "broadcom-pex89104"}})
    assert "hang from the card's own ports" in error_of(data, catalog)


def test_every_topology_refusal_says_what_is_allowed(catalog):
    """Each refusal is one line naming the field and what is allowed: the switch's lanes, a
    card's drives behind a switch, add-in cards beyond the slot links, a backplane's form factor
    and VMD on an AMD CPU said what was wrong only."""
    cards = with_card_drive(catalog, 8)
    refused = [
        (scenario(drives=24, topology={"switches": {"model": "broadcom-pex89104"}}), catalog,
         "allowed: more switches (topology.switches.count) or a narrower uplink (topology.switches.uplink_lanes)"),
        (scenario(drives=8, level=5, engine="broadcom-megaraid-9670w-16i",
                  topology={"switches": {"model": "broadcom-pex89104"}}), catalog,
         "allowed: no topology.switches under"),
        (scenario(drives=3, drive="aic-x", topology={"attach": "slots"}), cards,
         "allowed: at most 2 add-in cards, or split a slot (topology.bifurcation)"),
        (scenario(topology={"backplane": "e3s-16x-gen5"}), catalog, "allowed: drives of form factor"),
        (scenario(topology={"vmd": True}), catalog, "allowed: vmd: false, or an Intel Xeon platform"),
    ]
    for data, cat, allowed in refused:
        message = error_of(data, cat)
        assert allowed in message and "\n" not in message, message


def test_a_switch_uplink_carries_its_own_link_arithmetic(catalog):
    """The uplink is a link of its own: its Acks and UpdateFCs follow its width's cadence (a x16
    link acknowledges a stream of TLPs less often per byte than a x4 one), so 128 KiB writes and
    reads through one x16 Gen5 uplink reach the uplink's own NVMe data rate, not four drive
    links' (whose DLLPs, on writes, cost 1.1% more)."""
    from nvsim.sim.fluid import simulate_fluid
    from nvsim.sim.system import ArraySystem

    for rw in ("write", "read"):
        data = scenario(drives=16, topology={"switches": {"model": "broadcom-pex89104", "count": 1, "uplink_lanes": 16}})
        data["array"]["strip_bytes"] = "128KiB"
        data["workloads"] = [{"name": rw, "rw": rw, "bs": "128k", "iodepth": 32, "numjobs": 16}]
        spec = parse_scenario(data, catalog)
        path = drive_attachment(spec.topology, catalog.platforms[PLATFORM], catalog.drives[spec.array.drive], 16, catalog)
        uplink = switch_uplink(catalog.platforms[PLATFORM], catalog, path)
        result = simulate_fluid(ArraySystem(spec, spec.workloads[0], catalog))
        got = result.write_bytes_per_s if rw == "write" else result.read_bytes_per_s
        assert got == pytest.approx(uplink.nvme_data_bytes_per_s(131072, rw == "read"), rel=1e-3), rw
