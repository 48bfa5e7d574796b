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
