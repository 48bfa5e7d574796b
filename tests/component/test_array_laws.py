"""Laws any real array obeys, searched across the parameter space in the fluid mode: more I/Os in
flight never lower a GPU or ideal engine's closed-loop rate (md's locks and stripe cache are the
documented exceptions), RAID6 never writes small blocks faster than RAID5 of the same drives, a
degraded array never serves faster than its optimal self (mirrors' writes aside: they skip the
missing copy) nor a rebuilding one than the degraded, a higher rebuild priority never slows the
rebuild nor speeds host I/O, and usable capacity is the level's data members x the member rounded
to whole strips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim import ArrayState, Simulation, WorkloadSpec, capacity
from nvsim.catalog import default_catalog
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()
ENGINES = ("graid-supremeraid-sr1010", "ideal-raid")


def _scenario(level: int, drives: int, engine: str = "graid-supremeraid-sr1010", strip: int = 65536, **array):
    data = {"name": "laws", "platform": "supermicro-as-2125hs-tnr", "seed": 1, "workloads": [],
            "array": {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": strip,
                      "engine": engine, **array}}
    return parse_scenario(data, CATALOG)


def _job(rw: str, numjobs: int = 16, iodepth: int = 16, bs: int = 4096, **more) -> WorkloadSpec:
    return WorkloadSpec(name="w", rw=rw, bs=bs, numjobs=numjobs, iodepth=iodepth, ioengine="libaio", **more)


def _iops(scenario, job, state=None) -> float:
    return Simulation(scenario, job, catalog=CATALOG, state=state).run("fluid").total_iops


@settings(deadline=None, max_examples=10)
@given(engine=st.sampled_from(ENGINES), level=st.sampled_from([0, 5, 6, 10]), rw=st.sampled_from(["randread", "randwrite", "randrw"]),
       numjobs=st.sampled_from([1, 4, 16]), iodepth=st.sampled_from([1, 4, 16]))
def test_more_ios_in_flight_never_lower_the_rate(engine, level, rw, numjobs, iodepth):
    scenario = _scenario(level, 8, engine)
    less = _iops(scenario, _job(rw, numjobs, iodepth))
    assert _iops(scenario, _job(rw, numjobs, 2 * iodepth)) >= less * 0.995
    assert _iops(scenario, _job(rw, 2 * numjobs, iodepth)) >= less * 0.995


@settings(deadline=None, max_examples=8)
@given(engine=st.sampled_from(ENGINES + ("linux-md",)), drives=st.sampled_from([5, 8, 16]),
       load=st.sampled_from([(1, 1), (4, 16), (64, 32)]), bs=st.sampled_from([4096, 16384]))
def test_raid6_never_writes_small_blocks_faster_than_raid5(engine, drives, load, bs):
    settings_ = {"engine_settings": {"kernel": "5.15"}} if engine == "linux-md" else {}
    job = _job("randwrite", *load, bs=bs)
    assert _iops(_scenario(6, drives, engine, **settings_), job) <= _iops(_scenario(5, drives, engine, **settings_), job) * 1.005


@settings(deadline=None, max_examples=8)
@given(level=st.sampled_from([5, 6]), rw=st.sampled_from(["randread", "randwrite", "randrw", "read", "write"]),
       engine=st.sampled_from(("graid-supremeraid-sr1010", "linux-md")))
def test_degraded_never_serves_faster_than_optimal_nor_rebuilding_than_degraded(level, rw, engine):
    settings_ = {"engine_settings": {"kernel": "5.15"}} if engine == "linux-md" else {}
    scenario = _scenario(level, 8, engine, **settings_)
    job = _job(rw, bs=4096 if rw.startswith("rand") else 1 << 20)
    optimal = _iops(scenario, job)
    degraded = _iops(scenario, job, ArrayState(missing=(0,)))
    rebuilding = _iops(scenario, job, ArrayState(missing=(0,), rebuilding=0))
    assert rebuilding <= degraded * 1.01 and degraded <= optimal * 1.01


def test_a_higher_rebuild_priority_never_slows_the_rebuild_nor_speeds_host_io():
    job = _job("randrw", rwmixread=70)
    runs = [Simulation(_scenario(5, 8, rebuild={"priority": p}), job, catalog=CATALOG,
                       state=ArrayState(missing=(0,), rebuilding=0)).run("fluid") for p in ("low", "normal", "high")]
    rebuild = [r.rebuild_bytes_per_s for r in runs]
    host = [r.total_iops for r in runs]
    assert rebuild == sorted(rebuild) and host == sorted(host, reverse=True)


@settings(deadline=None)
@given(level=st.sampled_from([0, 5, 6, 10]), drives=st.sampled_from([4, 6, 8, 12, 24]),
       strip=st.sampled_from([4096, 16384, 65536, 131072, 524288, 1 << 20]))
def test_usable_capacity_is_the_levels_data_members_of_whole_strips(level, drives, strip):
    member = CATALOG.drives["kioxia-cm7-r-3.84tb"].capacity_bytes.value
    data_members = {0: drives, 5: drives - 1, 6: drives - 2, 10: drives / 2}[level]
    usable = capacity(_scenario(level, drives, strip=strip), CATALOG).usable_bytes
    assert usable == data_members * (member // strip * strip)
    assert 0 <= data_members * member - usable < data_members * strip  # a bigger strip moves it by under a strip a member
