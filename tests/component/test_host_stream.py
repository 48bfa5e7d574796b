"""Host I/O streams (nvsim.sim.workload.HostStream): a mixed sequential job's reads and writes each
go on from where that direction left off (fio's last_pos per direction), and its writes reach a
stripe cache as whole stripes."""

import numpy as np
import pytest
import yaml

from conftest import ROOT

from nvsim.scenario import parse_scenario
from nvsim.sim.workload import HostStream
from nvsim.simulation import Simulation
from nvsim.specs import WorkloadSpec

KIB = 1024


def stream(rw: str, mix: int | None = None) -> HostStream:
    fields = {"name": "s", "rw": rw, "bs": "128k", "iodepth": 64, "numjobs": 1}
    if mix is not None:
        fields["rwmixread"] = mix
    return HostStream.for_job(WorkloadSpec.model_validate(fields), 0, 1 << 40, seed=3)


@pytest.mark.parametrize("mix", [10, 50, 70, 95])
def test_each_direction_of_a_mixed_sequential_job_is_a_stream_of_its_own(mix):
    s = stream("rw", mix)
    batches = [s.next_batch(97) for _ in range(3)]
    offsets = np.concatenate([b[0] for b in batches])
    is_write = np.concatenate([b[1] for b in batches])
    for direction in (is_write, ~is_write):
        got = offsets[direction]
        assert got.tolist() == (np.arange(len(got)) * 128 * KIB).tolist()  # from the job's start, one after the other


def test_a_pure_sequential_job_is_one_stream_as_before():
    offsets, is_write = stream("write").next_batch(50)
    assert is_write.all() and offsets.tolist() == (np.arange(50) * 128 * KIB).tolist()


def test_a_mixed_sequential_jobs_writes_are_whole_stripes_on_a_card():
    raw = yaml.safe_load((ROOT / "scenarios" / "graid-gen5-raid5-16x" / "hardware-raid5.yaml").read_text())
    common = {"bs": "128k", "iodepth": 64, "numjobs": 16, "size": "50G", "offset_increment": "50G"}
    raw["workloads"] = [{"name": "mix", "rw": "rw", "rwmixread": 50, **common}, {"name": "write", "rw": "write", **common}]
    scenario = parse_scenario(raw)
    waf = {w.name: Simulation(scenario, w).run("fluid").metrics()["raid_waf"] for w in scenario.workloads}
    assert waf["mix"] == pytest.approx(waf["write"]) == pytest.approx(16 / 15)  # no read-modify-write
