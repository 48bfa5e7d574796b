"""The plan's table cells (nvsim.plan.output.si_text): three significant digits under the SI
prefix of the value's magnitude, whatever its sign (a negative margin or a shortfall reads as
its positive twin with a minus), worked by hand."""

from __future__ import annotations

import pytest

from nvsim.plan.output import si_text


@pytest.mark.parametrize("value, unit, text", [
    (2.5e6, "B/s", "2.5MB/s"), (1234, "", "1.23K"), (999, "", "999"), (0.25, "", "0.25"),
    (7.68e12, "B", "7.68TB"), (3.2e9, "", "3.2G"),
    (-2.5e6, "", "-2.5M"), (-1234, "W", "-1.23KW"), (None, "", "-"),
    # a plan over the largest drives: 24 x 61.44 TB in RAID6 is 1.35 PB usable ('1.35e+03TB' before)
    (1.35e15, "B", "1.35PB"), (18.4e18, "B", "18.4EB"),
    # a value that rounds up to 1,000 of its prefix takes the next one ('1e+03TB', '1e+03K' before)
    (999.7e12, "B", "1PB"), (999.6e3, "", "1M"), (999.4e12, "B", "999TB"), (999.6, "W", "1KW"),
])
def test_si_text_by_hand(value, unit, text):
    assert si_text(value, unit) == text


def test_rejected_csv_has_its_header_when_no_family_was_rejected():
    """Every family feasible: rejected.csv was one empty line, which a script reading its columns fails on."""
    from nvsim.plan.output import REJECTED_COLUMNS, _csv

    assert _csv([], REJECTED_COLUMNS) == "engine,level,drive,stage,requirement,achieved,target,resource,reason\n"


def test_a_data_loss_miss_names_unrecoverable_reads_where_they_are_most_of_it():
    """A P(data loss) miss 99.9% from unrecoverable reads over the survivors was put on the
    rebuild's limit ('drive NAND at 100%'), which a faster rebuild does not mend."""
    from nvsim.plan.fluid import _risk_source

    ures = {"p_unrecoverable_read": 0.00245, "p_another_failure": 1.2e-6, "survivor_bytes_read": 30.72e12}
    assert _risk_source(ures, "drive NAND at 100%") == ("unrecoverable read errors over the 30.7 TB the rebuild reads "
                                                        "(0.245% from them; 1 in 833,333 from more drive failures)")  # no e-notation
    failures = {"p_unrecoverable_read": 1e-7, "p_another_failure": 2e-3, "survivor_bytes_read": 1e12}
    assert _risk_source(failures, "drive NAND at 100%") == "drive NAND at 100%"


def test_a_plans_power_and_rebuild_limits_take_their_units_as_a_sweeps_constraints_do():
    """'max_power_w: 1.5 kW' and 'max_hours: 8 h' were refused as 'not a valid number', where a
    sweep's constraints take power_w <= 1.5 kW and rebuild_hours <= 30 h."""
    from nvsim.plan.spec import RebuildRequirement, Requirements

    power = [Requirements.model_validate({"usable_bytes": "40 TB", "max_power_w": v}).max_power_w
             for v in ("1.5 kW", "1500 W", "1.5K", 1500)]
    hours = [RebuildRequirement.model_validate({"max_hours": v}).max_hours for v in ("8 h", "480 min", 8)]
    assert power == [1500.0] * 4 and hours == [8.0] * 3


def test_a_near_miss_prints_its_two_figures_apart():
    """6.0046 h against a 6 h limit read "6.00 over 6.00 (+0%)" in the rejected families: the plain
    figures get the digits that part them, the gap two decimals where it rounds to 0%."""
    from nvsim.plan.answer import _amounts, _gap

    assert _amounts(6.0046, 6.0, "rebuild hours") == ("6.005", "6.000")
    assert _gap((6.0046 - 6.0) / 6.0, "+") == "+0.08%" and _gap(0.25, "+") == "+25%" and _gap(0.0, "") == "0%"
    assert _amounts(2.5e6, 2e6, "rr IOPS") == ("2.50M", "2.00M")  # apart already: as before
    assert _amounts(6.0, 6.0, "rebuild hours") == ("6.00", "6.00")
