"""Each RAID engine (nvsim.engines) on its own: the costs it charges for hand-made plans.

The plans come from the stripe core (``plan_ios`` on tiny geometries) or are written out here
(rebuild requests); the expected costs are counted by hand from each engine module's docstring:
md per md request (chunk), per stripe_head and per member page; the GPU per stripe and per member
page, its bandwidth limit per host byte read; the RAID card per member command and per stripe, its
link per host byte; the lockless engine per host I/O and per member I/O. Parameter values are read
from the engine (fitted numbers move); what is checked is how they add up.
"""

import dataclasses
import math

import numpy as np
import pytest

from nvsim.engines import Engine, build_engine
from nvsim.engines.md import STRIPE_CACHE_MAX
from nvsim.engines.base import PRIORITY_SCALE
from nvsim.specs import RebuildSpec
from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import DEGRADED_READ, FULL_STRIPE_WRITE, READ_MODIFY_WRITE, RECONSTRUCT_WRITE, \
    MemberIOPlan, plan_ios

KIB = 1024
PAGE = 4096
MD, GPU, CARD, LOCKLESS, IDEAL = ("linux-md", "graid-supremeraid-sr1010", "broadcom-megaraid-9560-16i",
                                  "xinnor-xiraid", "ideal-raid")
NO_PARITY_TIME = {"parity_gen_gb_per_s": math.inf}  # parity at an unbounded rate: only the counted costs remain


def make_engine(catalog, name: str, *, members: int, strip_bytes: int, degraded: bool = False,
                shared_access_factor: float = 1.0, overrides: dict[str, float] | None = None,
                settings: dict | None = None) -> Engine:
    """The one place these tests build and configure an engine (as nvsim.sim.model.build does);
    ``overrides``: other values of its catalog parameters (``Catalog.with_values``); md without
    its write-intent bitmap unless ``settings`` say (the bitmap's costs: tests/component/engines/)."""
    overrides = overrides or {}
    finite = {key: value for key, value in overrides.items() if math.isfinite(value)}
    if finite:
        catalog = catalog.with_values({f"engines/{name}/{key}": value for key, value in finite.items()})
    if settings is None:
        settings = {"bitmap": "none"} if name == MD else {}
    engine = build_engine(catalog.engines[name], settings, members=members, strip_bytes=strip_bytes,
                          degraded=degraded, shared_access_factor=shared_access_factor)
    return unbounded(engine, {key: value for key, value in overrides.items() if key not in finite})


def unbounded(engine: Engine, values: dict[str, float]) -> Engine:
    """``engine`` with parameters at values no catalog takes (an infinite rate: its time is 0),
    set on the built engine (``model_copy`` skips the catalog's physical ranges)."""
    if not values:
        return engine
    cited = {key: getattr(engine.params, key).model_copy(update={"value": value}) for key, value in values.items()}
    return dataclasses.replace(engine, params=engine.params.model_copy(update=cited))


