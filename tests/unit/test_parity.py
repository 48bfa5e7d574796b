"""nvsim.parity: P/Q over real bytes, GF(2^8) laws, and recovery of every allowed erasure."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim import parity


def _rand(rng, k, n):
    return rng.integers(0, 256, size=(k, n), dtype=np.uint8)


def slow_q(data):
    """Q by the definition: sum over i of g^i * D_i, one byte at a time with the product table."""
    q = np.zeros(data.shape[1], dtype=np.uint8)
    for i in range(data.shape[0]):
        q ^= parity.GF_MUL[parity.gf_pow2(i)][data[i]]
    return q


def test_field_tables_match_the_polynomial():
    # g = 2 generates all 255 non-zero elements; 2^8 reduces by 0x11d to 0x1d
    assert parity.gf_pow2(8) == 0x1D
    assert len({parity.gf_pow2(i) for i in range(255)}) == 255
    a = np.arange(1, 256)
    assert np.all(parity.GF_MUL[a, parity.GF_INV[a]] == 1)
    # carry-less multiply then reduce, for a few pairs
    for x, y in [(0x53, 0xCA), (0x80, 0x02), (0xFF, 0xFF), (7, 0)]:
        r = 0
        for bit in range(8):
            if y >> bit & 1:
                r ^= x << bit
        for bit in range(15, 7, -1):
            if r >> bit & 1:
                r ^= 0x11D << (bit - 8)
        assert parity.gf_mul(x, y) == r


@given(k=st.integers(1, 30), n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_gen_pq_matches_definition(k, n, seed):
    d = _rand(np.random.default_rng(seed), k, n)
    p, q = parity.gen_pq(d)
    assert np.array_equal(p, np.bitwise_xor.reduce(d, axis=0))
    assert np.array_equal(q, slow_q(d))
    assert np.array_equal(parity.gen_p(d), p)
    assert np.array_equal(parity.gen_pq_reference(d), np.stack([p, q]))


def test_block_boundaries_and_parallel_kernel_agree():
    rng = np.random.default_rng(7)
    d = _rand(rng, 9, 3 * parity._BLOCK_WORDS * 8 + 24)  # several column blocks plus a ragged tail
    ser = parity.gen_pq(d, parallel=False)
    par = parity.gen_pq(d, parallel=True)
    assert np.array_equal(ser, par)
    assert np.array_equal(ser[1], slow_q(d))
    assert np.array_equal(parity.gen_p(d, parallel=True), ser[0])


@pytest.mark.parametrize("k", [1, 2, 7, 8, 9, 15, 16, 17, 22, 24, 25])
def test_member_passes_and_blocks_agree_with_reference(k):
    """Member counts around the kernels' eight-member passes, over several column blocks with a
    ragged tail, serial and parallel, P alone and P+Q."""
    rng = np.random.default_rng(100 + k)
    d = _rand(rng, k, 2 * parity._BLOCK_WORDS * 8 + 40)
    ref = parity.gen_pq_reference(d)
    for par in (False, True):
        assert np.array_equal(parity.gen_pq(d, parallel=par), ref)
        assert np.array_equal(parity.gen_p(d, parallel=par), ref[0])
    assert np.array_equal(ref[1], slow_q(d))


def test_out_parameter_and_noncontiguous_input():
    rng = np.random.default_rng(3)
    d = _rand(rng, 6, 4096)
    out = np.empty((2, 4096), dtype=np.uint8)
    assert parity.gen_pq(d, out=out) is out
    assert np.array_equal(out, parity.gen_pq_reference(d))
    view = d[:, 1:4001]  # not contiguous, not a multiple of 8
    assert np.array_equal(parity.gen_pq(view), parity.gen_pq_reference(np.ascontiguousarray(view)))
    with pytest.raises(ValueError, match="out"):
        parity.gen_pq(d, out=np.empty((2, 10), dtype=np.uint8))
    with pytest.raises(ValueError, match="data"):
        parity.gen_p(np.zeros((3, 8), dtype=np.int32))


@given(k=st.integers(1, 12), n=st.integers(1, 200), seed=st.integers(0, 2**32 - 1), data=st.data())
@settings(max_examples=60, deadline=None)
def test_raid5_recovers_any_single_loss(k, n, seed, data):
    d = _rand(np.random.default_rng(seed), k, n)
    stripe = np.vstack([d, parity.gen_p(d)[None]])
    lost = data.draw(st.integers(0, k))
    damaged = stripe.copy()
    damaged[lost] = 0xA5
    assert np.array_equal(parity.recover(damaged, [lost], 5), stripe)


@given(k=st.integers(2, 12), n=st.integers(1, 200), seed=st.integers(0, 2**32 - 1), data=st.data())
@settings(max_examples=80, deadline=None)
def test_raid6_recovers_any_two_losses(k, n, seed, data):
    d = _rand(np.random.default_rng(seed), k, n)
    stripe = np.vstack([d, parity.gen_pq(d)])
    lost = data.draw(st.lists(st.integers(0, k + 1), min_size=1, max_size=2, unique=True))
    damaged = stripe.copy()
    damaged[lost] = 0x5A
    assert np.array_equal(parity.recover(damaged, lost, 6), stripe)


def test_raid6_every_pair_exhaustively_small():
    rng = np.random.default_rng(11)
    k = 6
    d = _rand(rng, k, 64)
    stripe = np.vstack([d, parity.gen_pq(d)])
    for pair in itertools.combinations(range(k + 2), 2):  # two data, data+P, data+Q, P+Q
        damaged = stripe.copy()
        damaged[list(pair)] = 0
        assert np.array_equal(parity.recover(damaged, pair, 6), stripe), pair


def test_recover_rejects_too_many_losses():
    d = np.zeros((5, 16), dtype=np.uint8)
    with pytest.raises(ValueError, match="lost"):
        parity.recover(d, [0, 1], 5)
    with pytest.raises(ValueError, match="lost"):
        parity.recover(d, [0, 1, 2], 6)
    with pytest.raises(ValueError, match="level"):
        parity.recover(d, [0], 4)


def test_q_refuses_more_data_rows_than_gf256_tells_apart():
    """Row i's Q coefficient is g^i and g^255 = g^0: 255 data rows are the most a RAID6 stripe can
    have; at 255 two lost rows (the first and the last) still come back, at 256 both calls refuse
    (before the limit they returned Q and 'recovered' rows that were wrong)."""
    rng = np.random.default_rng(7)
    data = rng.integers(0, 256, size=(parity.MAX_Q_DATA_MEMBERS, 16), dtype=np.uint8)
    stripe = np.vstack([data, parity.gen_pq(data)])
    damaged = stripe.copy()
    damaged[[0, 254]] = 0
    assert np.array_equal(parity.recover(damaged, [0, 254], level=6), stripe)
    wide = rng.integers(0, 256, size=(parity.MAX_Q_DATA_MEMBERS + 1, 16), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"^data: Q over GF\(2\^8\) distinguishes at most 255 data rows, got 256$"):
        parity.gen_pq(wide)
    with pytest.raises(ValueError, match=r"^blocks: Q over GF\(2\^8\) distinguishes at most 255 data rows, got 256$"):
        parity.recover(np.vstack([wide, np.zeros((2, 16), dtype=np.uint8)]), [0, 255], level=6)
    assert parity.gen_p(wide).shape == (16,)  # XOR parity has no such limit
    assert parity.recover(np.vstack([wide, parity.gen_p(wide)]), [3], level=5).shape == (257, 16)


class _FakeCuda:
    """numba.cuda's calls ``gpu._ready`` makes, with a device and a kernel that may fail."""

    def __init__(self, device: bool = True):
        self.device = device

    def is_available(self):
        return self.device

    def device_array(self, shape, dtype):
        return np.zeros(shape, dtype=dtype)

    def to_device(self, array):
        return np.asarray(array)

    def synchronize(self):
        pass


