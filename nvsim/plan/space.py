"""The candidates of a plan and its first stage, the exact filters, over NumPy arrays.

Every candidate is one point of the search space (platform, drive, count, RAID level, strip,
engine, overprovisioning, hot spares), held as index arrays. ``Verdicts`` records for each the
first requirement that ruled it out: the stage, what was achieved against what was asked, and the
limiting resource. A stage only ever rejects candidates still alive, so each counts its own prunes.
The exact filters are rules that hold for every set-up: engine and RAID level compatibility, the
drives a level needs, bays, PCIe lanes and slots, rack units, usable capacity and price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..catalog import Catalog
from ..errors import InputError
from ..raid import MIN_DRIVES
from ..specs import SECTOR_BYTES
from .spec import NOT_PRODUCTS, PlanSpec, needs_power, needs_prices

STAGES = ("alive", "filters", "bounds", "fluid", "event", "ranking")
"""Where a candidate was ruled out (index = code; 0: still alive)."""
NEAR_COPIES = 2
"""RAID10's copies in every candidate (md's default near=2)."""


@dataclass(frozen=True)
class Axes:
    """The search space's values per axis (names resolved against the catalog)."""

    platforms: tuple[str, ...]
    drives: tuple[str, ...]
    counts: tuple[int, ...]
    levels: tuple[int, ...]
    strips: tuple[int, ...]
    engines: tuple[str, ...]
    overprovisioning: tuple[float, ...]
    spares: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(len(v) for v in (self.platforms, self.drives, self.counts, self.levels, self.strips,
                                          self.engines, self.overprovisioning, self.spares))


@dataclass
class Verdicts:
    """Per candidate: the stage that ruled it out (0: none yet), the requirement, achieved, target
    and limiting resource (indices into ``labels`` and ``resources``)."""

    stage: np.ndarray
    requirement: np.ndarray
    achieved: np.ndarray
    target: np.ndarray
    resource: np.ndarray
    labels: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)

    @classmethod
    def empty(cls, n: int) -> "Verdicts":
        return cls(np.zeros(n, np.int8), np.full(n, -1, np.int32), np.full(n, np.nan), np.full(n, np.nan),
                   np.full(n, -1, np.int32))

    def index_of(self, table: list[str], text: str) -> int:
        if text not in table:
            table.append(text)
        return table.index(text)

    def reject(self, mask: np.ndarray, stage: int, label: str, achieved, target, resource) -> int:
        """Rule out the alive candidates of ``mask``; ``resource`` a text or an array of indices into
        ``resources``. Returns how many this call pruned."""
        hit = mask & (self.stage == 0)
        count = int(hit.sum())
        if count:
            self.stage[hit] = stage
            self.requirement[hit] = self.index_of(self.labels, label)
            self.achieved[hit] = np.broadcast_to(np.asarray(achieved, float), mask.shape)[hit]
            self.target[hit] = np.broadcast_to(np.asarray(target, float), mask.shape)[hit]
            if isinstance(resource, str):
                self.resource[hit] = self.index_of(self.resources, resource)
            else:
                self.resource[hit] = np.asarray(resource)[hit]
        return count

    def reject_one(self, i: int, stage: int, label: str, achieved: float, target: float, resource: str) -> int:
        """``reject`` for candidate ``i`` alone (the fluid and event stages' answers, one by one)
        without a mask over every candidate: the same records, the same tables."""
        where = self.index_of(self.resources, resource)
        if self.stage[i] != 0:
            return 0
        self.stage[i] = stage
        self.requirement[i] = self.index_of(self.labels, label)
        self.achieved[i], self.target[i], self.resource[i] = float(achieved), float(target), where
        return 1

    def alive(self) -> np.ndarray:
        return self.stage == 0


@dataclass
class Candidates:
    """The search space as index arrays (one row per candidate) and the per-row figures the
    filters and bounds compute."""

    axes: Axes
    platform: np.ndarray
    drive: np.ndarray
    count: np.ndarray
    level: np.ndarray
    strip: np.ndarray
    engine: np.ndarray
    op: np.ndarray
    spares: np.ndarray
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.platform)

    def row(self, i: int) -> dict:
        """One candidate's set-up as plain values."""
        a = self.axes
        return {"platform": a.platforms[self.platform[i]], "drive": a.drives[self.drive[i]], "drives": int(self.count[i]),
                "level": int(self.level[i]), "strip_bytes": int(self.strip[i]), "engine": a.engines[self.engine[i]],
                "overprovisioning": float(a.overprovisioning[self.op[i]]), "hot_spares": int(self.spares[i])}


