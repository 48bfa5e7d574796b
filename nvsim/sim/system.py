"""The array as the simulator sees it: its resources, and what each host I/O asks of them.

Resources (each a server with a count and a service time per visit; their kinds, labels, server
counts and which demands load them are declared once, in ``nvsim.fabric``):
  * job cores: one logical CPU per job (fio's ``cpus_allowed_policy=split``); two jobs on the
    sibling threads of one core each run at ``smt_throughput_gain / 2`` of a core;
  * the engine's serialised section (a spinlock: a waiting core spins, busy) and its own server
    (md's stripe thread, the GPU, the card processor), its bandwidth limit and its PCIe link;
  * each drive: the NAND die pool (``nand_dies`` servers; die time per I/O from nvsim.ssd) and its
    PCIe link per direction (wire bytes from nvsim.pcie), plus the controller's fixed latency;
  * DRAM of the job sockets.
``HostIoBatch`` holds, per host I/O, the service it asks of each: the event simulator books them,
the fluid solver sums them. One set of numbers, two fidelities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import fabric
from ..bounds import capacity
from ..catalog import Catalog, default_catalog
from ..constants import PAGE_BYTES
from ..engines import Engine, build_engine
from ..links import drive_link, engine_link
from ..pcie import PcieLink
from ..raid import parity_members
from ..platform import PlatformModel, cross_socket_fraction
from ..specs import ScenarioSpec, WorkloadSpec
from ..ssd.derive import derive_ssd_parameters
from ..ssd.model import SsdModel
from ..stripe.layout import DEFAULT_LAYOUT, ArrayGeometry, map_logical_copies, unmap_member
from ..stripe.planner import MemberIOPlan, plan_ios

NAND_SERVICE_CV = 0.3
"""Coefficient of variation of one NAND operation's time (basis: assumed; TLC lower/middle/upper
page reads take roughly 40/60/80 us, a spread of this order). Only the event mode draws it; it
also keeps synchronised sequential jobs from marching over the members in a convoy forever."""


class DriveTiming:
    """Per-I/O service of one drive model: unit time, link time, fixed controller latency.

    The die pool (nvsim.ssd) is served by ``units`` parallel servers: the NAND dies, but no more
    than the reads the controller can have in flight within half the QD1 read latency
    (``read_service_iops x read_latency / 2``), so that one read's unit time stays a part of its
    QD1 latency on drives whose controller, not their dies, sets the random-read rate. The pool's
    capacity (units / unit time) is the SSD model's either way.
    """

    def __init__(self, ssd: SsdModel, link: PcieLink):
        p = ssd.params
        self.ssd, self.link = ssd, link
        self.units = int(max(1, min(p.nand_dies, p.read_service_iops * p.read_latency_us * 1e-6 / 2)))
        unit_read_4k = ssd.read_pool_s(PAGE_BYTES, True) * self.units
        up, _ = link.nvme_io_load(PAGE_BYTES, True)
        self.read_fixed_s = max(0.0, p.read_latency_us * 1e-6 - unit_read_4k - up / link.usable_bytes_per_s())
        self.write_fixed_s = p.write_latency_us * 1e-6
        self.suspend_unit_s = ssd.suspend_pool_s * self.units
        self._cache: dict[tuple, tuple[float, float]] = {}
        self._plans: dict[tuple, tuple] = {}

    def unit_s(self, length_bytes: int, is_write: bool, random: bool) -> float:
        """Unit time of one member I/O (reads before any program-suspend cost)."""
        if is_write:
            return self.ssd.write_pool_s(length_bytes, random) * self.units
        return self.ssd.read_pool_s(length_bytes, random) * self.units

    def link_s(self, length_bytes: int, is_write: bool) -> float:
        """Seconds the data direction of the drive link is busy (reads: to host; writes: to drive)."""
        up, down = self.link.nvme_io_load(length_bytes, not is_write)
        return (down if is_write else up) / self.link.usable_bytes_per_s()

    def service_of(self, plan: MemberIOPlan, random: bool) -> tuple[np.ndarray, np.ndarray]:
        """``service`` of a plan's member I/Os, remembered for the last plans seen."""
        key = (id(plan), random)
        hit = self._plans.get(key)
        if hit is None or hit[0] is not plan:
            if len(self._plans) > 1024:
                self._plans.clear()
            hit = self._plans[key] = (plan, self.service(plan.length_bytes, plan.is_write, random, _distinct_of(plan)))
        return hit[1]

    def service(self, lengths: np.ndarray, is_write: np.ndarray, random: bool,
                distinct: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(unit seconds, link seconds) of many member I/Os, through the distinct (size, direction)
        pairs (``distinct``: those pairs and the inverse index, when already known)."""
        if distinct is None:
            distinct = distinct_sizes(lengths, is_write)
        uniq, inverse = distinct
        pairs = []
        for k in uniq.tolist():
            key = (k, random)
            hit = self._cache.get(key)
            if hit is None:
                hit = self._cache[key] = (self.unit_s(k // 2, bool(k % 2), random), self.link_s(k // 2, bool(k % 2)))
            pairs.append(hit)
        table = np.array(pairs).reshape(-1, 2)
        return table[inverse, 0], table[inverse, 1]


def phase_runs(phase: np.ndarray, op_start: np.ndarray) -> np.ndarray:
    """Index of the first member I/O of each run of one host I/O's one phase (member I/Os are
    grouped by host I/O in phase order): the runs whose slowest member sets the unloaded latency."""
    if len(phase) == 0:
        return np.zeros(0, dtype=np.int64)
    host = np.repeat(np.arange(len(op_start) - 1), np.diff(op_start))
    new_run = np.ones(len(phase), dtype=bool)
    new_run[1:] = (host[1:] != host[:-1]) | (phase[1:] != phase[:-1])
    return np.flatnonzero(new_run)


def distinct_sizes(lengths: np.ndarray, is_write: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (size, direction) pairs of member I/Os, coded size x 2 + is_write, and the inverse."""
    keys = lengths.astype(np.int64) * 2 + is_write.astype(np.int64)
    return np.unique(keys, return_inverse=True)


