"""A drive from the customer's datasheet: the form's figures -> a catalog drive for this session.

The figures a datasheet always has (capacity, DWPD, sequential read and write, 4 KiB random read
and write IOPS, PCIe generation, NAND type) become an ``nvsim.specs.DriveSpec``; nvsim's datasheet
mode (``nvsim.ssd.derive.derive_ssd_parameters``) turns it into the SSD model's parameters, as for
every catalog drive. What a datasheet rarely gives is assumed, each with its note (ASSUMED below):
raw NAND is the power of two at or above RAW_OVER_CAPACITY x the capacity unless given.

Optional, for cost and power (nvsim.cost): the drive's price (US dollars, with the date it holds
for) and its idle, active read and active write power in watts, from the datasheet; a price is the
user's (kind ``street``, basis ``datasheet``, like every figure the user enters), the powers go
together or not at all.

A sheet is plain JSON (it lives in the browser's store and in a shared link); ``session_catalog``
adds the session's drives to the shipped catalog. A bad figure is one line under its form field
that starts with the field's label as the form shows it (``LABELS``: "4K random read IOPS: ..."),
never a spec path such as ``rand_read_iops.value``.

Every figure must be one a drive can have (``BOUNDS``, docs/dashboard.md): capacity from 1 GB to
1 PB, raw NAND up to 2 PB, rates in the catalog's own drive ranges (``DRIVE_FIGURE_RANGES``,
imported, not restated: sequential 1 MB/s to what a PCIe 6.0 x16 link carries, 128 GB/s; 4K random
1,000 to 31.25M I/Os per second: no drive has a faster link), DWPD above 0 and up to 100; every text at
most ``MAX_TEXT_CHARS`` characters, printable (no control, format or line-separator character: the
model and vendor are shown in tables, reports and shared links) and Unicode. The figures must agree
too: every rate within what the drive's own link carries (its PCIe generation, x4 assumed: the
catalog's check of its drives), idle power at most each active power (the catalog's drive check)
and a price date a real month or day, not after today. A form or a shared link outside them is
refused, one line naming the field and what is allowed.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from nvsim import Catalog, InputError, default_catalog
from nvsim.catalog import check_link_rates
from nvsim.errors import from_validation_error, not_printable
from nvsim.specs import PCIE_GENERATIONS, DriveSpec
from nvsim.specs.base import PRICE_DATE
from nvsim.specs.parts import (DRIVE_CAPACITY_BYTES_RANGE, DRIVE_DWPD_MAX, DRIVE_FIGURE_RANGES, DRIVE_RAW_NAND_BYTES_MAX,
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

LABELS = {  # form field -> its label in the form (dashboard/views.py shows these; errors start with them)
    "ds-model": "Model", "ds-vendor": "Vendor", "ds-capacity": "Capacity", "ds-dwpd": "DWPD",
    "ds-seq-read": "Sequential read", "ds-seq-write": "Sequential write", "ds-rand-read": "4K random read IOPS",
    "ds-rand-write": "4K random write IOPS", "ds-raw": "Raw NAND", "ds-pcie": "PCIe", "ds-nand": "NAND",
    "ds-price": "Price (USD)", "ds-price-date": "Price date", "ds-power-idle": "Idle power (W)",
    "ds-power-read": "Active read power (W)", "ds-power-write": "Active write power (W)",
}
FIELDS = {  # form field -> DriveSpec field; the user's figures, basis datasheet
    "ds-capacity": "capacity_bytes", "ds-dwpd": "dwpd", "ds-seq-read": "seq_read_bytes_per_s",
    "ds-seq-write": "seq_write_bytes_per_s", "ds-rand-read": "rand_read_iops", "ds-rand-write": "rand_write_iops",
    "ds-pcie": "pcie_generation", "ds-raw": "raw_nand_bytes",
}
OPTIONAL = ("ds-raw",)
"""Figures of FIELDS the form may leave empty (raw NAND is then assumed from the capacity)."""
POWER_FIELDS = {"ds-power-idle": "power_idle_w", "ds-power-read": "power_active_read_w", "ds-power-write": "power_active_write_w"}
"""Optional power figures (watts), given all three or none (nvsim.cost needs the three)."""
PRICE_KIND = "street"
"""A price the user enters is theirs (a quote or what they paid), not the vendor's list price."""
SPEC_FIELDS = {**{field: key for key, field in FIELDS.items()}, **{field: key for key, field in POWER_FIELDS.items()},
               "price_usd": "ds-price", "price_date": "ds-price-date", "price_kind": "ds-price", "nand": "ds-nand",
               "model": "ds-model", "vendor": "ds-vendor"}
