"""RAID engines: each turns host I/Os into member I/Os (the stripe core) and its own costs.

``build_engine(spec)`` picks the mechanism by ``engine_kind``: ``none`` and ``ideal`` (no cost
of their own), ``md`` (Linux md), ``lockless_cpu`` (xiRAID-like), ``gpu`` (SupremeRAID-like),
``hardware`` (a RAID card). Parameters come from the engine's catalog entry, one set for every
scenario; ``values`` are what a scenario sets for its engine (``Engine.scenario_values``).
"""

from __future__ import annotations

from ..specs import EngineSpec
from .base import DirectDrives, Engine, EngineServer, EngineWork
from .gpu import GpuEngine
from .hardware import HardwareEngine
from .lockless import LocklessCpuEngine
from .md import MdEngine

ENGINE_CLASSES: dict[str, type[Engine]] = {
    "none": DirectDrives, "ideal": Engine, "md": MdEngine, "lockless_cpu": LocklessCpuEngine,
    "gpu": GpuEngine, "hardware": HardwareEngine,
}


def engine_class(spec: EngineSpec) -> type[Engine]:
    """The mechanism of ``spec``'s ``engine_kind``."""
    return ENGINE_CLASSES[spec.engine_kind]


def build_engine(spec: EngineSpec, values: dict[str, float] | None = None, *, members: int = 0,
                 strip_bytes: int = 64 * 1024, degraded: bool = False, cross_socket_fraction: float = 0.0) -> Engine:
    """The engine of ``spec`` for one array: ``members`` drives, ``strip_bytes`` strips, a member
    missing (``degraded``), ``cross_socket_fraction`` of submitters on the other socket."""
    parameters = {name: float(cited.value) for name, cited in spec.parameters.items()}
    parameters.update(values or {})
    return engine_class(spec)(spec, parameters, members=members, strip_bytes=strip_bytes,
                                            degraded=degraded, cross_socket_fraction=cross_socket_fraction)


__all__ = ["build_engine", "engine_class", "Engine", "EngineServer", "EngineWork", "ENGINE_CLASSES"]
