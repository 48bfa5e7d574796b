"""The first answer for any array: usable capacity and the upper bounds the hardware allows.

Each of the four headline bounds (4 KiB random read and write, 128 KiB sequential read and write)
is the tightest of two sets of limits:

* datasheet and platform ceilings: the drives' media rates and links (with the RAID level's member
  I/Os per host I/O, nvsim.raid), the root ports, DRAM, the inter-socket link, the engine card's
  advertised limits and its own link;
* one limit per resource of the built array (``nvsim.fabric.KINDS``: the host cores, the engine's
  lock and server, its card's bandwidth and link, the drives' NAND and links, DRAM) under the
  metric's canonical workload: its servers over its mean demand per host I/O, the very caps the
  fluid mode takes its throughput from (``nvsim.sim.fluid.resource_caps``). So the engine's own
  write cost bounds a GPU RAID6 random write, not only the drives.

Queueing and the closed loop of I/Os in flight come later (simulation): the bounds are ceilings
the fluid mode does not exceed for the canonical workloads. One drive used directly (engine
``none``, one drive) is not the array simulator's model: it keeps the host cores' libaio cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from .array_capacity import Capacity, capacity
from .catalog import Catalog, catalog_or_default, default_catalog
from .engines import build_engine
from .links import attachment, behind_card, drive_link, engine_link, switch_bytes_per_s, switch_uplink
from .names import drive_name, engine_name
from .platform import PlatformModel
from .raid import full_stripe_write_bytes_per_host_byte, small_write_ops
from .scenario import as_scenario
from .sim.fluid import resource_caps
from .sim.system import ArraySystem
from .specs import DriveSpec, ScenarioSpec, WorkloadSpec
from .ssd.model import SsdModel

RANDOM_IO_BYTES = 4096
SEQUENTIAL_MEMBER_IO_BYTES = 128 * 1024
SEQUENTIAL_BOUND_TRANSFER_BYTES = 1 << 30
"""The NVMe transfer the sequential limits of links price their commands at: larger than any member
I/O a plan makes (plans merge a member's run, and an engine may gather a stripe: a 1 MiB write on
md RAID0 of 8 x 4 KiB strips is one 128 KiB I/O a member, 128 KiB writes on a SupremeRAID RAID5 of
512 KiB strips 512 KiB ones), so the per-command cost is all but none and the limit bounds every
plan (0.11% above the 128 KiB figure on a Gen5 x4 link)."""
RANDOM_READ, RANDOM_WRITE = "4K random read", "4K random write"
SEQUENTIAL_READ, SEQUENTIAL_WRITE = (f"{SEQUENTIAL_MEMBER_IO_BYTES // 1024}K sequential {rw}" for rw in ("read", "write"))
"""Named by their transfer as the random ones are: a larger transfer costs an engine fewer commands a
byte and may pass them (SupremeRAID RAID6 of 24 in scenarios/graid-gen5-raid6: 136.3 GB/s at 128 KiB,
140.8 at 1 MiB, 141.3 at 4 MiB; the bound at 1 MiB took 47 s to compute against 2.6)."""
CANONICAL = {RANDOM_READ: ("randread", RANDOM_IO_BYTES), RANDOM_WRITE: ("randwrite", RANDOM_IO_BYTES),
             SEQUENTIAL_READ: ("read", SEQUENTIAL_MEMBER_IO_BYTES), SEQUENTIAL_WRITE: ("write", SEQUENTIAL_MEMBER_IO_BYTES)}
"""Each headline metric's canonical workload: (fio rw, block size)."""
UNITS = {RANDOM_READ: "IOPS", RANDOM_WRITE: "IOPS", SEQUENTIAL_READ: "B/s", SEQUENTIAL_WRITE: "B/s"}
CANONICAL_IODEPTH = 65536
"""The deepest queue a workload may have: a sequential write stream then has a whole stripe in
flight and reaches a stripe cache as full stripes (``nvsim.sim.demand``), the engine's cheapest
case; random I/Os' demands do not depend on it."""


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


def namespace_random_write_iops(drive: DriveSpec, namespace_bytes: int | None) -> float:
    """The drive's 4 KiB random-write ceiling: its datasheet figure at full capacity; a smaller
    namespace leaves more spare area, and the SSD model's steady state gives the rate there (the
    namespace sizing of seed 002); never below the datasheet figure, so it stays a ceiling."""
    if namespace_bytes is None or namespace_bytes >= drive.capacity_bytes.value:
        return float(drive.rand_write_iops.value)
    ssd = SsdModel.from_drive(drive, namespace_bytes)
    return max(float(drive.rand_write_iops.value), 1.0 / ssd.write_pool_s(RANDOM_IO_BYTES, True))