"""DriveSpec field -> the form field it comes from (an error from the spec is shown under it)."""
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
DRIVE_PRICE_USD_MAX = 1_000_000
"""Most a drive may cost (USD): the dearest enterprise drives sell for tens of thousands."""
DRIVE_POWER_W_MAX = 75.0
"""Most a drive may draw (W): what a PCIe add-in card slot delivers (U.2 and E3.S drives: 25-70 W)."""


def plain_number(text: str) -> float:
    """A price or a power as typed: '1,250', 'USD 1250', '$1250', '25 W' -> the number."""
    cleaned = re.sub(r"(?i)^\s*(usd|\$)|\s*w\s*$|[,\s]", "", str(text))
    number = float(cleaned)
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {text!r}")
    return number


def _drive_range(key: str, parse: Any, shown: Any) -> tuple:
    """A ``BOUNDS`` entry holding form field ``key`` to the catalog's range of its drive figure
    (``nvsim.specs.parts.DRIVE_FIGURE_RANGES``, which the catalog loader holds every drive to)."""
    least, most, why = DRIVE_FIGURE_RANGES[FIELDS[key]]
    return parse, least, most, shown, why


BOUNDS = {  # form field -> (parser, least (exclusive when 0), most, formatter, why)
    "ds-capacity": (parse_bytes, *DRIVE_CAPACITY_BYTES_RANGE, format_bytes_decimal,
                    "the largest drives shipping hold 245.76 TB"),
    "ds-raw": (parse_bytes, DRIVE_CAPACITY_BYTES_RANGE[0], DRIVE_RAW_NAND_BYTES_MAX, format_bytes_decimal,
               "up to twice the largest capacity allowed"),
    **{key: _drive_range(key, parse_bytes_per_s, format_rate_decimal) for key in ("ds-seq-read", "ds-seq-write")},
    **{key: _drive_range(key, parse_count, format_count) for key in ("ds-rand-read", "ds-rand-write")},
    "ds-dwpd": (float, 0, DRIVE_DWPD_MAX, lambda v: f"{v:g}", "the most endurant drives are rated 100 DWPD"),
    "ds-price": (plain_number, 0, DRIVE_PRICE_USD_MAX, lambda v: f"USD {v:,.0f}", "no drive sells for more"),
    **{key: (plain_number, 0, DRIVE_POWER_W_MAX, lambda v: f"{v:g} W", "a PCIe slot's 75 W, the most any drive may draw")
       for key in POWER_FIELDS},
}
"""The range each figure of the form may take, and why."""


def form_error(key: str, message: str) -> InputError:
    """An error shown under form field ``key``: one line that starts with the field's label."""
    return InputError(key, f"{LABELS[key]}: {message}")


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
    """Every text of the form short, Unicode and printable as typed (a sheet keeps the text as
    typed: it is shown in the drive selector and travels in shared links)."""
    for key, value in form.items():
        if not (isinstance(key, str) and key.startswith("ds-")) or value is None:
            continue
        text, field = str(value), key if key in LABELS else "ds-model"
        if len(text) > MAX_TEXT_CHARS:
            raise form_error(field, f"{len(text):,} characters; at most {MAX_TEXT_CHARS}")
        if (why := guard.not_unicode(text)) is not None:
            raise form_error(field, why)
        if (why := not_printable(text)) is not None:
            raise form_error(field, why)


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
            raise form_error(key, f"{text!r} is outside what a drive can have: allowed {low} up to {shown(most)} ({why})")


