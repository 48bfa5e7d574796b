"""Per-I/O NAND service draws (nvsim.ssd.latency): the mean is the fluid mode's, the tail comes
from program and erase interference and read retry, and the same seed gives the same bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.ssd.latency import (READ_RETRY_EXTRA_READS, READ_RETRY_PROBABILITY, WORDLINES_PER_BLOCK, draw_die_s,
                               erase_share, mean_die_s, programming_share)

N = 400_000


def _draw(write_share: float, suspend_s: float = 20e-6, seed: int = 7, reads_only: bool = True, erasing: float = 0.0,
          erase_step_s: float = 0.0):
    die = np.full(N, 17e-6)
    is_write = np.zeros(N, bool) if reads_only else (np.arange(N) % 3 == 0)
    rng = np.random.default_rng(seed)
    return die, is_write, draw_die_s(rng, die, is_write, suspend_s, write_share, erasing, erase_step_s)


@settings(max_examples=15, deadline=None)
@given(write_share=st.floats(min_value=0.0, max_value=0.9), suspend_us=st.floats(min_value=0.0, max_value=200.0),
       erasing=st.floats(min_value=0.0, max_value=0.05), erase_step_us=st.floats(min_value=0.0, max_value=2000.0))
def test_draws_keep_the_fluid_modes_mean(write_share, suspend_us, erasing, erase_step_us):
    """Law: the expected drawn time of each class is the mean the fluid mode charges (within the
    sampling error of 400K draws), whatever share of the writing time is erasing."""
    die, is_write, drawn = _draw(write_share, suspend_us * 1e-6, reads_only=False, erasing=erasing,
                                 erase_step_s=erase_step_us * 1e-6)
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


def test_an_erase_share_with_no_erase_step_keeps_the_mean():
    """Regression (found by the law above): an erasing share with a zero-length erase step drew
    every wait as a program's, but with the program mean raised by 1 / (1 - erasing)."""
    die, is_write, drawn = _draw(0.71875, 43e-6, reads_only=False, erasing=0.03125, erase_step_s=0.0)
    mean = mean_die_s(die, is_write, 43e-6, 0.71875)
    assert drawn[~is_write].mean() == pytest.approx(mean[~is_write].mean(), rel=0.01)


def test_reads_on_erasing_dies_wait_out_an_erase_step():
    """A read behind a write finds an erase with the erasing share and waits up to one erase step
    (uniform); behind a program it waits an exponential time of a few suspend costs at most."""
    write_share, erasing, step = 0.5, 0.01, 1000e-6
    die, _, drawn = _draw(write_share, 20e-6, erasing=erasing, erase_step_s=step)
    long_wait = drawn - die * 1.2 > 300e-6  # past anything spread, retry or a program suspend gives
    assert np.mean(long_wait) == pytest.approx(write_share * erasing * 0.7, rel=0.2)
    die, _, no_erase = _draw(write_share, 20e-6)
    assert np.mean(no_erase - die * 1.2 > 300e-6) < 1e-4


def test_erase_share_is_one_erase_per_block_programmed():
    assert erase_share(3500.0, 1013.0) == pytest.approx(3500 / (3500 + WORDLINES_PER_BLOCK * 1013))
    assert erase_share(3500.0, 1900.0) < erase_share(3500.0, 1013.0) < erase_share(5000.0, 1013.0)


@pytest.mark.parametrize("drive", ["micron-9550-max-6.4tb", "kioxia-cm7-r-7.68tb", "solidigm-d5-p5336-61.44tb"])
@pytest.mark.parametrize("read_fraction", [0.3, 0.5, 0.7])
def test_the_programming_share_is_the_drive_models_rho_w_at_its_rate(drive, read_fraction):
    """The array's modes price a read's suspend with ``programming_share`` of a batch's die time; at
    the drive model's saturated rate that is its ``rho_w``, the writes' share of the pool."""
    from nvsim.catalog import default_catalog
    from nvsim.specs import WorkloadSpec
    from nvsim.ssd import SsdModel
    model = SsdModel.from_drive(default_catalog().drives[drive])
    f = read_fraction
    workload = WorkloadSpec(name="m", rw="randrw", rwmixread=round(100 * f), bs="4k", iodepth=32, numjobs=16)
    u_r, u_w = model.read_pool_s(4096, True), model.write_pool_s(4096, True)
    rho_w = (1 - f) * model.nand_iops(workload) * u_w
    assert programming_share(f * u_r, (1 - f) * u_w, f, model.suspend_pool_s) == pytest.approx(rho_w, rel=1e-9)
    assert programming_share(f * u_r, (1 - f) * u_w, f, 0.0) == pytest.approx((1 - f) * u_w / (f * u_r + (1 - f) * u_w))
    assert programming_share(u_r, 0.0, 1, model.suspend_pool_s) == 0.0
