"""The calibrated catalog in models/: NAND types and generations, drive families, drives, PCIe generations, platforms, engines,
host I/O paths, OLTP profiles, PCIe switches, retimers and backplanes, and the bibliography.

A drive file that names a ``family`` (models/families/) is a SKU of it: what the file leaves out is
filled in from the family before the drive is checked -- the family's shared values, and the
performance figures its model predicts from the SKU's capacity and raw NAND
(``nvsim.ssd.family.complete_sku``, basis ``predicted``). NAND types and generations load first:
a family takes its die capacity and NAND type from the generation it names, a drive its die from
its own, its family's or its type's default generation (``nvsim.ssd.nand``). Families load before
drives.

One YAML file per entry; every number is ``Cited`` and its source key must resolve in
models/bibliography.yaml. Loading checks all of this before anything runs.

A RAID card in models/engines/ that names a ``family`` (models/card_families/) is a SKU of it: the
family gives its vendor, levels, firmware and parameters (``nvsim.engines.card.complete_card``);
a family stated against its predecessor (``scaled_from``) takes the predecessor's parity costs
divided by the vendor's generation factors. Card families load before engines.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import InputError, from_validation_error, suggestion_text, suggestion_then
from .engines import Engine, engine_class, engine_parameters
from .engines.card import complete_card, scaled_family
from .engines.gpu import complete_gpu
from .io import atomic_path
from .loader import load_yaml, max_input_bytes
from .numba_cache import DIGEST_CHARS, default_base, source_digest
from .pcie import raw_bytes_per_s
from .ssd.derive import derive_ssd_parameters
from .ssd.family import DriveFamilySpec, SkuFieldError, complete_sku
from .ssd.nand import check_generation, check_type, complete_drive, complete_family
from .shipped import packaged_folder, shipped_folder
from .specs import (BackplaneSpec, CardFamilySpec, CardGenerationStep, Cited, GpuFamilySpec, ControllerSpec, DriveSpec, EngineSpec, HostIoSpec, NandGenerationSpec, NandTypeSpec,
                    OltpProfileSpec, PcieGenerationSpec, PlatformSpec, RetimerSpec, SwitchSpec, Text)

BUNDLED_CATALOG_DIR = packaged_folder("models")
"""The catalog a regular (non-editable) install carries inside the package."""
DEFAULT_CATALOG_DIR = shipped_folder("models")
"""The repository's models/ (a checkout or an editable install), else the copy an installed wheel
carries inside the package (pyproject.toml maps models/ to ``nvsim._models``)."""
SECTIONS: dict[str, type[BaseModel]] = {
    "nand_types": NandTypeSpec,
    "nand": NandGenerationSpec,
    "controllers": ControllerSpec,
    "families": DriveFamilySpec,
    "drives": DriveSpec,
    "links": PcieGenerationSpec,
    "platforms": PlatformSpec,
    "card_families": CardFamilySpec,
    "gpu_families": GpuFamilySpec,
    "engines": EngineSpec,
    "host_io": HostIoSpec,
    "oltp": OltpProfileSpec,
    "switches": SwitchSpec,
    "retimers": RetimerSpec,
    "backplanes": BackplaneSpec,
}


def catalog_dir() -> Path:
    """The catalog folder: ``NVSIM_CATALOG`` where it is set to a path (empty: unset, not '.'),
    else the shipped one."""
    return Path(os.environ.get("NVSIM_CATALOG") or DEFAULT_CATALOG_DIR)


def read_yaml(path: Path) -> Any:
    """A YAML file through the one input boundary (``nvsim.loader``): bounded, strict UTF-8, no
    duplicate keys; a syntax error names the file and line."""
    return load_yaml(path)


class SourceEntry(BaseModel):
    """One source of models/bibliography.yaml as written: a title, and where to find it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: Text = Field(min_length=1)
    publisher: Text = ""
    year: int | None = Field(default=None, ge=1800, le=2200)
    location: Text = ""


