"""Where each drive hangs on the platform, and whether it fits: bays or slots, root ports or switches.

A scenario's ``topology`` section (``nvsim.specs.TopologySpec``) places the array's drives: in the
bays of a backplane (the platform's own bays when none is named) or as add-in cards in the
platform's slots (each slot whole, or split by ``bifurcation``), directly on root ports or behind
PCIe switches (drives spread evenly over them, each switch on its own uplink), through a retimer,
in an Intel VMD domain. Without a topology section a drive sits in a bay of the platform, on one
bay link of its own, directly on a root port: the model every published scenario was built on.

``placement_error`` is the check run when a scenario loads (one line naming the field, or None);
``drive_attachment`` is what the link factories (``nvsim.links``) and the built model read. The
arithmetic takes the specs as they are (duck-typed), so ``nvsim.specs`` can call it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ADD_IN_CARD_WORDS = ("add-in", "hhhl", "fhhl", "aic")
"""Words of a drive's form factor that say it is an add-in card (it goes in a slot, not a bay)."""


@dataclass(frozen=True)
class SlotLink:
    """One link of a slot: the whole slot, or one piece of a bifurcated one."""

    name: str
    generation: int
    lanes: int
    socket: int


@dataclass(frozen=True)
class DriveAttachment:
    """What the path from a drive to its root port allows and adds.

    ``generation`` and ``lanes``: the widest link the bay or slot (and switch port, retimer)
    carries, before the drive's own; ``switches``: how many switches the drives hang behind (0:
    direct), each on an uplink of ``uplink_lanes``; ``traversal_ns``: the latency one TLP takes
    from the drive to the root port (switch and retimer), each way.
    """

    generation: int
    lanes: int
    switches: int = 0
    switch: Any = None  # the catalog's SwitchSpec
    uplink_lanes: int = 16
    traversal_ns: float = 0.0
    vmd: bool = False
    where: str = "bays"


def is_add_in_card(drive: Any) -> bool:
    """A drive whose form factor names an add-in card (HHHL, FHHL, AIC)."""
    text = drive.form_factor.lower()
    return any(word in text for word in ADD_IN_CARD_WORDS)


def slot_links(slots: Any, bifurcation: dict[str, tuple[int, ...]]) -> list[SlotLink]:
    """The platform's slots as links, a bifurcated slot as its pieces, widest first."""
    out = []
    for slot in slots:
        widths = bifurcation.get(slot.name, (slot.lanes,))
        out += [SlotLink(slot.name, slot.pcie_generation, lanes, slot.socket) for lanes in widths]
    return sorted(out, key=lambda link: -link.lanes)


def drives_per_switch(drives: int, switches: int) -> tuple[int, ...]:
    """Drives behind each switch, spread evenly in order (the first ones take one more)."""
    base, extra = divmod(drives, switches)
    return tuple(base + (1 if i < extra else 0) for i in range(switches))


def bay_count(topology: Any, platform: Any, catalog: Any) -> tuple[int, int, int, str]:
    """(bays, lanes of each, generation, what holds them) of the backplanes or the platform."""
    if topology is not None and topology.backplane is not None:
        plane = catalog.backplanes[topology.backplane]
        count = plane.bays.value * topology.backplanes
        label = f"{topology.backplanes} x {plane.name}" if topology.backplanes > 1 else plane.name
        return count, plane.bay_lanes.value, plane.pcie_generation.value, label
    return platform.drive_bays.value, platform.drive_bay_lanes.value, platform.pcie_generation.value, platform.name


def _bifurcation_error(topology: Any, platform: Any) -> str | None:
    slots = {slot.name: slot for slot in platform.slots}
    for name, widths in topology.bifurcation.items():
        if name not in slots:
            known = ", ".join(slots) or "none"
            return f"topology.bifurcation: {platform.name} has no slot {name!r}; its slots: {known}"
        if sum(widths) > slots[name].lanes:
            return (f"topology.bifurcation.{name}: {' + '.join(map(str, widths))} lanes is more than the slot's "
                    f"x{slots[name].lanes}; allowed: widths adding up to at most {slots[name].lanes}")
    return None


