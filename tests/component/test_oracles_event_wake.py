"""A job that sleeps for each completion (one I/O in flight, interrupt completions: psync,
posixaio) waits the engine's wake-up after the drive finishes (models/host_io: 2 us for psync, two
wake-ups in series, 4 us, for posixaio): at QD1 the event mode's mean latency is the fluid mode's
closed form, device latency + wake-up + CPU of the path (X = 1 / R), in both directions; and the
wake-up is there: the sleeping engine's QD1 latency exceeds the fluid mode's without it."""

from __future__ import annotations

import pytest

from nvsim import Simulation, parse_scenario

DRIVE = "kioxia-cm7-r-3.84tb"


def _spec(catalog, engine: str, rw: str):
    return parse_scenario({
        "name": "wake", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 0, "drive": DRIVE, "drives": 2, "strip_bytes": "64KiB", "engine": "ideal-raid"},
        "workloads": [{"name": "w", "rw": rw, "bs": "4k", "iodepth": 1, "numjobs": 1, "ioengine": engine}],
        "seed": 1}, catalog)


@pytest.mark.parametrize("engine, wake_us", [("posixaio", 4.0), ("psync", 2.0)])
def test_a_sleeping_qd1_job_waits_its_wake_up_in_the_event_mode(catalog, engine, wake_us):
    spec = _spec(catalog, engine, "randread")
    assert catalog.host_io[engine].wake_us.value == wake_us
    event = Simulation(spec, spec.workloads[0], catalog=catalog).run("event", host_ios=20_000)
    fluid = Simulation(spec, spec.workloads[0], catalog=catalog).run("fluid")
    event_us, fluid_us = event.read_latency_us["mean"], fluid.read_latency_us["mean"]
    assert event_us == pytest.approx(fluid_us, rel=0.02)  # the same path, sampled vs closed form
    assert event.total_iops * event_us * 1e-6 == pytest.approx(1.0, rel=0.01)  # QD1: X R = 1
    # without the wake-up the event mode would be wake_us faster: more than the 2% allowed above
    assert wake_us / fluid_us > 0.04
