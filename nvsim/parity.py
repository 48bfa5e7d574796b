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

The kernels work on 64-bit words (eight GF(2^8) lanes each). For each word they load up to eight
members and fold them into P and Q in registers, storing P/Q once per pass of eight members (one
pass in all for k <= 8; more members go in passes over L2-sized column blocks). Q uses Horner's
rule ``q = 2*q ^ D_i`` from the top member down with the packed-byte doubling
``2*x = ((x << 1) & 0xfe..fe) ^ (((x >> 7) & 0x01..01) * 0x1d)``. LLVM turns the word loops into
AVX2/AVX-512 code. Large inputs are split over cores with ``prange``.
"""

from __future__ import annotations

from collections.abc import Iterable

import llvmlite.binding as llvm
import numba as nb
import numpy as np

GF_POLY = 0x11D
GF_GENERATOR = 2

# Column block (in 64-bit words) for more than eight members: every pass of eight members over a
# block re-reads P and Q, so the block (P + Q = 2 x 64 KiB) is kept L2-resident while data rows
# stream through once. Measured 2048..16384 on Zen 4 (1 MiB L2): flat from 4096 up, larger a few %
# better from memory; 8192 also fits a 512 KiB L2. Eight or fewer members take one pass, unblocked.
_BLOCK_WORDS = 8192
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


def _field_element(value: int, name: str) -> int:
    """``value`` as a GF(2^8) element (a whole number 0..255), else ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: a GF(2^8) element is a whole number 0..255, got {value!r}")
    if not 0 <= int(value) <= 255:
        raise ValueError(f"{name}: a GF(2^8) element is 0..255, got {int(value)}")
    return int(value)


def gf_mul(a: int, b: int) -> int:
    """Product of two field elements (scalar helper for tests and docs); each must be 0..255 (a
    larger value is not an element: masking it to a byte would answer for another number)."""
    return int(GF_MUL[_field_element(a, "a"), _field_element(b, "b")])


