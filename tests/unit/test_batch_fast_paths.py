"""The event mode's per-batch fast paths give what the general paths give: ``phase_runs``
(compiled) the NumPy formula's runs, a one-I/O-run random stream the general offset formula's
offsets, and ``plan_ios`` on ready arrays the plan of converted inputs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.sim.demand import phase_runs
from nvsim.sim.workload import HostStream, named_rng
from nvsim.specs import WorkloadSpec
from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import plan_ios


def numpy_phase_runs(phase: np.ndarray, op_start: np.ndarray) -> np.ndarray:
    """The formula ``phase_runs`` replaced: a run starts at a new host I/O or a new phase."""
    if len(phase) == 0:
        return np.zeros(0, dtype=np.int64)
    host = np.repeat(np.arange(len(op_start) - 1), np.diff(op_start))
    new_run = np.ones(len(phase), dtype=bool)
    new_run[1:] = (host[1:] != host[:-1]) | (phase[1:] != phase[:-1])
    return np.flatnonzero(new_run)


@settings(max_examples=300, deadline=None)
@given(per_host=st.lists(st.lists(st.integers(0, 2), max_size=6), max_size=12))
def test_phase_runs_are_the_numpy_formulas(per_host):
    """Host I/Os with 0-6 member I/Os each, in phase order (some with none: data loss)."""
    phase = np.array([p for ops in per_host for p in sorted(ops)], dtype=np.int8)
    op_start = np.zeros(len(per_host) + 1, dtype=np.int64)
    np.cumsum([len(ops) for ops in per_host], out=op_start[1:])
    got = phase_runs(phase, op_start)
    assert got.dtype == np.int64
    assert got.tolist() == numpy_phase_runs(phase, op_start).tolist()


def test_phase_runs_split_a_host_io_at_each_phase():
    # host 0: a read phase then a write phase; host 1: one write; host 2: none
    runs = phase_runs(np.array([0, 0, 1, 1, 1], np.int8), np.array([0, 4, 5, 5]))
    assert runs.tolist() == [0, 2, 4]


@settings(max_examples=60, deadline=None)
@given(job=st.integers(0, 50), batches=st.integers(1, 3), count=st.integers(1, 70), seed=st.integers(0, 9))
def test_random_offsets_of_one_io_runs_are_the_general_formulas(job, batches, count, seed):
    w = WorkloadSpec(name="r", rw="randread", bs=4096, size="1G", offset="1M")
    stream = HostStream.for_job(w, job, 8 << 30, seed)
    for batch in range(batches):
        offsets, _ = stream.next_batch(count)
        slots = stream.region_bytes // w.bs
        draws = named_rng(seed, "random offsets", job, batch).integers(0, slots, size=count, dtype=np.int64)
        within = np.arange(count, dtype=np.int64)
        expected = stream.region_start_bytes + (draws[within] + within % 1) % slots * w.bs
        assert offsets.dtype == np.int64
        assert offsets.tolist() == expected.tolist()


def test_plan_ios_takes_ready_arrays_as_it_takes_lists():
    g = ArrayGeometry(level=6, n_members=8, strip_bytes=65536, member_size_bytes=1 << 30)
    offsets = np.arange(0, 40 * 12288, 12288, dtype=np.int64)
    is_write = (np.arange(40) % 3 == 0)
    lengths = np.full(40, 12288, dtype=np.int64)
    ready = plan_ios(g, is_write, offsets, lengths)
    converted = plan_ios(g, is_write.tolist(), offsets.tolist(), 12288)
    for field in ready.__dataclass_fields__:
        assert np.array_equal(getattr(ready, field), getattr(converted, field)), field
    assert len(ready.member) > 40
    readonly = offsets.copy()
    readonly.flags.writeable = False
    assert np.array_equal(plan_ios(g, is_write, readonly, lengths).member_offset_bytes, ready.member_offset_bytes)


@settings(max_examples=100, deadline=None)
@given(lengths=st.lists(st.integers(0, 1 << 22), max_size=40), units=st.integers(1, 300))
def test_pieces_are_the_clipped_page_counts(lengths, units):
    from types import SimpleNamespace

    from nvsim.sim.drive import PAGE_BYTES, DriveTiming

    got = DriveTiming.pieces_of(SimpleNamespace(units=units), np.array(lengths, dtype=np.int64))
    expected = np.clip(-(-np.array(lengths, dtype=np.int64) // PAGE_BYTES), 1, units)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def unique_pages(host: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, n: int) -> np.ndarray:
    """The formula md's stripe_heads replaced: every page as a (host, page) key, counted distinct."""
    from nvsim.constants import PAGE_BYTES

    lo = offsets // PAGE_BYTES
    count = (offsets + lengths - 1) // PAGE_BYTES - lo + 1
    if not len(count):
        return np.zeros(n)
    pages_host = np.repeat(host, count)
    page = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    key = np.unique(pages_host * (int(page.max()) + 1) + page)
    return np.bincount(key // (int(page.max()) + 1), minlength=n)[:n].astype(float)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 6), ios=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 200), st.integers(1, 70_000)),
                                         max_size=60))
def test_md_stripe_heads_count_the_distinct_pages_of_each_host_io(n, ios):
    from nvsim.constants import PAGE_BYTES
    from nvsim.engines.md import _pages_covered

    host = np.array([h % n for h, _, _ in ios], dtype=np.int64)
    offsets = np.array([o * 512 for _, o, _ in ios], dtype=np.int64)
    lengths = np.array([b for _, _, b in ios], dtype=np.int64)
    lo, end = offsets // PAGE_BYTES, (offsets + lengths - 1) // PAGE_BYTES + 1
    got = _pages_covered(host, lo, end, n)
    assert got.tolist() == unique_pages(host, offsets, lengths, n).tolist()


def test_md_stripe_heads_of_overlapping_member_ios():
    from nvsim.engines.md import _pages_covered

    # host 0: pages 0-3 on one member, 2-5 on another (6 distinct); host 1: page 9 twice (1)
    host, lo, end = np.array([0, 0, 1, 1]), np.array([0, 2, 9, 9]), np.array([4, 6, 10, 10])
    assert _pages_covered(host, lo, end, 2).tolist() == [6.0, 1.0]
