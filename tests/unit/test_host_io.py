"""Host I/O paths as cost models (nvsim.host_io): the laws of the mechanism, on the catalog's entries."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from nvsim.errors import from_validation_error
from nvsim.host_io import (
    HostIoOptions, busy_cpus_with_polling, complete_cpu_us, host_io_costs, host_io_cpu_s, per_core_iops_bound,
    sleep_share, submit_cpu_us,
)
from nvsim.specs import WorkloadSpec

ENGINES = ("psync", "sync", "pvsync", "pvsync2", "libaio", "io_uring", "spdk")
DEPTHS = st.integers(1, 1024)


def costs(catalog, engine, *, depth=128, bs=4096, clock=3.0, random=True, **options):
    return host_io_costs(catalog.host_io[engine], HostIoOptions(**options), bs, depth, random, clock)


def test_every_fio_engine_of_the_brief_is_in_the_catalog_and_cited(catalog):
    assert set(ENGINES) <= set(catalog.host_io)
    for name in ENGINES:
        entry = catalog.host_io[name]
        for field in ("submit_us", "complete_us", "per_page_us", "reference_clock_ghz"):
            cited = getattr(entry, field)
            assert cited.source and cited.basis in ("datasheet", "published", "fitted", "assumed")


def test_polled_paths_pay_no_interrupt_and_no_wake_up(catalog):
    ring = catalog.host_io["io_uring"]
    interrupt = costs(catalog, "io_uring", depth=1)
    polled = costs(catalog, "io_uring", depth=1, hipri=True)
    assert polled.polls and not interrupt.polls
    assert polled.wake_s == 0 and interrupt.wake_s > 0
    saved_us = (interrupt.complete_s - polled.complete_s) / 1e-6
    assert saved_us == pytest.approx(ring.interrupt_us.value - ring.poll_us.value + ring.switch_us.value)
    spdk = costs(catalog, "spdk", depth=1)
    assert spdk.polls and spdk.wake_s == 0
    sync_polled = costs(catalog, "pvsync2", depth=1, hipri=True)
    assert sync_polled.polls and sync_polled.wake_s == 0


def test_fixed_buffers_remove_the_per_page_cost(catalog):
    for bs in (512, 4096, 1 << 20):
        plain = costs(catalog, "io_uring", bs=bs)
        fixed = costs(catalog, "io_uring", bs=bs, fixedbufs=True)
        assert fixed.submit_s == pytest.approx(costs(catalog, "io_uring", bs=4096, fixedbufs=True).submit_s)
        pages = max(1, bs // 4096)
        assert (plain.submit_s - fixed.submit_s) / 1e-6 == pytest.approx(pages * catalog.host_io["io_uring"].per_page_us.value)


def test_registered_files_remove_the_file_reference(catalog):
    ring = catalog.host_io["io_uring"]
    saved = costs(catalog, "io_uring").submit_s - costs(catalog, "io_uring", registerfiles=True).submit_s
    assert saved / 1e-6 == pytest.approx(ring.file_ref_us.value)


@settings(max_examples=60, deadline=None)
@given(engine=st.sampled_from(ENGINES), depth=DEPTHS, small=st.integers(1, 256), extra=st.integers(0, 256))
def test_batching_never_increases_cpu_per_io(catalog, engine, depth, small, extra):
    entry = catalog.host_io[engine]
    little, big = HostIoOptions(iodepth_batch_submit=small, iodepth_batch_complete_min=small), \
        HostIoOptions(iodepth_batch_submit=small + extra, iodepth_batch_complete_min=small + extra)
    assert submit_cpu_us(entry, big, depth, True) <= submit_cpu_us(entry, little, depth, True) + 1e-12
    assert complete_cpu_us(entry, big, depth) <= complete_cpu_us(entry, little, depth) + 1e-12


@pytest.mark.parametrize("engine", ["libaio", "io_uring"])
def test_depth_one_pays_one_syscall_per_io_whatever_the_batch(catalog, engine):
    entry = catalog.host_io[engine]
    one = HostIoOptions()
    asked = HostIoOptions(iodepth_batch_submit=32, iodepth_batch_complete_min=32)
    assert submit_cpu_us(entry, asked, 1, True) == submit_cpu_us(entry, one, 1, True) == entry.submit_us.value
    assert complete_cpu_us(entry, asked, 1) == complete_cpu_us(entry, one, 1)
    shared = submit_cpu_us(entry, one, 128, True) - submit_cpu_us(entry, asked, 128, True)
    assert shared == pytest.approx(entry.submit_syscall_us.value * (1 - 1 / 32))


def test_sqthread_poll_drops_the_submit_syscall_and_keeps_a_core_busy(catalog):
    ring = catalog.host_io["io_uring"]
    sq = costs(catalog, "io_uring", sqthread_poll=True)
    assert (costs(catalog, "io_uring").submit_s - sq.submit_s) / 1e-6 == pytest.approx(ring.submit_syscall_us.value)
    assert sq.poll_threads_per_job == 1
    assert busy_cpus_with_polling(0.3, 1.0, 4, sq, 64.0) == pytest.approx(4.3)
    assert busy_cpus_with_polling(0.3, 1.0, 4, sq, 2.0) == 2.0  # no more than the platform has


def test_a_polling_job_core_counts_as_fully_busy(catalog):
    polled = costs(catalog, "io_uring", hipri=True)
    assert busy_cpus_with_polling(0.2, 8.0, 8, polled, 64.0) == 8.0
    assert busy_cpus_with_polling(0.2, 8.0, 8, costs(catalog, "io_uring"), 64.0) == 0.2


@pytest.mark.parametrize("engine", ["psync", "sync", "pvsync", "pvsync2"])
def test_synchronous_engines_run_at_depth_one(catalog, engine):
    assert costs(catalog, engine, depth=128).iodepth == 1
    assert costs(catalog, engine, depth=128) == costs(catalog, engine, depth=1)
    w = WorkloadSpec.model_validate({"name": "j", "rw": "randread", "iodepth": 64, "ioengine": engine},
                                    context={"catalog": catalog})
    assert w.iodepth == 1


def test_sync_engine_seeks_before_random_io_only(catalog):
    extra = costs(catalog, "sync", random=True).submit_s - costs(catalog, "sync", random=False).submit_s
    assert extra / 1e-6 == pytest.approx(catalog.host_io["sync"].seek_us.value)


@settings(max_examples=40, deadline=None)
@given(engine=st.sampled_from(ENGINES), clock=st.floats(0.5, 6.0), depth=DEPTHS, hipri=st.booleans())
def test_cpu_and_latency_scale_with_one_over_clock(catalog, engine, clock, depth, hipri):
    hipri = hipri and "hipri" in catalog.host_io[engine].options
    at, twice = costs(catalog, engine, clock=clock, depth=depth, hipri=hipri), \
        costs(catalog, engine, clock=2 * clock, depth=depth, hipri=hipri)
    assert twice.submit_s == pytest.approx(at.submit_s / 2)
    assert twice.complete_s == pytest.approx(at.complete_s / 2)
    assert twice.wake_s == pytest.approx(at.wake_s / 2)


def test_default_costs_equal_the_catalog_sums_the_bounds_count(catalog):
    aio = catalog.host_io["libaio"]
    c = costs(catalog, "libaio", depth=64)
    assert c.cpu_s == pytest.approx(host_io_cpu_s(aio, 4096, 3.0))
    assert c.submit_s == pytest.approx((aio.submit_us.value + aio.per_page_us.value) * 1e-6)
    assert c.complete_s == pytest.approx(aio.complete_us.value * 1e-6)


def test_one_core_is_latency_bound_at_depth_one_and_cpu_bound_at_depth_128(catalog):
    drive_s = 35e-6
    for engine in ENGINES:
        qd1, qd128 = costs(catalog, engine, depth=1), costs(catalog, engine, depth=128)
        assert per_core_iops_bound(qd1, drive_s) == pytest.approx(1 / (drive_s + qd1.wake_s + qd1.cpu_s))
        if qd128.iodepth == 128:
            assert per_core_iops_bound(qd128, drive_s) == pytest.approx(1 / qd128.cpu_s)
    assert per_core_iops_bound(costs(catalog, "spdk", depth=128), drive_s) > per_core_iops_bound(
        costs(catalog, "io_uring", depth=128, hipri=True), drive_s) > per_core_iops_bound(
        costs(catalog, "io_uring", depth=128), drive_s)


@given(depth=st.integers(2, 256), cpu_us=st.floats(0.1, 50.0), latency_us=st.floats(1.0, 5000.0))
@settings(max_examples=100, deadline=None)
def test_a_deeper_job_sleeps_for_the_completions_the_others_do_not_keep_it_busy_through(catalog, depth, cpu_us,
                                                                                        latency_us):
    """Depth 1 sleeps for every completion; at depth d the other d - 1 I/Os keep the thread busy
    (d - 1) c / (L + c) of its time, and it sleeps for the rest: never more with more depth, none
    once they fill it, none polled."""
    ring, options = catalog.host_io["io_uring"], HostIoOptions()
    assert sleep_share(ring, options, 1, cpu_us, latency_us) == 1.0
    share = sleep_share(ring, options, depth, cpu_us, latency_us)
    assert share == pytest.approx(max(0.0, 1 - (depth - 1) * cpu_us / (latency_us + cpu_us)))
    assert 0.0 <= sleep_share(ring, options, depth + 1, cpu_us, latency_us) <= share <= 1.0
    assert sleep_share(ring, HostIoOptions(hipri=True), depth, cpu_us, latency_us) == 0.0
    assert sleep_share(ring, options, depth, cpu_us, None) == 0.0  # no device latency known: as before


def test_the_sleep_costs_its_share_of_the_switches_and_the_wake_up(catalog):
    ring = catalog.host_io["io_uring"]
    qd1 = host_io_costs(ring, HostIoOptions(), 4096, 1, True, 3.0, 50e-6)
    qd2 = host_io_costs(ring, HostIoOptions(), 4096, 2, True, 3.0, 50e-6)
    deep = host_io_costs(ring, HostIoOptions(), 4096, 64, True, 3.0, 50e-6)
    share = sleep_share(ring, HostIoOptions(), 2, (qd2.submit_s + deep.complete_s) * 1e6, 50.0)
    assert 0.9 < share < 1.0 and qd2.wake_s == pytest.approx(share * qd1.wake_s)
    assert deep.wake_s == 0.0 and qd2.complete_s == pytest.approx(deep.complete_s + share * (qd1.complete_s - deep.complete_s))


@pytest.mark.parametrize("data, field, phrase", [
    ({"ioengine": "io_urnig"}, "ioengine", "did you mean 'io_uring'"),
    ({"ioengine": "libaio", "hipri": True}, "hipri", "hipri: ioengine libaio does not take it"),
    ({"ioengine": "psync", "fixedbufs": 1}, "fixedbufs", "fixedbufs: ioengine psync does not take it"),
    ({"ioengine": "io_uring", "hipri": "maybe"}, "hipri", "must be 0 or 1"),
    ({"ioengine": "io_uring", "iodepth_batch_submit": 0}, "iodepth_batch_submit", "1"),
])
def test_a_bad_ioengine_or_option_is_one_line_naming_the_field(catalog, data, field, phrase):
    with pytest.raises(ValidationError) as info:
        WorkloadSpec.model_validate({"name": "j", "rw": "randread", **data}, context={"catalog": catalog})
    error = from_validation_error(info.value, WorkloadSpec)
    text = str(error)
    assert "\n" not in text and field in text and phrase in text


def test_the_engine_threads_cpus_come_on_top_of_polling_jobs_cpus(catalog):
    """md's raid5d or xiRAID's reconstruction threads run beside 8 polling jobs, on CPUs of their own:
    the jobs' 8 plus theirs (the polling floor hid them when they were summed into the jobs' busy)."""
    polled = costs(catalog, "io_uring", hipri=True)
    assert busy_cpus_with_polling(0.2, 8.0, 8, polled, 64.0, other_cpus=3.0) == pytest.approx(11.0)
    assert busy_cpus_with_polling(0.2, 8.0, 8, polled, 10.0, other_cpus=3.0) == 10.0  # no more than the platform has
    assert busy_cpus_with_polling(0.2, 8.0, 8, costs(catalog, "io_uring"), 64.0, other_cpus=3.0) == pytest.approx(3.2)
