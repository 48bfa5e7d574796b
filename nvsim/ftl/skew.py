"""fio's random_distribution as hotness classes of the written data (for the FTL's WAF).

fio draws a random offset's block index as follows (fio 3.x sources, read for this module):

* ``zipf:THETA`` (lib/zipf.c ``zipf_next``): Gray et al.'s quick zipf over ``n`` ranges: index 0
  when ``u zetan < 1``, 1 when ``u zetan < 1 + 0.5^theta``, else
  ``floor(n (eta u - eta + 1)^(1/(1-theta)))``, ``eta = (1 - (2/n)^(1-theta)) / (1 - zeta2/zetan)``;
* ``pareto:H`` (``pareto_next``): ``floor((n - 1) u^p)``, ``p = log(H) / log(1 - H)``;
* ``normal:DEV`` (lib/gauss.c ``gauss_next``): the mean (rounded up) of 12 integers uniform on
  ``0..n``, plus a uniform deviation of width ``ceil(n DEV / 100)`` (at most n/2);
* then the index is scattered: ``(index * 0x61C8864680B583EB mod 2^64 + offset) mod n``
  (hash.h ``__hash_u64``), so ranks that collide share a block and some blocks are never hit;
* ``zoned:A/R:...`` and ``zoned_abs:A/SIZE:...`` (io_u.c): A% of the accesses uniform over the
  next R% (or SIZE bytes) of the region; the part no zone covers is not accessed.

``n`` = region / the job's smallest block size (filesetup.c ``__init_rand_distribution``). The
per-block mass is computed exactly from those inverse transforms (no sampling) on
``min(n, MAX_RANGES)`` ranges, sorted hottest first and summed into classes whose data shares are
the powers of two from 2^-14 and the sixteenths: the classes the FTL's multi-class WAF takes
(nvsim.ftl.load). A comma-separated value gives read,write[,trim] parts; writes take the second
part when there is one (fio's per-direction form).
"""

from __future__ import annotations

import math

import numpy as np

from ..skew_syntax import KINDS, check_distribution, number_of, write_part, zones

MAX_RANGES = 1 << 20
"""Ranges the per-block mass is computed on (more is slower and moves the classes by < 1%)."""
NORMAL_MAX_RANGES = 1 << 16
"""The normal's 12-fold convolution runs on fewer ranges (FFT of 12 x this many points)."""
GOLDEN_RATIO_64 = 0x61C8864680B583EB
GAUSS_ITERS = 12
def _scatter(mass: np.ndarray) -> np.ndarray:
    """fio's hash: rank i lands on block (i x GOLDEN_RATIO_64 mod 2^64) mod n; colliding ranks add."""
    n = mass.size
    with np.errstate(over="ignore"):
        blocks = (np.arange(n, dtype=np.uint64) * np.uint64(GOLDEN_RATIO_64)) % np.uint64(n)
    return np.bincount(blocks.astype(np.int64), weights=mass, minlength=n)


def _interval_mass(bounds: np.ndarray, low: float) -> np.ndarray:
    """Mass of each rank from the u at which it starts (``bounds``, increasing): u in [low, 1]."""
    clipped = np.clip(np.nan_to_num(bounds, nan=1.0, posinf=1.0, neginf=0.0), low, 1.0)
    return np.diff(clipped)


