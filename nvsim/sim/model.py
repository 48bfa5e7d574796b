"""Build, then run: one scenario's array under one workload, built once and frozen.

``build(scenario, workload, catalog, failed_members)`` resolves the catalog names and derives
everything a run needs: the platform with the jobs' CPU layout, the drive model on its link, the
engine configured for this array (members, strip, a member missing, cross-socket share), the
geometry, the capacity, the engine card's link and bandwidth, and the host I/O costs at the
platform's clock. The ``ArrayModel`` it returns is never changed; what host I/Os and rebuild
requests ask of it are pure functions over it (``nvsim.sim.demand``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from .. import fabric
from ..array_capacity import Capacity, capacity
from ..catalog import Catalog, default_catalog
from ..engines import Engine, build_engine
from ..engines.md_bitmap import writes_per_update
from ..engines.rebuild_protocol import DegradedPath, RebuildProtocol
from ..host_io import HostIoCosts, busy_cpus_with_polling, workload_host_io_costs
from ..links import attachment, behind_card, drive_link, engine_link, switch_bytes_per_s, switch_uplink
from ..names import drive_name, engine_name
from ..pcie import NVME_READ_TRAVERSALS, NVME_WRITE_TRAVERSALS, PcieLink
from ..platform import CpuLayout, PlatformModel
from ..constants import PAGE_BYTES
from ..raid import data_members_per_stripe, parity_members
from ..specs import ArraySpec, DriveSpec, EngineSpec, PlatformSpec, ScenarioSpec, WorkloadSpec
from ..stripe.layout import DEFAULT_LAYOUT, ArrayGeometry
from ..stripe.positions import period_bytes
from ..topology import DriveAttachment
from .drive import DriveTiming, UplinkTiming, drive_timing
from .drive_load import loaded_timing
from .memo import MEMO, PER_CATALOG_LIMIT, Memo
from .workload import SAMPLE_PAGES, exact_mix_size, page_bounded_ios


SEQUENTIAL_SAMPLE_IOS = (16, 512)
"""The fewest and most host I/Os a sequential stream's sample takes (``whole_periods``)."""


