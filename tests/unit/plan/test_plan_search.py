"""nvsim plan's pure parts: the exact filters, the bounds (never below the fluid mode), the
ranking (a total order), margins, the Pareto front and the rejected families' reasons."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nvsim.array_capacity import capacity
from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.plan import rank, sort_key
from nvsim.plan.answer import pareto_front, reason_text
from nvsim.plan.bounds import bounds_stage, drive_ceilings, min_write_factor, shortest_rebuild_hours, throughput_bound
from nvsim.plan.fluid import scenario_data
from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, resolve_axes
from nvsim.plan.spec import PROFILES, PlanSpec
from nvsim.rebuild import rebuild_summary
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation
from nvsim.specs import WorkloadSpec

CATALOG = default_catalog()


def _spec(**search) -> PlanSpec:
    base = {"requirements": {"usable_bytes": "10 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M"}]},
            "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], **search},
            "objective": "usd_per_usable_tb"}
    return PlanSpec.model_validate(base)


def _filtered(spec: PlanSpec):
    cands = enumerate_candidates(resolve_axes(spec, CATALOG), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    pruned = exact_filters(spec, cands, CATALOG, verdicts)
    return cands, verdicts, pruned


def _why(cands, verdicts, **match) -> str:
    for i in range(len(cands)):
        row = cands.row(i)
        if all(row[k] == v for k, v in match.items()):
            return verdicts.labels[verdicts.requirement[i]] if verdicts.stage[i] else "alive"
    raise AssertionError(f"no candidate {match}")


def test_exact_filters_name_the_rule_each_candidate_breaks():
    spec = _spec(engines=["intel-vroc", "linux-md", "graid-supremeraid-sr1010"], drive_counts=[2, 4, 25, 8],
                 levels=[5, 6, 10], strips_bytes=["48KiB", "64KiB"])
    cands, verdicts, pruned = _filtered(spec)
    assert len(cands) == 3 * 4 * 3 * 2 and pruned == int((verdicts.stage == 1).sum()) > 0
    assert _why(cands, verdicts, engine="intel-vroc", level=6) == "engine supports the RAID level"
    assert _why(cands, verdicts, engine="linux-md", level=6, drives=2, strip_bytes=65536) == "drives for the RAID level"
    assert _why(cands, verdicts, engine="linux-md", level=5, drives=25, strip_bytes=65536) == "drive bays"
    assert _why(cands, verdicts, engine="linux-md", level=5, drives=8, strip_bytes=49152) == "md chunk is a power of two"
    assert _why(cands, verdicts, engine="graid-supremeraid-sr1010", level=5, drives=8, strip_bytes=49152) == "alive"
    assert _why(cands, verdicts, engine="linux-md", level=10, drives=4, strip_bytes=65536) == "usable_bytes"  # 7.68 TB
    assert _why(cands, verdicts, engine="intel-vroc", level=10, drives=8, strip_bytes=65536) == "engine runs on the platform's CPU"


def test_an_imsm_raid10_below_four_drives_is_filtered_as_the_scenario_refuses_it():
    """VROC's RAID10 is at least four drives (mdadm's IMSM rule, ``VrocEngine.fewest_drives_at``)."""
    spec = _spec(engines=["intel-vroc"], platforms=["dell-poweredge-r750"], drives=["intel-d7-p5510-3.84tb"],
                 drive_counts=[2, 4, 6], levels=[10], strips_bytes=["64KiB"])
    cands, verdicts, _ = _filtered(spec)
    assert _why(cands, verdicts, drives=2) == "engine's drives at the RAID level"
    assert _why(cands, verdicts, drives=4) != "engine's drives at the RAID level"


def test_a_card_strip_its_family_does_not_list_is_filtered_as_the_scenario_refuses_it():
    """A MegaRAID virtual drive takes 8 KB to 1024 KB strips (``HardwareEngine.strip_refusal``)."""
    spec = _spec(engines=["broadcom-megaraid-9670w-16i", "linux-md"], drive_counts=[8], levels=[5],
                 strips_bytes=["256KiB", "2MiB"])
    cands, verdicts, _ = _filtered(spec)
    assert _why(cands, verdicts, engine="broadcom-megaraid-9670w-16i", strip_bytes=2 * 2**20) == "engine's strip sizes"
    assert _why(cands, verdicts, engine="broadcom-megaraid-9670w-16i", strip_bytes=256 * 2**10) != "engine's strip sizes"
    assert _why(cands, verdicts, engine="linux-md", strip_bytes=2 * 2**20) != "engine's strip sizes"


def test_capacity_filter_matches_the_scenarios_own_capacity():
    spec = _spec(engines=["linux-md"], drive_counts=[4, 9, 16], levels=[0, 1, 5, 6, 10], overprovisioning=[0.0, 0.13])
    cands, verdicts, _ = _filtered(spec)
    workloads = {"rr": WorkloadSpec(name="rr", rw="randread")}
    for i in range(len(cands)):
        row = dict(cands.row(i), namespace_bytes=int(cands.columns["member_bytes"][i]) if cands.op[i] else None)
        scenario = parse_scenario(scenario_data(row, workloads.values(), 1, "x"), CATALOG)
        assert capacity(scenario, CATALOG).usable_bytes == cands.columns["usable_bytes"][i]


def test_a_cost_objective_over_unpriced_drives_is_one_line_naming_them():
    drive = CATALOG.drives["intel-d7-p5500-7.68tb"]
    unpriced = drive.model_copy(update={"price_usd": None, "price_date": None, "price_kind": None})
    catalog = dataclasses.replace(CATALOG, drives={**CATALOG.drives, drive.name: unpriced})
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": "10 TB"}, "search": {"drives": ["intel-d7-p5500-7.68tb", "kioxia-cm7-r-3.84tb"]}})
    with pytest.raises(InputError, match=r"search\.drives: .*price_usd.* 1 of 2: intel-d7-p5500-7\.68tb"):
        resolve_axes(spec, catalog)
    assert resolve_axes(spec, CATALOG).drives == ("intel-d7-p5500-7.68tb", "kioxia-cm7-r-3.84tb")  # the catalog prices both
    priced = PlanSpec.model_validate({"requirements": {"usable_bytes": "10 TB"}, "search": {"priced_only": True}})
    assert resolve_axes(priced, catalog).drives == tuple(sorted(set(CATALOG.drives) - {drive.name}))


def test_a_mirrored_mix_stays_under_its_nand_bound():
    """Regression (found by the law below): a 70/30 mix on a 24-way md RAID1 of PM9A3 is NAND-bound
    and each write costs 24 member writes; the fluid sample of 128 I/Os held 38 writes (29.7%) and
    passed the NAND bound by 0.24%. The sample now holds the mix exactly (130 I/Os, 39 writes)."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": 1},
                                    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["samsung-pm9a3-3.84tb"],
                                               "engines": ["linux-md"], "drive_counts": [24], "levels": [1],
                                               "strips_bytes": [16384], "overprovisioning": [0.0]}, "objective": "drives"})
    cands, verdicts, _ = _filtered(spec)
    workload = WorkloadSpec.model_validate(dict(PROFILES["randrw-8k-70"], name="w", numjobs=8, iodepth=32),
                                           context={"catalog": CATALOG})
    bound, which = throughput_bound(cands, drive_ceilings(cands.axes, CATALOG, workload), workload, verdicts.alive())
    scenario = parse_scenario(scenario_data(dict(cands.row(0), namespace_bytes=None), [workload], 1, "x"), CATALOG)
    fluid = Simulation(scenario, "w", catalog=CATALOG).run("fluid")
    assert which[0] == 0  # the NAND bound
    assert fluid.write_iops / fluid.total_iops == pytest.approx(0.3, abs=1e-12)
    assert fluid.total_iops <= bound[0] * (1 + 1e-9)


