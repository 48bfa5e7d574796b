"""The states an array can be in under its faults: which members are missing and which one is
being rebuilt (``ArrayState``), and what a state has lost when more members are missing than its
level survives (``lost_data``; ``data_loss_at_start`` for the scenario's faults at t = 0). Below
the orchestrator: ``simulation`` answers a state that has lost data with no I/O, and ``rebuild``
integrates states over time."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .array_capacity import capacity, drives_striped
from .catalog import Catalog, default_catalog
from .errors import InputError
from .raid import copy_sets, failures_tolerated
from .specs import ScenarioSpec


@dataclass(frozen=True)
class ArrayState:
    """Which members are missing (failed, pulled, or being rebuilt) and which one is being rebuilt
    (missing to host I/O but in the part already rebuilt from its start, ``rebuilt_fraction`` of
    it: the engines read and write the rows a rebuild has passed); ``checking``: a parity scrub
    runs on the whole array (``array.scrub``: the engine's ``check`` protocol beside the host's I/O);
    with ``resync`` the whole-array sync is the engine's resync after an unclean shutdown instead
    (``ArrayModel.resync``: md RAID1 copies one mirror onto the others; elsewhere its check)."""

    missing: tuple[int, ...] = ()
    rebuilding: int | None = None
    checking: bool = False
    resync: bool = False  # with ``checking``: the sync is the resync after an unclean shutdown
    rebuilt_fraction: float = 0.0
    rebuilt_step: float = 0.0  # the share of progress the state stands for, centred on rebuilt_fraction (a timeline's step)

    @property
    def failed(self) -> tuple[int, ...]:
        """Missing members that are not being rebuilt."""
        return tuple(m for m in self.missing if m != self.rebuilding)

    @classmethod
    def at_start(cls, scenario: ScenarioSpec) -> "ArrayState":
        """The state the scenario's faults at t = 0 leave (later events are the timeline's).

        A failed or pulled drive is missing; a hot spare (``array.hot_spares``), or a ``replace``
        of a missing drive, starts the first rebuild."""
        if not isinstance(scenario, ScenarioSpec):
            raise InputError("scenario", f"a nvsim ScenarioSpec (nvsim.load_scenario(path)), got {type(scenario).__name__}")
        missing: list[int] = []
        rebuilding = None
        spares = scenario.array.hot_spares
        for fault in scenario.faults:
            if fault.at_s > 0:
                break
            if fault.action in ("fail", "pull") and fault.drive not in missing:
                missing.append(fault.drive)
                if spares > 0 and rebuilding is None:
                    spares -= 1
                    rebuilding = fault.drive
            elif fault.action == "replace" and fault.drive in missing and rebuilding is None:
                rebuilding = fault.drive
        return cls(tuple(missing), rebuilding)


@dataclass
class DataLoss:
    at_s: float
    missing: tuple[int, ...]
    stripes_lost: int
    bytes_lost: float
    detail: str
    stops_io: bool = True  # the array fails (md); False: drives used directly, the others go on


def lost_data(scenario: ScenarioSpec, catalog: Catalog, missing: set[int], rebuilt: dict[int, float]) -> DataLoss | None:
    """Stripes and bytes lost when ``missing`` members are down (``rebuilt``: bytes a member being
    rebuilt already holds: its rows below that point are whole again)."""
    array = scenario.array
    cap = capacity(scenario, catalog)
    member = cap.member_bytes
    striped = drives_striped(scenario, catalog)  # engine none, a card's pass-through: no redundancy at any level
    tolerance = failures_tolerated(array.level, array.drives, array.copies) if striped else 0
    if array.level in (1, 10) and striped:
        sets = copy_sets(array.level, array.drives, array.copies, array.raid10_kind)
        bad = sorted((sorted(g), share) for g, share in sets.items() if g <= missing)
        if not bad:
            return None
        # a set's chunks are whole again below the furthest of its members' rebuilds; the array
        # holds ``member x copy sets' worth`` of data: member bytes x drives / copies
        data_bytes = member * array.drives / len(bad[0][0])
        lost = sum(share * data_bytes * (1.0 - max(rebuilt.get(m, 0.0) for m in g) / member) for g, share in bad)
        strips = int(math.ceil(lost / array.strip_bytes))
        return DataLoss(0.0, tuple(sorted(missing)), strips, float(lost),
                        f"all {len(bad[0][0])} copies of mirror set(s) {[g for g, _ in bad]} are down")
    if len(missing) <= tolerance:
        return None
    if tolerance == 0:  # RAID0 / no RAID: the missing drives' data
        lost = float(len(missing) * member)
        if not striped:  # no RAID, a card's pass-through: each drive a device of its own
            left = array.drives - len(missing)
            return DataLoss(0.0, tuple(sorted(missing)), 0, lost,
                            f"drive(s) {sorted(missing)} used directly (no RAID): their data is gone; the other {left} "
                            f"drive(s) are devices of their own and keep theirs", stops_io=left == 0)
        return DataLoss(0.0, tuple(sorted(missing)), int(math.ceil(lost / array.strip_bytes)), lost,
                        f"RAID{array.level} keeps no redundancy: the data of drive(s) {sorted(missing)} is gone")
    # parity levels: a stripe row is lost where more than ``tolerance`` of its members are missing;
    # rows below a rebuilding member's progress have that member back
    progress = sorted(rebuilt.get(m, 0.0) for m in missing)
    start = progress[tolerance]  # rows from here on miss tolerance + 1 members
    lost_member_bytes = max(0.0, member - start)
    data_members = array.drives - tolerance
    rows = int(math.ceil(lost_member_bytes / array.strip_bytes))
    return DataLoss(0.0, tuple(sorted(missing)), rows, lost_member_bytes * data_members,
                    f"{len(missing)} members down, RAID{array.level} tolerates {tolerance}: {rows:,} stripe rows lost")


def data_loss_at_start(scenario: ScenarioSpec, catalog: Catalog | None = None) -> DataLoss | None:
    """What the scenario's faults at t = 0 leave lost (None: every stripe is still readable). A
    workload on such an array gets I/O errors (md fails the array), not the optimal state's rates."""
    missing = set(ArrayState.at_start(scenario).missing)
    return lost_data(scenario, catalog or default_catalog(), missing, {}) if missing else None


def failed_at_start(scenario: ScenarioSpec, catalog: Catalog | None = None) -> DataLoss | None:
    """The loss the scenario's faults at t = 0 leave where it stops every I/O (md fails the array),
    else None: drives used directly lose only their own data, and the other drives' jobs go on
    (``Simulation`` runs them)."""
    loss = data_loss_at_start(scenario, catalog)
    return loss if loss is not None and loss.stops_io else None


def data_loss_metrics(loss: DataLoss) -> dict[str, float | str | None]:
    """A workload's metrics on an array that has lost data: no I/O completes, the reason says why."""
    return {"read_iops": 0.0, "write_iops": 0.0, "total_iops": 0.0, "read_bytes_per_s": 0.0, "write_bytes_per_s": 0.0,
            "cpu_percent": None, "raid_waf": None, "waf_nand": None, "limited_by": f"DATA LOSS: {loss.detail}",
            "data_loss": True}




__all__ = ["ArrayState", "DataLoss", "lost_data", "data_loss_at_start", "failed_at_start", "data_loss_metrics"]
