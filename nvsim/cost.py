"""Cost and power of a set-up: its price, the watts it draws at a predicted load, and what each
usable TB, each 1K IOPS and each GB/s costs; the endurance cost of its writes.

Prices and power figures are catalog numbers (``price_usd`` with ``price_date`` and
``price_kind``; ``power_idle_w``, ``power_active_read_w``, ``power_active_write_w``,
``power_active_w``), each ``Cited``. The power model is linear between idle and active, each part
by its own busy share at the operating point (docs/cost-power.md):

* a drive: idle + NAND busy share x (active - idle), its active figure the read and write ones
  mixed by the share of bytes the drives write;
* the RAID engine's device (a GPU, a card): idle + its busy share x (active - idle);
* the server (CPUs, memory, fans; no drives or cards): idle + the host CPU share x (active - idle);
* the PCIe switches a scenario's topology hangs the drives behind: each its one ``power_w``.

Hot spares are bought and draw idle power. A scenario's ``volumes`` (more arrays on the same
server, nvsim.volumes) are bought too: every volume's drives and hot spares, each further card a
volume hangs from (``nvsim.topology.engine_cards``: a second virtual disk on a card adds drives, not
a card) and a software engine's licence once per server. A workload's row runs the array alone, so
the volumes' drives and further cards draw idle power in it; ``together_power_w`` is the server's
draw with every volume under its own workload (the volumes' shared solve). A backplane or retimer the topology names is the
server's own (its bays as built): in the server's price and power, not added again. A part without a price or power figure leaves the total
unknown (None) and is named in ``missing``: no silent zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import Catalog
from .names import device_name, drive_name, engine_name, platform_name, switch_name
from .raid import usable_capacity_bytes
from .specs import ScenarioSpec
from .topology import engine_cards
from .wear import drive_wear

TB = 1e12
KIOPS = 1e3
GB_PER_S = 1e9
DRIVE_BUSY_PREFIX = "drive NAND"  # fabric's label of the drives' NAND (nvsim.fabric.KINDS, key "nand")


def linear_power_w(idle_w: float, active_w: float, busy_share: float) -> float:
    """Watts of a part busy ``busy_share`` of the time, linear between its idle and active draw."""
    return idle_w + min(1.0, max(0.0, busy_share)) * (active_w - idle_w)


def drive_power_w(idle_w: float, read_w: float, write_w: float, busy_share: float, write_share: float) -> float:
    """One drive's watts: active draw mixed from the read and write figures by ``write_share``
    (the share of its bytes that are writes), then linear from idle by its NAND busy share."""
    share = min(1.0, max(0.0, write_share))
    return linear_power_w(idle_w, (1.0 - share) * read_w + share * write_w, busy_share)


def per_unit(total: float | None, amount: float | None, unit: float) -> float | None:
    """``total`` per ``unit`` of ``amount`` (dollars per TB, per 1K IOPS, per GB/s; watts per 1K IOPS);
    None when either is unknown or nothing is delivered."""
    if total is None or not amount or amount != amount or amount <= 0:
        return None
    return total / (amount / unit)


def wear_usd_per_year(drives_usd: float | None, effective_dwpd: float, rated_dwpd: float, warranty_years: float) -> float | None:
    """The drives' price used up by their writes each year: the share of the rated write budget
    (rated DWPD for the warranty) a year at ``effective_dwpd`` takes, times what they cost."""
    if drives_usd is None or rated_dwpd <= 0 or warranty_years <= 0:
        return None
    return drives_usd * effective_dwpd / (rated_dwpd * warranty_years)


@dataclass(frozen=True)
class SetupParts:
    """A set-up's bill of parts: the drives (members and hot spares, of the array and of every
    volume), the RAID engines (the array's card or licence, every further card of the volumes, a
    further software licence once), the server, the topology's PCIe switches."""

    drive_count: int
    drives_usd: float | None
    engine_usd: float | None
    platform_usd: float | None
    missing: tuple[str, ...]  # parts with no price in the catalog
    switches_usd: float | None = 0.0  # the topology's PCIe switches (0: none)
    array_drives_usd: float | None = None  # the array's own drives and spares: what its workloads' writes wear

    @property
    def total_usd(self) -> float | None:
        parts = (self.drives_usd, self.engine_usd, self.platform_usd, self.switches_usd)
        return None if any(p is None for p in parts) else float(sum(parts))


def _value(cited) -> float | None:
    return None if cited is None else float(cited.value)


