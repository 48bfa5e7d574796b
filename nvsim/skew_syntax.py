"""fio's random_distribution option as text: which distribution, its numbers, its zones.

Pure parsing (no NumPy), so that ``specs`` can check a workload's ``random_distribution`` at load
in one line; ``nvsim.ftl.skew`` turns the parsed value into hotness classes. fio's forms
(HOWTO, options.c): ``random``, ``zipf:THETA[:CENTRE]``, ``pareto:H[:CENTRE]``,
``normal:DEV[:CENTRE]`` (alias ``gauss``), ``zoned:A/R:...`` and ``zoned_abs:A/SIZE:...``; a
comma gives per-direction parts (read,write[,trim]), writes taking the second part when there is one.
"""

from __future__ import annotations

import math
import re

KINDS = ("random", "zipf", "pareto", "normal", "gauss", "zoned", "zoned_abs")
ZIPF_THETA_MAX = 20.0
"""Largest zipf theta taken: past a few, rank 0 takes all but nothing of the accesses (0.5^theta),
and fio's zipf constants ((n/2)^(theta-1) over 2^52 blocks) pass a double's range near 20."""
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
        zones(part, kind, 1 << 40)
        return
    value = _numbers(part, kind)[0]
    if kind == "zipf" and not (0 < value <= ZIPF_THETA_MAX and value != 1.0):
        raise ValueError(f"zipf theta must be in (0, {ZIPF_THETA_MAX:g}] and not 1, got {value:g}")
    if kind == "pareto" and not 0 < value < 1:
        raise ValueError(f"pareto H must be in (0, 1), got {value}")
    if kind == "normal" and not 0 < value <= 100:
        raise ValueError(f"normal deviation must be above 0 and at most 100 (percent of the region), got {value:g}")


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


def zones(part: str, kind: str, region_bytes: float) -> list[tuple[float, float]]:
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


def number_of(part: str, kind: str) -> float:
    """The distribution's parameter (theta, H or the deviation) of a checked part."""
    return _numbers(part, kind)[0]


__all__ = ["KINDS", "write_part", "check_distribution", "number_of", "zones"]
