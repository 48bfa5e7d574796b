"""The event mode's foreground run on the compiled kernel (``kernel``): the arrays it works on,
the planned host I/Os fed to it a batch per job as it asks, and the run's SimResult.

Same servers, same planned host I/Os (``rows.HostJobs``, the same named random streams) and same
event order as the SimPy slots (``slots.HostSlot``), so a run gives the same numbers; the kernel
is used where the SimPy path has nothing else to run beside the foreground (no rebuild, no
barrier). The planned rows are appended to growing arrays and the used prefix dropped once no
slot or job refers to it, so memory stays bounded on long runs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import literal_unroll, njit

from ...constants import PRECISION_MAX, PRECISION_MIN
from ...errors import InputError
from ...units import format_number
from . import hdr, timeline
from . import kernel as k
from .measure import TAIL_QUANTILE, tail_relative_half_width
from .rows import HostJobs
from .servers import ArrayServers
from .slots import LARGE_IO_S

RECORDS_START = 1 << 16
"""Window records (completion time, latency, direction) allocated at first; doubled as needed."""
SAMPLES_MAX = 4_000_000
"""Exact samples (24 bytes each) a run keeps at most; past them its latencies are read from the
kernel's histograms (``hdr``) and its rates from their counts, so memory stays bounded."""
GRID_BINS = 4096
"""Bins of the window's completion-time grid (the batch means' counts once the samples are full)."""


@dataclass
class Rows:
    """Planned host I/Os (``rows_f``/``rows_i``, columns of ``rows.Demand``) and their member I/Os
    (``ops_i``/``ops_f``), the first ``n_rows``/``n_ops`` in use; ``job_next``/``job_end``: each
    job's rows still to issue."""

    rows_f: np.ndarray
    rows_i: np.ndarray
    ops_i: np.ndarray
    ops_f: np.ndarray
    job_next: np.ndarray
    job_end: np.ndarray
    n_rows: int = 0
    n_ops: int = 0

    @classmethod
    def empty(cls, jobs: int, batch_ios: int) -> Rows:
        """Room for two batches per job (each job's current one, and the used rows before the
        oldest a slot still runs); member I/Os sized on the first batch."""
        size = 2 * jobs * batch_ios
        return cls(np.zeros((size, k.ROWS_F)), np.zeros((size, 4), np.int64), np.zeros((0, 4), np.int32),
                   np.zeros((0, 2)), np.zeros(jobs, np.int64), np.zeros(jobs, np.int64))

    def append(self, job: int, b, pieces=None, slot_rows: np.ndarray | None = None) -> None:
        """Append ``job``'s next planned batch (a ``HostIoBatch``; ``pieces``: each host I/O's md
        requests under md RAID10's barrier); its rows are the job's next. Where it does not fit,
        the used prefix is dropped first (``compact``; ``slot_rows``: the row each slot runs)."""
        n, m = len(b), len(b.op_drive)
        if slot_rows is not None and (self.n_rows + n > len(self.rows_f) or self.n_ops + m > len(self.ops_i)):
            self.compact(slot_rows)
        self._room(n, m)
        r, o = self.n_rows, self.n_ops
        _fill_rows(self.rows_f, self.rows_i, self.ops_i, self.ops_f, r, o,
                   (b.submit_s, b.complete_s, b.lock_s, b.pre_s, b.mid_s, b.device_bw_s, b.device_down_s,
                    b.device_up_s, b.memory_s, np.zeros(n) if pieces is None else np.asarray(pieces, np.float64),
                    np.zeros(n) if b.ack_s is None else b.ack_s),
                   b.is_write, b.op_start, b.op_drive, b.op_is_write, b.op_phase, b.op_die_s, b.op_link_s, b.op_pieces)
        self.job_next[job], self.job_end[job] = r, r + n
        self.n_rows, self.n_ops = r + n, o + m

    def _room(self, n: int, m: int) -> None:
        if self.n_rows + n > len(self.rows_f):
            size = max(2 * len(self.rows_f), self.n_rows + n)
            self.rows_f, self.rows_i = _grown(self.rows_f, size), _grown(self.rows_i, size)
        if self.n_ops + m > len(self.ops_i):
            per_row = m / max(n, 1) if not len(self.ops_i) else 0.0  # the first batch's member I/Os per host I/O
            size = max(2 * len(self.ops_i), self.n_ops + m, int(1.25 * per_row * len(self.rows_f)))
            self.ops_i, self.ops_f = _grown(self.ops_i, size), _grown(self.ops_f, size)

    def compact(self, slot_rows: np.ndarray) -> None:
        """Drop the rows (and their member I/Os) before the first one a slot runs or a job has yet
        to issue: rows and member I/Os are appended in the same order, so both are prefixes."""
        waiting = self.job_next[self.job_next < self.job_end]  # one pass in NumPy: called with 65,536 jobs
        first = min(int(slot_rows.min()) if slot_rows.size else self.n_rows,
                    int(waiting.min()) if waiting.size else self.n_rows)
        if first < len(self.rows_f) // 2:
            return
        first_op = int(self.rows_i[first, k.R_LO]) if first < self.n_rows else self.n_ops
        self.rows_f[:self.n_rows - first] = self.rows_f[first:self.n_rows]
        self.rows_i[:self.n_rows - first] = self.rows_i[first:self.n_rows]
        self.rows_i[:self.n_rows - first, k.R_LO:k.R_HI + 1] -= first_op
        self.ops_i[:self.n_ops - first_op] = self.ops_i[first_op:self.n_ops]
        self.ops_f[:self.n_ops - first_op] = self.ops_f[first_op:self.n_ops]
        self.n_rows, self.n_ops = self.n_rows - first, self.n_ops - first_op
        self.job_next -= first
        self.job_end -= first
        slot_rows -= first


