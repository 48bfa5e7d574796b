"""Catalog entries for NAND flash: the NAND types (models/nand_types/) and the NAND generations
(models/nand/) a drive family or a drive names.

The NAND type vocabulary (SLC, MLC, TLC, QLC, ...) is data: one file per type with its bits per cell,
the indirection unit a drive of that type is assumed to map when its datasheet does not say, and
the generation a drive of that type takes when neither it nor its family names one. Adding a NAND
type is adding a file (docs/catalog.md). A generation holds what one maker's die of one process
node is: its layers, its type, its die capacity (the one statement of it: the family model's and
the SSD model's die count both divide raw NAND by it) and, where a source gives them, its planes,
page, tR, tPROG, tBERS and interface rate. The catalog checks every name against the others at
load (``nvsim.catalog``), in one line.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Bytes, BytesPerS, Cited, PhysicalNumbers, Text

NAND_NAME = r"^[A-Za-z0-9][A-Za-z0-9+-]{0,15}$"
"""A NAND type's name: a short word ('TLC', 'QLC', 'PLC')."""
ENTRY_NAME = r"^[a-z0-9][a-z0-9.-]{0,79}$"
"""A catalog file's entry name: lower case, digits, dots and dashes."""


class NandTypeSpec(PhysicalNumbers):
    """One NAND type: how many bits a cell stores, and the defaults of a drive of that type."""

    name: str = Field(pattern=NAND_NAME)
    kind: Literal["nand_type"] = "nand_type"
    bits_per_cell: Cited[int]
    indirection_unit_bytes: Cited[Bytes] = Field(description="the mapping unit a drive of this type is assumed to "
                                                             "use when its datasheet does not give one (the dashboard)")
    default_generation: str | None = Field(
        default=None, pattern=ENTRY_NAME,
        description="models/nand/ entry a drive of this type takes when neither it nor its family names one; "
                    "None: such a drive must name its generation")
    note: Text | None = None


class NandGenerationSpec(PhysicalNumbers):
    """One NAND generation: one maker's die of one process node (units in the names; every number cited)."""

    name: str = Field(pattern=ENTRY_NAME)
    kind: Literal["nand_generation"] = "nand_generation"
    maker: str = Field(min_length=1, max_length=100)
    generation: str = Field(min_length=1, max_length=100, description="the maker's name for it, e.g. 'BiCS5'")
    nand: str = Field(pattern=NAND_NAME, description="its NAND type, a models/nand_types/ entry")
    layers: Cited[int]
    die_bytes: Cited[Bytes]
    planes_per_die: Cited[int] | None = None
    page_bytes: Cited[Bytes] | None = None
    read_us: Cited[float] | None = Field(default=None, description="tR, one page read")
    program_us: Cited[float] | None = Field(default=None, description="tPROG, one wordline program")
    erase_us: Cited[float] | None = Field(default=None, description="tBERS, one block erase")
    interface_bytes_per_s: Cited[BytesPerS] | None = Field(default=None, description="one channel's NAND interface "
                                                                                    "(MT/s on an 8-bit bus)")


__all__ = ["NandTypeSpec", "NandGenerationSpec", "NAND_NAME", "ENTRY_NAME"]