def costs(engine: Engine, geom: ArrayGeometry, writes, offsets, lengths, failed=()):
    """The plan of host I/Os (``writes``, ``offsets``, ``lengths``) and the engine's work for it.
    Every host I/O has the batch's first length (as in ArraySystem: one workload, one block size)."""
    is_write = np.asarray(writes, dtype=bool)
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), offsets.shape)
    plan = plan_ios(geom, is_write, offsets, lengths, failed)
    chunks = ((offsets + lengths - 1) // geom.strip_bytes - offsets // geom.strip_bytes + 1).astype(float)
    return plan, engine.work(plan, is_write, chunks, int(lengths[0]), geom.level)


def reads_writes(plan: MemberIOPlan, h: int) -> tuple[int, int]:
    """Member pages host I/O ``h`` reads and writes."""
    io = plan.for_host(h)
    pages = io["length_bytes"] // PAGE
    return int(pages[~io["is_write"]].sum()), int(pages[io["is_write"]].sum())


def raid6(strip_bytes=4 * KIB, members=8) -> ArrayGeometry:
    return ArrayGeometry(6, members, strip_bytes, member_size_bytes=strip_bytes * 64)


def total_s(work) -> np.ndarray:
    return work.submit_cpu_ref_s + work.lock_s + work.pre_s + work.mid_s


# --------------------------------------------------------------- Linux md

def test_md_raid6_optimal_reads_cost_one_md_request_and_one_device_lock_per_chunk(catalog):
    """Optimal reads bypass the stripe cache, one md request per chunk: a 12 KiB read over three
    4 KiB chunks costs three times a 4 KiB read, and nothing on raid5d."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    p = vars(md.v)
    _, small = costs(md, raid6(), [False], [0], 4 * KIB)
    _, three = costs(md, raid6(), [False], [0], 12 * KIB)
    assert small.submit_cpu_ref_s[0] == pytest.approx(p["request_cpu_us"] * 1e-6)
    assert small.lock_s[0] == pytest.approx(md.device_lock_us * 1e-6)
    assert three.submit_cpu_ref_s[0] == pytest.approx(3 * small.submit_cpu_ref_s[0])
    assert three.lock_s[0] == pytest.approx(3 * small.lock_s[0])
    assert small.pre_s[0] == small.mid_s[0] == three.pre_s[0] == three.mid_s[0] == 0.0


def test_md_raid6_reads_while_degraded_cost_a_request_per_chunk_piece_as_optimal_ones(catalog):
    """With a member missing md sends no read around the stripe cache (no chunk_aligned_read): one
    raid5_make_request pass, whose loop walks the bio a page at a time, doing for each chunk piece at
    least what an aligned read's pass does; a 12 KiB read over three 4 KiB chunks costs the submitter
    three md requests in both states (charged one while degraded, it ran faster than optimal)."""
    kwargs = dict(members=8, strip_bytes=4 * KIB)
    p = vars(make_engine(catalog, MD, **kwargs).v)
    _, optimal = costs(make_engine(catalog, MD, **kwargs), raid6(), [False], [0], 12 * KIB)
    _, degraded = costs(make_engine(catalog, MD, degraded=True, **kwargs), raid6(), [False], [0], 12 * KIB, failed=(7,))
    assert optimal.submit_cpu_ref_s[0] == pytest.approx(3 * p["request_cpu_us"] * 1e-6)
    assert degraded.submit_cpu_ref_s[0] == pytest.approx(3 * p["request_cpu_us"] * 1e-6)


@pytest.mark.parametrize("length, mode, reads, writes", [
    (4 * KIB, READ_MODIFY_WRITE, 3, 3),     # one data page: old data, P and Q read (3 < 5 for reconstruct-write)
    (16 * KIB, RECONSTRUCT_WRITE, 2, 6),    # four of six data pages: the other two read (2 < 6)
    (24 * KIB, FULL_STRIPE_WRITE, 0, 8),    # all six: nothing read, data and P and Q written
])
def test_md_raid6_write_costs_per_stripe_head_and_per_member_page(catalog, length, mode, reads, writes):
    """On 4 KiB chunks a stripe row is one stripe_head: the submitter takes device_lock once; raid5d
    makes one pass (stripe_disk_us per member) before the reads, when there are any, and one after,
    plus stripe_member_bio_us per member page it reads (first pass) or writes (second)."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, overrides=NO_PARITY_TIME)
    p = vars(md.v)
    plan, work = costs(md, raid6(), [True], [0], length)
    assert plan.mode[0] == mode and reads_writes(plan, 0) == (reads, writes)
    one_pass = p["stripe_disk_us"] * 8 * 1e-6
    bio = p["stripe_member_bio_us"] * 1e-6
    assert work.lock_s[0] == pytest.approx(md.device_lock_us * 1e-6)
    assert work.pre_s[0] == pytest.approx(one_pass + bio * reads if reads else 0.0)
    assert work.mid_s[0] == pytest.approx(one_pass + bio * writes)
    # one md request: raid5_make_request walks a write bio's stripe_heads in one pass, whatever
    # the chunks it spans (only optimal-state reads are split per chunk, chunk_aligned_read)
    assert work.submit_cpu_ref_s[0] == pytest.approx(p["request_cpu_us"] * 1e-6)


def test_md_raid6_parity_time_is_bytes_over_the_parity_rate(catalog):
    """Halving parity_gen_gb_per_s doubles the parity part of the second raid5d pass, nothing else."""
    base = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, overrides=NO_PARITY_TIME)
    rate = 10.0  # GB/s
    fast = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, overrides={"parity_gen_gb_per_s": rate})
    slow = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, overrides={"parity_gen_gb_per_s": rate / 2})
    _, w0 = costs(base, raid6(), [True], [0], 4 * KIB)
    _, w1 = costs(fast, raid6(), [True], [0], 4 * KIB)
    _, w2 = costs(slow, raid6(), [True], [0], 4 * KIB)
    assert w1.mid_s[0] > w0.mid_s[0]
    assert w2.mid_s[0] - w0.mid_s[0] == pytest.approx(2 * (w1.mid_s[0] - w0.mid_s[0]))
    assert w2.pre_s[0] == w1.pre_s[0] == w0.pre_s[0] and w2.lock_s[0] == w0.lock_s[0]


def test_md_raid6_write_on_a_tall_chunk_costs_one_stripe_head_per_page_row(catalog):
    """raid5.c keys a stripe_head by its member sector (one 4 KiB page of every member): a 16 KiB
    write inside one 64 KiB chunk is 4 stripe_heads, each a device_lock hold and a raid5d pass."""
    md = make_engine(catalog, MD, members=8, strip_bytes=64 * KIB, overrides=NO_PARITY_TIME)
    p = vars(md.v)
    plan, work = costs(md, raid6(64 * KIB), [True], [0], 16 * KIB)
    assert plan.mode[0] == READ_MODIFY_WRITE and reads_writes(plan, 0) == (12, 12)
    stripe_heads = 4
    assert work.lock_s[0] == pytest.approx(stripe_heads * md.device_lock_us * 1e-6)
    one_pass = p["stripe_disk_us"] * 8 * 1e-6
    assert work.pre_s[0] == pytest.approx(stripe_heads * one_pass + 12 * p["stripe_member_bio_us"] * 1e-6)


