"""Hot spares are drives everywhere (issue 34): each one takes a bay (or slot, switch port and
root-port lanes) when a scenario loads, is bought and draws idle power in ``nvsim.cost``, and
counts in the plan's bay filters, price and idle power. The oracle is a hand count: one spare more
adds exactly one drive's catalog price and idle watts, and one bay. (tests/unit/test_oracles_hot_spares.py
holds the mutation run's own checks of the bill and the plan's bays.)"""

from __future__ import annotations

import numpy as np
import pytest

from nvsim.array_capacity import capacity
from nvsim.catalog import default_catalog
from nvsim.cost import cost_power, price_parts
from nvsim.errors import InputError
from nvsim.plan.fluid import scenario_data
from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, idle_power_w, price_usd, resolve_axes
from nvsim.plan.spec import PlanSpec
from nvsim.scenario import parse_scenario
from nvsim.specs import WorkloadSpec

CATALOG = default_catalog()
PLATFORM = "supermicro-as-2125hs-tnr"  # 24 bays x4, 2 x 64 root-port lanes
DRIVE = "kioxia-cm7-r-3.84tb"
BACKPLANES = {"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": 2}  # 48 bays


def scenario(drives=8, spares=0, topology=None):
    data = {"name": "spares", "platform": PLATFORM,
            "array": {"level": 6, "drive": DRIVE, "drives": drives, "strip_bytes": "64KiB", "engine": "linux-md",
                      "hot_spares": spares},
            "workloads": [{"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 8, "numjobs": 4}]}
    if topology is not None:
        data["topology"] = topology
    return data


def refusal(data) -> str:
    with pytest.raises(InputError) as info:
        parse_scenario(data, CATALOG)
    message = str(info.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------ the scenario validator

def test_hot_spares_over_the_bays_are_refused_in_one_line_naming_array_hot_spares_and_the_bays():
    assert parse_scenario(scenario(23, 1), CATALOG).array.hot_spares == 1  # 24 drives in 24 bays
    message = refusal(scenario(24, 1))
    assert message.startswith("array.hot_spares: 24 drives and 1 hot spares need 25 bays; supermicro-as-2125hs-tnr has 24")
    assert "at most 0 hot spares" in message
    assert "8 drives and 17 hot spares need 25 bays" in refusal(scenario(8, 17))
    parse_scenario(scenario(8, 16), CATALOG)  # 8 + 16 = 24: fits


def test_hot_spares_take_root_port_lanes():
    # 2 x 24 bays: 32 drives + 1 spare fit the bays, but 33 x4 links are 132 lanes of the platform's 128
    parse_scenario(scenario(32, 0, BACKPLANES), CATALOG)
    message = refusal(scenario(32, 1, BACKPLANES))
    assert "need 132 PCIe lanes of root ports" in message and "1 hot spares included" in message


def test_hot_spares_take_switch_ports_and_lanes():
    # a PEX89144 has 144 lanes: 32 drives x4 and a x16 uplink fill it; a spare behind it is 4 lanes more
    switched = dict(BACKPLANES, switches={"model": "broadcom-pex89144"})
    parse_scenario(scenario(32, 0, switched), CATALOG)
    message = refusal(scenario(32, 1, switched))
    assert message.startswith("topology.switches: 33 drives x4 (hot spares included: 1) and a x16 uplink need 148 lanes")


# ------------------------------------------------------------------ cost.py: price and power

def _bill(spares: int, metrics: dict | None) -> dict:
    spec = parse_scenario(scenario(8, spares), CATALOG)
    return cost_power(CATALOG, spec, capacity(spec, CATALOG).usable_bytes, metrics)


@pytest.mark.parametrize("metrics", [None, {"read_iops": 2.0e6, "read_bytes_per_s": 8.2e9, "cpu_percent": 30.0,
                                            "total_iops": 2.0e6}], ids=["idle", "loaded"])
def test_a_hot_spare_adds_one_drives_price_and_idle_power(metrics):
    drive = CATALOG.drives[DRIVE]
    none, one, two = (_bill(s, metrics) for s in (0, 1, 2))
    for key in ("price_usd", "price_drives_usd"):
        assert one[key] - none[key] == pytest.approx(drive.price_usd.value)
        assert two[key] - none[key] == pytest.approx(2 * drive.price_usd.value)
    for key in ("power_w", "power_drives_w"):  # a spare idles whatever the members do
        assert one[key] - none[key] == pytest.approx(drive.power_idle_w.value)
        assert two[key] - none[key] == pytest.approx(2 * drive.power_idle_w.value)
    assert one["usd_per_usable_tb"] > none["usd_per_usable_tb"]  # same usable bytes, one drive more paid for


def test_the_bill_of_parts_lists_members_and_spares_as_drives():
    spec = parse_scenario(scenario(8, 3), CATALOG)
    parts = {p["part"]: p["count"] for p in price_parts(CATALOG, spec)}
    assert parts[DRIVE] == 11


# ------------------------------------------------------------------ the plan: bays, price, idle power

def _plan(counts, spares, **requirements):
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "1 TB", **requirements},
        "search": {"platforms": [PLATFORM], "drives": [DRIVE], "engines": ["linux-md"], "drive_counts": counts,
                   "levels": [6], "strips_bytes": ["64KiB"], "hot_spares": spares}})
    cands = enumerate_candidates(resolve_axes(spec, CATALOG), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, CATALOG, verdicts)
    rows = {(cands.row(i)["drives"], cands.row(i)["hot_spares"]): i for i in range(len(cands))}
    return cands, verdicts, rows


def test_the_plans_bay_filter_counts_hot_spares():
    _cands, verdicts, rows = _plan([23, 24], [0, 1])
    assert verdicts.stage[rows[23, 1]] == 0 and verdicts.stage[rows[24, 0]] == 0
    i = rows[24, 1]
    assert verdicts.stage[i] == 1 and verdicts.labels[verdicts.requirement[i]] == "drive bays"
    assert (verdicts.achieved[i], verdicts.target[i]) == (25, 24)


def test_the_plans_max_bays_counts_hot_spares():
    _cands, verdicts, rows = _plan([8], [0, 1], max_bays=8)
    assert verdicts.stage[rows[8, 0]] == 0
    assert verdicts.labels[verdicts.requirement[rows[8, 1]]] == "max_bays"


def test_the_plans_price_and_idle_power_add_one_drive_per_hot_spare():
    drive = CATALOG.drives[DRIVE]
    cands, _verdicts, rows = _plan([8, 12], [0, 1, 3])
    price, idle = price_usd(cands, CATALOG), idle_power_w(cands, CATALOG)
    for n in (8, 12):
        for spares in (1, 3):
            assert price[rows[n, spares]] - price[rows[n, 0]] == pytest.approx(spares * drive.price_usd.value)
            assert idle[rows[n, spares]] - idle[rows[n, 0]] == pytest.approx(spares * drive.power_idle_w.value)
    assert np.array_equal(cands.columns["price_usd"], price)


def test_the_plans_price_is_the_price_of_the_scenario_it_writes():
    """The plan and ``nvsim.cost`` price a candidate with spares alike: the scenario the plan writes
    for it costs what the plan ranked it at, and idles at the plan's idle watts."""
    cands, _verdicts, rows = _plan([8], [0, 2])
    workloads = [WorkloadSpec(name="rr", rw="randread")]
    for key in ((8, 0), (8, 2)):
        i = rows[key]
        spec = parse_scenario(scenario_data(cands.row(i), workloads, 1, "x"), CATALOG)
        bill = cost_power(CATALOG, spec, capacity(spec, CATALOG).usable_bytes, None)
        assert bill["price_usd"] == pytest.approx(cands.columns["price_usd"][i])
        assert bill["power_w"] == pytest.approx(cands.columns["idle_power_w"][i])
