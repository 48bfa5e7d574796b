"""The PCIe links of a built array: a drive's, the engine card's, a socket's root ports.

One place that says which generation, width and payload size each link runs at (the lower of the
two ends), so the bounds, the platform model and the simulator build the same links.
"""

from __future__ import annotations

from .catalog import Catalog
from .pcie import PcieLink
from .specs import DriveSpec, EngineSpec, PlatformSpec

ROOT_PORT_LANES = 16
"""Root ports are counted as x16 links (a socket's lanes / 16 of them)."""


def drive_link(drive: DriveSpec, platform: PlatformSpec, catalog: Catalog) -> PcieLink:
    """A drive's link runs at the lower generation and width of drive and bay."""
    generation = min(drive.pcie_generation.value, platform.pcie_generation.value)
    lanes = min(drive.lanes.value, platform.drive_bay_lanes.value)
    return PcieLink(catalog.pcie(generation), lanes, platform.max_payload_bytes.value)


def engine_link(engine: EngineSpec, platform: PlatformSpec, catalog: Catalog) -> PcieLink | None:
    """The engine card's link (None: an engine without a device), at the lower generation of card and slot."""
    if engine.device is None:
        return None
    generation = min(engine.device.pcie_generation.value, platform.pcie_generation.value)
    return PcieLink(catalog.pcie(generation), engine.device.lanes.value, platform.max_payload_bytes.value)


def root_port_link(platform: PlatformSpec, catalog: Catalog) -> PcieLink:
    """One x16 root port of the platform's generation."""
    return PcieLink(catalog.pcie(platform.pcie_generation.value), ROOT_PORT_LANES, platform.max_payload_bytes.value)


__all__ = ["drive_link", "engine_link", "root_port_link", "ROOT_PORT_LANES"]
