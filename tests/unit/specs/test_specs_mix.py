"""A job's mix of block sizes in fio's syntax (nvsim.specs.mix) against fio's rules worked by hand:
bssplit's sizes without a percentage share what the others leave, a direction without a split takes
the last one given; bsrange is fio's draw LOW + HIGH x u rounded down to a multiple of LOW and capped
at HIGH (io_u.c, get_next_buflen); the mix of the directions a job uses, its mean size; bad text is
a ValueError that says what is wrong."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.specs.mix import (
    MAX_LISTED_SIZES, MAX_MIX_PARTS, MixPart, block_size_mix, bsrange_sizes, is_a_mix, mean_size, parse_bsrange,
    parse_bssplit, range_bins,
)

KiB, MiB = 1024, 2**20


def size_of(text: str) -> int:
    """A size as fio writes it (bare bytes, or k/m binary): the test's own reader, not nvsim.units."""
    match = re.fullmatch(r"\s*(\d+)([kKmM]?)\s*", text)
    if not match:
        raise ValueError(f"not a size: {text!r}")
    return int(match.group(1)) * {"": 1, "k": KiB, "m": MiB}[match.group(2).lower()]


def approx(split):
    return [[(size, pytest.approx(share)) for size, share in direction] for direction in split]


# ---------------------------------------------------------------- bssplit

def test_a_size_without_a_percentage_shares_what_the_others_leave():
    quarters = [(512, 0.25), (1 * KiB, 0.25), (2 * KiB, 0.25), (4 * KiB, 0.25)]
    assert parse_bssplit("512/25:1k/:2k/:4k/", size_of) == approx([quarters] * 3)
    assert parse_bssplit("4k/50:8k/:16k/", size_of)[0] == approx([[(4 * KiB, 0.5), (8 * KiB, 0.25), (16 * KiB, 0.25)]])[0]
    assert parse_bssplit("4k/70:128k/30", size_of)[0] == approx([[(4 * KiB, 0.7), (128 * KiB, 0.3)]])[0]


@pytest.mark.parametrize("split, shares", [
    ("4k/50:64k/30", [(4 * KiB, 0.7), (64 * KiB, 0.3)]),  # fio 3.33's write_iolog: 4k 0.695, 64k 0.305
    ("4k/30:64k/50", [(4 * KiB, 0.3), (64 * KiB, 0.7)]),  # 0.309, 0.691
    ("8k/20:4k/30:64k/30", [(8 * KiB, 0.2), (4 * KiB, 0.3), (64 * KiB, 0.5)]),  # 0.207, 0.299, 0.494
    ("4k:8k:16k", [(4 * KiB, 0.33), (8 * KiB, 0.33), (16 * KiB, 0.34)]),  # (100 - 0) // 3 each, 1 left over
    ("4k/50.5:8k", [(4 * KiB, 0.5), (8 * KiB, 0.5)]),  # atoi: 50
    ("4k/0:8k/0", [(4 * KiB, 0.5), (8 * KiB, 0.5)]),  # 0 is not given: (100 - 0) // 2 each
])
def test_what_a_split_leaves_of_100_goes_to_its_largest_share_as_fios_draw_gives_it(split, shares):
    """fio sorts the sizes by percentage and a draw past their sum takes the last: the rest of 100
    goes to the largest share. nvsim scaled the shares up in proportion (4k/50:64k/30 as 62.5/37.5)."""
    assert parse_bssplit(split, size_of)[0] == [(size, pytest.approx(share)) for size, share in shares]



def test_a_size_left_nothing_or_given_zero_is_not_part_of_the_mix():
    assert parse_bssplit("4k/100:8k/", size_of)[0] == [(4 * KiB, 1.0)]
    assert parse_bssplit("4k/60:8k/0:16k/40", size_of)[0] == approx([[(4 * KiB, 0.6), (16 * KiB, 0.4)]])[0]


def test_a_direction_without_a_split_takes_the_last_one_given():
    read, write, trim = parse_bssplit("64k/40:1m/60,1m/100", size_of)
    assert read == approx([[(64 * KiB, 0.4), (MiB, 0.6)]])[0]
    assert write == trim == [(MiB, 1.0)]
    read, write, trim = parse_bssplit("4k/100", size_of)
    assert read == write == trim == [(4 * KiB, 1.0)]
    assert parse_bssplit("4k/100,8k/100,16k/100", size_of) == [[(4 * KiB, 1.0)], [(8 * KiB, 1.0)], [(16 * KiB, 1.0)]]


