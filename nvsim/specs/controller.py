"""Catalog entries for SSD controllers (models/controllers/): what a controller chip is, whoever
builds a drive on it.

A controller holds its NAND channels and their transfer rate, its host interface, and the command
and bandwidth ceilings its brief states (``None`` where no source states one). A drive family names
its controller (``controller:``); the catalog fills in the family's channels, channel rate and
write command ceiling from it (``nvsim.ssd.nand.complete_family``), so a controller is stated once
and a new one is a data change (docs/catalog.md). The ceilings are the chip's: a drive built on it
may quote less (its firmware, its NAND), never more.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import BytesPerS, Cited, Count, PhysicalNumbers, Text
from .nand import ENTRY_NAME


class ControllerSpec(PhysicalNumbers):
    """One SSD controller (units in the names; every number cited)."""

    name: str = Field(pattern=ENTRY_NAME)
    kind: Literal["ssd_controller"] = "ssd_controller"
    vendor: str = Field(min_length=1, max_length=100)
    model: str = Field(min_length=1, max_length=100)
    pcie_generation: Cited[int]
    lanes: Cited[int]
    channels: Cited[int]
    channel_bytes_per_s: Cited[BytesPerS] = Field(description="one NAND channel's transfer rate (MT/s on an 8-bit bus)")
    read_bytes_per_s: Cited[BytesPerS] | None = None
    write_bytes_per_s: Cited[BytesPerS] | None = None
    read_iops: Cited[Count] | None = Field(default=None, description="4 KiB random read command ceiling")
    write_iops: Cited[Count] | None = Field(default=None, description="4 KiB random write command ceiling: caps every "
                                                                      "SKU of a family built on it (nvsim.ssd.family)")
    note: Text | None = None


__all__ = ["ControllerSpec"]
