"""A RAID card's costs from its datasheet (nvsim.engines.card): each derivation, the law that a card
built from its datasheet alone meets its own ceilings where the card is the bottleneck, and a SKU
completed from its family."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.engines.card import (DEFAULT_COMMAND_US, REFERENCE_DATA_MEMBERS, card_costs, complete_card)
from nvsim.specs import CardFamilySpec, EngineDeviceSpec

KIB = 1024.0


def cited(value, unit_note="test"):
    return {"value": value, "source": "nvsim-assumptions", "basis": "datasheet", "note": unit_note}


def device(**figures) -> EngineDeviceSpec:
    data = {"product": "test card", "pcie_generation": cited(4), "lanes": cited(16), "data_through_device": True}
    data.update({k: cited(v) for k, v in figures.items()})
    return EngineDeviceSpec.model_validate(data)


NONE = type("NoParameters", (), {})()


def test_the_command_processor_is_the_random_read_ceiling():
    costs = card_costs(device(max_read_iops=4_000_000), NONE)
    assert costs.command_s == pytest.approx(1 / 4e6)
    assert "random-read ceiling" in costs.why("command")


def test_without_a_read_ceiling_the_default_says_so():
    costs = card_costs(device(), NONE)
    assert costs.command_s == pytest.approx(DEFAULT_COMMAND_US * 1e-6)
    assert costs.stripe_update_s == 0 and costs.parity_s_per_kib == 0 and costs.dram_bytes_per_s is None
    assert "default" in costs.why("command") and "not a limit" in costs.why("dram")


def test_the_parity_engine_per_kib_is_the_sequential_write_ceiling_over_a_reference_stripe():
    costs = card_costs(device(max_read_iops=4e6, max_raid5_write_bytes_per_s=10e9), NONE)
    data = REFERENCE_DATA_MEMBERS
    # a full-stripe write of h host KiB moves h (data + 1) / data member KiB through the engine
    assert costs.parity_s_per_kib * (data + 1) / data == pytest.approx(KIB / 10e9)


def test_raid6_figures_stand_in_where_raid5_has_none():
    r6 = card_costs(device(max_read_iops=4e6, max_raid6_write_iops=200_000), NONE)
    assert 6 / 4e6 + r6.stripe_update_s == pytest.approx(1 / 200_000)


def test_dram_bandwidth_is_transfer_rate_times_data_bus():
    costs = card_costs(device(cache_mt_per_s=2666, cache_bus_bits=64), NONE)
    assert costs.dram_bytes_per_s == pytest.approx(2666e6 * 8)


def test_stated_parameters_win_over_the_datasheet():
    stated = type("Stated", (), {"card_command_us": 0.5, "card_stripe_op_us": 3.0, "card_stripe_op_us_per_kib": 0.1})()
    costs = card_costs(device(max_read_iops=4e6, max_raid5_write_iops=500_000, max_raid5_write_bytes_per_s=9e9), stated)
    assert (costs.command_s, costs.stripe_update_s, costs.parity_s_per_kib) == pytest.approx((0.5e-6, 3e-6, 0.1e-6))


@settings(max_examples=60, deadline=None)
@given(read=st.floats(5e5, 2e7), write_share=st.floats(0.01, 0.2), bw=st.floats(2e9, 6e10))
def test_a_card_from_its_datasheet_meets_its_own_ceilings_where_it_is_the_bottleneck(read, write_share, bw):
    """Law: the card's server time of a 4 KiB read is 1 / read ceiling, of a 4 KiB RAID5 update
    (4 commands, 16 member KiB, one stripe) 1 / write ceiling, of a full-stripe KiB on the reference
    stripe 1 / bandwidth ceiling (whenever the figures leave the update a time >= 0)."""
    write = read * write_share
    costs = card_costs(device(max_read_iops=read, max_raid5_write_iops=write, max_raid5_write_bytes_per_s=bw), NONE)
    assert costs.command_s == pytest.approx(1 / read)
    small_write_s = 4 * costs.command_s + costs.stripe_update_s + 16 * costs.parity_s_per_kib
    assert small_write_s == pytest.approx(max(1 / write, 4 / read + 16 * costs.parity_s_per_kib))
    data = REFERENCE_DATA_MEMBERS
    assert costs.parity_s_per_kib * (data + 1) / data == pytest.approx(KIB / bw)


FAMILY = CardFamilySpec.model_validate({
    "name": "test-family", "vendor": "Test", "roc": "test ROC", "generation": "1", "levels": [0, 5],
    "data_through_card": False, "firmware": {"rebuild_rate_percent": cited(30)},
    "parameters": {"card_stripe_op_us": {"value": 2.0, "source": "nvsim-assumptions", "basis": "fitted"}}})


def test_a_sku_takes_its_familys_firmware_levels_parameters_and_data_path():
    raw = complete_card({"name": "sku", "family": "test-family", "product": "p",
                         "device": {"product": "p", "pcie_generation": cited(4), "lanes": cited(8)}}, FAMILY)
    assert raw["engine_kind"] == "hardware" and raw["vendor"] == "Test" and raw["levels"] == [0, 5]
    assert raw["firmware"]["rebuild_rate_percent"]["value"] == 30
    assert raw["parameters"]["card_stripe_op_us"]["value"] == 2.0
    assert raw["device"]["data_through_device"] is False and raw["device"]["roc"] == "test ROC"


def test_a_sku_may_not_restate_its_familys_fitted_value():
    with pytest.raises(ValueError, match="parameters.card_stripe_op_us: is the family's"):
        complete_card({"name": "sku", "family": "test-family", "parameters": {"card_stripe_op_us": cited(1.0)}}, FAMILY)


def test_a_family_keeps_at_most_two_fitted_values():
    fitted = {"value": 1.0, "source": "nvsim-assumptions", "basis": "fitted"}
    with pytest.raises(ValueError, match="at most 2 fitted"):
        CardFamilySpec.model_validate({**FAMILY.model_dump(), "parameters": {
            "card_command_us": fitted, "card_stripe_op_us": fitted, "card_stripe_op_us_per_kib": fitted}})