def drive_data(form: dict[str, Any]) -> dict[str, Any]:
    """The DriveSpec data of a datasheet form (not yet validated); a missing figure, a text too
    long or a figure out of its physical range (``BOUNDS``) is an InputError."""
    _check_text(form)
    check_bounds(form)
    model = _text(form, "ds-model")
    if not model:
        raise form_error("ds-model", "enter the drive's model, e.g. 'PM1743 7.68 TB'")
    catalog = default_catalog()
    nand = _text(form, "ds-nand") or "TLC"
    if nand not in nand_types(catalog):
        raise form_error("ds-nand", f"unknown NAND type {nand!r}; allowed: {', '.join(nand_types(catalog))}")
    nand_type = catalog.nand_types[nand]
    data: dict[str, Any] = {"name": PREFIX + slug(model), "vendor": _text(form, "ds-vendor") or "datasheet", "model": model,
                            "nand": nand, "form_factor": "from datasheet"}
    for key, field in FIELDS.items():
        text = _text(form, key)
        if not text and key not in OPTIONAL:
            raise form_error(key, "enter the figure from the datasheet")
        if text:
            data[field] = _cited(text, "datasheet", "entered in the nvsim dashboard from the user's datasheet")
    data.update(_cost_data(form))
    if "raw_nand_bytes" not in data:
        try:
            capacity = parse_bytes(data["capacity_bytes"]["value"])
        except (InputError, ValueError):
            raise form_error("ds-capacity", f"not a size, got {data['capacity_bytes']['value']!r} (e.g. 7.68 TB)") from None
        data["raw_nand_bytes"] = _cited(raw_nand_bytes(capacity), "assumed",
                                        f"power of two at or above {RAW_OVER_CAPACITY} x the capacity (raw NAND not given)")
    for field, (value, note) in ASSUMED.items():
        data[field] = _cited(value, "assumed", note)
    data["indirection_unit_bytes"] = _cited(nand_type.indirection_unit_bytes.value, "assumed", f"{nand} drives map this unit")
    generation = catalog.nand[nand_type.default_generation]
    data["nand_generation"] = generation.name
    data["nand_die_bytes"] = generation.die_bytes.model_dump()
    return data


def _number(form: dict[str, Any], key: str) -> float | None:
    text = _text(form, key)
    if not text:
        return None
    try:
        return plain_number(text)
    except ValueError:
        raise form_error(key, f"not a number, got {text!r} (e.g. {'1,200' if key == 'ds-price' else '25'})") from None


def _cost_data(form: dict[str, Any]) -> dict[str, Any]:
    """The drive's optional price (with its date) and power figures, cited as the user's."""
    note = "entered in the nvsim dashboard by the user"
    data: dict[str, Any] = {}
    price, date = _number(form, "ds-price"), _text(form, "ds-price-date")
    if price is not None or date:
        if price is None:
            raise form_error("ds-price", f"enter the price the date {date[:20]!r} is for, or clear the date")
        if not re.fullmatch(PRICE_DATE, date):
            got = f", got {date[:20]!r}" if date else ""
            raise form_error("ds-price-date", f"enter the date the price holds for, as YYYY-MM or YYYY-MM-DD{got}")
        _check_price_date(date)
        data.update(price_usd=_cited(price, "datasheet", f"{note} (their price)"), price_date=date, price_kind=PRICE_KIND)
    watts = {key: _number(form, key) for key in POWER_FIELDS}
    given = [key for key, value in watts.items() if value is not None]
    if given and len(given) < len(watts):
        missing = next(key for key in watts if key not in given)
        raise form_error(missing, "enter it too: idle, active read and active write power go together (or leave all three empty)")
    data.update({POWER_FIELDS[key]: _cited(value, "datasheet", f"{note} from the datasheet") for key, value in watts.items()
                 if value is not None})
    return data


