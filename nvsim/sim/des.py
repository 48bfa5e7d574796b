"""Discrete-event mode (SimPy): every host I/O of every job, with queueing at every resource.

Each of the ``numjobs x iodepth`` I/O slots is a SimPy process: it submits a host I/O on its job's
core, waits for it, completes it on the same core, and submits the next (fio's closed loop).
Servers are *reservation* resources: an I/O entering a stage books the earliest free server of it
(a FIFO queue: start = max(arrival, server free), finish = start + service). Submission books the
whole path at once -- core, spinlock (the core spins while it waits), engine server, the member
I/Os on each drive (link and NAND units) in their phases, the engine device -- and the slot waits
one SimPy timeout for the completion; the completion's CPU is booked when it happens. Two events
per host I/O instead of three per resource visit keeps 100k+ host I/Os per second (the SimPy
``Resource`` request/release pattern costs ~10 us per visit); the price is that stages after the
first are booked in submission order, not arrival order -- exact for the saturated bottleneck, a
small reordering elsewhere. Warm-up is discarded; the measured window is cut into batches whose
means give a 95% confidence interval.
"""

from __future__ import annotations

import gc
import heapq
import math
import time
from collections import deque

import numpy as np
import simpy
from simpy.events import NORMAL, Event

from .fluid import simulate_fluid, write_amplification
from .result import PERCENTILES, SimResult, Utilisation, busiest
from .system import ArraySystem, strips_spanned
from .workload import HostStream, named_rng

T_95 = {5: 2.776, 10: 2.262, 20: 2.093}
MEMBER_IOS_PER_BATCH = 32768
LARGE_IO_S = 1e-6  # DRAM time above which an I/O is booked on the DRAM queue (>= ~64 KiB)


class _Server:
    """``count`` FIFO servers, booked by reservation: start = max(arrival, earliest free),
    finish = start + service; tracks busy time. ``waiters``: slots queued for a job core (a
    thread does one thing at a time), woken in order when it frees."""

    __slots__ = ("free", "heap", "busy", "waiters", "wake_pending")

    def __init__(self, count: int):
        self.heap = [0.0] * count if count > 1 else None
        self.free = 0.0
        self.busy = 0.0
        self.waiters: deque = deque()
        self.wake_pending = False

    def book(self, arrival: float, service: float) -> float:
        self.busy += service
        if self.heap is None:
            start = arrival if arrival > self.free else self.free
            self.free = start + service
            return self.free
        first = self.heap[0]
        start = arrival if arrival > first else first
        heapq.heapreplace(self.heap, start + service)
        return start + service


BARRIER_CYCLES = 40
"""md RAID10 recovery cycles (a batch under the barrier, the drain, md's sleep) a measured window
spans at least: a 64 KiB-strip batch is 32 MiB and a cycle tens of ms."""


