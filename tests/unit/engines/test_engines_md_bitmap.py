"""md's write-intent bitmap as pure functions (nvsim.engines.md_bitmap): mdadm's default chunk
against super1.c's rule counted by hand, and the laws of the chance a write dirties a clean chunk."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.engines.md_bitmap import (MDADM_BITMAP_CHUNK_MIN_BYTES, bitmap_span_bytes, bitmap_updates_per_s_random,
                                     clear_after_s, data_bytes_per_bit, dirty_chunks_random, dirty_chunks_sequential,
                                     dirty_fraction_random, dirty_fraction_sequential, mdadm_adds_bitmap,
                                     mdadm_bitmap_chunk_bytes, mdadm_bitmap_file_chunk_bytes, mdadm_keeps_bitmap_files,
                                     mdadm_bitmap_min_chunk_bytes, mdadm_bitmap_room_bytes, member_bytes_per_bit,
                                     resync_member_bytes_after_crash, choose_bm_space_bytes)

KIB, MIB, GIB, TB = 2**10, 2**20, 2**30, 10**12


@pytest.mark.parametrize("member_bytes, chunk", [
    (3.84 * TB, 64 * MIB),  # 3.84e12 / 4 KiB = 937.5M bits; 2^10 doublings fit 1,046,528: 4 MiB < 64 MiB
    (61.44 * TB, 64 * MIB),  # 15.0G bits -> 2^14 doublings: 64 MiB
    (140 * TB, 128 * MIB),  # 34.2G bits over 1,046,528 = 32,660 -> 2^15 doublings: 128 MiB
    (1 * GIB, 64 * MIB),
])
def test_mdadm_default_chunk_is_64_mib_or_what_fits_128_kib_of_bits(member_bytes, chunk):
    assert mdadm_bitmap_chunk_bytes(member_bytes) == chunk


@pytest.mark.parametrize("member_bytes, room", [
    (3.84 * TB, 128 * KIB), (200 * GIB + 64 * KIB, 128 * KIB),  # super1.c choose_bm_space, on sectors
    (200 * GIB + 63 * KIB, 64 * KIB), (8 * GIB + 4 * KIB + 512, 64 * KIB),
    (8 * GIB + 4 * KIB, 4 * KIB), (64 * KIB, 4 * KIB), (64 * KIB - 512, 0),
])
def test_mdadm_leaves_an_internal_bitmap_room_by_the_members_size(member_bytes, room):
    """choose_bm_space: 128 KiB from 200 GiB past the first 64 KiB, 64 KiB past 8 GiB and 4 KiB,
    else 4 KiB, none below 64 KiB; create's room in every mdadm, and a grow's from 4.0."""
    assert choose_bm_space_bytes(member_bytes) == room
    assert mdadm_bitmap_room_bytes(member_bytes, "3.2") == mdadm_bitmap_room_bytes(member_bytes, "4.6", "grow") == room


@pytest.mark.parametrize("span_bytes, room, chunk", [
    (3.84 * TB, 128 * KIB, 4 * MIB),  # 937.5M bits of 4 KiB; 1,046,528 fit: halved 10 times (the auditor's 4 MiB)
    (7.68 * TB, 128 * KIB, 8 * MIB),
    (3.84 * TB, 32 * KIB, 16 * MIB),  # 260,096 bits fit: halved 12 times
    (3.84 * TB, 2**20 - 5 * KIB, 512 * KIB),  # 8,345,600 bits fit: halved 7 times
    (100 * GIB, 64 * KIB, 256 * KIB),  # 26.2M bits; 522,240 fit: halved 6 times
    (4 * KIB * 1_046_527, 128 * KIB, 4 * KIB),  # bits = span / 4 KiB + 1 = max_bits: fits
    (4 * KIB * 1_046_528, 128 * KIB, 8 * KIB),
])
def test_mdadms_smallest_internal_chunk_is_the_one_whose_bits_fit_the_room(span_bytes, room, chunk):
    """add_internal_bitmap1: max_bits = (room - 256) x 8; min_chunk from 4 KiB doubles (the bits
    halve, rounding up) until they fit; a smaller --bitmap-chunk is refused (-EINVAL)."""
    assert mdadm_bitmap_min_chunk_bytes(span_bytes, room) == chunk


@pytest.mark.parametrize("mdadm, room", [("3.2", 1019 * KIB), ("3.3", 32 * KIB), ("3.4", 32 * KIB), ("4.0", 128 * KIB),
                                         ("4.3", 128 * KIB), ("4.6", 128 * KIB)])
def test_a_grown_bitmaps_room_is_up_to_the_bad_block_log_or_the_data(mdadm, room):
    """mdadm --grow --bitmap=internal on 3.84 TB members: 3.3 and 3.4 put the bad-block log 32 KiB
    after the superblock's 4 KiB, 4.0 on right after the room create left (128 KiB), 3.2 has no log
    and 1 MiB of data offset (its bitmap 1 KiB after the superblock: 1,019 KiB)."""
    assert mdadm_bitmap_room_bytes(3.84 * TB, mdadm, "grow") == room
    assert mdadm_bitmap_room_bytes(3.84 * TB, mdadm, "create") == 128 * KIB


def test_the_default_chunk_takes_at_most_128_kib_of_room():
    """With no chunk asked for, mdadm caps the room at 128 KiB (3.2's 1,019 KiB on a grow too), and
    a smaller room sets a larger default where 64 MiB's bits do not fit it: 46 TB of RAID10
    addresses in 3.3's 32 KiB on a grow -> 256 MiB."""
    assert mdadm_bitmap_chunk_bytes(140 * TB, 1019 * KIB) == mdadm_bitmap_chunk_bytes(140 * TB) == 128 * MIB
    assert mdadm_bitmap_chunk_bytes(46.08 * TB, 32 * KIB) == 256 * MIB
    assert mdadm_bitmap_chunk_bytes(46.08 * TB, 128 * KIB) == 64 * MIB


@pytest.mark.parametrize("span_bytes, chunk", [
    (3.84 * TB, 4 * MIB),  # 3.84e12 / 2^20 chunks = 3.66 MB: 4 KiB doubled 10 times
    (4 * GIB, 4096),  # 2^20 chunks of 4 KiB cover 4 GiB exactly
    (4 * GIB + 1, 8192),
    (368.64 * TB, 512 * MIB),
])
def test_mdadms_bitmap_file_has_at_most_2_20_chunks_from_4_kib(span_bytes, chunk):
    """bitmap.c CreateBitmap: ``while (array_size > chunksize << (20-9)) chunksize <<= 1`` from
    DEFAULT_BITMAP_CHUNK (4 KiB); no 64 MiB floor."""
    assert mdadm_bitmap_file_chunk_bytes(span_bytes) == chunk


def test_mdadm_adds_a_bitmap_only_to_members_over_100_gib():
    assert mdadm_adds_bitmap(3.84 * TB) and not mdadm_adds_bitmap(100 * GIB) and mdadm_adds_bitmap(100 * GIB + 1)


def test_a_chunk_stays_dirty_one_and_a_half_daemon_periods():
    assert clear_after_s(5.0) == 7.5


@settings(max_examples=200, deadline=None)
@given(rate=st.floats(1.0, 1e8), chunks=st.floats(1.0, 1e7), sleep=st.floats(0.1, 100.0))
def test_bitmap_updates_never_exceed_chunks_over_e_t(rate, chunks, sleep):
    """rate exp(-rate t / C) is largest at rate = C / t, where it is C / (e t)."""
    bound = chunks / (math.e * clear_after_s(sleep))
    assert bitmap_updates_per_s_random(rate, chunks, sleep) <= bound * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(rate=st.floats(1.0, 1e7), more=st.floats(1.01, 10.0), chunks=st.floats(1.0, 1e6))
def test_more_writes_or_fewer_chunks_find_fewer_clean_chunks(rate, more, chunks):
    p = dirty_fraction_random(rate, chunks, 5.0)
    assert 0.0 <= p <= 1.0
    assert dirty_fraction_random(rate * more, chunks, 5.0) <= p
    assert dirty_fraction_random(rate, chunks * more, 5.0) >= p


def test_seed_000_random_writes_find_their_chunk_dirty():
    """9,600 GB written at 100K writes/s on 22 data members of 64 MiB bitmap chunks: 6,502 chunks,
    15 writes a second each, a clean chunk once in e^115."""
    chunks = 9600e9 / (64 * MIB * 22)
    assert dirty_fraction_random(100e3, chunks, 5.0) < 1e-40


def test_a_sequential_stream_enters_a_new_chunk_once_per_chunk_of_data():
    assert dirty_fraction_sequential(1 * MIB, 64 * MIB * 22) == pytest.approx(1 / (64 * 22))
    assert dirty_fraction_sequential(2 * GIB, 64 * MIB) == 1.0
    assert MDADM_BITMAP_CHUNK_MIN_BYTES == 64 * MIB


def test_after_a_crash_md_resyncs_the_dirty_chunks_or_without_a_bitmap_the_whole_member():
    member = 3.84 * TB
    # 100K random writes/s over 10,000 chunks, cleared after 7.5 s: every chunk dirty (e^-75 clean)
    dirty = dirty_chunks_random(1e5, 1e4, 5.0)
    assert dirty == pytest.approx(1e4)
    assert resync_member_bytes_after_crash(member, 64 * MIB, dirty) == pytest.approx(1e4 * 64 * MIB)
    # 100 writes/s over 1M chunks: 750 written in the last 7.5 s, almost all distinct
    few = dirty_chunks_random(100.0, 1e6, 5.0)
    assert few == pytest.approx(750.0, rel=1e-3)
    assert resync_member_bytes_after_crash(member, 64 * MIB, few) == pytest.approx(few * 64 * MIB)
    assert resync_member_bytes_after_crash(member, None, few) == member
    assert resync_member_bytes_after_crash(member, 64 * MIB, 1e9) == member


@settings(max_examples=50, deadline=None)
@given(st.floats(1.0, 1e7), st.floats(1.0, 1e7), st.floats(0.1, 60.0))
def test_dirty_and_clean_shares_of_the_chunks_add_up(rate, chunks, sleep):
    clean = chunks * dirty_fraction_random(rate, chunks, sleep)
    assert dirty_chunks_random(rate, chunks, sleep) + clean == pytest.approx(chunks)


@pytest.mark.parametrize("mdadm, adds", [("3.2", False), ("3.3", True), ("4.1", True), ("4.3", True), ("4.4", False),
                                         ("4.6", False)])
def test_mdadm_adds_its_own_bitmap_from_3_3_to_4_3(mdadm, adds):
    assert mdadm_adds_bitmap(3.84 * TB, mdadm) is adds
    assert not mdadm_adds_bitmap(100 * GIB, mdadm)


def test_bitmap_files_went_with_mdadm_4_4():
    assert mdadm_keeps_bitmap_files("4.3") and not mdadm_keeps_bitmap_files("4.4")


@pytest.mark.parametrize("level, span", [(10, 4 * 3.84 * TB / 2), (1, 3.84 * TB), (5, 3.84 * TB), (6, 3.84 * TB)])
def test_a_raid10_bitmap_spans_the_array_and_others_a_member(level, span):
    assert bitmap_span_bytes(level, 3.84 * TB, 4, 2) == pytest.approx(span)


@settings(max_examples=100, deadline=None)
@given(chunk=st.sampled_from([4096, 2**20, 64 * MIB, 2**30]), drives=st.integers(4, 32), copies=st.integers(2, 3),
       data=st.integers(2, 30))
def test_every_member_byte_of_a_bit_is_resynced_once(chunk, drives, copies, data):
    """A bit's host data times the copies it is stored in equals the member bytes its resync reads
    over all members (RAID10 near layout: the chunk of array addresses on ``copies`` members); a
    RAID5/6 bit's data spans its data members and the resync reads the chunk on every member."""
    assert member_bytes_per_bit(10, chunk, drives, copies) * drives == pytest.approx(data_bytes_per_bit(10, chunk, data) * copies)
    assert data_bytes_per_bit(6, chunk, data) == chunk * data and member_bytes_per_bit(6, chunk, data + 2, 1) == chunk


def test_a_sequential_stream_keeps_the_chunks_of_one_clearing_time_dirty():
    """1 GB/s over chunks of 384 MiB of data: 7.5 s writes 7.5 GB, 18.6 chunks, and the one being written."""
    per = 6 * 64 * MIB
    assert dirty_chunks_sequential(1e9, per, 1e6, 5.0) == pytest.approx(1 + 7.5e9 / per)
    assert dirty_chunks_sequential(1e9, per, 10, 5.0) == 10  # no more than the region holds
    assert dirty_chunks_sequential(0.0, per, 10, 5.0) == 0  # a stream that writes nothing is in no chunk
    assert dirty_chunks_sequential(1.0, per, 10, 5.0) == pytest.approx(1 + 7.5 / per)  # a trickle: the one it is in

