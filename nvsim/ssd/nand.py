"""A family's and a drive's NAND from the catalog's NAND generations and types (models/nand/,
models/nand_types/): pure functions over the file mappings, called by ``nvsim.catalog`` before each
entry is checked.

The die capacity is stated once, in the generation: a family gets its ``die_bytes``, ``nand`` and
``bits_per_cell`` from the generation it names; a drive gets ``nand_generation`` (its own, else its
family's, else its NAND type's default) and ``nand_die_bytes`` from it. So the family model's die
count (``nvsim.ssd.family.family_dies``) and the SSD model's (``nvsim.ssd.derive.nand_dies``) are
one number. A file that states what its generation states, or names a type or generation the
catalog does not have, is refused in one line naming the field (``SkuFieldError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import suggestion_then
from ..specs import ControllerSpec, NandGenerationSpec, NandTypeSpec
from .family import DriveFamilySpec, SkuFieldError

FROM_GENERATION = ("die_bytes", "nand", "bits_per_cell")
"""A family's fields the catalog fills in from its NAND generation (a family file never gives them)."""

FROM_CONTROLLER = {"channels": "channels", "channel_bytes_per_s": "channel_bytes_per_s",
                   "controller_write_iops": "write_iops"}
"""A family's fields the catalog fills in from its controller (models/controllers/), by the
controller's field name; ``controller_write_iops`` only where the controller's brief states one."""


def _known(value: Any, field: str, names: Mapping[str, Any], what: str, folder: str) -> str:
    if not isinstance(value, str) or value not in names:
        raise SkuFieldError(field, f"unknown {what} {value!r}{suggestion_then(str(value), names)}"
                                   f"allowed: {', '.join(sorted(names)) or 'none'} ({folder})")
    return value


def check_generation(generation: NandGenerationSpec, types: Mapping[str, NandTypeSpec]) -> None:
    """A generation's NAND type is one of models/nand_types/."""
    _known(generation.nand, "nand", types, "NAND type", "models/nand_types/")


def check_type(nand_type: NandTypeSpec, generations: Mapping[str, NandGenerationSpec]) -> None:
    """A type's default generation, if it names one, is a generation of that type."""
    if nand_type.default_generation is None:
        return
    name = _known(nand_type.default_generation, "default_generation", generations, "NAND generation", "models/nand/")
    if generations[name].nand != nand_type.name:
        raise SkuFieldError("default_generation", f"{name} is {generations[name].nand} NAND, not {nand_type.name}")


def complete_family(raw: Any, generations: Mapping[str, NandGenerationSpec],
                    types: Mapping[str, NandTypeSpec], controllers: Mapping[str, ControllerSpec]) -> Any:
    """A family file's mapping with its die capacity, NAND type and bits per cell from the NAND
    generation it names (``nand_generation``), and its channels, channel rate and write command
    ceiling from the controller it names (``controller``)."""
    if not isinstance(raw, dict):
        return raw
    for name in FROM_GENERATION:
        if name in raw:
            raise SkuFieldError(name, f"stated by the family's NAND generation (models/nand/), not by the family: "
                                      f"remove it and name the generation in nand_generation")
    for name in FROM_CONTROLLER:
        if name in raw:
            raise SkuFieldError(name, f"stated by the family's controller (models/controllers/), not by the family: "
                                      f"remove it and name the controller in controller")
    name = _known(raw.get("nand_generation"), "nand_generation", generations, "NAND generation", "models/nand/")
    generation = generations[name]
    controller = controllers[_known(raw.get("controller"), "controller", controllers, "SSD controller",
                                    "models/controllers/")]
    from_controller = {field: getattr(controller, own).model_dump() for field, own in FROM_CONTROLLER.items()
                       if getattr(controller, own) is not None}
    return {**raw, "die_bytes": generation.die_bytes.model_dump(), "nand": generation.nand,
            "bits_per_cell": types[generation.nand].bits_per_cell.model_dump(), **from_controller}


def complete_drive(raw: Any, family: DriveFamilySpec | None, generations: Mapping[str, NandGenerationSpec],
                   types: Mapping[str, NandTypeSpec]) -> Any:
    """A drive file's mapping (after its family's completion) with its NAND generation and die
    capacity: its own generation, else its family's, else its NAND type's default."""
    if not isinstance(raw, dict):
        return raw
    if "nand_die_bytes" in raw:
        raise SkuFieldError("nand_die_bytes", "stated by the drive's NAND generation (models/nand/), not by the drive: "
                                              "remove it and name the generation in nand_generation")
    nand = _known(raw.get("nand"), "nand", types, "NAND type", "models/nand_types/")
    name = raw.get("nand_generation")
    if name is None and family is not None:
        name = family.nand_generation
    defaulted = name is None
    if defaulted:
        name = types[nand].default_generation
        if name is None:
            raise SkuFieldError("nand_generation", f"{nand} has no default generation (models/nand_types/): name the "
                                                   f"drive's NAND generation (models/nand/)")
    name = _known(name, "nand_generation", generations, "NAND generation", "models/nand/")
    if generations[name].nand != nand:
        raise SkuFieldError("nand_generation", f"{name} is {generations[name].nand} NAND, the drive {nand}")
    die = generations[name].die_bytes.model_dump()
    if defaulted:  # the drive named none: its die is an assumption about it, whatever the generation's own basis
        die |= {"basis": "assumed", "note": f"the drive names no NAND generation (nand_generation): its type {nand}'s "
                                            f"default, {name} ({die['basis']}: {die.get('note') or die['source']})"}
    return {**raw, "nand_generation": name, "nand_die_bytes": die}


__all__ = ["FROM_GENERATION", "FROM_CONTROLLER", "check_generation", "check_type", "complete_family", "complete_drive"]
