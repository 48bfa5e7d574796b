"""Tiny ctypes binding to Intel ISA-L's RAID functions (``xor_gen``, ``pq_gen``).

Used to cross-check nvsim.parity byte for byte and to benchmark against it in one process.
Debian/Ubuntu package: ``libisal2``. ``available()`` says whether it could be loaded;
the functions raise ``IsalUnavailable`` (with the reason) when it is absent.

ISA-L's constraints (raid.h): ``len`` must be a multiple of 32 bytes (64 for the AVX-512
kernels; we require 64), buffers should be 32/64-byte aligned, and ``pq_gen`` needs at
least 2 sources. Use ``aligned_empty`` to get suitably aligned NumPy buffers.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

import numpy as np

ISAL_LEN_MULTIPLE_BYTES = 64
ISAL_ALIGN_BYTES = 64
ISAL_MAX_Q_DATA_ROWS = 255
"""pq_gen weights data row i by 2^i in GF(2^8): 2^255 = 2^0, so more rows give a Q that cannot
rebuild them (ISA-L itself does not check)."""


class IsalUnavailable(RuntimeError):
    """libisal could not be loaded (install the Debian package ``libisal2``)."""


@lru_cache(maxsize=1)
def _load() -> tuple[ctypes.CDLL | None, str]:
    names = []
    found = ctypes.util.find_library("isal")
    if found:
        names.append(found)
    names += ["libisal.so.2", "libisal.so"]
    errors = []
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError as exc:
            errors.append(f"{name}: {exc}")
            continue
        for fn in (lib.xor_gen, lib.pq_gen):
            fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
            fn.restype = ctypes.c_int
        return lib, name
    return None, "libisal not found (apt-get install libisal2); tried " + "; ".join(errors or names)


def available() -> bool:
    """True when libisal was found and loaded."""
    return _load()[0] is not None


def library_name() -> str:
    """The loaded library's name, or why it could not be loaded."""
    return _load()[1]


def _lib() -> ctypes.CDLL:
    lib, why = _load()
    if lib is None:
        raise IsalUnavailable(why)
    return lib


def aligned_empty(shape: tuple[int, ...], align_bytes: int = ISAL_ALIGN_BYTES) -> np.ndarray:
    """An uninitialised uint8 C-contiguous array whose first byte is ``align_bytes``-aligned."""
    nbytes = int(np.prod(shape))
    raw = np.empty(nbytes + align_bytes, dtype=np.uint8)
    start = (-raw.ctypes.data) % align_bytes
    return raw[start:start + nbytes].reshape(shape)


class PointerArray:
    """The ``void **array`` ISA-L takes: pointers to each data row then the parity row(s).

    Build it once and call ``xor_gen``/``pq_gen`` repeatedly (benchmarks) without rebuilding.
    The NumPy arrays must stay alive and unmoved while it is used (it keeps references).
    """

    def __init__(self, data: np.ndarray, parity: np.ndarray):
        data = np.asarray(data)
        parity = np.asarray(parity)
        if data.dtype != np.uint8 or data.ndim != 2 or not data.flags.c_contiguous:
            raise ValueError("data: expected a C-contiguous 2-D uint8 array (members, bytes)")
        if parity.dtype != np.uint8 or parity.ndim != 2 or parity.shape[1] != data.shape[1] or parity.shape[0] not in (1, 2):
            raise ValueError("parity: expected a 2-D uint8 array (1 or 2, bytes) matching data")
        if data.shape[0] < 1:
            raise ValueError("data: needs at least one member row")
        nbytes = data.shape[1]
        if nbytes % ISAL_LEN_MULTIPLE_BYTES:
            raise ValueError(f"bytes per member must be a multiple of {ISAL_LEN_MULTIPLE_BYTES} for ISA-L, got {nbytes}")
        self._keep = (data, parity)
        rows = [data[i] for i in range(data.shape[0])] + [parity[i] for i in range(parity.shape[0])]
        self.vects = len(rows)
        self.len_bytes = nbytes
        self.array = (ctypes.c_void_p * self.vects)(*[r.ctypes.data for r in rows])


def xor_gen(data: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """ISA-L ``xor_gen``: P = XOR of the rows of ``data``. Returns (bytes,) uint8."""
    lib = _lib()
    data = np.asarray(data)
    if data.ndim != 2:
        raise ValueError(f"data: expected a 2-D uint8 array (members, bytes), got shape {data.shape}")
    nbytes = data.shape[1]
    parity = aligned_empty((1, nbytes)) if out is None else np.asarray(out).reshape(1, nbytes)
    ptrs = PointerArray(data, parity)
    rc = lib.xor_gen(ptrs.vects, ptrs.len_bytes, ptrs.array)
    if rc != 0:
        raise RuntimeError(f"isa-l xor_gen failed (rc={rc})")
    return parity[0]


def pq_gen(data: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """ISA-L ``pq_gen``: P and Q of the rows of ``data``. Returns (2, bytes) uint8 [P, Q]."""
    lib = _lib()
    data = np.asarray(data)
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError(f"data: pq_gen needs at least 2 data rows, got shape {data.shape}")
    if data.shape[0] > ISAL_MAX_Q_DATA_ROWS:
        raise ValueError(f"data: Q over GF(2^8) distinguishes at most {ISAL_MAX_Q_DATA_ROWS} data rows, got {data.shape[0]}")
    nbytes = data.shape[1]
    parity = aligned_empty((2, nbytes)) if out is None else out
    ptrs = PointerArray(data, parity)
    rc = lib.pq_gen(ptrs.vects, ptrs.len_bytes, ptrs.array)
    if rc != 0:
        raise RuntimeError(f"isa-l pq_gen failed (rc={rc})")
    return parity


def xor_gen_ptrs(ptrs: PointerArray) -> int:
    """Call ``xor_gen`` on a prebuilt pointer array (no allocation; for benchmarks)."""
    return _lib().xor_gen(ptrs.vects, ptrs.len_bytes, ptrs.array)


def pq_gen_ptrs(ptrs: PointerArray) -> int:
    """Call ``pq_gen`` on a prebuilt pointer array (no allocation; for benchmarks)."""
    return _lib().pq_gen(ptrs.vects, ptrs.len_bytes, ptrs.array)