class BibliographyFile(BaseModel):
    """models/bibliography.yaml: ``sources``, each a key and its ``SourceEntry``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sources: dict[str, SourceEntry] = Field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    publisher: str
    year: int | None
    location: str


class ReadOnlyDict(dict):
    """A catalog section: a dict whose entries cannot be set, removed or replaced once loaded
    (``catalog.drives["x"] = other`` changed every later answer of the process). Pickles and copies
    as itself (a worker process gets the same read-only section)."""

    def _refuse(self, *_args, **_kwargs):
        raise TypeError("a catalog is frozen: make one with other values with Catalog.with_values, or load "
                        "another directory with nvsim.load_catalog")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self):
        return type(self), (dict(self),)


@dataclass(frozen=True)
class Catalog:
    """Every catalog entry by section and name, the bibliography, and the file each entry came
    from. Frozen (entries are frozen specs, and a loaded catalog's sections are read-only,
    ``ReadOnlyDict``): a different set of values is a new catalog (:meth:`with_values`)."""

    nand_types: dict[str, NandTypeSpec] = field(default_factory=dict)
    nand: dict[str, NandGenerationSpec] = field(default_factory=dict)
    controllers: dict[str, ControllerSpec] = field(default_factory=dict)
    families: dict[str, DriveFamilySpec] = field(default_factory=dict)
    drives: dict[str, DriveSpec] = field(default_factory=dict)
    links: dict[str, PcieGenerationSpec] = field(default_factory=dict)
    platforms: dict[str, PlatformSpec] = field(default_factory=dict)
    card_families: dict[str, CardFamilySpec] = field(default_factory=dict)
    gpu_families: dict[str, GpuFamilySpec] = field(default_factory=dict)
    engines: dict[str, EngineSpec] = field(default_factory=dict)
    host_io: dict[str, HostIoSpec] = field(default_factory=dict)
    oltp: dict[str, OltpProfileSpec] = field(default_factory=dict)
    switches: dict[str, SwitchSpec] = field(default_factory=dict)
    retimers: dict[str, RetimerSpec] = field(default_factory=dict)
    backplanes: dict[str, BackplaneSpec] = field(default_factory=dict)
    bibliography: dict[str, Source] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    def frozen(self) -> "Catalog":
        """This catalog with every section read-only (``ReadOnlyDict``): what loading returns."""
        return Catalog(**{f.name: ReadOnlyDict(getattr(self, f.name)) for f in fields(self)})

    def entries(self) -> Iterator[tuple[str, BaseModel]]:
        for section in SECTIONS:
            for name, entry in getattr(self, section).items():
                yield section, entry

    def all_names(self) -> list[str]:
        return [entry.name for _, entry in self.entries()]

    def get(self, name: str) -> BaseModel:
        for _, entry in self.entries():
            if entry.name == name:
                return entry
        raise InputError("NAME", f"unknown catalog entry {name!r}{suggestion_text(name, self.all_names())} (see `nvsim catalog`)")

    def with_values(self, values: Mapping[str, float]) -> "Catalog":
        """A copy with some cited values replaced, each entry it changes validated again.

        Keys name ``section/entry/field``: ``"host_io/libaio/submit_us"``,
        ``"oltp/sysbench-oltp-rw/cpu_us_per_tx"``; an engine's mechanism parameters by their own
        name, ``"engines/linux-md/device_lock_us"``. A replaced number keeps its source, basis and
        note (a trial value of a fitted parameter is still that fit's). Unchanged entries are
        shared with this catalog (they are frozen), so calibration can build one catalog per
        trial cheaply. An unknown key, or a value its field cannot hold, is an InputError.
        """
        changes: dict[tuple[str, str], dict[str, float]] = {}
        for key, value in values.items():
            section, entry, name = _value_key(self, key)
            changes.setdefault((section, entry), {})[name] = value
        sections = {section: dict(getattr(self, section)) for section in SECTIONS}
        for (section, entry), fields in changes.items():
            sections[section][entry] = _with_cited_values(sections[section][entry], fields, self.files.get(entry))
        for (section, family), fields in changes.items():  # a card or GPU family's values reach its SKUs
            if section not in ("card_families", "gpu_families"):
                continue
            shared = sections[section][family].parameters
            for name, engine in sections["engines"].items():
                if engine.family == family:
                    update = {"parameters": {**engine.parameters, **shared}}
                    if section == "gpu_families":
                        update["gpu_family"] = sections[section][family]
                    sections["engines"][name] = engine.model_copy(update=update)
        return Catalog(**sections, bibliography=dict(self.bibliography), files=dict(self.files)).frozen()

    def engine_class(self, name: str) -> type[Engine]:
        """The mechanism (``nvsim.engines`` class) of engine entry ``name``: the specs, the topology
        and the workload ask it their engine's rules (``strip_must_be_power_of_two``,
        ``drive_multiple``, ``most_drives_at``, ``fewest_drives_at``, ``passes_discards``, ``needs_vmd``, ``settings_refusal``) without importing
        the registry."""
        return engine_class(self.engines[name])

    def pcie(self, generation: int) -> PcieGenerationSpec:
        for entry in self.links.values():
            if entry.generation == generation:
                return entry
        known = sorted(e.generation for e in self.links.values())
        raise InputError("pcie_generation", f"no PCIe generation {generation} in the catalog's links/; allowed: "
                                            f"{', '.join(map(str, known))}")


def _value_key(catalog: Catalog, key: str) -> tuple[str, str, str]:
    """``section/entry/field`` -> its three parts, each checked against the catalog."""
    parts = key.split("/")
    if len(parts) != 3:
        raise InputError(key, "name a catalog value as section/entry/field, e.g. engines/linux-md/device_lock_us")
    section, entry, name = parts
    if section not in SECTIONS:
        raise InputError(key, f"unknown catalog section {section!r}{suggestion_then(section, SECTIONS)}"
                              f"allowed: {', '.join(SECTIONS)}")
    names = getattr(catalog, section)
    if entry not in names:
        raise InputError(key, f"no {section} entry {entry!r} in the catalog{suggestion_text(entry, names)}")
    return section, entry, name


def _with_cited_values(entry: BaseModel, fields: dict[str, float], path: Path | None) -> BaseModel:
    """``entry`` validated again with the values of some of its Cited numbers replaced: a field of
    the entry, or one of its mechanism ``parameters`` (engines)."""
    data = entry.model_dump()
    parameters = getattr(entry, "parameters", None) or {}
    for name, value in fields.items():
        if isinstance(getattr(entry, name, None), Cited):
            data[name]["value"] = value
        elif name in parameters:
            data["parameters"][name]["value"] = value
        else:
            known = [f for f in type(entry).model_fields if isinstance(getattr(entry, f), Cited)] + list(parameters)
            raise InputError(name, f"{entry.name} has no cited value {name!r}{suggestion_text(name, known)}",
                             source=str(path) if path else None)
    try:
        changed = type(entry).model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, type(entry), source=str(path) if path else None) from None
    if isinstance(changed, EngineSpec):
        engine_parameters(changed, source=str(path) if path else None)
    return changed


def iter_cited(value: Any, path: str = "") -> Iterator[tuple[str, Cited]]:
    """Every Cited number inside an entry, with its dotted path."""
    if isinstance(value, Cited):
        yield path, value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from iter_cited(getattr(value, name), f"{path}.{name}" if path else name)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from iter_cited(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from iter_cited(item, f"{path}[{index}]")


def load_catalog(directory: Path | None = None) -> Catalog:
    """The catalog under ``directory`` (None: the shipped ``models/``): every section's YAML files,
    each checked against its schema, its sources against the bibliography and the cross-references
    (drive families, NAND generations, link rates); one ``InputError`` naming the file otherwise.
    The sections are read-only (``ReadOnlyDict``). ``default_catalog`` keeps the shipped one. A
    leading ``~`` is the user's home, as docs/catalog.md writes ``load_catalog("~/my-catalog")``."""
    directory = Path(directory).expanduser() if directory else catalog_dir()
    bibliography = directory / "bibliography.yaml"
    if not bibliography.is_file():  # a folder of a few entries, or a mistyped path
        named = "NVSIM_CATALOG" if os.environ.get("NVSIM_CATALOG") and directory == catalog_dir() else "catalog"
        why = "its bibliography.yaml is not a file" if bibliography.exists() else "it has no bibliography.yaml"
        raise InputError(named, f"{directory} is not a catalog folder ({why}); allowed: a whole copy of nvsim's "
                                f"models/ with your entries added (docs/catalog.md, 'Your own catalog')")
    catalog = Catalog()
    catalog.bibliography.update(load_bibliography(directory / "bibliography.yaml"))
    for section, model in SECTIONS.items():
        for path in sorted((directory / section).glob("*.yaml")):
            raw = _prepared(catalog, section, read_yaml(path), path)
            try:
                entry = model.model_validate(raw)
            except ValidationError as exc:
                raise from_validation_error(exc, model, source=str(path)) from None
            if isinstance(entry, NandGenerationSpec):
                _nand_check(path, check_generation, entry, catalog.nand_types)
            store = getattr(catalog, section)
            if entry.name.lower() != path.stem.lower():  # a scenario names an entry by its file; both must agree
                raise InputError("name", f"{entry.name!r} is not the file's name {path.stem!r}; allowed: {path.stem!r}",
                                 source=str(path))
            if entry.name in catalog.files:
                raise InputError("name", f"duplicate catalog name {entry.name!r} (also in {catalog.files[entry.name]})", source=str(path))
            same = next((name for name in catalog.files if name.lower() == entry.name.lower()), None)
            if same is not None:  # two files a case-insensitive file system (macOS, Windows) holds as one
                raise InputError("name", f"duplicate catalog name {entry.name!r}: {same!r} ({catalog.files[same]}) differs "
                                         f"only in case; allowed: a name no other entry has in any case", source=str(path))
            if isinstance(entry, EngineSpec):  # its parameters against its plug-in's schema
                engine_parameters(entry, source=str(path))
            store[entry.name] = entry
            catalog.files[entry.name] = path
            for where, cited in iter_cited(entry):
                if cited.source not in catalog.bibliography:
                    hint = suggestion_text(cited.source, catalog.bibliography)
                    raise InputError(where, f"source {cited.source!r} is not in {directory / 'bibliography.yaml'}{hint}",
                                     source=str(path))
        if section == "nand":  # every type's default generation, once the generations are in
            for name, nand_type in catalog.nand_types.items():
                _nand_check(catalog.files[name], check_type, nand_type, catalog.nand)
    _check_generations(catalog)
    check_link_rates(catalog)
    _check_families(catalog)
    _check_drive_models(catalog)
    return catalog.frozen()