_DISTINCT: dict[int, tuple] = {}


def _distinct_of(plan: MemberIOPlan) -> tuple[np.ndarray, np.ndarray]:
    """``distinct_sizes`` of a plan, remembered: every drive model of a sweep prices the same plans."""
    hit = _DISTINCT.get(id(plan))
    if hit is None or hit[0] is not plan:
        if len(_DISTINCT) > 4096:
            _DISTINCT.clear()
        hit = _DISTINCT[id(plan)] = (plan, distinct_sizes(plan.length_bytes, plan.is_write))
    return hit[1]


@dataclass
class HostIoBatch:
    """Per host I/O service demands (seconds), and its member I/Os with their drive service."""

    job: int
    submit_s: np.ndarray
    complete_s: np.ndarray
    lock_s: np.ndarray
    pre_s: np.ndarray
    mid_s: np.ndarray
    device_bw_s: np.ndarray
    device_down_s: np.ndarray
    device_up_s: np.ndarray
    memory_s: np.ndarray
    is_write: np.ndarray
    op_start: np.ndarray  # int64, n + 1: member I/Os of host i are op_start[i]:op_start[i+1]
    op_drive: np.ndarray
    op_is_write: np.ndarray
    op_phase: np.ndarray
    op_die_s: np.ndarray
    op_link_s: np.ndarray
    op_bytes: np.ndarray
    op_runs: np.ndarray | None = None  # first member I/O of each (host I/O, phase) run (see ``phase_runs``)
    _totals: dict | None = None

    HOST_FIELDS = fabric.HOST_FIELDS  # every per-host-I/O demand some resource sums (nvsim.fabric)

    def totals(self) -> dict[str, float]:
        """Each per-host-I/O demand summed over the batch, and each per-drive resource's member-I/O
        time (all drives): what the fluid mode averages (``nvsim.fabric.batch_totals``, once)."""
        if self._totals is None:
            self._totals = fabric.batch_totals(self)
        return self._totals

    def __len__(self) -> int:
        return len(self.submit_s)

    def reads_gate_writes(self) -> np.ndarray:
        """Host I/Os whose first member I/Os are phase-0 reads that must finish before the rest."""
        first = self.op_start[:-1]
        if not len(self.op_phase):
            return np.zeros(len(self), dtype=bool)
        return (self.op_start[1:] > first) & (self.op_phase[np.minimum(first, len(self.op_phase) - 1)] == 0)

    def engine_visits(self) -> np.ndarray:
        """Visits of each host I/O to the engine's server, as the event mode makes them: two when
        reads gate its writes (``pre_s`` before the reads, ``mid_s`` after them), else one for all
        its engine work, none without any."""
        both = (self.pre_s > 0).astype(float) + (self.mid_s > 0)
        return np.where(self.reads_gate_writes(), both, ((self.pre_s + self.mid_s) > 0).astype(float))


