"""One state of the array (optimal, degraded, rebuilding) under one workload, in the fluid mode.

Foreground work (a fio job's I/Os in flight, or an OLTP database's users) and a rebuild share the
stations of ``network.py``; the network is solved for both at once, then the engine's rebuild
policy is applied:

* md (``md_do_sync``): never above ``speed_limit_max`` (md sleeps: the population of the
  rebuild class is cut until its rate meets the limit). On a busy array, above
  ``speed_limit_min`` it waits for its requests in flight every 128 KiB window: solved as a
  population of one window's requests; if that runs below the floor, md never waits and the
  rebuild is held at the floor instead (``rebuild_stages``).
* md RAID10 (``raise_barrier``/``wait_barrier`` in raid10.c): recovery requests and normal I/O
  exclude each other. A batch of recovery requests runs once the normal I/O in flight has drained;
  the md requests that arrived meanwhile go through when it ends, and the barrier rises again
  behind them (``BarrierCycle``): each chunk piece of a foreground I/O waits about one cycle, and
  the rebuild moves a batch per cycle. The event mode runs the same protocol.
* vendor engines with a ``rebuild_share`` (SupremeRAID): while host I/O runs the card paces its
  rebuild to that share of the busy time of the drive station the rebuild loads most (scaled by
  ``rebuild.priority``); the same cut of the population meets the rate. Others:
  ``rebuild.priority`` scales the requests in flight (no rate limit).
* a share when contended (``RebuildThrottle.takes_idle``: a RAID card's rebuild rate): the rebuild
  keeps its share of the station it loads most and takes what the host leaves idle, up to its rate
  with the array to itself; beyond its share the host goes first. Solved as a priority queue's
  shadow server: the host's classes see each station slowed by the rebuild's share (its rate at
  the share, as open work, not as customers queued ahead of them), and the rebuild's rate is the
  larger of its share and the least, over the stations it loads, of what the host leaves idle.

The open classes' utilisation (an OLTP database's page flushes) follows the foreground's
throughput, which is damped between iterations, the more each time the correction turns back: where
a station the open work shares saturates (the host CPUs, md's stripe thread), feeding it back
undamped alternates between two or three states and never settles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .. import fabric
from ..catalog import Catalog, default_catalog
from ..engines.rebuild_protocol import RebuildProtocol
from ..specs import ScenarioSpec, WorkloadSpec
from .fluid import unloaded_latency_s
from .foreground import FioLoad
from .network import ThreadQueue, fork_join_wait_scale, io_demands, io_visits, solve_network, stations
from .oltp_load import OltpLoad
from .result import SimResult, population_text
from .system import ArraySystem, HostIoBatch

@dataclass
class RebuildClass:
    step_bytes: int
    inflight: float
    demand_s: np.ndarray
    base_s: float
    batch: HostIoBatch
    wait_scale: np.ndarray
    visits: np.ndarray
    protocol: RebuildProtocol  # what the requests are: the array's recovery, or a check


def _rebuild_class(system: ArraySystem, net, target: int, protocol: RebuildProtocol | None = None) -> RebuildClass:
    protocol = protocol or system.rebuild
    step, inflight = protocol.step_bytes, protocol.inflight
    offsets = np.arange(8, dtype=np.int64) * step
    batch = system.rebuild_batch(target, offsets, step, protocol)
    demand = io_demands(system, net, [batch], rebuild=True)  # the resync thread is a thread of its own
    visits = io_visits(system, net, [batch])
    # the survivors are read at once: a request waits for the slowest read, not their sum
    readers = max(1, len(set(batch.op_drive[~batch.op_is_write].tolist())))
    slowest = fork_join_wait_scale(readers)
    scale = np.array([slowest if _loaded_by_reads(key) else 1.0 for key, _ in net.keys])
    return RebuildClass(step, inflight, demand, unloaded_latency_s(system, [batch]), batch, scale, visits, protocol)


def _loaded_by_reads(key: str) -> bool:
    """A drive's station that member reads load (its NAND pool, its link to the host)."""
    kind = fabric.KIND[key]
    return kind.per_drive and kind.member.direction != "write"


