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