@njit(cache=True, _nrt=False)
def _fill_rows(rows_f, rows_i, ops_i, ops_f, r, o, columns, is_write, op_start, drive, op_write, phase, die_s, link_s,
               pieces):
    """``Rows.append``'s copy, compiled: the batch's demand ``columns`` (``rows.Demand``'s order)
    into ``rows_f`` from row ``r``, its direction, member I/O range and gating into ``rows_i``
    (``HostIoBatch.reads_gate_writes``), its member I/Os into ``ops_i``/``ops_f`` from ``o``;
    no NumPy temporaries (a column_stack per column group cost more than the events)."""
    n, m = is_write.size, drive.size
    j = 0
    for col in literal_unroll(columns):
        for i in range(n):
            rows_f[r + i, j] = col[i]
        j += 1
    for i in range(n):
        lo, hi = op_start[i], op_start[i + 1]
        rows_i[r + i, k.R_WRITE] = 1 if is_write[i] else 0
        rows_i[r + i, k.R_LO], rows_i[r + i, k.R_HI] = lo + o, hi + o
        rows_i[r + i, k.R_GATED] = 1 if m and hi > lo and phase[min(lo, m - 1)] == 0 else 0
    for i in range(m):
        ops_i[o + i, k.O_DRIVE], ops_i[o + i, k.O_WRITE], ops_i[o + i, k.O_PHASE] = drive[i], op_write[i], phase[i]
        ops_i[o + i, k.O_PIECES] = pieces[i]
        ops_f[o + i, k.O_DIE], ops_f[o + i, k.O_LINK] = die_s[i], link_s[i]


def compile_fill_rows() -> None:
    """``_fill_rows`` compiled for the types every ``Rows.append`` passes, on a batch of no host
    I/O: ``beside`` compiles it after the kernel, while a first run's process compiles the rest
    (the argument types are a ``HostIoBatch``'s: float64 demands, bool directions, int64 member
    I/O starts, drives and pieces, int8 phases)."""
    rows, none = Rows.empty(1, 1), np.zeros(0)
    _fill_rows(rows.rows_f, rows.rows_i, rows.ops_i, rows.ops_f, 0, 0, (none,) * k.ROWS_F, np.zeros(0, np.bool_),
               np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.bool_), np.zeros(0, np.int8), none, none,
               np.zeros(0, np.int64))


def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((size,) + a.shape[1:], a.dtype)
    out[:len(a)] = a
    return out


def _server_groups(servers: ArrayServers) -> tuple[dict[str, list[int]], np.ndarray, np.ndarray]:
    """Each server of ``servers.by_key`` as a kernel group (the cores first, then the fixed groups,
    then the drives' NAND, links up and links down, then the rebuild thread): group indices by key,
    offsets and counts."""
    order = ["cores", "lock", "engine", "device_bw", "device_down", "device_up", "memory", "nand", "link_up", "link_down"]
    order += [key for key in servers.by_key if key not in order]  # the rebuild thread, while rebuilding
    groups: dict[str, list[int]] = {}
    counts = []
    for key in order:
        groups[key] = list(range(len(counts), len(counts) + len(servers.by_key[key])))
        counts += [len(s.heap) if s.heap is not None else 1 for s in servers.by_key[key]]
    cnt = np.array(counts, np.int64)
    off = np.concatenate(([0], np.cumsum(cnt)[:-1])).astype(np.int64)
    return groups, off, cnt