def _has_power(entry) -> bool:
    """Whether the catalog entry has the power figures ``nvsim.cost`` needs (an engine without a
    device draws nothing of its own)."""
    kind = getattr(entry, "kind", "")
    if kind == "drive":
        return all(f is not None for f in (entry.power_idle_w, entry.power_active_read_w, entry.power_active_write_w))
    if kind == "platform":
        return entry.power_idle_w is not None and entry.power_active_w is not None
    device = getattr(entry, "device", None)
    return device is None or (device.power_idle_w is not None and device.power_active_w is not None)


def _priced(entry, power: bool) -> bool:
    return entry.price_usd is not None and (not power or _has_power(entry))


def resolve_axes(spec: PlanSpec, catalog: Catalog) -> Axes:
    """The search space's axes: those given, else the whole catalog (engines: every product);
    with ``priced_only`` the entries without a price (or power figure, when power is asked) are
    left out. A cost or power requirement over entries without those figures is one line naming
    them."""
    s = spec.search
    power = needs_power(spec)
    platforms = s.platforms or tuple(sorted(catalog.platforms))
    drives = s.drives or tuple(sorted(catalog.drives))
    engines = s.engines or tuple(sorted(e for e in catalog.engines if e not in NOT_PRODUCTS))
    sections = (("platforms", platforms, catalog.platforms), ("drives", drives, catalog.drives), ("engines", engines, catalog.engines))
    chosen = {}
    for field_name, names, entries in sections:
        if s.priced_only:
            names = tuple(n for n in names if _priced(entries[n], power))
            if not names:
                raise InputError(f"search.{field_name}", "priced_only leaves no entry: none of them has a price"
                                                         + (" and power figures" if power else ""))
        elif needs_prices(spec) or power:
            _require_figures(field_name, names, entries, needs_prices(spec), power)
        chosen[field_name] = names
    bays = max(int(catalog.platforms[p].drive_bays.value) for p in chosen["platforms"])
    counts = s.drive_counts or tuple(range(2, bays + 1))
    return Axes(chosen["platforms"], chosen["drives"], tuple(sorted(set(counts))), tuple(sorted(set(s.levels))),
                tuple(sorted(set(s.strips_bytes))), chosen["engines"], tuple(sorted(set(s.overprovisioning))),
                tuple(sorted(set(s.hot_spares))))


def _require_figures(field_name: str, names, entries, prices: bool, power: bool) -> None:
    """One line naming the entries a cost (or power) requirement cannot be priced without."""
    missing = [n for n in names if (prices and entries[n].price_usd is None) or (power and not _has_power(entries[n]))]
    if missing:
        what = " and ".join(w for w, on in (("price_usd", prices), ("power figures", power)) if on)
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise InputError(f"search.{field_name}", f"the objective or a requirement needs {what}, which the catalog lacks "
                                                 f"for {len(missing)} of {len(names)}: {shown}; list search.{field_name} "
                                                 f"without them, add the figures to models/, or set search.priced_only: true")


def enumerate_candidates(axes: Axes, limit: int) -> Candidates:
    """Every combination of the axes, as index arrays (refused past ``limit``: a bound on memory)."""
    if axes.size > limit:
        raise InputError("max_candidates", f"the search space has {axes.size:,} candidates; the limit is {limit:,} "
                                           f"(set max_candidates in the plan file to raise it)")
    shape = (len(axes.platforms), len(axes.drives), len(axes.counts), len(axes.levels), len(axes.strips),
             len(axes.engines), len(axes.overprovisioning), len(axes.spares))
    index = np.indices(shape, dtype=np.int32).reshape(len(shape), -1)
    counts, levels, strips = (np.asarray(v, np.int64) for v in (axes.counts, axes.levels, axes.strips))
    return Candidates(axes, index[0], index[1], counts[index[2]], levels[index[3]], strips[index[4]], index[5],
                      index[6], np.asarray(axes.spares, np.int64)[index[7]])


def _lookup(names, getter) -> np.ndarray:
    return np.asarray([getter(n) for n in names], float)


def _cited(entry, name: str) -> float:
    value = getattr(entry, name, None)
    return float(value.value) if value is not None else math.nan


def member_bytes(cands: Candidates, catalog: Catalog) -> np.ndarray:
    """Each member's namespace: the drive's capacity less the overprovisioned share, whole sectors."""
    capacity = _lookup(cands.axes.drives, lambda d: catalog.drives[d].capacity_bytes.value)[cands.drive]
    share = np.asarray(cands.axes.overprovisioning)[cands.op]
    member = np.floor(capacity * (1.0 - share) / SECTOR_BYTES).astype(np.int64) * SECTOR_BYTES
    return member


