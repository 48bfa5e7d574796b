"""md RAID1's read balance for sequential streams (raid1.c ``read_balance``: "Don't change to
another disk for sequential reads", ``next_seq_sect``; ``is_sequential``/``should_choose_next``
from Linux 6.9, which move a stream only past a drive's ``opt_iosize``, 0 on NVMe drives that
state no optimal write size): a stream's reads stay on one mirror, random reads rotate."""

import numpy as np
import pytest

from nvsim.stripe.layout import ArrayGeometry
from nvsim.stripe.planner import plan_ios

MIB = 2**20


def geom(n):
    return ArrayGeometry(level=1, n_members=n, strip_bytes=64 * 1024, member_size_bytes=64 * 2**30)


@pytest.mark.parametrize("n", [2, 4])
def test_a_sequential_stream_stays_on_its_mirror(n):
    offs = np.arange(64, dtype=np.int64) * MIB
    for stream in range(n):
        plan = plan_ios(geom(n), False, offs, MIB, read_stream=stream)
        assert set(plan.member.tolist()) == {stream}  # each stream its own mirror


def test_without_a_stream_reads_rotate_over_the_mirrors_as_before():
    offs = np.arange(64, dtype=np.int64) * MIB
    plan = plan_ios(geom(2), False, offs, MIB)
    assert plan.member.tolist() == [h % 2 for h in range(64)]


def test_a_read_that_continues_no_mirrors_last_read_moves_on():
    """A stream with holes (fio's rw=read:64k): no read continues the last one, so md balances them."""
    offs = np.arange(64, dtype=np.int64) * 2 * MIB
    plan = plan_ios(geom(2), False, offs, MIB, read_stream=0)
    assert set(plan.member.tolist()) == {0, 1}


def test_writes_still_go_to_every_mirror_and_a_failed_one_is_skipped():
    """A sequential mix (fio's rw=rw: reads and writes each a stream of their own, interleaved)."""
    offs = np.array([100, 0, 101, 1, 102, 2, 103, 3], dtype=np.int64) * MIB
    plan = plan_ios(geom(3), np.array([True, False] * 4), offs, MIB, failed_members=(0,), read_stream=0)
    reads = plan.member[~plan.is_write]
    assert set(reads.tolist()) == {1} and set(plan.member[plan.is_write].tolist()) == {1, 2}
