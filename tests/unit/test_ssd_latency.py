"""Per-I/O NAND service draws (nvsim.ssd.latency): the mean is the fluid mode's, the tail comes
from program interference and read retry, and the same seed gives the same bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.ssd.latency import READ_RETRY_EXTRA_READS, READ_RETRY_PROBABILITY, draw_die_s, mean_die_s

N = 400_000


def _draw(write_share: float, suspend_s: float = 20e-6, seed: int = 7, reads_only: bool = True):
    die = np.full(N, 17e-6)
    is_write = np.zeros(N, bool) if reads_only else (np.arange(N) % 3 == 0)
    return die, is_write, draw_die_s(np.random.default_rng(seed), die, is_write, suspend_s, write_share)


@settings(max_examples=15, deadline=None)
@given(write_share=st.floats(min_value=0.0, max_value=0.9), suspend_us=st.floats(min_value=0.0, max_value=200.0))
def test_draws_keep_the_fluid_modes_mean(write_share, suspend_us):
    """Law: the expected drawn time of each class is the mean the fluid mode charges (within the
    sampling error of 400K draws)."""
    die, is_write, drawn = _draw(write_share, suspend_us * 1e-6, reads_only=False)
    mean = mean_die_s(die, is_write, suspend_us * 1e-6, write_share)
    for cls in (is_write, ~is_write):
        assert drawn[cls].mean() == pytest.approx(mean[cls].mean(), rel=0.02)


def test_reads_behind_programs_and_retries_make_the_tail():
    _, _, quiet = _draw(0.0)
    _, _, busy = _draw(0.5)
    p = lambda x, q: float(np.percentile(x, q))  # noqa: E731
    # pure reads: page-type spread, and read retry above the 99.9th percentile
    assert p(quiet, 99.99) > (1 + READ_RETRY_EXTRA_READS) * 0.9 * p(quiet, 50)
    assert np.mean(quiet > 2.5 * np.median(quiet)) == pytest.approx(READ_RETRY_PROBABILITY, rel=0.5)
    # reads on programming dies wait for suspend: the 99.99th percentile moves out several-fold
    assert p(busy, 99.99) > 3 * p(busy, 50)
    assert p(busy, 99.99) > 2 * p(quiet, 99.99)


def test_same_seed_same_bits():
    assert np.array_equal(_draw(0.3, seed=3)[2], _draw(0.3, seed=3)[2])
    assert not np.array_equal(_draw(0.3, seed=3)[2], _draw(0.3, seed=4)[2])