def paced_rate_bytes_per_s(rb: RebuildClass, net, share: float, over: str = "drives") -> tuple[float, str]:
    """A vendor's rebuild priority as a rate: ``share`` of the busy time of the station the rebuild
    loads most (busy share = rate x demand per request / servers), and that station: of the drive
    stations, or (``over`` "all": a RAID card's rebuild rate is a share of its own work too) of all."""
    drives = (np.array([d >= 0 for _key, d in net.keys]) | (over == "all")) & (rb.demand_s > 0)
    if not drives.any():
        return math.inf, ""
    per_request = np.where(drives, rb.demand_s / net.servers, 0.0)
    j = int(np.argmax(per_request))
    return share / per_request[j] * rb.step_bytes, net.labels[j]


def alone_rate_bytes_per_s(rb: RebuildClass, net) -> float:
    """The rate the rebuild reaches with the array to itself: its requests in flight alone on the
    network's stations (an engine's maximum rebuild rate, which xiRAID's ``recon_prio`` is a share of)."""
    sol = solve_network(rb.demand_s[None, :], net.servers, np.array([rb.inflight]), np.array([rb.base_s]),
                        wait_scale=rb.wait_scale[None, :], visits=rb.visits[None, :])
    return float(sol.throughput[0]) * rb.step_bytes


SOLVE_ITERATIONS = 400
"""Fixed-point iterations of one state's solve (the hardest published state settles in under 30)."""

ACTIVE_MIN = 1e-12
"""Least share of its requests in flight a throttled rebuild keeps (md's ``speed_limit_max`` of 100
KiB/s holds a resync that alone runs 47 MB/s with 4,096 requests in flight to about 2e-7 of them;
a floor of 1e-4 left it at the 47 MB/s while it named the limit)."""

PACED_REQUESTS_MAX = 256.0
"""Most rebuild requests a pacing card keeps in flight to hold its share (a bound for the solvers)."""


@dataclass(frozen=True)
class RebuildStage:
    """One way the engine's throttle may run its rebuild: the requests it keeps in flight (at
    most), the rate it holds them to, why, whether it paces to a share, and the floor below which
    this way does not hold (md's drain-every-window applies only above ``speed_limit_min``)."""

    inflight: float
    cap_bytes_per_s: float
    why: str
    paced: bool = False
    floor_bytes_per_s: float | None = None
    limit_why: str = ""  # the rate limit, where it binds rather than ``why`` (md's drained windows)
    behind_host: bool = False  # a share when contended: ``cap_bytes_per_s`` its share, the host first beyond it
    most_bytes_per_s: float = math.inf  # behind the host: the most it takes (its rate alone, its limit)


def rebuild_stages(system: ArraySystem, rb: RebuildClass, net, loaded: bool) -> list[RebuildStage]:
    """The ways the engine's throttle (its protocol's ``pacing``) may run its rebuild, to try in
    order: a paced share of drive time as the rate giving the drive station the rebuild loads most
    that share; a limit as it is; md's drain-every-window on a busy array first as a population of
    one window's requests (kept if its rate stays above the floor), else held at the floor."""
    throttle = rb.protocol.pacing(loaded)
    limit = throttle.limit_bytes_per_s if throttle.limit_bytes_per_s is not None else math.inf
    if throttle.alone_share is not None:
        alone = alone_rate_bytes_per_s(rb, net)
        return [RebuildStage(rb.inflight, min(throttle.alone_share * alone, limit),
                             f"{throttle.why} its maximum rate ({alone / 1e6:,.0f} MB/s with the array to itself)")]
    if throttle.paced and throttle.takes_idle:  # at least its share, and what the host leaves idle
        rate, station = paced_rate_bytes_per_s(rb, net, throttle.share, throttle.paced_over)
        most = min(alone_rate_bytes_per_s(rb, net), limit)
        return [RebuildStage(rb.inflight, min(rate, most), f"{throttle.why} {station}", behind_host=True,
                             most_bytes_per_s=most)]
    if throttle.paced:
        rate, station = paced_rate_bytes_per_s(rb, net, throttle.share, throttle.paced_over)
        paced = math.isfinite(rate)
        return [RebuildStage(rb.inflight, min(rate, limit),
                             f"{throttle.why} {station}", paced)]
    if not throttle.drains:
        return [RebuildStage(rb.inflight, limit, throttle.why if math.isfinite(limit) else "")]
    window = max(1.0, min(rb.inflight, throttle.window_bytes / rb.step_bytes))
    floor = throttle.floor_bytes_per_s
    drained = (f"md_do_sync above speed_limit_min on a busy array: waits for its {window:.0f} requests "
               f"in flight ({throttle.window_bytes / 1024:.0f} KiB window) to complete before the next")
    return [RebuildStage(window, limit, drained, floor_bytes_per_s=floor, limit_why=throttle.limit_why),
            RebuildStage(rb.inflight, min(floor, limit), throttle.why)]


