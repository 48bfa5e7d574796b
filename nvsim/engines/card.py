"""A RAID card's mechanisms from its datasheet: what each of its parts costs per unit of work.

A hardware RAID card (a RAID-on-chip, ROC, with DRAM, on its own PCIe link) has three parts a
host I/O can wait on, and a datasheet gives a ceiling that each one sets:

* **the command processor** (the ROC's cores running the firmware) handles every member command:
  ``command_s`` each, from the card's 4 KiB random-read ceiling (one member command per host
  read, nothing else on the card's path: ``1 / max_read_iops``);
* **the parity engine** (the ROC's XOR/P+Q hardware, driven per stripe by the firmware):
  ``stripe_update_s`` per RAID5/6 stripe update, from the random-write ceiling (a 4 KiB RAID5
  write is 4 member commands and one update: ``1 / max_raid5_write_iops - 4 command_s``), and
  ``parity_s_per_kib`` per KiB of member data it moves, from the sequential RAID5 write ceiling
  (``1024 / max_raid5_write_bytes_per_s`` per KiB of host data, spread over the member data of a
  reference stripe of ``REFERENCE_DATA_MEMBERS`` + 1 drives);
* **the card's DRAM** (its cache): every written byte lands there, is read out for each member
  write (mirror copies, parity) and is read by the parity engine; its bandwidth is the DRAM's
  transfer rate times its data bus (``cache_mt_per_s x cache_bus_bits / 8``).

A family's fitted values (models/card_families/, at most two) replace the derivation of the
parity engine's costs where the family's datasheets give no write ceilings. Where nothing gives a
figure the defaults below are used, each saying why (``CardCosts.basis``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..specs import CardFamilySpec, EngineDeviceSpec

KIB = 1024.0
RAID5_SMALL_WRITE_COMMANDS = 4  # read old data and old parity, write new data and new parity
RAID6_SMALL_WRITE_COMMANDS = 6  # the same with Q
SMALL_WRITE_MEMBER_KIB = {5: 16.0, 6: 24.0}  # the member data a 4 KiB update moves through the engine
REFERENCE_DATA_MEMBERS = 7
"""Data members of the RAID5 set a datasheet's sequential write ceiling is taken on (assumed: the
briefs name none; 7+1 is the common 8-drive set; from 3+1 to 15+1 the derived cost moves by -14%
to +7%)."""
DEFAULT_COMMAND_US = 0.29
"""Command processor time per member command for a card whose datasheet gives no random-read
ceiling (assumed: the 9560-16i's 3.45M IOPS, the first card nvsim modelled)."""


@dataclass(frozen=True)
class CardCosts:
    """A card's costs per unit of work (seconds), and how each was obtained."""

    command_s: float
    stripe_update_s: float
    parity_s_per_kib: float
    dram_bytes_per_s: float | None
    basis: tuple[tuple[str, str], ...]

    def why(self, name: str) -> str:
        return dict(self.basis).get(name, "")


def command_s(device: EngineDeviceSpec | None, parameters: Any) -> tuple[float, str]:
    """The command processor's time per member command: a stated ``card_command_us``, else the
    random-read ceiling, else the default."""
    stated = getattr(parameters, "card_command_us", None)
    if stated is not None:
        return stated * 1e-6, "card_command_us (catalog parameter)"
    if device is not None and device.max_read_iops is not None:
        return 1.0 / device.max_read_iops.value, f"1 / random-read ceiling ({device.max_read_iops.value:,.0f} IOPS)"
    return DEFAULT_COMMAND_US * 1e-6, f"default {DEFAULT_COMMAND_US} us (no random-read ceiling in the datasheet)"


def parity_s_per_kib(device: EngineDeviceSpec | None, parameters: Any) -> tuple[float, str]:
    """The parity engine's time per KiB of member data: a family's fitted value, else the
    sequential RAID5 (else RAID6) write ceiling, else none (the command processor and DRAM bound)."""
    stated, ceiling, parities = _stated_or_ceiling(parameters, "card_stripe_op_us_per_kib", device, "bytes_per_s")
    if stated is not None:
        return stated
    if ceiling is None:
        return 0.0, "no sequential parity-write ceiling in the datasheet: not a limit"
    data = REFERENCE_DATA_MEMBERS
    return KIB / ceiling * data / (data + parities), \
        f"RAID{4 + parities} sequential write ceiling ({ceiling / 1e9:.1f} GB/s) over a {data}+{parities} stripe"


def stripe_update_s(device: EngineDeviceSpec | None, parameters: Any, command: float, per_kib: float) -> tuple[float, str]:
    """The parity engine's fixed time per stripe update: a family's fitted value, else what the
    random-write ceiling leaves after its member commands and data, else none."""
    stated, ceiling, parities = _stated_or_ceiling(parameters, "card_stripe_op_us", device, "iops")
    if stated is not None:
        return stated
    if ceiling is None:
        return 0.0, "no random parity-write ceiling in the datasheet: not a limit"
    level = 4 + parities
    commands = RAID5_SMALL_WRITE_COMMANDS if level == 5 else RAID6_SMALL_WRITE_COMMANDS
    left = 1.0 / ceiling - commands * command - SMALL_WRITE_MEMBER_KIB[level] * per_kib
    return max(0.0, left), f"RAID{level} random write ceiling ({ceiling:,.0f} IOPS) less its {commands} member commands"


def _stated_or_ceiling(parameters: Any, name: str, device: EngineDeviceSpec | None,
                       unit: str) -> tuple[tuple[float, str] | None, float | None, int]:
    """A stated parameter ``name`` (microseconds) as (seconds, why), else None with the datasheet's
    parity-write ceiling in ``unit`` and its parity count."""
    stated = getattr(parameters, name, None)
    if stated is not None:
        return (stated * 1e-6, f"{name} (family parameter)"), None, 1
    ceiling, parities = _write_ceiling(device, unit)
    return None, ceiling, parities


def _write_ceiling(device: EngineDeviceSpec | None, unit: str) -> tuple[float | None, int]:
    """The RAID5 ceiling in ``unit`` (iops or bytes_per_s), else RAID6's, with its parity count."""
    if device is None:
        return None, 1
    for level, parities in ((5, 1), (6, 2)):
        cited = getattr(device, f"max_raid{level}_write_{unit}")
        if cited is not None:
            return float(cited.value), parities
    return None, 1


def dram_bytes_per_s(device: EngineDeviceSpec | None) -> tuple[float | None, str]:
    """The card DRAM's bandwidth: transfer rate times data bus width, or None (not stated)."""
    if device is None or device.cache_mt_per_s is None or device.cache_bus_bits is None:
        return None, "no cache DRAM rate and width in the datasheet: not a limit"
    rate = device.cache_mt_per_s.value * 1e6 * device.cache_bus_bits.value / 8.0
    return rate, f"DRAM {device.cache_mt_per_s.value:g} MT/s x {device.cache_bus_bits.value} bits"


def card_costs(device: EngineDeviceSpec | None, parameters: Any) -> CardCosts:
    """Every cost of a card from its datasheet (``device``) and its family's parameters."""
    command, why_command = command_s(device, parameters)
    per_kib, why_kib = parity_s_per_kib(device, parameters)
    update, why_update = stripe_update_s(device, parameters, command, per_kib)
    dram, why_dram = dram_bytes_per_s(device)
    return CardCosts(command, update, per_kib, dram, (("command", why_command), ("parity_kib", why_kib),
                                                     ("stripe_update", why_update), ("dram", why_dram)))


def scaled_family(raw: dict, predecessor: CardFamilySpec) -> dict:
    """A family's mapping with the parity-engine costs its ``scaled_from`` step gives it: the
    predecessor's, divided by the vendor's generation factors (``CardGenerationStep``)."""
    step = raw["scaled_from"]
    factors = {"card_stripe_op_us": ("iops_factor", "IOPS"), "card_stripe_op_us_per_kib": ("bandwidth_factor", "bandwidth")}
    out = dict(raw)
    parameters = dict(out.get("parameters") or {})
    for name, cited in predecessor.parameters.items():
        if name not in factors or name in parameters:
            continue
        key, word = factors[name]
        factor = float(step[key]["value"])
        parameters[name] = {"value": cited.value / factor, "source": step[key]["source"], "basis": "predicted",
                            "note": f"{predecessor.name}'s {cited.value:.6g} ({cited.basis}) / {factor:g} "
                                    f"(the vendor's {factor:g}x {word} over that generation)"}
    out["parameters"] = parameters
    return out


def sku_of_family(raw: dict, engine_kind: str, family: Any) -> dict:
    """A card or GPU SKU's mapping with its family's kind, vendor and levels where it states none,
    and the family's parameters; a SKU may not restate a family parameter (fitted values are the
    family's, never a SKU's)."""
    out = dict(raw)
    out.setdefault("engine_kind", engine_kind)
    out.setdefault("vendor", family.vendor)
    out.setdefault("levels", list(family.levels))
    own = dict(out.get("parameters") or {})
    again = sorted(set(own) & set(family.parameters))
    if again:
        raise ValueError(f"parameters.{again[0]}: is the family's ({family.name}); a SKU may not restate it")
    out["parameters"] = {**{k: v.model_dump() for k, v in family.parameters.items()}, **own}
    return out


def complete_card(raw: dict, family: CardFamilySpec) -> dict:
    """A card SKU's mapping completed from its family: vendor, levels, kind, firmware, the
    family's parameters and whether data crosses the card. A SKU may not restate a family
    parameter (fitted values are the family's, never a SKU's)."""
    out = sku_of_family(raw, "hardware", family)
    out["firmware"] = family.firmware.model_dump()
    device = out.get("device")
    if isinstance(device, dict):
        _no_unused_ceiling(device, family)
        device = dict(device)
        device.setdefault("data_through_device", family.data_through_card)
        device.setdefault("roc", family.roc)
        out["device"] = device
    return out


REPLACED_CEILINGS = {"card_stripe_op_us": ("max_raid5_write_iops", "max_raid6_write_iops"),
                     "card_stripe_op_us_per_kib": ("max_raid5_write_bytes_per_s", "max_raid6_write_bytes_per_s")}
"""A family parameter of the parity engine, and the SKU datasheet ceilings it replaces (``_stated_or_ceiling``)."""


def _no_unused_ceiling(device: dict, family: CardFamilySpec) -> None:
    """A SKU states no parity-write ceiling that its family's stated parity cost would replace
    unread (a 96xx SKU's 900K RAID5 writes changed nothing): one ValueError naming the field."""
    for parameter, ceilings in REPLACED_CEILINGS.items():
        cited = family.parameters.get(parameter)
        stated = [name for name in ceilings if device.get(name) is not None]
        if cited is not None and stated:
            raise ValueError(f"device.{stated[0]}: family {family.name} states its parity engine's {parameter} "
                             f"({cited.basis}), which nvsim uses instead of a SKU's write ceiling, so this figure would "
                             f"change nothing; allowed: leave it out, or give the card a family of its own with no "
                             f"parameters (docs/catalog.md, 'Adding a RAID card')")


__all__ = ["CardCosts", "card_costs", "complete_card", "sku_of_family", "scaled_family", "command_s", "parity_s_per_kib", "stripe_update_s",
           "dram_bytes_per_s", "REFERENCE_DATA_MEMBERS", "DEFAULT_COMMAND_US"]
