"""md RAID1 keeps a sequential read stream on one mirror (raid1.c ``read_balance``: "Don't change
to another disk for sequential reads"; ``next_seq_sect``): one stream reads at one drive's rate,
several spread over the mirrors, random reads keep their balance, and md RAID10 (whose
``read_balance`` picks the copy with the fewest pending requests on SSDs, no ``next_seq_sect``) does
not change. Until 2026-12-01 the planner sent RAID1 read h to mirror h % n: one 1 MiB QD32 stream
read 13.0 GB/s on two D7-P5510s and 16.9 GB/s on four, against one drive's 6.5."""

import pytest

from nvsim import ArrayState, Simulation
from nvsim.scenario import parse_scenario

ONE_DRIVE_GB_S = 6.5  # the D7-P5510's 1 MiB sequential read, as its model gives it


def scenario(level=1, drives=2, engine="linux-md"):
    return parse_scenario({"name": "s", "platform": "dell-poweredge-r750",
                           "array": {"level": level, "drive": "intel-d7-p5510-3.84tb", "drives": drives,
                                     "strip_bytes": "64KiB", "engine": engine},
                           "placement": {"job_sockets": [0]},
                           "workloads": [{"name": "sr", "rw": "read", "bs": "1m", "iodepth": 32, "numjobs": 1}]})


def gb_s(spec, fidelity="fluid", state=None, **workload):
    w = spec.workloads[0].model_copy(update=workload)
    r = Simulation(spec, w, state=state).run(fidelity, **({"host_ios": 4000} if fidelity == "event" else {}))
    return r.total_iops * w.bs / 1e9


@pytest.mark.parametrize("drives", [2, 4])
@pytest.mark.parametrize("fidelity", ["fluid", "event"])
def test_one_sequential_stream_reads_at_one_drives_rate(drives, fidelity):
    assert gb_s(scenario(drives=drives), fidelity) == pytest.approx(ONE_DRIVE_GB_S, rel=0.03)


@pytest.mark.parametrize("drives, jobs, busy", [(4, 2, 2), (2, 4, 2), (4, 4, 4), (3, 2, 2)])
def test_several_streams_spread_over_the_mirrors(drives, jobs, busy):
    assert gb_s(scenario(drives=drives), numjobs=jobs) == pytest.approx(busy * ONE_DRIVE_GB_S, rel=0.03)


def test_the_state_solver_keeps_each_stream_on_a_surviving_mirror():
    """Three mirrors, one missing: two streams take the two survivors, one stream one of them."""
    spec = scenario(drives=3)
    degraded = ArrayState(missing=(0,))
    assert gb_s(spec, state=degraded, numjobs=1) == pytest.approx(ONE_DRIVE_GB_S, rel=0.05)
    assert gb_s(spec, state=degraded, numjobs=2) == pytest.approx(2 * ONE_DRIVE_GB_S, rel=0.05)


def test_random_reads_and_raid10_and_other_engines_are_balanced_as_before():
    two = gb_s(scenario(drives=2), rw="randread")  # one job: its random reads rotate over every mirror
    assert gb_s(scenario(drives=4), rw="randread") == pytest.approx(2 * two, rel=0.02)
    raid10 = scenario(level=10, drives=4)
    assert gb_s(raid10, numjobs=4) == pytest.approx(4 * gb_s(raid10, numjobs=1), rel=0.05)
    ideal = scenario(drives=2, engine="ideal-raid")
    assert gb_s(ideal) > 1.5 * ONE_DRIVE_GB_S  # an engine that is no md: reads still rotate
