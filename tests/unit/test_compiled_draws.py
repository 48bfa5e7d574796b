"""The per-batch draws made in compiled code give NumPy's numbers bit for bit, and leave the
generator where NumPy's vectorised calls leave it: ``draw_die_s`` (the NAND unit times) against
the NumPy formulation it replaced, and ``HostStream``'s random offsets against ``rng.integers``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.ssd.latency import NAND_SERVICE_CV, READ_RETRY_EXTRA_READS, READ_RETRY_PROBABILITY, draw_die_s


def numpy_draw_die_s(rng, die_s, is_write, suspend_unit_s, write_share, erasing=0.0, erase_step_unit_s=0.0):
    """``draw_die_s`` as NumPy's vectorised calls (the code the compiled one replaced)."""
    n = len(die_s)
    shape = 1.0 / NAND_SERVICE_CV**2
    spread = rng.gamma(shape, 1.0 / shape, size=n)
    retried = rng.random(n) < READ_RETRY_PROBABILITY
    reads = ~is_write.astype(bool)
    first = 1.0 / (1.0 + READ_RETRY_PROBABILITY * READ_RETRY_EXTRA_READS)
    out = np.where(reads, die_s * spread * first * (1.0 + retried * READ_RETRY_EXTRA_READS), die_s * spread)
    if write_share > 0 and suspend_unit_s > 0:
        behind_write = rng.random(n) < write_share
        erase_mean = min(erasing * erase_step_unit_s / 2, suspend_unit_s)
        if erase_mean <= 0:
            erasing = 0.0
        program_mean = (suspend_unit_s - erase_mean) / (1.0 - erasing) if erasing < 1 else 0.0
        wait = rng.exponential(program_mean, size=n)
        if erase_mean > 0:
            behind_erase = rng.random(n) < erasing
            wait = np.where(behind_erase, rng.random(n) * (2 * erase_mean / erasing), wait)
        out = out + np.where(reads & behind_write, wait, 0.0)
    return out


SHARES = st.one_of(st.just(0.0), st.floats(0.0, 1.0), st.just(1.0))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**64), n=st.integers(0, 300), writes=st.floats(0.0, 1.0), write_share=SHARES,
       suspend_us=st.one_of(st.just(0.0), st.floats(0.0, 300.0)), erasing=SHARES,
       erase_step_us=st.one_of(st.just(0.0), st.floats(0.0, 5000.0)))
def test_draw_die_s_is_numpys_bit_for_bit(seed, n, writes, write_share, suspend_us, erasing, erase_step_us):
    pattern = np.random.default_rng(seed ^ 1)
    die = pattern.uniform(1e-6, 1e-3, n)
    is_write = pattern.random(n) < writes
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    got = draw_die_s(ours, die, is_write, suspend_us * 1e-6, write_share, erasing, erase_step_us * 1e-6)
    want = numpy_draw_die_s(theirs, die, is_write, suspend_us * 1e-6, write_share, erasing, erase_step_us * 1e-6)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert ours.bit_generator.state == theirs.bit_generator.state
