"""The event mode's 95% confidence interval on the rate (nvsim.sim.event.measure) against the
batch-means formula worked by hand: the window cut into b equal batches, each batch's rate r_i,
half-width t(b-1) x s / sqrt(b) with s the batches' sample standard deviation (the standard error
of their mean). Issue 34: a half-width sqrt(b) too wide (s alone, the spread of one batch) survived.
Both paths are checked: the exact one (every completion time) and the histogram one (a run past its
sample cap, its completions counted on a time grid)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from nvsim.sim.event import hdr
from nvsim.sim.event.measure import ci95_half_width, histogram_stats

COUNTS = [10, 12, 8, 10, 10]
"""Completions per batch of 1 s: mean 10/s, squares of deviations 0 + 4 + 4 + 0 + 0 = 8 over 4
degrees of freedom, s = sqrt(2); Student's t at 95% with 4 degrees of freedom is 2.776."""
BY_HAND = 2.776 * math.sqrt(2) / math.sqrt(5)  # 1.7557/s


def _times(counts, start_s: float = 0.0) -> np.ndarray:
    return np.concatenate([start_s + i + (np.arange(n) + 0.5) / n for i, n in enumerate(counts)])


def test_exact_batch_means_half_width_by_hand():
    assert ci95_half_width(_times(COUNTS), 0.0, 5.0, 5) == pytest.approx(BY_HAND, rel=1e-12)
    # the same completions later in time and a warm-up before them: the same interval
    assert ci95_half_width(_times(COUNTS, 2.0), 2.0, 7.0, 5) == pytest.approx(BY_HAND, rel=1e-12)
    # equal batches: no spread, no width; one batch: no interval to speak of
    assert ci95_half_width(_times([7] * 5), 0.0, 5.0, 5) == 0.0 and ci95_half_width(_times(COUNTS), 0.0, 5.0, 1) == 0.0


def test_histogram_path_gives_the_same_half_width_from_its_time_grid():
    # the grid: 10 bins of 0.5 s from the warm-up's end at 1 s; each batch's completions split over its two bins
    grid = np.repeat(np.array(COUNTS, dtype=float) / 2, 2)
    run = SimpleNamespace(hist=np.zeros((2, hdr.BUCKETS), dtype=np.int64), grid=grid, grid_s=0.5, warm_s=1.0,
                          writes=[], latency=[])
    assert histogram_stats(run, 6.0, 5).half_width == pytest.approx(BY_HAND, rel=1e-12)


def test_ten_batches_use_students_t_of_nine_degrees_of_freedom():
    counts = [10, 12, 8, 10, 10, 11, 9, 10, 10, 10]  # deviations: 0,4,4,0,0,1,1,0,0,0: s = sqrt(10/9)
    expected = 2.262 * math.sqrt(10 / 9) / math.sqrt(10)
    assert ci95_half_width(_times(counts), 0.0, 10.0, 10) == pytest.approx(expected, rel=1e-12)
