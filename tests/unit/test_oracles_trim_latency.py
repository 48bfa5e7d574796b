"""A trim at depth 1 (nvsim.workload.trim) against the datasheet: each deallocation is a command the
drive completes, so it takes at least the drive's quoted write-command latency (the assumed cost
of a Dataset Management command) on top of the host path, and the loop obeys X R = 1."""

from pathlib import Path

import pytest

import nvsim
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.run import fio_report, simulate_jobs

ROOT = Path(__file__).resolve().parents[2]
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"


def test_a_qd1_trim_takes_the_drives_command_latency_and_the_host_path(catalog):
    text = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nruntime=30\ntime_based\n[t]\nrw=randtrim\niodepth=1\n"
    parsed = parse_fio_jobfile(text, "job.fio", catalog=catalog)
    spec = nvsim.load_scenario(RAID10, catalog)
    job = fio_report(parsed, simulate_jobs(parsed, spec, catalog, "fluid"), catalog, timestamp=0)["jobs"][0]["trim"]
    quoted_us = catalog.drives[spec.array.drive].write_latency_us.value
    mean_us = job["lat_ns"]["mean"] / 1000
    assert quoted_us + 1.0 <= mean_us <= quoted_us + 10.0  # the command plus a few microseconds of host path
    assert job["iops"] * mean_us * 1e-6 == pytest.approx(1.0, rel=1e-3)  # one in flight: X R = 1
