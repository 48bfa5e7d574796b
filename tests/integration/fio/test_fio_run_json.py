"""`nvsim fio`'s JSON against a real fio 3.x output and against Little's law (issue 24, item 8).

tests/data/fio/real/fio-3.33-null-randread-qd4.json was written by Debian's fio 3.33:
``fio --name=randread-qd4 --ioengine=null --size=64m --bs=4k --rw=randread --iodepth=4
--numjobs=1 --output-format=json``. Its keys and their units (``*_ns`` latencies in nanoseconds,
``runtime`` in milliseconds, ``bw`` in KiB/s) are the oracle for the layout; Little's law (I/Os in
flight = IOPS x mean latency) is the oracle for the numbers: latencies written in microseconds
under fio's ``_ns`` keys, or a runtime in seconds, break it by a factor of a thousand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REAL = json.loads((Path(__file__).resolve().parents[2] / "data" / "fio" / "real" / "fio-3.33-null-randread-qd4.json").read_text())
DIRECTION_KEYS = ("io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios", "drop_ios",
                  "slat_ns", "clat_ns", "lat_ns")
STAT_KEYS = ("min", "max", "mean", "stddev", "N")
JOB = """[global]
ioengine=libaio
direct=1
bs=4k
time_based=1
runtime=10

[randread-qd{depth}]
rw=randread
iodepth={depth}
numjobs={jobs}
group_reporting=1
"""


def units_hold(direction: dict, in_flight: float) -> None:
    """fio's own relations between the fields of one direction, and Little's law."""
    runtime_s = direction["runtime"] / 1000.0  # milliseconds
    assert direction["iops"] == pytest.approx(direction["total_ios"] / runtime_s, rel=0.01)
    assert direction["bw_bytes"] == pytest.approx(direction["io_bytes"] / runtime_s, rel=0.01)
    assert direction["bw"] == direction["bw_bytes"] // 1024 and direction["io_kbytes"] == direction["io_bytes"] >> 10
    lat = direction["lat_ns"]
    assert lat["min"] <= lat["mean"] <= lat["max"] and lat["N"] > 0
    if in_flight:
        assert direction["iops"] * lat["mean"] * 1e-9 == pytest.approx(in_flight, rel=0.03)


def test_the_real_fio_output_obeys_the_relations_the_test_assumes():
    job = REAL["jobs"][0]
    read = job["read"]
    assert set(DIRECTION_KEYS) <= set(read)
    units_hold(read, in_flight=0)  # the null engine's I/Os are not a closed loop on a device
    assert 100 < read["lat_ns"]["mean"] < 1000  # a null I/O takes ~0.2 us: nanoseconds, not microseconds
    assert job["latency_ns"]["250"] > 99  # and fio files it under latency_ns


@pytest.mark.parametrize("depth, jobs", [(1, 1), (8, 2)])
def test_nvsim_fio_json_has_fios_layout_and_units(cli, tmp_path, depth, jobs):
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(JOB.format(depth=depth, jobs=jobs))
    out = tmp_path / "out.json"
    result = cli("fio", str(jobfile), "--system", "scenarios/graid-gen5-raid6", "-o", str(out))
    assert result.returncode == 0, result.stderr
    mine = json.loads(out.read_text())["jobs"][0]
    real = REAL["jobs"][0]
    for key in DIRECTION_KEYS:
        assert type(mine["read"][key]) is type(real["read"][key]), key
    for key in ("slat_ns", "clat_ns", "lat_ns"):
        assert set(STAT_KEYS) <= set(mine["read"][key]) and set(STAT_KEYS) <= set(real["read"][key])
    assert set(mine["read"]["clat_ns"]["percentile"]) <= set(real["read"]["clat_ns"]["percentile"])
    assert set(mine["latency_us"]) == set(real["latency_us"]) and set(mine["latency_ms"]) == set(real["latency_ms"])
    units_hold(mine["read"], in_flight=depth * jobs)
    median_ns = mine["read"]["clat_ns"]["percentile"]["50.000000"]
    assert 20_000 <= median_ns <= 2_000_000  # an NVMe array read: tens of microseconds to a millisecond
    assert sum(mine["latency_us"].values()) + sum(mine["latency_ms"].values()) > 99  # filed as fio files them


WHOLE_IOS_JOB = """[global]
ioengine=libaio
direct=1
time_based=1
runtime=300

[read-1m]
rw=read
bs=1m
iodepth=16
numjobs=192
group_reporting=1

[mix-16k]
stonewall
rw=randrw
rwmixread=70
bs=16k
iodepth=16
numjobs=3
"""


def test_io_bytes_are_whole_ios_of_the_block_size_as_fio_counts_them(cli, tmp_path):
    """fio counts completed I/Os: a job of one block size moved total_ios x bs bytes (the real run's
    16,384 x 4 KiB). nvsim rounded the I/Os and the bytes each on their own: graid-gen5-raid6's
    time-based 1 MiB read (fluid) moved 78,000,000,000,000 bytes in 74,386,597 I/Os, 0.68 of an I/O
    short of its count."""
    real = REAL["jobs"][0]["read"]
    assert real["io_bytes"] == real["total_ios"] * 4096
    jobfile = tmp_path / "job.fio"
    jobfile.write_text(WHOLE_IOS_JOB)
    out = tmp_path / "out.json"
    result = cli("fio", str(jobfile), "--system", "scenarios/graid-gen5-raid6", "--fidelity", "fluid", "-o", str(out))
    assert result.returncode == 0, result.stderr
    jobs = json.loads(out.read_text())["jobs"]
    assert [job["jobname"] for job in jobs] == ["read-1m"] + ["mix-16k"] * 3
    for job, bs in zip(jobs, (2**20, 16384, 16384, 16384)):
        for ddir in ("read", "write"):
            direction = job[ddir]
            assert direction["io_bytes"] == direction["total_ios"] * bs, (job["jobname"], ddir)
            assert direction["io_kbytes"] == direction["io_bytes"] >> 10
    assert jobs[0]["read"]["total_ios"] > 0 and jobs[1]["write"]["total_ios"] > 0
