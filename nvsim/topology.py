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


def _fields_error(scenario: Any, catalog: Any) -> str | None:
    """A topology field that would change nothing where it is given: a bifurcation with no drive in
    a slot, a backplane under add-in cards, a count of backplanes none of which is named (and VMD
    under an engine whose model has no VMD in it: ``_vmd_error``). Each is refused, not ignored."""
    topology = scenario.topology
    if topology.attach == "bays" and topology.bifurcation:
        return ("topology.bifurcation: splits a slot into links for add-in cards, and with attach: bays no drive is "
                "in a slot; allowed: topology.attach: slots (add-in cards), or no bifurcation")
    if topology.attach == "slots" and topology.backplane is not None:
        return (f"topology.backplane: add-in cards (attach: slots) hang in slots, not in the bays of {topology.backplane}; "
                f"allowed: no backplane with attach: slots, or attach: bays")
    if topology.backplane is None and topology.backplanes != 1:
        return (f"topology.backplanes: counts the backplane topology.backplane names, and none is named (the drives "
                f"are in the platform's own bays); allowed: name topology.backplane, or leave backplanes out")
    return None


def _spares_note(spares: int) -> str:
    return f" (hot spares included: {spares})" if spares else ""


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
                    f"{drive.form_factor}; allowed: drives of form factor {plane.form_factor} in it, or another "
                    f"backplane")
    n, spares = scenario.array.drives, scenario.array.hot_spares
    if n > bays:
        return (f"array.drives: {n} drives do not fit the {bays} bays of {label}; allowed: "
                f"at most {bays} (or name more bays: topology.backplane and topology.backplanes)")
    if n + spares > bays:  # a hot spare sits in a bay, powered, as a member does
        return (f"array.hot_spares: {n} drives and {spares} hot spares need {n + spares} bays; {label} has {bays}; "
                f"allowed: at most {bays - n} hot spares (or name more bays: topology.backplane and topology.backplanes)")
    return None


def _volume_bays_error(scenario: Any, catalog: Any) -> str | None:
    """The other volumes' drives (``volumes``: their own, on the same server) take bays too: with
    the array's (unless its drives are add-in cards in slots) they must fit the platform's bays.
    A volume of add-in cards takes slots, which are not counted here."""
    volumes = getattr(scenario, "volumes", ())
    if not volumes:
        return None
    platform = catalog.platforms[scenario.platform]
    bays, _lanes, _gen, label = bay_count(scenario.topology, platform, catalog)
    in_slots = scenario.topology is not None and scenario.topology.attach == "slots"
    own = 0 if in_slots else scenario.array.drives + scenario.array.hot_spares
    theirs = sum(v.array.drives + v.array.hot_spares for v in volumes
                 if v.array.drive in catalog.drives and not is_add_in_card(catalog.drives[v.array.drive]))
    if own + theirs <= bays:
        return None
    return (f"volumes: the array's {own} and the volumes' {theirs} drives (hot spares included) need {own + theirs} bays; "
            f"{label} has {bays}; allowed: at most {bays} drives in bays on one server")


def _slots_error(scenario: Any, catalog: Any, drive: Any) -> str | None:
    platform = catalog.platforms[scenario.platform]
    if not is_add_in_card(drive):
        return (f"topology.attach: slots take add-in cards; {drive.name} is {drive.form_factor}, a bay drive; "
                f"allowed: attach: bays (the default), or an add-in card drive")
    links = slot_links(platform.slots, scenario.topology.bifurcation)
    n, spares = scenario.array.drives, scenario.array.hot_spares
    where = f"{platform.name} has {len(links)} ({', '.join(s.name for s in platform.slots) or 'no slots'}; bifurcation splits a slot)"
    if n > len(links):
        return (f"array.drives: {n} add-in cards need {n} slot links; {where}; allowed: at most {len(links)} "
                f"add-in cards, or split a slot (topology.bifurcation)")
    if n + spares > len(links):
        return (f"array.hot_spares: {n} add-in cards and {spares} hot spares need {n + spares} slot links; {where}; "
                f"allowed: at most {len(links) - n} hot spares")
    narrow = [link for link in links[:n + spares] if link.lanes < drive.lanes.value]
    if narrow:
        return (f"topology: {drive.name} is a x{drive.lanes.value} card and slot {narrow[0].name} gives it "
                f"x{narrow[0].lanes}; allowed: a slot link at least as wide as the card")
    return None


def _switch_error(scenario: Any, catalog: Any, link_lanes: int) -> str | None:
    use = scenario.topology.switches
    switch = catalog.switches[use.model]
    spares = scenario.array.hot_spares  # a spare hangs behind the switches as a member does
    most = max(drives_per_switch(scenario.array.drives + spares, use.count))
    if most + 1 > switch.ports.value:
        return (f"topology.switches: {most} drives{_spares_note(spares)} behind one {switch.name} and its uplink need "
                f"{most + 1} ports; it has {switch.ports.value}; allowed: more switches (topology.switches.count)")
    lanes = most * link_lanes + use.uplink_lanes
    if lanes > switch.lanes.value:
        return (f"topology.switches: {most} drives x{link_lanes}{_spares_note(spares)} and a x{use.uplink_lanes} uplink "
                f"need {lanes} lanes of one {switch.name}; it has {switch.lanes.value}; allowed: more switches "
                f"(topology.switches.count) or a narrower uplink (topology.switches.uplink_lanes)")
    device = catalog.engines[scenario.array.engine].device
    if device is not None and device.data_through_device:
        return (f"topology.switches: the drives of {scenario.array.engine} hang from the card's own ports, "
                f"not from a switch on the host's root ports; allowed: no topology.switches under "
                f"{scenario.array.engine}, or an engine without a card of its own")
    return None


