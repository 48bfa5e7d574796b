"""A rebuild or a parity scrub under a workload that runs in a phase with others (jobs without a
stonewall between them): the load is the whole phase, as the scrub's and the unclean shutdown's
are, and a heavier load never rebuilds or scrubs faster. The hunt's reproduction (8 x 3.84 TB md
RAID5, a 4 KiB reader and a 64 KiB writer together) printed the reader's rebuild alone and a scrub
of 5.21 h at speed_limit_max under the phase, where the writer alone gives 15.11 h: a phase's
Result carried its first job's record, and that record's rate was read as the phase's."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.rebuild import _with_its_phase, rebuild_summary, run_timeline, scrub_summary, sync_rate
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation
from nvsim.specs import FaultSpec, Phase
from nvsim.states import ArrayState

READER = {"name": "reader", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 8, "ioengine": "libaio",
          "phase": "together"}
WRITER = {"name": "writer", "rw": "randwrite", "bs": "64k", "iodepth": 8, "numjobs": 4, "ioengine": "libaio",
          "size": "50G", "offset": "100G", "phase": "together"}


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def _scenario(catalog, engine="linux-md", writer=None, first="reader"):
    jobs = [READER, {**WRITER, **(writer or {})}]
    return parse_scenario({"name": "phase-sync", "platform": "asus-rs520a-e12-rs24u",
                           "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 4, "strip_bytes": "128KiB",
                                     "engine": engine, "scrub": True},
                           "workloads": jobs if first == "reader" else jobs[::-1], "seed": 1}, catalog)


def _alone(workload):
    return workload.model_copy(update={"phase": None})


def test_the_rebuild_summary_runs_beside_the_whole_phase(catalog):
    """Named by the phase, whichever job comes first, and never faster than under either job alone
    (the writer's here: the reader alone lets md run at speed_limit_max)."""
    spec = _scenario(catalog)
    both = rebuild_summary(spec, catalog)
    assert both["workload"] == "together"
    assert rebuild_summary(_scenario(catalog, first="writer"), catalog)["rebuild_hours"] == both["rebuild_hours"]
    alone = {w.name: rebuild_summary(spec, catalog, _alone(w)) for w in spec.workloads}
    assert all(both["rebuild_hours"] >= a["rebuild_hours"] for a in alone.values())
    assert both["rebuild_hours"] > 1.5 * alone["reader"]["rebuild_hours"]
    assert "beside writer" in both["rebuild_limited_by"]


@pytest.mark.parametrize("engine", ["linux-md", "xinnor-xiraid", "broadcom-megaraid-9670w-16i"])
def test_a_heavier_load_never_scrubs_or_rebuilds_faster(catalog, engine):
    spec = _scenario(catalog, engine)
    scrub, rebuild = scrub_summary(spec, catalog), rebuild_summary(spec, catalog)
    assert scrub["workload"] == rebuild["workload"] == "together"
    for w in spec.workloads:
        assert scrub["loaded_hours"] >= scrub_summary(spec, catalog, _alone(w))["loaded_hours"]
        assert rebuild["rebuild_hours"] >= rebuild_summary(spec, catalog, _alone(w))["rebuild_hours"]


@given(bs_kib=st.sampled_from([4, 16, 64, 256]), iodepth=st.integers(1, 32), numjobs=st.integers(1, 8),
       rw=st.sampled_from(["randwrite", "write", "randrw", "read"]))
@settings(deadline=None, max_examples=8)
def test_the_law_holds_for_any_second_job(catalog, bs_kib, iodepth, numjobs, rw):
    """Whatever runs beside the reader, the phase's scrub and rebuild take at least as long as under
    each of its jobs alone."""
    spec = _scenario(catalog, writer={"rw": rw, "bs": bs_kib * 1024, "iodepth": iodepth, "numjobs": numjobs})
    both_scrub, both_rebuild = scrub_summary(spec, catalog)["loaded_hours"], rebuild_summary(spec, catalog)["rebuild_hours"]
    for w in spec.workloads:
        assert both_scrub >= scrub_summary(spec, catalog, _alone(w))["loaded_hours"]
        assert both_rebuild >= rebuild_summary(spec, catalog, _alone(w))["rebuild_hours"]


def test_the_phase_rate_is_its_slowest_jobs(catalog):
    """``sync_rate``: the rate of the job the rebuild is slowest under, and why, named; a plain
    Result's own rate and limit, as before."""
    spec = _scenario(catalog)
    state = ArrayState(missing=(0,), rebuilding=0)
    phase = Simulation(spec, spec.phase("together"), catalog=catalog, state=state).run("fluid")
    rate, why = sync_rate(phase)
    assert rate == min(job.rebuild_bytes_per_s for job in phase.jobs) > 0 and "beside writer" in why
    single = Simulation(spec, _alone(spec.workloads[0]), catalog=catalog, state=state).run("fluid")
    assert sync_rate(single) == (single.rebuild_bytes_per_s, single.rebuild_limited_by)


def test_the_phases_writes_reach_the_new_member(catalog):
    """The timeline under a phase counts each job's host writes landing on the new member (its first
    job, a reader, writes nothing: read alone, the phase's RAID WAF was NaN and they were dropped);
    sharing the array, the writer lands no more than it does alone over the same rebuild."""
    spec = _scenario(catalog)
    trial = spec.model_copy(update={"faults": (FaultSpec(at_s=0.0, drive=0, action="fail"),),
                                    "array": spec.array.model_copy(update={"hot_spares": 1})})
    both = run_timeline(trial, spec.phase("together"), catalog).rebuilds[0]
    alone = run_timeline(trial, _alone(spec.workloads[1]), catalog).rebuilds[0]
    assert both.duration_s == pytest.approx(alone.duration_s, rel=1e-12)  # the writer paces both
    assert 0 < both.host_bytes_to_member <= alone.host_bytes_to_member
    assert math.isfinite(both.host_waf_nand) and both.host_waf_nand > 0


def test_a_callers_copy_of_a_job_takes_its_place_in_the_phase(catalog):
    """The planner hands the rebuild a copy of its load at a share of the jobs: the phase runs with
    that copy in its namesake's place, not both."""
    spec = _scenario(catalog)
    lighter = spec.workloads[1].model_copy(update={"numjobs": 1})
    phase = _with_its_phase(spec, lighter)
    assert isinstance(phase, Phase) and phase.jobs == (spec.workloads[0], lighter)
    assert _with_its_phase(spec, spec.workloads[0]) == spec.phase("together")
    assert _with_its_phase(spec, _alone(spec.workloads[0])) == _alone(spec.workloads[0])
