"""Hunt 6's fault-timeline findings, held: a job of a phase is timed with its whole phase (the
summary and the timeline of one `nvsim run` were 175 times apart); a trim-only load rebuilds at the
idle rate (it held the rebuild at 0, degraded for ever); a horizon on a whole array ends the
timeline (1,000 empty segments); a slot a hot spare took may fail again."""

from __future__ import annotations

import math

import pytest

from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.rebuild import rebuild_summary, run_timeline
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()
ARRAY = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md",
         "hot_spares": 1}


def _scenario(workloads, faults=({"at_s": 0, "drive": 0, "action": "fail"},), **array):
    return parse_scenario({"name": "t", "platform": "dell-poweredge-r750", "array": {**ARRAY, **array},
                           "faults": list(faults), "workloads": workloads}, CATALOG)


def test_a_phase_job_is_timed_with_its_whole_phase():
    reader = {"name": "reader", "rw": "randread", "bs": "4k", "numjobs": 4, "iodepth": 4, "phase": "together"}
    writer = {"name": "writer", "rw": "write", "bs": "1m", "numjobs": 8, "iodepth": 16, "phase": "together"}
    scenario = _scenario([reader, writer])
    timeline = run_timeline(scenario, scenario.workloads[0], CATALOG)
    summary = rebuild_summary(scenario, CATALOG)
    assert timeline.workload == "together" == summary["workload"]
    assert timeline.rebuilds[0].duration_s / 3600 == pytest.approx(summary["rebuild_hours"], rel=1e-9)
    alone = run_timeline(scenario, scenario.workloads[0].model_copy(update={"phase": None}), CATALOG)
    assert timeline.rebuilds[0].duration_s > 10 * alone.rebuilds[0].duration_s


def test_a_trim_only_load_rebuilds_at_the_idle_rate():
    scenario = _scenario([{"name": "trim", "rw": "randtrim", "bs": "64k", "numjobs": 4, "iodepth": 8}], level=10)
    loaded = run_timeline(scenario, scenario.workloads[0], CATALOG)
    idle = run_timeline(scenario, None, CATALOG)
    assert loaded.rebuilds[0].end_s == pytest.approx(idle.rebuilds[0].end_s, rel=1e-9) and idle.rebuilds[0].end_s < math.inf
    assert all(s.state == "rebuilding" and s.foreground_iops > 0 for s in loaded.segments)


@pytest.mark.parametrize("horizon_s", [50.0, 1e6])
def test_a_horizon_ends_a_timeline_on_a_whole_array(horizon_s):
    check = {"at_s": 100.0, "action": "check"}
    scenario = _scenario([{"name": "r", "rw": "randread", "bs": "4k"}], faults=(check,), scrub=True)
    timeline = run_timeline(scenario, scenario.workloads[0], CATALOG, horizon_s=horizon_s)
    assert len(timeline.segments) <= 4 and timeline.segments[-1].end_s == horizon_s
    assert all(a.end_s == b.start_s for a, b in zip(timeline.segments, timeline.segments[1:]))


def test_a_slot_a_hot_spare_took_may_fail_again():
    faults = ({"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 200_000, "drive": 0, "action": "fail"})
    scenario = _scenario([{"name": "r", "rw": "randread", "bs": "4k"}], faults=faults, hot_spares=2)
    timeline = run_timeline(scenario, scenario.workloads[0], CATALOG)
    assert [r.start_s for r in timeline.rebuilds] == [0.0, 200_000.0] and all(r.end_s for r in timeline.rebuilds)
    with pytest.raises(InputError, match=r"faults\[1\]\.action: fail of drive 0, which failed at 0 s"):
        _scenario([{"name": "r", "rw": "randread", "bs": "4k"}], faults=faults, hot_spares=0)


def test_a_replaced_drive_whose_slot_a_spare_took_becomes_a_spare():
    """A replace of a drive a hot spare stood in for was a silent no-op: the next failure, with the
    pool empty, left the array degraded for good. The new drive joins the spares (md adds a device
    to a whole array as a spare), so the next failure rebuilds onto it."""
    faults = [{"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 100, "drive": 0, "action": "replace"},
              {"at_s": 30_000, "drive": 1, "action": "fail"}]
    reader = [{"name": "r", "rw": "randread", "bs": "4k", "numjobs": 1, "iodepth": 1}]
    timeline = run_timeline(_scenario(reader, faults), None, CATALOG)
    assert [r.member for r in timeline.rebuilds] == [0, 1] and all(r.end_s is not None for r in timeline.rebuilds)
    without = run_timeline(_scenario(reader, faults[:1] + faults[2:]), None, CATALOG)
    assert [r.member for r in without.rebuilds] == [0] and without.segments[-1].state == "degraded"


def test_a_fault_is_set_within_a_hundred_years():
    with pytest.raises(ValueError, match=r"at_s.*less than or equal to 3155760000 seconds \(at most 100 years"):
        _scenario([{"name": "r", "rw": "randread"}], [{"at_s": 1e300, "drive": 0, "action": "fail"}])


def test_the_wait_for_a_replacement_widens_the_data_loss_window():
    """Without a hot spare a member stays missing until a new drive takes its slot; the summary's
    risk was the rebuild's alone, so no spare and a next-day part rated as a hot spare did."""
    reader = [{"name": "r", "rw": "randread", "bs": "4k", "numjobs": 1, "iodepth": 1}]
    spare, at_once, next_day = (rebuild_summary(_scenario(reader, (), **array), CATALOG)
                                for array in ({"hot_spares": 1}, {"hot_spares": 0}, {"hot_spares": 0, "replace_hours": 24}))
    assert spare["replacement"] == "onto a hot spare" and at_once["replacement"] == "no hot spare: replaced at once"
    assert next_day["replacement"] == "no hot spare: replaced after 24 h" and next_day["exposure_hours"] == pytest.approx(
        24 + next_day["rebuild_hours"])
    assert next_day["rebuild_hours"] == pytest.approx(spare["rebuild_hours"])
    assert next_day["p_another_failure"] > 4 * spare["p_another_failure"]
    assert next_day["mttdl_years"] < spare["mttdl_years"] and at_once["mttdl_years"] == spare["mttdl_years"]
    with pytest.raises(ValueError, match=r"replace_hours: a hot spare takes the slot at once"):
        _scenario(reader, (), hot_spares=1, replace_hours=24)
