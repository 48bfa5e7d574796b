"""Product names of catalog entries, as a customer reads them: the one place every output (the
CLI's tables and sentences, the resource labels of the fabric, the dashboard, the report) turns an
engine, drive, server or engine device into words.

Derived from the catalog's own fields (vendor, model, capacity, product), never a second list of
names: ``engine_name`` of graid-supremeraid-sr1010 is "Graid Technology SupremeRAID SR-1010",
``drive_name`` of kioxia-cm7-r-3.84tb is "KIOXIA CM7-R 3.84 TB". A name never holds a parenthesis
inside another one, and a size says its unit once.
"""

from __future__ import annotations

import re
from typing import Any

from .units import format_bytes_decimal, parse_bytes

_WORDY_PARENTHESIS = re.compile(r"\s*\([^()]*\s[^()]*\)")
"""A parenthesis of several words (a description, "(NVIDIA RTX 2000 Ada based)"); a one-word one
("(VROC)", "(mdadm)") is part of the name and stays."""
_LEVEL_LIST = re.compile(r"\s+RAID\s+[0-9/]+$")
"""A trailing list of RAID levels ("RAID 0/1/10/5/6"): what it does, not what it is called."""
_PART_NUMBER = re.compile(r"\s*\([A-Z0-9-]+\)$")
"""A part number in parentheses after a device's name ("(GPU-NVQRTX2000-ADA)")."""
NO_VENDOR = ("", "-")


def _lead(product: str) -> str:
    """The name part of a product text: wordy parentheses out, cut at the first ':', ';' or ','."""
    text = _WORDY_PARENTHESIS.sub("", product)
    text = re.split(r"[:;,]\s", text, maxsplit=1)[0].strip()
    return _LEVEL_LIST.sub("", text).strip()


def _with_vendor(vendor: str, name: str) -> str:
    if vendor in NO_VENDOR or name.lower().startswith(vendor.lower()):
        return name
    return f"{vendor} {name}"


def device_name(product: str) -> str:
    """An engine device's product ("NVIDIA RTX 2000 Ada (GPU-NVQRTX2000-ADA)") without its part
    number and description: "NVIDIA RTX 2000 Ada"."""
    return _PART_NUMBER.sub("", _WORDY_PARENTHESIS.sub("", product)).strip()


def engine_name(engine: Any) -> str:
    """An engine's product name (``EngineSpec``): its vendor and the name of its product; a RAID
    card's own device name where the product text starts with it ("Broadcom MegaRAID 9560-16i")."""
    lead = _lead(engine.product)
    device = getattr(engine, "device", None)
    if device is not None and device.product and lead.startswith(device.product):
        lead = device.product
    return _with_vendor(engine.vendor, lead)


def size_text(n_bytes: float) -> str:
    """The shortest decimal size ("6.4 TB", "15.36 TB") that reads back as exactly ``n_bytes``."""
    for digits in range(0, 10):
        text = format_bytes_decimal(n_bytes, digits)
        if parse_bytes(text) == n_bytes:
            return text
    return f"{n_bytes:.0f} B"


def drive_name(drive: Any) -> str:
    """A drive's product name (``DriveSpec``): vendor, model and capacity ("KIOXIA CM7-R 3.84 TB")."""
    return _with_vendor(drive.vendor, f"{drive.model} {size_text(drive.capacity_bytes.value)}")


def platform_name(platform: Any) -> str:
    """A server's product name (``PlatformSpec``): vendor and model, with its CPUs."""
    return _with_vendor(platform.vendor, platform.model)


def switch_name(switch: Any) -> str:
    """A PCIe switch's product name (``SwitchSpec``): vendor and model, without the family text."""
    return _with_vendor(switch.vendor, _lead(switch.model))


def product_name(catalog: Any, section: str, name: str) -> str:
    """The product name of catalog entry ``name`` of ``section`` ("engines", "drives",
    "platforms"); the name itself when the catalog has no such entry (a scenario's own text)."""
    entry = getattr(catalog, section).get(name)
    if entry is None:
        return str(name)
    return {"engines": engine_name, "drives": drive_name, "platforms": platform_name}[section](entry)


def engine_label(catalog: Any, name: str, settings: dict | None) -> str:
    """The engine's product name (``product_name``) and, where its settings choose something the
    name does not say (``Engine.settings_label``: a GPU card's driver), that choice in brackets."""
    text = product_name(catalog, "engines", name)
    if name not in catalog.engines:
        return text
    label = catalog.engine_class(name).settings_label(catalog.engines[name], settings)
    return f"{text} ({label})" if label else text
