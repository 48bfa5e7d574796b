"""The plan's margins (nvsim.plan.margins) worked by hand: headroom is positive where a set-up is
inside a requirement, negative where it misses it, for floors (capacity, IOPS) and ceilings (price,
power) alike (issue 34: the price and power margins with the wrong sign survived)."""

from __future__ import annotations

import pytest

from nvsim.plan import margins
from nvsim.plan.spec import PlanSpec


def _spec() -> PlanSpec:
    return PlanSpec.model_validate({
        "requirements": {"usable_bytes": "10 TB", "max_price_usd": 100000, "max_power_w": 2000,
                         "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"]},
        "objective": "usd_per_usable_tb"})


def _row(price_usd: float, power_w: float) -> dict:
    return {"usable_bytes": 12.5e12, "price_usd": price_usd, "power_w": power_w,
            "workloads": {"rr": {"iops": 0.8e6, "bytes_per_s": 0.8e6 * 4096}}}


def test_margins_are_headroom_positive_inside_a_requirement_and_negative_outside():
    out = margins(_spec(), _row(price_usd=75000, power_w=2500))
    assert out["usable_bytes"] == pytest.approx(0.25)  # 12.5 TB of 10 TB: 25% to spare
    assert out["rr IOPS"] == pytest.approx(-0.2)  # 0.8M of 1M: missed by 20%
    assert out["max_price_usd"] == pytest.approx(0.25)  # $75,000 under a $100,000 ceiling: 25% to spare
    assert out["max_power_w"] == pytest.approx(-0.25)  # 2,500 W over a 2,000 W ceiling: missed by 25%


def test_a_set_up_at_its_ceilings_has_no_margin_and_a_cheaper_one_more():
    at = margins(_spec(), _row(price_usd=100000, power_w=2000))
    assert at["max_price_usd"] == pytest.approx(0.0) and at["max_power_w"] == pytest.approx(0.0)
    cheaper = margins(_spec(), _row(price_usd=50000, power_w=1000))
    assert cheaper["max_price_usd"] > at["max_price_usd"] and cheaper["max_power_w"] > at["max_power_w"]


def test_a_rejected_candidates_reason_gives_its_gap_with_the_sign_of_the_miss():
    import numpy as np

    from nvsim.plan.answer import reason_text
    from nvsim.plan.space import Verdicts

    verdicts = Verdicts.empty(2)
    verdicts.reject(np.array([True, False]), 2, "max_power_w", 2500.0, 2000.0, "idle draw of the parts")
    verdicts.reject(np.array([False, True]), 2, "rr IOPS", 0.8e6, 1e6, "drive NAND")
    over, short = reason_text(verdicts, 0), reason_text(verdicts, 1)
    assert " over " in over and over.endswith("(+25%) at idle draw of the parts")  # 2,500 W is 25% over 2,000 W
    assert " short of " in short and short.endswith("(20%) at drive NAND")  # 0.8M is 20% short of 1M


def _timed_spec(**requirements) -> PlanSpec:
    return PlanSpec.model_validate({
        "requirements": {"usable_bytes": "10 TB", **requirements,
                         "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M", "min_bytes_per_s": "4 GB/s",
                                        "max_latency_us": {"p99": 500, "p99.9": 1000}}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"],
                   "rack_units": {"supermicro-as-2125hs-tnr": 2}},
        "objective": "usd_per_usable_tb", "confirm": 1})


def _set_up(**extra) -> dict:
    return {"usable_bytes": 12.5e12, "platform": "supermicro-as-2125hs-tnr", "drives": 8, "hot_spares": 1,
            "workloads": {"rr": {"iops": 2e6, "bytes_per_s": 2e6 * 4096}}, **extra}


def test_a_latency_target_has_a_margin_from_the_event_percentile_and_none_without_the_event_mode():
    """Issue hunt_c 5: latency targets had no margin at all."""
    spec = _timed_spec()
    assert not any("latency" in k for k in margins(spec, _set_up()))  # the fluid mode knows no percentile
    event = {"rr": {"iops": 1.5e6, "bytes_per_s": 1.5e6 * 4096, "latency_us": {"p99": 400.0, "p99.9": 1250.0}}}
    out = margins(spec, _set_up(event_workloads=event))
    assert out["rr p99 latency us"] == pytest.approx(0.2)  # 400 us under a 500 us limit: 20% to spare
    assert out["rr p99.9 latency us"] == pytest.approx(-0.25)  # 1,250 us over 1,000 us: missed by 25%


def test_a_confirmed_set_ups_rate_margins_are_its_event_figures():
    """Issue hunt_c 5: a confirmed set-up's margins came from the fluid rates (1.91M where its
    event run gave 1.83M)."""
    spec = _timed_spec()
    event = {"rr": {"iops": 1.5e6, "bytes_per_s": 1.5e6 * 4096, "latency_us": {"p99": 400.0, "p99.9": 900.0}}}
    fluid = margins(spec, _set_up())
    confirmed = margins(spec, _set_up(event_workloads=event))
    assert fluid["rr IOPS"] == pytest.approx(1.0) and confirmed["rr IOPS"] == pytest.approx(0.5)
    assert fluid["rr bytes/s"] == pytest.approx(2e6 * 4096 / 4e9 - 1) and confirmed["rr bytes/s"] == pytest.approx(1.5e6 * 4096 / 4e9 - 1)


def test_bays_and_rack_units_have_margins():
    """Issue hunt_c 5: max_bays and max_rack_units had none. Bays count members and spares."""
    out = margins(_timed_spec(max_bays=12, max_rack_units=4), _set_up())
    assert out["max_bays"] == pytest.approx(1 - 9 / 12)
    assert out["max_rack_units"] == pytest.approx(0.5)  # a 2U server under a 4U limit
    assert "max_bays" not in margins(_timed_spec(), _set_up())


def test_a_familys_reason_is_its_nearest_requirement_miss_not_the_objectives_cut():
    """Two members of one family: one ran in the fluid mode and missed a requirement, the other was
    cut by the objective's bound before any later check ran; the family's reason names the miss
    (the review's xiRAID RAID10 on CD6-R: 'too dear' hid a P(data loss) 11x over its limit), and
    says the others were cut by the objective."""
    import numpy as np

    from nvsim.plan.answer import closeness
    from nvsim.plan.space import STAGES, Verdicts

    verdicts = Verdicts.empty(3)
    verdicts.reject(np.array([True, False, False]), STAGES.index("fluid"), "P(data loss)", 1.1e-3, 1e-4,
                    "failures during the rebuild")
    verdicts.reject(np.array([False, True, False]), STAGES.index("ranking"), "usd_per_usable_tb", 527.0, 428.0,
                    "the objective's lower bound")
    verdicts.reject(np.array([False, False, True]), STAGES.index("filters"), "usable_bytes", 1e14, 1.5e14, "capacity")
    score = closeness(verdicts)
    assert score[0] > score[1] > score[2]  # fluid miss, then the objective's cut, then a smaller member's filter
    from nvsim.plan.answer import _cut_too

    assert "objective's cut" in _cut_too(verdicts, 0, True) and _cut_too(verdicts, 0, False) == ""
    assert _cut_too(verdicts, 1, True) == ""  # the cut itself needs no second mention
