"""What a scenario's volumes may ask (nvsim.volumes, nvsim.topology): each volume and its workload
get the checks the scenario's own array and workload get, and what the volumes' shared solve does
not model is refused in one line naming the volume and the field, when the scenario loads."""

from __future__ import annotations

import dataclasses

import pytest

from nvsim.errors import InputError
from nvsim.scenario import parse_scenario
from nvsim.topology import engine_cards, root_lanes_needed

AMD = "asus-rs520a-e12-rs24u"  # 1x EPYC 9334: 24 bays x4, two x16 slots, 128 lanes, 64 logical CPUs
DRIVE = "kioxia-cm7-r-3.84tb"
CARD = "broadcom-megaraid-9670w-16i"  # x16, its drives on its own ports
PLAIN = {"name": "plain", "rw": "randread", "bs": "4k", "iodepth": 4, "numjobs": 2}


def md(level=0, drives=4, **more) -> dict:
    return {"level": level, "drive": DRIVE, "drives": drives, "strip_bytes": "64KiB", "engine": "linux-md", **more}


def scenario(volumes, workloads=(), array=None, platform=AMD, **more) -> dict:
    return {"name": "v", "platform": platform, "array": array or md(), "volumes": list(volumes),
            "workloads": [PLAIN, *workloads], **more}


def volume(workload="plain", array=None, card=0, name="v1") -> dict:
    return {"name": name, "workload": workload, "card": card, "array": array or md()}