def rebuild_plan(system: ArraySystem, target: int, protocol: RebuildProtocol | None = None) -> dict:
    """The event mode's rebuild plan: request size, requests in flight, the engine's throttle, the
    span, and a guess of its rate (its progress is the event mode's: ``event.rebuild.RebuildProgress``);
    ``protocol``: another of the engine's (a ``check``), default the array's recovery."""
    array = system.array
    span = float(array.rebuild.span_bytes or system.capacity.member_bytes)
    net = stations(system)
    rb = _rebuild_class(system, net, target, protocol)
    throttle = rb.protocol.pacing(True)  # the event mode always runs a foreground job
    stage = rebuild_stages(system, rb, net, loaded=True)[0]
    # the event mode drains md's windows itself; a pacing card keeps as many as its share needs. A
    # share when contended runs at its share here: the event mode's servers are booked first come,
    # first served, so the host cannot go ahead of the rebuild's requests beyond their share (paced
    # at the fluid state's rate, a QD1 reader waited behind them: 39 -> 513 us)
    inflight = PACED_REQUESTS_MAX if stage.paced or stage.behind_host else rb.inflight
    guess = min(stage.cap_bytes_per_s, stage.inflight * rb.step_bytes / rb.base_s)
    return {"step_bytes": rb.step_bytes, "inflight": inflight, "cap_bytes_per_s": stage.cap_bytes_per_s,
            "span_bytes": min(span, system.capacity.member_bytes), "rate_guess": guess,
            "floor_bytes_per_s": throttle.floor_bytes_per_s if throttle.drains else None,
            "drain_window_bytes": throttle.window_bytes, "protocol": rb.protocol}


