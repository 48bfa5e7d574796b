"""Jobs running together on one drive used directly share its NAND dies as jobs on an array share
its drives (nvsim.workload.compose.together): a QD1 reader beside writers that saturate the drive
waits behind their programs, and the writers give up the pool time the reads take."""

from __future__ import annotations

import pytest

import nvsim

SYSTEM = {
    "name": "together-one-drive", "description": "one CM7-R 7.68 TB used directly", "platform": "supermicro-as-1125hs-tnr",
    "array": {"level": 0, "drive": "kioxia-cm7-r-7.68tb", "drives": 1, "engine": "none"},
    "workloads": [{"name": "unused", "rw": "randread", "bs": "4k"}], "seed": 1,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    import yaml

    path = tmp_path_factory.mktemp("together") / "one.yaml"
    path.write_text(yaml.safe_dump(SYSTEM))
    reader = nvsim.WorkloadSpec(name="reader", rw="randread", bs=4096, numjobs=1, iodepth=1, ioengine="libaio")
    writer = nvsim.WorkloadSpec(name="writer", rw="randwrite", bs=4096, numjobs=4, iodepth=8, ioengine="libaio")
    alone = {w.name: nvsim.Simulation(str(path), w).run("fluid") for w in (reader, writer)}
    both = nvsim.Simulation(str(path), nvsim.Phase(name="together", jobs=(reader, writer))).run("fluid")
    return alone, {job.workload: job for job in both.jobs}


def test_a_reader_beside_saturating_writers_on_one_drive_slows_and_the_writers_give_way(runs):
    alone, together = runs
    assert together["reader"].total_iops < 0.8 * alone["reader"].total_iops  # waits behind the programs
    assert together["writer"].total_iops < alone["writer"].total_iops
    assert "runs at the same time" in together["reader"].note