def test_an_empty_direction_takes_the_jobs_bs_for_it_as_fio_does():
    """options.c: split_parse_ddir stops at an empty entry (nr 0), bssplit_ddir returns without a
    split, so fio draws that direction's bs; with one comma the trim takes the write's text."""
    job_bs = (8 * KiB, 16 * KiB, 32 * KiB)
    assert parse_bssplit("4k/70:64k/30,", size_of, job_bs) == approx(
        [[(4 * KiB, 0.7), (64 * KiB, 0.3)], [(16 * KiB, 1.0)], [(32 * KiB, 1.0)]])
    assert parse_bssplit(",4k/50:8k/50", size_of, job_bs) == approx(
        [[(8 * KiB, 1.0)], [(4 * KiB, 0.5), (8 * KiB, 0.5)], [(4 * KiB, 0.5), (8 * KiB, 0.5)]])
    assert parse_bssplit("4k/100,,8k/100", size_of, job_bs) == [[(4 * KiB, 1.0)], [(16 * KiB, 1.0)], [(8 * KiB, 1.0)]]
    with pytest.raises(ValueError, match=re.escape("the read split is empty in ',4k/100' (fio then uses the job's bs")):
        parse_bssplit(",4k/100", size_of)  # no job bs given (a scenario, whose bs is the mix's mean)


@pytest.mark.parametrize("text, phrase", [
    ("4k/25,4k/25,4k/25,4k/25", "at most three splits"),
    ("4k/60:8k/50", "add up to at most 100"),
    ("", "needs at least one SIZE/PERCENT entry"),
    ("4k/70:64k/30,", "the write split is empty"),
    ("4k/100,,8k/100", "the write split is empty"),
    ("1000/100", "multiple of 512"),
    ("0/100", "positive multiple of 512"),
    ("4k/x", "SIZE/PERCENT"),
    ("4k/50%", "SIZE/PERCENT"),
])
def test_bad_bssplits_are_value_errors_naming_the_problem(text, phrase):
    with pytest.raises(ValueError, match=re.escape(phrase)):
        parse_bssplit(text, size_of)


def test_a_bad_size_is_the_size_readers_error():
    with pytest.raises(ValueError, match="not a size"):
        parse_bssplit("4q/100", size_of)


# ---------------------------------------------------------------- bsrange

def test_a_range_of_whole_multiples_is_uniform_over_them():
    """4k-16k: fio draws 4 + 16 u KiB, rounded down to 4 KiB: 4, 8, 12 and 16 KiB a quarter each."""
    assert bsrange_sizes(4 * KiB, 16 * KiB) == approx([[(4 * KiB, 0.25), (8 * KiB, 0.25), (12 * KiB, 0.25), (16 * KiB, 0.25)]])[0]


def test_high_not_a_multiple_of_low_takes_the_capped_rest():
    """4k-10k: 4 + 10 u KiB rounded down to 4 KiB is 4 KiB for u < 0.4, 8 KiB for u < 0.8, and 12 KiB,
    capped at 10 KiB, for the last 0.2."""
    assert bsrange_sizes(4 * KiB, 10 * KiB) == approx([[(4 * KiB, 0.4), (8 * KiB, 0.4), (10 * KiB, 0.2)]])[0]


def test_one_size_is_the_whole_mix():
    assert bsrange_sizes(8 * KiB, 8 * KiB) == [(8 * KiB, 1.0)]


def test_a_range_past_the_listed_sizes_is_given_as_its_bins():
    """512-64m is 2^17 sizes: eight bins of 2^14 sizes each, an eighth of the I/Os, at each bin's mean
    (bin b: sizes 512 (2^14 b + 1) .. 512 (2^14 (b + 1)), mean 4 MiB (2 b + 1) in whole sectors)."""
    count = 2**17
    assert count > MAX_LISTED_SIZES
    parts = bsrange_sizes(512, 512 * count)
    assert parts == approx([[(4 * MiB * (2 * b + 1), 1 / 8) for b in range(8)]])[0]


def test_parse_bsrange_reads_both_forms_and_a_write_range():
    quarters = approx([[(4 * KiB, 0.25), (8 * KiB, 0.25), (12 * KiB, 0.25), (16 * KiB, 0.25)]])[0]
    assert parse_bsrange("4k-16k", size_of)[0] == parse_bsrange("4k:16k", size_of)[0] == quarters
    read, write, trim = parse_bsrange("4k-8k,16k-16k", size_of)
    assert read == approx([[(4 * KiB, 0.5), (8 * KiB, 0.5)]])[0]
    assert write == trim == [(16 * KiB, 1.0)]


@pytest.mark.parametrize("text, phrase", [
    ("4k", "expected LOW-HIGH"),
    ("4k-8k-16k", "expected LOW-HIGH"),
    ("8k-4k", "HIGH at least LOW"),
    ("1000-4k", "positive multiple of 512"),
    ("0-4k", "positive multiple of 512"),
    ("4k-10001", "HIGH must be a multiple of 512"),
    (f"512-{2**65}", "at most 2^64"),
])
def test_bad_bsranges_are_value_errors_naming_the_problem(text, phrase):
    with pytest.raises(ValueError, match=re.escape(phrase)):
        parse_bsrange(text, size_of)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4096), st.integers(0, 2**18), st.integers(0, 4095))