ENGINES = ["linux-md", "graid-supremeraid-sr1010", "xinnor-xiraid", "broadcom-megaraid-9560-16i"]
DRIVES = ["kioxia-cm7-r-3.84tb", "kioxia-cm7-v-6.4tb", "solidigm-d5-p5336-61.44tb", "samsung-pm9a3-3.84tb",
          "micron-9550-pro-7.68tb", "intel-d7-p5510-3.84tb"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drive=st.sampled_from(DRIVES), engine=st.sampled_from(ENGINES), level=st.sampled_from([0, 1, 5, 6, 10]),
       count=st.sampled_from([4, 6, 8, 12, 16, 24]), strip=st.sampled_from([16384, 65536, 524288]),
       op=st.sampled_from([0.0, 0.2]), profile=st.sampled_from(sorted(PROFILES)), jobs=st.sampled_from([8, 64]))
def test_the_throughput_bound_is_never_below_the_fluid_mode(drive, engine, level, count, strip, op, profile, jobs):
    """The law the bounds stage rests on: no candidate the fluid mode accepts is pruned."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": 1},
                                    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": [drive], "engines": [engine],
                                               "drive_counts": [count], "levels": [level], "strips_bytes": [strip],
                                               "overprovisioning": [op]}, "objective": "drives"})
    cands, verdicts, _ = _filtered(spec)
    if not verdicts.alive().all():
        return
    workload = WorkloadSpec.model_validate(dict(PROFILES[profile], name="w", numjobs=jobs, iodepth=32), context={"catalog": CATALOG})
    bound, _ = throughput_bound(cands, drive_ceilings(cands.axes, CATALOG, workload), workload, verdicts.alive())
    row = dict(cands.row(0), namespace_bytes=int(cands.columns["member_bytes"][0]) if op else None)
    scenario = parse_scenario(scenario_data(row, [workload], 1, "x"), CATALOG)
    fluid = Simulation(scenario, "w", catalog=CATALOG).run("fluid").total_iops
    assert fluid <= bound[0] * (1 + 1e-9), (fluid, bound[0])


def test_bounds_take_counts_their_level_does_not(tmp_path):
    """An endurance requirement over drive counts below a level's minimum (RAID6 of 2 drives,
    rejected by the exact filters) divided by zero in the bounds, which see every candidate: a
    traceback. Such counts have no write factor (infinite); the valid ones keep theirs."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": "1 TB", "workloads": [
        {"name": "w", "profile": "randread-4k", "min_iops": "1K"}],
        "endurance": {"service_life_years": 5, "host_write_bytes_per_s": "100 MB/s"}},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                   "drive_counts": [2, 4], "levels": [1, 5, 6]}})
    cands, verdicts, _ = _filtered(spec)
    workloads = {"w": WorkloadSpec.model_validate(dict(PROFILES["randread-4k"], name="w", numjobs=1, iodepth=1))}
    bounds_stage(spec, cands, CATALOG, verdicts, workloads)
    assert _why(cands, verdicts, level=6, drives=2) == "drives for the RAID level"
    assert _why(cands, verdicts, level=1, drives=2) == "alive"
    factors = min_write_factor(np.array([6, 5, 6, 1]), np.array([2, 2, 4, 2]))
    assert np.isinf(factors[:2]).all() and factors[2] == 2.0 and factors[3] == 2.0


