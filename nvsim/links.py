"""The PCIe links of a built array: a drive's, the engine card's, a socket's root ports, a switch's uplink.

One place that says which generation, width and payload size each link runs at (the lower of the
two ends, and of every bay, slot, switch or retimer between them: ``nvsim.topology``), so the
bounds, the platform model and the simulator build the same links.
"""

from __future__ import annotations

from .catalog import Catalog
from .pcie import PcieLink
from .specs import DriveSpec, EngineSpec, PlatformSpec, TopologySpec
from .topology import DriveAttachment, drive_attachment

ROOT_PORT_LANES = 16
"""Root ports are counted as x16 links (a socket's lanes / 16 of them)."""


def attachment(drive: DriveSpec, platform: PlatformSpec, catalog: Catalog, topology: TopologySpec | None = None,
               drives: int = 1) -> DriveAttachment:
    """Where the drives hang (``nvsim.topology.drive_attachment``): bays or slots, switches, retimer."""
    return drive_attachment(topology, platform, drive, drives, catalog)


def drive_link(drive: DriveSpec, platform: PlatformSpec, catalog: Catalog, topology: TopologySpec | None = None,
               drives: int = 1) -> PcieLink:
    """A drive's link runs at the lower generation and width of drive and bay (or slot, switch
    port, retimer); without a topology, the platform's bay."""
    path = attachment(drive, platform, catalog, topology, drives)
    generation = min(drive.pcie_generation.value, path.generation)
    lanes = min(drive.lanes.value, path.lanes)
    return PcieLink(catalog.pcie(generation), lanes, platform.max_payload_bytes.value)


def behind_card(link: PcieLink, engine: EngineSpec, catalog: Catalog) -> PcieLink:
    """A drive ``link`` as the array's engine leaves it: a hardware RAID card whose drives hang from
    its own ports (``device.data_through_device``: a tri-mode card cabled to the bays) runs them at
    no higher a generation than its own (a Gen4 MegaRAID 9670W-16i: Gen4 x4 to a Gen5 drive) and on
    no more lanes than its ports give each drive (``device.drive_link_lanes``: the RAID 940-16i's
    tri-mode x1); any other engine leaves the bay's link."""
    device = engine.device
    if device is None or not device.data_through_device:
        return link
    generation = min(device.pcie_generation.value, link.generation.generation)
    lanes = min(link.lanes, device.drive_link_lanes.value if device.drive_link_lanes is not None else link.lanes)
    if generation == link.generation.generation and lanes == link.lanes:
        return link
    return PcieLink(catalog.pcie(generation), lanes, link.max_payload_bytes, link.max_read_request_bytes,
                    link.read_completion_bytes)


def switch_uplink(platform: PlatformSpec, catalog: Catalog, path: DriveAttachment) -> PcieLink | None:
    """One switch's uplink to its root port (None: the drives hang directly on root ports)."""
    if not path.switches:
        return None
    generation = min(path.switch.pcie_generation.value, platform.pcie_generation.value)
    return PcieLink(catalog.pcie(generation), path.uplink_lanes, platform.max_payload_bytes.value)


def switch_bytes_per_s(uplink: PcieLink, path: DriveAttachment) -> float:
    """Bytes per second one switch passes to or from the host, per direction: its uplink's usable
    rate, or its core's switching bandwidth where that is lower (a non-blocking core, the
    default, forwards its lanes' rate and never binds before its uplink)."""
    core = path.switch.internal_bytes_per_s
    rate = uplink.usable_bytes_per_s()
    return min(rate, core.value) if core is not None else rate


def engine_link(engine: EngineSpec, platform: PlatformSpec, catalog: Catalog) -> PcieLink | None:
    """The engine card's link (None: an engine without a device), at the lower generation of card and slot."""
    if engine.device is None:
        return None
    generation = min(engine.device.pcie_generation.value, platform.pcie_generation.value)
    return PcieLink(catalog.pcie(generation), engine.device.lanes.value, platform.max_payload_bytes.value)


def root_port_link(platform: PlatformSpec, catalog: Catalog) -> PcieLink:
    """One x16 root port of the platform's generation."""
    return PcieLink(catalog.pcie(platform.pcie_generation.value), ROOT_PORT_LANES, platform.max_payload_bytes.value)


__all__ = ["drive_link", "behind_card", "engine_link", "root_port_link", "switch_uplink", "switch_bytes_per_s", "attachment",
           "ROOT_PORT_LANES"]