def test_a_ranges_shares_sum_to_one_over_sizes_between_low_and_high(low_sectors, multiples, extra_sectors):
    low = 512 * low_sectors
    high = low * max(1, multiples) + 512 * (extra_sectors % low_sectors)  # any multiple of 512 from LOW up
    parts = bsrange_sizes(low, high)
    assert sum(share for _, share in parts) == pytest.approx(1.0, abs=1e-9)
    assert all(size % 512 == 0 and low <= size <= high for size, _ in parts)
    assert [size for size, _ in parts] == sorted({size for size, _ in parts})  # increasing, no size twice
    assert all(share > 0 for _, share in parts)
    assert len(parts) <= MAX_LISTED_SIZES + 1


# ---------------------------------------------------------------- bins, the job's mix, its mean

def test_few_sizes_are_one_bin_each():
    assert range_bins(512, 5) == approx([[(512 * k, 0.2) for k in range(1, 6)]])[0]


def test_many_sizes_fall_in_eight_equal_bins_at_their_mean():
    """4k x 1..64: bin b holds the multiples 8b+1 .. 8b+8, mean 4 KiB x (8b + 4.5) = 2 KiB x (16b + 9)."""
    bins = range_bins(4 * KiB, 64)
    assert len(bins) == MAX_MIX_PARTS
    assert bins == approx([[(2 * KiB * (16 * b + 9), 1 / 8) for b in range(8)]])[0]


@pytest.mark.parametrize("count", [9, 17, 100, 1000])
def test_range_bins_are_the_bins_of_the_listed_sizes(count):
    """Its docstring's promise: the same bins nvsim.workload.mix.binned makes of the sizes listed one by one."""
    from nvsim.workload.mix import binned
    listed = binned([MixPart(4 * KiB * k, 1 / count) for k in range(1, count + 1)])
    assert range_bins(4 * KiB, count) == [(p.bs, pytest.approx(p.share)) for p in listed]


def test_one_split_for_every_direction_gives_parts_without_a_direction():
    split = parse_bssplit("4k/70:128k/30", size_of)
    for rw in ("randread", "randwrite", "randrw"):
        assert block_size_mix(split, rw, 50) == (MixPart(4 * KiB, pytest.approx(0.7)), MixPart(128 * KiB, pytest.approx(0.3)))


def test_per_direction_splits_are_weighted_by_the_jobs_read_share():
    split = parse_bssplit("64k/40:1m/60,1m/100", size_of)
    assert block_size_mix(split, "randrw", 40) == (
        MixPart(64 * KiB, pytest.approx(0.4 * 0.4), "read"), MixPart(MiB, pytest.approx(0.4 * 0.6), "read"),
        MixPart(MiB, pytest.approx(0.6), "write"))
    assert block_size_mix(split, "randread", 40) == (MixPart(64 * KiB, pytest.approx(0.4)), MixPart(MiB, pytest.approx(0.6)))
    assert block_size_mix(split, "write", 40) == (MixPart(MiB, 1.0),)
    assert block_size_mix(split, "rw", 100) == (MixPart(64 * KiB, pytest.approx(0.4)), MixPart(MiB, pytest.approx(0.6)))


def test_the_mean_size_is_share_weighted_in_whole_sectors():
    assert mean_size((MixPart(4 * KiB, 0.7), MixPart(128 * KiB, 0.3))) == 41984  # 42,188.8 B is 82.4 sectors: 82
    assert mean_size((MixPart(512, 0.25), MixPart(KiB, 0.25), MixPart(2 * KiB, 0.25), MixPart(4 * KiB, 0.25))) == 2048  # 1920
    assert mean_size((MixPart(512, 0.75), MixPart(KiB, 0.25))) == 512  # 640 B is 1.25 sectors
    assert mean_size((MixPart(4 * KiB, 2.0), MixPart(8 * KiB, 2.0))) == 6 * KiB  # shares taken over their total


def test_a_mix_is_more_than_one_part_or_a_part_with_its_own_direction():
    assert not is_a_mix((MixPart(4 * KiB, 1.0),))
    assert is_a_mix((MixPart(4 * KiB, 1.0, "write"),))
    assert is_a_mix((MixPart(4 * KiB, 0.5), MixPart(8 * KiB, 0.5)))


def test_a_rate_cap_takes_counts_with_units_and_is_at_least_one_io_in_a_thousand_seconds():
    """rate_iops refused '10K' (counts elsewhere take 2,700K, 28M, 310K IOPS) and took 1e-300,
    printed as such in the tables."""
    from nvsim.specs import WorkloadSpec

    assert WorkloadSpec(name="a", rw="randread", rate_iops="10K").rate_iops == 10_000
    assert WorkloadSpec(name="a", rw="randread", rate_iops="310K IOPS").rate_iops == 310_000
    assert WorkloadSpec(name="a", rw="randrw", rate_iops_by_direction=("1K", None)).rate_iops_by_direction == (1000, None)
    with pytest.raises(ValueError, match="greater than or equal to 0.001"):
        WorkloadSpec(name="a", rw="randread", rate_iops=1e-300)