def test_md_stripe_heads_count_member_pages_and_share_a_whole_stripe_stream(catalog):
    """A stripe_head is one member page offset: a 16 KiB write on 4 KiB chunks (4 data members, one
    row) is 1, a 64 KiB write inside one 64 KiB chunk is 16, a two-stripe write on 4 KiB chunks 2;
    a write of a stream planned as whole stripes (``parity_bytes_computed`` 0) gets its share of
    the stripe's rows: 1/60 of a stripe of 512 KiB chunks is 128/60 rows."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    one_row, _ = costs(md, raid6(), [True], [0], 16 * KIB)
    assert md.stripe_heads(one_row, np.array([True]), 1)[0] == 1
    tall = make_engine(catalog, MD, members=8, strip_bytes=64 * KIB)
    chunk, _ = costs(tall, raid6(64 * KIB), [True], [0], 64 * KIB)
    assert tall.stripe_heads(chunk, np.array([True]), 1)[0] == 16
    two, _ = costs(md, raid6(), [True], [16 * KIB], 16 * KIB)  # data pages 4..7: rows 0 and 1
    assert md.stripe_heads(two, np.array([True]), 1)[0] == 2
    wide = make_engine(catalog, MD, members=16, strip_bytes=512 * KIB)
    shared = MemberIOPlan(
        host_index=np.zeros(1, dtype=np.int64), member=np.zeros(1, dtype=np.int32),
        member_offset_bytes=np.zeros(1, dtype=np.int64), length_bytes=np.full(1, 128 * KIB, dtype=np.int64),
        is_write=np.ones(1, dtype=bool), phase=np.ones(1, dtype=np.int8), mode=np.array([FULL_STRIPE_WRITE], dtype=np.int8),
        parity_bytes_computed=np.zeros(1, dtype=np.int64), stripes_touched=np.array([1 / 60]))
    assert wide.stripe_heads(shared, np.array([True]), 1)[0] == pytest.approx(128 / 60)


def test_md_raid10_takes_the_barrier_per_chunk_request_and_raid1_once(catalog):
    """raid10 splits a bio at chunk ends and each piece waits at the barrier (barrier_lock_us each),
    plus one device_lock hold per member write (pending_bio_list); raid1 splits only at 64 MiB units."""
    md = make_engine(catalog, MD, members=4, strip_bytes=4 * KIB, settings={"bitmap": "none", "kernel": "5.15"})
    p = vars(md.v)
    raid10 = ArrayGeometry(10, 4, 4 * KIB, member_size_bytes=4 * KIB * 64)
    _, read = costs(md, raid10, [False], [0], 16 * KIB)  # four chunks, one copy each
    _, write = costs(md, raid10, [True], [0], 4 * KIB)  # one chunk, two copies
    assert read.lock_s[0] == pytest.approx(4 * p["barrier_lock_us"] * 1e-6)
    assert write.lock_s[0] == pytest.approx((p["barrier_lock_us"] + 2 * md.device_lock_us) * 1e-6)
    raid1 = ArrayGeometry(1, 2, 4 * KIB, member_size_bytes=4 * KIB * 64)
    mirror_md = make_engine(catalog, MD, members=2, strip_bytes=4 * KIB, settings={"bitmap": "none", "kernel": "5.15"})
    _, mirror = costs(mirror_md, raid1, [False], [0], 16 * KIB)
    assert mirror.lock_s[0] == pytest.approx(mirror_md.line_transfer_us * 1e-6)  # the wait queue's lock at its end
    assert read.pre_s[0] == read.mid_s[0] == write.mid_s[0] == 0.0  # no stripe thread on mirrors


@pytest.mark.parametrize("kernel", ["6.1", "6.6", "6.12"])
def test_md_raid10_from_6_1_takes_no_resync_lock_in_the_barriers_fast_path(catalog, kernel):
    """Yu Kuai's 6.1 series: a raid10 md request's wait_barrier is an atomic increment of
    nr_pending (one line transfer), not a resync_lock hold; a recovery request keeps the fitted
    hold; before 6.1 raid10 pays it too."""
    def engine(k, members=4):
        return make_engine(catalog, MD, members=members, strip_bytes=4 * KIB, settings={"bitmap": "none", "kernel": k})
    new, old = engine(kernel), engine("5.15")
    raid10 = ArrayGeometry(10, 4, 4 * KIB, member_size_bytes=4 * KIB * 64)
    _, read = costs(new, raid10, [False], [0], 16 * KIB)
    _, before = costs(old, raid10, [False], [0], 16 * KIB)
    assert read.lock_s[0] == pytest.approx(4 * new.line_transfer_us * 1e-6)
    assert before.lock_s[0] == pytest.approx(4 * old.v.barrier_lock_us * 1e-6) and before.lock_s[0] > read.lock_s[0]
    recovery = new.rebuild_work(rebuild_requests(4, 0, 1, 4 * KIB, [1]), 1, 1, 10)
    assert recovery.lock_s[0] == pytest.approx((new.v.barrier_lock_us + new.device_lock_us) * 1e-6)


@pytest.mark.parametrize("kernel, read_lines, write_lines", [("4.19", 1, 2), ("5.15", 1, 2), ("6.1", 1, 2), ("6.6", 0, 0), ("6.12", 0, 0)])
def test_md_raid1_barrier_is_a_wait_queue_lock_until_6_6(catalog, kernel, read_lines, write_lines):
    """raid1 since 4.11 counts requests per bucket with atomics (no lock on the way in) but calls
    wake_up unconditionally, taking the wait queue's lock: at a request's end (_allow_barrier) and
    at the end of raid1_write_request; from 6.6 only when someone sleeps. Per request, in line
    transfers, besides a write's device_lock holds (pending_bio_list, one per member write)."""
    md = make_engine(catalog, MD, members=2, strip_bytes=4 * KIB, settings={"bitmap": "none", "kernel": kernel})
    raid1 = ArrayGeometry(1, 2, 4 * KIB, member_size_bytes=2**30)
    _, work = costs(md, raid1, [False, True], [0, 2**20], 4 * KIB)
    line = md.line_transfer_us * 1e-6
    assert work.lock_s[0] == pytest.approx(read_lines * line, abs=1e-15)
    assert work.lock_s[1] == pytest.approx(write_lines * line + 2 * md.device_lock_us * 1e-6)


