"""Usable capacity of an array: the level's data share of the member namespace, in whole strips.

Its own module (not ``nvsim.bounds``) because the array simulator's model needs it and the bounds
read the simulator: both import it from here (``nvsim.bounds`` re-exports it). Not named
``capacity``: a submodule of that name would shadow the public function ``nvsim.capacity``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import Catalog, default_catalog
from .engines import engine_class, engine_settings
from .raid import usable_capacity_bytes
from .specs import ScenarioSpec


@dataclass(frozen=True)
class Capacity:
    usable_bytes: int
    raw_bytes: int
    member_bytes: int
    drives: int
    level: int

    @property
    def efficiency(self) -> float:
        return self.usable_bytes / self.raw_bytes


def capacity(scenario: ScenarioSpec, catalog: Catalog | None = None) -> Capacity:
    """Usable, raw and member bytes of the scenario's array (a namespace, if set, is the member);
    ``nvsim.capacity`` also takes the scenario's path (``nvsim.simulation.capacity``)."""
    catalog = catalog or default_catalog()
    array = scenario.array
    drive = catalog.drives[array.drive]
    member = array.namespace_bytes or drive.capacity_bytes.value
    if drives_striped(scenario, catalog):
        usable = usable_capacity_bytes(array.level, array.drives, member, array.strip_bytes, array.copies,
                                       array.raid10_kind)
    else:  # each drive a device of its own (no RAID, a card's pass-through): nothing rounded to strips
        usable = array.drives * member
    return Capacity(usable, array.drives * drive.capacity_bytes.value, member, array.drives, array.level)


def drives_striped(scenario: ScenarioSpec, catalog: Catalog) -> bool:
    """Whether the array lays a RAID level over its members (False: each drive used directly, engine
    ``none`` or a card's pass-through: a device of its own, whole, and a failure takes only its data)."""
    return engine_stripes(catalog, scenario.array.engine, scenario.array.engine_settings)


def engine_stripes(catalog: Catalog, engine: str, settings: dict | None) -> bool:
    """``drives_striped`` from the engine's name and a scenario's ``engine_settings``."""
    spec = catalog.engines[engine]
    return engine_class(spec).striped_with(engine_settings(spec, settings))


def layout_text(catalog: Catalog, engine: str, settings: dict | None, level: int, strip: str) -> str:
    """How a report names the layout: "RAID6, strip 64 KiB", or "no RAID (drives used directly)"
    where the engine stripes nothing (a RAID level and strip would be names of nothing)."""
    if not engine_stripes(catalog, engine, settings):
        return "no RAID (drives used directly)"
    return f"RAID{level}, strip {strip}"


__all__ = ["Capacity", "capacity", "drives_striped", "engine_stripes", "layout_text"]