def refusal(data, catalog=None) -> str:
    with pytest.raises(InputError) as info:
        parse_scenario(data, catalog)
    message = str(info.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- item 1: the volume's workload


@pytest.mark.parametrize("workload, field", [
    ({"rate_iops": 1000}, "rate_iops (a rate cap)"),
    ({"rate_iops": 1000, "rate_process": "poisson"}, "rate_iops (a rate cap with Poisson arrivals)"),
    ({"thinktime": "10ms"}, "thinktime (a think time)"),
    ({"rw": "randtrimwrite"}, "rw (a trim before each write)"),
    ({"rw": "randtrim"}, "rw (trims)"),
    ({"bs": None, "bssplit": "4k/50:1m/50"}, "bs_mix (a mix of block sizes: bssplit, bsrange or bs_mix)"),
    ({"bs": None, "bsrange": "4k-64k"}, "bs_mix (a mix of block sizes"),
    ({"latency_target": "1ms"}, "latency_target (a latency target)"),
    ({"drive_state": "fresh"}, "drive_state (fresh drives)"),
    ({"phase": "together"}, "phase (jobs that run at the same time)"),
])
def test_a_volume_workload_the_shared_solve_does_not_model_is_refused(workload, field):
    shaped = {**PLAIN, "name": "shaped", **workload}
    shaped = {k: v for k, v in shaped.items() if v is not None}
    message = refusal(scenario([volume("shaped", name="paced")], [shaped]))
    assert f"volumes[0].workload: volume 'paced' runs 'shaped', whose {field}" in message
    assert "the volumes' shared solve does not model" in message and "allowed:" in message


def test_an_oltp_workload_on_a_volume_is_refused():
    oltp = {"name": "db", "rw": "oltp", "users": 64,
            "oltp": {"profile": "sysbench-oltp-rw", "dataset_bytes": "100GiB", "buffer_pool_bytes": "8GiB"}}
    assert "volume 'v1' runs 'db', whose rw (an OLTP database)" in refusal(scenario([volume("db")], [oltp]))


def test_the_arrays_part_runs_the_first_workload_and_is_refused_alike():
    data = scenario([volume()])
    data["workloads"] = [{**PLAIN, "name": "capped", "rate_iops": 500}, PLAIN]
    message = refusal(data)
    assert message.startswith("workloads[0]: the array runs 'capped' beside the volumes, whose rate_iops (a rate cap)")


def test_the_same_workloads_load_without_volumes():
    shaped = {**PLAIN, "name": "shaped", "rate_iops": 1000, "thinktime": "1ms"}
    parse_scenario(scenario([], [shaped]))  # the array's own composite rows solve it


def test_trims_on_a_volume_that_does_not_pass_discards_are_refused_as_the_arrays_are():
    trims = {**PLAIN, "name": "trimw", "rw": "randtrimwrite"}
    message = refusal(scenario([volume("trimw", md(level=5), name="r5trim")], [trims]))
    assert message.startswith("volumes[0].workload: volume 'r5trim' runs 'trimw', whose trims (rw: randtrimwrite) "
                              "cannot be simulated on its array: md RAID 5 passes discards")
    assert "devices_handle_discard_safely" in message


def test_a_volumes_engine_settings_are_checked_against_its_engine():
    message = refusal(scenario([volume(array=md(level=5, engine_settings={"group_thread_cnt": 4, "bogus": 1}))]))
    assert message.startswith("volumes[0].array.engine_settings.bogus: unknown key")
    gpu = {"level": 5, "drive": DRIVE, "drives": 4, "strip_bytes": "64KiB", "engine": "graid-supremeraid-sr1010",
           "engine_settings": {"driver": "9.x"}}
    assert refusal(scenario([volume(array=gpu)])).startswith(
        "volumes[0].array: engine_settings.driver: graid-supremeraid-sr1010 has no driver '9.x'")


def test_a_workloads_region_must_lie_on_the_volume_it_runs_on():
    big = {**PLAIN, "name": "big", "size": "10TB"}
    data = scenario([volume("big", md(level=1, drives=2))], [big], array=md(drives=8))
    message = refusal(data)
    assert message.startswith("volumes[0].workload: volume 'v1' runs 'big': size: offset + size = 10,000,000,000,000 "
                              "bytes goes past the end of the volume")
    parse_scenario(scenario([volume("big", md(drives=4))], [big], array=md(drives=8)))  # 15.36 TB: it fits
    far = {**PLAIN, "name": "far", "offset": "5TB"}
    assert refusal(scenario([volume("far", md(level=1, drives=2))], [far], array=md(drives=8))).startswith(
        "volumes[0].workload: volume 'v1' runs 'far': offset: 5,000,000,000,000 bytes is at or past the end of the volume")


def test_the_refusal_comes_from_the_cli_as_one_line_with_status_2_and_no_output(cli, tmp_path):
    import yaml

    path = tmp_path / "v.yaml"
    path.write_text(yaml.safe_dump(scenario([volume("capped")], [{**PLAIN, "name": "capped", "rate_iops": 1000}])))
    out = tmp_path / "out.json"
    result = cli("run", str(path), "--fidelity", "fluid", "--json", "-o", str(out))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "volumes[0].workload: volume 'v1' runs 'capped'" in result.stderr
    assert not out.exists()


# ---------------------------------------------------------------- item 2: engines and cards against the platform


def test_a_volumes_engine_is_checked_against_the_platforms_cpu_maker():
    vroc = {"level": 5, "drive": DRIVE, "drives": 4, "strip_bytes": "64KiB", "engine": "intel-vroc"}
    assert refusal(scenario([volume(array=vroc)])) == (
        "volumes[0].array.engine: intel-vroc runs only on Intel CPUs; platform asus-rs520a-e12-rs24u has AMD EPYC 9334")


def card_array(drives=2) -> dict:
    return {"level": 0, "drive": DRIVE, "drives": drives, "strip_bytes": "256KiB", "engine": CARD}


def test_every_card_takes_a_slot_of_the_platform(catalog):
    two = scenario([volume(array=card_array(), card=1)], array=card_array())
    spec = parse_scenario(two)  # two x16 cards, two x16 slots
    assert engine_cards(spec, catalog) == [(CARD, 0), (CARD, 1)]
    three = scenario([volume(array=card_array(), card=1), volume(array=card_array(), card=2, name="v2")],
                     array=card_array())
    assert refusal(three) == ("volumes: the array's card and 2 cards the volumes hang from need 3 slots of x16 or "
                              "wider; asus-rs520a-e12-rs24u has 2 (slot1-x16 x16, slot2-x16 x16); allowed: at most 2 cards")
    on_md = scenario([volume(array=card_array(), card=c, name=f"v{c}") for c in (0, 1, 2)])  # md's array has no card
    assert refusal(on_md).startswith("volumes: 3 cards the volumes hang from need 3 slots")


def test_a_second_virtual_disk_on_a_card_takes_no_slot_and_no_lanes(catalog):
    one = parse_scenario(scenario([], array=card_array()))
    two = parse_scenario(scenario([volume(array=card_array(), card=0)], array=card_array()))
    assert engine_cards(two, catalog) == [(CARD, 0)]
    assert root_lanes_needed(two, catalog) == root_lanes_needed(one, catalog) == 16


def test_the_volumes_drives_and_cards_take_root_port_lanes():
    backplanes = {"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": 2}  # 48 bays: the bays do not bind
    data = scenario([volume(array=md(drives=12))], array=md(drives=24), topology=backplanes)
    assert refusal(data) == ("volumes: the array's 96 and the volumes' 48 PCIe lanes of root ports (drives in bays, "
                             "the engines' further cards) need 144; asus-rs520a-e12-rs24u has 128 (1 x 128); "
                             "allowed: fewer volumes' drives or cards")
    parse_scenario(scenario([volume(array=md(drives=8))], array=md(drives=24), topology=backplanes))  # 128: fits


def with_add_in_card(catalog):
    base = catalog.drives[DRIVE]
    aic = base.model_copy(update={"name": "aic-x8", "form_factor": "HHHL add-in card",
                                  "lanes": base.lanes.model_copy(update={"value": 8})})
    return dataclasses.replace(catalog, drives={**catalog.drives, "aic-x8": aic})


def test_the_arrays_card_needs_a_slot_its_add_in_card_drives_leave_free(catalog):
    cards = with_add_in_card(catalog)
    gpu = {"level": 1, "drive": "aic-x8", "drives": 2, "strip_bytes": "64KiB", "engine": "graid-supremeraid-sr1010"}
    message = refusal({"name": "g", "platform": AMD, "array": gpu, "topology": {"attach": "slots"}, "workloads": [PLAIN]},
                      cards)
    assert message == ("topology: the array's card needs a slot of x8 or wider; asus-rs520a-e12-rs24u has 2 "
                       "(slot1-x16 x16, slot2-x16 x16), 2 of them holding the array's add-in-card drives; allowed: a "
                       "slot left free for it (fewer add-in-card drives, or split a slot with topology.bifurcation)")
    split = {"attach": "slots", "bifurcation": {"slot1-x16": [8, 8], "slot2-x16": [8, 8]}}  # the drives: slot1's halves
    parse_scenario({"name": "g", "platform": AMD, "array": gpu, "workloads": [PLAIN], "topology": split}, cards)


def test_a_volume_of_add_in_card_drives_is_refused(catalog):
    message = refusal(scenario([volume(array=md(drives=2) | {"drive": "aic-x8"})]), with_add_in_card(catalog))
    assert message.startswith("volumes[0].array.drive: aic-x8 is an add-in card (HHHL add-in card); a volume's drives "
                              "go in the server's bays")


def test_vrocs_vmd_domain_is_in_the_cpu_not_a_card_in_a_slot(catalog):
    """VROC's catalog "device" is a VMD domain of the Xeon's root complex: it takes no slot and no
    lanes of its own (its drives' x4 links are the lanes). It was counted as a x16 card, so on a
    Dell R750 (one x16 slot) a MegaRAID volume beside a VROC array was refused ('the array's card and
    1 card the volumes hang from need 2 slots') and the array's lanes were its drives' + 16."""
    vroc = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "128KiB", "engine": "intel-vroc"}
    alone = parse_scenario({"name": "v", "platform": "dell-poweredge-r750", "array": vroc, "workloads": [PLAIN]})
    assert engine_cards(alone, catalog) == []
    assert root_lanes_needed(alone, catalog) == 8 * 4  # eight x4 drives in bays, no card
    beside = scenario([volume(array={**card_array(), "drive": "intel-d7-p5510-3.84tb"})], array=vroc,
                      platform="dell-poweredge-r750")
    spec = parse_scenario(beside)  # the R750's one x16 slot holds the MegaRAID card
    assert engine_cards(spec, catalog) == [(CARD, 0)]
    assert root_lanes_needed(spec, catalog) == 8 * 4 + 16


