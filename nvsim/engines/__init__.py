"""RAID engines as plug-ins: each module declares one engine -- its kind, its typed parameter
schema (``Parameters``), what a scenario may set for it (``Settings``) and its mechanism (an
``Engine`` subclass) -- and registers it here. The solvers ask the engine; they never branch on its
name or kind.

Built in: ``none`` (drives used directly) and ``ideal`` (base.py), ``md`` (Linux md), ``vroc``
(Intel VROC: md with the platform's VMD), ``lockless_cpu`` (xiRAID-like), ``gpu``
(SupremeRAID-like), ``hardware`` (a RAID card). Another engine takes one module that calls
``register`` and one YAML in the catalog (docs/models/engines.md, "Adding an engine").
"""

from __future__ import annotations

from pydantic import ValidationError

from ..errors import InputError, from_validation_error, suggestion_then
from ..specs import EngineSpec
from .base import (DirectDrives, Engine, EngineParameters, EngineServer, EngineSettings, EngineWork, IdealEngine,
                   StripeCacheLoad)
from .rebuild_protocol import RebuildProtocol
from .gpu import GpuEngine
from .hardware import HardwareEngine
from .lockless import LocklessCpuEngine
from .md import MdEngine
from .vroc import VrocEngine

ENGINES: dict[str, type[Engine]] = {}
"""Engine kind (a catalog entry's ``engine_kind``) -> its mechanism."""


def register(engine: type[Engine], kind: str) -> type[Engine]:
    """Make ``engine`` the mechanism of catalog entries whose ``engine_kind`` is ``kind``."""
    known = ENGINES.get(kind)
    if known is not None and known is not engine:
        raise ValueError(f"engine kind {kind!r} is already registered ({known.__module__}.{known.__name__})")
    ENGINES[kind] = engine
    return engine


for _kind, _engine in (("none", DirectDrives), ("ideal", IdealEngine), ("md", MdEngine),
                       ("lockless_cpu", LocklessCpuEngine), ("gpu", GpuEngine), ("hardware", HardwareEngine)):
    register(_engine, _kind)
register(VrocEngine, "vroc")


def engine_class(spec: EngineSpec) -> type[Engine]:
    """The mechanism of ``spec``'s ``engine_kind`` (an InputError naming the kinds known)."""
    try:
        return ENGINES[spec.engine_kind]
    except KeyError:
        raise InputError("engine_kind", f"unknown engine kind {spec.engine_kind!r}"
                         f"{suggestion_then(spec.engine_kind, ENGINES)}allowed: {', '.join(sorted(ENGINES))}") from None


def engine_parameters(spec: EngineSpec, source: str | None = None) -> EngineParameters:
    """``spec``'s ``parameters`` checked against its engine's schema (one-line InputError)."""
    schema = engine_class(spec).Parameters
    try:
        return schema.model_validate(spec.parameters)
    except ValidationError as exc:
        raise from_validation_error(exc, schema, prefix="parameters", source=source) from None


def engine_settings(spec: EngineSpec, values: dict | None, source: str | None = None) -> EngineSettings:
    """A scenario's ``array.engine_settings`` checked against its engine's ``Settings``."""
    schema = engine_class(spec).Settings
    try:
        return schema.model_validate(values or {})
    except ValidationError as exc:
        raise from_validation_error(exc, schema, prefix="array.engine_settings", source=source) from None


def build_engine(spec: EngineSpec, settings: dict | EngineSettings | None = None, *, members: int = 0,
                 strip_bytes: int = 64 * 1024, degraded: bool = False, missing: int = 0, shared_access_factor: float = 1.0,
                 line_transfer_us: float = 0.1, job_nodes: int = 1,
                 array: tuple[int, float, int] | None = None, writes: bool = True,
                 near_copies: int | None = None) -> Engine:
    """The engine of ``spec`` for one array: ``settings`` a scenario gives it, ``members`` drives,
    ``strip_bytes`` strips, a member missing (``degraded``; ``missing``: how many), the platform's transfer time of a
    contended cache line (``line_transfer_us``) and the slow-down of shared state by submitters on
    the other socket (``shared_access_factor``), the NUMA nodes the jobs submit from (``job_nodes``),
    whether the workload writes (``writes``);
    ``array`` (level, member bytes, copies): the settings left unset become what the engine's tools
    make of that array (``EngineSettings.for_array``). ``near_copies``: md's ``geo.near_copies`` where
    it is not the copies (RAID10 far and offset: 1; None: the copies)."""
    if not isinstance(settings, EngineSettings):
        settings = engine_settings(spec, settings)
    level, copies = None, 0
    if array is not None:
        level, member_bytes, copies = array
        settings = settings.for_array(level, member_bytes, members, copies)
    return engine_class(spec)(spec, engine_parameters(spec), settings, members=members, strip_bytes=strip_bytes,
                              degraded=degraded, missing=missing, shared_access_factor=shared_access_factor,
                              line_transfer_us=line_transfer_us, job_nodes=job_nodes, level=level,
                              copies=copies if near_copies is None else near_copies, writes=writes)


__all__ = ["build_engine", "engine_class", "engine_parameters", "engine_settings", "register", "Engine",
           "EngineParameters", "EngineSettings", "EngineServer", "EngineWork", "ENGINES", "RebuildProtocol",
           "StripeCacheLoad"]