@dataclass
class KernelRun:
    """What the run leaves for ``measure.event_result`` (the ``slots.Run`` fields it reads)."""

    warm_s: float
    completed: int
    done_at: np.ndarray
    latency: np.ndarray
    writes: np.ndarray
    servers: object
    hist: np.ndarray | None = None  # (2, hdr.BUCKETS): the window's latencies, reads then writes
    grid: np.ndarray | None = None  # the window's completions by time, bins of ``grid_s`` from warm_s
    grid_s: float = 0.0
    capped: bool = False  # the samples were full: counts and latencies from ``hist`` and ``grid``


class _Busy:
    __slots__ = ("busy",)

    def __init__(self, busy: float):
        self.busy = busy


class _BusyServers:
    """``ArrayServers.by_key`` as the measurement reads it: each server's busy seconds."""

    def __init__(self, groups: dict[str, list[int]], busy: np.ndarray):
        self.by_key = {key: [_Busy(float(busy[g])) for g in ids] for key, ids in groups.items()}

    def busy_s(self) -> dict[str, list[float]]:
        return {key: [s.busy for s in group] for key, group in self.by_key.items()}




@dataclass(frozen=True)
class Precision:
    """How long a run goes on past its planned window: until the 95% confidence interval of each
    direction's p99.99 latency is within ``relative`` of it (half-width over the estimate), or
    until ``max_wall_s`` of wall time, or ``max_records`` measured host I/Os, whichever is first.
    At most ``max_samples`` exact samples are kept; the rest count in the latency histograms.
    Out of range: a one-line InputError naming the field (as ``nvsim run --precision`` refuses)."""

    relative: float = 0.1
    max_wall_s: float = 1.0
    max_records: int = 20_000_000
    max_samples: int = SAMPLES_MAX

    def __post_init__(self) -> None:
        if not isinstance(self.relative, (int, float)) or not PRECISION_MIN <= self.relative <= PRECISION_MAX:
            raise InputError("precision.relative", f"a fraction from {format_number(PRECISION_MIN)} to {format_number(PRECISION_MAX)} (e.g. 0.1), "
                                                   f"got {self.relative!r}")
        if not isinstance(self.max_wall_s, (int, float)) or not self.max_wall_s >= 0:  # NaN fails; inf: no wall limit
            raise InputError("precision.max_wall_s", f"0 or more seconds, got {self.max_wall_s!r}")
        for name in ("max_records", "max_samples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"precision.{name}", f"a whole number of at least 1, got {value!r}")


@dataclass
class KernelRebuild:
    """A rebuild beside the foreground: its plan and progress (``rebuild.RebuildProgress``), how
    to plan its next requests, and whether the run goes to the rebuild's end."""

    progress: object
    plan: object  # () -> HostIoBatch of the next requests
    until_rebuilt: bool


def run_kernel(system, jobs: HostJobs, servers: ArrayServers, warm_s: float, end_s: float,
               precision: Precision | None = None, progress=None,
               rebuild: KernelRebuild | None = None, windows: int = 10) -> tuple[KernelRun, dict, float]:
    """The foreground's slots (and a rebuild's) on the kernel from time 0 to ``end_s`` (later if
    ``precision`` asks for more; sooner when a whole rebuild is done), moved on window by window by
    SimPy's timeline (``timeline``: the ramp, ``windows`` parts of the window, the extensions): the
    run's counts and records, every server's busy seconds at ``warm_s`` by key
    (``measure.busy_at``), and when the run ended. ``progress(done, total)``: called as the
    simulated time advances. The rebuild's progress object is updated with what the run did."""
    stepper = KernelStepper(system, jobs, servers, warm_s, end_s, precision, progress, rebuild)
    timeline.drive(stepper, warm_s, math.inf if stepper.until else end_s, windows)
    return stepper.finish()


class KernelStepper:
    """One run's kernel state (``_kernel_state``), moved on to a time at a time (``advance``),
    planning rows and growing the sample arrays as the kernel asks."""

    def __init__(self, system, jobs: HostJobs, servers: ArrayServers, warm_s: float, end_s: float,
                 precision: Precision | None, progress, rebuild: KernelRebuild | None):
        self.started = time.perf_counter()
        self.system, self.jobs, self.rebuild, self.warm_s = system, jobs, rebuild, warm_s
        self.precision, self.progress = precision, progress
        self.until = rebuild is not None and rebuild.until_rebuilt
        self.groups, self.H, self.S, self.Q, self.st, self.sf, self.SL, self.RB = \
            _kernel_state(system, jobs, servers, warm_s, end_s, rebuild)
        self.rows = Rows.empty(system.workload.numjobs + 1, jobs.batch_ios)
        self.cap = precision.max_samples if precision is not None else SAMPLES_MAX
        room, slots = min(RECORDS_START, self.cap + 1), len(self.SL[0])  # one place left when it asks for more
        self.records = [np.zeros(room), np.zeros(room), np.zeros(room, np.int64), np.zeros((2, hdr.BUCKETS), np.int64),
                        np.zeros(GRID_BINS, np.int64), np.zeros((slots + 1, 2)), np.zeros(slots + 1, np.int64)]
        self.busy_warm = np.zeros(len(self.S[2]))
        self.ended = False

    def advance(self, to_s: float) -> None:
        """Every event before ``to_s`` (the kernel's window end), planning rows as jobs run out."""
        sf, st, numjobs = self.sf, self.st, self.system.workload.numjobs
        sf[k.F_END] = to_s
        while True:
            code = self._run()
            rows = self.rows
            if code == k.NEED_ROWS:
                job = int(st[k.S_NEED_JOB])
                b, pieces = (self.rebuild.plan(), None) if job == numjobs else self.jobs.batch(job)
                rows.append(job, b, pieces, self.SL[3])
                if self.progress is not None:
                    self.progress(sf[k.F_NOW], sf[k.F_END])
            elif code == k.NEED_RECORDS:
                self.records = _more_records(self.records, st, self.cap)
            else:
                break
        self.ended = sf[k.F_END] < to_s or self.st[k.S_HEAP_N] == 0  # a whole rebuild's end, or nothing left
        if self.progress is not None:
            self.progress(min(sf[k.F_NOW], sf[k.F_END]), sf[k.F_END])

    def _run(self) -> int:
        """The kernel on this state, from where it stopped: END, NEED_ROWS or NEED_RECORDS."""
        rows = self.rows
        R = (rows.rows_f, rows.rows_i, rows.ops_i, rows.ops_f, rows.job_next, rows.job_end)
        return k.run(self.H, self.S, self.Q, self.st, self.sf, self.SL, R, tuple(self.records), self.RB, self.busy_warm)

    def first_call(self) -> int:
        """The kernel's first call on this state, as a run makes it (``beside``: its compilation):
        with no job's rows planned yet it returns NEED_ROWS at once."""
        return self._run()

    def extension(self) -> float | None:
        """The window's new end if the precision asks for more (``_extend``), else None."""
        if self.precision is None or self.until:
            return None
        return _extend(self.sf, self.st, self.records, self.precision, time.perf_counter() - self.started)

    def finish(self) -> tuple[KernelRun, dict, float]:
        """``run_kernel``'s answer."""
        st, sf, records, groups = self.st, self.sf, self.records, self.groups
        n = int(st[k.S_RECORDED])
        run = KernelRun(self.warm_s, int(st[k.S_COMPLETED]), records[0][:n].copy(), records[1][:n].copy(),
                        records[2][:n].astype(bool), _BusyServers(groups, self.S[3]), records[3], records[4],
                        float(sf[k.F_GRID_S]), bool(st[k.S_CAPPED]))
        at_warm = _BusyServers(groups, self.busy_warm).busy_s() if st[k.S_WARMED] else {}
        if self.rebuild is not None:
            _rebuild_back(self.rebuild.progress, self.RB[0])
        return run, at_warm, float(sf[k.F_END]) if math.isfinite(sf[k.F_END]) else float(sf[k.F_NOW])


def _kernel_state(system, jobs: HostJobs, servers: ArrayServers, warm_s: float, end_s: float,
                  rebuild: KernelRebuild | None) -> tuple:
    """The kernel's arrays at time 0 (``kernel``'s docstring): server groups by key, the heap (its
    first events in), servers, core queues, scalars, slots and the rebuild's state."""
    w = system.workload
    groups, off, cnt = _server_groups(servers)
    # servers' free times (each group's in rising order), first places, counts, busy time, pools'
    # thread times, and the places a member I/O's pieces free (``kernel.nand_pieces``: one per unit)
    S = (np.zeros(int(cnt.sum())), off, cnt, np.zeros(len(cnt)), np.zeros(len(cnt)), np.zeros(int(cnt.max())))
    fg = w.numjobs * w.iodepth
    rb_slots = rebuild.progress.requests_in_flight if rebuild is not None else 0
    slots = fg + rb_slots
    slot_job = np.concatenate((np.repeat(np.arange(w.numjobs, dtype=np.int64), w.iodepth), np.full(rb_slots, w.numjobs)))
    slot_core = np.array([system.job_cpu[j] for j in slot_job[:fg]] + [groups.get("rebuild_thread", [0])[0]] * rb_slots,
                         np.int64)
    SL = (slot_job, slot_core, np.zeros(slots), np.zeros(slots, np.int64), np.zeros(slots), np.zeros(slots))
    groups_n = len(cnt)
    wq, ring = _core_rings(slot_core, groups_n)
    Q = (wq, np.zeros(groups_n, np.int64), np.zeros(groups_n, np.int64), np.zeros(groups_n, np.int64), ring)
    cap = 4 * slots + groups_n + 16
    H = (np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64))
    st = np.zeros(k.ST_SIZE, np.int64)
    st[k.S_CORES], st[k.S_DRIVES], st[k.S_RB_FIRST] = len(groups["cores"]), system.array.drives, fg
    until = rebuild is not None and rebuild.until_rebuilt
    st[k.S_UNTIL] = int(until)
    st[k.S_BARRIER], st[k.S_INFLIGHT] = int(jobs.barrier), max(1, rb_slots)
    sf = np.array([0.0, warm_s, math.inf if until else end_s, servers.read_fixed_s, servers.write_fixed_s,
                   servers.host_wake_s, LARGE_IO_S, max(end_s - warm_s, 1e-9) / GRID_BINS, servers.destage_slack_s, 0.0])
    RB = (_rebuild_state(rebuild), np.zeros(max(rb_slots, 1), np.int64), np.zeros(slots + 1, np.int64),
          np.zeros((slots, 4), np.int64), np.zeros(slots), np.zeros(slots + 1, np.int64))
    _initial_events(st, H, fg, rb_slots, jobs.barrier, until, warm_s, end_s)
    return groups, H, S, Q, st, sf, SL, RB