def _prepared(catalog: Catalog, section: str, raw: Any, path: Path) -> Any:
    """A file's mapping as its section's spec reads it: a family with its NAND generation's die
    capacity and type, a drive completed from its family and given its NAND generation's die
    (``nvsim.ssd.nand``)."""
    if section == "families":
        return _nand_check(path, complete_family, raw, catalog.nand, catalog.nand_types, catalog.controllers)
    if section == "drives":
        raw = _with_family(catalog, raw, path)
        family = catalog.families.get(raw.get("family")) if isinstance(raw, dict) else None
        return _nand_check(path, complete_drive, raw, family, catalog.nand, catalog.nand_types)
    if section == "engines":
        return _with_card_family(catalog, raw, path)
    if section == "card_families" and isinstance(raw, dict) and isinstance(raw.get("scaled_from"), dict):
        base = raw["scaled_from"].get("family")
        if base not in catalog.card_families:
            raise InputError("scaled_from.family", f"unknown card family {base!r} (it must load first: models/card_families/ "
                                                   f"in name order); allowed: {', '.join(sorted(catalog.card_families)) or 'none'}",
                             source=str(path))
        try:  # its factors divide the predecessor's costs: checked before they do
            CardGenerationStep.model_validate(raw["scaled_from"])
        except ValidationError as exc:
            raise from_validation_error(exc, CardGenerationStep, prefix="scaled_from", source=str(path)) from None
        try:
            return scaled_family(raw, catalog.card_families[base])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError("scaled_from", f"needs iops_factor and bandwidth_factor, each {{value, source, basis}} ({exc})",
                             source=str(path)) from None
    return raw