def _switches(catalog: Catalog, scenario: ScenarioSpec) -> tuple:
    """The topology's PCIe switches as (catalog entry, count), or () when the drives hang on root ports."""
    use = scenario.topology.switches if scenario.topology is not None else None
    return () if use is None else (catalog.switches[use.model], use.count)


def _arrays(scenario: ScenarioSpec) -> list:
    """The array and every volume's array (``ArraySpec``), the array first."""
    return [scenario.array, *(v.array for v in getattr(scenario, "volumes", ()))]


def _engine_counts(catalog: Catalog, scenario: ScenarioSpec) -> dict[str, int]:
    """How many of each engine the server holds: a card engine's cards (``engine_cards``), a
    software engine's licence once; the array's engine first."""
    cards = engine_cards(scenario, catalog)
    counts: dict[str, int] = {}
    for array in _arrays(scenario):
        if array.engine not in counts:
            counts[array.engine] = sum(1 for engine, _card in cards if engine == array.engine) or 1
    return counts


def _bill(catalog: Catalog, scenario: ScenarioSpec) -> list[tuple]:
    """The bill of parts as (catalog entry, count, what names it): the drives (members and spares,
    the array's model first, then each other model the volumes use), the engines (the array's
    first), the server, and the topology's switches if any."""
    drives: dict[str, int] = {}
    for array in _arrays(scenario):
        drives[array.drive] = drives.get(array.drive, 0) + array.drives + array.hot_spares
    bill = [(catalog.drives[name], count, drive_name) for name, count in drives.items()]
    bill += [(catalog.engines[name], count, engine_name) for name, count in _engine_counts(catalog, scenario).items()]
    bill.append((catalog.platforms[scenario.platform], 1, platform_name))
    switches = _switches(catalog, scenario)
    return bill + ([(*switches, switch_name)] if switches else [])


def _sum(values) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else float(sum(values))


def setup_parts(catalog: Catalog, scenario: ScenarioSpec) -> SetupParts:
    """The prices of a scenario's parts, and which of them the catalog has no price for."""
    bill = _bill(catalog, scenario)
    each = [_value(entry.price_usd) for entry, _count, _name in bill]
    totals = [None if usd is None else usd * count for usd, (_entry, count, _name) in zip(each, bill)]
    kinds = [name for _entry, _count, name in bill]
    part = {kind: _sum(t for t, k in zip(totals, kinds) if k is kind) for kind in (drive_name, engine_name, platform_name)}
    array = scenario.array
    own_each = _value(catalog.drives[array.drive].price_usd)
    return SetupParts(drive_count=sum(count for _entry, count, name in bill if name is drive_name),
                      drives_usd=part[drive_name], engine_usd=part[engine_name], platform_usd=part[platform_name],
                      missing=tuple(entry.name for (entry, _count, _name), usd in zip(bill, each) if usd is None),
                      switches_usd=_sum(t for t, k in zip(totals, kinds) if k is switch_name),
                      array_drives_usd=None if own_each is None else own_each * (array.drives + array.hot_spares))


def price_parts(catalog: Catalog, scenario: ScenarioSpec) -> list[dict]:
    """Each part of the bill with its count, price each, and the price's kind, date, basis and
    source (what a report prints beside the total)."""
    return [{"part": entry.name, "product": name(entry), "count": count, "usd_each": _value(entry.price_usd), "kind": entry.price_kind,
             "date": entry.price_date, "basis": entry.price_usd.basis if entry.price_usd else None,
             "source": entry.price_usd.source if entry.price_usd else None} for entry, count, name in _bill(catalog, scenario)]


def _busy(utilisation, match) -> float | None:
    shares = [u.utilisation for u in utilisation if match(u.resource)]
    return max(shares) if shares else None


def _drive_busy_share(catalog: Catalog, scenario: ScenarioSpec, metrics: dict, utilisation) -> float:
    """The drives' NAND busy share: the simulator's (its busiest drive), or for a lone drive the
    share of its datasheet rates the workload uses."""
    busy = _busy(utilisation, lambda label: label.startswith(DRIVE_BUSY_PREFIX))
    if busy is not None:
        return busy
    drive, n = catalog.drives[scenario.array.drive], scenario.array.drives
    shares = [(metrics.get("read_iops") or 0.0) / n / drive.rand_read_iops.value,
              (metrics.get("write_iops") or 0.0) / n / drive.rand_write_iops.value,
              (metrics.get("read_bytes_per_s") or 0.0) / n / drive.seq_read_bytes_per_s.value,
              (metrics.get("write_bytes_per_s") or 0.0) / n / drive.seq_write_bytes_per_s.value]
    return min(1.0, max(shares))


