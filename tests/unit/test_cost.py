"""Cost and power (nvsim.cost): the linear power model, per-unit costs, the endurance cost, and the
seed 000 set-up's bill and idle draw from the catalog's cited prices and power figures."""

import dataclasses

import pytest
from hypothesis import given, strategies as st
from pydantic import ValidationError

import nvsim
from nvsim.bounds import capacity
from nvsim.cost import COST_POWER_COLUMNS, cost_power, drive_power_w, linear_power_w, per_unit, price_parts, wear_usd_per_year
from nvsim.specs import DriveSpec

SEED_000 = "scenarios/graid-gen5-raid6"


@given(st.floats(0, 50), st.floats(0, 100), st.floats(0, 1), st.floats(0, 1))
def test_power_is_linear_between_idle_and_active(idle, extra, a, b):
    active = idle + extra
    assert linear_power_w(idle, active, 0.0) == idle and linear_power_w(idle, active, 1.0) == pytest.approx(active)
    low, high = sorted((a, b))
    assert linear_power_w(idle, active, low) <= linear_power_w(idle, active, high) + 1e-9
    assert linear_power_w(idle, active, 2.0) == pytest.approx(active)  # a share above 1 is clipped


def test_drive_power_mixes_read_and_write_figures_by_the_write_share():
    assert drive_power_w(5, 15, 25, 1.0, 0.0) == 15 and drive_power_w(5, 15, 25, 1.0, 1.0) == 25
    assert drive_power_w(5, 15, 25, 0.5, 0.5) == pytest.approx(5 + 0.5 * (20 - 5))


def test_per_unit_costs_and_the_wear_cost():
    assert per_unit(57_600, 84.48e12, 1e12) == pytest.approx(681.818, rel=1e-5)
    assert per_unit(None, 1e6, 1e3) is None and per_unit(100, 0, 1e3) is None and per_unit(100, None, 1e3) is None
    assert wear_usd_per_year(21_600, 1.0, 1.0, 5.0) == pytest.approx(4_320)  # the rating's own pace: price / warranty
    assert wear_usd_per_year(21_600, 0.0, 1.0, 5.0) == 0 and wear_usd_per_year(None, 1.0, 1.0, 5.0) is None


@pytest.fixture(scope="module")
def seed000(catalog):
    spec = nvsim.load_scenario(SEED_000, catalog)
    return spec, capacity(spec, catalog).usable_bytes


def test_seed_000_bill_and_idle_power_come_from_the_catalog(catalog, seed000):
    spec, usable = seed000
    idle = cost_power(catalog, spec, usable, None)
    drive, engine, platform = (catalog.drives[spec.array.drive], catalog.engines[spec.array.engine],
                               catalog.platforms[spec.platform])
    total = 24 * drive.price_usd.value + engine.price_usd.value + platform.price_usd.value
    assert idle["price_usd"] == pytest.approx(total) and idle["price_missing"] == ""
    assert idle["usd_per_usable_tb"] == pytest.approx(total / 84.48)
    assert idle["power_w"] == pytest.approx(24 * drive.power_idle_w.value + engine.device.power_idle_w.value
                                            + platform.power_idle_w.value)
    assert set(idle) == set(COST_POWER_COLUMNS)
    assert [p["part"] for p in price_parts(catalog, spec)] == [drive.name, engine.name, platform.name]


def test_load_raises_power_and_writes_cost_endurance(catalog, seed000):
    spec, usable = seed000
    idle = cost_power(catalog, spec, usable, None)["power_w"]
    by_name = {}
    for w in spec.workloads:
        result = nvsim.Simulation(spec, w, catalog=catalog).run("fluid")
        by_name[w.name] = cost_power(catalog, spec, usable, result.metrics(), result.utilisation)
    read, write = by_name["randread-b4k-j192-d32"], by_name["randwrite-b4k-j192-d16"]
    assert idle < read["power_w"] and idle < write["power_w"]
    assert read["power_engine_w"] == pytest.approx(catalog.engines[spec.array.engine].device.power_active_w.value)  # GPU at 100%
    assert read["effective_dwpd"] == 0 and read["wear_usd_per_year"] == 0
    assert write["effective_dwpd"] > write["rated_dwpd"] and write["drive_lifetime_years"] < 5
    assert read["usd_per_kiops"] < write["usd_per_kiops"]  # the same money buys 28M read IOPS, 1.5M writes


def test_a_part_without_a_price_leaves_the_total_unknown_and_named(catalog, seed000):
    spec, usable = seed000
    engine = catalog.engines[spec.array.engine]
    unpriced = engine.model_copy(update={"price_usd": None, "price_date": None, "price_kind": None})
    out = cost_power(dataclasses.replace(catalog, engines={**catalog.engines, engine.name: unpriced}), spec, usable, None)
    assert out["price_usd"] is None and out["usd_per_usable_tb"] is None and out["price_missing"] == engine.name


def test_the_topologys_switches_are_on_the_bill(catalog):
    spec = nvsim.load_scenario("scenarios/switch-uplink-gen5", catalog)
    switch, count = catalog.switches[spec.topology.switches.model], spec.topology.switches.count
    plain = spec.model_copy(update={"topology": None})
    usable = capacity(spec, catalog).usable_bytes
    behind, direct = cost_power(catalog, spec, usable, None), cost_power(catalog, plain, usable, None)
    assert behind["price_switches_usd"] == pytest.approx(count * switch.price_usd.value) and direct["price_switches_usd"] == 0
    assert behind["price_usd"] - direct["price_usd"] == pytest.approx(count * switch.price_usd.value)
    assert behind["power_w"] - direct["power_w"] == pytest.approx(count * switch.power_w.value)
    assert [p["part"] for p in price_parts(catalog, spec)][-1] == switch.name


def test_a_price_needs_its_date_and_kind(catalog):
    data = catalog.drives["kioxia-cm7-r-3.84tb"].model_dump(mode="json")
    data.pop("price_date")
    with pytest.raises(ValidationError, match="price_date"):
        DriveSpec.model_validate(data)
    data["price_date"] = "June 2024"
    with pytest.raises(ValidationError):
        DriveSpec.model_validate(data)


def test_every_price_and_power_figure_in_the_catalog_is_cited(catalog):
    for section, entry in catalog.entries():
        for field in ("price_usd", "power_idle_w", "power_active_w", "power_active_read_w", "power_active_write_w", "power_w"):
            cited = getattr(entry, field, None)
            if cited is not None:
                assert cited.source in catalog.bibliography and cited.note, (entry.name, field)
                assert cited.basis != "assumed" or cited.note, (entry.name, field)