def _with_card_family(catalog: Catalog, raw: Any, path: Path) -> Any:
    """A card SKU's mapping completed from the card family it names (``complete_card``); as it is
    when it names none."""
    if not isinstance(raw, dict) or raw.get("family") is None:
        return raw
    name = raw["family"]
    families = {**catalog.card_families, **catalog.gpu_families}
    if not isinstance(name, str) or name not in families:
        known = ", ".join(sorted(families)) or "none"
        raise InputError("family", f"unknown card or GPU family {name!r}{suggestion_text(str(name), families)} "
                                   f"(models/card_families/, models/gpu_families/); allowed: {known}", source=str(path))
    complete = complete_gpu if name in catalog.gpu_families else complete_card
    try:
        return complete(raw, families[name])
    except ValueError as exc:
        field_name, _, message = str(exc).partition(": ")
        raise InputError(field_name, message, source=str(path)) from None


def _nand_check(path: Path, function: Any, *args: Any) -> Any:
    """``function(*args)`` with its ``SkuFieldError`` as the file's one-line InputError."""
    try:
        return function(*args)
    except SkuFieldError as exc:
        raise InputError(exc.field, str(exc), source=str(path)) from None


def _with_family(catalog: Catalog, raw: Any, path: Path) -> Any:
    """A drive file's mapping, completed from the family it names (module docstring); as it is
    when it names none."""
    if not isinstance(raw, dict) or raw.get("family") is None:
        return raw
    name = raw["family"]
    if not isinstance(name, str):
        raise InputError("family", f"must name one drive family of models/families/ (a string), got a "
                                   f"{type(name).__name__}; allowed: {', '.join(sorted(catalog.families)) or 'none'}",
                         source=str(path))
    if name not in catalog.families:
        raise InputError("family", f"unknown drive family {name!r}{suggestion_text(str(name), catalog.families)} "
                                   f"(models/families/)", source=str(path))
    try:
        return complete_sku(raw, catalog.families[name])
    except SkuFieldError as exc:
        raise InputError(exc.field, str(exc), source=str(path)) from None
    except ValueError as exc:  # the family's own numbers cannot price this SKU
        raise InputError("family", f"{name}: {exc}", source=str(path)) from None


