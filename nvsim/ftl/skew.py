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
import re

import numpy as np

MAX_RANGES = 1 << 20
"""Ranges the per-block mass is computed on (more is slower and moves the classes by < 1%)."""
NORMAL_MAX_RANGES = 1 << 16
"""The normal's 12-fold convolution runs on fewer ranges (FFT of 12 x this many points)."""
GOLDEN_RATIO_64 = 0x61C8864680B583EB
GAUSS_ITERS = 12
KINDS = ("random", "zipf", "pareto", "normal", "gauss", "zoned", "zoned_abs")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)$", re.IGNORECASE)


def write_part(text: str) -> tuple[str, str]:
    """(kind, the write direction's parameters) of a random_distribution value; ValueError if unreadable."""
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise ValueError(f"unknown distribution {kind!r}; allowed: {', '.join(KINDS)}")
    parts = rest.split(",")
    part = parts[1] if len(parts) > 1 and parts[1].strip() else parts[0]
    return ("normal" if kind == "gauss" else kind), part.strip()


def check_distribution(text: str) -> None:
    """Raise ValueError (one line) when fio would not take ``text`` or nvsim cannot read it."""
    kind, part = write_part(text)
    if kind == "random":
        return
    if kind in ("zoned", "zoned_abs"):
        _zones(part, kind, 1 << 40)
        return
    value = _numbers(part, kind)[0]
    if kind == "zipf" and (value <= 0 or value == 1.0):
        raise ValueError(f"zipf theta must be positive and not 1, got {value}")
    if kind == "pareto" and not 0 < value < 1:
        raise ValueError(f"pareto H must be in (0, 1), got {value}")
    if kind == "normal" and not 0 <= value <= 100:
        raise ValueError(f"normal deviation must be 0 to 100 (percent of the region), got {value}")


def _numbers(part: str, kind: str) -> list[float]:
    fields = [p for p in part.rstrip("%").split(":")]
    try:
        values = [float(p) for p in fields if p.strip()]
    except ValueError:
        raise ValueError(f"{kind} takes a number and an optional centre ({kind}:X[:C]), got {part!r}") from None
    if not values or len(values) > 2 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"{kind} takes a number and an optional centre ({kind}:X[:C]), got {part!r}")
    return values


def _size_bytes(text: str) -> float:
    match = _SIZE.match(text.strip())
    if not match:
        raise ValueError(f"zoned_abs zone size {text!r} is not a size (4k, 20G, ...)")
    power = "kmgtp".find(match.group(2).lower()) + 1 if match.group(2) else 0
    return float(match.group(1)) * 1024 ** power


def _zones(part: str, kind: str, region_bytes: float) -> list[tuple[float, float]]:
    """(share of accesses, share of the region) per zone, in order, the uncovered rest last (as
    options.c ``zone_split_ddir``: a zone with no range percentage gets ``(100 - given) //
    missing`` percent)."""
    form = f"{kind} zones are ACCESS%/{'RANGE%' if kind == 'zoned' else 'SIZE'}"
    zones: list[tuple[float, float | None]] = []
    for item in filter(None, (z.strip() for z in part.split(":"))):
        access, slash, extent = item.partition("/")
        try:
            share = float(access) / 100.0
            size = None if not extent.strip() else (
                float(extent) / 100.0 if kind == "zoned" else _size_bytes(extent) / region_bytes)
        except ValueError:
            raise ValueError(f"{form}, got {item!r}") from None
        if not slash or not 0 <= share <= 1 or (size is not None and not 0 < size < math.inf):
            raise ValueError(f"{form}, got {item!r}")
        zones.append((share, size))
    if not zones or len(zones) > 256:
        raise ValueError(f"{kind} takes 1 to 256 zones, got {len(zones)}")
    if abs(sum(z[0] for z in zones) - 1.0) > 1e-6:
        raise ValueError(f"{kind} access percentages must add up to 100, got {sum(z[0] for z in zones) * 100:g}")
    missing = sum(z[1] is None for z in zones)
    given = round(sum(z[1] or 0.0 for z in zones) * 100)
    fill = 1.0 if missing == 1 and len(zones) == 1 else max(0, 100 - given) // max(missing, 1) / 100.0
    covered, kept = 0.0, []
    for share, size in zones:
        size = fill if size is None else size
        if size > 1.0 - covered + 1e-9:  # fio caps a zone at the end of the region
            size = 1.0 - covered
        if size <= 0 and share > 0:
            raise ValueError(f"{kind}: a zone of {share * 100:g}% of the accesses has no room left in the region")
        if size > 0:
            kept.append((share, size))
            covered += size
    if covered < 1.0 - 1e-9:
        kept.append((0.0, 1.0 - covered))
    return kept


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
    """Sorted per-block mass summed into classes at data shares 2^-14 .. 1/2 and the sixteenths."""
    n = block_mass.size
    ordered = np.sort(block_mass)[::-1]
    cumulative = np.concatenate(([0.0], np.cumsum(ordered)))
    shares = sorted({2.0 ** -k for k in range(1, 15)} | {j / 16 for j in range(1, 16)})
    edges = sorted({0, n} | {int(round(s * n)) for s in shares})
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
        zones = sorted(_zones(part, kind, region_bytes), key=lambda z: -z[0] / z[1])
        return tuple(zones) if len(zones) > 1 else ()
    value = _numbers(part, kind)[0]
    ranges = max(2, int(region_bytes // max(range_bytes, 1)))
    if kind == "normal":
        return _classes(_scatter(normal_mass(_resolution(ranges, NORMAL_MAX_RANGES), value)))
    n = _resolution(ranges, MAX_RANGES)
    mass = zipf_mass(n, value) if kind == "zipf" else pareto_mass(n, value)
    return _classes(_scatter(mass))


__all__ = ["write_classes", "check_distribution", "write_part", "zipf_mass", "pareto_mass", "normal_mass",
           "MAX_RANGES", "KINDS"]
