"""`nvsim plan`, hunt 3: requirements no stage would check, and fields that would change nothing,
are one-line refusals; the weighted objective stays finite and plan.json is strict JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import nvsim.plan.output
from nvsim.plan.spec import PlanSpec

PLAN = {
    "requirements": {"usable_bytes": "20 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "1M"}]},
    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
               "drive_counts": [8], "levels": [6], "strips_bytes": ["64KiB"]},
    "confirm": 0, "top": 1,
}


def with_workload(**fields) -> dict:
    return {**PLAN, "requirements": {**PLAN["requirements"], "workloads": [{**PLAN["requirements"]["workloads"][0], **fields}]}}


def with_requirements(**fields) -> dict:
    return {**PLAN, "requirements": {**PLAN["requirements"], **fields}}


@pytest.mark.parametrize("plan, message", [
    (with_workload(max_latency_us={"p99": 1}),
     "confirm: 0 skips the event stage, which checks requirements.workloads[0].max_latency_us; "
     "set confirm >= 1 or drop the target"),
    ({**PLAN, "objective": {"weights": {"usd_per_usable_tb": 1e308, "power_w": 1e308}}},
     "objective.weights.usd_per_usable_tb: at most 1,000,000"),
    (with_workload(job="x"), "requirements.workloads[0]: job: only with fio"),
    (with_requirements(rebuild={"max_hours": 1000, "load_fraction": 0.1}),
     "requirements: rebuild.load_fraction: only with rebuild.workload"),
    (with_requirements(endurance={"service_life_years": 5, "host_write_bytes_per_s": 0}),
     "requirements.endurance.host_write_bytes_per_s: Input should be greater than 0"),
    (with_requirements(workloads=[{"name": "rr", "profile": "randread-4k", "min_iops": "1M", "numjobs": 1}],
                       rebuild={"max_hours": 10, "workload": "rr", "load_fraction": 0.1}),
     "requirements: rebuild.load_fraction: 0.1 of rr's 1 job(s) is 0.1 jobs, under half of one; allowed: at least 0.5"),
])
def test_a_requirement_no_stage_checks_or_a_field_that_changes_nothing_is_refused(tmp_path, cli, plan, message):
    path = tmp_path / "plan.yaml"
    path.write_text(json.dumps(plan))  # JSON is YAML
    bad = cli("plan", str(path), "-o", str(tmp_path / "out"), "--workers", "1")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and message in bad.stderr, bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("plan", [
    with_workload(max_latency_us={"p99": 2000}) | {"confirm": 1},
    {**PLAN, "objective": {"weights": {"usd_per_usable_tb": 1e6, "power_w": 1e-9}}},
    with_workload(profile=None, fio="job.fio", job="x"),
    with_requirements(rebuild={"max_hours": 10, "workload": "rr", "load_fraction": 0.1}),
    with_requirements(rebuild={"max_hours": 10}),
])
def test_the_same_fields_where_they_count_are_taken(plan):
    PlanSpec.model_validate(plan)


def test_plan_json_holds_no_bare_infinity_or_nan():
    """An unranked candidate's objective is infinite: plan.json had the bare token Infinity."""
    text = nvsim.plan.output._json({"objective": math.inf, "margins": [np.float64(-math.inf), math.nan, 1.5], "rank": np.int64(2)})

    def refuse(token):
        raise ValueError(token)
    assert json.loads(text, parse_constant=refuse) == {"objective": None, "margins": [None, None, 1.5], "rank": 2}