def _check_families(catalog: Catalog) -> None:
    """Every family's reference SKU is a catalog drive of that family."""
    for name, family in catalog.families.items():
        drive = catalog.drives.get(family.reference_sku)
        if drive is None or drive.family != name:
            raise InputError("reference_sku", f"{family.reference_sku!r} is not a drive of family {name!r} in models/drives/",
                             source=str(catalog.files[name]))


def _check_drive_models(catalog: Catalog) -> None:
    """Every drive's figures make a drive model (``derive_ssd_parameters``): one whose figures
    cannot (an IU whose reads take a random write's whole pool time) is refused in one line naming
    the field, not met as a traceback when a scenario first uses it."""
    for name, drive in catalog.drives.items():
        try:
            derive_ssd_parameters(drive)
        except ValueError as exc:
            field_name, _, message = str(exc).partition(": ")
            raise InputError(field_name, message, source=str(catalog.files[name])) from None


def load_bibliography(path: Path) -> dict[str, Source]:
    """models/bibliography.yaml checked (every source has a title; known keys only), one line if not."""
    raw = read_yaml(path)
    try:
        bib = BibliographyFile.model_validate(raw if raw is not None else {})
    except ValidationError as exc:
        raise from_validation_error(exc, BibliographyFile, source=str(path)) from None
    return {key: Source(key=key, title=item.title, publisher=item.publisher, year=item.year, location=item.location)
            for key, item in bib.sources.items()}