def _core_rings(slot_core: np.ndarray, groups_n: int) -> tuple[np.ndarray, np.ndarray]:
    """The cores' waiting slots (``kernel.enqueue``): one flat array, and per group its first place
    and its size, as many places as slots run on it (a slot waits at most once at a time), so
    the rings take one place per slot (a ring of every slot per group took 462 x 65,537 places,
    242 MB, for 65,536 jobs on 384 CPUs)."""
    size = np.maximum(np.bincount(slot_core, minlength=groups_n), 1).astype(np.int64)
    ring = np.stack((np.concatenate(([0], np.cumsum(size)[:-1])), size), axis=1).astype(np.int64)
    return np.zeros(int(size.sum()), np.int64), ring


def _more_records(records: list[np.ndarray], st: np.ndarray, cap: int) -> list[np.ndarray]:
    """The sample arrays doubled, up to ``cap`` samples; at the cap the kernel stops keeping them."""
    size = len(records[0])
    if size >= cap + 1:
        st[k.S_CAPPED] = 1
        return records
    size = min(2 * size, cap + 1)
    return [_grown(r, size) for r in records[:3]] + records[3:]


def _initial_events(st, H, fg: int, rb_slots: int, barrier: bool, until: bool, warm_s: float, end_s: float) -> None:
    """The events SimPy starts with, in its order: under md RAID10's barrier the resync cycle's and
    ``busy_at``'s processes start first (SimPy's URGENT initialisation), then the foreground slots'
    first issues; else the slots' (foreground, then the rebuild's) and the warm-up's end; a run to
    the rebuild's end also has its time limit (scheduled before anything the processes create)."""
    if barrier:
        _append_events(st, H, 0.0, np.zeros(2, np.int64), np.array([k.RESYNC, k.BUSY_START]))
    slots = fg + (0 if barrier else rb_slots)
    _append_events(st, H, 0.0, np.arange(slots, dtype=np.int64), np.full(slots, k.ISSUE))
    if until:  # the run's time limit, as SimPy's any_of with the rebuild's end
        _append_events(st, H, end_s, np.zeros(1, np.int64), np.array([k.STOP]))
    if not barrier and until and warm_s < end_s:  # it sorts before the time limit: sifted up
        k.push(st, *H, warm_s, 0, k.WARM)
    elif not barrier:
        _append_events(st, H, warm_s, np.zeros(1, np.int64), np.array([k.WARM]))


