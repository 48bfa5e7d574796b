"""The compiled foreground kernel (nvsim.sim.event.kernel) against the SimPy slots it replaces:
the same events in the same order, so every number of a run is the same, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from numba import njit

from nvsim.catalog import default_catalog
from nvsim.scenario import load_scenario
from nvsim.sim import demand
from nvsim.sim.demand import _host_of_pages, _lexsort_packed, _merge_member_pages, _stream_pages
from nvsim.stripe.planner import MemberIOPlan, plan_ios
from nvsim.sim.event import kernel as k
from nvsim.sim.event import timeline
from nvsim.sim.event import Precision, simulate_event
from nvsim.sim.event.measure import quantile_ci95
from nvsim.sim.system import ArraySystem
from nvsim.specs import WorkloadSpec

CASES = [  # (scenario, workload): GPU reads, md's spinlock and gated RMW writes, 1 MiB stripe writes, VROC, a card
    ("scenarios/graid-gen5-raid6", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=8, iodepth=16)),
    ("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", WorkloadSpec(name="rw", rw="randwrite", bs=4096, numjobs=8, iodepth=8)),
    ("scenarios/graid-gen5-raid6/md-raid10-512k.yaml", WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=16384,
                                                                      numjobs=4, iodepth=8)),
    ("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", WorkloadSpec(name="sw", rw="write", bs=1 << 20, numjobs=4, iodepth=4)),
    ("scenarios/vroc-example", WorkloadSpec(name="rw", rw="randwrite", bs=4096, numjobs=2, iodepth=32)),
    # a card's write-back cache: full (QD1 writes paced by the destage), and never full (a light mix)
    ("scenarios/graid-gen5-raid5-16x/hardware-raid5.yaml", WorkloadSpec(name="wb", rw="randwrite", bs=4096, numjobs=1,
                                                                        iodepth=1)),
    ("scenarios/graid-gen5-raid5-16x/hardware-raid5.yaml", WorkloadSpec(name="wbmix", rw="randrw", rwmixread=70,
                                                                        bs=4096, numjobs=4, iodepth=4)),
]


@pytest.mark.parametrize("path,workload", CASES, ids=[f"{p.split('/')[-1]}-{w.name}" for p, w in CASES])
def test_kernel_gives_the_simpy_slots_numbers(path, workload):
    system = ArraySystem(load_scenario(path), workload, default_catalog())
    simpy_run = simulate_event(system, host_ios=4000, compiled=False)
    kernel_run = simulate_event(system, host_ios=4000, compiled=True)
    assert kernel_run.completed_host_ios == simpy_run.completed_host_ios > 0
    for field in ("read_iops", "write_iops", "cpu_percent", "iops_ci95", "simulated_s"):
        assert getattr(kernel_run, field) == getattr(simpy_run, field), field
    assert kernel_run.read_latency_us == simpy_run.read_latency_us
    assert kernel_run.write_latency_us == simpy_run.write_latency_us
    assert kernel_run.utilisation == simpy_run.utilisation


def _heap(n):
    st = np.zeros(9, np.int64)
    return st, (np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64))


# the kernel's inner functions have no Python wrapper (nvsim.numba_cache.INNER): called through these
@njit
def _pop(st, ht, hs, hp, hk):
    k.pop(st, ht, hs, hp, hk)


@njit
def _book(free, off, cnt, busy, g, arrival, service):
    return k.book(free, off, cnt, busy, g, arrival, service)


@njit
def _book_start(free, off, cnt, busy, g, arrival, service):
    return k.book_start(free, off, cnt, busy, g, arrival, service)


@njit
def _nand_pieces(free, off, cnt, busy, g, arrival, die, pieces, starts, queue):
    return k.nand_pieces(free, off, cnt, busy, g, arrival, die, pieces, starts, queue)


def test_calendar_pops_by_time_then_by_order_of_scheduling():
    """SimPy's order: earlier time first; at one time, the event scheduled first."""
    st, H = _heap(64)
    rng = np.random.default_rng(3)
    times = rng.choice([0.0, 1.0, 2.0, 3.5], size=40)
    for i, t in enumerate(times):
        k.push(st, *H, float(t), i, k.DONE)
    popped = []
    while st[k.S_HEAP_N]:
        popped.append((H[0][0], H[2][0]))
        _pop(st, *H)
    assert popped == sorted(((float(t), i) for i, t in enumerate(times)))


