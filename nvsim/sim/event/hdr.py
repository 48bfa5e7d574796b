"""Log-linear latency histograms (HDR-style) for the event kernel: fixed memory whatever the run's
length, any percentile to a stated relative resolution.

A latency in seconds is counted in nanoseconds: below ``2**BUCKET_BITS`` ns one bucket per ns;
above, each power of two ``[2**e, 2**(e+1))`` ns is cut into ``2**BUCKET_BITS`` equal buckets, so
a bucket is at most ``RESOLUTION`` (``2**-BUCKET_BITS``) of its lower bound wide. A percentile is
read as the midpoint of the bucket that holds its nearest-rank sample (the sample of rank
``ceil(q * n)``, fio's and HdrHistogram's definition): it is within half a bucket of that sample,
at most ``RESOLUTION / 2`` of it (0.5 ns below ``2**BUCKET_BITS`` ns). Latencies past ``2**TOP_EXPONENT`` ns
(13 days) count in the last bucket.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

BUCKET_BITS = 8
"""Sub-buckets per power of two: 2**8 = 256."""
RESOLUTION = 2.0 ** -BUCKET_BITS
"""A bucket's width over its lower bound, at most (0.39%); a percentile is within half of it."""
TOP_EXPONENT = 50
"""Powers of two of nanoseconds the histogram spans (2**50 ns: 13 days)."""
SUB = 1 << BUCKET_BITS
BUCKETS = SUB + (TOP_EXPONENT - BUCKET_BITS) * SUB
NS_PER_S = 1e9


@njit(cache=True, _nrt=False)
def bucket_of(value_s):
    """The bucket of a latency of ``value_s`` seconds (negative counts as 0)."""
    x = value_s * NS_PER_S
    if x < SUB:
        return int(x) if x > 0.0 else 0
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, mantissa in [0.5, 1)
    e = exponent - 1
    if e >= TOP_EXPONENT:
        return BUCKETS - 1
    sub = int((2.0 * mantissa - 1.0) * SUB)
    return SUB + (e - BUCKET_BITS) * SUB + sub


@njit(cache=True, _nrt=False)
def record(hist, row, value_s):
    """Count one latency in row ``row`` of ``hist`` (a direction's histogram)."""
    hist[row, bucket_of(value_s)] += 1


def bucket_bounds_s(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds (seconds) of buckets ``index``."""
    index = np.asarray(index, np.int64)
    linear = index < SUB
    e = np.where(linear, 0, (index - SUB) // SUB + BUCKET_BITS)
    sub = np.where(linear, 0, index % SUB)
    width = np.where(linear, 1.0, np.ldexp(1.0, e - BUCKET_BITS))
    low = np.where(linear, index.astype(float), np.ldexp(1.0, e) + sub * width)
    return low / NS_PER_S, (low + width) / NS_PER_S


def percentiles_s(hist: np.ndarray, percentiles) -> np.ndarray:
    """Each percentile (0-100) of the counts ``hist`` (one direction): the midpoint, in seconds,
    of the bucket holding its nearest-rank sample; nan without counts."""
    cumulative = np.cumsum(hist)
    n = int(cumulative[-1]) if cumulative.size else 0
    q = np.asarray(percentiles, float)
    if n == 0:
        return np.full(q.shape, np.nan)
    ranks = np.maximum(1, np.ceil(q / 100.0 * n)).astype(np.int64)  # as numpy's inverted_cdf rounds it
    return _midpoints(np.searchsorted(cumulative, ranks, side="left"))


def rank_values_s(hist: np.ndarray, ranks) -> np.ndarray:
    """The bucket midpoints (seconds) of the samples of 0-based ``ranks`` in sorted order."""
    cumulative = np.cumsum(hist)
    return _midpoints(np.searchsorted(cumulative, np.asarray(ranks, np.int64) + 1, side="left"))


def _midpoints(index: np.ndarray) -> np.ndarray:
    low, high = bucket_bounds_s(index)
    return 0.5 * (low + high)


def mean_s(hist: np.ndarray) -> float:
    """The mean of the counts by bucket midpoint (within half a bucket of the samples' mean)."""
    n = hist.sum()
    return float((hist * _midpoints(np.arange(hist.size))).sum() / n) if n else math.nan


@njit(cache=True, _nrt=False)
def _record_all(hist, values_s):
    for i in range(values_s.size):
        record(hist, 0, values_s[i])


def histogram_of(values_s: np.ndarray) -> np.ndarray:
    """The histogram of a sample array (as the kernel counts it)."""
    hist = np.zeros((1, BUCKETS), np.int64)
    _record_all(hist, np.ascontiguousarray(values_s, np.float64))
    return hist[0]


def quantile_ci95(hist: np.ndarray, percentile: float) -> tuple[float, float | None]:
    """``measure.quantile_ci95`` from a histogram: the bucket midpoints of the order statistics
    that bound the percentile's 95% interval (the high end None when the counts run out first)."""
    n = int(hist.sum())
    if n == 0:
        return float("nan"), None
    q = percentile / 100.0
    spread = 1.96 * math.sqrt(n * q * (1.0 - q))
    lo, hi = int(math.floor(n * q - spread)), int(math.ceil(n * q + spread))
    low, high = rank_values_s(hist, [max(lo, 0), min(hi, n - 1)])
    return float(low), (float(high) if hi < n else None)


def tail_relative_half_width(hist: np.ndarray, percentile: float) -> float:
    """``measure.tail_relative_half_width`` from a histogram (inf: too few counts)."""
    lo, hi = quantile_ci95(hist, percentile)
    if hi is None:
        return math.inf
    middle = float(percentiles_s(hist, [percentile])[0])
    return 0.5 * (hi - lo) / middle if middle > 0 else 0.0