def test_the_volumes_on_one_gpu_card_run_its_one_driver():
    """A SupremeRAID card runs one driver: a volume on card 0 that names another driver than the
    array's was solved with both (the shared GPU at 60% busy where two 2.x volumes load it 24%)."""
    gpu = {"level": 5, "drive": DRIVE, "drives": 4, "strip_bytes": "64KiB", "engine": "graid-supremeraid-sr1010"}
    two = scenario([volume(array={**gpu, "engine_settings": {"driver": "1.x"}})],
                   array={**gpu, "engine_settings": {"driver": "2.x"}})
    assert refusal(two) == ("volumes[0].array.engine_settings.driver: card 0 of graid-supremeraid-sr1010 runs "
                            "driver 2.x (the array's); a card runs one driver; allowed: 2.x, or a card of its own "
                            "(volumes[0].card: 1)")
    default = scenario([volume(array={**gpu, "engine_settings": {"driver": "2.x"}})], array=gpu)  # the family's 1.x
    assert "card 0 of graid-supremeraid-sr1010 runs driver 1.x (the array's)" in refusal(default)
    parse_scenario(scenario([volume(array={**gpu, "engine_settings": {"driver": "2.x"}}, card=1)], array=gpu))
    parse_scenario(scenario([volume(array={**gpu, "engine_settings": {"driver": "1.x"}})], array=gpu))