def has_card(catalog: Any, engine_name: str) -> bool:
    """Whether engine ``engine_name`` hangs from a card of its own (a RAID card, a GPU card): not a
    software engine, nor VROC, whose device is a VMD domain of the CPU's root complex."""
    engine = catalog.engines.get(engine_name)
    return engine is not None and engine.device is not None and not catalog.engine_class(engine_name).needs_vmd


def engine_cards(scenario: Any, catalog: Any) -> list[tuple[str, int]]:
    """The engines' own devices (RAID cards, GPU cards) in the server as (engine, card), in order:
    the array's card (card 0 of its engine), then each further card a volume hangs from
    (``VolumeSpec.card``: card N of its engine's model). A second virtual disk on a card adds none,
    nor does VROC: its device is a VMD domain of the CPU's root complex (``needs_vmd``), no card."""
    cards: list[tuple[str, int]] = []
    arrays = [(scenario.array, 0)] + [(v.array, v.card) for v in getattr(scenario, "volumes", ())]
    for array, card in arrays:
        if has_card(catalog, array.engine) and (array.engine, card) not in cards:
            cards.append((array.engine, card))
    return cards


def _own_drive_lanes(array: Any, topology: Any, platform: Any, catalog: Any) -> int:
    """Root-port lanes an array's drives and hot spares take (their bay or slot links, or their
    switches' uplinks); none when they hang from a RAID card's own ports."""
    device = catalog.engines[array.engine].device
    if device is not None and device.data_through_device:  # a card's drives hang from its own ports
        return 0
    drives = array.drives + array.hot_spares
    if topology is not None and topology.switches is not None:
        return topology.switches.count * topology.switches.uplink_lanes
    if topology is not None and topology.attach == "slots":
        return sum(link.lanes for link in slot_links(platform.slots, topology.bifurcation)[:drives])
    _bays, bay_lanes, _gen, _label = bay_count(topology, platform, catalog)
    return drives * min(catalog.drives[array.drive].lanes.value, bay_lanes)


def _root_lanes(scenario: Any, catalog: Any) -> tuple[int, int]:
    """(the array's, the volumes') root-port lanes: ``root_lanes_needed`` split between them."""
    platform, array = catalog.platforms[scenario.platform], scenario.array
    lanes = {card: catalog.engines[card[0]].device.lanes.value for card in engine_cards(scenario, catalog)}
    own_card = (array.engine, 0)
    own = _own_drive_lanes(array, scenario.topology, platform, catalog) + lanes.get(own_card, 0)
    theirs = sum(_own_drive_lanes(v.array, None, platform, catalog) for v in getattr(scenario, "volumes", ()))
    return own, theirs + sum(width for card, width in lanes.items() if card != own_card)


def root_lanes_needed(scenario: Any, catalog: Any) -> int:
    """Root-port lanes the drives and hot spares (their bay or slot links, or their switches'
    uplinks) and the engines' cards take: a RAID card's own link only, when host data crosses it
    (its drives hang from the card's ports, not the host's). The volumes' (``volumes``) count too:
    each one's drives in the platform's bays (a volume takes no topology) and each further card
    (``engine_cards``)."""
    return sum(_root_lanes(scenario, catalog))


def _volumes_error(scenario: Any, catalog: Any, platform: Any) -> str | None:
    """What the array's own checks refuse, for each volume: an engine tied to another CPU maker's
    silicon (``EngineSpec.cpu_vendors``), add-in-card drives (a volume takes no topology: its drives
    are in the server's bays)."""
    for i, volume in enumerate(getattr(scenario, "volumes", ())):
        engine, drive = catalog.engines.get(volume.array.engine), catalog.drives.get(volume.array.drive)
        if engine is None or drive is None:
            continue
        allowed = engine.cpu_vendors
        if allowed is not None and platform.cpu.vendor not in allowed:
            return (f"volumes[{i}].array.engine: {volume.array.engine} runs only on {' or '.join(allowed)} CPUs; "
                    f"platform {platform.name} has {platform.cpu.model}")
        if is_add_in_card(drive):
            return (f"volumes[{i}].array.drive: {drive.name} is an add-in card ({drive.form_factor}); a volume's drives "
                    f"go in the server's bays (a volume takes no topology); allowed: a bay drive")
    return None