def whole_periods(period: int, most: int | None = None) -> int:
    """Host I/Os of a sequential sample: at least two periods of the stream's alignment and 16
    I/Os, in whole periods, at most ``most`` (512; one period where a period is longer: the caller
    raises ``most`` as far as the sample's pages allow). A sample that ends
    inside a period counts its last stripe as a partial one: 16 writes of 64 KiB on a 448 KiB stripe
    (a period of 7) put 1 MiB in two whole stripes and a third of 128 KiB, and the fluid mode gave a
    RAID WAF of 1.1875 where the stream's is 8/7 (1.1429; 47.3 GB/s from the event mode, 41.7 from
    the fluid one, until 2026-12-01)."""
    fewest = SEQUENTIAL_SAMPLE_IOS[0]
    most = SEQUENTIAL_SAMPLE_IOS[1] if most is None else most
    wanted = max(fewest, 2 * period)
    size = -(-wanted // period) * period
    if size > most:
        size = max(1, most // period) * period if period <= most else most
    return int(size)


@dataclass(frozen=True, eq=False)
class ArrayModel:
    """One array on its platform with its engine, under one workload, fully built (see ``build``)."""

    scenario: ScenarioSpec
    workload: WorkloadSpec
    catalog: Catalog
    failed_members: tuple[int, ...]  # missing members: host I/Os are planned degraded around them
    array: ArraySpec
    drive_spec: DriveSpec
    platform_spec: PlatformSpec
    engine_spec: EngineSpec
    kind: str  # the engine's kind (a key of nvsim.engines.ENGINES)
    engine: Engine
    platform: PlatformModel
    logical_cpus: int  # of the jobs' sockets
    cpu_speed: np.ndarray  # per logical CPU the jobs use: a core's worth
    job_cpu: np.ndarray  # per job: its logical CPU
    drive: DriveTiming
    capacity: Capacity
    jbod: bool  # no RAID: each job on its own drive
    device_bytes: int  # the block device the jobs address
    geometry: ArrayGeometry | None  # None without RAID
    host_submit_s: float  # fio's submit cost of one host I/O at the platform's clock
    host_complete_s: float
    host_io: HostIoCosts  # the host I/O path's costs (nvsim.host_io): CPU, added latency, polling
    engine_clock_scale: float  # the engine's reference clock over the platform's
    device_link: PcieLink | None  # the engine card's link, when host data crosses it
    device_read_bytes_per_s: float | None  # the engine card's advertised read bandwidth
    memory_bytes_per_s: float
    switch_uplink: UplinkTiming | None  # a switch uplink's busy time per member I/O (None: no switch)
    facts: fabric.ArrayFacts
    resource_list: tuple[tuple[str, str, float], ...]

    @classmethod
    def assemble(cls, **fields) -> ArrayModel:
        """A model from all its fields at once (one dict update rather than a frozen setattr per
        field: a sweep builds thousands). Still frozen: its fields cannot be set afterwards."""
        assert fields.keys() == _FIELD_NAMES, sorted(_FIELD_NAMES ^ fields.keys())
        model = object.__new__(cls)
        model.__dict__.update(fields)
        return model

    def resources(self) -> list[tuple[str, str, float]]:
        """(key, label, servers) of every resource this array has, in report order: the one list
        both fidelities report utilisation against (``nvsim.fabric.KINDS``; drives: the busiest)."""
        return list(self.resource_list)

    @cached_property
    def rebuild(self) -> RebuildProtocol:
        """The engine's rebuild of this array (``Engine.rebuild_protocol``), built when first asked
        (a sweep builds thousands of arrays and rebuilds few)."""
        return self.engine.rebuild_protocol(self.array.level, self.array.rebuild)

    @cached_property
    def check(self) -> RebuildProtocol:
        """The engine's parity scrub of this array (``Engine.rebuild_protocol(..., "check")``: every
        member read, nothing written, paced as its rebuild), built when first asked."""
        return self.engine.rebuild_protocol(self.array.level, self.array.rebuild, "check")

    @cached_property
    def resync(self) -> RebuildProtocol:
        """The engine's resync of this whole array after an unclean shutdown
        (``Engine.resync_operation``: md RAID1 reads one copy and writes the others; elsewhere its
        ``check``), built when first asked."""
        level = self.array.level
        operation = self.engine.resync_operation(level)
        return self.check if operation == "check" else self.engine.rebuild_protocol(level, self.array.rebuild, operation)

    def sync_protocol(self, resync: bool) -> RebuildProtocol:
        """The whole-array sync a ``checking`` state runs: the resync after an unclean shutdown
        (``resync``), else the parity check."""
        return self.resync if resync else self.check

    @cached_property
    def degraded_path(self) -> DegradedPath:
        """Host I/O with a member missing, as the engine runs it (``Engine.degraded_path``)."""
        return self.engine.degraded_path(self.array.level)

    @property
    def engine_server_label(self) -> str | None:
        return self.engine.server.label if self.engine.server else None

    @property
    def engine_servers(self) -> int:
        return self.engine.server.servers if self.engine.server else 1

    @property
    def engine_on_host_cpu(self) -> bool:
        return bool(self.engine.server and self.engine.server.on_host_cpu)

    def rebuild_thread_cpus(self, job_busy_cpus: float = 0.0) -> float:
        """The CPUs the engine's rebuild threads run on (the rebuild thread station's servers): its
        threads, or the host's logical CPUs the jobs leave where fewer, at least one (with every CPU
        taken they share the jobs'). The jobs take ``job_busy_cpus``, a busy-polling job (io_uring
        hipri) its CPU all the time, an SQ polling thread one more (``busy_cpus_with_polling``).
        The fluid mode passes its iterate's busy job CPUs; the event mode, which learns them only at
        the run's end, none: it leaves the threads what the jobs hold whatever their load."""
        jobs = busy_cpus_with_polling(job_busy_cpus, float(len(self.cpu_speed)), self.workload.numjobs, self.host_io,
                                      float(self.logical_cpus))
        return min(float(self.facts.rebuild_threads), max(1.0, float(self.logical_cpus) - jobs))

    @property
    def sample_size(self) -> int:
        """Host I/Os of one job that show every member-I/O pattern of this workload: a few stripes
        of a sequential stream (a whole period of its alignment), or enough random I/Os to mix
        reads and writes; the fluid mode and the drives' write share average over them. Blocks so
        large that these would plan more than ``SAMPLE_PAGES`` member pages take fewer
        (``page_bounded_ios``): each of them already spans many stripes."""
        w = self.workload
        if self.jbod:
            return exact_mix_size(w.read_fraction, page_bounded_ios(64, w.bs))
        if w.is_random:
            return exact_mix_size(w.read_fraction, page_bounded_ios(128 if 0 < w.read_fraction < 1 else 64, w.bs))
        data = self.array.drives - parity_members(self.array.level)
        repeat = max(1, data) * self.array.strip_bytes
        if self.failed_members and self.array.level in (5, 6):  # each survivor's role turns with the parity's rotation
            repeat = period_bytes(self.geometry)[0]
        period = math.lcm(w.bs, repeat) // w.bs
        # a mixed stream's reads and writes are streams of their own (fio's position per direction): each
        # takes whole periods when the sample is whole periods of the mix's denominator
        mix = exact_mix_size(w.read_fraction, 1)
        most = max(SEQUENTIAL_SAMPLE_IOS[1], SAMPLE_PAGES // max(1, math.ceil(w.bs / PAGE_BYTES)))
        return page_bounded_ios(whole_periods(period * mix, most), w.bs)

    def sync_update(self, write_rate_per_s: float, region_bytes: float | None = None) -> tuple[float, float]:
        """(share of host writes that wait for the engine's synchronous metadata update -- md's
        write-intent bitmap -- when the array takes writes at ``write_rate_per_s``; seconds of the
        engine's thread each of them takes: one update, a bitmap page written to every member at
        once and waited for (a drive's write latency and the page's time on its link), shared by
        the writes that wait for the same one, ``md_bitmap.writes_per_update``). (0, 0) without
        RAID. Until 2026-11-30 every such write took a whole update: md RAID10 with a 1 MiB bitmap
        chunk held 16 KiB random writes to 66,346 IOPS at any queue depth. ``region_bytes``: the
        span the writes fall in (default the workload's ``size``, else the whole device; a
        database's page flushes: its data)."""
        if self.geometry is None:
            return 0.0, 0.0
        w, a = self.workload, self.array
        region = min(region_bytes or w.size or self.device_bytes, self.device_bytes)
        data = data_members_per_stripe(a.level, a.drives, a.copies)
        share = self.engine.sync_update_share(a.level, write_rate_per_s, region, w.bs, w.is_random, data)
        other = self.engine.sync_update_drive()  # an external bitmap's device (a drive of the catalog)
        device = self.drive if other is None else drive_timing(self.catalog, other, None, self.scenario.platform)
        update_s = device.write_fixed_s + device.link_s(self.engine.sync_update_bytes, True)
        return share, update_s / writes_per_update(write_rate_per_s * share, update_s)

    def chunk_requests_per_io(self) -> float:
        """Strips (chunks) one host I/O of the workload's size touches, on average over the
        alignments its offsets take (multiples of the block size): md splits a bio at each."""
        bs, strip = self.workload.bs, self.array.strip_bytes
        period = math.lcm(bs, strip) // bs
        return float(np.mean(strips_spanned(np.arange(period, dtype=np.int64) * bs, bs, strip)))

    def describe(self) -> str:
        a = self.array
        return f"{a.drives} x {self.drive_spec.name}, RAID{a.level}, {self.engine_spec.name}, {self.platform_spec.name}"


_FIELD_NAMES = frozenset(f.name for f in fields(ArrayModel))


def strips_spanned(offsets: np.ndarray, length_bytes: int, strip_bytes: int) -> np.ndarray:
    """Strips (chunks) each I/O of ``length_bytes`` at ``offsets`` touches."""
    return ((offsets + length_bytes - 1) // strip_bytes - offsets // strip_bytes + 1).astype(float)


def build(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
          failed_members: tuple[int, ...] = (), memo: Memo = MEMO, degraded: bool | None = None,
          writes: bool | None = None) -> ArrayModel:
    """The scenario's array under ``workload``, with ``failed_members`` missing (failed, pulled, or
    being rebuilt and not yet readable), built once (calibration's trial values come in a
    ``Catalog.with_values`` catalog). ``degraded``: whether the engine runs its degraded paths
    (default: with a member missing; True for the part of a member already rebuilt, which host
    I/O reads and writes while the array is still degraded: ``ArraySystem``). ``writes``: whether
    the load the array serves writes (default: whether ``workload`` does; an OLTP database's page
    reads are one part of a load that writes). What arrays share
    (drive models, engines, geometries, CPU layouts, links) is derived once and comes from
    ``memo``: a sweep builds thousands."""
    catalog = catalog or default_catalog()
    failed = tuple(sorted(set(int(m) for m in failed_members)))
    array = scenario.array
    platform_spec = catalog.platforms[scenario.platform]
    engine_spec = catalog.engines[array.engine]
    platform = PlatformModel(platform_spec, scenario.placement, array.drives, catalog)
    settings = tuple(sorted(array.engine_settings.items()))  # whether the engine stripes at all sets the capacity
    cap = memo.recall(memo.capacities, (id(catalog), array.drive, array.namespace_bytes, array.level, array.drives,
                                        array.strip_bytes, array.copies, array.engine, settings), capacity, scenario,
                      catalog, owner=catalog)
    engine = _engine(engine_spec, array, bool(failed) if degraded is None else degraded, platform, memo, cap.member_bytes,
                     len(failed), workload.read_fraction < 1.0 if writes is None else writes)
    drive = drive_timing(catalog, array.drive, array.namespace_bytes, scenario.platform, memo)
    path = None
    if scenario.topology is not None:
        path = attachment(catalog.drives[array.drive], platform_spec, catalog, scenario.topology, array.drives)
        key = (id(catalog), array.drive, array.namespace_bytes, scenario.platform, scenario.topology.model_dump_json())
        drive = memo.recall(memo.drive_timings, key, _topology_timing, drive, scenario, catalog, path, owner=catalog,
                            limit=PER_CATALOG_LIMIT)
    card_link = behind_card(drive.link, engine_spec, catalog)
    if card_link is not drive.link:  # a card's drives on its own ports, at its generation
        key = (id(catalog), array.drive, array.namespace_bytes, scenario.platform, array.engine,
               scenario.topology.model_dump_json() if scenario.topology is not None else None)
        drive = memo.recall(memo.drive_timings, key, _card_timing, drive, card_link, path, owner=catalog,
                            limit=PER_CATALOG_LIMIT)
    uplink_label, uplinks, switch_uplink_timing = _switch_facts(platform_spec, catalog, path)
    jbod = not engine.striped
    drive = loaded_timing(drive, workload, cap.member_bytes if jbod else cap.usable_bytes)  # FTL load (sim/drive_load)
    layout = array.layout or engine.default_layout(array.level) or array.resolved_layout
    geometry = None if jbod else memo.recall(
        memo.geometries, (array.level, array.drives, array.strip_bytes, layout, cap.member_bytes,
                          array.copies), _geometry, array, cap.member_bytes, layout)
    server = engine.server
    clock_ghz = platform.loaded_clock_ghz(workload.numjobs + engine.busy_host_threads(workload.read_fraction == 1.0))
    host_io = _host_io_costs(catalog, workload, clock_ghz, drive.ssd.unloaded_latency_s(workload, drive.link))
    cpu: CpuLayout = memo.recall(memo.cpu_layouts, (id(platform_spec), workload.numjobs, scenario.placement.job_sockets),
                                 platform.cpu_layout, workload.numjobs, owner=platform_spec, bounded=False)
    device = engine_spec.device
    link = memo.recall(memo.engine_links, (id(catalog), array.engine, scenario.platform), engine_link, engine_spec,
                       platform_spec, catalog, owner=catalog, limit=PER_CATALOG_LIMIT) if device else None
    device_link = link if device and engine.host_data_crosses_link() else None
    device_read = engine.device_bandwidth_bytes_per_s()
    facts = fabric.ArrayFacts(  # positional, in ArrayFacts' order: a sweep builds thousands
        len(cpu.speed), engine.lock_label, server.label if server else None, server.servers if server else 1,
        bool(server and server.on_host_cpu), engine_name(engine_spec), bool(device_read),
        device_link.name if device_link is not None else None, drive_name(catalog.drives[array.drive]), drive.units,
        drive.link.name, engine.rebuild_threads(), uplink_label, uplinks,
        engine.device_bandwidth_label() if device_read else None)
    return ArrayModel.assemble(
        scenario=scenario, workload=workload, catalog=catalog, failed_members=failed,
        array=array, drive_spec=catalog.drives[array.drive], platform_spec=platform_spec, engine_spec=engine_spec,
        kind=engine_spec.engine_kind, engine=engine, platform=platform,
        logical_cpus=cpu.logical_cpus, cpu_speed=cpu.speed, job_cpu=cpu.job_cpu,
        drive=drive, capacity=cap, jbod=jbod, device_bytes=cap.member_bytes if jbod else cap.usable_bytes,
        geometry=geometry, host_submit_s=host_io.submit_s, host_complete_s=host_io.complete_s, host_io=host_io,
        engine_clock_scale=engine.clock_ghz / clock_ghz,
        device_link=device_link, device_read_bytes_per_s=device_read,
        memory_bytes_per_s=platform.memory_bytes_per_s(), switch_uplink=switch_uplink_timing, facts=facts,
        resource_list=memo.recall(memo.resources, facts, _resource_list, facts, bounded=False),
    )


def _card_timing(base: DriveTiming, link: PcieLink, path: DriveAttachment | None) -> DriveTiming:
    """The drive model on the link a RAID card's own ports give it (``links.behind_card``), its fixed
    latencies longer by the trips through a retimer as on the bay's link."""
    return _timing_on(base, link, path.traversal_ns if path is not None else 0.0)


def _topology_timing(base: DriveTiming, scenario: ScenarioSpec, catalog: Catalog, path: DriveAttachment) -> DriveTiming:
    """The drive model on the link its topology gives it (bay, slot, switch port), its fixed
    latencies longer by the trips its commands and data make through the switch and retimer."""
    spec = catalog.drives[scenario.array.drive]
    link = drive_link(spec, catalog.platforms[scenario.platform], catalog, scenario.topology, scenario.array.drives)
    return _timing_on(base, link, path.traversal_ns)


def _timing_on(base: DriveTiming, link: PcieLink, traversal_ns: float) -> DriveTiming:
    """``base``'s drive on ``link`` (a model of its own: its link and fixed latencies differ), each
    command and its data ``traversal_ns`` longer per trip through a switch or retimer."""
    timing = DriveTiming(base.ssd, link)
    if traversal_ns:
        timing.read_fixed_s += NVME_READ_TRAVERSALS * traversal_ns * 1e-9
        timing.write_fixed_s += NVME_WRITE_TRAVERSALS * traversal_ns * 1e-9
    return timing


def _switch_facts(platform: PlatformSpec, catalog: Catalog,
                  path: DriveAttachment | None) -> tuple[str | None, int, UplinkTiming | None]:
    """The switches' uplinks as the fabric names and counts them, and one uplink's timing of the
    member I/Os that cross it (its own link at the rate the switch passes); no switch: None."""
    uplink = switch_uplink(platform, catalog, path) if path is not None else None
    if uplink is None:
        return None, 1, None
    label = f"{path.switches} x switch {path.switch.name} uplink {uplink.name}"
    return label, path.switches, UplinkTiming(uplink, switch_bytes_per_s(uplink, path))


def _engine(spec: EngineSpec, array: ArraySpec, degraded: bool,
            platform: PlatformModel, memo: Memo, member_bytes: int, missing: int = 0, writes: bool = True) -> Engine:
    """The engine configured for this array (with the settings its scenario gives it,
    ``array.engine_settings``, as the engine's tools make them for members of ``member_bytes``,
    the slow-down of its shared state by submitters on the other socket, and whether the workload
    ``writes``); one per configuration (engines never change once built)."""
    placement = platform.placement
    factor = memo.recall(memo.cross_socket, (id(platform.spec), placement.drive_sockets, placement.job_sockets,
                                             array.drives, platform.sockets),
                         PlatformModel.shared_access_factor, platform, bounded=False)
    line_us = platform.line_transfer_us()
    nodes = platform.job_socket_count
    settings = tuple(sorted(array.engine_settings.items()))  # checked once, when the scenario loaded
    key = (id(spec), settings, array.level, array.drives, array.strip_bytes, array.copies, array.raid10_kind,
           member_bytes, degraded,
           missing, factor, line_us, nodes, writes)
    return memo.recall(memo.engines, key, _configured_engine, spec, array, degraded, factor, line_us, nodes,
                       member_bytes, missing, writes, owner=spec)


def _configured_engine(spec: EngineSpec, array: ArraySpec, degraded: bool, factor: float, line_us: float,
                       nodes: int, member_bytes: int, missing: int = 0, writes: bool = True) -> Engine:
    return build_engine(spec, array.engine_settings, members=array.drives, strip_bytes=array.strip_bytes,
                        degraded=degraded, missing=missing, shared_access_factor=factor, line_transfer_us=line_us, job_nodes=nodes,
                        array=(array.level, member_bytes, array.copies), writes=writes,
                        near_copies=array.copies if array.raid10_kind == "near" else 1)


def _geometry(array: ArraySpec, member_bytes: int, layout: str) -> ArrayGeometry:
    return ArrayGeometry(level=array.level, n_members=array.drives, strip_bytes=array.strip_bytes,
                         layout=array.raid10_kind if array.level == 10 else layout if array.level in (5, 6) else DEFAULT_LAYOUT,
                         member_size_bytes=member_bytes, copies=array.copies)


def _resource_list(facts: fabric.ArrayFacts) -> tuple[tuple[str, str, float], ...]:
    return tuple(fabric.resources(facts))


def _host_io_costs(catalog: Catalog, workload: WorkloadSpec, clock_ghz: float, device_latency_s: float) -> HostIoCosts:
    """fio's costs of one host I/O on the workload's path (ioengine and options) at the
    clock the busy cores hold: submit (pages included) and complete core-seconds, the latency the path
    adds, and whether it busy-polls (``nvsim.host_io``); its sleeps at a member drive's unloaded
    latency ``device_latency_s`` (the array's own path not counted: the most the job sleeps)."""
    return workload_host_io_costs(catalog.host_io[workload.ioengine], workload, clock_ghz, device_latency_s)


__all__ = ["ArrayModel", "build", "strips_spanned"]