def _bays_error(scenario: Any, catalog: Any, drive: Any) -> str | None:
    topology, platform = scenario.topology, catalog.platforms[scenario.platform]
    if is_add_in_card(drive):
        return (f"array.drive: {drive.name} is an add-in card ({drive.form_factor}); it goes in a slot, "
                f"not a bay: set topology.attach: slots")
    bays, _lanes, _gen, label = bay_count(topology, platform, catalog)
    if topology is not None and topology.backplane is not None:
        plane = catalog.backplanes[topology.backplane]
        shapes = [word.strip().lower() for word in plane.form_factor.split("/")]
        if not any(shape in drive.form_factor.lower() for shape in shapes):
            return (f"topology.backplane: {plane.name} takes {plane.form_factor} drives; {drive.name} is "
                    f"{drive.form_factor}")
    if scenario.array.drives > bays:
        return (f"array.drives: {scenario.array.drives} drives do not fit the {bays} bays of {label}; allowed: "
                f"at most {bays} (or name more bays: topology.backplane and topology.backplanes)")
    return None


def _slots_error(scenario: Any, catalog: Any, drive: Any) -> str | None:
    platform = catalog.platforms[scenario.platform]
    links = slot_links(platform.slots, scenario.topology.bifurcation)
    n = scenario.array.drives
    if n > len(links):
        return (f"array.drives: {n} add-in cards need {n} slot links; {platform.name} has {len(links)} "
                f"({', '.join(s.name for s in platform.slots) or 'no slots'}; bifurcation splits a slot)")
    narrow = [link for link in links[:n] if link.lanes < drive.lanes.value]
    if narrow:
        return (f"topology: {drive.name} is a x{drive.lanes.value} card and slot {narrow[0].name} gives it "
                f"x{narrow[0].lanes}; allowed: a slot link at least as wide as the card")
    return None


def _switch_error(scenario: Any, catalog: Any, link_lanes: int) -> str | None:
    use = scenario.topology.switches
    switch = catalog.switches[use.model]
    most = max(drives_per_switch(scenario.array.drives, use.count))
    if most + 1 > switch.ports.value:
        return (f"topology.switches: {most} drives behind one {switch.name} and its uplink need {most + 1} ports; "
                f"it has {switch.ports.value}; allowed: more switches (topology.switches.count)")
    lanes = most * link_lanes + use.uplink_lanes
    if lanes > switch.lanes.value:
        return (f"topology.switches: {most} drives x{link_lanes} and a x{use.uplink_lanes} uplink need {lanes} "
                f"lanes of one {switch.name}; it has {switch.lanes.value}")
    device = catalog.engines[scenario.array.engine].device
    if device is not None and device.data_through_device:
        return (f"topology.switches: the drives of {scenario.array.engine} hang from the card's own ports, "
                f"not from a switch on the host's root ports")
    return None


def root_lanes_needed(scenario: Any, catalog: Any) -> int:
    """Root-port lanes the drives (their bay or slot links, or their switches' uplinks) and the
    engine's card take."""
    topology, platform = scenario.topology, catalog.platforms[scenario.platform]
    drive = catalog.drives[scenario.array.drive]
    if topology is not None and topology.switches is not None:
        lanes = topology.switches.count * topology.switches.uplink_lanes
    elif topology is not None and topology.attach == "slots":
        lanes = sum(link.lanes for link in slot_links(platform.slots, topology.bifurcation)[:scenario.array.drives])
    else:
        _bays, bay_lanes, _gen, _label = bay_count(topology, platform, catalog)
        lanes = scenario.array.drives * min(drive.lanes.value, bay_lanes)
    device = catalog.engines[scenario.array.engine].device
    return lanes + (device.lanes.value if device is not None else 0)


