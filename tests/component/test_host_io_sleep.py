"""A job's sleep for its completions (``nvsim.host_io.sleep_share``) in both modes: a second I/O in
flight on an idle array does not make an I/O faster. Until 2026-11-30 the sleep (two context
switches and the wake-up) was charged at depth 1 only, so io_uring at QD2 answered 4.7% below QD1
on md RAID10 of 8 CM7-R (48.6 against 51.0 us)."""

import pytest

import nvsim
from nvsim.scenario import parse_scenario


def _latency_us(catalog, depth: int, mode: str) -> float:
    scenario = parse_scenario({
        "name": "sleep", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 10, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"},
        "workloads": [{"name": "r", "rw": "randread", "bs": "4k", "numjobs": 1, "iodepth": depth, "ioengine": "io_uring"}],
    }, catalog)
    run = nvsim.Simulation(scenario, scenario.workloads[0], catalog=catalog)
    result = run.run(mode, **({"host_ios": 20_000} if mode == "event" else {}))
    return result.read_latency_us["mean"]


def test_a_second_io_in_flight_does_not_make_an_io_faster(catalog):
    """The event mode queues a completion that finds the thread busy, so QD2 is at least QD1; the
    fluid mode bounds a light loop by its unloaded latency, whose wake-up at QD2 is the share of
    completions that find the thread asleep (about 95% here): within 0.5% of QD1."""
    assert _latency_us(catalog, 2, "event") >= _latency_us(catalog, 1, "event")
    qd1, qd2 = _latency_us(catalog, 1, "fluid"), _latency_us(catalog, 2, "fluid")
    assert qd2 == pytest.approx(qd1, rel=5e-3)