def _write_share(metrics: dict) -> float:
    """The share of the drives' bytes that are writes: host writes x RAID WAF against host reads."""
    writes = (metrics.get("write_bytes_per_s") or 0.0) * (metrics.get("raid_waf") or 1.0)
    total = writes + (metrics.get("read_bytes_per_s") or 0.0)
    return writes / total if total > 0 else 0.0


def _drives_w(catalog: Catalog, array, busy: float, write_share: float) -> float | None:
    """An array's drives at a NAND busy share and write share, and its hot spares idle (None: a
    power figure is missing)."""
    drive = catalog.drives[array.drive]
    figures = (drive.power_idle_w, drive.power_active_read_w, drive.power_active_write_w)
    if any(f is None for f in figures):
        return None
    return (array.drives * drive_power_w(*(float(f.value) for f in figures), busy, write_share)
            + array.hot_spares * float(drive.power_idle_w.value))


def _card_w(catalog: Catalog, engine_name_: str, utilisation) -> float | None:
    """An engine's own device (a GPU, a RAID card) at its busy share in ``utilisation`` (0 for a
    software engine: its work is host CPU; None: a figure is missing)."""
    device = catalog.engines[engine_name_].device
    if device is None:
        return 0.0
    if device.power_idle_w is None or device.power_active_w is None:
        return None
    name = device_name(device.product)  # "GPU (name)"; "RAID card processor ... (name, its RAID-on-chip)"
    share = _busy(utilisation, lambda label: f"({name})" in label or f"({name}, " in label) or 0.0
    return linear_power_w(float(device.power_idle_w.value), float(device.power_active_w.value), share)


def _platform_w(catalog: Catalog, scenario: ScenarioSpec, cpu_share: float) -> float | None:
    platform = catalog.platforms[scenario.platform]
    if platform.power_idle_w is None or platform.power_active_w is None:
        return None
    return linear_power_w(float(platform.power_idle_w.value), float(platform.power_active_w.value), cpu_share)


def _switches_w(catalog: Catalog, scenario: ScenarioSpec) -> float | None:
    switches = _switches(catalog, scenario)
    return 0.0 if not switches else (None if switches[0].power_w is None else float(switches[0].power_w.value) * switches[1])


def _power(drives_w, engine_w, platform_w, switches_w) -> dict[str, float | None]:
    parts = (drives_w, engine_w, platform_w, switches_w)
    return {"power_w": None if any(p is None for p in parts) else float(sum(parts)),
            "power_drives_w": drives_w, "power_engine_w": engine_w, "power_platform_w": platform_w,
            "power_switches_w": switches_w}


def setup_power_w(catalog: Catalog, scenario: ScenarioSpec, metrics: dict, utilisation) -> dict[str, float | None]:
    """Watts of the drives, the engine's device, the server and the topology's switches at one workload's operating point
    (None: a part has no power figure in the catalog). The volumes' drives and further cards (a
    workload's row runs the array alone) draw idle power."""
    busy = _drive_busy_share(catalog, scenario, metrics, utilisation) if metrics else 0.0
    drives_w = _drives_w(catalog, scenario.array, busy, _write_share(metrics or {}))
    engine_w = _card_w(catalog, scenario.array.engine, utilisation)
    volumes = getattr(scenario, "volumes", ())
    if volumes:
        drives_w = _sum([drives_w] + [_drives_w(catalog, v.array, 0.0, 0.0) for v in volumes])
        further = [engine for engine, card in engine_cards(scenario, catalog) if (engine, card) != (scenario.array.engine, 0)]
        engine_w = _sum([engine_w] + [_card_w(catalog, engine, ()) for engine in further])
    platform_w = _platform_w(catalog, scenario, (metrics.get("cpu_percent") or 0.0) / 100.0)
    return _power(drives_w, engine_w, platform_w, _switches_w(catalog, scenario))


def together_power_w(catalog: Catalog, scenario: ScenarioSpec, parts: list[tuple]) -> dict:
    """The server's watts with the array and every volume running at once (nvsim.volumes): each
    part, (its own scenario, its card as (engine, card), its metrics, its utilisation), draws for its
    drives at its own load; each card once, at its busy share (shared by the volumes on it); the
    server at the parts' CPU shares together; the topology's switches. ``parts_drives_w``: each
    part's drives, in order."""
    drives = [_drives_w(catalog, sc.array, _drive_busy_share(catalog, sc, metrics, util), _write_share(metrics))
              for sc, _card, metrics, util in parts]
    cards: dict[tuple, float | None] = {}
    for _sc, card, _metrics, util in parts:
        if catalog.engines[card[0]].device is not None and card not in cards:
            cards[card] = _card_w(catalog, card[0], util)
    cpu = sum((metrics.get("cpu_percent") or 0.0) for _sc, _card, metrics, _util in parts) / 100.0
    return {**_power(_sum(drives), _sum(cards.values()), _platform_w(catalog, scenario, cpu), _switches_w(catalog, scenario)),
            "parts_drives_w": drives}