@pytest.mark.parametrize("pacing, ceiling, words", [
    ({"rate_iops": 10_000}, 40_000, "its rate cap (4 job(s) x 10,000 IOPS)"),
    ({"rate_iops": 10_000, "rate_process": "poisson"}, 40_000, "its rate cap"),
    ({"thinktime": "100us"}, 40_000, "its think time (100 us after each I/O, 4 job(s))"),
    ({"thinktime": "100us", "rate_iops": 5_000}, 20_000, "its rate cap")])
def test_a_paced_workloads_bound_is_its_pacing_and_names_it(pacing, ceiling, words):
    """A rate cap or a think time holds the workload below every set-up's NAND and link ceilings:
    the bound is the pacing's (never below what the fluid mode gives), and a requirement above it is
    rejected naming the pacing, not a drive resource (it named the NAND pool's ceiling)."""
    spec = _spec(engines=["linux-md"], drive_counts=[8], levels=[5], strips_bytes=["128KiB"])
    spec = spec.model_copy(update={"requirements": spec.requirements.model_copy(update={"workloads": [
        spec.requirements.workloads[0].model_copy(update={"min_iops": 100_000})]})})
    cands, verdicts, _ = _filtered(spec)
    workload = WorkloadSpec.model_validate(dict(PROFILES["randread-4k"], name="rr", numjobs=4, iodepth=32, **pacing))
    bounds_stage(spec, cands, CATALOG, verdicts, {"rr": workload})
    assert cands.columns["rr.iops_bound"][0] == pytest.approx(ceiling)
    assert verdicts.resources[verdicts.resource[0]].startswith(f"the workload's pacing: {words}")
    scenario = parse_scenario(scenario_data(cands.row(0), [workload], 1, "x"), CATALOG)
    assert Simulation(scenario, "rr", catalog=CATALOG).run("fluid").total_iops <= ceiling * (1 + 1e-9)


