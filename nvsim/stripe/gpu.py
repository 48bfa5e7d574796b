"""GPU P+Q generation (numba.cuda), byte-identical to nvsim.parity.gen_pq.

Optional: nothing else in nvsim imports this module, so nothing else needs a GPU or the CUDA
toolkit; here numba.cuda is imported with the module and the kernel compiled on first use. Each
thread owns one 64-bit word column and runs the same Horner loop as the CPU kernel
(q = 2*q ^ D_i on packed bytes), so results match byte for byte. Runs under numba's CUDA
simulator (NUMBA_ENABLE_CUDASIM=1, set before this module is first imported) for tests on machines
without a GPU. On an NVIDIA H200 it runs at the GPU's memory bandwidth (docs/performance.md,
"GPU P+Q on a GPU").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

try:  # a module global: kernels see numba.cuda there (the simulator swaps it in at import)
    from numba import cuda
except ImportError:  # numba without its CUDA package: ``available`` says False
    cuda = None

_THREADS_PER_BLOCK = 256


@lru_cache(maxsize=1)
def _kernel():
    """numba.cuda and the P+Q kernel, defined once and compiled at its first launch (``_ready``);
    RuntimeError without numba.cuda."""
    if cuda is None:
        raise RuntimeError("numba.cuda is not importable here")
    fe = np.uint64(0xFEFEFEFEFEFEFEFE)
    h80 = np.uint64(0x8080808080808080)
    m1d = np.uint64(0x1D1D1D1D1D1D1D1D)
    one = np.uint64(1)
    seven = np.uint64(7)

    @cuda.jit
    def pq_kernel(d, p, q):
        w = cuda.grid(1)
        if w >= d.shape[1]:
            return
        k = d.shape[0]
        x = d[k - 1, w]
        pp = x
        qq = x
        for i in range(k - 2, -1, -1):
            x = d[i, w]
            v = qq & h80
            qq = ((qq << one) & fe) ^ ((v - (v >> seven)) & m1d) ^ x
            pp ^= x
        p[w] = pp
        q[w] = qq

    return cuda, pq_kernel


@lru_cache(maxsize=1)
def _ready():
    """numba.cuda and the P+Q kernel once it has compiled and run on one word of two members;
    RuntimeError naming why not (no numba.cuda, no device, or a numba-cuda that does not compile
    here: numba-cuda 0.30.4 names ``np.row_stack``, which NumPy 2.5 removed, at its first kernel)."""
    cuda, kernel = _kernel()
    if not cuda.is_available():
        raise RuntimeError("numba.cuda finds no CUDA device here")
    try:
        out = cuda.device_array((2, 1), dtype=np.uint64)
        kernel[1, 1](cuda.to_device(np.ones((2, 1), dtype=np.uint64)), out[0], out[1])
        cuda.synchronize()
    except Exception as exc:  # the compiler's or the driver's own error, whatever its type
        raise RuntimeError(f"the GPU P+Q kernel does not compile or run here: {type(exc).__name__}: {exc}") from exc
    return cuda, kernel


def available() -> bool:
    """True when the P+Q kernel compiles and runs here (a GPU, or the simulator when enabled)."""
    try:
        _ready()
        return True
    except Exception:  # no CUDA driver/toolkit, no device, a numba-cuda that does not compile
        return False


def _as_words(data: np.ndarray) -> np.ndarray:
    """``data`` as (members, words) uint64: a view when its rows are whole words and contiguous,
    else a copy padded with zero bytes (zeros change neither P nor Q of the bytes kept)."""
    k, nbytes = data.shape
    if nbytes % 8 == 0 and data.flags.c_contiguous:
        return data.view(np.uint64)
    padded = np.zeros((k, (nbytes + 7) // 8 * 8), dtype=np.uint8)
    padded[:, :nbytes] = data
    return padded.view(np.uint64)


def gen_pq_gpu(data: np.ndarray) -> np.ndarray:
    """P and Q of ``data`` ((members, bytes) uint8 in host memory) -> (2, bytes) uint8 in host memory
    (RuntimeError, one line, where the kernel cannot run here: ``available``)."""
    cuda, kernel = _ready()
    data = np.asarray(data)
    if data.dtype != np.uint8 or data.ndim != 2:
        raise ValueError(f"data: expected a 2-D uint8 array, got {data.dtype} {data.shape}")
    words = _as_words(data)
    nbytes = data.shape[1]
    d_dev = cuda.to_device(words)
    out = cuda.device_array((2, words.shape[1]), dtype=np.uint64)
    blocks = (words.shape[1] + _THREADS_PER_BLOCK - 1) // _THREADS_PER_BLOCK
    kernel[blocks, _THREADS_PER_BLOCK](d_dev, out[0], out[1])
    host = out.copy_to_host().view(np.uint8)
    return np.ascontiguousarray(host[:, :nbytes])
