"""RAID5/RAID6 parity over real bytes: P (XOR) and Q (Reed-Solomon over GF(2^8)).

Convention (Linux md ``lib/raid6`` and Intel ISA-L ``pq_gen``/``xor_gen``, so results are
byte-identical to theirs):

* field GF(2^8) with reducing polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d), generator g = 2;
* for data blocks D_0 .. D_{k-1} (row i of ``data``):
  ``P = D_0 ^ D_1 ^ ... ^ D_{k-1}`` and ``Q = g^0*D_0 ^ g^1*D_1 ^ ... ^ g^{k-1}*D_{k-1}``.

Public API (``data`` is a ``(members, bytes)`` uint8 array, one row per data member):

* ``gen_p(data, out=None) -> ndarray[(bytes,), uint8]``
* ``gen_pq(data, out=None) -> ndarray[(2, bytes), uint8]`` (row 0 = P, row 1 = Q; ``p, q = gen_pq(d)``)
* ``recover(blocks, lost, level) -> ndarray`` rebuilds lost rows of a full stripe
  ``blocks = [D_0..D_{k-1}, P]`` (level 5) or ``[D_0..D_{k-1}, P, Q]`` (level 6).

The kernels work on 64-bit words (eight GF(2^8) lanes each) and stream every member once per
cache-sized column block; Q uses Horner's rule ``q = 2*q ^ D_i`` with the packed-byte doubling
``2*x = ((x << 1) & 0xfe..fe) ^ (((x >> 7) & 0x01..01) * 0x1d)``. LLVM turns the word loops into
AVX2/AVX-512 code. Large inputs are split over cores with ``prange``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba as nb
import numpy as np

GF_POLY = 0x11D
GF_GENERATOR = 2

# Column block (in 64-bit words) processed against all members before moving on: P and Q
# accumulators (2 x 32 KiB) stay in L1/L2 while data rows stream through once; 32 KiB per row
# keeps hardware prefetchers running (measured best of 512..4096 on Zen 3).
_BLOCK_WORDS = 4096
# Below this many data bytes in total one core is faster than waking the thread pool.
PARALLEL_MIN_BYTES = 8 * 1024 * 1024


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """exp (510 entries, so exp[log a + log b] needs no modulo), log, inverse, full product table."""
    exp = np.zeros(512, dtype=np.uint8)
    log = np.zeros(256, dtype=np.int32)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= GF_POLY
    exp[255:510] = exp[0:255]
    log[0] = -1  # log(0) is undefined; never used by callers below
    a = np.arange(256)
    la = log[a]
    mul = np.zeros((256, 256), dtype=np.uint8)
    nz = a[1:]
    mul[1:, 1:] = exp[(la[nz][:, None] + la[nz][None, :])]
    inv = np.zeros(256, dtype=np.uint8)
    inv[1:] = exp[(255 - la[nz]) % 255]
    return exp, log, inv, mul


GF_EXP, GF_LOG, GF_INV, GF_MUL = _build_tables()
GF_EXP.flags.writeable = False
GF_LOG.flags.writeable = False
GF_INV.flags.writeable = False
GF_MUL.flags.writeable = False


def gf_mul(a: int, b: int) -> int:
    """Product of two field elements (scalar helper for tests and docs)."""
    return int(GF_MUL[a & 0xFF, b & 0xFF])


def gf_pow2(i: int) -> int:
    """g^i for the generator g = 2."""
    return int(GF_EXP[i % 255])


# ----------------------------------------------------------------------------- kernels

_FE = np.uint64(0xFEFEFEFEFEFEFEFE)
_01 = np.uint64(0x0101010101010101)
_1D = np.uint64(0x1D)
_U1 = np.uint64(1)
_U7 = np.uint64(7)


_80 = np.uint64(0x8080808080808080)
_1D8 = np.uint64(0x1D1D1D1D1D1D1D1D)


@nb.njit(inline="always")
def _mul2(x):
    """2*x on eight packed GF(2^8) bytes: shift each byte, reduce those whose top bit fell off.

    The reduction mask is v - (v >> 7) with v = x & 0x80..80 (0x7f where the top bit was set, no
    borrow crosses bytes), masked with 0x1d: no 64-bit multiply (AVX2 has none) and a single
    shift. Linux lib/raid6 int.uc uses the same idea with (v << 1) - (v >> 7).
    """
    v = x & _80
    return ((x << _U1) & _FE) ^ ((v - (v >> _U7)) & _1D8)


@nb.njit(nogil=True, cache=True, fastmath=True)
def _p_block(d, p, w0, w1):
    """P over words [w0, w1) of every row of d (k >= 1), four members per pass.

    Rows are sliced first so the inner loops index from 0: Numba then drops its negative-index
    wraparound check and LLVM vectorises them.
    """
    k = d.shape[0]
    m = w1 - w0
    pb = p[w0:w1]
    top = d[k - 1, w0:w1]
    for w in range(m):
        pb[w] = top[w]
    i = k - 2
    while i >= 3:
        da = d[i, w0:w1]
        db = d[i - 1, w0:w1]
        dc = d[i - 2, w0:w1]
        de = d[i - 3, w0:w1]
        for w in range(m):
            pb[w] = pb[w] ^ da[w] ^ db[w] ^ dc[w] ^ de[w]
        i -= 4
    while i >= 0:
        da = d[i, w0:w1]
        for w in range(m):
            pb[w] ^= da[w]
        i -= 1


@nb.njit(nogil=True, cache=True, fastmath=True)
def _pq_block(d, p, q, w0, w1):
    """P and Q over words [w0, w1): Horner from the highest member down, four members per pass."""
    k = d.shape[0]
    m = w1 - w0
    pb = p[w0:w1]
    qb = q[w0:w1]
    top = d[k - 1, w0:w1]
    for w in range(m):
        x = top[w]
        pb[w] = x
        qb[w] = x
    i = k - 2
    while i >= 3:
        da = d[i, w0:w1]
        db = d[i - 1, w0:w1]
        dc = d[i - 2, w0:w1]
        de = d[i - 3, w0:w1]
        for w in range(m):
            a = da[w]
            b = db[w]
            c = dc[w]
            e = de[w]
            qq = _mul2(qb[w]) ^ a
            qq = _mul2(qq) ^ b
            qq = _mul2(qq) ^ c
            qb[w] = _mul2(qq) ^ e
            pb[w] = pb[w] ^ a ^ b ^ c ^ e
        i -= 4
    while i >= 0:
        da = d[i, w0:w1]
        for w in range(m):
            a = da[w]
            qb[w] = _mul2(qb[w]) ^ a
            pb[w] ^= a
        i -= 1


@nb.njit(nogil=True, cache=True)
def _p_serial(d, p):
    n = d.shape[1]
    for b0 in range(0, n, _BLOCK_WORDS):
        _p_block(d, p, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True)
def _pq_serial(d, p, q):
    n = d.shape[1]
    for b0 in range(0, n, _BLOCK_WORDS):
        _pq_block(d, p, q, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True, parallel=True)
def _p_parallel(d, p):
    n = d.shape[1]
    nblocks = (n + _BLOCK_WORDS - 1) // _BLOCK_WORDS
    for b in nb.prange(nblocks):
        b0 = b * _BLOCK_WORDS
        _p_block(d, p, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True, parallel=True)
def _pq_parallel(d, p, q):
    n = d.shape[1]
    nblocks = (n + _BLOCK_WORDS - 1) // _BLOCK_WORDS
    for b in nb.prange(nblocks):
        b0 = b * _BLOCK_WORDS
        _pq_block(d, p, q, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True)
def _mul_const_xor(a, ta, b, tb, out):
    """out = ta[a] ^ tb[b] bytewise (ta, tb: 256-entry product tables of two constants)."""
    for i in range(a.shape[0]):
        out[i] = ta[a[i]] ^ tb[b[i]]


# ----------------------------------------------------------------------------- public API


def _as_words(data: np.ndarray) -> tuple[np.ndarray, int]:
    """(k, nbytes) uint8 -> (k, words) uint64 view, zero-padding to a multiple of 8 bytes if needed."""
    data = np.asarray(data)
    if data.dtype != np.uint8 or data.ndim != 2:
        raise ValueError(f"data: expected a 2-D uint8 array (members, bytes), got {data.dtype} {data.shape}")
    if data.shape[0] < 1:
        raise ValueError("data: needs at least one member row")
    nbytes = data.shape[1]
    if nbytes % 8 == 0 and data.flags.c_contiguous and data.ctypes.data % 8 == 0:
        return data.view(np.uint64), nbytes
    padded = np.zeros((data.shape[0], (nbytes + 7) // 8 * 8), dtype=np.uint8)
    padded[:, :nbytes] = data
    return padded.view(np.uint64), nbytes


def _use_parallel(data: np.ndarray, parallel: bool | None) -> bool:
    if parallel is None:
        return data.size >= PARALLEL_MIN_BYTES and nb.get_num_threads() > 1
    return bool(parallel)


def gen_p(data: np.ndarray, out: np.ndarray | None = None, *, parallel: bool | None = None) -> np.ndarray:
    """P = XOR of the rows of ``data`` ((members, bytes) uint8). Returns a (bytes,) uint8 array.

    ``out`` (optional, (bytes,) uint8, C-contiguous) receives the result without an allocation.
    ``parallel`` forces (True) or forbids (False) the multi-core kernel; None picks by size.
    """
    words, nbytes = _as_words(data)
    direct = out is not None and out.dtype == np.uint8 and out.shape == (nbytes,) and nbytes % 8 == 0 \
        and out.flags.c_contiguous
    if out is not None and out.shape != (nbytes,):
        raise ValueError(f"out: expected shape ({nbytes},), got {out.shape}")
    buf = out if direct else np.empty(words.shape[1] * 8, dtype=np.uint8)
    kernel = _p_parallel if _use_parallel(data, parallel) else _p_serial
    kernel(words, buf.view(np.uint64))
    if direct:
        return out
    if out is not None:
        out[:] = buf[:nbytes]
        return out
    return buf[:nbytes]


def gen_pq(data: np.ndarray, out: np.ndarray | None = None, *, parallel: bool | None = None) -> np.ndarray:
    """P and Q of the rows of ``data`` ((members, bytes) uint8). Returns (2, bytes) uint8: [P, Q].

    Q weights row i by g^i (g = 2, polynomial 0x11d), as md and ISA-L do. ``out`` (optional,
    (2, bytes) uint8, C-contiguous) receives the result without an allocation.
    """
    words, nbytes = _as_words(data)
    if out is not None and out.shape != (2, nbytes):
        raise ValueError(f"out: expected shape (2, {nbytes}), got {out.shape}")
    direct = out is not None and out.dtype == np.uint8 and nbytes % 8 == 0 and out.flags.c_contiguous
    buf = out if direct else np.empty((2, words.shape[1] * 8), dtype=np.uint8)
    w = buf.view(np.uint64)
    kernel = _pq_parallel if _use_parallel(data, parallel) else _pq_serial
    kernel(words, w[0], w[1])
    if direct:
        return out
    if out is not None:
        out[:] = buf[:, :nbytes]
        return out
    return buf[:, :nbytes]


def gen_q(data: np.ndarray) -> np.ndarray:
    """Q alone (convenience; computes P as well)."""
    return gen_pq(data)[1]


def recover(blocks: np.ndarray, lost: Iterable[int], level: int) -> np.ndarray:
    """Rebuild the ``lost`` rows of one stripe and return the whole stripe (a new array).

    ``blocks`` is (k + 1, bytes) uint8 ``[D_0..D_{k-1}, P]`` for ``level=5`` or (k + 2, bytes)
    ``[D_0..D_{k-1}, P, Q]`` for ``level=6``; the contents of lost rows are ignored. RAID5
    tolerates one lost row, RAID6 any two (two data, data + P, data + Q, P + Q); more raises
    ValueError. The returned array has every row filled, so ``recover(...)[i]`` is row i.
    """
    blocks = np.asarray(blocks)
    if blocks.dtype != np.uint8 or blocks.ndim != 2:
        raise ValueError(f"blocks: expected a 2-D uint8 array, got {blocks.dtype} {blocks.shape}")
    if level not in (5, 6):
        raise ValueError(f"level: must be 5 or 6, got {level}")
    n_parity = 1 if level == 5 else 2
    k = blocks.shape[0] - n_parity
    if k < 1:
        raise ValueError(f"blocks: RAID{level} needs at least {n_parity + 1} rows, got {blocks.shape[0]}")
    lost_set = sorted({int(i) for i in lost})
    for i in lost_set:
        if not 0 <= i < blocks.shape[0]:
            raise ValueError(f"lost: row {i} out of range 0..{blocks.shape[0] - 1}")
    if len(lost_set) > n_parity:
        raise ValueError(f"lost: RAID{level} can rebuild at most {n_parity} rows, got {len(lost_set)}")
    result = np.array(blocks, dtype=np.uint8, order="C", copy=True)
    if not lost_set:
        return result
    p_row, q_row = k, k + 1
    lost_data = [i for i in lost_set if i < k]
    data = result[:k]
    for i in lost_data:
        data[i] = 0
    if level == 5:
        if lost_data:
            result[lost_data[0]] = gen_p(data) ^ result[p_row]
        else:
            result[p_row] = gen_p(data)
        return result
    if not lost_data:  # P and/or Q only: regenerate
        result[p_row:q_row + 1] = gen_pq(data)
        return result
    # Partial syndromes over the surviving data (lost rows zeroed).
    pq = gen_pq(data)
    p_lost = p_row in lost_set
    q_lost = q_row in lost_set
    if len(lost_data) == 1:
        x = lost_data[0]
        if not p_lost:  # data (+ Q): D_x = P ^ P'
            result[x] = result[p_row] ^ pq[0]
        else:  # data + P: g^x D_x = Q ^ Q'  ->  D_x = g^-x (Q ^ Q')
            qx = result[q_row] ^ pq[1]
            tbl = GF_MUL[GF_INV[GF_EXP[x % 255]]]
            result[x] = tbl[qx]
            result[p_row] = pq[0] ^ result[x]
        if q_lost:
            result[q_row] = gen_pq(result[:k])[1]
        return result
    # Two data rows x < y:  Pxy = D_x ^ D_y,  Qxy = g^x D_x ^ g^y D_y
    #   D_x = A*Pxy ^ B*Qxy  with A = g^(y-x) / (g^(y-x) ^ 1), B = g^-x / (g^(y-x) ^ 1)  (md raid6_2data_recov)
    x, y = lost_data
    pxy = np.ascontiguousarray(result[p_row] ^ pq[0])
    qxy = np.ascontiguousarray(result[q_row] ^ pq[1])
    gyx = int(GF_EXP[(y - x) % 255])
    denom_inv = int(GF_INV[gyx ^ 1])
    a = gf_mul(gyx, denom_inv)
    b = gf_mul(int(GF_INV[GF_EXP[x % 255]]), denom_inv)
    dx = np.empty_like(pxy)
    _mul_const_xor(pxy, GF_MUL[a], qxy, GF_MUL[b], dx)
    result[x] = dx
    result[y] = pxy ^ dx
    return result


def gen_p_reference(data: np.ndarray) -> np.ndarray:
    """Plain NumPy P (bytewise XOR reduce): the slow, obvious definition, for tests and benchmarks."""
    return np.bitwise_xor.reduce(np.asarray(data, dtype=np.uint8), axis=0)


def gen_pq_reference(data: np.ndarray) -> np.ndarray:
    """Plain NumPy P and Q (Horner over rows with 64-bit lanes): reference for tests and benchmarks."""
    data = np.asarray(data, dtype=np.uint8)
    k, n = data.shape
    pad = (-n) % 8
    d = np.zeros((k, n + pad), dtype=np.uint8)
    d[:, :n] = data
    w = d.view(np.uint64)
    p = w[k - 1].copy()
    q = w[k - 1].copy()
    for i in range(k - 2, -1, -1):
        hi = (q >> np.uint64(7)) & _01
        q = ((q << np.uint64(1)) & _FE) ^ (hi * _1D) ^ w[i]
        p ^= w[i]
    out = np.empty((2, n + pad), dtype=np.uint8)
    out[0] = p.view(np.uint8)
    out[1] = q.view(np.uint8)
    return out[:, :n]
