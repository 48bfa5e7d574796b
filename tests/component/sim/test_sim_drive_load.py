"""A workload's region on the drives' FTL (nvsim.sim.drive_load): random writes that reach part of
the device leave the rest static, so the drive's greedy WAF is the active range's (one drive, and
each member of an md RAID0). Oracles: fio's regions counted by hand, the greedy page simulation,
the whole span's own numbers, and a law (a smaller active range never lowers the write rate)."""

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.ftl import simulate_ftl
from nvsim.scenario import parse_scenario
from nvsim.sim.drive_load import ftl_load, written_region_bytes
from nvsim.simulation import predict_workload
from nvsim.specs import WorkloadSpec

NAMESPACE = 7_680_000_000_000  # the CM7-R 7.68 TB's bytes
JOB = {"rw": "randwrite", "bs": "4k", "iodepth": 32, "numjobs": 16}


def _scenario(catalog, workloads, drives=1):
    engine = "none" if drives == 1 else "linux-md"
    return parse_scenario({"name": "active-range", "platform": "supermicro-as-1125hs-tnr", "seed": 1,
                           "array": {"level": 0, "drive": "kioxia-cm7-r-7.68tb", "drives": drives, "engine": engine},
                           "workloads": [{"name": f"w{i}", **JOB, **w} for i, w in enumerate(workloads)]}, catalog)


def _runs(catalog, workloads, drives=1):
    spec = _scenario(catalog, workloads, drives)
    return [predict_workload(spec, w, catalog, "fluid") for w in spec.workloads]


def test_the_written_region_is_the_union_of_fios_clone_regions():
    w = WorkloadSpec(name="w", rw="randwrite")
    assert written_region_bytes(w, 1000.0 * 4096) == 1000 * 4096
    assert written_region_bytes(w.model_copy(update={"offset": 4096 * 600}), 4096 * 1000) == 4096 * 400
    sized = w.model_copy(update={"size": 4096 * 100, "numjobs": 4})
    assert written_region_bytes(sized, 4096 * 1000) == 4096 * 100  # the clones share one region
    assert written_region_bytes(sized.model_copy(update={"offset_increment": 4096 * 50}), 4096 * 1000) == 4096 * 250
    assert written_region_bytes(sized.model_copy(update={"offset_increment": 4096 * 300}), 4096 * 1000) == 4096 * 400
    assert written_region_bytes(sized.model_copy(update={"offset": 4096 * 950}), 4096 * 1000) == 4096 * 50
    # a sequential stream rewrites whole blocks whatever its region: no load
    assert ftl_load(WorkloadSpec(name="s", rw="write", size=4096 * 100), 4096 * 1000).is_default
    assert ftl_load(sized, 4096 * 1000).active_fraction == pytest.approx(0.1)


def test_a_tenth_of_one_drive_writes_at_the_simulated_greedy_waf_and_faster(catalog):
    full, region, zoned, whole = _runs(catalog, [{}, {"size": NAMESPACE // 10},
                                                 {"random_distribution": "zoned:100/10:0/90"}, {"size": NAMESPACE}])
    assert (whole["waf_ftl"], whole["write_iops"]) == (full["waf_ftl"], full["write_iops"])  # the full span: same bits
    assert full["waf_ftl"] == pytest.approx(4.12, abs=0.01)
    spare = full["spare_factor"]
    run = simulate_ftl(spare, workload="hot_cold", hot_data_fraction=0.1, hot_write_fraction=1.0)
    assert region["waf_ftl"] == pytest.approx(run.nand_pages / run.host_pages, rel=0.03)  # 1.128 both
    assert region["write_iops"] > 3 * full["write_iops"]
    # a zone of 0% of the writes is data outside the region: the same drive state
    assert zoned["waf_ftl"] == pytest.approx(region["waf_ftl"], rel=1e-9)
    assert zoned["write_iops"] == pytest.approx(region["write_iops"], rel=1e-9)


def test_each_member_of_an_md_raid0_sees_its_share_of_the_region(catalog):
    """2 drives, size half the array: each member's region is half its namespace, the WAF of one
    drive written over half its span."""
    full, half = _runs(catalog, [{}, {"size": NAMESPACE}], drives=2)
    (one_half,) = _runs(catalog, [{"size": NAMESPACE // 2}])
    assert half["waf_nand"] == pytest.approx(one_half["waf_ftl"], rel=1e-6)
    assert half["waf_nand"] < full["waf_nand"] and half["write_iops"] > full["write_iops"]


@settings(max_examples=25)
@given(st.integers(min_value=1, max_value=1000), st.integers(min_value=1, max_value=1000))
def test_a_smaller_active_range_never_lowers_steady_random_write_iops(catalog, a, b):
    small, large = sorted((a, b))
    step = NAMESPACE // 1000 // 4096 * 4096
    low, high = _runs(catalog, [{"size": small * step}, {"size": large * step}])
    assert low["write_iops"] >= high["write_iops"] * (1 - 1e-12)
    assert low["waf_ftl"] <= high["waf_ftl"] * (1 + 1e-12)
