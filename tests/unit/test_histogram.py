"""fio's log-linear latency histogram (nvsim.histogram, from fio's stat.h and stat.c): a bucket's value
against the values it holds, the bucket boundaries worked by hand, and fio's percentile rule (the
first bucket where the running count reaches p% of the samples)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.histogram import FIO_PERCENTILES, PLAT_NR, histogram, percentile_table, plat_idx_to_val, plat_val_to_idx


def test_percentiles_are_fios_histogram_buckets():
    """fio's calc_clat_percentiles: exact below 128 ns, then the middle of a bucket 1/64 of a power of two wide."""
    small = percentile_table(np.arange(1, 101))  # 1..100 ns: every value its own bucket
    assert small["50.000000"] == 50 and small["99.000000"] == 99 and small["1.000000"] == 1
    table = percentile_table(np.arange(1, 1001))
    assert table["50.000000"] == 502  # 500 lies in [500, 504): fio prints 502
    assert table["99.990000"] == 1004 and table["1.000000"] == 10  # 1000 lies in [1000, 1008)
    assert percentile_table(np.array([7]))["99.990000"] == 7
    assert len(FIO_PERCENTILES) == 17


@given(st.lists(st.integers(0, 10**10), min_size=1, max_size=300), st.sampled_from(FIO_PERCENTILES))
@settings(max_examples=200, deadline=None)
def test_a_percentile_is_within_a_bucket_of_the_nearest_rank_sample(samples, p):
    """Law of fio's histogram: the value printed is within 1/128 of the nearest-rank sample (exact below 128 ns)."""
    values = np.array(samples)
    exact = np.sort(values)[max(1, -(-len(values) * int(p * 100) // 10000)) - 1]
    got = percentile_table(values, (p,))[f"{p:f}"]
    assert abs(got - exact) <= max(exact / 128, 0.5)


@given(st.integers(0, 2**45))
@settings(max_examples=300, deadline=None)
def test_a_bucket_holds_its_value_within_fios_error(value):
    """fio's histogram law: a bucket's value is within 1/128 of every value it holds (exact below 128)."""
    index = int(plat_val_to_idx(np.array([value]))[0])
    assert 0 <= index < PLAT_NR
    if value < 2**34:  # from 2^34 ns (17 s) on, fio's last bucket takes everything
        assert abs(plat_idx_to_val(index) - value) <= max(value / 128, 0)


def test_bucket_boundaries_worked_by_hand():
    """Exact below 128 ns; from 2^n (n >= 7) on, 64 buckets per power of two, each 2^(n-6) ns wide,
    standing for its middle: [128, 130) is bucket 128 (129 ns), [256, 260) bucket 192 (258 ns),
    [1000, 1008) bucket 317 (1004 ns)."""
    values = [0, 1, 127, 128, 129, 130, 255, 256, 259, 260, 1000, 1007, 1008]
    assert plat_val_to_idx(np.array(values)).tolist() == [0, 1, 127, 128, 128, 129, 191, 192, 192, 193, 317, 317, 318]
    assert [plat_idx_to_val(i) for i in (0, 5, 127, 128, 129, 191, 192, 317)] == [0, 5, 127, 129, 131, 255, 258, 1004]
    assert plat_val_to_idx(np.array([2**40, 2**60])).tolist() == [PLAT_NR - 1] * 2  # fio's last bucket takes the rest


def test_every_buckets_value_falls_in_that_bucket():
    middles = [plat_idx_to_val(i) for i in range(PLAT_NR)]
    assert middles == sorted(set(middles))  # one value per bucket, rising
    assert plat_val_to_idx(np.array(middles)).tolist() == list(range(PLAT_NR))


@pytest.mark.parametrize("n", range(7, 34))
def test_a_power_of_two_opens_a_bucket(n):
    """2^n and 2^n - 1 lie in neighbouring buckets, 2^n's standing for 2^n plus half its width, up to
    fio's last group (2^33 to 2^34 ns)."""
    below, at = plat_val_to_idx(np.array([2**n - 1, 2**n])).tolist()
    assert at == below + 1 and plat_idx_to_val(at) == 2**n + 2 ** (n - 6) // 2


@given(st.integers(0, 2**34 - 1))
@settings(max_examples=300, deadline=None)
def test_a_value_and_its_buckets_value_differ_by_at_most_half_the_buckets_width(value):
    """The round trip value -> bucket -> value moves a value by at most half its bucket's width, 2^(msb-6) ns
    (msb counted here with int.bit_length, not the float log2 of the code): exact below 128 ns."""
    width = 2 ** max(value.bit_length() - 1 - 6, 0)
    back = plat_idx_to_val(int(plat_val_to_idx(np.array([value]))[0]))
    assert abs(back - value) <= width / 2 if value >= 128 else back == value


def test_the_histogram_counts_each_sample_in_its_bucket():
    assert histogram(np.array([5, 5, 129, 128, 1000, 1007])) == {5: 2, 128: 2, 317: 2}


def test_a_percentile_is_the_first_bucket_whose_running_count_reaches_it():
    """fio's calc_clat_percentiles on four samples: p% of 4 is reached at the first bucket whose running
    count is at least 4 p / 100 (25%: 1 sample, 50%: 2, 50.1%: 2.004, so the third)."""
    table = percentile_table(np.array([40, 10, 30, 20]), (25.0, 50.0, 50.1, 75.0, 100.0))
    assert table == {"25.000000": 10, "50.000000": 20, "50.100000": 30, "75.000000": 30, "100.000000": 40}
    repeated = percentile_table(np.array([5, 5, 5, 100]), (75.0, 75.01))
    assert repeated == {"75.000000": 5, "75.010000": 100}
    wide = percentile_table(np.array([1000, 1001, 1007, 2000]), (75.0, 76.0))
    assert wide == {"75.000000": 1004, "76.000000": 2008}  # buckets [1000, 1008) and [2000, 2016), at their middles
    assert percentile_table(np.array([], dtype=np.int64)) == {}