def _datasheet_limits(scenario: ScenarioSpec, catalog: Catalog, host: PlatformModel) -> dict[str, list[Limit]]:
    """Per metric, the ceilings read from datasheets and the platform: the drives' media rates and
    links, the root ports, DRAM, the inter-socket link, and the engine card's advertised limits and
    its own link (the host data crossing it once)."""
    array = scenario.array
    drive = catalog.drives[array.drive]
    n = array.drives
    link = behind_card(drive_link(drive, catalog.platforms[scenario.platform], catalog, scenario.topology, n),
                       catalog.engines[array.engine], catalog)
    media = f"{n} x {drive_name(drive)} media"
    links = f"{n} x drive link {link.name}"

    # 4 KiB random read: one member read per host read, spread over every member.
    rr = [Limit(media, n * drive.rand_read_iops.value), Limit(links, n * link.nvme_iops(RANDOM_IO_BYTES, True))]
    # 4 KiB random write: the level's small-write member I/Os (mirror copies, or RMW/RCW).
    ops = small_write_ops(array.level, n, RANDOM_IO_BYTES, array.copies)
    write_iops = namespace_random_write_iops(drive, array.namespace_bytes)
    rw = [
        Limit(media, n / (ops.reads / drive.rand_read_iops.value + ops.writes / write_iops)),
        Limit(links, n * link.nvme_mixed_rate(RANDOM_IO_BYTES, ops.reads, ops.writes)),  # reads up, writes down
    ]
    # Sequential: every member streams its share (parity strips skipped on reads; written on writes).
    write_factor = full_stripe_write_bytes_per_host_byte(array.level, n, array.copies)
    sr = [Limit(media, n * drive.seq_read_bytes_per_s.value),
          Limit(links, n * link.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, True))]
    sw = [Limit(media, n * drive.seq_write_bytes_per_s.value / write_factor),
          Limit(links, n * link.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, False) / write_factor)]

    # The platform: root ports, DRAM, and the inter-socket link for the share of traffic that crosses it.
    ports = f"PCIe root ports of {len(set(host.drive_sockets))} socket(s)"
    sr.append(Limit(ports, host.root_ports_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, True)))
    sw.append(Limit(ports, host.root_ports_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, False) / write_factor))
    memory = f"DRAM of {host.job_socket_count} socket(s)"
    sr.append(Limit(memory, host.memory_bytes_per_s()))
    sw.append(Limit(memory, host.memory_bytes_per_s()))
    crossing = host.inter_socket_bytes_per_s()
    if crossing is not None:
        sr.append(Limit("inter-socket link", crossing))
        sw.append(Limit("inter-socket link", crossing))
    limits = {RANDOM_READ: rr, RANDOM_WRITE: rw, SEQUENTIAL_READ: sr, SEQUENTIAL_WRITE: sw}
    _add_card_limits(limits, scenario, catalog)
    _add_switch_limits(limits, scenario, catalog, ops, write_factor)
    return limits


def _add_switch_limits(limits: dict[str, list[Limit]], scenario: ScenarioSpec, catalog: Catalog, ops,
                       write_factor: float) -> None:
    """The uplinks of the switches the drives hang behind: every member I/O's data crosses one of
    them (its rate, or the switch core's where lower: ``nvsim.links.switch_bytes_per_s``)."""
    platform, array = catalog.platforms[scenario.platform], scenario.array
    path = attachment(catalog.drives[array.drive], platform, catalog, scenario.topology, array.drives)
    uplink = switch_uplink(platform, catalog, path)
    if uplink is None:
        return
    share = switch_bytes_per_s(uplink, path) / uplink.usable_bytes_per_s() * path.switches
    name = f"{path.switches} x switch {path.switch.name} uplink {uplink.name}"
    limits[RANDOM_READ].append(Limit(name, share * uplink.nvme_iops(RANDOM_IO_BYTES, True)))
    limits[RANDOM_WRITE].append(Limit(name, share * uplink.nvme_mixed_rate(RANDOM_IO_BYTES, ops.reads, ops.writes)))
    limits[SEQUENTIAL_READ].append(Limit(name, share * uplink.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, True)))
    limits[SEQUENTIAL_WRITE].append(Limit(name, share * uplink.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, False)
                                          / write_factor))


