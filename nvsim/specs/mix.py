"""A job's mix of block sizes in fio's own syntax: ``bssplit`` (SIZE/PCT:SIZE/PCT[,write split[,trim
split]]) and ``bsrange`` (LOW-HIGH[,write range]), as fio reads and draws them.

Shared by the scenario schema (``WorkloadSpec.bssplit``/``bsrange`` written in a YAML) and the fio
reader (nvsim.fio.jobfile), which hands in its own size parser (fio's kb_base rules) and turns a
``ValueError`` into its one-line error naming the file and line. Pure functions, nothing of the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_MIX_PARTS = 8
"""Most parts a mix is simulated as: a wider mix (``bsrange=16k-1m`` is 64 sizes) is binned into
this many parts of equal share (each the I/O-weighted mean size, a whole number of 512-byte
sectors), which keeps the event mode's work to 8 runs."""

MAX_LISTED_SIZES = 2**16
"""Most sizes of a ``bsrange`` listed one by one (512-32m at 512 B steps, about 8 MB of list); a
wider range (``bsrange=512-1t`` is 2^31 sizes) is given directly as the ``MAX_MIX_PARTS`` bins the
mix is simulated as (``range_bins``), never enumerated."""

MAX_MIX_BYTES = 2**64
"""Largest block size a mix takes (the bound every size field has)."""

_READS = {"read", "randread"}
_WRITES = {"write", "randwrite"}

SizeParser = Callable[[str], int]
"""Text of one size -> bytes (a bad size raises ``ValueError`` or the caller's own one-line error)."""


@dataclass(frozen=True)
class MixPart:
    """One part of a mix: a block size, its share of the I/Os (0..1], and its direction ("read",
    "write", or None: the job's rw)."""

    bs: int
    share: float
    rw: str | None = None


Split = list[list[tuple[int, float]]]
"""(size, share) per direction: read, write, trim."""


def parse_bssplit(value: str, size_of: SizeParser, bs_bytes: tuple[int, int, int] | None = None) -> Split:
    """fio's bssplit=SIZE/PCT:SIZE/PCT[,write split[,trim split]] as fio reads and draws it
    (options.c ``bssplit_ddir``, io_u.c ``get_next_buflen``): a percentage is read as a whole
    number (``atoi``: 50.5 is 50; 0 counts as not given); sizes without one share what the others
    leave, each ``(100 - given) // missing``; the sizes are sorted by percentage (ascending, the
    written order among equals) and a draw past their sum takes the last, so what is left of 100
    goes to the largest share (4k/50:64k/30 draws 4 KiB 70% of the time). A direction without a
    split takes the last one given (``str_split_parse``). An empty split (``4k/70:64k/30,``) leaves
    its direction at the job's bs, ``bs_bytes`` (read, write, trim), as fio's ``split_parse_ddir``
    reads no entry and ``bssplit_ddir`` sets nothing; without ``bs_bytes`` it is refused."""
    if not value.strip():
        raise ValueError(f"needs at least one SIZE/PERCENT entry (e.g. 4k/70:64k/30), got {value!r}")
    directions = value.split(",")
    if len(directions) > 3:
        raise ValueError(f"takes at most three splits (read,write,trim), got {value!r}")
    directions += [directions[-1]] * (3 - len(directions))
    return [_direction_split(text, index, value, size_of, bs_bytes) for index, text in enumerate(directions)]


def _direction_split(text: str, index: int, value: str, size_of: SizeParser,
                     bs_bytes: tuple[int, int, int] | None) -> list[tuple[int, float]]:
    """(size, share) of one direction's part of a bssplit (``parse_bssplit``)."""
    if not text.strip() and bs_bytes is not None:  # fio: no entry, the direction keeps the job's bs
        return [(bs_bytes[index], 1.0)]
    if not text.strip():
        direction = ("read", "write", "trim")[index]
        raise ValueError(f"the {direction} split is empty in {value!r} (fio then uses the job's bs for it; in a "
                         f"scenario bs is the mix's mean); write it out, e.g. 4k/100, or leave out its comma")
    sizes, percents = [], []
    for item in (part for part in text.split(":") if part.strip()):
        size_text, _, pct_text = item.strip().partition("/")
        size = size_of(size_text)
        if size <= 0 or size % 512:
            raise ValueError(f"block size {size_text!r} must be a positive multiple of 512 bytes (got {value!r})")
        if size > MAX_MIX_BYTES:
            raise ValueError(f"block size {size_text!r} must be at most 2^64 bytes (got {value!r})")
        if pct_text and not re.fullmatch(r"\d+(\.\d+)?", pct_text):
            raise ValueError(f"expected SIZE/PERCENT entries separated by ':', got {item!r}")
        sizes.append(size)
        whole = int(float(pct_text)) if pct_text else 0  # atoi: the whole part
        percents.append(whole or None)  # fio: 0 is not given
    return _fio_shares(sizes, percents, text)


