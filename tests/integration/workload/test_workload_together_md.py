"""Jobs running together on md RAID5 (nvsim.workload.together through the orchestrator, fluid mode):
4 KiB random reads go around md's stripe cache (raid5_read_one_chunk), so writes that saturate
raid5d leave them their own rate; both together wait at the drives when those saturate."""

from __future__ import annotations

import pytest

import nvsim

SYSTEM = {
    "name": "together-md", "description": "8x CM7-R 3.84 TB md RAID5", "platform": "asus-rs520a-e12-rs24u",
    "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "128KiB", "engine": "linux-md"},
    "workloads": [{"name": "unused", "rw": "randread", "bs": "4k"}], "seed": 1,
}


def _jobs():
    reader = nvsim.WorkloadSpec(name="reader", rw="randread", bs=4096, numjobs=8, iodepth=32, ioengine="libaio")
    writer = nvsim.WorkloadSpec(name="writer", rw="randwrite", bs=65536, numjobs=4, iodepth=8, ioengine="libaio")
    return reader, writer


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    import yaml

    path = tmp_path_factory.mktemp("together") / "md.yaml"
    path.write_text(yaml.safe_dump(SYSTEM))
    reader, writer = _jobs()
    alone = {w.name: nvsim.Simulation(str(path), w).run("fluid") for w in (reader, writer)}
    both = nvsim.Simulation(str(path), nvsim.Phase(name="together", jobs=(reader, writer))).run("fluid")
    return alone, {job.workload: job for job in both.jobs}


def test_reads_that_bypass_the_stripe_cache_keep_their_rate_beside_writes_that_saturate_raid5d(runs):
    alone, together = runs
    assert "raid5d" in alone["writer"].simulation.limited_by
    raid5d = [u for u in alone["reader"].simulation.utilisation if "raid5d" in u.resource]
    assert all(u.utilisation == 0.0 for u in raid5d)  # the reads never enter raid5d
    assert together["reader"].total_iops == pytest.approx(alone["reader"].total_iops, rel=1e-9)
    assert together["writer"].total_iops <= alone["writer"].total_iops * (1 + 1e-9)
    assert "waits nowhere" in together["reader"].note and "raid5d" in together["writer"].note