def test_reservation_group_books_its_earliest_free_server():
    """Two servers: three visits at t=0 of 1 s each finish at 1, 1 and 2; busy time adds up."""
    free, off, cnt, busy = np.zeros(2), np.array([0]), np.array([2]), np.zeros(1)
    ends = [_book(free, off, cnt, busy, 0, 0.0, 1.0) for _ in range(3)]
    assert ends == [1.0, 1.0, 2.0]
    assert busy[0] == 3.0
    assert _book_start(free, off, cnt, busy, 0, 5.0, 1.0) == 5.0  # an idle server starts at arrival


@given(st_.integers(1, 40), st_.lists(st_.tuples(st_.floats(0, 50), st_.floats(0.01, 5), st_.integers(1, 12)),
                                    min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_a_pool_books_as_heapq_does(units, visits):
    """A pool of ``units`` servers (the kernel's free times in rising order, between other groups in
    the array) books every visit, and every piece of a member I/O, when Python's ``heapq`` of the
    SimPy servers does, one piece after another: the units are interchangeable, so only the least
    free time matters; more pieces than units included."""
    import heapq
    free, off, cnt, busy = np.zeros(units + 3), np.array([0, 2, 2 + units]), np.array([2, units, 1]), np.zeros(3)
    free[:2] = free[2 + units:] = 7.0  # the groups around it keep their own times
    ref = [0.0] * units
    for arrival, service, pieces in visits:
        starts = pieces % 2 == 0
        got = _nand_pieces(free, off, cnt, busy, 1, arrival, service, pieces, starts, np.zeros(units))
        last = arrival
        for _ in range(pieces):
            start = max(arrival, ref[0])
            heapq.heapreplace(ref, start + service / pieces)
            last = max(last, start if starts else start + service / pieces)
        assert got == last
        assert free[2:2 + units].tolist() == sorted(ref)  # the same times, in rising order
    assert free[:2].tolist() == [7.0, 7.0] and free[2 + units] == 7.0


@given(st_.lists(st_.tuples(st_.integers(0, 2**40 - 1), st_.integers(0, 300), st_.booleans(), st_.integers(0, 1),
                            st_.integers(0, 5000)), max_size=200),
       st_.sampled_from([1, 512, 4096]))
@settings(max_examples=200, deadline=None)
def test_packed_sort_is_lexsort(rows, align):
    """The planner's member-page order (demand._lexsort_packed) is numpy's lexsort, ties included."""
    columns = list(zip(*rows)) if rows else [[]] * 5
    keys = (np.array(columns[0], np.int64) * align, np.array(columns[1], np.int64), np.array(columns[2], bool),
            np.array(columns[3], np.int8), np.array(columns[4], np.int64))
    assert np.array_equal(_lexsort_packed(keys), np.lexsort(keys))


def test_quantile_interval_from_order_statistics():
    """Uniform samples: the 95% interval of p99.99 holds the true quantile and narrows as 1/sqrt(n);
    too few samples beyond it leave the high end unknown."""
    rng = np.random.default_rng(7)
    widths = []
    for n in (200_000, 800_000):
        lo, hi = quantile_ci95(rng.random(n))
        assert lo <= 0.9999 <= hi
        widths.append(hi - lo)
    assert widths[1] == pytest.approx(widths[0] / 2, rel=0.35)
    assert quantile_ci95(rng.random(1000))[1] is None


def test_precision_runs_past_the_window_until_its_record_budget():
    """An unreachable precision: the run measures past its planned window until its record
    budget (a wall budget too large to bind: the same bits twice); no precision: the planned run."""
    system = ArraySystem(load_scenario("scenarios/graid-gen5-raid6"),
                         WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=4, iodepth=8), default_catalog())
    planned = simulate_event(system, host_ios=3000)
    budget = Precision(relative=1e-6, max_wall_s=1e9, max_records=100_000)
    longer = simulate_event(system, host_ios=3000, precision=budget)
    assert longer.simulated_host_ios >= 95_000 > 10 * planned.simulated_host_ios
    assert simulate_event(system, host_ios=3000, precision=budget).read_latency_us == longer.read_latency_us
    assert simulate_event(system, host_ios=3000).read_latency_us == planned.read_latency_us
    lo, hi = longer.tail_ci95_us["read"]
    assert lo <= longer.read_latency_us["p99.99"] <= hi


REBUILD_CASES = [  # a member rebuilt beside the foreground: a card's paced rebuild, md's drained windows, xiRAID
    ("scenarios/graid-gen5-raid6", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=4, iodepth=16), None),
    ("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", WorkloadSpec(name="rw", rw="randwrite", bs=4096, numjobs=8,
                                                                 iodepth=8), None),
    ("scenarios/xiraid-qlc-raid5", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=4, iodepth=16), None),
    ("scenarios/graid-gen5-raid6", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=4, iodepth=16), 64 * 2**20),
    ("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=4,
                                                                 iodepth=8), 16 * 2**20),
    # md RAID10's recovery barrier: pieces waiting at the gate, batches, drains, md's speed limit
    ("scenarios/graid-gen5-raid6/md-raid10-512k.yaml", WorkloadSpec(name="rr", rw="randread", bs=4096, numjobs=8,
                                                                    iodepth=8), None),
    ("scenarios/graid-gen5-raid6/md-raid10-512k.yaml", WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=1 << 20,
                                                                    numjobs=4, iodepth=4), None),
    ("scenarios/graid-mysql-oltp/md-raid10-16k-rebuilding.yaml",
     WorkloadSpec(name="rw", rw="randwrite", bs=65536, numjobs=4, iodepth=8), 8 * 2**20),
]


