"""Drives used directly (engine none, a card's pass-through) are devices of their own: a failed
drive loses its own data and stops the fio jobs bound to it; the other drives and their jobs go on
(it was read as a RAID0 that lost everything: every workload at 0 IOPS). Their capacity and the
reports' names say no RAID level."""

from __future__ import annotations

import pytest

from nvsim.catalog import default_catalog
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation
from nvsim.states import ArrayState, lost_data

CATALOG = default_catalog()


def _passthrough(drives=16, faults=()):
    return parse_scenario({
        "name": "jbod", "platform": "asus-rs520a-e12-rs24u",
        "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": drives, "strip_bytes": "256KiB",
                  "engine": "broadcom-megaraid-9670w-16i", "engine_settings": {"mode": "passthrough"}},
        "faults": list(faults),
        "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 64, "numjobs": 32, "ioengine": "libaio"}],
    }, CATALOG)


def test_a_failed_drive_loses_its_own_data_and_the_others_keep_theirs():
    loss = lost_data(_passthrough(), CATALOG, {3}, {})
    assert loss.bytes_lost == 3.84e12 and loss.stripes_lost == 0 and not loss.stops_io
    assert "drive(s) [3] used directly (no RAID)" in loss.detail and "other 15 drive(s)" in loss.detail
    assert lost_data(_passthrough(drives=2), CATALOG, {0, 1}, {}).stops_io  # nothing left to serve


def test_the_jobs_of_the_drives_left_go_on_as_on_those_drives_alone():
    """32 jobs over 16 drives, drive 3 failed: jobs 3 and 19 stop, 30 go on over 15 drives, the same
    as 15 drives with 30 jobs and no fault; a striped RAID0 with a drive down does no I/O."""
    failed = _passthrough(faults=[{"at_s": 0, "drive": 3, "action": "fail"}])
    result = Simulation(failed, failed.workloads[0], catalog=CATALOG).run("fluid")
    alone = _passthrough(drives=15)
    expected = Simulation(alone, alone.workloads[0].model_copy(update={"numjobs": 30}), catalog=CATALOG).run("fluid")
    assert result.write_iops == pytest.approx(expected.write_iops, rel=1e-12) and result.write_iops > 0
    assert result.state.missing == (3,) and "30 of 32 go on" in result.note
    whole = Simulation(_passthrough(), _passthrough().workloads[0], catalog=CATALOG).run("fluid")
    assert result.write_iops < whole.write_iops
    striped = parse_scenario({**failed.model_dump(mode="json"), "array": {
        **failed.array.model_dump(mode="json", exclude={"engine_settings"}), "engine": "linux-md"}}, CATALOG)
    assert Simulation(striped, striped.workloads[0], catalog=CATALOG, state=ArrayState((3,))).run("fluid").write_iops == 0


def test_the_timeline_goes_on_for_the_drives_left_and_a_replace_brings_a_device_back():
    """The timeline stopped at the first failure with a 'data loss' segment of 0 IOPS, though its own
    record said the other drives keep their data (stops_io false), and a later replace was ignored."""
    from nvsim.rebuild import run_timeline

    faults = [{"at_s": 100, "drive": 3, "action": "fail"}, {"at_s": 200, "drive": 3, "action": "replace"},
              {"at_s": 300, "drive": 5, "action": "fail"}]
    scenario = _passthrough(faults=faults)
    timeline = run_timeline(scenario, scenario.workloads[0], CATALOG)
    states = [(s.start_s, s.end_s, s.state, s.missing) for s in timeline.segments]
    assert states == [(0, 100, "optimal", ()), (100, 100, "data loss", (3,)), (100, 200, "degraded", (3,)),
                      (200, 300, "optimal", ()), (300, 300, "data loss", (5,)), (300, float("inf"), "degraded", (5,))]
    optimal, left = timeline.segments[0].foreground_iops, timeline.segments[2].foreground_iops
    assert 0 < left < optimal and not timeline.data_loss.stops_io and timeline.rebuilds == []