def _append_events(st, H, t: float, payloads: np.ndarray, kinds: np.ndarray) -> None:
    """``k.push`` of events at ``t`` in order, where ``t`` is at or after every event on the heap:
    each then stays where it is appended (its parent is earlier, or as early with a smaller
    sequence), so the heap's arrays are those the pushes one by one leave (a Python call per slot
    cost 8 ms a run with 8,192 slots)."""
    ht, hs, hp, hk = H
    i, seq, n = int(st[k.S_HEAP_N]), int(st[k.S_SEQ]), len(payloads)
    ht[i:i + n], hs[i:i + n], hp[i:i + n], hk[i:i + n] = t, np.arange(seq, seq + n), payloads, kinds
    st[k.S_HEAP_N], st[k.S_SEQ] = i + n, seq + n


def _rebuild_state(rebuild: KernelRebuild | None) -> np.ndarray:
    """The kernel's ``rb`` array from a rebuild's plan (nan where the engine has no such limit)."""
    if rebuild is None:
        return np.array([0.0, 0.0, 0.0, 0.0, 1.0, 1.0, np.nan, np.nan, 0.0, np.nan])
    p = rebuild.progress
    return np.array([p.issued_bytes, p.done_bytes, p.window_bytes, p.span_bytes, float(p.step_bytes),
                     p.cap_bytes_per_s, np.nan if p.floor_bytes_per_s is None else p.floor_bytes_per_s,
                     np.nan if p.drain_window_bytes is None else p.drain_window_bytes, p.next_check_bytes, np.nan])