@dataclass
class BarrierCycle:
    """md RAID10 recovery under normal I/O (raid10.c ``raise_barrier`` / ``wait_barrier``): the
    resync raises the barrier, waits for the normal I/O in flight to drain, runs a batch of its
    requests with the array to itself, and lowers it; every md request that arrived meanwhile goes
    through at once, and the barrier rises again behind them. A cycle is the batch (from cold:
    ``inflight - 1`` of its requests at its busiest station's pace, plus one request's latency)
    and the drain of the requests let through (one piece's latency plus the rest at their busiest
    station's pace, the lock's in practice). Each md request of a host I/O (one per chunk piece:
    raid10_make_request splits the bio and each piece calls wait_barrier) waits about one cycle:
    the pieces after the first arrive just after a release, behind the raised barrier. When the
    batches would outrun md's speed limit the resync sleeps between them and the foreground runs
    free meanwhile: its throughput is the time-weighted mix of the two (``busy_share``)."""

    batch_s: float
    batch_bytes: float
    cap_bytes_per_s: float
    sync_pieces: float  # md requests a foreground cycle waits for at the barrier
    all_pieces: float  # md requests per foreground cycle that pass the barrier (async writes too)
    piece_s: float  # one piece's service at the station a released burst queues at
    piece_latency_s: float
    wait_s: float = 0.0
    released: float = 0.0
    drain_s: float = 0.0
    total_s: float = 0.0

    @classmethod
    def of(cls, load, net, rb: RebuildClass, cap_bytes_per_s: float) -> BarrierCycle:
        pace = np.where(rb.demand_s > 0, rb.demand_s / np.maximum(net.servers, 1.0), 0.0)
        # the resync thread holds resync_lock itself (raise_barrier): its pace is the sum of both
        thread = rb.demand_s[net.index("rebuild_thread")] + rb.demand_s[net.index("lock")]
        batch_s = (rb.inflight - 1.0) * max(float(pace.max()), float(thread)) + rb.base_s
        sync, every, piece_s, latency_s = load.barrier_pieces(net)
        out = cls(batch_s, rb.inflight * rb.step_bytes, cap_bytes_per_s, sync, every, piece_s, latency_s)
        out.update(0.0)
        return out

    def update(self, foreground_per_s: float) -> None:
        """One step of the fixed point with the foreground's cycles per second: the pieces waiting
        at a release (Little: their arrival rate x their wait) set the drain, hence the cycle."""
        released = foreground_per_s * self.all_pieces * self.wait_s
        drain_s = min(1.0, released) * self.piece_latency_s + max(0.0, released - 1.0) * self.piece_s
        busy_s = self.batch_s + drain_s  # what a piece waits: the barrier is up all of it
        total_s = max(busy_s, self.batch_bytes / self.cap_bytes_per_s)  # md sleeps above its limit
        if self.total_s:  # damped after the first step
            busy_s, total_s = 0.5 * (self.wait_s + busy_s), 0.5 * (self.total_s + total_s)
        self.released, self.drain_s, self.wait_s, self.total_s = released, drain_s, busy_s, total_s

    @property
    def sleeping(self) -> bool:
        return self.batch_bytes / self.cap_bytes_per_s > self.batch_s + self.drain_s

    @property
    def busy_share(self) -> float:
        """Share of the time the barrier cycles (the rest md sleeps to hold its speed limit)."""
        return min(1.0, self.wait_s / self.total_s) if self.total_s else 1.0

    @property
    def rebuild_bytes_per_s(self) -> float:
        return self.batch_bytes / self.total_s


def solve_state(scenario: ScenarioSpec, workload: WorkloadSpec | None, catalog: Catalog | None = None,
                failed: tuple[int, ...] = (), rebuilding: int | None = None, seed: int | None = None,
                checking: bool = False, rebuilt_fraction: float = 0.0, rebuilt_step: float = 0.0,
                resync: bool = False) -> SimResult:
    """Foreground metrics (and ``rebuild_bytes_per_s``) with ``failed`` members missing and member
    ``rebuilding`` being rebuilt (missing to the foreground but in the ``rebuilt_fraction`` of it
    already rebuilt from its start, anywhere in the ``rebuilt_step`` about it, ``ArraySystem.batch``); ``workload`` None:
    no foreground I/O (the rebuild alone). The engine's throttle may offer several ways to run the
    rebuild (``rebuild_stages``): the first whose rate stays above its floor is the answer.
    ``checking``: a parity scrub runs instead of a rebuild (the engine's ``check`` protocol: every
    member read, nothing written, paced as its rebuild); ``rebuild_bytes_per_s`` is its rate
    (member bytes checked per second). ``resync`` (with ``checking``): the engine's resync after an
    unclean shutdown runs instead (``ArrayModel.resync``: md RAID1 reads one copy, writes the others)."""
    catalog = catalog or default_catalog()
    seed = scenario.seed if seed is None else seed
    missing = tuple(sorted(set(failed) | ({rebuilding} if rebuilding is not None else set())))
    idle = workload is None
    workload = WorkloadSpec(name="idle", rw="randread", bs=4096) if idle else workload
    if workload.is_oltp:
        load = OltpLoad(scenario, workload, catalog, missing, seed, rebuilding, rebuilt_fraction, rebuilt_step)
    else:
        load = FioLoad(scenario, workload, catalog, missing, seed, idle, rebuilding, rebuilt_fraction, rebuilt_step)
    net = stations(load.system)
    demands = load.demands(net)
    if rebuilding is None and not checking:
        return _settle(load, net, demands, None, None)
    rb = _rebuild_class(load.system, net, 0 if checking else rebuilding,
                        load.system.sync_protocol(resync) if checking else None)
    for stage in rebuild_stages(load.system, rb, net, demands[2] > 0):
        load.other_busy = 0.0  # each stage settles from the same start
        result = _settle(load, net, demands, rb, stage, checking)
        floor = stage.floor_bytes_per_s
        if floor is None or result.rebuild_bytes_per_s >= floor:
            break
    return result