def gf_pow2(i: int) -> int:
    """g^i for the generator g = 2 (any whole i: g has order 255, so g^i = g^(i mod 255))."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise ValueError(f"i: an exponent is a whole number, got {i!r}")
    return int(GF_EXP[int(i) % 255])


# ----------------------------------------------------------------------------- kernels

_FE = np.uint64(0xFEFEFEFEFEFEFEFE)
_01 = np.uint64(0x0101010101010101)
_1D = np.uint64(0x1D)
_U1 = np.uint64(1)
_U7 = np.uint64(7)
_80 = np.uint64(0x8080808080808080)
_1D8 = np.uint64(0x1D1D1D1D1D1D1D1D)


@nb.njit(inline="always")
def _mul2_sub(x):
    """2*x on eight packed GF(2^8) bytes: shift each byte, reduce those whose top bit fell off.

    The reduction mask is v - (v >> 7) with v = x & 0x80..80 (0x7f where the top bit was set, no
    borrow crosses bytes), masked with 0x1d: no 64-bit multiply (AVX2 has none) and a single
    shift. Linux lib/raid6 int.uc uses the same idea with (v << 1) - (v >> 7).
    """
    v = x & _80
    return ((x << _U1) & _FE) ^ ((v - (v >> _U7)) & _1D8)


@nb.njit(inline="always")
def _mul2_mul(x):
    """The same product as ``_mul2_sub`` with the reduction as (top bits) * 0x1d: one vector op
    fewer where a 64-bit lane multiply exists (AVX-512DQ ``vpmullq``), ~10% faster P+Q on Zen 4."""
    return ((x << _U1) & _FE) ^ (((x >> _U7) & _01) * _1D)


def _target_has_vpmullq() -> bool:
    """Whether Numba compiles for a CPU with AVX-512DQ (the features it targets: NUMBA_CPU_FEATURES
    when set, else the host's). Numba's on-disk cache is keyed by CPU name and features as well."""
    feats = nb.core.config.CPU_FEATURES
    if feats is None:
        try:
            feats = llvm.get_host_cpu_features().flatten()
        except Exception:  # noqa: BLE001 - unknown host: take the form that is good everywhere
            return False
    return "+avx512dq" in feats.split(",")


# Without a vector 64-bit multiply (AVX2) LLVM would emulate it with three 32-bit multiplies.
_mul2 = _mul2_mul if _target_has_vpmullq() else _mul2_sub


# The block kernels below keep all members of one pass in registers: for each word they load up to
# eight member words, fold them into P (and Q by Horner, top member first) and store P/Q once, as
# ISA-L's xor_gen/pq_gen do. Members are taken eight at a time; the first pass over a column block
# takes the top r = ((k - 1) % 8) + 1 members and writes P/Q, each later pass folds the next eight
# lower members into them (Q = 2^8 Q ^ Horner of the eight). So k <= 8 is a single pass with no
# re-read of P/Q, and k = 22 is 6 + 8 + 8. Every row is sliced to [w0, w1) first so the word loops
# index from 0 (no wraparound checks) and LLVM vectorises them (zmm/ymm with AVX-512/AVX2).
# The unrolled bodies (one branch per member count of the first pass) are plain source, not code
# generated at import, so that ``cache=True`` works.


@nb.njit(nogil=True, cache=True)
def _p_first(d, p, r, w0, w1):
    """p[w0:w1] = XOR of the top r rows (1 <= r <= 8) of d over words [w0, w1)."""
    t = d.shape[0] - 1
    m = w1 - w0
    pb = p[w0:w1]
    if r == 1:
        a0 = d[t, w0:w1]
        for w in range(m):
            x0 = a0[w]
            pb[w] = x0
    elif r == 2:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            pb[w] = x0 ^ x1
    elif r == 3:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            pb[w] = x0 ^ x1 ^ x2
    elif r == 4:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            pb[w] = x0 ^ x1 ^ x2 ^ x3
    elif r == 5:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4
    elif r == 6:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5
    elif r == 7:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        a6 = d[t - 6, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            x6 = a6[w]
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6
    else:  # r == 8
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        a6 = d[t - 6, w0:w1]
        a7 = d[t - 7, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            x6 = a6[w]
            x7 = a7[w]
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7



@nb.njit(nogil=True, cache=True)
def _p_next8(d, p, i, w0, w1):
    """p[w0:w1] ^= rows i .. i+7 of d over words [w0, w1)."""
    m = w1 - w0
    pb = p[w0:w1]
    a0 = d[i + 7, w0:w1]
    a1 = d[i + 6, w0:w1]
    a2 = d[i + 5, w0:w1]
    a3 = d[i + 4, w0:w1]
    a4 = d[i + 3, w0:w1]
    a5 = d[i + 2, w0:w1]
    a6 = d[i + 1, w0:w1]
    a7 = d[i, w0:w1]
    for w in range(m):
        pw = pb[w]
        x0 = a0[w]
        x1 = a1[w]
        x2 = a2[w]
        x3 = a3[w]
        x4 = a4[w]
        x5 = a5[w]
        x6 = a6[w]
        x7 = a7[w]
        pb[w] = pw ^ x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7



@nb.njit(nogil=True, cache=True)
def _pq_first(d, p, q, r, w0, w1):
    """P and Q of the top r rows (1 <= r <= 8) of d over words [w0, w1) (Horner, top row first)."""
    t = d.shape[0] - 1
    m = w1 - w0
    pb = p[w0:w1]
    qb = q[w0:w1]
    if r == 1:
        a0 = d[t, w0:w1]
        for w in range(m):
            x0 = a0[w]
            qb[w] = x0
            pb[w] = x0
    elif r == 2:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            y = _mul2(x0) ^ x1
            qb[w] = y
            pb[w] = x0 ^ x1
    elif r == 3:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2
    elif r == 4:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            y = _mul2(y) ^ x3
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2 ^ x3
    elif r == 5:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            y = _mul2(y) ^ x3
            y = _mul2(y) ^ x4
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4
    elif r == 6:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            y = _mul2(y) ^ x3
            y = _mul2(y) ^ x4
            y = _mul2(y) ^ x5
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5
    elif r == 7:
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        a6 = d[t - 6, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            x6 = a6[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            y = _mul2(y) ^ x3
            y = _mul2(y) ^ x4
            y = _mul2(y) ^ x5
            y = _mul2(y) ^ x6
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6
    else:  # r == 8
        a0 = d[t, w0:w1]
        a1 = d[t - 1, w0:w1]
        a2 = d[t - 2, w0:w1]
        a3 = d[t - 3, w0:w1]
        a4 = d[t - 4, w0:w1]
        a5 = d[t - 5, w0:w1]
        a6 = d[t - 6, w0:w1]
        a7 = d[t - 7, w0:w1]
        for w in range(m):
            x0 = a0[w]
            x1 = a1[w]
            x2 = a2[w]
            x3 = a3[w]
            x4 = a4[w]
            x5 = a5[w]
            x6 = a6[w]
            x7 = a7[w]
            y = _mul2(x0) ^ x1
            y = _mul2(y) ^ x2
            y = _mul2(y) ^ x3
            y = _mul2(y) ^ x4
            y = _mul2(y) ^ x5
            y = _mul2(y) ^ x6
            y = _mul2(y) ^ x7
            qb[w] = y
            pb[w] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7



@nb.njit(nogil=True, cache=True)
def _pq_next8(d, p, q, i, w0, w1):
    """Fold rows i+7 .. i of d into P and Q over words [w0, w1): Q = 2^8 Q ^ Horner(rows)."""
    m = w1 - w0
    pb = p[w0:w1]
    qb = q[w0:w1]
    a0 = d[i + 7, w0:w1]
    a1 = d[i + 6, w0:w1]
    a2 = d[i + 5, w0:w1]
    a3 = d[i + 4, w0:w1]
    a4 = d[i + 3, w0:w1]
    a5 = d[i + 2, w0:w1]
    a6 = d[i + 1, w0:w1]
    a7 = d[i, w0:w1]
    for w in range(m):
        pw = pb[w]
        x0 = a0[w]
        x1 = a1[w]
        x2 = a2[w]
        x3 = a3[w]
        x4 = a4[w]
        x5 = a5[w]
        x6 = a6[w]
        x7 = a7[w]
        y = _mul2(qb[w]) ^ x0
        y = _mul2(y) ^ x1
        y = _mul2(y) ^ x2
        y = _mul2(y) ^ x3
        y = _mul2(y) ^ x4
        y = _mul2(y) ^ x5
        y = _mul2(y) ^ x6
        y = _mul2(y) ^ x7
        qb[w] = y
        pb[w] = pw ^ x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7


@nb.njit(nogil=True, cache=True)
def _p_cols(d, p, w0, w1):
    """P over words [w0, w1) of every row of d (k >= 1): first pass then passes of eight members."""
    k = d.shape[0]
    r = (k - 1) % 8 + 1
    _p_first(d, p, r, w0, w1)
    i = k - r - 8
    while i >= 0:
        _p_next8(d, p, i, w0, w1)
        i -= 8


@nb.njit(nogil=True, cache=True)
def _pq_cols(d, p, q, w0, w1):
    """P and Q over words [w0, w1) of every row of d (k >= 1)."""
    k = d.shape[0]
    r = (k - 1) % 8 + 1
    _pq_first(d, p, q, r, w0, w1)
    i = k - r - 8
    while i >= 0:
        _pq_next8(d, p, q, i, w0, w1)
        i -= 8


@nb.njit(nogil=True, cache=True)
def _p_serial(d, p):
    n = d.shape[1]
    if d.shape[0] <= 8:  # one pass: nothing to keep cache-resident between passes
        _p_cols(d, p, 0, n)
        return
    for b0 in range(0, n, _BLOCK_WORDS):
        _p_cols(d, p, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True)
def _pq_serial(d, p, q):
    n = d.shape[1]
    if d.shape[0] <= 8:
        _pq_cols(d, p, q, 0, n)
        return
    for b0 in range(0, n, _BLOCK_WORDS):
        _pq_cols(d, p, q, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True, parallel=True)
def _p_parallel(d, p):
    n = d.shape[1]
    nblocks = (n + _BLOCK_WORDS - 1) // _BLOCK_WORDS
    for b in nb.prange(nblocks):
        b0 = b * _BLOCK_WORDS
        _p_cols(d, p, b0, min(b0 + _BLOCK_WORDS, n))


@nb.njit(nogil=True, cache=True, parallel=True)
def _pq_parallel(d, p, q):
    n = d.shape[1]
    nblocks = (n + _BLOCK_WORDS - 1) // _BLOCK_WORDS
    for b in nb.prange(nblocks):
        b0 = b * _BLOCK_WORDS
        _pq_cols(d, p, q, b0, min(b0 + _BLOCK_WORDS, n))


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


MAX_Q_DATA_MEMBERS = 255
"""Most data rows a Q syndrome can weigh apart: row i gets g^i in GF(2^8), and g^255 = g^0, so a
256th row would share row 0's coefficient and two lost rows could not be told apart."""


def _check_q_rows(k: int, field: str) -> None:
    if k > MAX_Q_DATA_MEMBERS:
        raise ValueError(f"{field}: Q over GF(2^8) distinguishes at most {MAX_Q_DATA_MEMBERS} data rows, got {k}")


def _check_out(out: np.ndarray | None, shape: tuple[int, ...]) -> None:
    """``out`` must be a uint8 array of the result's shape (a wider dtype would hold other values)."""
    if out is None:
        return
    if not isinstance(out, np.ndarray) or out.dtype != np.uint8:
        raise ValueError(f"out: expected a uint8 array, got {getattr(out, 'dtype', type(out).__name__)}")
    if out.shape != shape:
        raise ValueError(f"out: expected shape {shape}, got {out.shape}")


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
    _check_out(out, (nbytes,))
    direct = out is not None and nbytes % 8 == 0 and out.flags.c_contiguous
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
    _check_q_rows(words.shape[0], "data")
    _check_out(out, (2, nbytes))
    direct = out is not None and nbytes % 8 == 0 and out.flags.c_contiguous
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


def _row_index(value) -> int:
    """A lost row's index: a whole number (1.5 or "2" would name a row by accident)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"lost: row indices are whole numbers, got {value!r}")
    return int(value)


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
    if isinstance(level, bool) or level not in (5, 6):
        raise ValueError(f"level: must be 5 or 6, got {level}")
    n_parity = 1 if level == 5 else 2
    k = blocks.shape[0] - n_parity
    if k < 1:
        raise ValueError(f"blocks: RAID{level} needs at least {n_parity + 1} rows, got {blocks.shape[0]}")
    if level == 6:
        _check_q_rows(k, "blocks")
    lost_set = sorted({_row_index(i) for i in lost})
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


def _reference_rows(data: np.ndarray) -> np.ndarray:
    data = np.asarray(data)
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[0] < 1:
        raise ValueError(f"data: expected a 2-D uint8 array with at least one row, got {data.dtype} {data.shape}")
    return data


def gen_p_reference(data: np.ndarray) -> np.ndarray:
    """Plain NumPy P (bytewise XOR reduce): the slow, obvious definition, for tests and benchmarks."""
    return np.bitwise_xor.reduce(_reference_rows(data), axis=0)


def gen_pq_reference(data: np.ndarray) -> np.ndarray:
    """Plain NumPy P and Q (Horner over rows with 64-bit lanes): reference for tests and benchmarks."""
    data = _reference_rows(data)
    k, n = data.shape
    _check_q_rows(k, "data")
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