@pytest.mark.parametrize("path,workload,span", REBUILD_CASES,
                         ids=[f"{p.split('/')[-1]}-{w.name}-{'whole' if s else 'window'}" for p, w, s in REBUILD_CASES])
def test_kernel_rebuild_gives_the_simpy_slots_numbers(path, workload, span):
    """Beside a rebuild (measured over a window, or run to the rebuild's end; md RAID10's barrier
    too): the same numbers."""
    spec = load_scenario(path)
    if span is not None:
        spec = spec.model_copy(update={"array": spec.array.model_copy(update={"rebuild": spec.array.rebuild.model_copy(
            update={"span_bytes": span})})})
    system = ArraySystem(spec, workload, default_catalog(), failed_members=(0,))
    runs = [simulate_event(system, host_ios=3000, rebuild_member=0, until_rebuilt=span is not None, compiled=c)
            for c in (False, True)]
    assert runs[0].rebuild_bytes_per_s > 0
    for field in ("read_iops", "write_iops", "cpu_percent", "rebuild_bytes_per_s", "simulated_s", "utilisation",
                  "read_latency_us", "write_latency_us"):
        assert getattr(runs[1], field) == getattr(runs[0], field), field


def _merge_by_lexsort(host, plan):
    """The reference: numpy's lexsort on the five keys, then the runs merged."""
    order = np.lexsort((plan.member_offset_bytes, plan.member, plan.is_write, plan.phase, host))
    h, m, o = host[order], plan.member[order], plan.member_offset_bytes[order]
    length, w, ph = plan.length_bytes[order], plan.is_write[order], plan.phase[order]
    new = np.ones(len(h), dtype=bool)
    new[1:] = (h[1:] != h[:-1]) | (m[1:] != m[:-1]) | (ph[1:] != ph[:-1]) | (w[1:] != w[:-1]) | (o[1:] != o[:-1] + length[:-1])
    heads = np.flatnonzero(new)
    return h[heads], m[heads], o[heads], w[heads], ph[heads], np.add.reduceat(length, heads)


