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


def _system(tmp_path, name, engine, faults=()):
    data = {"name": name, "description": "8x CM7-R RAID5", "platform": "asus-rs520a-e12-rs24u",
            "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "256KiB", "engine": engine},
            "workloads": [{"name": "unused", "rw": "randread", "bs": "4k"}], "seed": 1}
    if faults:
        data["faults"] = list(faults)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.mark.parametrize("engine", ["broadcom-megaraid-9670w-16i", "linux-md"])
def test_where_the_engine_binds_a_write_waits_its_two_visits(tmp_path, engine):
    """A card's processor or md's raid5d binding a 70/30 mix: a read-modify-write queues at the
    engine before and after its reads, a read once (md's reads wait for their job's thread, held in
    a write's submission), as the event mode measures it; the fluid mode split them evenly (9670W:
    3,195 / 3,217 us against the event mode's 2,470 / 4,919)."""
    scenario = _system(tmp_path, "engine", engine)
    mix = nvsim.WorkloadSpec(name="mx", rw="randrw", rwmixread=70, bs=8192, numjobs=64, iodepth=32, ioengine="libaio")
    fluid = nvsim.Simulation(scenario, mix).run("fluid").simulation
    assert "RAID card processor" in fluid.limited_by or "raid5d" in fluid.limited_by
    assert fluid.write_latency_us["mean"] > 1.8 * fluid.read_latency_us["mean"]
    event = nvsim.Simulation(scenario, mix).run("event", host_ios=60_000).simulation
    for direction in ("read_latency_us", "write_latency_us"):
        assert getattr(fluid, direction)["mean"] == pytest.approx(getattr(event, direction)["mean"], rel=0.15)


def test_a_degraded_states_directions_follow_the_event_mode(tmp_path):
    """A member missing (the state's queueing network, ``FioLoad.latency_by_direction``): reads and
    writes had one figure, the cycle; now each its own, averaging to it."""
    scenario = _system(tmp_path, "degraded", "linux-md", [{"at_s": 0, "drive": 0, "action": "fail"}])
    mix = nvsim.WorkloadSpec(name="rrw", rw="randrw", rwmixread=70, bs=4096, numjobs=8, iodepth=16, ioengine="libaio")
    fluid = nvsim.Simulation(scenario, mix).run("fluid").simulation
    f = fluid.read_iops / fluid.total_iops
    both = f * fluid.read_latency_us["mean"] + (1 - f) * fluid.write_latency_us["mean"]
    assert both == pytest.approx(8 * 16 / fluid.total_iops * 1e6, rel=1e-9)
    assert fluid.write_latency_us["mean"] > 1.4 * fluid.read_latency_us["mean"]
    event = nvsim.Simulation(scenario, mix).run("event", host_ios=60_000).simulation
    for direction in ("read_latency_us", "write_latency_us"):
        assert getattr(fluid, direction)["mean"] == pytest.approx(getattr(event, direction)["mean"], rel=0.2)