def test_a_rebuild_requirement_rules_raid0_out_in_words():
    """RAID0 has nothing to rebuild: its line said 'rebuild hours none over 10 (+inf%)'."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": "1 TB", "rebuild": {"max_hours": 10}, "workloads": [
        {"name": "w", "profile": "randread-4k", "min_iops": "1K"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                   "drive_counts": [4], "levels": [0, 5], "strips_bytes": ["64KiB"]}})
    cands, verdicts, _ = _filtered(spec)
    workloads = {"w": WorkloadSpec.model_validate(dict(PROFILES["randread-4k"], name="w", numjobs=1, iodepth=1))}
    bounds_stage(spec, cands, CATALOG, verdicts, workloads)
    raid0 = next(i for i in range(len(cands)) if cands.row(i)["level"] == 0)
    assert reason_text(verdicts, raid0) == "rebuild hours: not met (RAID0 has no redundancy to rebuild)"
    assert _why(cands, verdicts, level=5) == "alive"


def test_bounds_prune_only_what_the_fluid_mode_would_also_reject():
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": "5 TB", "workloads": [
        {"name": "w", "profile": "randwrite-4k", "min_iops": "2M"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                   "drive_counts": [4, 8, 24], "levels": [5, 10], "strips_bytes": ["64KiB"]}})
    cands, verdicts, _ = _filtered(spec)
    workloads = {"w": WorkloadSpec.model_validate(dict(PROFILES["randwrite-4k"], name="w", numjobs=64, iodepth=32))}
    assert bounds_stage(spec, cands, CATALOG, verdicts, workloads) > 0
    for i in np.flatnonzero(verdicts.stage == 2):
        scenario = parse_scenario(scenario_data(cands.row(int(i)) | {"namespace_bytes": None}, workloads.values(), 1, "x"), CATALOG)
        assert Simulation(scenario, "w", catalog=CATALOG).run("fluid").total_iops < 2e6
    assert "short of" in reason_text(verdicts, int(np.flatnonzero(verdicts.stage == 2)[0]))


def _row(i: int, price: float) -> dict:
    return {"platform": "p", "drive": f"d{i % 3}", "drives": 4 + i, "level": 6, "strip_bytes": 65536, "engine": "e",
            "overprovisioning": 0.0, "hot_spares": 0, "usd_per_usable_tb": price, "workloads": {}}


@given(prices=st.lists(st.sampled_from([1.0, 2.0, 2.0, 3.5, math.inf]), min_size=1, max_size=12), seed=st.integers(0, 1000))
def test_the_ranking_is_a_total_order_whatever_the_input_order(prices, seed):
    spec = _spec()
    rows = [_row(i, p) for i, p in enumerate(prices)]
    shuffled = rows[:]
    random.Random(seed).shuffle(shuffled)
    first, second = rank(spec, rows), rank(spec, shuffled)
    assert [sort_key(r) for r in first] == [sort_key(r) for r in second]
    assert [r["rank"] for r in first] == list(range(1, len(rows) + 1))
    assert all((a["objective"], sort_key(a)) < (b["objective"], sort_key(b)) for a, b in zip(first, first[1:]))


@given(st.lists(st.tuples(st.floats(0, 10), st.floats(0, 10), st.floats(0, 10)), min_size=1, max_size=30))
def test_the_pareto_front_is_exactly_the_undominated_points(points):
    front = set(pareto_front(points))

    def dominates(a, b):
        better = (a[0] <= b[0], a[1] >= b[1], a[2] <= b[2])
        strictly = (a[0] < b[0], a[1] > b[1], a[2] < b[2])
        return all(better) and any(strictly)

    for i, p in enumerate(points):
        assert (i in front) == (not any(dominates(q, p) for q in points))


@pytest.mark.parametrize("engine, drive", [("graid-supremeraid-sr1010", "kioxia-cm7-r-3.84tb"), ("linux-md", "kioxia-cm7-v-6.4tb"),
                                           ("xinnor-xiraid", "kioxia-cm7-r-3.84tb")])
def test_the_shortest_rebuild_is_never_longer_than_the_solved_one(engine, drive):
    """The rebuild bound (drive program rate, the engine's throttle and paced share) under a load."""
    spec = PlanSpec.model_validate({"requirements": {"usable_bytes": 1}, "objective": "drives",
                                    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": [drive], "engines": [engine],
                                               "drive_counts": [8], "levels": [6], "strips_bytes": ["64KiB"],
                                               "overprovisioning": [0.5]}})
    cands, verdicts, _ = _filtered(spec)
    hours, _ = shortest_rebuild_hours(cands, CATALOG, loaded=True)
    workload = WorkloadSpec.model_validate(dict(PROFILES["randrw-8k-70"], name="w", numjobs=16, iodepth=8))
    row = dict(cands.row(0), namespace_bytes=int(cands.columns["member_bytes"][0]))
    scenario = parse_scenario(scenario_data(row, [workload], 1, "x"), CATALOG)
    solved = rebuild_summary(scenario, CATALOG, workload)["rebuild_hours"]
    assert 0 < hours[0] <= solved, (hours[0], solved)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=st.lists(st.integers(2, 40), min_size=1, max_size=4, unique=True),  # a value listed twice is refused
       levels=st.lists(st.sampled_from([0, 1, 5, 6, 10]), min_size=1, max_size=5, unique=True),
       strips=st.lists(st.sampled_from(["4KiB", "16KiB", "48KiB", "512KiB", "1GiB"]), min_size=1, max_size=3, unique=True),
       spares=st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True),
       op=st.lists(st.sampled_from([0.0, 0.1, 0.5]), min_size=1, max_size=2, unique=True),
       profile=st.sampled_from(sorted(PROFILES)),
       extras=st.fixed_dictionaries({}, optional={
           "endurance": st.just({"service_life_years": 5, "host_write_bytes_per_s": "1 GB/s"}),
           "rebuild": st.just({"max_hours": 4, "workload": "w", "load_fraction": 0.5}),
           "max_data_loss_probability": st.just(1e-5), "min_mttdl_years": st.just(1e6),
           "max_power_w": st.just(800.0), "max_bays": st.just(12)}),
       usable=st.sampled_from(["1 GB", "10 TB", "1 PB"]))
def test_any_search_space_passes_the_filters_and_bounds_without_an_error(counts, levels, strips, spares, op, profile,
                                                                          extras, usable):
    """Law: stages 1 and 2 take every search space the schema accepts (counts a level does not
    take, strips larger than a namespace, spares, every requirement) and only prune: each
    candidate ends alive or with the stage and rule that pruned it."""
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": usable, "workloads": [{"name": "w", "profile": profile, "min_iops": "1K"}], **extras},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb", "solidigm-d5-p5336-61.44tb"],
                   "engines": ["linux-md", "graid-supremeraid-sr1010"], "drive_counts": counts, "levels": levels,
                   "strips_bytes": strips, "hot_spares": spares, "overprovisioning": op}})
    cands, verdicts, _ = _filtered(spec)
    workloads = {"w": WorkloadSpec.model_validate(dict(PROFILES[profile], name="w", numjobs=8, iodepth=8))}
    bounds_stage(spec, cands, CATALOG, verdicts, workloads)
    assert set(np.unique(verdicts.stage)) <= {0, 1, 2}
    assert all(verdicts.labels[verdicts.requirement[i]] for i in np.flatnonzero(verdicts.stage))
