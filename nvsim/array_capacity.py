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
    """Usable, raw and member bytes of the scenario's array (a namespace, if set, is the member)."""
    catalog = catalog or default_catalog()
    array = scenario.array
    drive = catalog.drives[array.drive]
    member = array.namespace_bytes or drive.capacity_bytes.value
    engine = catalog.engines[array.engine]
    if engine_class(engine).striped_with(engine_settings(engine, array.engine_settings)):
        usable = usable_capacity_bytes(array.level, array.drives, member, array.strip_bytes, array.near_copies)
    else:  # each drive a device of its own (no RAID, a card's pass-through): nothing rounded to strips
        usable = array.drives * member
    return Capacity(usable, array.drives * drive.capacity_bytes.value, member, array.drives, array.level)


__all__ = ["Capacity", "capacity"]
