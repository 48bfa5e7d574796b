"""A drive from the customer's datasheet: the form's figures -> a catalog drive for this session.

The figures a datasheet always has (capacity, DWPD, sequential read and write, 4 KiB random read
and write IOPS, PCIe generation, NAND type) become an ``nvsim.specs.DriveSpec``; nvsim's datasheet
mode (``nvsim.ssd.derive.derive_ssd_parameters``) turns it into the SSD model's parameters, as for
every catalog drive. What a datasheet rarely gives is assumed, each with its note (ASSUMED below):
raw NAND is the power of two at or above RAW_OVER_CAPACITY x the capacity unless given.

A sheet is plain JSON (it lives in the browser's store and in a shared link); ``session_catalog``
adds the session's drives to the shipped catalog. A bad figure is one line naming the form field.

Every figure must be one a drive can have (``BOUNDS``, docs/dashboard.md): capacity from 1 GB to
1 PB, raw NAND up to 2 PB, rates above 0 and no more than a PCIe 6.0 x16 link carries (128 GB/s,
31.25M 4 KiB I/Os per second: no drive has a faster link), DWPD above 0 and up to 100; every text at
most ``MAX_TEXT_CHARS`` characters. A form or a shared link outside them is refused, one line
naming the field and the range allowed.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from functools import lru_cache
from typing import Any

import yaml
from pydantic import ValidationError

from nvsim import Catalog, InputError, default_catalog
from nvsim.errors import from_validation_error
from nvsim.specs import DriveSpec
from nvsim.specs.parts import (DRIVE_CAPACITY_BYTES_RANGE, DRIVE_DWPD_MAX, DRIVE_LINK_CEILING_BYTES_PER_S, DRIVE_RAW_NAND_BYTES_MAX,
                               DRIVE_TEXT_CHARS_MAX)
from nvsim.ssd.derive import derive_ssd_parameters
from nvsim.units import format_bytes_decimal, format_count, format_rate_decimal, parse_bytes, parse_bytes_per_s, parse_count

from . import guard

SOURCE = "nvsim-assumptions"
"""Bibliography key of the session's drives: the user's own datasheet is not in models/bibliography.yaml."""
PREFIX = "datasheet-"
"""Names of session drives start with this, so they never shadow a catalog drive."""
RAW_OVER_CAPACITY = 1.07
"""Least raw NAND over user capacity assumed when raw NAND is not given (a 1 DWPD drive's ~7%)."""
MAX_SHEETS = guard.MAX_SHEETS

FIELDS = {  # form field -> (DriveSpec field, label); the user's figures, basis datasheet
    "ds-capacity": ("capacity_bytes", "capacity"), "ds-dwpd": ("dwpd", "DWPD"),
    "ds-seq-read": ("seq_read_bytes_per_s", "sequential read"), "ds-seq-write": ("seq_write_bytes_per_s", "sequential write"),
    "ds-rand-read": ("rand_read_iops", "4K random read IOPS"), "ds-rand-write": ("rand_write_iops", "4K random write IOPS"),
    "ds-pcie": ("pcie_generation", "PCIe generation"), "ds-raw": ("raw_nand_bytes", "raw NAND"),
}
ASSUMED = {  # DriveSpec field -> (value, note); basis assumed
    "lanes": (4, "x4: a U.2/U.3/E3.S drive"), "seq_block_bytes": ("128 KiB", "datasheet sequential figures are 128 KiB"),
    "rand_block_bytes": ("4 KiB", "datasheet random figures are 4 KiB"),
    "rand_queue_depth": (256, "datasheet random figures are taken at deep queues"),
    "read_latency_us": (80.0, "4 KiB QD1 read, typical TLC"), "write_latency_us": (15.0, "4 KiB QD1 write into the protected buffer"),
    "warranty_years": (5.0, "enterprise drives carry 5 years"), "mtbf_hours": (2_000_000.0, "typical enterprise figure"),
    "uber_per_bit": (1e-17, "enterprise class"),
}
MAX_TEXT_CHARS = DRIVE_TEXT_CHARS_MAX
"""Longest text a form field takes (the catalog's own bound for a drive's names)."""
LINK_CEILING_BYTES_PER_S = DRIVE_LINK_CEILING_BYTES_PER_S
"""The most a drive's link can carry one way (PCIe 6.0 x16, ``nvsim.specs.parts``)."""
RANDOM_IO_BYTES = 4096
"""The datasheet's random figures are 4 KiB I/Os (ASSUMED rand_block_bytes)."""
BOUNDS = {  # form field -> (parser, least (exclusive when 0), most, formatter, why)
    "ds-capacity": (parse_bytes, *DRIVE_CAPACITY_BYTES_RANGE, format_bytes_decimal,
                    "the largest drives shipping hold 245.76 TB"),
    "ds-raw": (parse_bytes, DRIVE_CAPACITY_BYTES_RANGE[0], DRIVE_RAW_NAND_BYTES_MAX, format_bytes_decimal,
               "up to twice the largest capacity allowed"),
    "ds-seq-read": (parse_bytes_per_s, 0, LINK_CEILING_BYTES_PER_S, format_rate_decimal, "what a PCIe 6.0 x16 link carries"),
    "ds-seq-write": (parse_bytes_per_s, 0, LINK_CEILING_BYTES_PER_S, format_rate_decimal, "what a PCIe 6.0 x16 link carries"),
    "ds-rand-read": (parse_count, 0, LINK_CEILING_BYTES_PER_S / RANDOM_IO_BYTES, format_count,
                     "4 KiB I/Os a PCIe 6.0 x16 link carries"),
    "ds-rand-write": (parse_count, 0, LINK_CEILING_BYTES_PER_S / RANDOM_IO_BYTES, format_count,
                      "4 KiB I/Os a PCIe 6.0 x16 link carries"),
    "ds-dwpd": (float, 0, DRIVE_DWPD_MAX, lambda v: f"{v:g}", "the most endurant drives are rated 100 DWPD"),
}
"""The range each figure of the form may take, and why."""


def nand_types(catalog: Catalog | None = None) -> list[str]:
    """The NAND types the form offers: the catalog's (models/nand_types/) that have a default
    generation, so a drive from a datasheet gets its die capacity from data."""
    catalog = catalog or default_catalog()
    return [name for name, entry in catalog.nand_types.items() if entry.default_generation is not None]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def raw_nand_bytes(capacity_bytes: int) -> int:
    """The assumed raw NAND: the power of two at or above RAW_OVER_CAPACITY x the capacity."""
    return 2 ** math.ceil(math.log2(RAW_OVER_CAPACITY * capacity_bytes))


def _cited(value: Any, basis: str, note: str) -> dict[str, Any]:
    return {"value": value, "source": SOURCE, "basis": basis, "note": note}


def _text(form: dict[str, Any], key: str) -> str:
    value = form.get(key)
    return "" if value is None else str(value).strip()


def _check_text(form: dict[str, Any]) -> None:
    for key, value in form.items():
        if isinstance(key, str) and key.startswith("ds-") and value is not None and len(str(value)) > MAX_TEXT_CHARS:
            raise InputError(key, f"{len(str(value)):,} characters; at most {MAX_TEXT_CHARS}")


def check_bounds(form: dict[str, Any]) -> None:
    """Each figure the form gives within its physical range (``BOUNDS``); a figure that does not
    parse is left to the drive's own validation, which names it."""
    for key, (parse, least, most, shown, why) in BOUNDS.items():
        text = _text(form, key)
        if not text:
            continue
        try:
            value = parse(text)
        except (InputError, ValueError, OverflowError):
            continue
        if not (value > least if least == 0 else value >= least) or not value <= most:
            low = f"above {shown(least) if least else 0}" if least == 0 else f"from {shown(least)}"
            raise InputError(key, f"{text!r} is outside what a drive can have: allowed {low} up to {shown(most)} ({why})")


def drive_data(form: dict[str, Any]) -> dict[str, Any]:
    """The DriveSpec data of a datasheet form (not yet validated); a missing figure, a text too
    long or a figure out of its physical range (``BOUNDS``) is an InputError."""
    _check_text(form)
    check_bounds(form)
    model = _text(form, "ds-model")
    if not model:
        raise InputError("ds-model", "enter the drive's model, e.g. 'PM1743 7.68 TB'")
    catalog = default_catalog()
    nand = _text(form, "ds-nand") or "TLC"
    if nand not in nand_types(catalog):
        raise InputError("ds-nand", f"unknown NAND type {nand!r}; allowed: {', '.join(nand_types(catalog))}")
    nand_type = catalog.nand_types[nand]
    data: dict[str, Any] = {"name": PREFIX + slug(model), "vendor": _text(form, "ds-vendor") or "datasheet", "model": model,
                            "nand": nand, "form_factor": "from datasheet"}
    for key, (field, label) in FIELDS.items():
        text = _text(form, key)
        if not text and key != "ds-raw":
            raise InputError(key, f"enter the {label} from the datasheet")
        if text:
            data[field] = _cited(text, "datasheet", "entered in the nvsim dashboard from the user's datasheet")
    if "raw_nand_bytes" not in data:
        try:
            capacity = parse_bytes(data["capacity_bytes"]["value"])
        except (InputError, ValueError):
            raise InputError("ds-capacity", f"capacity: not a size, got {data['capacity_bytes']['value']!r} (e.g. 7.68 TB)") from None
        data["raw_nand_bytes"] = _cited(raw_nand_bytes(capacity), "assumed",
                                        f"power of two at or above {RAW_OVER_CAPACITY} x the capacity (raw NAND not given)")
    for field, (value, note) in ASSUMED.items():
        data[field] = _cited(value, "assumed", note)
    data["indirection_unit_bytes"] = _cited(nand_type.indirection_unit_bytes.value, "assumed", f"{nand} drives map this unit")
    generation = catalog.nand[nand_type.default_generation]
    data["nand_generation"] = generation.name
    data["nand_die_bytes"] = generation.die_bytes.model_dump()
    return data


def _form_field(error: InputError) -> str:
    """The form field an error from DriveSpec validation concerns (by the spec field it names)."""
    for key, (field, _label) in FIELDS.items():
        if (error.field or "").startswith(field) or error.message.startswith(field):
            return key
    return "ds-rand-write" if "rand_write_iops" in error.message else "ds-model"


def drive_spec(data: dict[str, Any]) -> DriveSpec:
    """The validated drive, derived once through datasheet mode (so a figure the model cannot
    honour, such as a random write rate above what the NAND can program, is refused here)."""
    try:
        spec = DriveSpec.model_validate(data)
    except ValidationError as exc:
        error = from_validation_error(exc, DriveSpec)
        raise InputError(_form_field(error), str(error)) from None
    try:
        derive_ssd_parameters(spec)
    except ValueError as exc:
        raise InputError("ds-rand-write", f"the figures do not make a drive: {exc}") from None
    return spec


def add_sheet(form: dict[str, Any], sheets: list[dict[str, Any]] | None, catalog: Catalog) -> tuple[list[dict], str]:
    """The session's sheets with this form's drive added (or replaced, same model); its name. A
    sheet is the form as typed (``ds-*`` keys, short enough for a link) plus the drive's name."""
    data = drive_data(form)
    drive_spec(data)
    sheet = {"name": data["name"], **{k: v for k, v in form.items() if k.startswith("ds-") and v not in (None, "")}}
    if data["name"] in catalog.drives and not any(s["name"] == data["name"] for s in sheets or []):
        raise InputError("ds-model", f"{data['name']} is already a catalog drive: give the model another name")
    kept = [s for s in sheets or [] if s.get("name") != data["name"]]
    if len(kept) >= MAX_SHEETS:
        raise InputError("ds-model", f"at most {MAX_SHEETS} datasheet drives per session")
    return kept + [sheet], data["name"]


@lru_cache(maxsize=32)
def _catalog_for(sheets_json: str) -> Catalog:
    base = default_catalog()
    return _with_drives(base, json.loads(sheets_json))


def _with_drives(catalog: Catalog, sheets: list[dict[str, Any]]) -> Catalog:
    drives = {}
    for sheet in sheets:
        spec = drive_spec(drive_data(sheet))
        drives[spec.name] = spec
    return dataclasses.replace(catalog, drives={**catalog.drives, **drives})


def session_catalog(catalog: Catalog, sheets: list[dict[str, Any]] | None) -> Catalog:
    """``catalog`` with the session's datasheet drives added (the same object when there are none)."""
    if not sheets:
        return catalog
    if catalog is default_catalog():
        return _catalog_for(json.dumps(sheets, sort_keys=True))
    return _with_drives(catalog, sheets)


def sheet_yaml(sheet: dict[str, Any]) -> str:
    """The drive as a catalog file (models/drives/NAME.yaml) to keep it beyond the session."""
    header = ("# From the nvsim dashboard's datasheet form: put your datasheet in models/bibliography.yaml and\n"
              "# name it as the source of the figures whose basis is datasheet.\n")
    data = {k: v for k, v in drive_data(sheet).items() if k != "nand_die_bytes"}  # the catalog fills it in
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
