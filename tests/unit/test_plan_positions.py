"""Plans by place in the layout's period (``nvsim.stripe.positions``) are ``plan_ios``'s arrays:
every level it takes, every layout, sizes that cross strips, stripes and periods, reads and writes,
degraded arrays, batches that meet places already planned and new ones."""

import dataclasses

import numpy as np
import pytest

from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import plan_ios
from nvsim.stripe.positions import PositionPlans, period_bytes, plans_by_position
from nvsim.stripe import positions

CASES = [  # (level, members, strip, layout, bs, failed)
    (6, 24, 4096, "left-symmetric", 4096, ()),
    (6, 24, 4096, "left-symmetric", 1 << 20, ()),
    (6, 8, 65536, "right-asymmetric", 12288, (3,)),
    (5, 5, 16384, "left-asymmetric", 4096, ()),
    (5, 6, 8192, "right-symmetric", 20480, (0,)),
    (6, 7, 4096, "left-symmetric", 8192, (1, 4)),
    (0, 4, 65536, "left-symmetric", 4096, ()),
    (0, 3, 8192, "left-symmetric", 24576, ()),
]


def _same(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f.name


@pytest.mark.parametrize("level, members, strip, layout, bs, failed", CASES)
def test_plans_by_place_are_the_planners(level, members, strip, layout, bs, failed):
    geom = ArrayGeometry(level, members, strip, layout, member_size_bytes=1 << 30)
    table = PositionPlans(geom, bs, failed)
    rng = np.random.default_rng(level * 100 + members)
    slots = (geom.capacity_bytes - bs) // 512
    for batch in range(4):  # later batches meet places the first ones planned
        offsets = rng.integers(0, slots, 300) * 512
        if batch % 2:  # a sequential run, aligned to bs
            offsets = (rng.integers(0, slots // 8) * 512 + np.arange(300) * bs) % (geom.capacity_bytes - bs) // bs * bs
        is_write = rng.random(300) < 0.5
        _same(table.plan(is_write, offsets), plan_ios(geom, is_write, offsets, bs, failed))


def test_a_full_table_starts_afresh_and_still_plans(monkeypatch):
    """Past its bound the table forgets its places and keeps this batch's (memory stays bounded)."""
    monkeypatch.setattr(positions, "PLACES_MAX", 10)
    geom = ArrayGeometry(6, 8, 4096, member_size_bytes=1 << 28)
    table = PositionPlans(geom, 4096)
    rng = np.random.default_rng(7)
    for _ in range(3):
        offsets = rng.integers(0, 1000, 40) * 4096
        is_write = rng.random(40) < 0.3
        _same(table.plan(is_write, offsets), plan_ios(geom, is_write, offsets, 4096))
        assert len(table.keys) <= 80


def test_raid1_and_raid10_are_not_planned_by_place():
    """Their read balance depends on the host I/O's index and the reads before it."""
    assert not plans_by_position(ArrayGeometry(10, 4, 65536), 4096)
    assert not plans_by_position(ArrayGeometry(1, 2), 4096)


def test_only_periods_of_few_host_ios_are_planned_by_place():
    """The default scenario's 4 KiB I/Os (528 to a period) and 1 MiB ones are; md's 512 KiB strips
    on 8 members (6,144 of 4 KiB to a period) plan whole batches."""
    small = ArrayGeometry(6, 24, 4096, member_size_bytes=1 << 40)
    large = ArrayGeometry(6, 8, 512 << 10, member_size_bytes=1 << 40)
    assert plans_by_position(small, 4096) and plans_by_position(small, 1 << 20)
    assert not plans_by_position(large, 4096) and plans_by_position(large, 1 << 20)


def test_an_io_past_the_end_is_refused_as_the_planner_refuses_it():
    geom = ArrayGeometry(5, 4, 4096, member_size_bytes=1 << 20)
    with pytest.raises(ValueError, match="capacity"):
        PositionPlans(geom, 4096).plan(np.zeros(1, bool), np.array([geom.capacity_bytes]))


def test_period_is_n_stripes_for_parity_levels_one_for_raid0():
    assert period_bytes(ArrayGeometry(6, 24, 4096)) == (24 * 22 * 4096, 24 * 4096)
    assert period_bytes(ArrayGeometry(0, 4, 65536)) == (4 * 65536, 65536)


@pytest.mark.parametrize("level, members, strip, layout, bs, failed", CASES[:4])
def test_each_host_io_has_its_places_member_ios_moved_on_by_its_periods(level, members, strip, layout, bs, failed):
    geom = ArrayGeometry(level, members, strip, layout, member_size_bytes=1 << 30)
    table = PositionPlans(geom, bs, failed)
    rng = np.random.default_rng(7)
    offsets = rng.integers(0, (geom.capacity_bytes - bs) // 512, 200) * 512
    is_write = rng.random(200) < 0.5
    plan = table.plan(is_write, offsets)
    entry = table.entries(is_write, offsets)
    places, place_offsets, place_writes = table.places_plan()
    period, member_period = period_bytes(geom)
    assert entry.min() >= 0 and entry.max() < len(place_offsets) == len(places.mode)
    assert np.array_equal(place_offsets[entry], offsets % period) and np.array_equal(place_writes[entry], is_write)
    for h in rng.choice(200, 20, replace=False):
        mine, its = plan.for_host(h), places.for_host(entry[h])
        assert np.array_equal(mine["member"], its["member"])
        moved_on = its["member_offset_bytes"] + offsets[h] // period * member_period
        assert np.array_equal(mine["member_offset_bytes"], moved_on)
        assert plan.mode[h] == places.mode[entry[h]] and plan.stripes_touched[h] == places.stripes_touched[entry[h]]
    assert table.entries([True], [offsets[0] + 512 * 3 + 1]).tolist() == [-1]  # a place not filed


def test_threads_that_share_a_table_get_the_plans_and_costs_one_thread_gets(monkeypatch):
    """The dashboard's server answers requests in threads over one table per geometry: a thread that
    read its entries before another started the table afresh costed them from the new, shorter
    table (IndexError: index 1234 is out of bounds for axis 0 with size 1220; 13 of 16 threads)."""
    import threading

    import nvsim
    from nvsim.sim.demand import host_io_batch
    from nvsim.sim.memo import Memo
    from nvsim.sim.system import ArraySystem

    monkeypatch.setattr(positions, "PLACES_MAX", 3000)  # start afresh often
    spec = nvsim.load_scenario("scenarios/graid-gen5-raid6")
    workload = next(w for w in spec.workloads if w.rw == "randread")  # its batches mixed below
    model = ArraySystem(spec, workload, nvsim.default_catalog()).model
    memo, failures, results = Memo(), [], {}

    def batches(seed: int) -> list:
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(30):
            offsets = rng.integers(0, 10**6, 512) * workload.bs
            out.append(host_io_batch(model, 0, offsets, rng.random(512) < 0.5, None, None, memo).pre_s)
        return out

    def work(seed: int) -> None:
        try:
            results[seed] = batches(seed)
        except Exception as exc:  # noqa: BLE001 - collected, then asserted empty
            failures.append(repr(exc))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    for seed in (0, 7):  # the same costs one thread alone gets
        assert all(np.array_equal(a, b) for a, b in zip(results[seed], batches(seed)))