def zipf_mass(n: int, theta: float) -> np.ndarray:
    """Probability of each rank 0..n-1 under fio's zipf_next (before the hash)."""
    zetan = float(np.sum(np.arange(1, min(n, 10_000_000) + 1, dtype=float) ** -theta))
    zeta2 = 1.0 + 0.5 ** theta
    if n <= 2:  # zetan <= zeta2: fio's draw is rank 1 or 2 (rand_z below 1 or below zeta2), eta unused
        return np.array([1.0, 0.5 ** theta][:n]) / zetan
    eta = (1.0 - (2.0 / n) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    y = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        u_of_y = ((y / n) ** (1.0 - theta) - 1.0 + eta) / eta
    mass = _interval_mass(u_of_y, zeta2 / zetan)
    mass[0] += 1.0 / zetan
    mass[1 % n] += 0.5 ** theta / zetan
    return mass


def pareto_mass(n: int, h: float) -> np.ndarray:
    """Probability of each rank under fio's pareto_next: floor((n-1) u^p), p = log h / log(1-h)."""
    p = math.log(h) / math.log(1.0 - h)
    y = np.arange(n + 1, dtype=float)
    mass = _interval_mass((y / max(n - 1, 1)) ** (1.0 / p), 0.0)
    mass[-1] += max(0.0, 1.0 - mass.sum())
    return mass


def normal_mass(n: int, dev_percent: float) -> np.ndarray:
    """Probability of each rank under fio's gauss_next: mean of 12 uniforms on 0..n, rounded up,
    plus a uniform deviation of ceil(n dev / 100) (at most n / 2) centred on 0, kept in range."""
    one = np.full(n + 1, 1.0 / (n + 1))
    size = 1 << int(math.ceil(math.log2(GAUSS_ITERS * n + 1)))
    total = np.clip(np.fft.irfft(np.fft.rfft(one, size) ** GAUSS_ITERS, size)[:GAUSS_ITERS * n + 1], 0.0, None)
    ranks = np.bincount((np.arange(total.size) + GAUSS_ITERS - 1) // GAUSS_ITERS, weights=total)
    stddev = min(math.ceil(n * dev_percent / 100.0), n // 2) if dev_percent else 0
    if stddev:
        ranks = np.convolve(ranks, np.full(stddev, 1.0 / stddev))[stddev // 2: stddev // 2 + ranks.size]
    ranks = ranks[:n].copy()
    return ranks / ranks.sum()


def _classes(block_mass: np.ndarray) -> tuple[tuple[float, float], ...]:
    """Sorted per-block mass summed into classes at data shares 2^-14 .. 1/2 and the sixteenths;
    the blocks fio's draws never reach (the hash's collisions leave some) are a class of their own,
    with no writes: static data, which greedy cleaning sets aside (nvsim.ftl.load)."""
    n = block_mass.size
    ordered = np.sort(block_mass)[::-1]
    cumulative = np.concatenate(([0.0], np.cumsum(ordered)))
    shares = sorted({2.0 ** -k for k in range(1, 15)} | {j / 16 for j in range(1, 16)})
    reached = int(np.count_nonzero(ordered > 0))
    edges = sorted({0, n, reached} | {int(round(s * n)) for s in shares if s * n < reached})
    classes = []
    for lo, hi in zip(edges, edges[1:]):
        if hi > lo:
            classes.append((float(cumulative[hi] - cumulative[lo]), (hi - lo) / n))
    total = sum(c[0] for c in classes)
    return tuple((w / total, d) for w, d in classes)


def _resolution(ranges: int, most: int) -> int:
    """Ranges to compute on: all of them up to ``most``; beyond, ``most`` when fio's n is a power
    of two (the hash is then a bijection, no block is missed) and ``most - 1`` when it is not (the
    hash then maps ranks onto blocks like a random function, ~1/e of the blocks never hit)."""
    if ranges <= most:
        return ranges
    return most if ranges & (ranges - 1) == 0 else most - 1


def write_classes(text: str, region_bytes: float, range_bytes: int) -> tuple[tuple[float, float], ...]:
    """(share of writes, share of the region) per hotness class, hottest first; () for uniform."""
    kind, part = write_part(text)
    if kind == "random":
        return ()
    if kind in ("zoned", "zoned_abs"):
        classes = sorted(zones(part, kind, region_bytes), key=lambda z: -z[0] / z[1])
        return tuple(classes) if len(classes) > 1 else ()
    value = number_of(part, kind)
    ranges = max(2, int(region_bytes // max(range_bytes, 1)))
    if kind == "normal":
        return _classes(_scatter(normal_mass(_resolution(ranges, NORMAL_MAX_RANGES), value)))
    n = _resolution(ranges, MAX_RANGES)
    mass = zipf_mass(n, value) if kind == "zipf" else pareto_mass(n, value)
    return _classes(_scatter(mass))


__all__ = ["write_classes", "check_distribution", "write_part", "zipf_mass", "pareto_mass", "normal_mass",
           "MAX_RANGES", "KINDS"]
