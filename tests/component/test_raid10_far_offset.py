"""md RAID10's far and offset layouts run end to end (``array.layout: f2`` / ``o2``, mdadm's strings):
a sequential read at least near's (on SSDs md's read_balance spreads either by pending count), a
write two member writes as near (no seek on flash), a degraded read and a rebuild from surviving
copies, and what md or the engine refuses in one line."""

import numpy as np
import pytest

from nvsim import ArrayState, Simulation
from nvsim.scenario import parse_scenario
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec
from tests.conftest import run_cli


def scenario(layout=None, drives=4, engine="linux-md", **array):
    spec = {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": drives, "strip_bytes": "64KiB",
            "engine": engine, **array}
    if layout:
        spec["layout"] = layout
    return parse_scenario({"name": "s", "platform": "dell-poweredge-r750", "array": spec,
                           "placement": {"job_sockets": [0]},
                           "workloads": [{"name": "sr", "rw": "read", "bs": "1m", "iodepth": 32, "numjobs": 4}]})


def iops(spec, fidelity="fluid", state=None, **workload):
    w = spec.workloads[0].model_copy(update=workload)
    return Simulation(spec, w, state=state).run(fidelity, **({"host_ios": 4000} if fidelity == "event" else {})).total_iops


@pytest.mark.parametrize("layout", ["f2", "o2"])
def test_a_sequential_read_is_at_least_nears_and_writes_cost_what_nears_do(layout):
    near, other = scenario(), scenario(layout)
    assert iops(other) >= iops(near) * 0.995
    assert iops(other, "event", numjobs=2) >= iops(near, "event", numjobs=2) * 0.98
    for fidelity in ("fluid", "event"):
        assert iops(other, fidelity, rw="randwrite", bs=4096) == pytest.approx(iops(near, fidelity, rw="randwrite",
                                                                                    bs=4096), rel=0.03)
    assert iops(other, rw="write", numjobs=2) == pytest.approx(iops(near, rw="write", numjobs=2), rel=0.03)


@pytest.mark.parametrize("layout", ["f2", "o2"])
def test_a_degraded_read_takes_the_surviving_copies_and_loses_data_only_with_both(layout):
    """Member 1 missing: its chunks' copies lie on member 2 (far, offset), near's on member 0 alone;
    both copies of a chunk gone (members 1 and 2) is data loss."""
    spec = scenario(layout)
    degraded = iops(spec, state=ArrayState(missing=(1,)))
    assert 0 < degraded <= iops(spec)
    assert degraded >= iops(scenario(), state=ArrayState(missing=(1,))) * 0.995


@pytest.mark.parametrize("layout, far_reader", [("f2", 3), ("o2", 3), (None, 1)])
def test_a_recovery_reads_each_chunk_from_a_surviving_copy(catalog, layout, far_reader):
    """Member 0 rebuilt: its first chunk (chunk 0) is read from member 1; the second copy part
    (far: the member's second half; offset: its second chunk row) holds copies of chunks whose first
    copy lies on member 3, so that is read from member 3 (near: member 1 again, its mirror)."""
    spec = scenario(layout, namespace_bytes="20GB")
    s = ArraySystem(spec, WorkloadSpec(name="idle", rw="randread", bs=4096), catalog, (0,))
    g = s.model.geometry
    second = (g.stride_strips or 1) * g.strip_bytes
    b = s.rebuild_batch(0, np.array([0, second], dtype=np.int64), 65536)
    reads = b.op_drive[~b.op_is_write].tolist()
    assert reads == [1, far_reader] and b.op_drive[b.op_is_write].tolist() == [0, 0]


def test_a_far_arrays_rebuild_takes_nears_time(catalog):
    """Idle, a recovery reads a member's worth from the survivors as near's does (md's speed limit
    binds either way)."""
    from nvsim.rebuild import rebuild_summary
    idle = [scenario(layout, namespace_bytes="20GB").model_copy(update={"workloads": ()}) for layout in (None, "f2")]
    near, far = (rebuild_summary(spec, catalog) for spec in idle)
    assert far["rebuild_hours"] == pytest.approx(near["rebuild_hours"], rel=0.01)


