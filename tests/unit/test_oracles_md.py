"""Each md rule against a small worked example, the numbers written out by hand (issue 24, item 8):
the closed forms of nvsim.raid (what the bounds and the fluid mode use) and the planner's member
I/Os (what the event mode books), from drivers/md/raid5.c and raid10.c."""

import pytest

from nvsim.raid import (data_members_per_stripe, failures_tolerated, full_stripe_write_bytes_per_host_byte,
                        small_write_ops, usable_capacity_bytes)
from nvsim.stripe.layout import ArrayGeometry, data_members
from nvsim.stripe.planner import Mode, plan_ios

KIB = 1024


@pytest.mark.parametrize("level, drives, reads, writes", [
    (6, 24, 3, 3),   # RMW reads old data, P, Q (3) < RCW's 21 other data strips
    (5, 24, 2, 2),   # RMW reads old data, P (2) < 22
    (5, 3, 1, 2),    # RMW 2 > RCW 1 (the other data strip): reconstruct
    (5, 4, 2, 2),    # RMW 2 = RCW 2: md takes RMW only when strictly fewer, so reconstruct (2 reads)
    (6, 4, 1, 3),    # RMW 3 > RCW 1
    (6, 5, 2, 3),    # RMW 3 > RCW 2
    (6, 6, 3, 3),    # RMW 3 = RCW 3: reconstruct, 3 reads
    (10, 4, 0, 2),   # near 2: both copies written, nothing read
    (1, 3, 0, 3),    # every mirror written
    (0, 8, 0, 1),
])
def test_small_write_member_ios(level, drives, reads, writes):
    ops = small_write_ops(level, drives, 4 * KIB)
    assert (ops.reads, ops.writes) == (reads, writes)
    assert (ops.read_bytes, ops.write_bytes) == (reads * 4 * KIB, writes * 4 * KIB)


def test_capacity_rounds_each_member_to_whole_strips():
    # 10-member RAID5, members of 1,000,000 B, 64 KiB strips: 15 whole strips (983,040 B) per member, 9 hold data
    assert usable_capacity_bytes(5, 10, 1_000_000, 64 * KIB) == 9 * 983_040
    assert usable_capacity_bytes(6, 24, 3_840_000_000_000, 4 * KIB) == 84_480_000_000_000  # 22 x 3.84 TB
    assert usable_capacity_bytes(10, 5, 10 * 64 * KIB, 64 * KIB) == 5 * 10 * 64 * KIB // 2  # odd member count, near 2
    assert usable_capacity_bytes(1, 3, 5 * 4 * KIB, 4 * KIB) == 5 * 4 * KIB


def test_full_stripe_writes_and_redundancy():
    assert full_stripe_write_bytes_per_host_byte(6, 24) == pytest.approx(24 / 22)
    assert full_stripe_write_bytes_per_host_byte(5, 5) == pytest.approx(5 / 4)
    assert full_stripe_write_bytes_per_host_byte(10, 6, near_copies=3) == 3.0
    assert data_members_per_stripe(10, 7, near_copies=2) == 3 and data_members_per_stripe(6, 24) == 22
    assert [failures_tolerated(*a) for a in ((0, 4), (1, 3), (5, 8), (6, 8), (10, 8))] == [0, 2, 1, 2, 1]


def test_planner_raid10_near_two_writes_both_copies_of_the_chunk():
    """4 members, near 2, 64 KiB chunks: chunk 0 lives on members 0 and 1, chunk 1 on 2 and 3."""
    g = ArrayGeometry(10, 4, 64 * KIB, member_size_bytes=64 * KIB * 8)
    for offset, members in ((0, [0, 1]), (64 * KIB, [2, 3]), (128 * KIB, [0, 1])):
        io = plan_ios(g, True, [offset], [4 * KIB]).for_host(0)
        assert sorted(io["member"].tolist()) == members and io["is_write"].all()


def test_planner_three_of_four_strips_reconstructs_from_the_fourth():
    """RAID5 of 5 (4 data strips of 64 KiB): writing strips 0-2 whole reads the 4th strip's 16 pages
    (RCW: 16 page reads) rather than the old data and parity (RMW: 64), then writes 3 strips + P."""
    g = ArrayGeometry(5, 5, 64 * KIB, member_size_bytes=64 * KIB * 8)
    plan = plan_ios(g, True, [0], [3 * 64 * KIB])
    io = plan.for_host(0)
    fourth = int(data_members(g, [0])[0][3])
    reads = io["member"][~io["is_write"]].tolist()
    assert Mode(int(plan.mode[0])) == Mode.RECONSTRUCT_WRITE
    assert set(reads) == {fourth} and io["length_bytes"][~io["is_write"]].sum() == 64 * KIB
    assert io["length_bytes"][io["is_write"]].sum() == 4 * 64 * KIB


def test_planner_full_stripe_write_of_raid5_reads_nothing():
    g = ArrayGeometry(5, 5, 64 * KIB, member_size_bytes=64 * KIB * 8)
    plan = plan_ios(g, True, [0], [4 * 64 * KIB])
    io = plan.for_host(0)
    assert Mode(int(plan.mode[0])) == Mode.FULL_STRIPE_WRITE and io["is_write"].all()
    assert sorted(io["member"].tolist()) == [0, 1, 2, 3, 4] and plan.parity_bytes_computed[0] == 64 * KIB
