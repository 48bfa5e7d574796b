"""Typed specifications: what a user or the catalog may write, checked before time starts.

Every model is frozen and forbids unknown keys. Sizes and rates may be written with units
("4KiB", "7.68 TB", "14.5 GB/s"); field names carry the canonical unit (``_bytes``,
``_bytes_per_s``, ``_iops``). Catalog numbers are ``Cited``: a value with the key of its source in
models/bibliography.yaml and its basis.

One module per schema: ``base`` (``Spec``, ``Cited``, the unit types and the checks the others
share), ``nand`` (catalog entries: NAND types and generations), ``controller`` (catalog entries: SSD controllers), ``parts`` (catalog entries: PCIe generations, drives, CPUs, slots, platforms), ``devices``
(catalog entries: switches, retimers, backplanes, engines and their devices, host I/O paths, OLTP
profiles), ``workload`` (the fio-like job, the OLTP database, a mix's parts and a trace's summary), ``scenario`` (the array, placement,
topology, faults and the scenario). Every name is re-exported here, so ``from nvsim.specs import X``
works for all of them.
"""

from __future__ import annotations

from ..constants import PAGE_BYTES
from ..errors import suggestion_text
from ..raid import DEFAULT_LAYOUT_BY_LEVEL, LAYOUTS_BY_LEVEL, LEVELS, MAX_MEMBERS, MIN_DRIVES
from ..skew_syntax import check_distribution
from ..topology import placement_error
from ..units import format_bytes_decimal, parse_bytes, parse_bytes_per_s, parse_count, parse_seconds
from .base import (MAX_BYTES, PCIE_GENERATIONS, PCIE_LINK_WIDTHS, PCIE_PAYLOAD_SIZES, PRICE_DATE, SECTOR_BYTES, ZERO_ALLOWED_PREFIXES, Basis,
                   Bytes, BytesPerS, Cited, Count, NumbersNotTruthValues, PhysicalNumbers, PriceKind, Prose, Seconds, Spec, T, Text, _bounded_bytes, _catalog,
                   _cited_number, _finite, _known_name, _link_width, _pcie_generation, _positive, _price_together)
from .devices import (BackplaneSpec, CardFamilySpec, CardGenerationStep, GpuDriverSpec, GpuFamilySpec, GpuSpec, CardFirmwareSpec, EngineDeviceSpec, EngineSpec, HostIoOption, HostIoSpec, OltpProfileSpec, RetimerSpec,
                      SwitchSpec)
from .controller import ControllerSpec
from .nand import NandGenerationSpec, NandTypeSpec
from .parts import CpuSpec, DriveSpec, PcieGenerationSpec, PlatformSpec, SlotSpec
from .scenario import (MAX_FAULTS, MAX_TEXT_CHARS, MAX_WORKLOADS, ArraySpec, FaultSpec, LinkWidth,
                       PlacementSpec, RaidLevel, RebuildSpec, ScenarioSpec, SwitchUseSpec, TopologySpec, VolumeSpec)
from .workload import (COMPOSITE_FIELDS, DRIVE_STATES, MAX_MIX_PARTS, TRIM_SHAPE, FioBool, FioRw, MixPart, OltpSpec, Phase,
                       TraceSummary, WorkloadSpec, _fio_bool, _host_io_entry)

__all__ = [
    # base
    "MAX_BYTES", "PCIE_GENERATIONS", "PCIE_LINK_WIDTHS", "PCIE_PAYLOAD_SIZES", "PRICE_DATE", "SECTOR_BYTES", "ZERO_ALLOWED_PREFIXES", "Basis",
    "Bytes", "BytesPerS", "Cited", "Count", "NumbersNotTruthValues", "PhysicalNumbers", "PriceKind", "Prose", "Seconds", "Spec", "Text",
    # parts
    "PcieGenerationSpec", "DriveSpec", "CpuSpec", "SlotSpec", "PlatformSpec",
    # nand
    "NandTypeSpec", "NandGenerationSpec",
    # controller
    "ControllerSpec",
    # devices
    "SwitchSpec", "RetimerSpec", "BackplaneSpec", "CardFamilySpec", "CardGenerationStep", "GpuFamilySpec", "GpuDriverSpec", "GpuSpec", "CardFirmwareSpec", "EngineDeviceSpec", "HostIoOption", "HostIoSpec", "EngineSpec",
    "OltpProfileSpec",
    # workload
    "FioBool", "FioRw", "OltpSpec", "WorkloadSpec", "DRIVE_STATES", "MAX_MIX_PARTS", "MixPart", "TraceSummary", "Phase",
    "TRIM_SHAPE", "COMPOSITE_FIELDS",
    # scenario
    "RaidLevel", "RebuildSpec", "ArraySpec", "FaultSpec", "PlacementSpec", "LinkWidth", "SwitchUseSpec",
    "TopologySpec", "MAX_TEXT_CHARS", "MAX_WORKLOADS", "MAX_FAULTS", "ScenarioSpec", "VolumeSpec",
]