@pytest.mark.parametrize("layout", ["f2", "o2"])
def test_lost_data_and_the_rebuild_risk_count_far_copy_sets(catalog, layout):
    """f2 / o2 on 4 drives: chunks' copies on members {c, c + 1}, four sets of a quarter of the data
    each: members 1 and 2 down lose a quarter (near: nothing, its sets are {0, 1} and {2, 3}), 0 and
    1 a quarter (near: half); a rebuild exposes both neighbours of the failed drive."""
    from nvsim.rebuild import rebuild_summary
    from nvsim.states import lost_data
    spec, near = scenario(layout, namespace_bytes="20GB"), scenario(namespace_bytes="20GB")
    data_bytes = 2 * 20e9
    assert lost_data(spec, catalog, {1, 2}, {}).bytes_lost == pytest.approx(data_bytes / 4)
    assert lost_data(spec, catalog, {0, 1}, {}).bytes_lost == pytest.approx(data_bytes / 4)
    assert lost_data(spec, catalog, {0, 2}, {}) is None and lost_data(near, catalog, {1, 2}, {}) is None
    far_risk, near_risk = (rebuild_summary(s.model_copy(update={"workloads": ()}), catalog) for s in (spec, near))
    assert far_risk["p_another_failure"] == pytest.approx(2 * near_risk["p_another_failure"], rel=1e-3)
    assert far_risk["mttdl_years"] < near_risk["mttdl_years"]


@pytest.mark.parametrize("layout, field, drives, engine, extra", [
    ("f3", "drives", 2, "linux-md", {}),  # md: copies > raid_disks is "unsupported raid10 layout"
    ("x2", "layout", 4, "linux-md", {}),
    ("f2", "near_copies", 4, "linux-md", {"near_copies": 3}),
    ("o2", "layout", 4, "graid-supremeraid-sr1010", {}),  # a card's RAID10 is a stripe of mirror sets
])
def test_what_md_or_the_engine_refuses_is_one_line_and_exit_2(tmp_path, layout, field, drives, engine, extra):
    import yaml
    array = {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": drives, "strip_bytes": "64KiB",
             "engine": engine, "layout": layout, **extra}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"name": "s", "platform": "dell-poweredge-r750", "array": array,
                                    "workloads": [{"name": "r", "rw": "randread", "bs": "4k"}]}))
    result = run_cli("run", str(path), "--fidelity", "fluid")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"array: {field}:" in lines[0], lines


@pytest.mark.parametrize("layout", ["f2", "o2", None])
def test_the_usable_capacity_is_the_arrays_addresses(catalog, layout):
    """raid10.c raid10_size: far and offset hold member chunks // far_copies x n chunks; 20 GB members
    of 64 KiB chunks hold 305,175 (odd), so f2 holds 610,348 chunks where near's n2 holds 610,350:
    the capacity a report prints, the price per TB and the simulator's addresses are that one."""
    from nvsim import capacity
    spec = scenario(layout, namespace_bytes="20GB")
    from nvsim.stripe.layout import ArrayGeometry
    g = ArrayGeometry(10, 4, 65536, layout=spec.array.raid10_kind, member_size_bytes=20 * 10**9, copies=2)
    assert capacity(spec, catalog).usable_bytes == g.capacity_bytes
    assert g.capacity_bytes == (610_350 if layout is None else 610_348) * 65536


@pytest.mark.parametrize("layout, step", [("f2", 4096), ("o2", 4096), (None, 65536)])
def test_a_two_drive_far_arrays_recovery_stops_at_each_chunk(catalog, layout, step):
    """raid10_sync_request stops a request at a chunk's end "if chunks are meaningful",
    ``conf->geo.near_copies < conf->geo.raid_disks``: far and offset have one near copy, so on two
    drives of 4 KiB chunks they recover in 4 KiB requests, where n2 on two drives (a mirror, every
    drive the whole array in order) takes RESYNC_BLOCK_SIZE's 64 KiB."""
    spec = scenario(layout, drives=2, strip_bytes="4KiB", namespace_bytes="20GB")
    s = ArraySystem(spec, WorkloadSpec(name="idle", rw="randread", bs=4096), catalog, (0,))
    assert s.rebuild.step_bytes == step
