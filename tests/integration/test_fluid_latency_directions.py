"""The fluid mode's mean latency per direction (nvsim.sim.fluid.latency_by_direction_us): Little's
law holds over both directions, a pure stream keeps N / X, and where the drives bind a random
write that reads before it writes (RAID5's read-modify-write) waits out more queues than a read,
as the event mode measures it."""

from __future__ import annotations

import pytest
import yaml

import nvsim

SYSTEM = {
    "name": "directions", "description": "8x CM7-R 3.84 TB RAID5", "platform": "supermicro-as-2125hs-tnr",
    "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "xinnor-xiraid"},
    "workloads": [{"name": "unused", "rw": "randread", "bs": "4k"}], "seed": 1,
}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("directions") / "raid5.yaml"
    path.write_text(yaml.safe_dump(SYSTEM))
    return str(path)


def _mix(read_percent: int) -> nvsim.WorkloadSpec:
    return nvsim.WorkloadSpec(name=f"mix{read_percent}", rw="randrw", rwmixread=read_percent, bs=4096, numjobs=16,
                              iodepth=32, ioengine="libaio")


@pytest.mark.parametrize("read_percent", [10, 50, 70, 95])
def test_the_directions_mean_is_the_closed_loops(scenario, read_percent):
    result = nvsim.Simulation(scenario, _mix(read_percent)).run("fluid")
    sim = result.simulation
    f = sim.read_iops / sim.total_iops
    mean_us = 16 * 32 / sim.total_iops * 1e6
    both = f * sim.read_latency_us["mean"] + (1 - f) * sim.write_latency_us["mean"]
    assert both == pytest.approx(mean_us, rel=1e-9)
    if "drive NAND" in sim.limited_by:  # 10-70% reads; at 95% the job cores bind, each host I/O waits there once
        assert sim.write_latency_us["mean"] > 1.5 * sim.read_latency_us["mean"]


def test_a_pure_stream_keeps_n_over_x(scenario):
    for rw in ("randread", "randwrite"):
        w = nvsim.WorkloadSpec(name=rw, rw=rw, bs=4096, numjobs=16, iodepth=32, ioengine="libaio")
        sim = nvsim.Simulation(scenario, w).run("fluid").simulation
        lat = sim.read_latency_us if rw == "randread" else sim.write_latency_us
        assert lat["mean"] == pytest.approx(16 * 32 / sim.total_iops * 1e6, rel=1e-12)


def test_the_split_follows_the_event_mode_where_the_drives_bind(scenario):
    fluid = nvsim.Simulation(scenario, _mix(70)).run("fluid").simulation
    event = nvsim.Simulation(scenario, _mix(70)).run("event", host_ios=60_000).simulation
    for direction in ("read_latency_us", "write_latency_us"):
        assert getattr(fluid, direction)["mean"] == pytest.approx(getattr(event, direction)["mean"], rel=0.15)
