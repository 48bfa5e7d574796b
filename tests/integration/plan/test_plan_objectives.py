"""`nvsim plan`'s objectives over several workloads (hunt_c items 2, 3, 6): $/1K IOPS is the
dearest workload's, whatever their order, and its lower bound stays below what the fluid mode
ranks; a per-workload objective without a workload is refused; a weighted objective is each
set-up's own figure, so another candidate never reorders two."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from nvsim.plan import objective_floor, objective_values, prepare_plan, rank, run_plan
from nvsim.plan.bounds import bounds_stage
from nvsim.plan.search import dearest_kiops
from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters
from nvsim.plan.spec import PlanSpec

MIX = {"name": "mix", "profile": "randrw-4k-70", "numjobs": 16, "iodepth": 16, "min_iops": "400K"}
READS = {"name": "rr", "profile": "randread-4k", "numjobs": 16, "iodepth": 32, "min_iops": "2M"}
PLAN = {
    "requirements": {"usable_bytes": "40 TB", "workloads": [MIX, READS]},
    "search": {"platforms": ["dell-poweredge-r750"], "drives": ["kioxia-cm7-r-7.68tb", "samsung-pm9a3-7.68tb"],
               "engines": ["xinnor-xiraid"], "drive_counts": [8, 12], "levels": [5, 6], "strips_bytes": ["64KiB"]},
    "objective": "usd_per_kiops", "top": 4, "confirm": 0, "seed": 1,
}
WIDE = {**PLAN, "top": 3, "search": {**PLAN["search"], "drives": ["kioxia-cm7-r-7.68tb", "samsung-pm9a3-7.68tb",
                                                                   "micron-9550-pro-7.68tb", "kioxia-cm7-r-30.72tb",
                                                                   "solidigm-d5-p5336-61.44tb"],
                                     "drive_counts": [6, 8, 10, 12, 14, 16], "levels": [5, 6, 10],
                                     "strips_bytes": ["64KiB", "128KiB"], "overprovisioning": [0.0, 0.1]}}


def _write(tmp_path: Path, plan: dict, name: str = "plan.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(plan))
    return path


def _ranking(result) -> list[tuple]:
    return [(r["drive"], r["drives"], r["level"], r["objective"]) for r in result.ranked]


def test_the_workloads_order_does_not_change_the_ranking(tmp_path: Path):
    """$/1K IOPS was the first workload's: listing the mix first ranked 8x CM7-R first at $11.0,
    the random reads first 8x PM9A3 at $6.8 (the reads' cheap IOPS)."""
    mix_first = run_plan(_write(tmp_path, PLAN, "a.yaml"))
    reads_first = run_plan(_write(tmp_path, {**PLAN, "requirements": {**PLAN["requirements"], "workloads": [READS, MIX]}},
                                  "b.yaml"))
    assert _ranking(mix_first) == _ranking(reads_first) and len(mix_first.ranked) >= 4
    for row in mix_first.ranked:  # the dearest workload's: the highest $/1K IOPS of any
        each = [f["usd_per_kiops"] for f in row["workloads"].values()]
        assert row["objective"] == row["usd_per_kiops"] == max(each) == row["workloads"]["mix"]["usd_per_kiops"]


def test_the_dearest_iops_is_the_highest_over_the_workloads_and_unknown_if_one_is():
    assert dearest_kiops({"a": {"usd_per_kiops": 3.0}, "b": {"usd_per_kiops": 7.5}}) == 7.5
    assert dearest_kiops({"a": {"usd_per_kiops": 3.0}, "b": {"usd_per_kiops": None}}) is None
    assert dearest_kiops({}) is None


def test_the_lower_bound_of_the_dearest_iops_never_exceeds_what_the_fluid_mode_ranks(tmp_path: Path):
    """Law of the best-first search: a candidate's objective floor (known before the fluid mode)
    is at most its objective, so the search never stops before a candidate it would rank; the
    search that stops early ranks the same top set-ups as the one that visits every survivor."""
    path = _write(tmp_path, WIDE)
    spec, axes, workloads, catalog = prepare_plan(path)
    cands = enumerate_candidates(axes, spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, catalog, verdicts)
    bounds_stage(spec, cands, catalog, verdicts, workloads)
    alive = np.flatnonzero(verdicts.alive())
    floor = dict(zip(alive.tolist(), objective_floor(spec, cands, alive).tolist()))
    everyone = run_plan(_write(tmp_path, {**WIDE, "exhaustive": True}, "all.yaml"))
    assert len(everyone.every_candidate) > 64  # more than one batch: the early stop is tried
    for row in everyone.every_candidate:
        assert floor[row["index"]] <= row["objective"] * (1 + 1e-12), row
    best_first = run_plan(path)
    assert best_first.pruned["ranking"] > 0
    assert _ranking(best_first)[:WIDE["top"]] == _ranking(everyone)[:WIDE["top"]]
    reads_first = run_plan(_write(tmp_path, {**WIDE, "requirements": {**WIDE["requirements"], "workloads": [READS, MIX]}},
                                  "reversed.yaml"))  # the bound was the first workload's: the reads' cheap IOPS pruned less
    assert reads_first.pruned == best_first.pruned and _ranking(reads_first) == _ranking(best_first)


@pytest.mark.parametrize("objective", ["usd_per_kiops", "power_w", {"weights": {"usd_per_usable_tb": 1, "usd_per_kiops": 1}}])
def test_a_per_workload_objective_without_workloads_is_refused_in_one_line(tmp_path: Path, cli, objective):
    """Every candidate's objective was infinite ('inf' in ranking.csv): a ranking by nothing."""
    plan = {**PLAN, "objective": objective, "requirements": {"usable_bytes": "10 TB"}}
    with pytest.raises(ValidationError, match="the plan has no workload"):
        PlanSpec.model_validate(plan)
    bad = cli("plan", str(_write(tmp_path, plan)), "-o", str(tmp_path / "out"), "--workers", "1")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr, bad.stderr
    assert "objective: " in bad.stderr and "has no workload" in bad.stderr and not (tmp_path / "out").exists()
    PlanSpec.model_validate({**plan, "objective": "usd_per_usable_tb"})  # an objective of the set-up alone is taken


def _row(i: int, price: float, power: float) -> dict:
    return {"platform": "p", "drive": f"d{i}", "drives": 8, "level": 6, "strip_bytes": 65536, "engine": "e",
            "overprovisioning": 0.0, "hot_spares": 0, "usd_per_usable_tb": price, "power_w": power, "workloads": {}}


def test_a_weighted_objective_is_each_set_ups_own_and_another_candidate_never_reorders_two():
    """Each metric over its best among the feasible rows, summed: adding a third set-up (far
    cheaper, far hungrier) swapped the first two (hunt_c's base60 against qlc: one more drive)."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": "1 TB", "workloads": [READS]},
                                    "objective": {"weights": {"usd_per_usable_tb": 1, "power_w": 1}}})
    a, b, c = _row(0, 100.0, 10.0), _row(1, 120.0, 8.0), _row(2, 50.0, 100.0)
    order = [r["drive"] for r in rank(spec, [a, b])]
    assert order == ["d1", "d0"]  # sqrt(120 x 8) = 31.0 below sqrt(100 x 10) = 31.6
    assert [r["drive"] for r in rank(spec, [a, b, c]) if r["drive"] != "d2"] == order
    values = objective_values(spec, [a, b, c])
    assert values[:2] == objective_values(spec, [a, b]) and values[0] == pytest.approx(math.sqrt(1000))
    heavy = PlanSpec.model_validate({"requirements": {"usable_bytes": "1 TB", "workloads": [READS]},
                                     "objective": {"weights": {"usd_per_usable_tb": 3, "power_w": 1}}})
    assert objective_values(heavy, [a])[0] == pytest.approx(100.0 ** 0.75 * 10.0 ** 0.25)  # each to its weight's share


def test_the_candidates_visited_and_so_the_answer_do_not_depend_on_the_workers(tmp_path: Path):
    """The best-first stage took two chunks per worker at a time: on one worker it stopped after
    fewer candidates than on two, and plan.json's every_candidate, ranked_count and prunes differed
    (the example: 50 candidates ranked on one worker, 73 on two)."""
    path = _write(tmp_path, WIDE)
    one, two = run_plan(path, workers=1), run_plan(path, workers=2)
    assert one.pruned["ranking"] > 0
    assert json.dumps(one.as_dict(), sort_keys=True, default=float) == json.dumps(two.as_dict(), sort_keys=True, default=float)