def _settle(load, net, demands, rb: RebuildClass | None, stage: RebuildStage | None,
            checking: bool = False) -> SimResult:
    """The state's fixed point with the rebuild run ``stage``'s way (``rb`` None: no rebuild;
    ``checking``: it is a parity check, on a whole array); ``demands``: the foreground's
    (``load.demands(net)``)."""
    system = load.system
    fg_demand, fg_base, population = demands
    if rb is not None:
        rb = replace(rb, inflight=stage.inflight)
    barrier = rb is not None and rb.protocol.excludes_host_io
    cap_bytes_per_s, cap_why, paced = (stage.cap_bytes_per_s, stage.why, stage.paced) if rb is not None \
        else (math.inf, "", False)
    # a share when contended: the rebuild is no customer of the host's queues; its share of each
    # station (its rate at the share) slows them as open work does (a priority queue's shadow server)
    behind = rb is not None and stage.behind_host
    rb_open = rb.demand_s * (cap_bytes_per_s / rb.step_bytes) / np.maximum(net.servers, 1.0) if behind else 0.0

    # md's write-intent bitmap: the foreground's writes wait for its updates on the engine's thread,
    # at the rate fed back (the optimal array's and a check's; none beside a rebuild, as the event mode)
    charges_sync = rb is None or checking
    engine = net.index("engine") if ("engine", -1) in net.keys else None

    def solve(k: float, open_u: np.ndarray):
        wait = load.sync_wait_s(x_open) if charges_sync and engine is not None and x_open else 0.0
        load.sync_wait = wait
        fg_now = fg_demand
        if wait:
            fg_now = fg_demand.copy()
            fg_now[engine] += wait
        base_fg = fg_base + wait + (cycle.sync_pieces * cycle.wait_s if cycle is not None else 0.0)
        demand, base, pop, scale, visits = [fg_now], [base_fg], [population], [load.wait_scale], [load.visits]
        if rb is not None and k > 0:  # under a barrier k stays 0: recovery has a phase of its own
            demand.append(rb.demand_s)
            base.append(rb.base_s)
            pop.append(k)
            scale.append(rb.wait_scale)
            visits.append(rb.visits)
        per_thread, residual = load.thread_bound(net)
        threads = ThreadQueue(net.index("cores"), np.array([per_thread] + [0.0] * (len(pop) - 1)),
                              np.array([residual] + [1.0] * (len(pop) - 1)))
        return solve_network(np.array(demand), load.servers(net), np.array(pop), np.array(base), open_u + rb_open,
                             start=None if sol is None else sol.queue, wait_scale=np.array(scale), visits=np.array(visits),
                             threads=threads)

    k = rb.inflight if rb is not None else 0.0
    cycle = BarrierCycle.of(load, net, rb, cap_bytes_per_s) if barrier else None
    if barrier or behind:
        k = 0.0  # recovery runs in the barrier's own phase, or behind the host: not among its customers
    sol = None  # ``solve`` warm-starts from the last solution
    x_open = None  # the foreground's throughput the open classes and the bitmap's updates follow
    sol = solve(k, np.zeros(len(net)))
    active = 1.0  # share of time the rebuild is not held back by its throttle (md sleeps, a card paces)
    # md's requests in flight are its ceiling (RESYNC_DEPTH, the stripe cache); a card pacing its
    # rebuild to a share keeps as many as that share needs, however deep the host's queues
    active_max = PACED_REQUESTS_MAX / rb.inflight if paced else 1.0
    previous = None
    weight, last_step = 1.0, 0.0  # the damping of the throughput the open classes follow
    settled = False
    for _ in range(SOLVE_ITERATIONS):
        state = np.concatenate([sol.throughput, [active, cycle.wait_s if cycle else 0.0]])
        x_new = float(sol.throughput[0])
        settled = previous is not None and abs(x_new - x_open) <= 1e-5 * max(x_new, 1e-9) \
            and bool(np.allclose(state, previous, rtol=1e-5, atol=1e-9))
        if settled:
            break
        previous = state
        if x_open is None:
            x_open = x_new
        else:  # damped, and more so each time the step turns back: no 2- or 3-cycles near saturation
            step = x_new - x_open
            if step * last_step < 0:
                weight = max(0.02, 0.5 * weight)
            last_step = step
            x_open += weight * step
        open_u = load.open_utilisation(net, x_open)
        servers_now = load.servers(net)
        # the bitmap updates of writes nobody waits for (a database's page cleaners): open work at
        # md's thread, asleep on the bitmap's page write rather than on a CPU
        background = load.bitmap_background_s(x_open) if charges_sync and engine is not None else 0.0
        load.sync_background = background
        if background:
            open_u = open_u.copy()
            open_u[engine] += background / max(1.0, float(servers_now[engine]))
        open_u = np.minimum(0.999, open_u)
        # the engine's threads on the host (md's raid5d and resync, xiRAID's reconstruction threads)
        # take host CPUs from the application's threads
        rebuild_cpus = sol.utilisation[net.index("rebuild_thread")] * servers_now[net.index("rebuild_thread")]
        other = rebuild_cpus + (sol.utilisation[net.index("engine")] * net.servers[net.index("engine")]
                                - float(sol.throughput[0]) * load.sync_wait - background  # asleep on the bitmap, not CPU
                                if system.engine_on_host_cpu else 0.0)
        load.other_busy = 0.5 * load.other_busy + 0.5 * float(other)
        load.job_busy = float(sol.utilisation[net.index("cores")] * servers_now[net.index("cores")])
        if cycle is not None:
            cycle.update(float(sol.throughput[0]))
        sol = solve(k, open_u)
        if rb is not None and not barrier and len(sol.throughput) > 1:
            rate = sol.throughput[1] * rb.step_bytes
            if rate > cap_bytes_per_s * 1.0001 or (active < active_max and rate < cap_bytes_per_s * 0.9999):
                active = max(ACTIVE_MIN, min(active_max, active * cap_bytes_per_s / rate))
            k = rb.inflight * active
    rebuild_rate = 0.0
    rebuild_limit = ""
    if barrier:
        rebuild_rate = cycle.rebuild_bytes_per_s
        kind = rb.protocol.operation  # md's check takes the same barrier as a recovery
        batches = f"batches of {rb.inflight:.0f} {kind} requests of {rb.step_bytes // 1024} KiB ({1e3 * cycle.batch_s:.2f} ms)"
        at_limit = rebuild_rate >= 0.995 * cap_bytes_per_s and stage.limit_why  # md sleeps at speed_limit_max
        rebuild_limit = (stage.limit_why if at_limit else cap_why) if cycle.sleeping else (
            f"md barrier: {batches}, then {cycle.released:.0f} waiting md requests ({1e3 * cycle.drain_s:.2f} ms)"
            if cycle.released >= 1 else f"md {kind} alone: {batches}")
    elif behind:
        rebuild_rate, rebuild_limit = _behind_host(sol, net, rb, stage, rb_open)
    elif rb is not None and len(sol.throughput) > 1:
        rebuild_rate = min(sol.throughput[1] * rb.step_bytes, cap_bytes_per_s)  # held to it within the solve's 1e-4
        if rebuild_rate >= 0.995 * cap_bytes_per_s and stage.limit_why:
            rebuild_limit = stage.limit_why  # md's windows drain faster than its speed limit allows
        elif rebuild_rate >= 0.995 * cap_bytes_per_s or stage.floor_bytes_per_s is not None:
            rebuild_limit = cap_why  # at its limit, or md draining its windows above the floor
        else:  # the busiest station its requests load (a host job's cores never limit it)
            j = int(np.argmax(np.where(rb.demand_s > 0, sol.utilisation, -1.0)))
            rebuild_limit = f"{net.labels[j]} at {100 * sol.utilisation[j]:.0f}%" if sol.utilisation[j] > 0.9 else \
                f"{rb.inflight:.1f} rebuild requests in flight ({rb.step_bytes // 1024} KiB each)"
    if cycle is not None and cycle.sleeping:  # free while md sleeps, cycling the rest of the time
        x_cycling = float(sol.throughput[0])
        saved, cycle.wait_s = cycle.wait_s, 0.0
        x_free = float(solve(0.0, open_u).throughput[0])
        cycle.wait_s = saved
        share = cycle.busy_share
        _scale(sol, (share * x_cycling + (1 - share) * x_free) / x_cycling if x_cycling > 0 else 0.0)
    result = load.result(net, sol)
    result.rebuild_bytes_per_s = rebuild_rate if rb is not None else None
    result.rebuild_limited_by = rebuild_limit
    if barrier and cycle.released >= 1:  # the foreground waits out each recovery batch
        result.closed_loop = f"md's RAID10 recovery barrier: {population_text(load.workload)} wait out each recovery batch"
    if not settled:  # say so rather than pass off the last iterate as the answer
        result.limited_by += f" (fluid solve unsettled after {SOLVE_ITERATIONS} iterations)"
    return result