def usable_bytes_with_volumes(catalog: Catalog, scenario: ScenarioSpec, usable_bytes: float) -> float:
    """``usable_bytes`` (the array's) and every volume's usable capacity (a volume's namespace, if
    set, is its member)."""
    for volume in getattr(scenario, "volumes", ()):
        array = volume.array
        member = array.namespace_bytes or catalog.drives[array.drive].capacity_bytes.value
        usable_bytes += usable_capacity_bytes(array.level, array.drives, member, array.strip_bytes, array.copies,
                                              array.raid10_kind)
    return usable_bytes


def cost_power(catalog: Catalog, scenario: ScenarioSpec, usable_bytes: float, metrics: dict | None,
               utilisation=()) -> dict[str, float | str | None]:
    """Flat cost and power figures of a set-up at one workload's predicted operating point
    (``metrics``: ``Result.metrics()``; ``utilisation``: ``Result.utilisation``): the price and
    its parts, watts, dollars per usable TB, per 1K IOPS and per GB/s, watts per 1K IOPS, the
    drives' effective DWPD against their rating and the dollars of drive life its writes use a year.
    These are the columns sweeps may constrain and rank by (docs/sweeps.md)."""
    metrics = metrics or {}
    parts = setup_parts(catalog, scenario)
    power = setup_power_w(catalog, scenario, metrics, utilisation)
    usable_bytes = usable_bytes_with_volumes(catalog, scenario, usable_bytes)
    iops = metrics.get("total_iops") or ((metrics.get("read_iops") or 0.0) + (metrics.get("write_iops") or 0.0))
    rate = (metrics.get("read_bytes_per_s") or 0.0) + (metrics.get("write_bytes_per_s") or 0.0)
    array = scenario.array
    wear = drive_wear(catalog, array.drive, array.drives, metrics.get("write_bytes_per_s") or 0.0,
                      metrics.get("raid_waf"), metrics.get("waf_nand"))
    total = parts.total_usd
    return _plain_floats({
        "price_usd": total, "price_drives_usd": parts.drives_usd, "price_engine_usd": parts.engine_usd,
        "price_platform_usd": parts.platform_usd, "price_switches_usd": parts.switches_usd, "price_missing": ", ".join(parts.missing),
        **power,
        "usd_per_usable_tb": per_unit(total, usable_bytes, TB), "usd_per_kiops": per_unit(total, iops, KIOPS),
        "usd_per_gb_per_s": per_unit(total, rate, GB_PER_S), "watts_per_kiops": per_unit(power["power_w"], iops, KIOPS),
        "effective_dwpd": wear["effective_dwpd"], "rated_dwpd": wear["rated_dwpd"],
        "drive_lifetime_years": wear["lifetime_years"],
        "wear_usd_per_year": wear_usd_per_year(parts.array_drives_usd, wear["effective_dwpd"], wear["rated_dwpd"],
                                               wear["warranty_years"]),
    })


def _plain_floats(values: dict) -> dict:
    """Python floats (not NumPy scalars) for JSON, Parquet and the tables."""
    return {k: (float(v) if v is not None and not isinstance(v, str) else v) for k, v in values.items()}


COST_POWER_COLUMNS = ("price_usd", "price_drives_usd", "price_engine_usd", "price_platform_usd", "price_switches_usd",
                      "price_missing", "power_w", "power_drives_w", "power_engine_w", "power_platform_w", "power_switches_w",
                      "usd_per_usable_tb",
                      "usd_per_kiops", "usd_per_gb_per_s", "watts_per_kiops", "effective_dwpd", "rated_dwpd",
                      "drive_lifetime_years", "wear_usd_per_year")
"""The keys ``cost_power`` returns, in order (sweep columns, JSON keys)."""


__all__ = ["cost_power", "price_parts", "setup_parts", "setup_power_w", "together_power_w", "usable_bytes_with_volumes",
           "SetupParts", "linear_power_w", "drive_power_w", "per_unit",
           "wear_usd_per_year", "COST_POWER_COLUMNS"]