def test_md_raid1_is_one_md_request_per_64_mib_barrier_unit_whatever_the_strip(catalog):
    """raid1 has no chunks: a 1 MiB write on a '4 KiB strip' RAID1 was charged 256 md requests of
    CPU (a 2-drive md RAID1 wrote 303 MB/s at QD1 against the drives' 6.75 GB/s); it is one request,
    the same as on any strip, and an I/O across a 64 MiB barrier unit's end is two."""
    p = vars(make_engine(catalog, MD, members=2, strip_bytes=4 * KIB).v)
    for strip in (4 * KIB, 1024 * KIB):
        md = make_engine(catalog, MD, members=2, strip_bytes=strip)
        raid1 = ArrayGeometry(1, 2, strip, member_size_bytes=2**30)
        _, work = costs(md, raid1, [True, False, True], [0, 0, 63 * 2**20], [1024 * KIB, 1024 * KIB, 2 * 2**20][0])
        assert list(work.submit_cpu_ref_s) == pytest.approx([p["request_cpu_us"] * 1e-6] * 3)
        _, across = costs(md, raid1, [True], [63 * 2**20], 2 * 2**20)
        assert across.submit_cpu_ref_s[0] == pytest.approx(2 * p["request_cpu_us"] * 1e-6)
        assert across.lock_s[0] == pytest.approx(2 * md.device_lock_us * 1e-6)  # kernel 6.6: no wake_up lock


def test_md_raid0_request_is_a_remap_without_lock_or_stripe_work(catalog):
    """raid0_make_request remaps a bio and passes it on: a RAID0 md request (one per chunk piece)
    costs ``raid0_request_cpu_us``, not the RAID5/6/10 path's fitted ``request_cpu_us``, and takes
    no md lock and no raid5d time, read or write (the bitmap's counts.lock aside, none here)."""
    md = make_engine(catalog, MD, members=4, strip_bytes=4 * KIB)
    p = vars(md.v)
    assert p["raid0_request_cpu_us"] < p["request_cpu_us"]
    raid0 = ArrayGeometry(0, 4, 4 * KIB, member_size_bytes=2**30)
    _, work = costs(md, raid0, [False, True, False], [0, 0, 2 * KIB], 4 * KIB)
    one = p["raid0_request_cpu_us"] * 1e-6
    assert list(work.submit_cpu_ref_s) == pytest.approx([one, one, 2 * one])  # the last one spans two chunks
    assert not (work.lock_s.any() or work.pre_s.any() or work.mid_s.any())
    assert md.request_cpu_us(0) == p["raid0_request_cpu_us"]
    assert md.request_cpu_us(10) == md.request_cpu_us(5) == p["request_cpu_us"]