def placement_error(scenario: Any, catalog: Any) -> str | None:
    """Why the scenario's drives, switches and card do not fit its platform (one line), or None.

    Checked: drives against bays (and the backplane's form factor), add-in cards against slot
    links and their widths, bifurcation against the slots, switch ports and lanes, the root-port
    lanes of the platform's sockets, VMD on a CPU that has it. A switch may carry more drive lanes
    than its uplink (legal over-subscription: the uplink is a shared server, not an error).
    """
    if catalog.engines.get(scenario.array.engine) is None:
        return None
    topology, platform = scenario.topology, catalog.platforms[scenario.platform]
    drive = catalog.drives[scenario.array.drive]
    slots = topology is not None and topology.attach == "slots"
    error = _bifurcation_error(topology, platform) if topology is not None else None
    error = error or (_slots_error(scenario, catalog, drive) if slots else _bays_error(scenario, catalog, drive))
    if error is None and topology is not None and topology.switches is not None:
        link_lanes = drive.lanes.value if slots else min(drive.lanes.value, bay_count(topology, platform, catalog)[1])
        error = _switch_error(scenario, catalog, link_lanes)
    if error is None:
        have = platform.cpu.sockets * platform.pcie_lanes_per_socket.value
        need = root_lanes_needed(scenario, catalog)
        if need > have:
            switched = topology is not None and topology.switches is not None
            who = "the switches' uplinks and the engine's card" if switched else "the drives and the engine's card"
            fix = ("fewer switches or narrower uplinks (topology.switches)" if switched
                   else "put drives behind switches (topology.switches)")
            error = (f"topology: {who} need {need} PCIe lanes of root ports; "
                     f"{platform.name} has {have} ({platform.cpu.sockets} x {platform.pcie_lanes_per_socket.value}); "
                     f"allowed: {fix}")
    if error is None and topology is not None:
        error = _vmd_error(scenario, catalog, platform)
    return error


def _vmd_error(scenario: Any, catalog: Any, platform: Any) -> str | None:
    topology = scenario.topology
    if topology.vmd and platform.cpu.vendor != "Intel":
        return f"topology.vmd: VMD is a feature of Intel Xeon CPUs; {platform.name} has {platform.cpu.model}"
    if not topology.vmd and catalog.engines[scenario.array.engine].engine_kind == "vroc":
        return f"topology.vmd: {scenario.array.engine} runs on drives behind Intel VMD; set topology.vmd: true"
    return None


def drive_attachment(topology: Any, platform: Any, drive: Any, drives: int, catalog: Any) -> DriveAttachment:
    """The path each of the array's ``drives`` takes to its root port (see ``DriveAttachment``)."""
    if topology is not None and topology.attach == "slots":
        used = slot_links(platform.slots, topology.bifurcation)[:drives]
        generation = min(link.generation for link in used)
        lanes = min(drive.lanes.value, min(link.lanes for link in used))
    else:
        _bays, lanes, generation, _label = bay_count(topology, platform, catalog)
    generation = min(generation, platform.pcie_generation.value)
    if topology is None:
        return DriveAttachment(generation, lanes)
    traversal_ns, switches, switch, uplink = 0.0, 0, None, 16
    if topology.switches is not None:
        switch = catalog.switches[topology.switches.model]
        switches, uplink = topology.switches.count, topology.switches.uplink_lanes
        generation = min(generation, switch.pcie_generation.value)
        traversal_ns += switch.latency_ns.value
    if topology.retimer is not None:
        retimer = catalog.retimers[topology.retimer]
        generation = min(generation, retimer.pcie_generation.value)
        traversal_ns += retimer.latency_ns.value
    return DriveAttachment(generation, lanes, switches, switch, uplink, traversal_ns, topology.vmd, topology.attach)


__all__ = ["DriveAttachment", "SlotLink", "placement_error", "drive_attachment", "slot_links", "drives_per_switch",
           "bay_count", "root_lanes_needed", "is_add_in_card"]