def _check_generations(catalog: Catalog) -> None:
    """Every PCIe generation an entry names (a drive's, a platform's, an engine card's) has its
    link constants in the catalog's links/, so no model meets an unknown generation later."""
    known = {entry.generation for entry in catalog.links.values()}
    for section in ("drives", "platforms", "engines", "switches", "retimers", "backplanes"):
        for name, entry in getattr(catalog, section).items():
            for where, cited in iter_cited(entry):
                if where.endswith("pcie_generation") and cited.value not in known:
                    raise InputError(where, f"no PCIe generation {cited.value} in the catalog's links/; allowed: "
                                            f"{', '.join(map(str, sorted(known)))}", source=str(catalog.files[name]))


def check_link_rates(catalog: Catalog) -> None:
    """No drive's datasheet rate (sequential bytes, random I/Os times their block) passes what its
    own PCIe link carries one way before any protocol overhead (its generation's transfer rate and
    encoding, times its lanes): such a figure is a typo, and the drive model would be built on it."""
    links = {entry.generation: entry for entry in catalog.links.values()}
    for name, drive in catalog.drives.items():
        g = links[drive.pcie_generation.value]
        ceiling = raw_bytes_per_s(g.transfer_rate_gt_per_s.value, drive.lanes.value, g.encoding_payload_bits.value,
                                  g.encoding_total_bits.value)
        for field_name, bytes_per_s in drive.datasheet_bytes_per_s.items():
            if bytes_per_s > ceiling:
                raise InputError(field_name, f"{bytes_per_s / 1e9:,.2f} GB/s; its PCIe Gen{g.generation} "
                                             f"x{drive.lanes.value} link carries at most {ceiling / 1e9:,.2f} GB/s one way",
                                 source=str(catalog.files[name]))


CACHE_ENV = "NVSIM_CATALOG_CACHE"
"""Set to 0 to load the catalog from its YAML files every time (no disk cache)."""


def catalog_digest(directory: Path) -> str:
    """A digest of what a loaded catalog depends on: nvsim's source, the directory's path, every
    file under it (names and bytes) and the input size bound in force."""
    parts = (source_digest(), str(directory.resolve()), str(max_input_bytes()), source_digest(directory, "*"))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:DIGEST_CHARS]


def cached_catalog(directory: Path, base: Path | None = None) -> Catalog:
    """``load_catalog(directory)``, kept on disk (``<cache>/catalog/<catalog_digest>.pickle``) so
    that the next process reads one file instead of parsing and checking 120 (about 1 s on 2
    cores): any edit of the catalog or of nvsim's source makes a new key. A cache that cannot be
    read or written is ignored."""
    if os.environ.get(CACHE_ENV, "1") == "0":
        return load_catalog(directory)
    path = (base or default_base().parent / "catalog") / f"{catalog_digest(directory)}.pickle"
    try:
        with open(path, "rb") as handle:
            catalog = pickle.load(handle)  # noqa: S301 - the user's own cache, written below
        if isinstance(catalog, Catalog):
            return catalog
    except Exception:  # noqa: BLE001 - missing, partial or from another Python: load afresh
        pass
    catalog = load_catalog(directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            Path(tmp).write_bytes(pickle.dumps(catalog, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass
    return catalog


@lru_cache(maxsize=4)
def _cached(directory: str) -> Catalog:
    try:
        shipped = Path(directory).resolve() == Path(DEFAULT_CATALOG_DIR).resolve()  # a test's copies leave no files
    except (OSError, RuntimeError):  # a loop of links: Python reads it as RuntimeError or ELOOP
        raise InputError("NVSIM_CATALOG", f"{directory} is a symbolic link that loops; allowed: a catalog folder") from None
    return cached_catalog(Path(directory)) if shipped else load_catalog(Path(directory))


def default_catalog() -> Catalog:
    """The shipped catalog, loaded once per process."""
    return _cached(str(catalog_dir()))


def catalog_or_default(catalog: object) -> Catalog:
    """The catalog a Python caller passed, or the shipped one for None; anything else one
    ``InputError`` (a string there was an AttributeError deep in the model)."""
    if catalog is None:
        return default_catalog()
    if not isinstance(catalog, Catalog):
        raise InputError("catalog", f"a nvsim Catalog (nvsim.load_catalog(folder) for your own, None for the shipped one), "
                                    f"got {type(catalog).__name__}")
    return catalog