_TIMINGS: dict[tuple, tuple[Catalog, DriveTiming]] = {}
_PLANS: dict[tuple, tuple[MemberIOPlan, np.ndarray, np.ndarray]] = {}
_CPU_LAYOUTS: dict[tuple, tuple] = {}
_WORK: dict[tuple, object] = {}
_PER_MEMBER_IO = ("host_index", "member", "member_offset_bytes", "length_bytes", "is_write", "phase")


def drive_timing(catalog: Catalog, drive: str, namespace_bytes: int | None, platform: str) -> DriveTiming:
    """One drive model on one platform's bays (derived once per catalog: sweeps build thousands)."""
    key = (id(catalog), drive, namespace_bytes, platform)
    hit = _TIMINGS.get(key)
    if hit is None or hit[0] is not catalog:
        spec = catalog.drives[drive]
        link = drive_link(spec, catalog.platforms[platform], catalog)
        hit = (catalog, DriveTiming(SsdModel(derive_ssd_parameters(spec), namespace_bytes), link))
        _TIMINGS[key] = hit
    return hit[1]


def strips_spanned(offsets: np.ndarray, length_bytes: int, strip_bytes: int) -> np.ndarray:
    """Strips (chunks) each I/O of ``length_bytes`` at ``offsets`` touches."""
    return ((offsets + length_bytes - 1) // strip_bytes - offsets // strip_bytes + 1).astype(float)


class ArraySystem:
    """One scenario's array on its platform, with its engine: builds host I/O batches."""

    def __init__(self, scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
                 engine_overrides: dict[str, float] | None = None, host_io_overrides: dict[str, float] | None = None,
                 failed_members: tuple[int, ...] = ()):
        """``failed_members``: members that are missing (failed, pulled, or being rebuilt and not
        yet readable): host I/Os are planned degraded around them, as md does."""
        catalog = catalog or default_catalog()
        self.failed_members = tuple(sorted(set(int(m) for m in failed_members)))
        self.scenario, self.workload, self.catalog = scenario, workload, catalog
        array = scenario.array
        self.array = array
        self.drive_spec = catalog.drives[array.drive]
        self.platform_spec = catalog.platforms[scenario.platform]
        self.engine_spec = catalog.engines[array.engine]
        self.engine_overrides, self.host_io_overrides = dict(engine_overrides or {}), dict(host_io_overrides or {})
        overrides = dict(engine_overrides or {})
        if array.md_group_thread_cnt and self.engine_spec.engine_kind == "md":  # md's stripe threads follow it
            overrides.setdefault("group_thread_cnt", float(array.md_group_thread_cnt))
        self.engine: Engine = build_engine(self.engine_spec, overrides)
        self.kind = self.engine_spec.engine_kind
        self.platform = PlatformModel(self.platform_spec, scenario.placement, array.drives, catalog)
        self.engine.members = array.drives
        self.engine.degraded = bool(self.failed_members)
        self.engine.strip_bytes = array.strip_bytes
        self.engine.cross_socket_fraction = cross_socket_fraction(
            self.platform.drive_sockets, self.platform.job_sockets, self.platform.sockets)
        self.drive = drive_timing(catalog, array.drive, array.namespace_bytes, scenario.platform)
        self.capacity = capacity(scenario, catalog)
        member_bytes = self.capacity.member_bytes
        self.jbod = self.kind == "none"
        self.device_bytes = member_bytes if self.jbod else self.capacity.usable_bytes
        self.geometry = None if self.jbod else ArrayGeometry(
            level=array.level, n_members=array.drives, strip_bytes=array.strip_bytes,
            layout=array.resolved_layout if array.level in (5, 6, 10) else DEFAULT_LAYOUT,
            member_size_bytes=member_bytes, copies=array.near_copies)
        host_io = catalog.host_io[workload.ioengine]
        values = {k: getattr(host_io, k).value for k in ("submit_us", "complete_us", "per_page_us")}
        values.update(host_io_overrides or {})
        clock = self.platform.clock_ghz
        pages = max(1, math.ceil(workload.bs / PAGE_BYTES))
        host_scale = 1e-6 * host_io.reference_clock_ghz.value / clock
        self.host_submit_s = (values["submit_us"] + pages * values["per_page_us"]) * host_scale
        self.host_complete_s = values["complete_us"] * host_scale
        self.engine_clock_scale = self.engine.parameters.get("reference_clock_ghz", 3.0) / clock
        self._layout_cpus()
        self._device_links()
        self.memory_bytes_per_s = self.platform.memory_bytes_per_s()
        self.write_share: float | None = None  # set by the first batch planned (see ``batch``)

    # -- cores ---------------------------------------------------------------------------------
    def _layout_cpus(self) -> None:
        key = (id(self.platform_spec), self.workload.numjobs, self.scenario.placement.job_sockets)
        hit = _CPU_LAYOUTS.get(key)
        if hit is None or hit[0] is not self.platform_spec:
            layout = self.platform.cpu_layout(self.workload.numjobs)
            hit = _CPU_LAYOUTS[key] = (self.platform_spec, layout.logical_cpus, layout.speed, layout.job_cpu)
        _, self.logical_cpus, self.cpu_speed, self.job_cpu = hit

    def _device_links(self) -> None:
        device = self.engine_spec.device
        link = engine_link(self.engine_spec, self.platform_spec, self.catalog) if device else None
        self.device_link = link if device and device.data_through_device else None
        self.device_read_bytes_per_s = device.max_read_bytes_per_s.value if device and device.max_read_bytes_per_s else None

    @property
    def sample_size(self) -> int:
        """Host I/Os of one job that show every member-I/O pattern of this workload: a few stripes
        of a sequential stream (a whole period of its alignment), or enough random I/Os to mix
        reads and writes; the fluid mode and the drives' write share average over them."""
        w = self.workload
        if self.jbod:
            return 64
        if w.is_random:
            return 128 if 0 < w.read_fraction < 1 else 64
        data = self.array.drives - parity_members(self.array.level)
        period = math.lcm(w.bs, max(1, data) * self.array.strip_bytes) // w.bs
        return int(min(512, max(16, 2 * period)))

    # -- planning ------------------------------------------------------------------------------
    def _plan(self, job: int, offsets: np.ndarray, is_write: np.ndarray) -> tuple[MemberIOPlan, np.ndarray, np.ndarray, np.ndarray]:
        """Member I/Os of a batch in phase order, the chunks of each host I/O, where each host
        I/O's member I/Os start and its phase runs (cached: a sweep plans the same geometry and
        sample many times)."""
        key = None
        if not self.jbod:
            g = self.geometry
            # not the member size: md's layouts repeat every few stripes, so the member I/Os of the
            # same offsets are the same on any drive size or namespace (a sweep's common case)
            key = (g.level, g.n_members, g.strip_bytes, g.layout, g.copies,
                   self.workload.bs, self.workload.iodepth, self.workload.is_random, self.failed_members,
                   hash(offsets.tobytes()), hash(is_write.tobytes()), len(offsets))
            hit = _PLANS.get(key)
            if hit is not None:
                return hit
        plan, chunks = self._plan_uncached(job, offsets, is_write)
        # member I/Os of each host I/O in phase order (reads that gate the writes first)
        order = np.lexsort((plan.phase, plan.host_index))
        if not np.array_equal(order, np.arange(len(order))):
            plan = MemberIOPlan(**{f: (getattr(plan, f)[order] if f in _PER_MEMBER_IO else getattr(plan, f))
                                   for f in plan.__dataclass_fields__})
        counts = np.bincount(plan.host_index, minlength=len(offsets))[:len(offsets)]
        op_start = np.zeros(len(offsets) + 1, dtype=np.int64)
        np.cumsum(counts, out=op_start[1:])
        out = (plan, chunks, op_start, phase_runs(plan.phase, op_start))
        if key is not None:
            if len(_PLANS) > 4096:
                _PLANS.clear()
            _PLANS[key] = out
        return out

    def _plan_uncached(self, job: int, offsets: np.ndarray, is_write: np.ndarray) -> tuple[MemberIOPlan, np.ndarray]:
        bs = self.workload.bs
        n = len(offsets)
        if self.jbod:
            drive = job % self.array.drives
            plan = MemberIOPlan(
                host_index=np.arange(n, dtype=np.int64), member=np.full(n, drive, dtype=np.int32),
                member_offset_bytes=offsets, length_bytes=np.full(n, bs, dtype=np.int64), is_write=is_write.copy(),
                phase=np.ones(n, dtype=np.int8), mode=np.where(is_write, 6, 0).astype(np.int8),
                parity_bytes_computed=np.zeros(n, dtype=np.int64), stripes_touched=np.ones(n, dtype=np.int64))
            return plan, np.ones(n)
        if self._coalesces(is_write):
            plan = self._plan_coalesced(offsets)
        else:
            plan = plan_ios(self.geometry, is_write, offsets, np.full(n, bs, dtype=np.int64), self.failed_members)
        return plan, strips_spanned(offsets, bs, self.array.strip_bytes)

    def chunk_requests_per_io(self) -> float:
        """Strips (chunks) one host I/O of the workload's size touches, on average over the
        alignments its offsets take (multiples of the block size): md splits a bio at each."""
        bs, strip = self.workload.bs, self.array.strip_bytes
        period = math.lcm(bs, strip) // bs
        return float(np.mean(strips_spanned(np.arange(period, dtype=np.int64) * bs, bs, strip)))

    def _coalesces(self, is_write: np.ndarray) -> bool:
        """Whether a sequential write stream reaches the stripe cache as whole stripes.

        A job's consecutive writes are in flight at once (iodepth), so the partial stripes at their
        boundaries are completed by the neighbour before the stripe is handled (md's stripe cache
        delays pre-reads for exactly this; write-back caches do the same): when a stripe's worth
        of the stream is in flight, the stream is planned stripe by stripe, as the cache sees it.
        An engine without a stripe cache (lockless CPU RAID) handles each write as it comes.
        """
        if self.workload.is_random or self.array.level not in (5, 6) or not is_write.all() or self.failed_members:
            return False
        if not self.engine.stripe_cache:
            return False
        data_members = self.array.drives - parity_members(self.array.level)
        stripe = data_members * self.array.strip_bytes
        return -(-stripe // self.workload.bs) <= self.workload.iodepth

    def _plan_coalesced(self, offsets: np.ndarray) -> MemberIOPlan:
        """Plan the stream cut at stripe boundaries; member I/Os go to the host I/O whose bytes they hold."""
        bs = self.workload.bs
        n = len(offsets)
        data_members = self.array.drives - parity_members(self.array.level)
        stripe = data_members * self.array.strip_bytes
        pieces_start, pieces_len = [], []
        breaks = np.flatnonzero(np.diff(offsets) != bs) + 1  # a stream wraps at its region's end
        for first, last in zip(np.concatenate(([0], breaks)), np.concatenate((breaks, [n]))):
            lo, hi = int(offsets[first]), int(offsets[last - 1]) + bs
            cuts = np.concatenate(([lo], np.arange((lo // stripe + 1) * stripe, hi, stripe), [hi]))
            pieces_start.append(cuts[:-1])
            pieces_len.append(np.diff(cuts))
        starts = np.concatenate(pieces_start).astype(np.int64)
        lens = np.concatenate(pieces_len).astype(np.int64)
        plan = plan_ios(self.geometry, np.ones(len(starts), dtype=bool), starts, lens, self.failed_members)
        counts = np.bincount(plan.host_index, minlength=len(starts))
        first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rank = np.arange(plan.n_member_ios) - first[plan.host_index]
        # the logical byte each member I/O stands for, spread evenly over its piece
        position = starts[plan.host_index] + (rank + 0.5) * lens[plan.host_index] / np.maximum(counts[plan.host_index], 1)
        host = np.clip(np.searchsorted(offsets, position, side="right") - 1, 0, n - 1)
        # a host I/O's pages on one member that are contiguous become one member I/O, as the block
        # layer merges md's per-stripe page bios (the planner does the same within one piece)
        order = np.lexsort((plan.member_offset_bytes, plan.member, plan.is_write, plan.phase, host))
        h, m, o = host[order], plan.member[order], plan.member_offset_bytes[order]
        length, w, ph = plan.length_bytes[order], plan.is_write[order], plan.phase[order]
        new_run = np.ones(len(h), dtype=bool)
        new_run[1:] = (h[1:] != h[:-1]) | (m[1:] != m[:-1]) | (ph[1:] != ph[:-1]) | (w[1:] != w[:-1]) \
            | (o[1:] != o[:-1] + length[:-1])
        heads = np.flatnonzero(new_run)
        merged = np.add.reduceat(length, heads) if len(heads) else length
        piece_of_host = np.clip(np.searchsorted(starts, offsets, side="right") - 1, 0, len(starts) - 1)
        hosts_per_piece = np.bincount(piece_of_host, minlength=len(starts))
        share = plan.stripes_touched[piece_of_host] / np.maximum(hosts_per_piece[piece_of_host], 1)
        return MemberIOPlan(
            host_index=h[heads], member=m[heads], member_offset_bytes=o[heads], length_bytes=merged.astype(np.int64),
            is_write=w[heads], phase=ph[heads],
            mode=plan.mode[piece_of_host],
            parity_bytes_computed=np.zeros(n, dtype=np.int64),  # per piece, not per host I/O: not shared out
            stripes_touched=share,
        )

    def _engine_work(self, plan: MemberIOPlan, is_write: np.ndarray, chunks: np.ndarray):
        """The engine's costs of a plan (cached with the plan: a sweep re-costs the same plans)."""
        e = self.engine
        key = (id(plan), e.spec.name, tuple(sorted(e.parameters.items())), e.members, e.cross_socket_fraction,
               self.workload.bs, self.array.level, hash(is_write.tobytes()))
        hit = _WORK.get(key)
        if hit is not None and hit[0] is plan:
            return hit[1]
        work = e.work(plan, is_write, chunks, self.workload.bs, self.array.level)
        if len(_WORK) > 4096:
            _WORK.clear()
        _WORK[key] = (plan, work)
        return work

    def batch(self, job: int, offsets: np.ndarray, is_write: np.ndarray,
              rng: np.random.Generator | None = None) -> HostIoBatch:
        """Service demands of host I/Os of ``job`` at ``offsets``.

        With ``rng`` (the event mode), each NAND service time varies around its mean with
        ``NAND_SERVICE_CV`` (gamma-distributed): reads of lower and upper pages of TLC/QLC
        differ, and programs with them; without it (the fluid mode), means.
        """
        n = len(offsets)
        plan, chunks, op_start, runs = self._plan(job, offsets, is_write)
        work = self._engine_work(plan, is_write, chunks)
        speed = self.cpu_speed[self.job_cpu[job]]
        scale_engine = self.engine_clock_scale
        on_host = self.engine.server is not None and self.engine.server.on_host_cpu
        thread_scale = scale_engine if on_host else 1.0
        random = self.workload.is_random
        lengths = work.length_bytes
        die, link = self.drive.service_of(plan, random)
        if self.write_share is None:  # share of NAND time spent programming, from the first batch
            t_w = float(die[work.is_write].sum())
            total = float(die.sum())
            self.write_share = t_w / total if total > 0 else 0.0
        if self.write_share > 0:  # a read landing on a programming die pays program suspend
            die = np.where(work.is_write, die, die + self.drive.suspend_unit_s * self.write_share)
        if rng is not None and len(die):
            shape = 1.0 / NAND_SERVICE_CV**2
            die = die * rng.gamma(shape, 1.0 / shape, size=len(die))
        device_bw = (work.device_read_bytes / self.device_read_bytes_per_s) if self.device_read_bytes_per_s else np.zeros(n)
        if self.device_link is not None:
            up, _ = self.device_link.nvme_io_load(self.workload.bs, True)
            _, down = self.device_link.nvme_io_load(self.workload.bs, False)
            bw = self.device_link.usable_bytes_per_s()
            dev_down = np.where(work.device_down_bytes > 0, down / bw, 0.0)
            dev_up = np.where(work.device_up_bytes > 0, up / bw, 0.0)
        else:
            dev_down = dev_up = np.zeros(n)
        return HostIoBatch(
            job=job,
            submit_s=(self.host_submit_s + work.submit_cpu_ref_s * scale_engine) / speed,
            complete_s=np.full(n, self.host_complete_s / speed),
            lock_s=work.lock_s, pre_s=work.pre_s * thread_scale, mid_s=work.mid_s * thread_scale,
            device_bw_s=device_bw, device_down_s=dev_down, device_up_s=dev_up,
            memory_s=work.memory_bytes / self.memory_bytes_per_s,
            is_write=is_write,
            op_start=op_start, op_runs=runs, op_drive=work.member.astype(np.int64), op_is_write=work.is_write,
            op_phase=work.phase, op_die_s=die, op_link_s=link, op_bytes=lengths,
        )

    # -- rebuild -------------------------------------------------------------------------------
    def rebuild_batch(self, target: int, member_offsets: np.ndarray, step_bytes: int) -> HostIoBatch:
        """Demands of rebuild requests that each rebuild ``step_bytes`` of member ``target`` at
        ``member_offsets``: read the survivors that hold what it needs (phase 0), write it (phase 1).

        RAID5/6: every other member that has not failed (md's handle_stripe reads them all while
        syncing); RAID1/10: a surviving copy. Member I/Os are sequential within each member.
        """
        offsets = np.asarray(member_offsets, dtype=np.int64)
        n = len(offsets)
        level = self.array.level
        missing = set(self.failed_members) | {target}
        members, moffs, hosts, writes, phases = [], [], [], [], []
        if level in (1, 10):
            logical = unmap_member(self.geometry, np.full(n, target), offsets)
            copy_members, copy_offsets = map_logical_copies(self.geometry, np.maximum(logical, 0))
            for i in range(n):
                choices = [(int(m), int(o)) for m, o in zip(copy_members[i], copy_offsets[i]) if int(m) not in missing]
                if choices:
                    members.append(choices[0][0]); moffs.append(choices[0][1]); hosts.append(i); writes.append(False); phases.append(0)
        elif level in (5, 6):
            for i in range(n):
                for m in range(self.array.drives):
                    if m not in missing:
                        members.append(m); moffs.append(int(offsets[i])); hosts.append(i); writes.append(False); phases.append(0)
        for i in range(n):
            members.append(target); moffs.append(int(offsets[i])); hosts.append(i); writes.append(True); phases.append(1)
        order = np.lexsort((np.asarray(phases), np.asarray(hosts)))
        host_index = np.asarray(hosts, dtype=np.int64)[order]
        plan = MemberIOPlan(
            host_index=host_index, member=np.asarray(members, dtype=np.int32)[order],
            member_offset_bytes=np.asarray(moffs, dtype=np.int64)[order],
            length_bytes=np.full(len(order), step_bytes, dtype=np.int64), is_write=np.asarray(writes, dtype=bool)[order],
            phase=np.asarray(phases, dtype=np.int8)[order], mode=np.zeros(n, dtype=np.int8),
            parity_bytes_computed=np.zeros(n, dtype=np.int64), stripes_touched=np.ones(n, dtype=np.int64))
        rows = max(1, step_bytes // self.array.strip_bytes)  # stripe rows one request rebuilds
        work = self.engine.rebuild_work(plan, n, rows, level)
        die, link = self.drive.service(plan.length_bytes, plan.is_write, random=False)
        counts = np.bincount(host_index, minlength=n)[:n]
        op_start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=op_start[1:])
        on_host = self.engine.server is not None and self.engine.server.on_host_cpu
        scale = self.engine_clock_scale if on_host else 1.0
        zeros = np.zeros(n)
        return HostIoBatch(
            job=-1, submit_s=work.submit_cpu_ref_s * self.engine_clock_scale, complete_s=zeros.copy(),
            lock_s=work.lock_s, pre_s=work.pre_s * scale, mid_s=work.mid_s * scale,
            device_bw_s=zeros.copy(), device_down_s=zeros.copy(), device_up_s=zeros.copy(),
            memory_s=work.memory_bytes / self.memory_bytes_per_s, is_write=np.ones(n, dtype=bool),
            op_start=op_start, op_drive=plan.member.astype(np.int64), op_is_write=plan.is_write, op_phase=plan.phase,
            op_die_s=die, op_link_s=link, op_bytes=plan.length_bytes)

    # -- descriptions --------------------------------------------------------------------------
    def resources(self) -> list[tuple[str, str, float]]:
        """(key, label, servers) of every resource this array has, in report order: the one list
        both fidelities report utilisation against (``nvsim.fabric.KINDS``; drives: the busiest)."""
        return fabric.resources(self.facts)

    @property
    def facts(self) -> fabric.ArrayFacts:
        """Names and server counts of this array's resources (what ``nvsim.fabric`` needs)."""
        return fabric.ArrayFacts(
            job_cpus=len(self.cpu_speed), lock_label=self.engine.lock_label, engine_label=self.engine_server_label,
            engine_servers=self.engine_servers, engine_on_host_cpu=self.engine_on_host_cpu,
            engine_name=self.engine_spec.name, bandwidth_limited=bool(self.device_read_bytes_per_s),
            device_link=self.device_link.name if self.device_link is not None else None,
            drive_name=self.drive_spec.name, drive_units=self.drive.units, drive_link=self.drive.link.name)

    @property
    def engine_server_label(self) -> str | None:
        return self.engine.server.label if self.engine.server else None

    @property
    def engine_servers(self) -> int:
        return self.engine.server.servers if self.engine.server else 1

    @property
    def engine_on_host_cpu(self) -> bool:
        return bool(self.engine.server and self.engine.server.on_host_cpu)

    def describe(self) -> str:
        a = self.array
        return f"{a.drives} x {self.drive_spec.name}, RAID{a.level}, {self.engine_spec.name}, {self.platform_spec.name}"


__all__ = ["ArraySystem", "HostIoBatch", "DriveTiming"]
