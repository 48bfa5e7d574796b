"""Byte-identical P and Q against Intel ISA-L (xor_gen, pq_gen) called in this process."""

import numpy as np
import pytest

from nvsim import isal, parity

pytestmark = pytest.mark.skipif(not isal.available(), reason=f"libisal absent: {isal.library_name()}")


@pytest.mark.parametrize("k", [2, 3, 4, 8, 22, 60])
@pytest.mark.parametrize("nbytes", [64, 4096, 65536 + 192])
def test_pq_and_xor_identical_to_isal(k, nbytes):
    rng = np.random.default_rng(k * 7919 + nbytes)
    d = isal.aligned_empty((k, nbytes))
    d[:] = rng.integers(0, 256, size=(k, nbytes), dtype=np.uint8)
    ours = parity.gen_pq(d)
    theirs = isal.pq_gen(d)
    assert np.array_equal(ours, theirs)
    assert np.array_equal(parity.gen_p(d), isal.xor_gen(d))
    assert theirs[1].any()  # a real comparison, not two zero buffers


def test_isal_q_weights_rows_by_powers_of_two():
    # one non-zero row i -> Q = g^i * row: pins the row-order convention, not just agreement
    d = isal.aligned_empty((5, 64))
    d[:] = 0
    d[3] = 1
    q = isal.pq_gen(d)[1]
    assert np.all(q == parity.gf_pow2(3))


def test_isal_rejects_bad_lengths():
    d = isal.aligned_empty((4, 100))
    with pytest.raises(ValueError, match="multiple"):
        isal.pq_gen(d)