def _cards_slots_error(scenario: Any, catalog: Any, platform: Any) -> str | None:
    """Each engine card (``engine_cards``: the array's and every further card of the volumes) takes
    a whole slot at least as wide as its link, one the array's add-in-card drives leave free."""
    cards = engine_cards(scenario, catalog)
    if not cards:
        return None
    topology = scenario.topology
    taken: set[str] = set()
    if topology is not None and topology.attach == "slots":
        drives = scenario.array.drives + scenario.array.hot_spares
        taken = {link.name for link in slot_links(platform.slots, topology.bifurcation)[:drives]}
    free = sorted((slot.lanes for slot in platform.slots if slot.name not in taken), reverse=True)
    widths = sorted((catalog.engines[engine].device.lanes.value for engine, _card in cards), reverse=True)
    if len(widths) <= len(free) and all(w <= s for w, s in zip(widths, free)):
        return None
    own = 1 if (scenario.array.engine, 0) in cards else 0
    more = len(cards) - own
    theirs = f"{more} card{'s' if more > 1 else ''} the volumes hang from"
    who = " and ".join((["the array's card"] if own else []) + ([theirs] if more else []))
    field = "volumes" if more else "topology"
    slots = ", ".join(f"{s.name} x{s.lanes}" for s in platform.slots) or "no slots"
    held = f", {len(taken)} of them holding the array's add-in-card drives" if taken else ""
    need = "needs a slot" if len(cards) == 1 else f"need {len(cards)} slots"
    fix = (f"at most {sum(1 for s in free if s >= widths[-1])} cards" if more
           else "a slot left free for it (fewer add-in-card drives, or split a slot with topology.bifurcation)")
    return (f"{field}: {who} {need} of x{widths[0]} or wider; {platform.name} has "
            f"{len(platform.slots)} ({slots}){held}; allowed: {fix}")


def placement_error(scenario: Any, catalog: Any) -> str | None:
    """Why the scenario's drives, switches and card do not fit its platform (one line), or None.

    Checked: drives and hot spares against bays (and the backplane's form factor), add-in cards
    (and only they) against slot links and their widths, bifurcation against the slots, switch ports
    and lanes, the engines' cards against the slots (``_cards_slots_error``), the root-port lanes of
    the platform's sockets, VMD on a CPU that has it; a topology field that would change nothing is
    refused (``_fields_error``). A hot spare takes a bay or slot, a switch port and its lanes as a
    member does. A switch may carry more drive lanes than its uplink (legal over-subscription: the
    uplink is a shared server, not an error). The volumes' drives take bays and root-port lanes, their
    further cards slots and lanes, and each volume's engine and drive are checked as the array's
    (``_volumes_error``).
    """
    if catalog.engines.get(scenario.array.engine) is None:
        return None
    topology, platform = scenario.topology, catalog.platforms[scenario.platform]
    drive = catalog.drives[scenario.array.drive]
    slots = topology is not None and topology.attach == "slots"
    error = _bifurcation_error(topology, platform) if topology is not None else None
    error = error or (_fields_error(scenario, catalog) if topology is not None else None)
    error = error or (_slots_error(scenario, catalog, drive) if slots else _bays_error(scenario, catalog, drive))
    error = error or _volume_bays_error(scenario, catalog)
    if error is None and topology is not None and topology.switches is not None:
        link_lanes = drive.lanes.value if slots else min(drive.lanes.value, bay_count(topology, platform, catalog)[1])
        error = _switch_error(scenario, catalog, link_lanes)
    error = error or _volumes_error(scenario, catalog, platform) or _cards_slots_error(scenario, catalog, platform)
    if error is None:
        have = platform.cpu.sockets * platform.pcie_lanes_per_socket.value
        own, theirs = _root_lanes(scenario, catalog)
        need = own + theirs
        if need > have and theirs:
            error = (f"volumes: the array's {own} and the volumes' {theirs} PCIe lanes of root ports (drives "
                     f"in bays, the engines' further cards) need {need}; {platform.name} has {have} "
                     f"({platform.cpu.sockets} x {platform.pcie_lanes_per_socket.value}); allowed: fewer volumes' "
                     f"drives or cards")
        elif need > have:
            switched = topology is not None and topology.switches is not None
            spares = scenario.array.hot_spares
            drives = f"the drives ({spares} hot spares included)" if spares else "the drives"
            card = " and the engine's card" if (scenario.array.engine, 0) in engine_cards(scenario, catalog) else ""
            who = f"the switches' uplinks{card}" if switched else f"{drives}{card}"
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
        return (f"topology.vmd: VMD is a feature of Intel Xeon CPUs; {platform.name} has {platform.cpu.model}; "
                f"allowed: vmd: false, or an Intel Xeon platform")
    needs_vmd = catalog.engine_class(scenario.array.engine).needs_vmd
    if not topology.vmd and needs_vmd:
        return f"topology.vmd: {scenario.array.engine} runs on drives behind Intel VMD; set topology.vmd: true"
    if topology.vmd and not needs_vmd:
        return (f"topology.vmd: nvsim models a VMD domain only under a vroc engine (its remapped interrupts, "
                f"vmd_interrupt_us); {scenario.array.engine} behind VMD would cost what it costs without it; "
                f"allowed: vmd: false, or array.engine: intel-vroc")
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
           "bay_count", "root_lanes_needed", "is_add_in_card", "engine_cards"]