def usable_bytes(level: np.ndarray, n: np.ndarray, member: np.ndarray, strip: np.ndarray) -> np.ndarray:
    """``raid.usable_capacity_bytes`` over arrays (RAID10 with two near copies)."""
    m = member - member % strip
    parity = np.where(level == 5, 1, np.where(level == 6, 2, 0))
    return np.select([level == 0, level == 1, level == 10], [n * m, m, n * m // NEAR_COPIES], (n - parity) * m)


def _engine_rules(cands: Candidates, catalog: Catalog, verdicts: Verdicts, platforms) -> None:
    """Engine/RAID compatibility: levels it supports, its drive limit, its CPU vendor, md's chunk
    and a card's mirror sets; enough drives for the level, and no hot spare without redundancy."""
    a = cands.axes
    engines = [catalog.engines[e] for e in a.engines]
    level_ok = np.asarray([[lv in e.levels for lv in a.levels] for e in engines])
    level_index = np.searchsorted(np.asarray(a.levels), cands.level)
    verdicts.reject(~level_ok[cands.engine, level_index], 1, "engine supports the RAID level", np.nan, np.nan, "engine")
    min_drives = np.vectorize(lambda lv: MIN_DRIVES[int(lv)])(np.asarray(a.levels))[level_index]
    verdicts.reject(cands.count < min_drives, 1, "drives for the RAID level", cands.count, min_drives, "drive count")
    verdicts.reject((cands.level == 0) & (cands.spares > 0), 1, "a hot spare needs redundancy to be rebuilt onto",
                    cands.spares, 0, "hot spares")
    max_drives = np.asarray([e.device.max_drives.value if e.device and e.device.max_drives else 1e9 for e in engines])
    on_card = cands.count + cands.spares  # a card carries its hot spares too (the scenario's _cards_fit)
    verdicts.reject(on_card > max_drives[cands.engine], 1, "engine's drive limit", on_card,
                    max_drives[cands.engine], "engine")
    vendor_ok = np.asarray([[e.cpu_vendors is None or p.cpu.vendor in e.cpu_vendors for p in platforms] for e in engines])
    verdicts.reject(~vendor_ok[cands.engine, cands.platform], 1, "engine runs on the platform's CPU", np.nan, np.nan, "CPU vendor")
    classes = [catalog.engine_class(e) for e in a.engines]
    pow2_rule = np.asarray([[c.strip_must_be_power_of_two(lv) for lv in a.levels] for c in classes])
    pow2 = (cands.strip & (cands.strip - 1)) == 0
    verdicts.reject(pow2_rule[cands.engine, level_index] & ~pow2, 1, "md chunk is a power of two", np.nan, np.nan, "strip")
    most = np.asarray([[(c.most_drives_at(lv) or (1e9, ""))[0] for lv in a.levels] for c in classes], float)
    verdicts.reject(cands.count > most[cands.engine, level_index], 1, "engine's drives at the RAID level", cands.count,
                    most[cands.engine, level_index], "drive count")
    fewest = np.asarray([[(c.fewest_drives_at(lv) or (0, ""))[0] for lv in a.levels] for c in classes], float)
    verdicts.reject(cands.count < fewest[cands.engine, level_index], 1, "engine's drives at the RAID level", cands.count,
                    fewest[cands.engine, level_index], "drive count")
    multiple = np.asarray([[c.drive_multiple(lv, NEAR_COPIES) for lv in a.levels] for c in classes])
    verdicts.reject(cands.count % multiple[cands.engine, level_index] != 0, 1, "a card's RAID10 mirrors pairs",
                    np.nan, np.nan, "drive count")
    verdicts.reject(_mirror_refused(cands, classes, engines), 1, "engine's RAID1 mirror width", cands.count, np.nan,
                    "drive count")
    strip_ok = np.asarray([[c.strip_refusal(e, int(s), {}) is None for s in a.strips] for c, e in zip(classes, engines)])
    verdicts.reject(~strip_ok[cands.engine, np.searchsorted(np.asarray(a.strips), cands.strip)], 1,
                    "engine's strip sizes", cands.strip, np.nan, "strip")


def _mirror_refused(cands: Candidates, classes, engines) -> np.ndarray:
    """The RAID1 candidates whose drives (each a copy) are a mirror the engine does not make (a
    card's family: two drives, ``Engine.copies_refusal``), as the scenario's own check refuses them."""
    bad = np.zeros(len(cands.count), dtype=bool)
    raid1 = cands.level == 1
    for i, (cls, entry) in enumerate(zip(classes, engines)):
        rows = raid1 & (cands.engine == i)
        for n in np.unique(cands.count[rows]):
            if cls.copies_refusal(entry, 1, int(n)) is not None:
                bad |= rows & (cands.count == n)
    return bad


def _platform_rules(spec: PlanSpec, cands: Candidates, catalog: Catalog, verdicts: Verdicts, platforms) -> None:
    """Bays (members and spares), the bays a requirement allows, PCIe lanes, a slot for a card,
    and rack units."""
    a = cands.axes
    req = spec.requirements
    bays = _lookup(a.platforms, lambda p: catalog.platforms[p].drive_bays.value)[cands.platform]
    used = cands.count + cands.spares
    verdicts.reject(used > bays, 1, "drive bays", used, bays, "drive bays")
    if req.max_bays is not None:
        verdicts.reject(used > req.max_bays, 1, "max_bays", used, req.max_bays, "drive bays")
    engines = [catalog.engines[e] for e in a.engines]
    card_lanes = np.asarray([e.device.lanes.value if e.device else 0 for e in engines], float)[cands.engine]
    has_slot = np.asarray([len(p.slots) > 0 for p in platforms])[cands.platform]
    verdicts.reject((card_lanes > 0) & ~has_slot, 1, "a PCIe slot for the engine's card", np.nan, np.nan, "PCIe slots")
    bay_lanes = np.asarray([p.drive_bay_lanes.value for p in platforms], float)
    drive_lanes = _lookup(a.drives, lambda d: catalog.drives[d].lanes.value)
    lanes = used * np.minimum(drive_lanes[cands.drive], bay_lanes[cands.platform]) + card_lanes
    total = np.asarray([p.cpu.sockets * p.pcie_lanes_per_socket.value for p in platforms], float)[cands.platform]
    verdicts.reject(lanes > total, 1, "PCIe lanes", lanes, total, "PCIe lanes")
    if req.max_rack_units is not None:
        units = np.asarray([spec.search.rack_units[p] for p in a.platforms], float)[cands.platform]
        verdicts.reject(units > req.max_rack_units, 1, "max_rack_units", units, req.max_rack_units, "rack units")


def price_usd(cands: Candidates, catalog: Catalog) -> np.ndarray:
    """Each candidate's price: its drives (members and spares), its engine, its server (NaN: unknown)."""
    a = cands.axes
    drive = _lookup(a.drives, lambda d: _cited(catalog.drives[d], "price_usd"))[cands.drive]
    engine = _lookup(a.engines, lambda e: _cited(catalog.engines[e], "price_usd"))[cands.engine]
    platform = _lookup(a.platforms, lambda p: _cited(catalog.platforms[p], "price_usd"))[cands.platform]
    return drive * (cands.count + cands.spares) + engine + platform


def idle_power_w(cands: Candidates, catalog: Catalog) -> np.ndarray:
    """Each candidate's idle draw: every drive, the engine's device, the server (NaN: unknown)."""
    a = cands.axes
    drive = _lookup(a.drives, lambda d: _cited(catalog.drives[d], "power_idle_w"))[cands.drive]
    engine = _lookup(a.engines, lambda e: _cited(catalog.engines[e].device, "power_idle_w") if catalog.engines[e].device else 0.0)
    platform = _lookup(a.platforms, lambda p: _cited(catalog.platforms[p], "power_idle_w"))[cands.platform]
    return drive * (cands.count + cands.spares) + engine[cands.engine] + platform


def exact_filters(spec: PlanSpec, cands: Candidates, catalog: Catalog, verdicts: Verdicts) -> int:
    """Stage 1: rules that hold exactly (compatibility, bays, lanes, racks, capacity, price).
    Fills ``cands.columns`` with member and usable bytes and price; returns how many it pruned."""
    before = int(verdicts.alive().sum())
    platforms = [catalog.platforms[p] for p in cands.axes.platforms]
    _engine_rules(cands, catalog, verdicts, platforms)
    _platform_rules(spec, cands, catalog, verdicts, platforms)
    member = member_bytes(cands, catalog)
    verdicts.reject(cands.strip > member, 1, "strip fits the namespace", cands.strip, member, "namespace")
    usable = usable_bytes(cands.level, cands.count, member, cands.strip)
    target = spec.requirements.usable_bytes
    verdicts.reject(usable < target, 1, "usable_bytes", usable, target, "capacity")
    price = price_usd(cands, catalog)
    if spec.requirements.max_price_usd is not None:
        verdicts.reject(price > spec.requirements.max_price_usd, 1, "max_price_usd", price, spec.requirements.max_price_usd, "price")
    with np.errstate(divide="ignore", invalid="ignore"):
        per_tb = price / (usable / 1e12)
    cands.columns.update(member_bytes=member, usable_bytes=usable, price_usd=price, usd_per_usable_tb=per_tb,
                         idle_power_w=idle_power_w(cands, catalog))
    return before - int(verdicts.alive().sum())


__all__ = ["Axes", "Candidates", "Verdicts", "STAGES", "NEAR_COPIES", "resolve_axes", "enumerate_candidates",
           "exact_filters", "usable_bytes", "member_bytes", "price_usd", "idle_power_w"]