@given(st_.lists(st_.tuples(st_.integers(0, 6), st_.integers(0, 5), st_.integers(0, 40), st_.booleans(),
                            st_.integers(0, 1)), min_size=1, max_size=120))
@settings(max_examples=200, deadline=None)
def test_member_pages_merge_as_the_lexsort_reference(rows):
    """Pages of a host I/O contiguous on one member merge into one member I/O, in (host, phase,
    direction, member, offset) order, whether the offsets rise within buckets or not."""
    host, member, page, write, phase = (np.array(c) for c in zip(*rows))
    plan = MemberIOPlan(host_index=host.astype(np.int64), member=member.astype(np.int32),
                        member_offset_bytes=page.astype(np.int64) * 4096, length_bytes=np.full(len(host), 4096, np.int64),
                        is_write=write.astype(bool), phase=phase.astype(np.int8), mode=np.zeros(len(host), np.int8),
                        parity_bytes_computed=np.zeros(len(host), np.int64), stripes_touched=np.ones(len(host)))
    got = _merge_member_pages(host.astype(np.int64), plan)
    for a, b in zip(got, _merge_by_lexsort(host.astype(np.int64), plan)):
        assert np.array_equal(a, b) and a.dtype == b.dtype


@given(st_.lists(st_.integers(1, 9), min_size=1, max_size=20), st_.integers(1, 3), st_.integers(1, 12),
       st_.integers(0, 3))
