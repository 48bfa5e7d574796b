"""What the host's writes do to a drive's FTL beyond their rate: hotness, trims, drive state.

The drive model (nvsim.ssd.model) prices a random write at the greedy WAF of the namespace's spare
factor, which assumes uniform writes over all the data of a drive in steady state. ``FtlLoad``
states where that assumption is changed, each input with its physical meaning:

* ``active_fraction``: the share of the namespace's data the writes reach (the workload's region;
  1: all of it). The rest, never rewritten after the fill, settles into full blocks greedy never
  cleans, so the written data sees the whole spare: ``Sf' = Sf / (1 - (1 - r)(1 - Sf))``
  (``spare_factor_active_range``; SNIA PTS's active range).
* ``write_classes``: (share of writes, share of the data) per hotness class, hottest first (fio's
  random_distribution, nvsim.ftl.skew). Classes with no writes (fio's zones of 0%, blocks its hash
  never reaches) are static data as above; the written ones take Desnoyers' one-frontier
  multi-class model at the spare of their own data (``waf_classes_greedy_desnoyers2012``): greedy
  without hot/cold separation matches it in the page simulation (docs/models/ftl.md), and skew
  among written data *raises* WAF (hot and cold pages share blocks, so cold pages are copied again
  and again); the page simulation shows it too (greedy, 80% of writes
  to 20% of data at Sf 0.2: 3.03 against 2.69 uniform). B. Van Houdt, "On the necessity of hot and
  cold data identification to reduce the write amplification in flash-based SSDs", Performance
  Evaluation (2014), doi:10.1016/j.peva.2014.08.003, compares such single-frontier cleaning
  with hot/cold separation, which drives are not modelled as doing.
* ``deallocated_fraction``: the share of the written region's data deallocated (NVMe Dataset
  Management, fio's trims) and not yet rewritten: it holds no valid data, so it joins the spare
  of the active data: ``Sf'' = 1 - (1 - Sf')(1 - d)``.
* ``fresh``: a fresh (secure-erased, never filled) drive writes into free blocks with no garbage
  collection, WAF 1, until the NAND's free blocks are consumed (``fresh_free_bytes``); steady state
  (the default) is the drive after preconditioning.

The default load is today's model, bit for bit: ``waf_random`` returns
``waf_greedy_desnoyers2012(spare_factor)`` itself; so does a region that covers the namespace.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..specs.workload import DRIVE_STATES
from .closed_form import spare_factor_active_range, waf_classes_greedy_desnoyers2012, waf_greedy_desnoyers2012


@dataclass(frozen=True)
class FtlLoad:
    """The FTL-relevant shape of the writes a drive receives (defaults: uniform over the whole
    namespace, steady, no trims)."""

    write_classes: tuple[tuple[float, float], ...] = ()
    deallocated_fraction: float = 0.0
    fresh: bool = False
    active_fraction: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.deallocated_fraction < 1.0:
            raise ValueError(f"deallocated_fraction must be in [0, 1), got {self.deallocated_fraction}")
        if not 0.0 < self.active_fraction <= 1.0:
            raise ValueError(f"active_fraction must be in (0, 1], got {self.active_fraction}")

    @property
    def is_default(self) -> bool:
        return (not self.write_classes and self.deallocated_fraction == 0.0 and not self.fresh
                and self.active_fraction == 1.0)

    def spare_factor(self, spare_factor: float) -> float:
        """The spare factor the written data sees: the data outside the written region is static
        (greedy never cleans its blocks), and the region's deallocated data holds no valid pages."""
        spare_factor = spare_factor_active_range(spare_factor, self.active_fraction)
        if self.deallocated_fraction == 0.0:
            return spare_factor
        return 1.0 - (1.0 - spare_factor) * (1.0 - self.deallocated_fraction)

    def waf_random(self, spare_factor: float) -> float:
        """GC write amplification of random writes under this load (fresh: 1, no GC yet)."""
        if self.fresh:
            return 1.0
        spare = self.spare_factor(spare_factor)
        if not self.write_classes:
            return waf_greedy_desnoyers2012(spare)
        writes = [w for w, _ in self.write_classes]
        data = [d for _, d in self.write_classes]
        return waf_classes_greedy_desnoyers2012(spare, writes, data)


def fresh_free_bytes(raw_nand_bytes: float, valid_bytes: float = 0.0) -> float:
    """NAND bytes a fresh drive programs before it must garbage-collect: its free blocks."""
    return max(0.0, raw_nand_bytes - valid_bytes)


def steady_deallocated_fraction(trim_rate: float, write_rate: float) -> float:
    """Share of a region deallocated in steady state when trims and writes hit it uniformly at
    random: a block is deallocated when its last command was a trim, probability t / (t + w)."""
    total = trim_rate + write_rate
    return trim_rate / total if total > 0 else 0.0


__all__ = ["FtlLoad", "DRIVE_STATES", "fresh_free_bytes", "steady_deallocated_fraction"]