def test_md_shared_state_costs_grow_with_the_cross_socket_share(catalog):
    """Lock and raid5d times x the platform's shared-access factor; the submitter's own CPU unchanged."""
    factor = 1.6
    local = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    remote = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, shared_access_factor=factor)
    _, a = costs(local, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    _, b = costs(remote, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    for name in ("lock_s", "pre_s", "mid_s"):
        assert getattr(b, name) == pytest.approx(getattr(a, name) * factor)
    assert np.array_equal(b.submit_cpu_ref_s, a.submit_cpu_ref_s)


def test_md_degraded_reads_go_through_raid5d(catalog):
    """Degraded, every read is a stripe_head: two raid5d passes and a bio per page read; one that
    rebuilds the missing member's data reads every survivor and computes parity too."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, degraded=True, overrides=NO_PARITY_TIME)
    p = vars(md.v)
    lost = int(plan_ios(raid6(), [False], [0], [4 * KIB]).member[0])  # the member the first read goes to
    plan, work = costs(md, raid6(), [False, False], [0, 4 * KIB], 4 * KIB, failed=(lost,))
    assert plan.mode.tolist() == [DEGRADED_READ, 0]
    two_passes = 2 * p["stripe_disk_us"] * 8 * 1e-6
    bio = p["stripe_member_bio_us"] * 1e-6
    assert work.pre_s[1] == pytest.approx(two_passes + bio * 1)
    assert work.pre_s[0] == pytest.approx(two_passes + bio * 7)


# --------------------------------------------------------------- every engine: degraded reads cost more

@pytest.mark.parametrize("name", [MD, GPU, CARD, LOCKLESS])
def test_degraded_reads_cost_the_engine_more_than_optimal_ones(catalog, name):
    """The same reads, one member missing: the engine spends more on them in total."""
    geom = raid6()
    offsets = np.arange(6, dtype=np.int64) * 4 * KIB  # the six data pages of stripe 0
    lost = int(plan_ios(geom, [False], [0], [4 * KIB]).member[0])
    _, optimal = costs(make_engine(catalog, name, members=8, strip_bytes=4 * KIB), geom, [False] * 6, offsets, 4 * KIB)
    _, degraded = costs(make_engine(catalog, name, members=8, strip_bytes=4 * KIB, degraded=True), geom, [False] * 6,
                        offsets, 4 * KIB, failed=(lost,))
    more_member_ios = len(degraded.member) > len(optimal.member)
    assert more_member_ios and total_s(degraded).sum() > total_s(optimal).sum()


# --------------------------------------------------------------- GPU RAID

def test_gpu_bandwidth_bytes_are_the_host_bytes_it_reads_and_no_data_crosses_its_link(catalog):
    gpu = make_engine(catalog, GPU, members=8, strip_bytes=4 * KIB)
    writes = [False, True, False, True]
    _, work = costs(gpu, raid6(), writes, np.arange(4, dtype=np.int64) * 64 * KIB, 16 * KIB)
    assert work.device_read_bytes.tolist() == [16 * KIB, 0, 16 * KIB, 0]
    assert work.device_read_bytes.sum() == 2 * 16 * KIB  # the host bytes read, once each
    assert not work.device_up_bytes.any() and not work.device_down_bytes.any()
    command = 1.0 / gpu.spec.device.max_read_iops.value
    assert work.pre_s == pytest.approx(np.full(4, command))  # one command per host I/O


@pytest.mark.parametrize("level, blocks", [(5, 1), (6, 2)])
def test_gpu_writes_cost_a_stripe_update_per_stripe_and_driver_cpu_per_member_page(catalog, level, blocks):
    gpu = make_engine(catalog, GPU, members=8, strip_bytes=4 * KIB)
    p = vars(gpu.v)
    geom = ArrayGeometry(level, 8, 4 * KIB, member_size_bytes=4 * KIB * 64)
    data = 8 - blocks
    small, full = 4 * KIB, data * 4 * KIB
    plan, work = costs(gpu, geom, [True, True], [0, 4 * full], small)
    pages = sum(reads_writes(plan, 0))
    assert pages == 2 * (1 + blocks)  # read-modify-write: data and parity read, then written
    stripe_update = (p["gpu_stripe_us"] + blocks * p["gpu_parity_block_us"]) * 1e-6
    assert work.mid_s == pytest.approx(np.full(2, stripe_update))
    assert work.submit_cpu_ref_s[0] == pytest.approx(p["driver_member_page_us"] * 1e-6 * pages)
    _, whole = costs(gpu, geom, [True, True], [0, 2 * full], 2 * full)  # two stripes each, nothing read
    assert whole.mid_s == pytest.approx(np.full(2, 2 * stripe_update))
    assert whole.submit_cpu_ref_s[0] == pytest.approx(p["driver_member_page_us"] * 1e-6 * 2 * 8)
    _, reads = costs(gpu, geom, [False], [0], small)
    assert reads.submit_cpu_ref_s[0] == 0.0 and reads.mid_s[0] == 0.0  # reads stay off the GPU's parity path


def test_gpu_reconstructs_only_the_reads_that_need_the_missing_member(catalog):
    gpu = make_engine(catalog, GPU, members=8, strip_bytes=4 * KIB, degraded=True)
    p = vars(gpu.v)
    lost = int(plan_ios(raid6(), [False], [0], [4 * KIB]).member[0])
    plan, work = costs(gpu, raid6(), [False, False], [0, 4 * KIB], 4 * KIB, failed=(lost,))
    assert plan.mode.tolist() == [DEGRADED_READ, 0]
    assert work.mid_s[0] == pytest.approx((p["gpu_stripe_us"] + 2 * p["gpu_parity_block_us"]) * 1e-6)
    assert work.mid_s[1] == 0.0


# --------------------------------------------------------------- hardware RAID card

def test_card_link_carries_each_host_byte_once_in_its_direction(catalog):
    card = make_engine(catalog, CARD, members=8, strip_bytes=4 * KIB)
    writes = [True, False, True, False]
    _, work = costs(card, raid6(), writes, np.arange(4, dtype=np.int64) * 64 * KIB, 8 * KIB)
    assert work.device_down_bytes.tolist() == [8 * KIB, 0, 8 * KIB, 0]  # writes: host -> card
    assert work.device_up_bytes.tolist() == [0, 8 * KIB, 0, 8 * KIB]  # reads: card -> host
    assert work.device_down_bytes.sum() + work.device_up_bytes.sum() == 4 * 8 * KIB


def test_card_processor_pays_per_member_command_and_per_stripe_update(catalog):
    card = make_engine(catalog, CARD, members=8, strip_bytes=4 * KIB)
    p = vars(card.v)
    plan, work = costs(card, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    commands = len(plan.for_host(0)["member"])
    assert commands == 6  # read-modify-write: 3 reads, 3 writes
    assert work.pre_s[0] == pytest.approx(commands * p["card_command_us"] * 1e-6)
    assert work.pre_s[1] == pytest.approx(p["card_command_us"] * 1e-6)
    member_kib = 6 * 4
    assert work.mid_s[0] == pytest.approx((p["card_stripe_op_us"] + member_kib * p["card_stripe_op_us_per_kib"]) * 1e-6)
    assert work.mid_s[1] == 0.0
    raid10 = ArrayGeometry(10, 8, 4 * KIB, member_size_bytes=4 * KIB * 64)
    _, mirror = costs(card, raid10, [True], [0], 4 * KIB)
    assert mirror.mid_s[0] == 0.0  # no stripe update without parity


def test_md_parity_writes_count_every_member_transfer_in_memory(catalog):
    """What an md RAID6 write moves through DRAM: every member I/O's DMA (the pre-read pages in,
    the data and parity pages out: as md's rebuild counts them) and the copy of the host's pages
    into the stripe cache (a read and a write of each); a read is the host's bytes, DMA'd once."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    plan, work = costs(md, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    members = np.bincount(plan.host_index, weights=plan.length_bytes, minlength=2)
    assert members[0] == 6 * 4 * KIB  # read-modify-write: old data, P and Q read; new data, P and Q written
    assert work.memory_bytes.tolist() == [members[0] + 2 * 4 * KIB, 4 * KIB]
    plan, work = costs(md, raid6(), [True], [0], 6 * 4 * KIB)  # a full stripe: six data strips, P and Q
    assert work.memory_bytes.tolist() == [8 * 4 * KIB + 2 * 6 * 4 * KIB]


def test_md_mirror_writes_count_each_copys_transfer_in_memory(catalog):
    """Each mirror's member write is DMA'd from the host's pages on its own: a RAID10 write of
    two copies reads them from DRAM twice; a read once."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    raid10 = ArrayGeometry(10, 8, 4 * KIB, member_size_bytes=4 * KIB * 64)
    _, work = costs(md, raid10, [True, False], [0, 64 * KIB], 4 * KIB)
    assert work.memory_bytes.tolist() == [2 * 4 * KIB, 4 * KIB]


# --------------------------------------------------------------- lockless CPU RAID

def test_lockless_costs_the_submitting_core_per_host_io_and_per_member_io(catalog):
    engine = make_engine(catalog, LOCKLESS, members=8, strip_bytes=4 * KIB)
    p = vars(engine.v)
    plan, work = costs(engine, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    touched = 6 * 4 * KIB  # read-modify-write: 3 pages read, 3 written
    assert work.submit_cpu_ref_s[0] == pytest.approx(
        (p["request_cpu_us"] + 6 * p["member_io_us"]) * 1e-6 + touched / (p["parity_gen_gb_per_s"] * 1e9))
    assert work.submit_cpu_ref_s[1] == pytest.approx((p["request_cpu_us"] + p["member_io_us"]) * 1e-6)
    assert not work.lock_s.any() and not work.pre_s.any() and not work.mid_s.any()  # no lock, no stripe thread
    assert engine.server is None and engine.lock_label is None and not engine.stripe_cache


def test_the_ideal_engine_costs_nothing_of_its_own(catalog):
    engine = make_engine(catalog, IDEAL, members=8, strip_bytes=4 * KIB)
    _, work = costs(engine, raid6(), [True, False], [0, 64 * KIB], 4 * KIB)
    for name in ("submit_cpu_ref_s", "lock_s", "pre_s", "mid_s", "device_down_bytes", "device_up_bytes",
                 "device_read_bytes"):
        assert not getattr(work, name).any(), name
    assert work.memory_bytes.tolist() == [4 * KIB, 4 * KIB]  # the host's bytes pass through memory once


# --------------------------------------------------------------- rebuild

def rebuild_requests(members: int, target: int, n: int, step_bytes: int, sources) -> MemberIOPlan:
    """``n`` rebuild requests written out: each reads ``step_bytes`` from every member of
    ``sources`` (phase 0) and writes them to ``target`` (phase 1)."""
    host, member, write, phase = [], [], [], []
    for i in range(n):
        for m, is_write in [(m, False) for m in sources] + [(target, True)]:
            host.append(i)
            member.append(m)
            write.append(is_write)
            phase.append(1 if is_write else 0)
    count = len(host)
    return MemberIOPlan(
        host_index=np.array(host, dtype=np.int64), member=np.array(member, dtype=np.int32),
        member_offset_bytes=np.repeat(np.arange(n, dtype=np.int64) * step_bytes, len(sources) + 1),
        length_bytes=np.full(count, step_bytes, dtype=np.int64), is_write=np.array(write),
        phase=np.array(phase, dtype=np.int8), mode=np.zeros(n, dtype=np.int8),
        parity_bytes_computed=np.zeros(n, dtype=np.int64), stripes_touched=np.ones(n, dtype=np.int64))


def test_md_raid6_rebuild_costs_per_stripe_head_of_the_new_member(catalog):
    """One sync_request and one stripe_head per 4 KiB row of the new member; raid5d reads every
    survivor's page of the row and writes the new one."""
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB, overrides=NO_PARITY_TIME)
    p = vars(md.v)
    step = 32 * KIB
    plan = rebuild_requests(8, 0, 2, step, range(1, 8))
    work = md.rebuild_work(plan, 2, step // (4 * KIB), 6)
    heads = step // PAGE  # 8 rows per request
    one_pass = p["stripe_disk_us"] * 8 * 1e-6
    bio = p["stripe_member_bio_us"] * 1e-6
    assert work.submit_cpu_ref_s == pytest.approx(np.full(2, heads * p["resync_request_us"] * 1e-6))
    assert work.lock_s == pytest.approx(np.full(2, heads * md.device_lock_us * 1e-6))
    assert work.pre_s == pytest.approx(np.full(2, heads * one_pass + bio * 7 * heads))
    assert work.mid_s == pytest.approx(np.full(2, heads * one_pass + bio * heads))
    assert work.memory_bytes.tolist() == [8 * step, 8 * step]  # seven survivors read, one member written


def test_md_raid10_recovery_request_takes_the_barrier_once(catalog):
    md = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    p = vars(md.v)
    work = md.rebuild_work(rebuild_requests(8, 0, 3, 4 * KIB, [1]), 3, 1, 10)
    assert work.submit_cpu_ref_s == pytest.approx(np.full(3, p["resync_request_us"] * 1e-6))
    assert work.lock_s == pytest.approx(np.full(3, (p["barrier_lock_us"] + md.device_lock_us) * 1e-6))
    assert not work.pre_s.any() and not work.mid_s.any()


@pytest.mark.parametrize("level, rows, sources", [(6, 4, range(1, 8)), (5, 2, range(1, 8)), (10, 1, [1])])
def test_gpu_rebuild_costs_one_parity_block_per_row_reconstructed(catalog, level, rows, sources):
    gpu = make_engine(catalog, GPU, members=8, strip_bytes=64 * KIB)
    work = gpu.rebuild_work(rebuild_requests(8, 0, 2, rows * 64 * KIB, sources), 2, rows, level)
    per_row = vars(gpu.v)["gpu_parity_block_us"] * 1e-6 if level in (5, 6) else 0.0  # a mirror copies
    assert work.mid_s == pytest.approx(np.full(2, rows * per_row))
    assert not work.submit_cpu_ref_s.any() and not work.lock_s.any()  # the card rebuilds by itself


def test_a_card_rebuilds_through_its_processor_parity_engine_and_dram(catalog):
    """A RAID5 rebuild request: every survivor read and the write are member commands; the parity
    engine runs each rebuilt row and every member KiB; the bytes land in and leave the card's DRAM."""
    card = make_engine(catalog, CARD, members=8, strip_bytes=64 * KIB)
    costs_ = card.costs
    plan = rebuild_requests(8, 0, 2, 256 * KIB, range(1, 8))
    work = card.rebuild_work(plan, 2, 4, 5)
    assert work.pre_s == pytest.approx(np.full(2, 8 * costs_.command_s))
    member_kib = 8 * 256
    assert work.mid_s == pytest.approx(np.full(2, 4 * costs_.stripe_update_s + member_kib * costs_.parity_s_per_kib))
    assert work.device_read_bytes == pytest.approx(np.full(2, 2 * member_kib * KIB))
    assert not (work.submit_cpu_ref_s.any() or work.lock_s.any())  # the card rebuilds by itself
    mirror = card.rebuild_work(rebuild_requests(8, 0, 2, 256 * KIB, [1]), 2, 4, 10)
    assert not mirror.mid_s.any() and mirror.device_read_bytes == pytest.approx(np.full(2, 512 * KIB))


@pytest.mark.parametrize("name", [IDEAL])  # xiRAID's reconstruction: tests/component/test_xiraid_rebuild.py
def test_engines_without_a_rebuild_mechanism_charge_nothing_for_it(catalog, name):
    engine = make_engine(catalog, name, members=8, strip_bytes=64 * KIB)
    work = engine.rebuild_work(rebuild_requests(8, 0, 2, 256 * KIB, range(1, 8)), 2, 4, 6)
    assert not (work.submit_cpu_ref_s.any() or work.lock_s.any() or work.pre_s.any() or work.mid_s.any())


def test_raid10_recovery_stops_at_a_chunk_end_only_where_chunks_are_meaningful(catalog):
    """raid10_sync_request cuts a request at the chunk's end only ``if (conf->geo.near_copies <
    conf->geo.raid_disks ...)`` ("if chunks are meaningful"): RAID10 n2 on two drives (every
    drive a whole copy) recovers in RESYNC_BLOCK_SIZE requests whatever its chunk; on four, 4 KiB."""
    def md10(drives):
        return build_engine(catalog.engines[MD], {"bitmap": "none"}, members=drives, strip_bytes=4 * KIB,
                            array=(10, 3.84e12, 2))
    assert md10(2).rebuild_settings(10, "normal") == (64 * KIB, 512.0)
    assert md10(4).rebuild_settings(10, "normal") == (4 * KIB, 512.0)


@pytest.mark.parametrize("priority", ["low", "normal", "high"])
def test_rebuild_settings_request_size_and_depth(catalog, priority):
    """md RAID1/10: RESYNC_BLOCK_SIZE (64 KiB), RAID10's cut at the chunk's end, RESYNC_DEPTH in flight (32 for
    raid1, 512 for raid10), whatever the priority; RAID6 the stripe cache md lets grow, in requests of
    rebuild_io_kib; otherwise rebuild_io_kib and rebuild_inflight
    scaled by the priority (low 0.5x, high 2x)."""
    scale = PRIORITY_SCALE[priority]
    md4 = make_engine(catalog, MD, members=8, strip_bytes=4 * KIB)
    md512 = make_engine(catalog, MD, members=8, strip_bytes=512 * KIB)
    assert md4.rebuild_settings(10, priority) == (4 * KIB, 512.0)
    assert md512.rebuild_settings(10, priority) == (64 * KIB, 512.0)
    assert md512.rebuild_settings(1, priority) == (64 * KIB, 32.0)
    assert md4.rebuild_settings(1, priority) == (64 * KIB, 32.0)  # raid1 has no chunk to stop at
    md64 = make_engine(catalog, MD, members=8, strip_bytes=64 * KIB)  # RAID6: the grown stripe cache
    assert md64.rebuild_settings(6, priority) == (32 * KIB, STRIPE_CACHE_MAX / 8)
    for name, level in ((GPU, 6), (GPU, 10), (CARD, 5)):  # xiRAID's: tests/component/test_xiraid_rebuild.py
        engine = make_engine(catalog, name, members=8, strip_bytes=64 * KIB)
        p = vars(engine.v)
        step, inflight = engine.rebuild_settings(level, priority)
        assert step == int(p.get("rebuild_io_kib", 256) * KIB), name
        assert inflight == pytest.approx(max(1.0, p.get("rebuild_inflight", 8.0) * scale)), name


def test_rebuild_share_is_the_vendors_paced_share_scaled_by_priority(catalog):
    gpu = make_engine(catalog, GPU, members=8, strip_bytes=64 * KIB)
    share = vars(gpu.v)["rebuild_share"]
    shares = [gpu.rebuild_share(p) for p in ("low", "normal", "high")]
    assert shares == pytest.approx([share / 2, share, min(0.95, 2 * share)])
    capped = make_engine(catalog, GPU, members=8, strip_bytes=64 * KIB, overrides={"rebuild_share": 0.6})
    assert capped.rebuild_share("high") == 0.95  # never the drive's whole time
    for name in (MD, IDEAL):  # no pacing: the rebuild takes what the queues give it
        assert make_engine(catalog, name, members=8, strip_bytes=64 * KIB).rebuild_share("normal") is None


def test_a_cards_rebuild_rate_is_its_firmware_default_scaled_by_priority_or_the_scenarios(catalog):
    """MegaRAID's controller property 'rebuild rate' (30% by default) paces the card's rebuild over
    every resource it loads, the card's own server included; array.rebuild.rate_percent sets it."""
    card = make_engine(catalog, CARD, members=8, strip_bytes=64 * KIB)
    default = catalog.engines[CARD].firmware.rebuild_rate_percent.value / 100
    assert [card.rebuild_share(p) for p in ("low", "normal", "high")] == pytest.approx([default / 2, default, 2 * default])
    assert card.rebuild_share("normal", 55.0) == pytest.approx(0.55)
    throttle = card.rebuild_throttle(RebuildSpec(rate_percent=60), loaded=True)
    assert throttle.share == pytest.approx(0.6) and throttle.paced_over == "all" and "rebuild rate 60%" in throttle.why
    assert not card.rebuild_throttle(RebuildSpec(rate_percent=60), loaded=False).paced  # idle: nothing holds it back


@pytest.mark.parametrize("name", [MD, GPU, CARD, LOCKLESS, IDEAL])
@pytest.mark.parametrize("level", [1, 5, 6, 10])
def test_only_md_raid10_recovery_excludes_host_io(catalog, name, level):
    """raid10's barrier is array-wide; raid1's is per 64 MiB bucket; nobody else has one."""
    engine = make_engine(catalog, name, members=8, strip_bytes=64 * KIB)
    assert engine.recovery_excludes_host_io(level) is (name == MD and level == 10)
