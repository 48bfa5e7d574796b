"""The simulator's remembered work, in one explicit object.

A sweep builds thousands of arrays that share drive models, CPU layouts, member-I/O plans and
engine costs; each is derived once and remembered here. ``Memo`` holds every table (no module-level
caches elsewhere in nvsim.sim); ``MEMO`` is the default instance, and a caller that wants its own
(a test, a sweep that must not share) passes another one to ``build`` and the demand functions.

Each entry may be tied to an owner object (the catalog, the platform spec, the plan it was derived
from): a hit counts only while that owner is the very same object, so a key made from ``id()``
never returns the work of an object that has been freed and whose id was reused.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

LIMIT = 4096
"""Entries a bounded table holds before it starts afresh."""
HELD_MEMBER_IOS = 1_000_000
"""Member I/Os the per-batch tables (plans, their distinct sizes, engine costs; a drive model's
service of its last plans too) hold at most before each starts afresh: a long event-mode run plans
thousands of large batches, and remembering every one took an 8-second precision-bound run of a
4-drive md RAID5 to a 1.88 GB peak (0.60 GB with this bound; 0.62 GB remembering none of them)."""
PER_CATALOG_LIMIT = 256
"""Entries a table tied to catalogs holds: each keeps its catalog alive, and calibration makes one
catalog per trial (``Catalog.with_values``)."""


class Memo:
    """The tables: drive timings, CPU layouts, resource lists, cross-socket shares of placements,
    engine card links, configured engines, array geometries and capacities (all immutable once made), member-I/O
    plans, distinct member-I/O sizes of a plan, engine costs of a plan, the fluid mode's
    host-I/O samples, and plans by place in a layout's period (``stripe.positions``)."""

    def __init__(self) -> None:
        self.drive_timings: dict[Hashable, tuple[Any, Any]] = {}  # per catalog and drive: bounded (calibration
        # makes a catalog per trial, and each entry keeps its catalog alive)
        self.cpu_layouts: dict[Hashable, tuple[Any, Any]] = {}  # per platform spec: unbounded
        self.resources: dict[Hashable, tuple[Any, Any]] = {}  # per fabric facts: unbounded (a few)
        self.cross_socket: dict[Hashable, tuple[Any, Any]] = {}  # per placement: unbounded (a few)
        self.engine_links: dict[Hashable, tuple[Any, Any]] = {}  # per catalog: bounded, as drive_timings
        self.engines: dict[Hashable, tuple[Any, Any]] = {}
        self.geometries: dict[Hashable, tuple[Any, Any]] = {}
        self.capacities: dict[Hashable, tuple[Any, Any]] = {}
        self.plans: dict[Hashable, tuple[Any, Any]] = {}
        self.distinct: dict[Hashable, tuple[Any, Any]] = {}
        self.engine_work: dict[Hashable, tuple[Any, Any]] = {}
        self.samples: dict[Hashable, tuple[Any, Any]] = {}
        self.positions: dict[Hashable, tuple[Any, Any]] = {}  # plans by place in a layout's period: bounded
        self.held: dict[int, int] = {}  # member I/Os each weighed table holds (``recall``'s ``weigh``)

    def recall(self, table: dict, key: Hashable, make: Callable[..., T], *args: Any, owner: object = None,
               bounded: bool = True, limit: int = LIMIT, weigh: Callable[[T], int] | None = None) -> T:
        """``table``'s value for ``key`` (``make(*args)``, remembered on a miss). With ``owner``, a
        hit must have been made for that very object; a bounded table starts afresh past ``limit``
        entries, or, with ``weigh`` (the member I/Os a value holds), past ``HELD_MEMBER_IOS``."""
        hit = table.get(key)
        if hit is not None and (owner is None or hit[0] is owner):
            return hit[1]
        value = make(*args)
        weight = weigh(value) if weigh is not None else 0
        held = self.held.get(id(table), 0) + weight
        if bounded and (len(table) > limit or held > HELD_MEMBER_IOS):
            table.clear()
            held = weight
        if weigh is not None:
            self.held[id(table)] = held
        table[key] = (owner, value)
        return value

    def clear(self) -> None:
        """Forget everything (a test that must start cold)."""
        for table in vars(self).values():
            table.clear()


MEMO = Memo()
"""The default memo, shared by every model built without one of its own."""

__all__ = ["Memo", "MEMO", "LIMIT"]
