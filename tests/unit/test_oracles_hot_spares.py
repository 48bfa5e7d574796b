"""Hot spares are drives (issue 34): each one takes a bay and is on the bill, in cost.py's price
and in the plan's bays and price, by hand from the catalog's figures."""

from __future__ import annotations

import numpy as np
import pytest

from nvsim.catalog import default_catalog
from nvsim.cost import cost_power, price_parts
from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, price_usd, resolve_axes
from nvsim.plan.spec import PlanSpec
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()
PLATFORM, DRIVE, ENGINE = "supermicro-as-2125hs-tnr", "kioxia-cm7-r-3.84tb", "linux-md"  # 24 bays


def _scenario(drives: int, spares: int):
    return parse_scenario({"name": "t", "platform": PLATFORM,
                           "array": {"level": 5, "drive": DRIVE, "drives": drives, "strip_bytes": "64KiB",
                                     "engine": ENGINE, "hot_spares": spares},
                           "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}]}, CATALOG)


def test_a_hot_spare_is_one_more_drive_on_the_bill():
    drive = CATALOG.drives[DRIVE].price_usd.value
    engine, platform = CATALOG.engines[ENGINE].price_usd, CATALOG.platforms[PLATFORM].price_usd
    fixed = (engine.value if engine else 0.0) + platform.value
    for spares in (0, 2):
        price = cost_power(CATALOG, _scenario(8, spares), 1e12, None)["price_usd"]
        assert price == pytest.approx((8 + spares) * drive + fixed)
    assert price_parts(CATALOG, _scenario(8, 2))[0]["count"] == 10


def _plan(spares: list[int], counts: list[int]):
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "1 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": 1}]},
        "search": {"platforms": [PLATFORM], "drives": [DRIVE], "engines": [ENGINE], "levels": [5], "drive_counts": counts,
                   "strips_bytes": ["64KiB"], "hot_spares": spares},
        "objective": "usd_per_usable_tb"})
    cands = enumerate_candidates(resolve_axes(spec, CATALOG), spec.max_candidates)
    return spec, cands


def test_the_plan_counts_a_hot_spare_in_its_bays_and_its_price():
    spec, cands = _plan([0, 1], [8, 24])
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, CATALOG, verdicts)
    rows = [cands.row(i) for i in range(len(cands))]
    alive = verdicts.alive()
    for i, row in enumerate(rows):  # 24 drives and a spare need 25 of the 24 bays
        assert bool(alive[i]) == (row["drives"] + row["hot_spares"] <= 24), row
    prices = price_usd(cands, CATALOG)
    by = {(r["drives"], r["hot_spares"]): p for r, p in zip(rows, prices)}
    assert by[(8, 1)] - by[(8, 0)] == pytest.approx(CATALOG.drives[DRIVE].price_usd.value)
    assert np.isfinite(list(by.values())).all()