def _behind_host(sol, net, rb: RebuildClass, stage: RebuildStage, rb_open: np.ndarray) -> tuple[float, str]:
    """A share when contended, once the host's classes have settled: the rebuild's rate (at least
    its share, ``stage.cap_bytes_per_s``; else the least, over the stations it loads, of what the
    host leaves idle there; at most ``stage.most_bytes_per_s``) and what limits it. ``sol``'s
    utilisation then counts the rebuild at that rate."""
    host_u = np.clip(sol.utilisation - rb_open, 0.0, 1.0)  # the host's (and its open classes') busy share
    per_rate = rb.demand_s / rb.step_bytes / np.maximum(net.servers, 1.0)  # busy share per byte/s rebuilt
    uses = per_rate > 0
    left = np.where(uses, (1.0 - host_u) / np.where(uses, per_rate, 1.0), math.inf)
    j = int(np.argmin(left))
    share, most = stage.cap_bytes_per_s, stage.most_bytes_per_s
    rate = min(most, max(share, float(left[j])))
    if rate <= share * 1.0001:
        why = stage.why
    elif rate >= 0.995 * most:
        why = f"{stage.why} when contended; the host leaves it more, up to its idle rate ({most / 1e6:,.0f} MB/s)"
    else:
        why = (f"{stage.why} when contended, and what the host leaves idle: {net.labels[j]} "
               f"{100 * host_u[j]:.0f}% busy with host I/O")
    sol.utilisation = np.minimum(1.0, host_u + rate * per_rate)
    return rate, why


def _scale(sol, factor: float) -> None:
    """Scale the foreground's throughput (and what it keeps busy) by ``factor``."""
    sol.utilisation = sol.utilisation * factor
    sol.throughput = sol.throughput.copy()
    sol.throughput[0] *= factor
    sol.cycle_s = sol.cycle_s.copy()
    sol.cycle_s[0] /= max(factor, 1e-12)


__all__ = ["solve_state", "FioLoad"]