@settings(max_examples=300, deadline=None)
def test_pages_find_their_host_io_as_numpy_does(pages_per_piece, piece_bytes_k, host_ios, skip):
    """A stream's pieces and their member pages: the compiled walk (``_host_of_pages``) gives each
    page the host I/O numpy's arithmetic and search give, bit for bit."""
    lens = np.full(len(pages_per_piece), piece_bytes_k * 4096, np.int64)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64) + skip * 512
    piece = np.repeat(np.arange(len(pages_per_piece)), pages_per_piece).astype(np.int64)
    offsets = np.arange(host_ios, dtype=np.int64) * int(lens.sum() // host_ios + 1)
    counts = np.bincount(piece, minlength=len(starts))
    rank = np.arange(len(piece)) - np.concatenate(([0], np.cumsum(counts)[:-1]))[piece]
    position = starts[piece] + (rank + 0.5) * lens[piece] / np.maximum(counts[piece], 1)
    expected = np.clip(np.searchsorted(offsets, position, side="right") - 1, 0, len(offsets) - 1)
    assert np.array_equal(_host_of_pages(piece, starts, lens, offsets), expected)


@given(st_.lists(st_.tuples(st_.integers(1, 6), st_.integers(0, 4)), min_size=1, max_size=12), st_.integers(1, 8),
       st_.integers(0, 3), st_.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_stream_pages_walk_as_the_two_steps(pieces, host_ios, skip, rnd):
    """The fused pass over a stream's member pages (``_stream_pages``) gives what its two compiled
    steps give (each page's host I/O, then the merged runs), or declines where either would."""
    member, page, write, phase, piece = [], [], [], [], []
    for k, (count, base) in enumerate(pieces):
        for _ in range(count):
            member.append(rnd.randint(0, 3))
            page.append(base + rnd.randint(0, 6) + (k if rnd.random() < 0.8 else 0))
            write.append(rnd.random() < 0.7)
            phase.append(rnd.randint(0, 1))
            piece.append(k)
    n = len(piece)
    plan = MemberIOPlan(host_index=np.array(piece, np.int64), member=np.array(member, np.int32),
                        member_offset_bytes=np.array(page, np.int64) * 4096, length_bytes=np.full(n, 4096, np.int64),
                        is_write=np.array(write, bool), phase=np.array(phase, np.int8), mode=np.zeros(n, np.int8),
                        parity_bytes_computed=np.zeros(n, np.int64), stripes_touched=np.ones(n))
    lens = np.full(len(pieces), 3 * 4096, np.int64)
    starts = np.arange(len(pieces), dtype=np.int64) * 3 * 4096 + skip * 512
    offsets = np.arange(host_ios, dtype=np.int64) * int(lens.sum() // host_ios + 1)
    got = _stream_pages(plan, starts, lens, offsets)
    host = _host_of_pages(plan.host_index, starts, lens, offsets)
    want = _merge_member_pages(host, plan)
    if got is not None:
        for a, b in zip(got, want):
            assert np.array_equal(a, b) and a.dtype == b.dtype


class _Recorder:
    """A stepper that notes where the timeline moves it, and asks for one extension."""

    def __init__(self):
        self.calls, self.ended, self.extended = [], False, False

    def advance(self, to_s):
        self.calls.append(to_s)

    def extension(self):
        if self.extended:
            return None
        self.extended = True
        return 5.0


def test_the_simpy_timeline_moves_the_kernel_through_ramp_windows_and_extensions():
    stepper = _Recorder()
    timeline.drive(stepper, 1.0, 3.0, 4)
    assert stepper.calls == [1.0, 1.5, 2.0, 2.5, 3.0, 5.0]


def test_a_run_cut_into_windows_gives_one_run_s_bits(monkeypatch):
    """The kernel stopped at every window boundary and resumed: the same numbers as a run moved
    from the ramp's end to the window's end in one go."""
    system = ArraySystem(load_scenario("scenarios/graid-gen5-raid6/md-raid6-4k.yaml"),
                         WorkloadSpec(name="mix", rw="randrw", rwmixread=70, bs=4096, numjobs=4, iodepth=8),
                         default_catalog())
    windowed = simulate_event(system, host_ios=4000)
    monkeypatch.setattr(timeline, "window_ends", lambda warm_s, end_s, windows: [end_s])
    whole = simulate_event(system, host_ios=4000)
    for field in ("read_iops", "write_iops", "cpu_percent", "iops_ci95", "read_latency_us", "write_latency_us",
                  "utilisation", "tail_ci95_us"):
        assert getattr(windowed, field) == getattr(whole, field), field


STREAM_MODELS = {}  # (scenario, bs) -> model: built once, reused by every example


def _stream_model(path, bs):
    """A write stream's model on ``path`` with blocks of ``bs`` bytes (built once)."""
    if (path, bs) not in STREAM_MODELS:
        workload = WorkloadSpec(name="sw", rw="write", bs=bs, numjobs=1, iodepth=16)
        STREAM_MODELS[path, bs] = ArraySystem(load_scenario(path), workload, default_catalog()).model
    return STREAM_MODELS[path, bs]


@given(st_.sampled_from(["scenarios/graid-gen5-raid6", "scenarios/graid-gen5-raid5-16x", "scenarios/vroc-example"]),
       st_.sampled_from([4096, 65536, 1 << 20, 3 * 4096 + 512]),
       st_.lists(st_.tuples(st_.integers(0, 4000), st_.integers(1, 40)), min_size=1, max_size=4),
       st_.sampled_from([512, 4096, 1 << 16]))
@settings(max_examples=150, deadline=None)
def test_closed_form_full_stripes_as_the_planner(path, bs, segments, unit):
    """A coalesced write stream planned with whole stripes in closed form (no page-level planning)
    gives the page-level planner's member I/Os, merged, bit for bit: every array and dtype, on
    aligned and unaligned streams, streams that wrap, and offsets that fall."""
    model = _stream_model(path, bs)
    offsets = np.concatenate([start * unit + np.arange(count, dtype=np.int64) * bs for start, count in segments])
    got = demand._plan_coalesced(model, offsets.astype(np.int64))
    if np.all(np.diff(offsets) >= bs):  # a rising stream (no overlaps) takes the closed form, else the test is void
        assert demand._plan_full_stripes(model, *demand._stream_pieces(model, offsets), offsets) is not None
    want = demand._plan_coalesced(model, offsets.astype(np.int64), closed_form=False)
    for field in want.__dataclass_fields__:
        a, b = getattr(got, field), getattr(want, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), field



@given(st_.sampled_from(["scenarios/graid-gen5-raid6", "scenarios/graid-gen5-raid5-16x"]),
       st_.sampled_from([4096, 65536, 1 << 20, 5 * 4096]),
       st_.integers(0, 4000), st_.integers(1, 60))
@settings(max_examples=60, deadline=None)
def test_a_coalesced_stream_shares_out_its_stripes_by_the_bytes_each_write_holds(path, bs, start, count):
    """Each write of a rising stream holds the part of every stripe its bytes fill: the shares add
    up to the stream's pieces' stripes, and a write inside whole stripes holds bs / stripe of them
    (a 1 MiB write on 88 KiB stripes: 11.6, not the one stripe it starts in)."""
    model = _stream_model(path, bs)
    offsets = start * 4096 + np.arange(count, dtype=np.int64) * bs
    plan = demand._plan_coalesced(model, offsets)
    starts, lens = demand._stream_pieces(model, offsets)
    whole = demand._plan_full_stripes(model, starts, lens, offsets)
    stripe = model.geometry.stripe_data_bytes
    pieces = plan_ios(model.geometry, np.ones(len(starts), dtype=bool), starts, lens).stripes_touched
    assert plan.stripes_touched.sum() == pytest.approx(float(pieces.sum()))
    want = [sum(max(0, min(o + bs, a + n) - max(o, a)) / n * p for a, n, p in zip(starts, lens, pieces)) for o in offsets]
    assert np.allclose(plan.stripes_touched, want)
    if bs % stripe == 0:
        assert np.allclose(plan.stripes_touched[offsets % stripe == 0], bs / stripe)
    assert whole is not None and np.array_equal(whole.stripes_touched, plan.stripes_touched)



@pytest.mark.parametrize("barrier,until,warm_s,end_s", [(False, False, 0.5, 2.0), (False, False, 0.0, 2.0),
                                                        (True, False, 0.5, 2.0), (False, True, 0.0, 2.0),
                                                        (True, True, 0.0, 2.0), (False, True, 3.0, 2.0)])
def test_initial_events_leave_the_heap_the_pushes_one_by_one_leave(barrier, until, warm_s, end_s):
    """``compiled._initial_events`` appends the events that sort last; the heap's arrays and
    counters are those of ``k.push`` called event by event in SimPy's order."""
    from nvsim.sim.event.compiled import _initial_events
    fg, rb = 37, 3
    st, H = _heap(4 * (fg + rb) + 16)
    _initial_events(st, H, fg, rb, barrier, until, warm_s, end_s)
    ref_st, ref_H = _heap(4 * (fg + rb) + 16)
    if barrier:
        k.push(ref_st, *ref_H, 0.0, 0, k.RESYNC)
        k.push(ref_st, *ref_H, 0.0, 0, k.BUSY_START)
    for slot in range(fg + (0 if barrier else rb)):
        k.push(ref_st, *ref_H, 0.0, slot, k.ISSUE)
    if until:
        k.push(ref_st, *ref_H, end_s, 0, k.STOP)
    if not barrier:
        k.push(ref_st, *ref_H, warm_s, 0, k.WARM)
    assert (st == ref_st).all()
    for got, want in zip(H, ref_H):
        np.testing.assert_array_equal(got, want)
