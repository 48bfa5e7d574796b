"""A batch is planned in the layout's first periods (``sim.demand._planned_batch``, issue 41):
moved back by its whole periods, planned (or found planned), and its member I/Os moved on again.
What comes out is what the planner gives the batch at its own offsets, for every path of the
planner (whole stripes of a sequential write stream, plans by place, a mixed stream, a degraded
array's page-level walk, RAID0), and batches at the same places of the period share one plan."""

import dataclasses

import numpy as np
import pytest

from nvsim.scenario import parse_scenario
from nvsim.sim.demand import _ordered_plan, _whole_periods, plan_host_ios
from nvsim.sim.memo import Memo
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec
from nvsim.stripe.positions import period_bytes

GRAID = {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": "4KiB",
         "engine": "graid-supremeraid-sr1010"}
MD5 = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"}
MD0 = {"level": 0, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "strip_bytes": "64KiB", "engine": "linux-md"}
MD10 = {"level": 10, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "strip_bytes": "64KiB", "engine": "linux-md"}

CASES = [  # (array, failed members, rw, bs)
    (GRAID, (), "write", 1 << 20),  # whole stripes in closed form
    (GRAID, (), "read", 1 << 20),  # plans by place
    (GRAID, (), "randwrite", 4096),
    (GRAID, (), "rw", 1 << 20),  # a mixed stream: its writes coalesced, its reads one by one
    (MD5, (0,), "write", 1 << 20),  # degraded: the page-level walk
    (MD5, (3,), "randread", 12288),
    (MD0, (), "write", 96 << 10),
]


def _system(catalog, array, rw, bs, failed=()):
    scenario = parse_scenario({"name": "t", "platform": "dell-poweredge-r750", "array": array, "workloads": []}, catalog)
    workload = WorkloadSpec(name="w", rw=rw, bs=bs, iodepth=16, numjobs=4)
    return ArraySystem(scenario, workload, catalog, failed, Memo())


def _batch(rw, bs, period, rng, n=300):
    if rw.startswith("rand"):
        offsets = rng.integers(0, 4 * period // bs, n) * bs
    else:
        offsets = int(rng.integers(0, period // 512)) * 512 + np.arange(n, dtype=np.int64) * bs
    is_write = np.full(n, "write" in rw) if rw != "rw" else rng.random(n) < 0.5
    return offsets.astype(np.int64), is_write


def _same(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f.name


@pytest.mark.parametrize("array, failed, rw, bs", CASES)
def test_a_batch_periods_on_gets_the_planners_member_ios(catalog, array, failed, rw, bs):
    model = _system(catalog, array, rw, bs, failed).model
    period = period_bytes(model.geometry)[0]
    offsets, is_write = _batch(rw, bs, period, np.random.default_rng(bs + len(failed)))
    last = (model.geometry.capacity_bytes - int(offsets.max()) - bs) // period  # the batch near the array's end
    memo = Memo()
    for turns in (0, 1, 7, last):
        moved = offsets + turns * period
        plan, chunks, op_start, runs = plan_host_ios(model, 0, moved, is_write, memo)
        own = _ordered_plan(model, 0, moved, is_write, Memo())  # planned at its own offsets
        _same(plan, own[0])
        for got, expected in zip((chunks, op_start, runs), own[1:]):
            assert np.array_equal(got, expected)
    assert len(memo.plans) == 1  # one plan for the four places


def test_raid10_and_a_batch_off_the_array_are_planned_where_they_are(catalog):
    """RAID10's read balance depends on its reads, so its batches are not moved; nor is a batch
    past the array's end, which the planner refuses."""
    raid10 = _system(catalog, MD10, "randread", 4096).model
    assert _whole_periods(raid10, np.array([1 << 40], np.int64)) == 0
    raid5 = _system(catalog, MD5, "randread", 4096).model
    end = raid5.geometry.capacity_bytes
    assert _whole_periods(raid5, np.array([end - 4096], np.int64)) > 0
    assert _whole_periods(raid5, np.array([end - 4096, end], np.int64)) == 0
    with pytest.raises(Exception, match="capacity"):
        plan_host_ios(raid5, 0, np.array([end], np.int64), np.zeros(1, bool), Memo())
