"""A drive model as the simulator prices member I/Os on it: NAND pool time, link time, fixed latency.

``DriveTiming`` wraps one SSD model (nvsim.ssd) on its PCIe link (nvsim.links): the unit time of a
member I/O at its die pool, the busy time of the link's data direction, and the controller's fixed
latency, per distinct (size, direction) of member I/O.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..catalog import Catalog
from ..constants import PAGE_BYTES
from ..links import drive_link
from ..pcie import PcieLink
from ..ssd.derive import derive_ssd_parameters
from ..ssd.latency import NAND_SERVICE_CV  # noqa: F401  (re-exported: sim.system names it)
from ..ssd.model import SsdModel
from ..stripe.planner import MemberIOPlan
from .memo import HELD_MEMBER_IOS, MEMO, PER_CATALOG_LIMIT, Memo

class DriveTiming:
    """Per-I/O service of one drive model: unit time, link time, fixed controller latency.

    The die pool (nvsim.ssd) is served by ``units`` parallel servers: the NAND dies, but no more
    than the reads the controller can have in flight within half the QD1 read latency
    (``read_service_iops x read_latency / 2``), so that one read's unit time stays a part of its
    QD1 latency on drives whose controller, not their dies, sets the random-read rate. The pool's
    capacity (units / unit time) is the SSD model's either way.

    A member I/O of several 4 KiB pages is spread over the units: its unit time is charged per page
    (the datasheet's random-read rate is per 4 KiB page), and the controller serves the pages in
    parallel -- consecutive IUs sit on different dies (the FTL's write frontier stripes them), and
    the pages of one IU are read in one page operation. It occupies ``pieces_of`` units at once,
    each for its unit time over their count: the pool's load is unchanged, and a large I/O at a
    shallow queue takes its share of the pool's bandwidth instead of one unit's (a 512 KiB read on
    one unit took 1.8 ms; a 16 KiB read on a 16 KiB-IU QLC drive four 4 KiB reads' time).
    """

    def __init__(self, ssd: SsdModel, link: PcieLink):
        p = ssd.params
        self.ssd, self.link = ssd, link
        self.units = int(max(1, min(p.nand_dies, p.read_service_iops * p.read_latency_us * 1e-6 / 2)))
        unit_read_4k = ssd.read_pool_s(PAGE_BYTES, True) * self.units
        up, _ = link.nvme_io_load(PAGE_BYTES, True)
        self.read_fixed_s = max(0.0, p.read_latency_us * 1e-6 - unit_read_4k - up / link.usable_bytes_per_s())
        self.write_fixed_s = p.write_latency_us * 1e-6
        self.suspend_unit_s = ssd.suspend_pool_s * self.units
        self.erasing = p.erase_share
        self.erase_step_unit_s = ssd.erase_step_pool_s * self.units
        self._cache: dict[tuple, tuple[float, float]] = {}
        self._plans: dict[tuple, tuple] = {}
        self._held = 0  # member I/Os of the plans in ``_plans`` (bounded as the memo's per-batch tables)

    def unit_s(self, length_bytes: int, is_write: bool, random: bool) -> float:
        """Unit time of one member I/O (reads before any program-suspend cost)."""
        if is_write:
            return self.ssd.write_pool_s(length_bytes, random) * self.units
        return self.ssd.read_pool_s(length_bytes, random) * self.units

    def pieces_of(self, lengths: np.ndarray) -> np.ndarray:
        """Units each member I/O occupies at once: its 4 KiB pages, at most the pool's units."""
        # np.clip's exactly (its scalar bounds' checks cost more than the work on a batch)
        return np.minimum(np.maximum(-(-np.asarray(lengths, dtype=np.int64) // PAGE_BYTES), 1), self.units)

    def link_s(self, length_bytes: int, is_write: bool) -> float:
        """Seconds the data direction of the drive link is busy (reads: to host; writes: to drive)."""
        return data_direction_s(self.link, length_bytes, is_write, self.link.usable_bytes_per_s())

    def service_of(self, plan: MemberIOPlan, random: bool, memo: Memo = MEMO) -> tuple[np.ndarray, np.ndarray]:
        """``service`` of a plan's member I/Os, remembered for the last plans seen (the plan's
        distinct sizes from ``memo``: every drive model of a sweep prices the same plans)."""
        key = (id(plan), random)
        hit = self._plans.get(key)
        if hit is None or hit[0] is not plan:
            if len(self._plans) > 1024 or self._held > HELD_MEMBER_IOS:
                self._plans.clear()
                self._held = 0
            self._held += len(plan.length_bytes)
            distinct = memo.recall(memo.distinct, id(plan), distinct_sizes, plan.length_bytes, plan.is_write, owner=plan,
                                   weigh=lambda found: len(found[1]))
            hit = self._plans[key] = (plan, self.service(plan.length_bytes, plan.is_write, random, distinct))
        return hit[1]

    def service(self, lengths: np.ndarray, is_write: np.ndarray, random: bool,
                distinct: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(unit seconds, link seconds) of many member I/Os, through the distinct (size, direction)
        pairs (``distinct``: those pairs and the inverse index, when already known)."""
        if distinct is None:
            distinct = distinct_sizes(lengths, is_write)
        uniq, inverse = distinct
        pairs = []
        for k in uniq.tolist():
            key = (k, random)
            hit = self._cache.get(key)
            if hit is None:
                hit = self._cache[key] = (self.unit_s(k // 2, bool(k % 2), random), self.link_s(k // 2, bool(k % 2)))
            pairs.append(hit)
        table = np.array(pairs).reshape(-1, 2)
        return table[:, 0].take(inverse), table[:, 1].take(inverse)  # 1-D takes: a 2-D fancy index costs more


class UplinkTiming:
    """A switch's uplink as member I/Os load it: each member I/O's TLPs cross it as a link of its
    own (its width's Ack and UpdateFC cadence, ``PcieLink.nvme_io_load``) at the rate the switch
    passes (``nvsim.links.switch_bytes_per_s``); its data direction, as a drive link's."""

    def __init__(self, link: PcieLink, bytes_per_s: float):
        self.link, self.bytes_per_s = link, bytes_per_s
        self._cache: dict[int, float] = {}

    def data_s(self, length_bytes: int, is_write: bool) -> float:
        """Seconds the uplink's data direction is busy with one member I/O (reads: to host)."""
        return data_direction_s(self.link, length_bytes, is_write, self.bytes_per_s)

    def op_s(self, lengths: np.ndarray, is_write: np.ndarray) -> np.ndarray:
        """``data_s`` of many member I/Os, through their distinct (size, direction) pairs."""
        uniq, inverse = distinct_sizes(lengths, is_write)
        for k in uniq.tolist():
            if k not in self._cache:
                self._cache[k] = self.data_s(k // 2, bool(k % 2))
        return np.array([self._cache[k] for k in uniq.tolist()]).take(inverse)


def data_direction_s(link: PcieLink, length_bytes: int, is_write: bool, bytes_per_s: float) -> float:
    """Seconds one NVMe I/O of ``length_bytes`` keeps ``link``'s data direction busy (reads: to
    the host; writes: to the drive) when that direction moves ``bytes_per_s``: the drive link at its
    own usable rate (``DriveTiming.link_s``), a switch's uplink at the rate the switch passes."""
    up, down = link.nvme_io_load(length_bytes, not is_write)
    return (down if is_write else up) / bytes_per_s


FEW_DISTINCT = 32
"""Most distinct member I/O sizes the compiled pass tells apart; more go to ``np.unique``."""


def distinct_sizes(lengths: np.ndarray, is_write: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (size, direction) pairs of member I/Os, coded size x 2 + is_write, and the
    inverse: ``np.unique(keys, return_inverse=True)`` exactly. A batch holds a few sizes only, so a
    compiled pass over a short sorted list replaces the sort of every key (hypothesis-tested equal)."""
    keys = lengths * np.int64(2) + is_write  # int64 (lengths are), no temporary casts
    values, inverse, count = _few_distinct(keys, FEW_DISTINCT)
    if count > FEW_DISTINCT:
        return np.unique(keys, return_inverse=True)
    return values[:count], inverse


@nb.njit(nogil=True, cache=True)
def _few_distinct(keys: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The sorted distinct keys (at most ``limit``; count ``limit + 1`` means more) and each key's
    index among them."""
    values = np.empty(limit, np.int64)
    count = 0
    for key in keys:
        slot = 0
        while slot < count and values[slot] < key:
            slot += 1
        if slot < count and values[slot] == key:
            continue
        if count == limit:
            return values, np.empty(0, np.intp), limit + 1
        for moved in range(count, slot, -1):  # shift up by hand: a slice assignment compiles NumPy's
            values[moved] = values[moved - 1]  # shape-mismatch message (string formatting), seconds
        values[slot] = key
        count += 1
    inverse = np.empty(keys.size, np.intp)
    for i, key in enumerate(keys):
        slot = 0
        while values[slot] != key:
            slot += 1
        inverse[i] = slot
    return values, inverse, count



def drive_timing(catalog: Catalog, drive: str, namespace_bytes: int | None, platform: str,
                 memo: Memo = MEMO) -> DriveTiming:
    """One drive model on one platform's bays (derived once per catalog: sweeps build thousands)."""
    return memo.recall(memo.drive_timings, (id(catalog), drive, namespace_bytes, platform), _drive_timing, catalog,
                       drive, namespace_bytes, platform, owner=catalog, limit=PER_CATALOG_LIMIT)


def _drive_timing(catalog: Catalog, drive: str, namespace_bytes: int | None, platform: str) -> DriveTiming:
    spec = catalog.drives[drive]
    link = drive_link(spec, catalog.platforms[platform], catalog)
    return DriveTiming(SsdModel(derive_ssd_parameters(spec), namespace_bytes), link)


__all__ = ["DriveTiming", "UplinkTiming", "drive_timing", "distinct_sizes", "NAND_SERVICE_CV"]