def _fio_shares(sizes: list[int], percents: list[int | None], text: str) -> list[tuple[int, float]]:
    """(size, share of the I/Os) of one direction's split, as fio's draw gives them (``parse_bssplit``)."""
    given = sum(p for p in percents if p is not None)
    missing = sum(p is None for p in percents)
    if not sizes or given > 100:
        raise ValueError(f"the percentages must add up to at most 100, got {text!r}")
    if len(sizes) == 1:  # one size: every I/O (fio returns it before any draw, min_bs == max_bs)
        return [(sizes[0], 1.0)]
    filled = [p if p is not None else (100 - given) // missing for p in percents]
    if sum(filled) <= 0:
        raise ValueError(f"the percentages must not all be 0, got {text!r}")
    last = max(range(len(sizes)), key=lambda i: (filled[i], i))  # fio's stable ascending sort: the last of the largest
    shares = [filled[i] / 100.0 for i in range(len(sizes))]
    shares[last] += (100 - sum(filled)) / 100.0  # a draw past the sum takes the last size sorted
    return [(size, share) for size, share in zip(sizes, shares) if share > 0]


def parse_bsrange(value: str, size_of: SizeParser) -> Split:
    """fio's bsrange=LOW-HIGH (or LOW:HIGH)[,write range], as fio's ``get_next_buflen`` (io_u.c)
    draws it: LOW + HIGH x u (u uniform in [0, 1)), rounded down to a multiple of LOW, at most HIGH
    (``bsrange_sizes``)."""
    out: Split = []
    for text in value.split(",")[:3]:
        match = re.fullmatch(r"\s*([^-:\s]+)\s*[-:]\s*([^-:\s]+)\s*", text)
        if not match:
            raise ValueError(f"expected LOW-HIGH (or LOW:HIGH) sizes, got {text!r}")
        low, high = (size_of(g) for g in match.groups())
        if low <= 0 or low % 512 or high < low:
            raise ValueError(f"LOW must be a positive multiple of 512 bytes and HIGH at least LOW, got {text!r}")
        if high > MAX_MIX_BYTES:
            raise ValueError(f"HIGH must be at most 2^64 bytes, got {text!r}")
        if high % low and high % 512:
            raise ValueError(f"HIGH must be a multiple of 512 bytes (fio issues HIGH itself when it is not a "
                             f"multiple of LOW), got {text!r}")
        out.append(bsrange_sizes(low, high))
    return out + [out[-1]] * (3 - len(out))


def bsrange_sizes(low: int, high: int) -> list[tuple[int, float]]:
    """(size, share) of fio's draw LOW + floor(HIGH x u), rounded down to a multiple of LOW and
    capped at HIGH: the m = HIGH // LOW multiples LOW .. m LOW take LOW / HIGH each (a whole LOW of
    the draw's HIGH-long range), and HIGH the rest, (HIGH - m LOW) / HIGH, where HIGH is not a
    multiple of LOW (bsrange=4k-16k: 4, 8, 12, 16 KiB, a quarter each; 4k-10k: 4 and 8 KiB, 0.4
    each, and 10 KiB, 0.2). Past ``MAX_LISTED_SIZES`` multiples they are given as their bins."""
    count = high // low
    if count > MAX_LISTED_SIZES:
        sizes = [(size, share * count * low / high) for size, share in range_bins(low, count)]
    else:
        sizes = [(low * k, low / high) for k in range(1, count + 1)]
    rest = high - count * low
    return sizes + ([(high, rest / high)] if rest else [])


def range_bins(low: int, count: int) -> list[tuple[int, float]]:
    """The sizes LOW, 2 LOW, ..., count x LOW, equally likely, as ``nvsim.workload.mix.binned`` bins them,
    without listing them: bin b holds the multiples k with b/MAX_MIX_PARTS < k/count <=
    (b+1)/MAX_MIX_PARTS, its share their count over ``count``, its size their mean (whole 512-byte sectors)."""
    bins = []
    for b in range(MAX_MIX_PARTS):
        first, last = b * count // MAX_MIX_PARTS + 1, (b + 1) * count // MAX_MIX_PARTS
        if last >= first:
            mean = low * (first + last) / 2
            bins.append((max(512, int(round(mean / 512)) * 512), (last - first + 1) / count))
    return bins


def block_size_mix(per_direction: Split, rw: str, rwmixread: int) -> tuple[MixPart, ...]:
    """The mix for the directions ``rw`` uses: one part per (size, direction); the parts carry no
    direction when every direction used has the same split."""
    read_share = 1.0 if rw in _READS else 0.0 if rw in _WRITES else rwmixread / 100.0
    used = [(d, share) for d, share in (("read", read_share), ("write", 1.0 - read_share)) if share > 0]
    splits = [per_direction[0 if d == "read" else 1] for d, _ in used]
    if len({tuple(split) for split in splits}) == 1:
        return tuple(MixPart(size, share) for size, share in splits[0])
    return tuple(MixPart(size, share * dshare, d) for (d, dshare), split in zip(used, splits) for size, share in split)


def mean_size(parts: tuple[MixPart, ...]) -> int:
    """The mix's mean I/O size in whole 512-byte sectors: the job's ``bs`` where one size stands for it (rate in bytes)."""
    total = sum(p.share for p in parts)
    return max(512, int(round(sum(p.bs * p.share for p in parts) / total / 512)) * 512)


def is_a_mix(parts: tuple[MixPart, ...]) -> bool:
    """Whether the parts are a mix (more than one, or a direction of their own), not one size."""
    return len(parts) > 1 or parts[0].rw is not None


def direction_sizes(parts: tuple[MixPart, ...] | None, bs: int, direction: int) -> tuple[int, float]:
    """The smallest and the (exact) mean I/O size of a direction (0 read, 1 write, 2 trim): its parts
    of the mix and those of the job's rw; no mix, or none for it: ``bs`` twice. fio's rate caps turn on
    them (``nvsim.fio.jobfile._cap_iops``)."""
    own = [p for p in parts or () if p.rw in (None, ("read", "write", "trim")[direction])]
    if not own:
        return bs, float(bs)
    return min(p.bs for p in own), sum(p.bs * p.share for p in own) / sum(p.share for p in own)


__all__ = ["MixPart", "MAX_MIX_PARTS", "MAX_LISTED_SIZES", "parse_bssplit", "parse_bsrange", "bsrange_sizes", "range_bins",
           "block_size_mix", "mean_size", "is_a_mix", "direction_sizes"]