def simulate_event(system: ArraySystem, *, seed: int | None = None, host_ios: int = 60_000, batches: int = 10,
                   warmup_ios: int | None = None, rebuild_member: int | None = None,
                   until_rebuilt: bool = False) -> SimResult:
    """Run the scenario's workload for about ``host_ios`` measured host I/Os after a warm-up.

    ``rebuild_member``: that member is being rebuilt meanwhile (it must be among the system's
    failed members): the engine's rebuild requests (``ArraySystem.rebuild_batch``) run as slots of
    their own on a rebuild thread, md's speed limit gates them, and ``rebuild_bytes_per_s`` is
    measured over the window. ``until_rebuilt``: run until the whole span is rebuilt (the full
    event simulation of a small rebuild) and measure over all of it.
    """
    started = time.perf_counter()
    seed = system.scenario.seed if seed is None else seed
    w = system.workload
    rate_guess = max(simulate_fluid(system, seed).total_iops, 1.0)
    barrier_cycle_s = 0.0
    if rebuild_member is not None and not until_rebuilt:
        # size the warm-up and the window on the foreground's rate beside the rebuild (the network
        # solve of this state), not the array's without it: a deep md resync leaves the foreground
        # a hundredth of it, and a window sized on the optimal rate would measure the fill transient
        from .mixed import solve_state
        beside = solve_state(system.scenario, w, system.catalog, rebuilding=rebuild_member, seed=seed,
                             failed=tuple(m for m in system.failed_members if m != rebuild_member),
                             overrides={"engine": system.engine_overrides, "host_io": system.host_io_overrides})
        rate_guess = max(min(rate_guess, beside.total_iops), 1.0)
        if system.engine.recovery_excludes_host_io(system.array.level) and beside.rebuild_bytes_per_s:
            step, inflight = system.engine.rebuild_settings(system.array.level, system.array.rebuild.priority)
            barrier_cycle_s = inflight * step / beside.rebuild_bytes_per_s  # a batch and its drain (or sleep)
    population = w.numjobs * w.iodepth
    warm_ios = warmup_ios if warmup_ios is not None else max(3 * population, host_ios // 5)
    warm_s = max(w.ramp_time if w.ramp_time and w.ramp_time < warm_ios / rate_guess else 0.0, warm_ios / rate_guess)
    window_s = host_ios / rate_guess
    if barrier_cycle_s:  # md RAID10 recovery: the window spans many barrier cycles
        warm_s, window_s = max(warm_s, 3 * barrier_cycle_s), max(window_s, BARRIER_CYCLES * barrier_cycle_s)
    end_s = warm_s + window_s

    env = simpy.Environment()
    drives = system.array.drives
    units = system.drive.units
    cores = [_Server(1) for _ in range(len(system.cpu_speed))]
    lock = _Server(1)
    engine = _Server(system.engine_servers)
    device_bw, device_down, device_up, memory = (_Server(1) for _ in range(4))
    nand = [_Server(units) for _ in range(drives)]
    link_up = [_Server(1) for _ in range(drives)]
    link_down = [_Server(1) for _ in range(drives)]
    rfix, wfix = system.drive.read_fixed_s, system.drive.write_fixed_s
    everything = cores + [lock, engine, device_bw, device_down, device_up, memory] + nand + link_up + link_down
    rebuild = None
    if rebuild_member is not None:
        from .mixed import rebuild_plan
        rebuild = rebuild_plan(system, rebuild_member)
        rebuild_thread = _Server(1)
        everything.append(rebuild_thread)
        if until_rebuilt:  # the whole rebuild from time zero, foreground alongside: no warm-up to discard
            warm_s = 0.0
            end_s = rebuild["span_bytes"] / max(rebuild["rate_guess"], 1.0) * 3.0
    barrier = rebuild is not None and system.engine.recovery_excludes_host_io(system.array.level)
    gate = {"up": False, "pending": 0, "waiting": [], "drained": None, "left": 0, "batch": None}

    # host I/Os planned at a time per job: what the run needs, but at most MEMBER_IOS_PER_BATCH member
    # I/Os (a 1 MiB write on a 4 KiB strip is ~280 of them; every job holds one batch in memory)
    from .fluid import sample_batches
    sample = sample_batches(system, seed)[0]
    members_per_io = max(1.0, len(sample.op_die_s) / max(1, len(sample)))
    batch_ios = int(min(4096, max(64, 2 * (warm_ios + host_ios) / w.numjobs), MEMBER_IOS_PER_BATCH / members_per_io))
    batch_ios = max(8, batch_ios)
    streams = [HostStream.for_job(w, j, system.device_bytes, seed) for j in range(w.numjobs)]
    queues: list[list] = [[None, 0, 0, None] for _ in range(w.numjobs + 1)]  # [rows, next, size, member columns]
    sampled = []

    def take(job: int):
        """The next host I/O of ``job``: (row of its demands, member-I/O columns)."""
        q = queues[job]
        if q[1] >= q[2]:
            if job >= w.numjobs:  # the rebuild's next requests, in member order
                step, first, count = rebuild["step_bytes"], rebuild["next_offset"], 64
                rebuild["next_offset"] = first + count * step
                b = system.rebuild_batch(rebuild_member, first + np.arange(count, dtype=np.int64) * step, step)
            else:
                offsets, is_write = streams[job].next_batch(batch_ios)
                b = system.batch(job, offsets, is_write,
                                 rng=named_rng(seed, "nand service times", job, streams[job].batches_made))
                if len(sampled) < 8:
                    sampled.append(b)
            starts = b.op_start.tolist()
            extra = [strips_spanned(offsets, w.bs, system.array.strip_bytes).tolist()] \
                if barrier and job < w.numjobs else []
            rows = list(zip(b.submit_s.tolist(), b.complete_s.tolist(), b.lock_s.tolist(), b.pre_s.tolist(),
                            b.mid_s.tolist(), b.device_bw_s.tolist(), b.device_down_s.tolist(),
                            b.device_up_s.tolist(), b.memory_s.tolist(), b.is_write.tolist(), starts[:-1], starts[1:],
                            b.reads_gate_writes().tolist(), *extra))
            ops = (b.op_drive.tolist(), b.op_is_write.tolist(), b.op_phase.tolist(), b.op_die_s.tolist(),
                   b.op_link_s.tolist())
            q[0], q[1], q[2], q[3] = rows, 0, len(b), ops
        i = q[1]
        q[1] += 1
        return q[0][i], q[3]

    done_at: list[float] = []
    completed = [0]
    latency: list[float] = []
    writes: list[bool] = []
    snapshot: dict[str, list[float]] = {}

    def member_phase(ops, lo, hi, phase, arrival):
        """Book one phase of a host I/O's member I/Os; the time the last one is done.

        Single-server links are booked at the arrival (now), the multi-unit NAND pool after: the
        pool tolerates bookings ahead of time, a single server would idle in the gap.
        """
        op_drive, op_w, op_phase, op_die, op_link = ops
        finish = arrival
        for k in range(lo, hi):
            if op_phase[k] != phase:
                continue
            d = op_drive[k]
            if op_w[k]:
                sent = link_down[d].book(arrival, op_link[k])
                nd = nand[d]
                nd.busy += op_die[k]
                if nd.heap is not None:
                    first = nd.heap[0]
                    start = sent if sent > first else first
                    heapq.heapreplace(nd.heap, start + op_die[k])
                else:
                    start = sent if sent > nd.free else nd.free
                    nd.free = start + op_die[k]
                t = sent + wfix
                if start > t:  # no room in the write buffer until a unit takes it
                    t = start
            else:
                t = nand[d].book(link_up[d].book(arrival, op_link[k]), op_die[k]) + rfix
            if t > finish:
                finish = t
        return finish

    def wake(core: _Server) -> None:
        """Hand the core to the next queued slot once it is free (one wake-up event at a time)."""
        if not core.waiters or core.wake_pending:
            return
        core.wake_pending = True
        env.timeout(max(0.0, core.free - env.now)).callbacks.append(lambda _event, c=core: _wake_now(c))

    def _wake_now(core: _Server) -> None:
        core.wake_pending = False
        if not core.waiters:
            return
        if core.free > env.now:
            wake(core)
            return
        core.waiters.popleft().succeed()

    heapreplace = heapq.heapreplace
    schedule = env.schedule

    def later(delay: float, callback) -> None:
        """Call ``callback`` after ``delay`` of simulated time (a bare SimPy event: no process)."""
        event = Event(env)
        event._ok = True
        event._value = None
        event.callbacks.append(callback)
        schedule(event, NORMAL, delay)

    class Slot:
        """One of a job's ``iodepth`` I/O slots, as a chain of SimPy event callbacks.

        issue -> (queue for the job's core) -> submit CPU -> (wait to reach the spinlock) -> lock,
        engine, device, member reads -> (wait for gating reads) -> engine, member writes -> wait
        for the last member -> completion CPU -> issue the next at once. A generator process per
        slot does the same with twice the interpreter work per event.
        """

        __slots__ = ("job", "core", "t0", "row", "ops", "now", "a")

        def __init__(self, job: int):
            self.job = job
            self.core = cores[system.job_cpu[job]] if job < w.numjobs else rebuild_thread
            self.t0 = 0.0

        def issue(self, _event=None) -> None:
            q = queues[self.job]
            if q[1] < q[2]:  # the job's current batch (inline ``take``: the hot path)
                self.row = q[0][q[1]]
                self.ops = q[3]
                q[1] += 1
            else:
                self.row, self.ops = take(self.job)
            core, t0 = self.core, self.t0
            if core.free > t0 or core.waiters:  # the job's thread is busy: queue for it
                if t0 > env._now:
                    later(t0 - env._now, self.enqueue)
                else:
                    self.enqueue()
                return
            submit = self.row[0]
            core.busy += submit  # the core is free at t0: start at once
            self.now = t0
            self.a = core.free = t0 + submit
            if self.row[2]:
                self.submitted()
            else:
                self.locked()

        def enqueue(self, _event=None) -> None:
            gate = Event(env)
            gate.callbacks.append(self.granted)
            self.core.waiters.append(gate)
            wake(self.core)

        def granted(self, _event) -> None:
            self.now = env._now
            self.a = self.core.book(self.now, self.row[0])  # a completion may have taken the core now
            self.submitted()

        def submitted(self, _event=None) -> None:
            if self.row[2] and self.a > env._now:  # book the spinlock when submission reaches it
                later(self.a - env._now, self.locked)
            else:
                self.locked()

        def locked(self, _event=None) -> None:
            submit, complete, hold, pre, mid, bw, down, up, mem, is_write, lo, hi, gated = self.row
            core, a, ops = self.core, self.a, self.ops
            if hold:
                unlocked = lock.book(a, hold)
                core.busy += unlocked - a  # spinning, then holding
                if unlocked > core.free:
                    core.free = unlocked
                a = unlocked
            if core.waiters:
                wake(core)
            if not gated and mid:  # one visit to the engine does all its work (gated: HostIoBatch.reads_gate_writes)
                pre = pre + mid
            if pre:
                a = engine.book(a, pre)
            if bw:
                a = device_bw.book(a, bw)
            if down:
                a = device_down.book(a, down)
            if up:
                a = device_up.book(a, up)
            if mem > LARGE_IO_S:
                memory.book(self.now, mem)
            else:  # a few ns of DRAM per small I/O never queues: count it, skip the booking
                memory.busy += mem
            if gated:  # wait for the reads, then the engine's second visit and the writes
                self.a = member_phase(ops, lo, hi, 0, a)
                later(self.a - env._now, self.reads_done)
                return
            if hi == lo + 1 and not ops[1][lo]:  # one member read: the common small-read path, inlined
                d = ops[0][lo]
                link = link_up[d]
                service = ops[4][lo]
                link.busy += service
                start = a if a > link.free else link.free
                a = link.free = start + service
                pool = nand[d]
                service = ops[3][lo]
                pool.busy += service
                first = pool.heap[0]
                start = a if a > first else first
                a = start + service
                heapreplace(pool.heap, a)
                a += rfix
            elif hi > lo:
                a = member_phase(ops, lo, hi, 1, a)
            self.a = a
            event = Event(env)  # ``later`` inlined
            event._ok = True
            event._value = None
            event.callbacks.append(self.done)
            schedule(event, NORMAL, a - env._now)

        def reads_done(self, _event) -> None:
            a = env._now
            mid = self.row[4]
            if mid:
                a = engine.book(a, mid)
            self.a = member_phase(self.ops, self.row[10], self.row[11], 1, a)
            later(self.a - env._now, self.done)

        def done(self, _event) -> None:
            # completion on the job's core; the thread then submits the next I/O straight away
            # (booked at ``finish``: a look-ahead of one completion's CPU time)
            core = self.core
            finish = core.book(self.a, self.row[1])
            if core.waiters:
                wake(core)
            completed[0] += 1
            if finish >= warm_s:
                done_at.append(finish)
                latency.append(finish - self.t0)
                writes.append(self.row[9])
            self.t0 = finish
            self.issue()

    class RebuildSlot(Slot):
        """One of the rebuild's requests in flight, on the rebuild thread: the engine's throttle (md's
        speed limit, a card's paced rebuild priority: ``mixed.rebuild_cap``) gates each request, the
        span's end stops it, completions count rebuilt bytes (not host I/Os)."""

        __slots__ = ()

        def __init__(self):
            Slot.__init__(self, w.numjobs)

        def issue(self, _event=None) -> None:
            if rebuild["issued_bytes"] >= rebuild["span_bytes"]:
                return
            allowed = rebuild["issued_bytes"] / rebuild["cap_bytes_per_s"]
            if allowed > self.t0 + 1e-12:
                self.t0 = allowed
                later(allowed - env._now, self.issue)
                return
            rebuild["issued_bytes"] += rebuild["step_bytes"]
            Slot.issue(self)

        def rebuilt(self) -> float:
            """The request's completion on the rebuild thread: count its bytes, note the span's end
            (and stop there when the run is the whole rebuild); the time it finished."""
            core = self.core
            finish = core.book(self.a, self.row[1])
            if core.waiters:
                wake(core)
            rebuild["done_bytes"] += rebuild["step_bytes"]
            if finish >= warm_s:
                rebuild["window_bytes"] += rebuild["step_bytes"]
            if rebuild["done_bytes"] >= rebuild["span_bytes"]:
                rebuild["finished_s"] = finish
                if until_rebuilt and not stop.triggered:
                    stop.succeed()
            return finish

        def done(self, _event) -> None:
            self.t0 = self.rebuilt()
            self.issue()

    class BarrierSlot(Slot):
        """A foreground slot under md RAID10 recovery: after its submit CPU the host I/O's md
        requests (``raid10_make_request`` splits it at every chunk end) pass ``wait_barrier`` one
        after another, a share of the submit CPU apart; while the barrier is up a request waits for
        it to drop, and once through it counts as pending (``nr_pending``) until its member I/Os are
        done. The host I/O completes with its last request."""

        __slots__ = ("k", "pieces", "gap", "per", "left")

        def locked(self, _event=None) -> None:
            row, core, a = self.row, self.core, self.a
            if core.waiters:
                wake(core)
            memory.busy += row[8]
            self.pieces = self.left = max(1, int(row[13]))
            self.per = max(1, (row[11] - row[10]) // self.pieces)
            self.gap = row[0] / self.pieces
            self.k = 0
            later(a - env._now, self.through)

        def through(self, _event=None) -> None:
            if gate["up"]:  # wait_barrier: sleep until the recovery batch is done
                gate["waiting"].append(self.through)
                return
            gate["pending"] += 1
            row, k, now = self.row, self.k, env._now
            if row[2]:  # resync_lock, taken by wait_barrier for each piece (the core spins meanwhile)
                unlocked = lock.book(now, row[2] / self.pieces)
                self.core.busy += unlocked - now
                now = unlocked
            lo = row[10] + k * self.per
            hi = row[11] if k == self.pieces - 1 else lo + self.per
            finish = member_phase(self.ops, lo, hi, 1, now) if hi > lo else now
            later(finish - env._now, self.piece_done)
            self.k = k + 1
            if self.k < self.pieces:  # the next piece, once md has split and submitted this one
                later(self.gap, self.through)

        def piece_done(self, _event) -> None:
            gate["pending"] -= 1
            if gate["pending"] == 0 and gate["drained"] is not None:
                drained, gate["drained"] = gate["drained"], None
                drained.succeed()
            self.left -= 1
            if self.left == 0:
                self.a = env._now
                self.done(None)

    class BatchRebuildSlot(RebuildSlot):
        """One recovery request of a barrier batch: issued by the resync cycle, not re-issued."""

        __slots__ = ()

        def issue(self, _event=None) -> None:
            rebuild["issued_bytes"] += rebuild["step_bytes"]
            self.t0 = env.now
            Slot.issue(self)

        def done(self, _event) -> None:
            self.rebuilt()
            gate["left"] -= 1
            if gate["left"] == 0:
                gate["batch"].succeed()

    def resync_cycle():
        """md_do_sync over raid10_sync_request, a batch at a time: raise the barrier (new normal I/O
        waits), wait for the normal I/O in flight to drain, run ``inflight`` recovery requests,
        lower the barrier (the waiting I/O goes through), and again at once -- unless md's speed
        limit makes it sleep."""
        inflight = max(1, int(round(rebuild["inflight"])))
        while rebuild["issued_bytes"] < rebuild["span_bytes"]:
            allowed = rebuild["issued_bytes"] / rebuild["cap_bytes_per_s"]
            if allowed > env.now:
                yield env.timeout(allowed - env.now)
            gate["up"] = True
            if gate["pending"] > 0:
                gate["drained"] = env.event()
                yield gate["drained"]
            left = int(math.ceil((rebuild["span_bytes"] - rebuild["issued_bytes"]) / rebuild["step_bytes"]))
            gate["left"] = min(inflight, left)
            gate["batch"] = env.event()
            for _ in range(gate["left"]):
                BatchRebuildSlot().issue()
            yield gate["batch"]
            gate["up"] = False
            waiting, gate["waiting"] = gate["waiting"], []
            for through in waiting:
                through()

    def mark_warm():
        yield env.timeout(warm_s)
        snapshot["busy"] = [s.busy for s in everything]

    foreground = BarrierSlot if barrier else Slot
    for job in range(w.numjobs):
        for _ in range(w.iodepth):
            later(0.0, foreground(job).issue)
    stop = env.event()
    if barrier:
        env.process(resync_cycle())
    elif rebuild is not None:
        for _ in range(int(round(rebuild["inflight"]))):
            later(0.0, RebuildSlot().issue)
    env.process(mark_warm())
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived events and no cycles among them: the collector only costs time
    try:
        if until_rebuilt and rebuild is not None:
            env.run(until=env.any_of([stop, env.timeout(end_s)]))
            end_s = env.now
        else:
            env.run(until=end_s)
    finally:
        if collecting:
            gc.enable()

    done = np.asarray(done_at)
    keep = done <= end_s
    done, lat, wr = done[keep], np.asarray(latency)[keep], np.asarray(writes, dtype=bool)[keep]
    window = end_s - warm_s
    n_read, n_write = int((~wr).sum()), int(wr.sum())
    counts = np.histogram(done, bins=batches, range=(warm_s, end_s))[0] / (window / batches)
    half_width = T_95.get(batches, 1.96) * counts.std(ddof=1) / math.sqrt(batches) if batches > 1 else 0.0

    busy = [s.busy - b for s, b in zip(everything, snapshot.get("busy", [0.0] * len(everything)))]
    nc = len(cores)
    core_busy = sum(busy[:nc])
    lock_b, engine_b, bw_b, down_b, up_b, mem_b = busy[nc:nc + 6]
    busy_of = {  # busy seconds of each resource over the window (drives: the busiest)
        "cores": core_busy, "lock": lock_b, "engine": engine_b, "device_bw": bw_b, "device_up": up_b,
        "device_down": down_b, "nand": max(busy[nc + 6:nc + 6 + drives]),
        "link_up": max(busy[nc + 6 + drives:nc + 6 + 2 * drives]),
        "link_down": max(busy[nc + 6 + 2 * drives:nc + 6 + 3 * drives]),
        "memory": mem_b,
    }
    util = [Utilisation(label, busy_of[key] / (servers * window)) for key, label, servers in system.resources()]
    util = [Utilisation(u.resource, min(1.0, u.utilisation)) for u in util]
    cpu_busy = core_busy + (engine_b if system.engine_on_host_cpu else 0.0)
    raid_waf, nand_waf = write_amplification(system, sampled) if sampled else (float("nan"), float("nan"))
    top = busiest(util)
    rebuild_rate = None
    if rebuild is not None:
        rebuild_rate = (rebuild["done_bytes"] / end_s) if until_rebuilt else rebuild["window_bytes"] / window
        cpu_busy += busy[-1]
    return SimResult(
        scenario=system.scenario.name, workload=w.name, fidelity="event",
        read_iops=n_read / window, write_iops=n_write / window,
        read_bytes_per_s=n_read * w.bs / window, write_bytes_per_s=n_write * w.bs / window,
        cpu_percent=100.0 * cpu_busy / (system.logical_cpus * window),
        read_latency_us=_latency_summary(lat[~wr]), write_latency_us=_latency_summary(lat[wr]),
        iops_ci95=float(half_width), raid_waf=raid_waf, nand_waf=nand_waf, utilisation=tuple(util),
        limited_by=top.resource, simulated_host_ios=int(len(done)), completed_host_ios=completed[0], simulated_s=window,
        wall_s=time.perf_counter() - started,
        latency_samples_s={"read": lat[~wr], "write": lat[wr]},
        rebuild_bytes_per_s=rebuild_rate, rebuild_limited_by="measured (event mode)" if rebuild is not None else "",
    )


def _latency_summary(values_s: np.ndarray) -> dict[str, float]:
    if values_s.size == 0:
        return {}
    us = values_s * 1e6
    out = {"mean": float(us.mean())}
    for q, v in zip(PERCENTILES, np.percentile(us, PERCENTILES)):
        out[f"p{q:g}"] = float(v)
    return out


__all__ = ["simulate_event"]
