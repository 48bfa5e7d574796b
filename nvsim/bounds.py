"""The first answer for any array: usable capacity and the upper bounds the hardware allows.

Each bound is the tightest of several component limits (drive media, drive links, the engine's
device and link), all derived from the component models: datasheet rates of the drives, the
PCIe link model, and the RAID level's member I/Os per host I/O (nvsim.raid). Engines' CPU costs,
locks and queueing come later (simulation); these are ceilings a real run cannot beat.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .catalog import Catalog, default_catalog
from .links import drive_link, engine_link
from .platform import PlatformModel
from .raid import full_stripe_write_bytes_per_host_byte, small_write_ops, usable_capacity_bytes
from .specs import ScenarioSpec

RANDOM_IO_BYTES = 4096
SEQUENTIAL_MEMBER_IO_BYTES = 128 * 1024


@dataclass(frozen=True)
class Limit:
    component: str
    value: float


@dataclass(frozen=True)
class Bound:
    metric: str
    unit: str
    value: float
    limited_by: str
    limits: tuple[Limit, ...]


@dataclass(frozen=True)
class Capacity:
    usable_bytes: int
    raw_bytes: int
    member_bytes: int
    drives: int
    level: int

    @property
    def efficiency(self) -> float:
        return self.usable_bytes / self.raw_bytes


@dataclass(frozen=True)
class BoundsReport:
    scenario: str
    capacity: Capacity
    bounds: tuple[Bound, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["capacity"]["efficiency"] = self.capacity.efficiency
        return out


def _tightest(metric: str, unit: str, limits: list[Limit]) -> Bound:
    best = min(limits, key=lambda limit: limit.value)
    return Bound(metric, unit, best.value, best.component, tuple(sorted(limits, key=lambda limit: limit.value)))


def capacity(scenario: ScenarioSpec, catalog: Catalog | None = None) -> Capacity:
    catalog = catalog or default_catalog()
    array = scenario.array
    drive = catalog.drives[array.drive]
    member = array.namespace_bytes or drive.capacity_bytes.value
    usable = usable_capacity_bytes(array.level, array.drives, member, array.strip_bytes, array.near_copies)
    return Capacity(usable, array.drives * drive.capacity_bytes.value, member, array.drives, array.level)


def array_bounds(scenario: ScenarioSpec, catalog: Catalog | None = None) -> BoundsReport:
    """Capacity and the four headline bounds of the scenario's array, each with its limiting component."""
    catalog = catalog or default_catalog()
    array = scenario.array
    drive = catalog.drives[array.drive]
    platform = catalog.platforms[scenario.platform]
    engine = catalog.engines[array.engine]
    n = array.drives
    link = drive_link(drive, platform, catalog)
    media = f"{n} x {drive.model} {drive.name.rsplit('-', 1)[-1].upper()} media"
    links = f"{n} x drive link {link.name}"
    card_link = engine_link(engine, platform, catalog)
    through_card = engine.device is not None and engine.device.data_through_device

    # 4 KiB random read: one member read per host read, spread over every member.
    rr = [Limit(media, n * drive.rand_read_iops.value), Limit(links, n * link.nvme_iops(RANDOM_IO_BYTES, True))]
    # 4 KiB random write: the level's small-write member I/Os (mirror copies, or RMW/RCW).
    ops = small_write_ops(array.level, n, RANDOM_IO_BYTES, array.near_copies)
    rw = [
        Limit(media, n / (ops.reads / drive.rand_read_iops.value + ops.writes / drive.rand_write_iops.value)),
        Limit(links, n / (ops.reads / link.nvme_iops(RANDOM_IO_BYTES, True) + ops.writes / link.nvme_iops(RANDOM_IO_BYTES, False))),
    ]
    # Sequential: every member streams its share (parity strips skipped on reads; written on writes).
    write_factor = full_stripe_write_bytes_per_host_byte(array.level, n, array.near_copies)
    sr = [Limit(media, n * drive.seq_read_bytes_per_s.value),
          Limit(links, n * link.nvme_data_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, True))]
    sw = [Limit(media, n * drive.seq_write_bytes_per_s.value / write_factor),
          Limit(links, n * link.nvme_data_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, False) / write_factor)]

    # The platform: host cores submitting and completing (fio's libaio cost), root ports, DRAM, and
    # the inter-socket link for the share of traffic that crosses it.
    host = PlatformModel(platform, scenario.placement, n, catalog)
    cores = f"{host.cores} host cores (libaio submit+complete)"
    rr.append(Limit(cores, host.host_cpu_iops("libaio", RANDOM_IO_BYTES)))
    rw.append(Limit(cores, host.host_cpu_iops("libaio", RANDOM_IO_BYTES)))
    ports = f"PCIe root ports of {len(set(host.drive_sockets))} socket(s)"
    sr.append(Limit(ports, host.root_ports_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, True)))
    sw.append(Limit(ports, host.root_ports_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, False) / write_factor))
    memory = f"DRAM of {len(set(host.job_sockets))} socket(s)"
    sr.append(Limit(memory, host.memory_bytes_per_s()))
    sw.append(Limit(memory, host.memory_bytes_per_s()))
    crossing = host.inter_socket_bytes_per_s()
    if crossing is not None:
        sr.append(Limit("inter-socket link", crossing))
        sw.append(Limit("inter-socket link", crossing))

    if engine.device is not None:
        device = engine.device
        label = f"{engine.product.split('(')[0].strip()} card"
        if device.max_read_iops:
            rr.append(Limit(f"{label} limit", device.max_read_iops.value))
        if device.max_write_iops:
            rw.append(Limit(f"{label} limit", device.max_write_iops.value))
        if device.max_read_bytes_per_s:
            sr.append(Limit(f"{label} limit", device.max_read_bytes_per_s.value))
        if device.max_write_bytes_per_s:
            sw.append(Limit(f"{label} limit", device.max_write_bytes_per_s.value))
        if through_card and card_link is not None:  # host data crosses the card's own link once
            name = f"{label} link {card_link.name}"
            rr.append(Limit(name, card_link.nvme_iops(RANDOM_IO_BYTES, True)))
            rw.append(Limit(name, card_link.nvme_iops(RANDOM_IO_BYTES, False)))
            sr.append(Limit(name, card_link.nvme_data_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, True)))
            sw.append(Limit(name, card_link.nvme_data_bytes_per_s(SEQUENTIAL_MEMBER_IO_BYTES, False)))

    bounds = (
        _tightest("4K random read", "IOPS", rr),
        _tightest("4K random write", "IOPS", rw),
        _tightest("sequential read", "B/s", sr),
        _tightest("sequential write", "B/s", sw),
    )
    return BoundsReport(scenario.name, capacity(scenario, catalog), bounds)


__all__ = ["array_bounds", "capacity", "BoundsReport", "Bound", "Limit", "Capacity"]
