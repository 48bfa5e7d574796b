"""What every foreground class of the mixed solve (``mixed.py``) shares, and the fio job's class.

A foreground class (a fio job's I/Os in flight, ``FioLoad``; an OLTP database's users,
``oltp_load.OltpLoad``) gives the network its demands, visits and unloaded cycle, the pieces md
RAID10's barrier holds (``BarrierCycle``), and its result. Its sample of host I/Os, the barrier's
piece pace and latency, and the report (utilisation grouped per resource, host CPU share, the
limiting resource) are the same for both, and live here, below both.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .. import fabric
from ..host_io import busy_cpus_with_polling
from .fluid import (SAMPLE_REGION_BYTES, degraded_period, jbod_imbalance, read_stream_shares, latency_by_direction_us,
                    priced_at_its_rate, random_sample, run_latencies, sample_batches, sample_ios, unloaded_latency_s,
                    waited_visits_by_direction, write_amplification)
from .network import io_demands, io_visits, io_wait_scale
from .result import SimResult, Utilisation, busiest, closed_loop_text
from .stripe_wait import waiting_cpus
from .system import ArraySystem, HostIoBatch
from .workload import exact_mix_size, page_bounded_ios

NETWORK_SAMPLE_IOS = 1024
"""Random host I/Os sampled for the network, in every state: each drive is a station of its own, so
each member's share must show -- of the redirected reads when degraded (the 64 that give the fio
fluid mode its mean member leave one drive up to ~10% busier than the others by chance: md RAID6's
MySQL plateau moved 5% with it). A fio job on a whole array charges every drive the members' mean
(``pooled_members``), as the fluid mode does."""


def network_sample(system: ArraySystem, seed: int) -> list[HostIoBatch]:
    """The host I/Os a foreground class is solved with: the fluid mode's sample for sequential
    workloads (on a degraded RAID5/6 repeated over the period's rows, ``_over_the_period``), at
    least ``NETWORK_SAMPLE_IOS`` random ones otherwise (``exact_mix_size``: 1,030 for
    a 70/30 mix; fewer for blocks above 1 MiB, ``page_bounded_ios``), drawn as the fluid mode's
    (``fluid.random_sample``): their directions stratified to the workload's mix (``fluid.exact_mix``:
    1,024 Bernoulli draws would leave the write share of a 70/30 mix off by up to ~1.4 points, one
    standard deviation), and on a degraded array each direction's offsets over the layout's period."""
    region = min(system.device_bytes, SAMPLE_REGION_BYTES)
    if not system.workload.is_random:
        if not system.failed_members or system.array.level not in (5, 6):
            return sample_batches(system, seed)
        return [_over_the_period(system, region, seed)]
    size = exact_mix_size(system.workload.read_fraction, page_bounded_ios(NETWORK_SAMPLE_IOS, system.workload.bs))
    offsets, is_write = random_sample(system.workload, region, seed, size, degraded_period(system))
    return [system.batch(0, offsets, is_write, frame_bytes=region)]


def _over_the_period(system: ArraySystem, region: float, seed: int) -> HostIoBatch:
    """A sequential stream's sample on a degraded parity array, as a run sees it: the fluid mode's
    run of host I/Os repeated one row on for each row of the layout's period (over a run the stream
    passes every row, and each survivor takes each role of a row in turn), where the one run alone
    loads the members of its one row."""
    w = system.workload
    offsets, is_write = sample_ios(system, seed)
    rows = system.array.drives  # rotating parity: the roles repeat after as many rows as members
    step = system.geometry.stripe_data_bytes
    if len(offsets) * w.bs >= rows * step:  # the run passes every row already (a 4 GiB write: 48,000 of them);
        return system.batch(0, offsets, is_write, frame_bytes=region)  # repeated, its pages x the members
    shifted = np.concatenate([(offsets + k * step) % max(int(region) - w.bs, 1) // w.bs * w.bs for k in range(rows)])
    return system.batch(0, shifted.astype(np.int64), np.tile(is_write, rows), frame_bytes=region)


def whole_array_shares(system: ArraySystem) -> np.ndarray | None:
    """Each drive's share of the members' load on a whole array, where they carry it alike
    (``pooled_members``): the same for every drive; None with a member missing (each survivor's
    own share of the sample)."""
    drives = system.array.drives
    return None if system.failed_members else np.full(drives, 1.0 / drives)


def pooled_members(net, per_station: np.ndarray) -> np.ndarray:
    """``per_station`` with each per-drive kind's values replaced by their mean over the drives.

    On a whole array every member carries the same load in expectation (the layouts rotate parity
    and mirror copies over the members; fio's offsets are uniform), and the fluid mode charges each
    drive that mean. A sample's own per-drive counts would make the busiest drive's station about
    10% busier than the mean by chance (1,024 host I/Os over 16 members), and the network's answer
    would follow that drive."""
    out = np.array(per_station, dtype=float)
    for key in {key for key, drive in net.keys if drive >= 0}:
        at = np.array([k == key and d >= 0 for k, d in net.keys])
        out[at] = out[at].mean()
    return out


def _spread(net, per_station: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """``per_station`` with each per-drive kind's values summed over the drives and spread by
    ``shares`` (each drive's share of the members' load)."""
    out = np.array(per_station, dtype=float)
    for key in {key for key, drive in net.keys if drive >= 0}:
        at = np.array([k == key and d >= 0 for k, d in net.keys])
        drives = np.array([d for k, d in net.keys if k == key and d >= 0])
        out[at] = out[at].sum() * shares[drives]
    return out


def piece_latency_s(system: ArraySystem, batches: list[HostIoBatch], pieces: float) -> float:
    """One md request's (chunk piece's) unloaded latency through the barrier: its share of the
    lock hold and a member I/O."""
    rfix, wfix = system.drive.read_fixed_s, system.drive.write_fixed_s
    ops = np.concatenate([np.where(b.op_is_write, b.op_link_s + wfix, b.op_die_s / b.op_pieces + b.op_link_s + rfix)
                          for b in batches])
    lock = float(np.mean(np.concatenate([b.lock_s for b in batches])))
    return (float(ops.mean()) if ops.size else 0.0) + lock / max(pieces, 1.0)


def burst_piece_s(net, demand_s: np.ndarray, pieces: float) -> float:
    """The pace of a burst of pieces let through at once: the busiest station but the host cores
    (their CPU was spent before the barrier) per piece."""
    keep = np.array([key not in ("cores", "rebuild_thread") for key, _d in net.keys])
    per = np.where(keep, demand_s / max(pieces, 1e-12) / np.maximum(net.servers, 1.0), 0.0)
    return float(per.max())


def grouped_utilisation(system: ArraySystem, net, utilisation: np.ndarray) -> tuple[Utilisation, ...]:
    """One entry per resource of ``ArraySystem.resources`` (drives: the busiest), plus each station
    only rebuild requests load (the rebuild thread) where it is busy (``nvsim.fabric.KINDS``)."""
    out = []
    for key, label, _ in system.resources():
        values = [u for (k, _d), u in zip(net.keys, utilisation) if k == key]
        out.append(Utilisation(label, float(max(values)) if values else 0.0))
    for i, (key, _drive) in enumerate(net.keys):
        if not fabric.KIND[key].reported and utilisation[i] > 0:
            out.append(Utilisation(net.labels[i], float(utilisation[i]), host_visits=False))
    return tuple(out)


def limit(util) -> str:
    """The resource that limits a solve: the busiest (``nvsim.sim.result.busiest``)."""
    return busiest(util).resource


def cpu_percent(system: ArraySystem, net, sol, waiting_cpus: float = 0.0, engine_asleep: float = 0.0) -> float:
    """Busy host CPUs (the resources whose busy time is host CPU time, ``nvsim.fabric``) as a
    share of the platform's logical CPUs; ``waiting_cpus``: job CPUs that spin while their jobs
    wait for the engine's stripe cache (``nvsim.sim.stripe_wait``) or wait for and hold its lock
    (``FioLoad.lock_cpus``), on top of the jobs' own;
    ``engine_asleep``: the engine's threads' busy share spent asleep on its metadata updates (not
    CPU time, as the fluid mode counts it)."""
    busy = other = 0.0
    for i, key in enumerate(fabric.host_cpu_keys(system.facts)):
        j = net.index(key)
        station = float(sol.utilisation[j] * net.servers[j]) - (engine_asleep if key == "engine" else 0.0)
        if i == 0:  # the jobs' cores
            busy = min(float(len(system.cpu_speed)), station + waiting_cpus)
        else:  # the engine's threads on the host: beside the jobs' CPUs, polling or not
            other += station
    busy = busy_cpus_with_polling(busy, float(len(system.cpu_speed)), system.workload.numjobs, system.host_io,
                                  float(system.logical_cpus), other)
    return min(100.0, 100.0 * busy / system.logical_cpus)  # capped busy CPUs, less float rounding


class FioLoad:
    """A fio job as the foreground class: its I/Os in flight, one cycle per host I/O."""

    other_busy = 0.0  # host CPUs kept busy by the engine's own threads (not the jobs')
    job_busy = 0.0  # host CPUs the jobs keep busy (the last iterate's, set by the state's solve)
    sync_wait = 0.0  # seconds per host I/O the engine's thread waits for metadata updates (the last solve's)

    def __init__(self, scenario, workload, catalog, missing, seed, idle=False, rebuilding=None, rebuilt_fraction=0.0,
                 rebuilt_step=0.0):
        """``rebuilding``, ``rebuilt_fraction``: the member being rebuilt (among ``missing``) and the
        share of it done, which host I/O uses (``ArraySystem``)."""
        self.idle = idle
        self.system = ArraySystem(scenario, workload, catalog, failed_members=missing, rebuilding=rebuilding,
                                  rebuilt_fraction=rebuilt_fraction, rebuilt_step=rebuilt_step)
        if not idle:  # a read pays program suspend as often as its die programs at the job's rate, as the event
            priced_at_its_rate(self.system, seed)  # mode prices it (until 2026-12-02 a saturated die's share)
        self.workload = workload
        self.batches = network_sample(self.system, seed)
        self.write_share = float(np.mean(np.concatenate([b.is_write for b in self.batches])))

    def demands(self, net):
        system = self.system
        drives = system.array.drives
        streams = None if system.jbod else read_stream_shares(system, self.batches)
        weights = np.full(drives, jbod_imbalance(system) / drives) if system.jbod else \
            streams if streams is not None else whole_array_shares(system)
        demand = self.demand_s = io_demands(system, net, self.batches, weights)
        self.visits = io_visits(system, net, self.batches)
        if system.jbod:  # jobs bound to drives: each host I/O visits its own drive once
            self.visits = np.where(demand > 0, 1.0, 0.0)
        elif streams is not None:  # each job's reads on its own mirror: the visits follow the load
            self.visits = _spread(net, self.visits, streams)
        elif weights is not None:
            self.visits = pooled_members(net, self.visits)
        # each phase of a host I/O waits for its slowest member I/O, with no queueing (its drawn NAND
        # times' expected maximum, as the fluid mode's) and in the queues (io_wait_scale)
        self.wait_scale = io_wait_scale(net, self.batches)
        w = self.workload
        return demand, unloaded_latency_s(system, self.batches, fork_join=True, run_s=self.run_s), \
            0.0 if self.idle else float(w.numjobs * w.iodepth)

    @cached_property
    def run_s(self) -> list:
        """The sample's ``fluid.run_latencies`` with the fork-join term: the unloaded latency's, and
        each direction's (``latency_by_direction``), computed once."""
        return run_latencies(self.system, self.batches, fork_join=True)

    def sync_wait_s(self, x: float) -> float:
        """Seconds per host I/O the engine's thread waits for synchronous metadata updates (md's
        write-intent bitmap) at ``x`` host I/Os per second, as the fluid mode charges them
        (``fluid.with_sync_updates``): the write share x the share of writes that set a clean bit
        at that write rate x one update. The state's solve feeds its throughput back until it
        settles, so the bitmap costs the same here as in ``nvsim run``'s fluid mode."""
        if self.idle or x <= 0 or self.write_share <= 0:
            return 0.0
        share, update_s = self.system.sync_update(x * self.write_share)
        return self.write_share * share * update_s

    def bitmap_background_s(self, x: float) -> float:
        """A fio job's writes are all waited for (``sync_wait_s``): no background updates."""
        return 0.0

    def servers(self, net):
        """The stations' servers; the engine's rebuild threads run on the host CPUs the jobs leave
        (xiRAID's reconstruction threads are host threads: with every CPU busy with a job they
        share the jobs' cores), at least one. A polling job (io_uring hipri) leaves its CPU none,
        and an SQ polling thread takes one more (until 2026-12-01 only the jobs' work counted: 72
        polling jobs on 72 CPUs left xiRAID's 4 threads all 4; ``ArraySystem.rebuild_thread_cpus``)."""
        servers = net.servers
        i = net.index("rebuild_thread")
        cpus = self.system.rebuild_thread_cpus(self.job_busy)
        if cpus < servers[i]:
            servers = servers.copy()
            servers[i] = cpus
        return servers

    def open_utilisation(self, net, x):
        return np.zeros(len(net))

    def thread_bound(self, net) -> tuple[float, float]:
        """(the job's I/Os in flight at each of its cores, the residual share of a core's service,
        ``network.ThreadQueue``): the event mode books each job's I/Os on its own CPU, one server, for
        the sample's submit and completion costs as they are (their E[S^2] / 2 E[S]^2, about 1/2)."""
        if self.idle:
            return 0.0, 1.0
        cost = np.concatenate([b.submit_s + b.complete_s for b in self.batches])
        mean = float(cost.mean())
        residual = float(np.mean(cost * cost)) / (2.0 * mean * mean) if mean > 0 else 1.0
        w = self.workload
        return w.numjobs * w.iodepth / max(1.0, float(net.servers[net.index("cores")])), residual

    def barrier_pieces(self, net):
        """md RAID10 recovery (``BarrierCycle``): each host I/O's md requests (one per chunk piece)
        wait at the barrier; their pace and latency through it."""
        system = self.system
        pieces = float(system.engine.barrier_requests(system.array.level, system.chunk_requests_per_io()))
        demand = io_demands(system, net, self.batches)
        return pieces, pieces, burst_piece_s(net, demand, pieces), piece_latency_s(system, self.batches, pieces)

    def waiting_cpus(self, net, sol, x: float) -> float:
        """Job CPUs the jobs spin on while they wait for the engine's stripe cache, at the solved
        rate and stripe thread's load (``nvsim.sim.stripe_wait``; 0 when idle or without one)."""
        if self.idle or x <= 0 or ("engine", -1) not in net.keys:
            return 0.0
        return waiting_cpus(self.system, self.batches, x, float(sol.utilisation[net.index("engine")]))

    def lock_cpus(self, net, sol, x: float) -> float:
        """Job CPUs at the engine's lock (md's spinlock): each host I/O's submitter spins while it
        waits there and runs on its core while it holds it, at the solved rate, as the event mode
        books it (``HostSlot.locked``) and the steady fluid mode counts it; until 2026-12-01 the
        state solver counted neither (1 MiB md RAID5 writes, degraded: 1.673% against 1.730%)."""
        if ("lock", -1) not in net.keys:
            return 0.0
        j = net.index("lock")
        return x * float(self.demand_s[j] + sol.waiting_s[0, j])

    def latency_by_direction(self, net, sol, f_read: float, x: float) -> dict[str, dict]:
        """The reads' and writes' mean latencies, whose mean is the cycle (Little's law): each
        direction's unloaded latency and its share of the waits at the stations
        (``fluid.latency_by_direction_us`` with ``waited_visits_by_direction``), as the steady fluid
        mode splits them: a degraded RAID5 70/30 mix gave reads and writes one figure (584 us), the
        event mode 595 and 1,098 rebuilding."""
        if x <= 0:
            return {"read_latency_us": {}, "write_latency_us": {}}
        system, batches, run_s = self.system, self.batches, self.run_s
        unloaded = unloaded_latency_s(system, batches, fork_join=True, run_s=run_s)
        visits = waited_visits_by_direction(batches, net.keys, sol.waiting_s[0], f_read)
        read, write = latency_by_direction_us(system, batches, run_s, float(sol.cycle_s[0]), unloaded,
                                              self.sync_wait, f_read, visits)
        return {"read_latency_us": read, "write_latency_us": write}

    def result(self, net, sol) -> SimResult:
        system, w = self.system, self.workload
        x = float(sol.throughput[0])
        f_read = 1.0 - self.write_share
        raid_waf, waf_nand = write_amplification(system, self.batches)
        util = grouped_utilisation(system, net, sol.utilisation)
        return SimResult(
            scenario=system.scenario.name, workload=w.name, fidelity="fluid",
            read_iops=x * f_read, write_iops=x * (1 - f_read), read_bytes_per_s=x * f_read * w.bs,
            write_bytes_per_s=x * (1 - f_read) * w.bs,
            cpu_percent=cpu_percent(system, net, sol, self.waiting_cpus(net, sol, x) + self.lock_cpus(net, sol, x),
                                    x * self.sync_wait),
            logical_cpus=system.logical_cpus,
            **self.latency_by_direction(net, sol, f_read, x),
            raid_waf=raid_waf, waf_nand=waf_nand, utilisation=util, limited_by=limit(util),
            closed_loop=closed_loop_text(w),
        )


__all__ = ["FioLoad", "network_sample", "whole_array_shares", "pooled_members", "NETWORK_SAMPLE_IOS", "piece_latency_s", "burst_piece_s", "grouped_utilisation",
           "cpu_percent", "limit"]
