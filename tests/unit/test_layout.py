"""md layouts: known tables from raid5.c, round trips, and geometry validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.stripe.layout import (
    PARITY_LAYOUTS,
    ArrayGeometry,
    data_members,
    map_logical,
    map_logical_copies,
    parity_members,
    syndrome_members,
    unmap_member,
)

KIB = 1024


def test_raid5_left_symmetric_matches_md_table():
    # md's default on 4 members: P walks from the last member leftwards, data starts after P
    g = ArrayGeometry(5, 4, 64 * KIB, member_size_bytes=64 * KIB * 8)
    p, q = parity_members(g, np.arange(4))
    assert p.tolist() == [3, 2, 1, 0] and q.tolist() == [-1] * 4
    assert data_members(g, np.arange(4)).tolist() == [[0, 1, 2], [3, 0, 1], [2, 3, 0], [1, 2, 3]]


def test_raid5_other_algorithms_match_md_table():
    def table(layout):
        g = ArrayGeometry(5, 4, 4 * KIB, layout=layout, member_size_bytes=64 * KIB)
        return parity_members(g, np.arange(4))[0].tolist(), data_members(g, np.arange(4)).tolist()

    assert table("left-asymmetric") == ([3, 2, 1, 0], [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    assert table("right-asymmetric") == ([0, 1, 2, 3], [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])
    assert table("right-symmetric") == ([0, 1, 2, 3], [[1, 2, 3], [2, 3, 0], [3, 0, 1], [0, 1, 2]])


def test_raid6_p_then_q_as_md_places_them():
    g = ArrayGeometry(6, 5, 4 * KIB, member_size_bytes=64 * KIB)  # left-symmetric
    p, q = parity_members(g, np.arange(5))
    assert p.tolist() == [4, 3, 2, 1, 0]
    assert q.tolist() == [0, 4, 3, 2, 1]
    assert data_members(g, [0]).tolist() == [[1, 2, 3]]
    ga = ArrayGeometry(6, 5, 4 * KIB, layout="left-asymmetric", member_size_bytes=64 * KIB)
    p, q = parity_members(ga, np.arange(5))
    assert p.tolist() == [4, 3, 2, 1, 0] and q.tolist() == [0, 4, 3, 2, 1]
    assert data_members(ga, np.arange(5)).tolist() == [[1, 2, 3], [0, 1, 2], [0, 1, 4], [0, 3, 4], [2, 3, 4]]
    # md feeds gen_syndrome starting just after Q (raid6_d0): not logical order here
    assert syndrome_members(ga, [2]).tolist() == [[4, 0, 1]]
    assert syndrome_members(g, np.arange(5)).tolist() == data_members(g, np.arange(5)).tolist()


def test_raid10_near_two_copies_on_odd_member_count():
    g = ArrayGeometry(10, 3, 4 * KIB, member_size_bytes=64 * KIB)  # md: 3 disks, near=2
    m, o = map_logical_copies(g, np.arange(3) * 4 * KIB)
    assert m.tolist() == [[0, 1], [2, 0], [1, 2]]
    assert (o // (4 * KIB)).tolist() == [[0, 0], [0, 1], [1, 1]]
    assert g.capacity_bytes == 16 * 3 // 2 * 4 * KIB


def test_raid0_and_raid1():
    g0 = ArrayGeometry(0, 3, 8 * KIB, member_size_bytes=64 * KIB)
    m, o = map_logical(g0, [0, 8 * KIB, 16 * KIB, 24 * KIB + 5])
    assert m.tolist() == [0, 1, 2, 0] and o.tolist() == [0, 0, 0, 8 * KIB + 5]
    g1 = ArrayGeometry(1, 3, member_size_bytes=1 << 20)
    m, o = map_logical_copies(g1, [12345])
    assert m.tolist() == [[0, 1, 2]] and o.tolist() == [[12345] * 3]
    assert unmap_member(g1, 2, [777]).tolist() == [777]


geometries = st.one_of(
    st.builds(lambda n, s, lay: ArrayGeometry(5, n, s * 4 * KIB, layout=lay, member_size_bytes=s * 4 * KIB * 7),
              st.integers(2, 12), st.integers(1, 8), st.sampled_from(PARITY_LAYOUTS)),
    st.builds(lambda n, s, lay: ArrayGeometry(6, n, s * 4 * KIB, layout=lay, member_size_bytes=s * 4 * KIB * 7),
              st.integers(4, 12), st.integers(1, 8), st.sampled_from(PARITY_LAYOUTS)),
    st.builds(lambda n, s: ArrayGeometry(0, n, s * 4 * KIB, member_size_bytes=s * 4 * KIB * 5),
              st.integers(1, 8), st.integers(1, 8)),
    st.builds(lambda n, c, s: ArrayGeometry(10, n, s * 4 * KIB, copies=min(c, n), member_size_bytes=s * 4 * KIB * 5),
              st.integers(2, 8), st.integers(2, 3), st.integers(1, 4)),
    st.builds(lambda n: ArrayGeometry(1, n, member_size_bytes=64 * KIB), st.integers(2, 4)),
)


@given(g=geometries, seed=st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_map_unmap_round_trip_and_bijection(g, seed):
    rng = np.random.default_rng(seed)
    offs = rng.integers(0, g.capacity_bytes, size=200)
    m, o = map_logical(g, offs)
    assert np.array_equal(unmap_member(g, m, o), offs)
    ms, os_ = map_logical_copies(g, offs)
    assert ms.shape == (200, g.n_copies)
    for c in range(g.n_copies):  # every copy maps back to the same logical byte
        assert np.array_equal(unmap_member(g, ms[:, c], os_[:, c]), offs)
    if g.level in (0, 5, 6):
        # every member byte in the used area is either exactly one logical byte or parity
        used = g.strips_per_member * g.strip_bytes
        step = 4 * KIB
        mm, oo = np.meshgrid(np.arange(g.n_members), np.arange(0, used, step), indexing="ij")
        back = unmap_member(g, mm.ravel(), oo.ravel())
        data = back[back >= 0]
        assert len(np.unique(data)) == len(data) == g.capacity_bytes // step
        assert (back < 0).sum() == g.n_parity * g.strips_per_member * g.strip_bytes // step
    if g.level in (5, 6):
        stripes = np.arange(g.strips_per_member)
        p, q = parity_members(g, stripes)
        dm = data_members(g, stripes)
        sm = syndrome_members(g, stripes)
        for s in stripes:
            members = set(dm[s]) | {p[s]} | ({q[s]} if g.level == 6 else set())
            assert members == set(range(g.n_members))
            assert sorted(sm[s]) == sorted(dm[s])
        # parity positions unmap to -1
        assert np.all(unmap_member(g, p, stripes * g.strip_bytes) == -1)


@pytest.mark.parametrize("kwargs, field", [
    (dict(level=6, n_members=3, strip_bytes=4096), "n_members"),
    (dict(level=5, n_members=4, strip_bytes=6000), "strip_bytes"),
    (dict(level=5, n_members=4, strip_bytes=0), "strip_bytes"),
    (dict(level=4, n_members=4, strip_bytes=4096), "level"),
    (dict(level=5, n_members=4, strip_bytes=4096, layout="zigzag"), "layout"),
    (dict(level=10, n_members=2, strip_bytes=4096, copies=3), "copies"),
    (dict(level=0, n_members=2, strip_bytes=8192, member_size_bytes=4096), "member_size_bytes"),
])
def test_validation_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        ArrayGeometry(**kwargs)


def test_sizes():
    g = ArrayGeometry(6, 24, 64 * KIB, member_size_bytes=10 * 64 * KIB + 100)
    assert g.data_members_per_stripe == 22
    assert g.stripe_data_bytes == 22 * 64 * KIB
    assert g.capacity_bytes == 10 * 22 * 64 * KIB
    with pytest.raises(ValueError, match="logical_offsets_bytes"):
        map_logical(g, [g.capacity_bytes])