def _add_card_limits(limits: dict[str, list[Limit]], scenario: ScenarioSpec, catalog: Catalog) -> None:
    """The engine card's advertised limits, and its link where host data crosses it once."""
    engine = catalog.engines[scenario.array.engine]
    device = engine.device
    if device is None:
        return
    label = f"{engine_name(engine)} card"
    for metric, advertised in ((RANDOM_READ, device.max_read_iops), (RANDOM_WRITE, device.max_write_iops),
                               (SEQUENTIAL_READ, device.max_read_bytes_per_s),
                               (SEQUENTIAL_WRITE, device.max_write_bytes_per_s)):
        if advertised:
            limits[metric].append(Limit(f"{label} limit", advertised.value))
    card_link = engine_link(engine, catalog.platforms[scenario.platform], catalog)
    if device.data_through_device and card_link is not None:
        name = f"{label} link {card_link.name}"
        limits[RANDOM_READ].append(Limit(name, card_link.nvme_iops(RANDOM_IO_BYTES, True)))
        limits[RANDOM_WRITE].append(Limit(name, card_link.nvme_iops(RANDOM_IO_BYTES, False)))
        limits[SEQUENTIAL_READ].append(Limit(name, card_link.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, True)))
        limits[SEQUENTIAL_WRITE].append(Limit(name, card_link.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, False)))
    elif card_link is not None and build_engine(engine, scenario.array.engine_settings).host_data_crosses_link():
        name = f"{label} link {card_link.name} (written data through the GPU)"  # a GPU driver's write path
        limits[RANDOM_WRITE].append(Limit(name, card_link.nvme_iops(RANDOM_IO_BYTES, False)))
        limits[SEQUENTIAL_WRITE].append(Limit(name, card_link.nvme_data_bytes_per_s(SEQUENTIAL_BOUND_TRANSFER_BYTES, False)))


def canonical_workload(metric: str, jobs: int) -> WorkloadSpec:
    """The workload of one headline metric, run by ``jobs`` jobs (one per logical CPU of the jobs'
    sockets: the host cores' widest placement, SMT siblings included)."""
    rw, bs = CANONICAL[metric]
    return WorkloadSpec(name=f"bound-{rw}-b{bs // 1024}k-j{jobs}", rw=rw, bs=bs, numjobs=jobs, iodepth=CANONICAL_IODEPTH)


def _fabric_limits(scenario: ScenarioSpec, catalog: Catalog, host: PlatformModel) -> dict[str, list[Limit]]:
    """Per metric, one limit per resource of the built array (``nvsim.fabric``) that the canonical
    workload loads: its servers over its mean demand per host I/O (``nvsim.sim.fluid.resource_caps``,
    the fluid mode's own caps), in host I/Os per second or, for the sequential metrics, bytes.

    A core's clock falls as more cores are busy (``nvsim.platform.active_core_clock_ghz``): the host
    cores' cap is highest with every job CPU busy, a single engine thread's or lock's with the
    fewest, at the maximum boost. Each resource's limit is the larger of the two, so the bound is
    a ceiling for any job count."""
    jobs = host.cpu_layout(1).logical_cpus
    out: dict[str, list[Limit]] = {}
    for metric, (_rw, bs) in CANONICAL.items():
        widest = resource_caps(ArraySystem(scenario, canonical_workload(metric, jobs), catalog))
        fastest = dict(resource_caps(ArraySystem(scenario, canonical_workload(metric, 1), catalog)))
        scale = 1.0 if UNITS[metric] == "IOPS" else float(bs)
        out[metric] = [Limit(label, max(cap, fastest.get(label, 0.0)) * scale) for label, cap in widest]
    return out


def _host_core_limits(host: PlatformModel) -> dict[str, list[Limit]]:
    """One drive used directly: the host cores submitting and completing (fio's libaio cost), the
    array simulator not being its model."""
    cores = Limit(f"{host.cores} host cores (libaio submit+complete)", host.host_cpu_iops("libaio", RANDOM_IO_BYTES))
    return {RANDOM_READ: [cores], RANDOM_WRITE: [cores], SEQUENTIAL_READ: [], SEQUENTIAL_WRITE: []}


def array_bounds(scenario: ScenarioSpec | str | Path, catalog: Catalog | None = None) -> BoundsReport:
    """Capacity and the four headline bounds of the scenario's array, each with its limiting
    component: the datasheet and platform ceilings, and every fabric resource's cap under the
    metric's canonical workload (one drive used directly: the host cores' libaio cost instead).
    ``scenario``: a ``ScenarioSpec``, checked again against ``catalog`` (one ``InputError`` for a
    part the catalog lacks), or its file's path (``nvsim.scenario.as_scenario``)."""
    catalog = catalog_or_default(catalog)
    scenario = as_scenario(scenario, catalog)
    array = scenario.array
    host = PlatformModel(catalog.platforms[scenario.platform], scenario.placement, array.drives, catalog)
    limits = _datasheet_limits(scenario, catalog, host)
    extra = _host_core_limits(host) if array.single_drive else _fabric_limits(scenario, catalog, host)
    bounds = tuple(_tightest(metric, UNITS[metric], limits[metric] + extra[metric]) for metric in CANONICAL)
    return BoundsReport(scenario.name, capacity(scenario, catalog), bounds)


__all__ = ["array_bounds", "canonical_workload", "capacity", "BoundsReport", "Bound", "Limit", "Capacity", "CANONICAL"]