class _Launch:
    def __init__(self, error: Exception | None):
        self.error = error

    def __getitem__(self, _config):
        def launch(d, p, q):
            if self.error is not None:
                raise self.error
            p[:], q[:] = d[0] ^ d[1], d[0]
        return launch


@pytest.mark.parametrize("fake, kernel, why", [
    (_FakeCuda(device=False), _Launch(None), "finds no CUDA device"),
    (_FakeCuda(), _Launch(AttributeError("module 'numpy' has no attribute 'row_stack'")), "row_stack"),
])
def test_a_gpu_kernel_that_cannot_compile_or_run_is_not_available(monkeypatch, fake, kernel, why):
    """``available`` compiles and runs the kernel once: a numba-cuda that does not compile with this
    NumPy (as 0.30.4 with NumPy 2.5) or no device says False, and ``gen_pq_gpu`` one line why."""
    from nvsim.stripe import gpu

    monkeypatch.setattr(gpu, "_kernel", lambda: (fake, kernel))
    gpu._ready.cache_clear()
    try:
        assert not gpu.available()
        with pytest.raises(RuntimeError, match=why) as raised:
            gpu.gen_pq_gpu(np.zeros((3, 8), dtype=np.uint8))
        assert "\n" not in str(raised.value)
        monkeypatch.setattr(gpu, "_kernel", lambda: (_FakeCuda(), _Launch(None)))
        assert gpu.available()  # a failure is not remembered: one that works is found
    finally:
        gpu._ready.cache_clear()