def _rebuild_back(progress, rb: np.ndarray) -> None:
    """What the run did to the rebuild, onto its progress object."""
    progress.issued_bytes, progress.done_bytes = float(rb[k.RB_ISSUED]), float(rb[k.RB_DONE])
    progress.window_bytes, progress.next_check_bytes = float(rb[k.RB_WINDOW]), float(rb[k.RB_NEXT_CHECK])
    progress.finished_s = None if np.isnan(rb[k.RB_FINISHED]) else float(rb[k.RB_FINISHED])


def _worst_tail(records: list[np.ndarray], st: np.ndarray) -> float:
    """The wider of the two directions' p99.99 intervals over their estimates: from the exact
    samples while they are all kept, else from the histograms."""
    if st[k.S_CAPPED]:
        hist = records[3]
        return max(hdr.tail_relative_half_width(hist[d], TAIL_QUANTILE) for d in (0, 1) if hist[d].any())
    n = int(st[k.S_RECORDED])
    latency, writes = records[1][:n], records[2][:n].astype(bool)
    return max(tail_relative_half_width(latency[mask]) for mask in (writes, ~writes) if mask.any())


def _extend(sf: np.ndarray, st: np.ndarray, records: list[np.ndarray], precision: Precision,
            wall_s: float) -> float | None:
    """At the window's end: its new end if a direction's p99.99 is not yet known to ``precision``
    and the wall-time and record budgets allow (None: the run ends), by the samples the interval
    needs (its width falls as one over the square root of their number), at the rate the window
    measured."""
    n = int(records[3].sum()) + int(st[k.S_LATE_N])  # every completion in the window since the ramp
    if n == 0 or wall_s >= precision.max_wall_s or n >= precision.max_records:
        return None
    worst = _worst_tail(records, st)
    if worst <= precision.relative:
        return None
    factor = 4.0 if math.isinf(worst) else min(4.0, (worst / precision.relative) ** 2)
    by_wall = n * (precision.max_wall_s / wall_s - 1.0) if wall_s > 0 else n * factor
    more = max(1.0, min(n * (factor - 1.0), by_wall, precision.max_records - n))
    window_s = sf[k.F_END] - sf[k.F_WARM]
    return sf[k.F_END] + window_s * more / n
