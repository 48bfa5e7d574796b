"""md RAID10's far and offset layouts (mdadm --layout=f2 | o2 ...) against raid10.c's arithmetic.

The worked examples are computed by hand from drivers/md/raid10.c with one kind of copies
(far_set_size = raid_disks, as mdadm builds them: util.c parse_layout_10 sets no far-set bits):

* ``calc_sectors``: chunks in the array = (member chunks // far_copies) x raid_disks // near_copies;
  used chunks per member = ceil(array chunks x copies / raid_disks); ``stride`` = used // far_copies
  chunks (far), one chunk (offset).
* ``__raid10_find_phys``: chunk *= near_copies; dev = chunk mod raid_disks, stripe = chunk //
  raid_disks; offset: stripe *= far_copies; copy f (1 .. far_copies - 1): d += near_copies mod
  far_set_size, s += stride.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.stripe.layout import ArrayGeometry, map_logical, map_logical_copies, unmap_member
from nvsim.stripe.planner import DATA_LOSS, MIRROR_WRITE, READ, plan_ios

STRIP = 4096


def geom(layout, n, copies=2, member_strips=8):
    return ArrayGeometry(10, n, STRIP, layout=layout, member_size_bytes=member_strips * STRIP, copies=copies)


def copies_of(g, chunk):
    members, offsets = map_logical_copies(g, [chunk * STRIP])
    return [(int(m), int(o) // STRIP) for m, o in zip(members[0], offsets[0])]


def test_far_2_on_4_members_as_find_phys_places_it():
    """8 strips a member: 16 array chunks, 8 used a member, stride 4. Chunk 5: dev 1, stripe 1;
    the far copy on dev 2 at 1 + 4. Chunk 7: dev 3, stripe 1; the far copy wraps to dev 0."""
    g = geom("far", 4)
    assert g.capacity_bytes == 16 * STRIP and g.stride_strips == 4
    assert copies_of(g, 5) == [(1, 1), (2, 5)]
    assert copies_of(g, 7) == [(3, 1), (0, 5)]
    assert copies_of(g, 0) == [(0, 0), (1, 4)]


def test_offset_2_on_4_members_as_find_phys_places_it():
    """Chunk 5: dev 1, stripe 1 x far_copies = 2; the offset copy on dev 2 a chunk (the stride) on."""
    g = geom("offset", 4)
    assert g.capacity_bytes == 16 * STRIP and g.stride_strips == 1
    assert copies_of(g, 5) == [(1, 2), (2, 3)]
    assert copies_of(g, 7) == [(3, 2), (0, 3)]


def test_far_on_an_odd_count_and_three_copies():
    """f2 on 3 members of 7 strips: 7 // 2 x 3 = 9 chunks, 6 used a member, stride 3; chunk 8:
    dev 2, stripe 2, far copy (0, 5); row 6 is the member's unused tail. f3 on 4 members of 9
    strips: 12 chunks, stride 3; chunk 6: dev 2, stripe 1, copies (3, 4) and (0, 7)."""
    g = geom("far", 3, member_strips=7)
    assert g.capacity_bytes == 9 * STRIP and g.stride_strips == 3
    assert copies_of(g, 8) == [(2, 2), (0, 5)]
    assert unmap_member(g, 0, 6 * STRIP).tolist() == [-1]
    g3 = geom("far", 4, copies=3, member_strips=9)
    assert g3.capacity_bytes == 12 * STRIP and copies_of(g3, 6) == [(2, 1), (3, 4), (0, 7)]


def test_near_is_as_before():
    """n2 on 3 members: chunk 4 -> 8 = dev 2, stripe 2; the next copy wraps to dev 0, stripe 3."""
    assert copies_of(geom("near", 3), 4) == [(2, 2), (0, 3)]


def test_find_virt_inverts_each_copy():
    g = geom("far", 4)
    assert unmap_member(g, 2, 5 * STRIP + 100).tolist() == [5 * STRIP + 100]  # chunk 5's far copy
    assert unmap_member(geom("offset", 4), 0, 3 * STRIP).tolist() == [7 * STRIP]  # chunk 7's offset copy


@settings(max_examples=60, deadline=None)
@given(layout=st.sampled_from(["near", "far", "offset"]), n=st.integers(2, 7), copies=st.integers(2, 4),
       member_strips=st.integers(4, 19))
def test_every_chunk_has_its_copies_on_distinct_members_and_the_map_is_a_bijection(layout, n, copies, member_strips):
    if copies > n:
        return
    g = geom(layout, n, copies, member_strips)
    chunks = g.capacity_bytes // STRIP
    members, offsets = map_logical_copies(g, np.arange(chunks) * STRIP)
    assert all(len(set(row)) == copies for row in members.tolist())  # copies on distinct devices
    places = set(zip(members.ravel().tolist(), (offsets.ravel() // STRIP).tolist()))
    assert len(places) == chunks * copies  # no place holds two copies
    assert max(o for _, o in places) < member_strips
    for t in range(copies):  # each copy maps back to its chunk
        assert (unmap_member(g, members[:, t], offsets[:, t]) == np.arange(chunks) * STRIP).all()
    assert (map_logical(g, np.arange(chunks) * STRIP)[0] == members[:, 0]).all()


def test_geometry_refuses_what_md_refuses():
    with pytest.raises(ValueError, match="copies"):
        geom("far", 2, copies=3)
    with pytest.raises(ValueError, match="layout"):
        geom("f2", 4)
    with pytest.raises(ValueError, match="member_size_bytes"):
        geom("far", 4, copies=3, member_strips=2)


@pytest.mark.parametrize("layout", ["far", "offset"])
def test_a_write_goes_to_every_copy_a_read_to_one(layout):
    g = geom(layout, 4)
    plan = plan_ios(g, [True, False], [5 * STRIP, 5 * STRIP], [STRIP, STRIP])
    w, r = plan.for_host(0), plan.for_host(1)
    assert plan.mode.tolist() == [MIRROR_WRITE, READ]
    assert sorted(zip(w["member"].tolist(), (w["member_offset_bytes"] // STRIP).tolist())) == copies_of(g, 5)
    assert (int(r["member"][0]), int(r["member_offset_bytes"][0]) // STRIP) in copies_of(g, 5)


@pytest.mark.parametrize("layout", ["far", "offset"])
def test_reads_spread_over_every_member_and_a_degraded_read_takes_the_surviving_copy(layout):
    """On SSDs md's read_balance takes the copy with the fewest pending (best_pending_slot) for
    far as for near: a run of reads loads every member about alike."""
    g = geom(layout, 4)
    plan = plan_ios(g, False, np.arange(16) * STRIP, STRIP)
    counts = np.bincount(plan.member, minlength=4)
    assert counts.min() >= 3 and counts.max() <= 5  # the fewest issued, ties from copy h mod copies on
    down = plan_ios(g, False, [5 * STRIP], [STRIP], failed_members=[1])
    assert down.mode.tolist() == [READ] and down.member.tolist() == [2]
    assert down.member_offset_bytes.tolist() == [copies_of(g, 5)[1][1] * STRIP]
    lost = plan_ios(g, False, [5 * STRIP], [STRIP], failed_members=[1, 2])
    assert lost.mode.tolist() == [DATA_LOSS] and lost.n_member_ios == 0