def test_gpu_kernel_matches_cpu_under_cuda_simulator():
    """The numba.cuda P+Q kernel, run by numba's CUDA simulator (no GPU needed), in a subprocess
    because the simulator must be chosen before numba.cuda is first imported."""
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from nvsim import parity\n"
        "from nvsim.stripe import gpu\n"
        "d = np.random.default_rng(1).integers(0, 256, size=(5, 1003), dtype=np.uint8)\n"
        "assert gpu.available()\n"
        "for x in (np.ascontiguousarray(d[:, :1000]), d, d[:, 3:], d[::2, :1000]):  # a view; padded; offset; strided\n"
        "    assert np.array_equal(gpu.gen_pq_gpu(x), parity.gen_pq(x)), x.shape\n"
        "print('ok')\n"
    )
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    if res.returncode != 0 and "No module named" in res.stderr and "cuda" in res.stderr:
        pytest.skip("numba.cuda not importable here")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().endswith("ok")


_D = np.zeros((4, 16), dtype=np.uint8)
_WIDE = np.zeros((parity.MAX_Q_DATA_MEMBERS + 1, 8), dtype=np.uint8)


@pytest.mark.parametrize("call, field", [
    (lambda: parity.gf_mul(256, 1), "a"), (lambda: parity.gf_mul(-1, 1), "a"), (lambda: parity.gf_mul(1, 0x1FF), "b"),
    (lambda: parity.gf_mul(1.5, 1), "a"), (lambda: parity.gf_mul(True, 1), "a"), (lambda: parity.gf_pow2(2.0), "i"),
    (lambda: parity.gen_p(_D, out=np.empty(16, dtype=np.int64)), "out"),
    (lambda: parity.gen_p(_D, out=np.empty(15, dtype=np.uint8)), "out"),
    (lambda: parity.gen_pq(_D, out=np.empty((2, 16), dtype=np.uint16)), "out"),
    (lambda: parity.gen_pq(np.zeros((0, 16), dtype=np.uint8)), "data"),
    (lambda: parity.gen_pq(np.zeros(16, dtype=np.uint8)), "data"),
    (lambda: parity.gen_q(_WIDE), "data"), (lambda: parity.gen_pq_reference(_WIDE), "data"),
    (lambda: parity.gen_pq_reference(_D.astype(np.int32)), "data"), (lambda: parity.gen_p_reference(_D.astype(float)), "data"),
    (lambda: parity.recover(_D, [1.5], 6), "lost"), (lambda: parity.recover(_D, ["1"], 6), "lost"),
    (lambda: parity.recover(_D, [-1], 6), "lost"), (lambda: parity.recover(_D, [4], 6), "lost"),
    (lambda: parity.recover(_D, [0], True), "level"), (lambda: parity.recover(_D.astype(np.int16), [0], 5), "blocks"),
    (lambda: parity.recover(np.zeros((2, 8), dtype=np.uint8), [0], 6), "blocks"),
])
def test_every_public_function_refuses_what_gf256_cannot_represent(call, field):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        call()


def test_field_elements_at_the_edges_are_accepted():
    assert parity.gf_mul(255, 255) == parity.gf_mul(np.uint8(255), np.int64(255))
    assert parity.gf_mul(0, 255) == 0 and parity.gf_mul(1, 255) == 255
    assert parity.gf_pow2(255) == parity.gf_pow2(0) == 1 and parity.gf_pow2(-1) == parity.GF_INV[2]


def test_isal_binding_refuses_what_gf256_cannot_represent():
    from nvsim import isal

    if not isal.available():
        pytest.skip(isal.library_name())
    with pytest.raises(ValueError, match=r"^data: Q over GF\(2\^8\) distinguishes at most 255"):
        isal.pq_gen(isal.aligned_empty((256, 64)))
    with pytest.raises(ValueError, match="^data: pq_gen needs at least 2"):
        isal.pq_gen(isal.aligned_empty((1, 64)))
    with pytest.raises(ValueError, match="^parity: "):
        isal.PointerArray(isal.aligned_empty((3, 64)), isal.aligned_empty((3, 64)))