def _check_price_date(date: str) -> None:
    """A price date (YYYY-MM or YYYY-MM-DD, ``PRICE_DATE``) that the calendar has and that is not
    after today: a price is one quoted or paid (2024-13 and 2999-12 were taken)."""
    today = datetime.date.today()
    try:
        day = datetime.date.fromisoformat(date if len(date) > 7 else f"{date}-01")
    except ValueError:
        day = None
    if day is None or day > today:
        why = "is not a date of the calendar" if day is None else "is after today"
        raise form_error("ds-price-date", f"{date!r} {why}; allowed a real YYYY-MM or YYYY-MM-DD up to {today.isoformat()}")


def _spec_field_error(exc: ValidationError) -> InputError:
    """A DriveSpec validation error as the form's: under the field the figure came from, starting
    with that field's label, without the spec's path ('rand_read_iops.value: ...')."""
    error = from_validation_error(exc, DriveSpec)
    name = (error.field or "").split(".")[0] or error.message.split(":")[0].split(" ")[0]
    key = SPEC_FIELDS.get(name, "ds-model")
    message = re.sub(rf"^{re.escape(name)}(\.value)?:\s*", "", error.message) if name in SPEC_FIELDS else error.message
    for field, other in SPEC_FIELDS.items():  # a message naming another figure ('raw_nand_bytes must be at least capacity_bytes')
        if "_" in field:
            message = re.sub(rf"\b{field}\b", LABELS[other], message)
    return form_error(key, message.removeprefix(LABELS[key] + " "))


def drive_spec(data: dict[str, Any]) -> DriveSpec:
    """The validated drive, derived once through datasheet mode (so a figure the model cannot
    honour, such as a random write rate above what the NAND can program, is refused here)."""
    try:
        spec = DriveSpec.model_validate(data)
    except ValidationError as exc:
        raise _spec_field_error(exc) from None
    _check_link(spec)
    try:
        derive_ssd_parameters(spec)
    except ValueError as exc:
        raise form_error("ds-rand-write", f"the figures do not make a drive: {exc}") from None
    return spec


def _check_link(spec: DriveSpec) -> None:
    """Every rate of the drive within what its own link carries one way (its PCIe generation, the
    lanes ASSUMED): the catalog's own check of its drives, run on a catalog of this drive alone (100
    GB/s on a Gen4 drive was taken: only the fastest link, BOUNDS, held it). A generation older than
    the catalog's link constants (models/links/) has no link to build; a newer one (PCIe 6.0) runs
    at its bay's generation, so it is held to BOUNDS only."""
    links = default_catalog().links
    known = {link.generation for link in links.values()}
    generation = spec.pcie_generation.value
    if generation < min(known):
        allowed = ", ".join(str(g) for g in PCIE_GENERATIONS if g >= min(known))
        raise form_error("ds-pcie", f"generation {generation} has no link constants in the catalog; allowed: {allowed}")
    if generation not in known:
        return
    try:
        check_link_rates(Catalog(drives={spec.name: spec}, links=links, files={spec.name: Path("datasheet")}))
    except InputError as exc:
        _lanes, note = ASSUMED["lanes"]
        raise form_error(SPEC_FIELDS.get(exc.field, "ds-seq-read"), f"{exc.message} (assumed {note})") from None


def add_sheet(form: dict[str, Any], sheets: list[dict[str, Any]] | None, catalog: Catalog) -> tuple[list[dict], str]:
    """The session's sheets with this form's drive added (or replaced, same model); its name. A
    sheet is the form as typed (``ds-*`` keys, short enough for a link) plus the drive's name."""
    data = drive_data(form)
    drive_spec(data)
    sheet = {"name": data["name"], **{k: v for k, v in form.items() if k.startswith("ds-") and v not in (None, "")}}
    if data["name"] in catalog.drives and not any(s["name"] == data["name"] for s in sheets or []):
        raise form_error("ds-model", f"{data['name']} is already a catalog drive: give the model another name")
    kept = [s for s in sheets or [] if s.get("name") != data["name"]]
    if len(kept) >= MAX_SHEETS:
        raise form_error("ds-model", f"at most {MAX_SHEETS} datasheet drives per session")
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
