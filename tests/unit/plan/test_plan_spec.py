"""The plan's search axes at their boundaries (nvsim.plan.spec): a strip is a whole number of 4 KiB
pages (md's chunk and every card's strip), a drive count 2 to 256 (the scenario's own limits)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from nvsim.plan.spec import PlanSpec


def _spec(**search) -> PlanSpec:
    return PlanSpec.model_validate({
        "requirements": {"usable_bytes": "10 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], **search},
        "objective": "usd_per_usable_tb"})


@pytest.mark.parametrize("strip, ok", [("4KiB", True), ("64KiB", True), ("1MiB", True), ("6KiB", False),
                                       ("5KiB", False), ("512B", False), ("4100B", False)])
def test_a_strip_is_a_whole_number_of_4k_pages(strip, ok):
    if ok:
        assert _spec(strips_bytes=[strip]).search.strips_bytes[0] % 4096 == 0
    else:
        with pytest.raises(ValidationError, match="multiple of 4 KiB"):
            _spec(strips_bytes=[strip])


@pytest.mark.parametrize("count, ok", [(2, True), (256, True), (1, False), (257, False)])
def test_drive_counts_are_2_to_256(count, ok):
    if ok:
        assert _spec(drive_counts=[count]).search.drive_counts == (count,)
    else:
        with pytest.raises(ValidationError, match="2 to 256"):
            _spec(drive_counts=[count])


@pytest.mark.parametrize("search, message", [
    ({"drive_counts": [True, 8]}, "must be numbers, got true among them"),
    ({"hot_spares": [False]}, "must be numbers, got false among them"),
])
def test_a_truth_value_among_numbers_is_refused(search, message):
    """Pydantic's lax mode read ``drive_counts: [true]`` as one drive."""
    with pytest.raises(ValidationError, match=message):
        _spec(**search)
    with pytest.raises(ValidationError, match="must be a number, got true"):
        PlanSpec.model_validate({"requirements": {"usable_bytes": "10 TB", "max_bays": True}, "objective": "usd_per_usable_tb"})


def test_a_long_list_out_of_range_is_named_by_its_first_values_not_echoed_whole():
    """5,000 drive counts were echoed whole in a one-line error of 28,981 characters (a helper's finding)."""
    def message(search):
        with pytest.raises(ValidationError) as error:
            PlanSpec.model_validate({"requirements": {"usable_bytes": "1 TB"}, "search": search})
        return error.value.errors()[0]["msg"]

    counts = message({"drive_counts": list(range(1, 5001))})
    assert counts.endswith("got 1, 257, 258, 259, 260 and 4,740 more") and len(counts) < 200
    assert message({"overprovisioning": [0.1, 0.95, 1.5]}).endswith("got 0.95, 1.5")
    assert message({"hot_spares": [1, -1]}).endswith("got -1")
