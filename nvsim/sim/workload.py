"""Host I/O streams of a fio-like job: offsets and directions, from named random streams.

fio semantics kept: ``numjobs`` independent jobs, each with ``iodepth`` I/Os in flight; random
offsets uniform over the job's region, aligned to ``bs`` (``norandommap``: repeats allowed);
sequential jobs start at ``offset + job * offset_increment``, step ``bs`` plus fio's
``rw=read:N`` skip (backwards when negative) and wrap within their region; ``rw=randread:N`` issues
N I/Os one after the other from each random offset; the read/write choice of mixed jobs is a Bernoulli draw with ``rwmixread``;
a mixed sequential job's reads and writes each keep their own position (fio's ``last_pos`` per
direction), both from the job's start.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from fractions import Fraction

import numba as nb
import numpy as np
from numpy.random.bit_generator import ISeedSequence

from ..numba_cache import INNER
from ..constants import PAGE_BYTES
from ..specs import SECTOR_BYTES, WorkloadSpec


def named_rng(seed: int, stream: str, *index: int) -> np.random.Generator:
    """One independent generator per (seed, stream name, indices): same seed, same numbers.

    The generator of ``np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(crc32(stream),
    *index)))``, bit for bit, made in a fifth of the time: the event mode makes two a batch (a
    many-job run, one a job and batch), and NumPy's ``SeedSequence`` spends most of its 25 us
    turning the Python integers into words and hashing them word by word. Here the words are
    assembled as ``SeedSequence`` assembles them and hashed by ``_seed_state`` (compiled), and the
    PCG64 generator is seeded with the resulting state (``tests/unit/test_named_rng.py``)."""
    words = _entropy_words(seed, (_stream_code(stream), *index))
    if words is None:  # a negative number: NumPy's own path says what is wrong
        return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_stream_code(stream), *index)))
    return np.random.Generator(np.random.PCG64(_SeedState(_seed_state(words))))


_STREAM_CODES: dict[str, int] = {}


def _stream_code(stream: str) -> int:
    code = _STREAM_CODES.get(stream)
    if code is None:
        code = _STREAM_CODES.setdefault(stream, zlib.crc32(stream.encode()))
    return code


SEED_POOL_WORDS = 4
"""``SeedSequence``'s pool: 4 words of 32 bits (NumPy's default ``pool_size``)."""
_WORD_MASK = 0xFFFFFFFF


def _int_words(value: int, out: list[int]) -> bool:
    """Append ``value``'s 32-bit words, least significant first (0: one word), as NumPy's
    ``SeedSequence`` splits an integer; False for a negative one."""
    value = int(value)
    if value < 0:
        return False
    out.append(value & _WORD_MASK)
    value >>= 32
    while value:
        out.append(value & _WORD_MASK)
        value >>= 32
    return True


def _entropy_words(seed: int, spawn_key: tuple[int, ...]) -> np.ndarray | None:
    """``SeedSequence(seed, spawn_key=spawn_key)``'s assembled entropy: the seed's words, padded with
    zeros to the pool's size (a spawn key follows), then the spawn key's words."""
    words = [seed, *[0] * (SEED_POOL_WORDS - 1), *spawn_key]
    if min(words) >= 0 and max(words) <= _WORD_MASK:  # every number one word (the usual case)
        return np.array(words, dtype=np.uint64)
    words = []
    if not _int_words(seed, words):
        return None
    words.extend([0] * (SEED_POOL_WORDS - len(words)))
    for value in spawn_key:
        if not _int_words(value, words):
            return None
    return np.array(words, dtype=np.uint64)


_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715


@nb.njit(nogil=True, cache=True)
def _seed_state(entropy: np.ndarray) -> np.ndarray:
    """NumPy's ``SeedSequence`` over the assembled ``entropy`` words (O'Neill's seed_seq hash: the
    pool mixed from the words, then ``generate_state(4, np.uint64)``), in 64-bit arithmetic masked
    to 32 bits."""
    mask = np.uint64(0xFFFFFFFF)
    pool = np.zeros(SEED_POOL_WORDS, np.uint64)
    h = np.uint64(_INIT_A)
    for i in range(SEED_POOL_WORDS):
        word = entropy[i] if i < entropy.size else np.uint64(0)
        hashed, h = _hashmix(word, h)
        pool[i] = hashed
    for i_src in range(SEED_POOL_WORDS):
        for i_dst in range(SEED_POOL_WORDS):
            if i_src != i_dst:
                hashed, h = _hashmix(pool[i_src], h)
                pool[i_dst] = _mix(pool[i_dst], hashed)
    for i_src in range(SEED_POOL_WORDS, entropy.size):
        for i_dst in range(SEED_POOL_WORDS):
            hashed, h = _hashmix(entropy[i_src], h)
            pool[i_dst] = _mix(pool[i_dst], hashed)
    out = np.empty(4, np.uint64)
    h = np.uint64(_INIT_B)
    for i in range(8):  # 8 words of 32 bits, little-endian pairs into 4 of 64
        value = pool[i % SEED_POOL_WORDS] ^ h
        h = (h * np.uint64(_MULT_B)) & mask
        value = (value * h) & mask
        value ^= value >> np.uint64(16)
        if i % 2 == 0:
            out[i // 2] = value
        else:
            out[i // 2] |= value << np.uint64(32)
    return out


@nb.njit(nogil=True, cache=True, **INNER)
def _hashmix(value, h):
    mask = np.uint64(0xFFFFFFFF)
    value = value ^ h
    h = (h * np.uint64(_MULT_A)) & mask
    value = (value * h) & mask
    return value ^ (value >> np.uint64(16)), h


@nb.njit(nogil=True, cache=True)
def _mix(x, y):
    mask = np.uint64(0xFFFFFFFF)
    result = (np.uint64(_MIX_MULT_L) * x - np.uint64(_MIX_MULT_R) * y) & mask
    return result ^ (result >> np.uint64(16))


class _SeedState(ISeedSequence):
    """A seed sequence whose state is already generated: what ``PCG64`` asks of it."""

    __slots__ = ("state",)

    def __init__(self, state: np.ndarray):
        self.state = state

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.uint64:
            raise ValueError("a precomputed seed state holds 4 words of 64 bits")
        return self.state


@dataclass
class HostStream:
    """The host I/Os of one job, produced in batches on demand."""

    workload: WorkloadSpec
    job: int
    region_start_bytes: int
    region_bytes: int
    seed: int
    _next_sequential_bytes: int = 0
    _next_write_bytes: int | None = None  # a mixed sequential job's writes: a position of their own
    _batches: int = 0

    @classmethod
    def for_job(cls, workload: WorkloadSpec, job: int, device_bytes: int, seed: int,
                phase_bytes: int = 0) -> "HostStream":
        """Job ``job``'s stream over fio's region; a sequential one starts ``phase_bytes`` into it
        (``clone_phase_bytes``) and wraps at its end."""
        bs = workload.bs
        start, region = job_region(workload, job, device_bytes)
        region = max(bs, region // bs * bs)
        return cls(workload, job, start, region, seed, _next_sequential_bytes=phase_bytes % region // bs * bs)

    @property
    def batches_made(self) -> int:
        return self._batches

    def next_batch(self, count: int, directions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``count`` host I/Os: (offset_bytes int64, is_write bool); ``directions``: their
        directions given (the fluid mode's stratified mix, ``fluid.exact_mix`` of ``directions()``),
        so that a sequential mix's streams follow them."""
        w = self.workload
        bs = w.bs
        is_write = self._directions(count) if directions is None else np.asarray(directions, dtype=bool)
        if w.is_random:
            rng = named_rng(self.seed, "random offsets", self.job, self._batches)
            slots = self.region_bytes // bs
            run = w.random_run_ios  # fio's randread:N: N I/Os one after the other from each random offset
            draws = rng.integers(0, slots, size=-(-count // run), dtype=np.int64)
            if run == 1:  # each draw is one I/O's slot, already below ``slots``
                offsets = self.region_start_bytes + draws * bs
            else:
                within = np.arange(count, dtype=np.int64)
                offsets = self.region_start_bytes + (draws[within // run] + within % run) % slots * bs
        else:
            offsets = self._sequential(count, is_write)
        self._batches += 1
        return offsets.astype(np.int64, copy=False), is_write

    def directions(self, count: int) -> np.ndarray:
        """Which of the next batch's ``count`` I/Os write, as ``next_batch`` draws them."""
        return self._directions(count)

    def _directions(self, count: int) -> np.ndarray:
        """Which of the next ``count`` I/Os write: a Bernoulli draw with ``rwmixread``."""
        f = self.workload.read_fraction
        if f >= 1.0:
            return np.zeros(count, dtype=bool)
        if f <= 0.0:
            return np.ones(count, dtype=bool)
        return named_rng(self.seed, "read-write mix", self.job, self._batches).random(count) >= f

    def _sequential(self, count: int, is_write: np.ndarray) -> np.ndarray:
        """Offsets of a sequential job: a mixed one's reads and writes each go on from where that
        direction left off (fio's ``last_pos`` per direction), so its writes are a stream of their own."""
        stride = self.workload.bs + self.workload.rw_skip_bytes  # fio's read:N skips N bytes (N < 0: backwards)
        if not 0.0 < self.workload.read_fraction < 1.0:
            steps = self._next_sequential_bytes + np.arange(count, dtype=np.int64) * stride
            self._next_sequential_bytes = int((self._next_sequential_bytes + count * stride) % self.region_bytes)
        else:
            if self._next_write_bytes is None:  # both directions start where the job starts
                self._next_write_bytes = self._next_sequential_bytes
            writes = np.cumsum(is_write) - 1
            reads = np.cumsum(~is_write) - 1
            steps = np.where(is_write, self._next_write_bytes + writes * stride, self._next_sequential_bytes + reads * stride)
            n_write = int(is_write.sum())
            self._next_write_bytes = int((self._next_write_bytes + n_write * stride) % self.region_bytes)
            self._next_sequential_bytes = int((self._next_sequential_bytes + (count - n_write) * stride) % self.region_bytes)
        return self.region_start_bytes + steps % self.region_bytes // SECTOR_BYTES * SECTOR_BYTES


MIX_DENOMINATOR_MAX = 100
"""Largest denominator of a read share a sample is sized to hold exactly (fio's whole percents)."""


def job_region(workload: WorkloadSpec, job: int, device_bytes):
    """Clone ``job``'s region as fio takes it, (start, bytes): from ``offset + job *
    offset_increment`` (wrapped at the device's end), ``size`` (default: the device) cut at the
    device's end. ``HostStream.for_job`` draws its offsets there; the FTL load takes the written
    range from it (``sim.drive_load``)."""
    start = (workload.offset + job * workload.offset_increment) % max(device_bytes, 1)
    return start, min(workload.size or device_bytes, device_bytes - start)


def exact_mix_size(read_fraction: float, least: int) -> int:
    """The smallest sample of at least ``least`` host I/Os in which the workload's mix is a whole
    number of I/Os (``exact_mix`` then holds it exactly): fio's ``rwmixread`` is a whole percent,
    so 70/30 takes 130 where 128 would carry 38 writes (29.7%) and let a NAND-bound mix of 24-way
    mirrored writes pass the plan's NAND bound by 0.24%. A share that is no fraction of
    denominator up to ``MIX_DENOMINATOR_MAX`` keeps ``least``."""
    if not 0.0 < read_fraction < 1.0:
        return least
    share = Fraction(read_fraction).limit_denominator(MIX_DENOMINATOR_MAX)
    if float(share) != read_fraction:
        return least
    return share.denominator * math.ceil(least / share.denominator)


def clone_phase_bytes(workload: WorkloadSpec, job: int, period_bytes: int) -> int:
    """Where clone ``job`` of a sequential job without ``offset_increment`` starts in its region:
    spread over one ``period_bytes`` (the array's data stripe), as the clones end up in a long run.

    fio starts every clone at ``offset``; in lockstep they all queue at the same member, and only
    service-time noise drifts them apart: 256 clones of 128 KiB writes at QD1 on a 10-drive RAID0
    ran at 0.16 of the drives' rate over the event mode's first 8,000 host I/Os, 0.83 over 40,000
    and 0.99 over 160,000 (a 60 s fio run moves tens of millions). The event mode measures the
    steady state, so it starts them spread; random jobs and jobs with an offset_increment are as
    fio places them."""
    if workload.is_random or workload.offset_increment or workload.numjobs < 2 or period_bytes <= 0:
        return 0
    return job * period_bytes // workload.numjobs // workload.bs * workload.bs


SAMPLE_PAGES = 2**18
"""Member pages (4 KiB) a sample of random host I/Os is sized to stay within: 1,024 I/Os of 1 MiB.
Blocks larger than that take fewer I/Os (``page_bounded_ios``): each already spans many stripes,
so fewer show every member's share, and a 1 GiB random read planned for 1,024 I/Os took 65 s and
9.7 GB on this 2-core machine (graid-gen5-raid6, md RAID6)."""
SAMPLE_IOS_MIN = 16
"""Fewest host I/Os any sample holds, however large its blocks."""


def page_bounded_ios(least: int, bs: int) -> int:
    """``least`` host I/Os of ``bs`` bytes, or fewer (never below ``SAMPLE_IOS_MIN``) where ``least``
    of them would plan more than ``SAMPLE_PAGES`` member pages."""
    return max(SAMPLE_IOS_MIN, min(least, SAMPLE_PAGES // max(1, math.ceil(bs / PAGE_BYTES))))


__all__ = ["HostStream", "named_rng", "job_region", "exact_mix_size", "page_bounded_ios", "clone_phase_bytes",
           "MIX_DENOMINATOR_MAX", "SAMPLE_PAGES", "SAMPLE_IOS_MIN"]
