"""A sequential write stream in an engine's stripe cache is gathered in what is in flight
(``nvsim.sim.demand._gathered_bytes``): a stripe's worth gives whole stripes; less, windows of
the stripe written with the reads their missing pages need; one write, its own read-modify-write.
Until 2026-12-01 the cache gathered only a whole stripe's worth: one write short of it, md RAID5
on 10 drives wrote 16 KiB at a RAID WAF of 2.0 (0.81 GB/s), four writes more at 1.11 (3.11 GB/s)."""

import pytest

from nvsim import Simulation
from nvsim.scenario import parse_scenario

DEPTHS = (1, 2, 8, 16, 32, 36, 64)


def _scenario(engine: str, drives: int = 10) -> dict:
    return {"name": "gather", "platform": "supermicro-as-2125hs-tnr",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": "64KiB", "engine": engine},
            "workloads": [{"name": f"qd{d}", "rw": "write", "bs": "16k", "iodepth": d, "numjobs": 32, "size": "100G",
                           "offset_increment": "100G"} for d in DEPTHS], "seed": 1}


@pytest.mark.parametrize("engine", ["linux-md", "ideal-raid"])
def test_more_of_a_stream_in_flight_never_writes_more_per_host_byte_nor_moves_fewer_bytes(engine):
    spec = parse_scenario(_scenario(engine))
    runs = [Simulation(spec, f"qd{d}").run("fluid") for d in DEPTHS]
    wafs = [r.simulation.raid_waf for r in runs]
    rates = [r.write_bytes_per_s for r in runs]
    assert wafs[0] == pytest.approx(2.0) and wafs[-1] == pytest.approx(10 / 9)  # one write; whole stripes
    assert all(b <= a + 1e-9 for a, b in zip(wafs, wafs[1:])), wafs
    assert all(b >= a * 0.999 for a, b in zip(rates, rates[1:])), rates
    at_32 = wafs[DEPTHS.index(32)]  # 512 KiB of a 576 KiB stripe: its first 8 chunks with 1 read a row, the 9th alone
    assert at_32 == pytest.approx(11 / 9, rel=0.02)


def test_an_engine_without_a_stripe_cache_writes_each_write_alone():
    """xiRAID (lockless, no stripe cache) handles each write as it comes, at any depth."""
    spec = parse_scenario(_scenario("xinnor-xiraid"))
    assert {round(Simulation(spec, f"qd{d}").run("fluid").simulation.raid_waf, 6) for d in (1, 32)} == {2.0}


@pytest.mark.parametrize("bs", ["32k", "64k", "128k", "192k"])
def test_the_fluid_sample_of_a_whole_stripe_stream_writes_n_over_n_minus_1(bs):
    """The sample holds whole periods of the stream's alignment: 16 writes of 64 KiB on a 448 KiB
    stripe ended inside the third stripe, which the fluid mode counted as a partial one (RAID WAF
    1.1875, 41.7 GB/s against the event mode's 47.3)."""
    spec = parse_scenario({"name": "waf", "platform": "supermicro-as-2125hs-tnr",
                           "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                                     "engine": "ideal-raid"},
                           "workloads": [{"name": "sw", "rw": "write", "bs": bs, "iodepth": 16, "numjobs": 16,
                                          "size": "100G", "offset_increment": "100G"}]})
    assert Simulation(spec, "sw").run("fluid").simulation.raid_waf == pytest.approx(8 / 7)


def test_a_sequential_sample_is_whole_periods_within_its_bounds():
    from nvsim.sim.model import SEQUENTIAL_SAMPLE_IOS, whole_periods

    fewest, most = SEQUENTIAL_SAMPLE_IOS
    for period in range(1, 1200):
        size = whole_periods(period)
        assert size <= max(most, period) and (size % period == 0 or period > most)
        assert size >= min(fewest, most) or size == period
    assert (whole_periods(7), whole_periods(14), whole_periods(1)) == (21, 28, 16)


def test_a_degraded_array_with_a_huge_sequential_block_is_summarised_within_bounded_memory():
    """The rebuild summary's degraded state tiled a 4 GiB write's sample over every row of the layout
    (24 times its pages): ``nvsim run`` of bs 4g in the fluid mode was killed at 23.5 GB."""
    import resource

    from nvsim.rebuild import rebuild_summary

    spec = parse_scenario({"name": "huge", "platform": "supermicro-as-2125hs-tnr",
                           "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": "4KiB",
                                     "engine": "graid-supremeraid-sr1010"},
                           "workloads": [{"name": "w", "rw": "write", "bs": "1g", "iodepth": 2, "numjobs": 1, "size": "100G"}]})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    summary = rebuild_summary(spec)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert summary["rebuild_hours"] > 0 and grown_kib < 2_000_000, grown_kib


def _fluid_and_event(array: dict, workload: dict, faults: list | None = None) -> tuple:
    data = {"name": "agree", "platform": "supermicro-as-2125hs-tnr",
            "array": {"drive": "kioxia-cm7-r-3.84tb", "strip_bytes": "64KiB", **array},
            "workloads": [{"name": "w", "size": "100G", "offset_increment": "100G", **workload}]}
    if faults:
        data["faults"] = faults
    spec = parse_scenario(data)
    return tuple(Simulation(spec, "w").run(mode, **({"host_ios": 30_000} if mode == "event" else {}))
                 for mode in ("fluid", "event"))


@pytest.mark.parametrize("array, workload, faults", [
    # a 90/10 and a 50/50 sequential mix: reads and writes are streams of their own (fluid WAF 1.86 and 1.39 before)
    ({"level": 5, "drives": 10, "engine": "broadcom-megaraid-9670w-16i"},
     {"rw": "rw", "rwmixread": 90, "bs": "16k", "iodepth": 256, "numjobs": 8}, None),
    ({"level": 5, "drives": 10, "engine": "broadcom-megaraid-9670w-16i"},
     {"rw": "rw", "rwmixread": 50, "bs": "128k", "iodepth": 64, "numjobs": 8}, None),
    # a period longer than 512 I/Os: 4 KiB writes gathered over a 7.5 MiB stripe (fluid 35% low before)
    ({"level": 5, "drives": 16, "engine": "broadcom-megaraid-9670w-16i", "strip_bytes": "512KiB"},
     {"rw": "write", "bs": "4k", "iodepth": 2048, "numjobs": 4}, None),
    # a degraded array: the parity's rotation is the period (fluid WAF 1.014 before)
    ({"level": 5, "drives": 10, "engine": "broadcom-megaraid-9670w-16i"},
     {"rw": "write", "bs": "128k", "iodepth": 8, "numjobs": 8}, [{"at_s": 0, "drive": 0, "action": "fail"}]),
])
def test_the_fluid_sample_of_a_sequential_stream_agrees_with_the_event_mode(array, workload, faults):
    fluid, event = _fluid_and_event(array, workload, faults)
    assert fluid.simulation.raid_waf == pytest.approx(event.simulation.raid_waf, rel=0.03)
    assert fluid.write_bytes_per_s == pytest.approx(event.write_bytes_per_s, rel=0.06)
