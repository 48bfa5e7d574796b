"""What a host I/O, or a rebuild request, asks of a built array (``ArrayModel``): pure functions.

``host_io_batch`` plans host I/Os into member I/Os (the stripe core's planner; a sequential write
stream the engine's stripe cache sees whole stripes of is planned stripe by stripe), prices them on
the engine (its CPU, lock, own server, card link and bandwidth) and on the drives (NAND pool and
link time), and returns the per-host-I/O demands as a ``HostIoBatch``; ``rebuild_batch`` does the
same for rebuild requests. The event simulator books these demands, the fluid solvers sum them
(the resources they load are declared in ``nvsim.fabric``). Plans and engine costs are remembered
in a ``Memo`` (a sweep plans the same geometry and sample many times).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numba as nb
import numpy as np

from ..numba_cache import INNER
from .. import fabric
from ..engines.base import EngineWork
from ..engines.rebuild_protocol import RebuildProtocol
from ..raid import parity_members
from ..stripe.layout import _data_member, _pq_of_stripe, map_logical_copies, unmap_member
from ..stripe.planner import FULL_STRIPE_WRITE, MemberIOPlan, plan_ios
from ..stripe.positions import LEVELS, PositionPlans, period_bytes, plans_by_position
from ..ssd.latency import draw_die_s, mean_die_s, programming_share
from .drive import UplinkTiming
from .memo import MEMO, Memo
from .model import ArrayModel, strips_spanned

_PER_MEMBER_IO = ("host_index", "member", "member_offset_bytes", "length_bytes", "is_write", "phase")


def member_io_starts(host_index: np.ndarray, n: int) -> np.ndarray:
    """Where each of ``n`` host I/Os' member I/Os start (grouped by host I/O), and the end: n + 1."""
    op_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(host_index, minlength=n)[:n], out=op_start[1:])
    return op_start


def phase_runs(phase: np.ndarray, op_start: np.ndarray) -> np.ndarray:
    """Index of the first member I/O of each run of one host I/O's one phase (member I/Os are
    grouped by host I/O in phase order): the runs whose slowest member sets the unloaded latency."""
    return _phase_runs(phase, op_start)


@nb.njit(nogil=True, cache=True)
def _phase_runs(phase, op_start):
    """``phase_runs`` in one pass (a batch's dozen NumPy calls cost more than its work)."""
    out = np.empty(phase.size, np.int64)
    count = 0
    for host in range(op_start.size - 1):
        for i in range(op_start[host], op_start[host + 1]):
            if i == op_start[host] or phase[i] != phase[i - 1]:
                out[count] = i
                count += 1
    return out[:count]


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
    op_pieces: np.ndarray  # int64: NAND units each member I/O occupies at once (``DriveTiming.pieces_of``)
    op_runs: np.ndarray | None = None  # first member I/O of each (host I/O, phase) run (see ``phase_runs``)
    _totals: dict | None = None
    nand_write_share: float | None = None  # share of NAND time programming the batch was priced with
    stripe_heads: np.ndarray | None = None  # per host I/O: the engine's stripe-cache entries it holds (None: none)
    ack_s: np.ndarray | None = None  # per host I/O: engine time of ``pre_s`` before a write-back cache acknowledges it,
    # the rest of its work (engine and member I/Os) its destage; 0: it waits for its member I/Os (``EngineWork.ack_s``)


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

    def acked(self) -> np.ndarray:
        """Host I/Os a write-back cache acknowledges before their member I/Os (``ack_s`` > 0)."""
        return np.zeros(len(self), dtype=bool) if self.ack_s is None else self.ack_s > 0


HOST_FIELDS = ("submit_s", "complete_s", "lock_s", "pre_s", "mid_s", "device_bw_s", "device_down_s", "device_up_s",
               "memory_s", "is_write")
OP_FIELDS = ("op_drive", "op_is_write", "op_phase", "op_die_s", "op_link_s", "op_bytes", "op_pieces")


def interleave(first: HostIoBatch, first_at: np.ndarray, second: HostIoBatch, second_at: np.ndarray) -> HostIoBatch:
    """One batch of the host I/Os of ``first`` and ``second`` (of the same job), each at its place
    (``first_at``, ``second_at``: disjoint positions, together 0..n-1), their member I/Os grouped by
    host I/O in that order: a batch whose I/Os were priced in two parts (the rebuilt part of a member
    being rebuilt, ``ArraySystem.batch``)."""
    n = len(first) + len(second)
    out = {}
    for name in HOST_FIELDS:
        a, b = getattr(first, name), getattr(second, name)
        column = np.empty(n, dtype=np.result_type(a, b))
        column[first_at], column[second_at] = a, b
        out[name] = column
    counts = np.empty(n, dtype=np.int64)
    counts[first_at], counts[second_at] = np.diff(first.op_start), np.diff(second.op_start)
    source = np.empty(n, dtype=np.int64)  # where each host I/O's member I/Os start in first's then second's
    source[first_at], source[second_at] = first.op_start[:-1], second.op_start[:-1] + first.op_start[-1]
    op_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    take = np.repeat(source - op_start[:-1], counts) + np.arange(int(op_start[-1]), dtype=np.int64)
    for name in OP_FIELDS:
        out[name] = np.concatenate([getattr(first, name), getattr(second, name)])[take]
    return HostIoBatch(job=first.job, op_start=op_start, op_runs=phase_runs(out["op_phase"], op_start),
                       nand_write_share=first.nand_write_share, stripe_heads=_merged(first, first_at, second, second_at,
                                                                                     "stripe_heads"),
                       ack_s=_merged(first, first_at, second, second_at, "ack_s"), **out)


def _merged(first: HostIoBatch, first_at: np.ndarray, second: HostIoBatch, second_at: np.ndarray,
            name: str) -> np.ndarray | None:
    """``interleave``'s column ``name`` of the optional per-host-I/O ones (None where neither part has it)."""
    parts = ((first, first_at), (second, second_at))
    if all(getattr(part, name) is None for part, _at in parts):
        return None
    out = np.zeros(len(first) + len(second))
    for part, at in parts:
        if getattr(part, name) is not None:
            out[at] = getattr(part, name)
    return out


def nand_write_share(die_s: np.ndarray, is_write: np.ndarray, suspend_unit_s: float = 0.0) -> float:
    """Share of NAND time the member I/Os spend programming (0 with no NAND time), each read paying
    ``suspend_unit_s`` when it finds its die programming (``nvsim.ssd.latency.programming_share``)."""
    writes = is_write.astype(bool)
    t_w = float(die_s[writes].sum())
    return programming_share(float(die_s.sum()) - t_w, t_w, int(np.count_nonzero(~writes)), suspend_unit_s)


def plan_host_ios(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray, memo: Memo = MEMO,
                  write_key: int | None = None) -> tuple[MemberIOPlan, np.ndarray, np.ndarray, np.ndarray]:
    """Member I/Os of a batch in phase order, the chunks of each host I/O, where each host
    I/O's member I/Os start and its phase runs (cached: a sweep plans the same geometry and
    sample many times; ``write_key``: ``hash(is_write.tobytes())``, when already known)."""
    first, shift, chunks, op_start, runs = _planned_batch(model, job, offsets, is_write, memo, write_key)
    return _moved_on(first, shift), chunks, op_start, runs


def _planned_batch(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray, memo: Memo = MEMO,
                   write_key: int | None = None) -> tuple[MemberIOPlan, int, np.ndarray, np.ndarray, np.ndarray]:
    """``plan_host_ios`` as planned in the layout's first periods: the plan of the batch moved
    back by its whole periods (``_whole_periods``), the member bytes its member I/Os move on by,
    and the rest. Batches at the same places of the period share one plan (remembered): each job
    of a sequential stream starts at its own offset, and a few dozen places recur."""
    turns = _whole_periods(model, offsets)
    period, member_period = period_bytes(model.geometry) if turns else (0, 0)
    plan, chunks, op_start, runs = _remembered_plan(model, job, offsets - turns * period if turns else offsets,
                                                    is_write, memo, write_key)
    return plan, turns * member_period, chunks, op_start, runs


def _remembered_plan(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray, memo: Memo,
                     write_key: int | None) -> tuple[MemberIOPlan, np.ndarray, np.ndarray, np.ndarray]:
    """``_ordered_plan``, remembered for arrays (not JBOD: its member is the job's drive)."""
    if model.jbod:
        return _ordered_plan(model, job, offsets, is_write, memo)
    g = model.geometry
    # not the member size: md's layouts repeat every few stripes, so the member I/Os of the
    # same offsets are the same on any drive size or namespace (a sweep's common case)
    # the engine's stripe cache too: with one, a sequential write stream is planned stripe by
    # stripe (``_coalesces``); without, write by write
    key = (g.level, g.n_members, g.strip_bytes, g.layout, g.copies, model.engine.stripe_cache,
           model.degraded_path.write_coalesces,
           model.workload.bs, model.workload.iodepth, model.workload.is_random, model.failed_members,
           read_stream(model, job), hash(offsets.tobytes()), hash(is_write.tobytes()) if write_key is None else write_key, len(offsets))
    return memo.recall(memo.plans, key, _ordered_plan, model, job, offsets, is_write, memo, weigh=_plan_weight)


def _plan_weight(planned: tuple) -> int:
    """Member I/Os an ordered plan holds (``Memo.recall``'s bound on what it remembers)."""
    return len(planned[0].host_index)


def _whole_periods(model: ArrayModel, offsets: np.ndarray) -> int:
    """Whole periods of the layout below the batch's lowest offset. RAID0's and RAID5/6's layouts
    repeat (``stripe.positions``): host I/Os so many periods on have the member I/Os of those in
    the first periods, so many member periods on. 0 where the layout does not repeat so (RAID1/10:
    their read balance), for JBOD, and for a batch off the array (the planner refuses it)."""
    g = model.geometry
    if model.jbod or g.level not in LEVELS or not len(offsets):
        return 0
    low, high = int(offsets.min()), int(offsets.max())
    if low < 0 or high + model.workload.bs > g.capacity_bytes:
        return 0
    return low // period_bytes(g)[0]


def _moved_on(plan: MemberIOPlan, shift: int) -> MemberIOPlan:
    """``plan`` with its member I/Os ``shift`` member bytes on (the same arrays otherwise)."""
    return replace(plan, member_offset_bytes=plan.member_offset_bytes + shift) if shift else plan


def _ordered_plan(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray, memo: Memo = MEMO,
                  ) -> tuple[MemberIOPlan, np.ndarray, np.ndarray, np.ndarray]:
    """``plan_host_ios`` without the memo: the planner's member I/Os grouped by host I/O in phase order."""
    plan, chunks = _plan_uncached(model, job, offsets, is_write, memo)
    plan = _phase_ordered(plan)
    op_start = member_io_starts(plan.host_index, len(offsets))
    return plan, chunks, op_start, phase_runs(plan.phase, op_start)


def _phase_ordered(plan: MemberIOPlan) -> MemberIOPlan:
    """``plan``'s member I/Os of each host I/O in phase order (reads that gate the writes first),
    each host I/O's in their order otherwise (a stable sort)."""
    if _in_phase_order(plan.host_index, plan.phase):
        return plan
    order = np.lexsort((plan.phase, plan.host_index))
    return MemberIOPlan(**{f: (getattr(plan, f)[order] if f in _PER_MEMBER_IO else getattr(plan, f))
                           for f in plan.__dataclass_fields__})


@nb.njit(nogil=True, cache=True)
def _in_phase_order(host, phase):
    """Whether member I/Os are grouped by host I/O in phase order already (``np.lexsort((phase,
    host))`` would be the identity: a stable sort leaves sorted keys where they are)."""
    for i in range(1, host.size):
        if host[i] < host[i - 1] or (host[i] == host[i - 1] and phase[i] < phase[i - 1]):
            return False
    return True


def _plan_uncached(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray,
                   memo: Memo = MEMO) -> tuple[MemberIOPlan, np.ndarray]:
    bs = model.workload.bs
    n = len(offsets)
    if model.jbod:
        drive = job % model.array.drives
        plan = MemberIOPlan(
            host_index=np.arange(n, dtype=np.int64), member=np.full(n, drive, dtype=np.int32),
            member_offset_bytes=offsets, length_bytes=np.full(n, bs, dtype=np.int64), is_write=is_write.copy(),
            phase=np.ones(n, dtype=np.int8), mode=np.where(is_write, 6, 0).astype(np.int8),
            parity_bytes_computed=np.zeros(n, dtype=np.int64), stripes_touched=np.ones(n, dtype=np.int64))
        return plan, np.ones(n)
    if _planned_by_place(model, is_write):  # the rule ``_engine_work`` prices by place by, too
        plan = _places(model, memo).plan(is_write, offsets)
    elif _coalesces(model, is_write):
        plan = _plan_coalesced(model, offsets, closed_form=not model.failed_members)
    elif _coalesces_writes_of_mix(model, is_write):
        plan = _plan_mixed(model, offsets, is_write)
    else:  # the planner's member I/Os of the whole batch
        plan = plan_ios(model.geometry, is_write, offsets, np.full(n, bs, dtype=np.int64), tuple(model.failed_members),
                        read_stream(model, job))
    return plan, strips_spanned(offsets, bs, model.array.strip_bytes)


def read_stream(model: ArrayModel, job: int) -> int:
    """The read stream the planner keeps job ``job``'s RAID1 reads on (``plan_ios(..., read_stream)``),
    or -1: reads rotate over the mirrors. md's ``read_balance`` keeps a sequential read on the mirror
    whose last read it continues (``next_seq_sect``), so a sequential job's reads stay on one mirror
    and several jobs' streams each take their own -- while there are no more streams than surviving
    mirrors. With more, streams share mirrors and each one's reads interleave with another's there,
    so a read rarely continues the last read sent to a mirror and md balances them by requests
    pending (nvsim: rotating), as it does random reads. Only where the engine runs md's raid1
    (``Engine.reads_follow_streams``)."""
    w = model.workload
    if model.array.level != 1 or w.is_random or not model.engine.reads_follow_streams:
        return -1
    if w.numjobs > model.array.drives - len(model.failed_members):
        return -1
    return int(job)


POSITION_TABLES = 64
"""Tables of plans by place (``stripe.positions``) the memo keeps: one per geometry, size and failed set."""


def _places(model: ArrayModel, memo: Memo) -> PositionPlans | None:
    """The array's table of plans by place for its host I/O size (``stripe.positions``: each place
    in the layout's period planned once, the host I/Os planned one by one), or None where the level
    and size are not planned so (``plans_by_position``)."""
    g, bs, failed = model.geometry, model.workload.bs, tuple(model.failed_members)
    if not plans_by_position(g, bs):
        return None
    key = (g.level, g.layout_code, g.n_members, g.strip_bytes, g.capacity_bytes, bs, failed)
    return memo.recall(memo.positions, key, PositionPlans, g, bs, failed, limit=POSITION_TABLES)


def _planned_by_place(model: ArrayModel, is_write: np.ndarray) -> bool:
    """Whether a batch is planned from the table of plans by place (``_places``): an array (not
    JBOD) whose level and size allow it, and a batch the stripe cache does not gather into whole
    stripes. ``_plan_uncached`` plans by it and ``_engine_work`` prices by it."""
    return (not model.jbod and plans_by_position(model.geometry, model.workload.bs)
            and not _coalesces(model, is_write) and not _coalesces_writes_of_mix(model, is_write))


def _coalesces(model: ArrayModel, is_write: np.ndarray) -> bool:
    """Whether a sequential write stream reaches the stripe cache gathered (``_gathered_bytes``).

    A job's consecutive writes are in flight at once (iodepth), so the pages they put in the same
    stripe rows are in the stripe cache together before a row is handled (md's stripe cache
    delays pre-reads for exactly this; write-back caches do the same): with a stripe's worth of the
    stream in flight, the stream is planned stripe by stripe, as the cache sees it; with less, in
    windows of what is in flight, each stripe cut at them (its first rows of the window gathered
    and written with the reads their missing pages need, the rest with theirs). An engine without
    a stripe cache (lockless CPU RAID) handles each write as it comes. With a member missing only
    an engine whose write-back cache gathers whole stripes regardless (the degraded path's
    ``write_coalesces``: a RAID card) still writes them whole (the missing member's share is
    computed, not written).
    """
    return bool(is_write.all()) and _gathered_bytes(model, float(model.workload.iodepth)) > 0


def _coalesces_writes_of_mix(model: ArrayModel, is_write: np.ndarray) -> bool:
    """Whether a mixed sequential stream's writes (a stream of their own, ``HostStream``) reach the
    stripe cache gathered: as ``_coalesces``, with the writes' share of the I/Os in flight."""
    return bool(is_write.any()) and not bool(is_write.all()) and _gathered_bytes(model, _writes_in_flight(model, is_write)) > 0


def _writes_in_flight(model: ArrayModel, is_write: np.ndarray) -> float:
    """A job's writes in flight at once: its depth, or its writes' share of it in a mix."""
    return model.workload.iodepth * (1.0 if bool(is_write.all()) else float(is_write.mean()))


def _gathered_bytes(model: ArrayModel, writes_in_flight: float) -> int:
    """Bytes of a sequential write stream the engine's stripe cache holds at once, in whole
    chunks: the writes in flight, at most a stripe (RAID5/6 with a stripe cache, still gathering
    with a member missing); 0 where that is under two chunks, so that no row of the stripe holds
    two of the stream's pages (each write is then its own read-modify-write, as planned alone), or
    where nothing is gathered (no stripe cache, a random stream, one write in flight). Until
    2026-12-01 the cache gathered only a stripe's worth in flight, and one write short of it every
    write was its own read-modify-write: md RAID5 on 10 drives of 64 KiB chunks wrote 16 KiB at
    32 x QD32 at a RAID WAF of 2.0 (0.81 GB/s), at QD36 at 1.11 (3.11 GB/s)."""
    if model.workload.is_random or model.array.level not in (5, 6) or not model.engine.stripe_cache:
        return 0
    if model.failed_members and not model.degraded_path.write_coalesces:
        return 0
    writes, strip, stripe = int(writes_in_flight + 1e-9), model.array.strip_bytes, model.geometry.stripe_data_bytes
    if writes < 2:
        return 0
    window = min(stripe, writes * model.workload.bs // strip * strip)
    return window if window >= min(2 * strip, stripe) else 0


def _plan_mixed(model: ArrayModel, offsets: np.ndarray, is_write: np.ndarray) -> MemberIOPlan:
    """A mixed sequential stream: its writes planned as their own coalesced stream, its reads one by
    one, the two put back in the host I/Os' order."""
    writes, reads = np.flatnonzero(is_write), np.flatnonzero(~is_write)
    w_plan = _plan_coalesced(model, offsets[writes], closed_form=not model.failed_members,
                             window=_gathered_bytes(model, _writes_in_flight(model, is_write)))
    r_plan = plan_ios(model.geometry, np.zeros(len(reads), dtype=bool), offsets[reads],
                      np.full(len(reads), model.workload.bs, dtype=np.int64), model.failed_members)
    n = len(offsets)
    per_host = {}
    for name in ("mode", "parity_bytes_computed", "stripes_touched"):
        values = np.zeros(n, dtype=np.result_type(getattr(w_plan, name), getattr(r_plan, name)))
        values[writes], values[reads] = getattr(w_plan, name), getattr(r_plan, name)
        per_host[name] = values
    member = {f: np.concatenate([getattr(w_plan, f), getattr(r_plan, f)]) for f in _PER_MEMBER_IO if f != "host_index"}
    host = np.concatenate([writes[w_plan.host_index], reads[r_plan.host_index]]).astype(np.int64)
    return MemberIOPlan(host_index=host, **member, **per_host)


def _plan_coalesced(model: ArrayModel, offsets: np.ndarray, closed_form: bool = True,
                    window: int | None = None) -> MemberIOPlan:
    """Plan the stream cut at stripe boundaries, and within a stripe every ``window`` bytes (what
    the stripe cache holds at once, ``_gathered_bytes``; None: the stream's depth); member I/Os go
    to the host I/O whose bytes they hold (``closed_form``: whole stripes without the page-level
    planner, the same arrays; False for tests)."""
    starts, lens = _stream_pieces(model, offsets, window)
    fast = _plan_full_stripes(model, starts, lens, offsets) if closed_form else None
    if fast is not None:
        return fast
    plan = plan_ios(model.geometry, np.ones(len(starts), dtype=bool), starts, lens, model.failed_members)
    # a host I/O's pages on one member that are contiguous become one member I/O, as the block
    # layer merges md's per-stripe page bios (the planner does the same within one piece)
    merged_pages = _stream_pages(plan, starts, lens, offsets)
    if merged_pages is None:
        merged_pages = _merge_member_pages(_host_of_pages(plan.host_index, starts, lens, offsets), plan)
    return _coalesced_plan(offsets, model.workload.bs, starts, lens, merged_pages, plan.mode, plan.stripes_touched)


def _stream_pieces(model: ArrayModel, offsets: np.ndarray, window: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A write stream's runs of consecutive host I/Os cut at stripe boundaries, and within each
    stripe every ``window`` bytes from its start (None: what the stream's depth gathers,
    ``_gathered_bytes``; a whole stripe's window: at the boundaries only): each piece's start and
    length (int64)."""
    bs = model.workload.bs
    stripe = model.geometry.stripe_data_bytes
    if window is None:
        window = _gathered_bytes(model, float(model.workload.iodepth)) or stripe
    window = min(max(int(window), 1), stripe)
    pieces_start, pieces_len = [], []
    breaks = np.flatnonzero(np.diff(offsets) != bs) + 1  # a stream wraps at its region's end
    for first, last in zip(np.concatenate(([0], breaks)), np.concatenate((breaks, [len(offsets)]))):
        lo, hi = int(offsets[first]), int(offsets[last - 1]) + bs
        first_stripe = lo // stripe * stripe
        stripes = first_stripe + np.arange(0, -(-(hi - first_stripe) // stripe) * stripe, stripe)
        inner = (stripes[:, None] + np.arange(window, stripe, window)[None, :])  # each stripe's windows' starts,
        snapped = lo + -(-(inner - lo) // bs) * bs  # moved on to the next write's start: a window holds whole writes
        inner = snapped[snapped < stripes[:, None] + stripe]
        grid = np.unique(np.concatenate((stripes, inner)))
        cuts = np.concatenate(([lo], grid[(grid > lo) & (grid < hi)], [hi]))
        pieces_start.append(cuts[:-1])
        pieces_len.append(np.diff(cuts))
    return np.concatenate(pieces_start).astype(np.int64), np.concatenate(pieces_len).astype(np.int64)


_EMPTY_PLAN = MemberIOPlan(np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64),
                           np.zeros(0, np.bool_), np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(0, np.int64),
                           np.zeros(0, np.int64))  # what ``plan_ios`` gives for no host I/Os


def _coalesced_plan(offsets: np.ndarray, bs: int, starts: np.ndarray, lens: np.ndarray, runs: tuple[np.ndarray, ...],
                    piece_mode: np.ndarray, piece_stripes: np.ndarray) -> MemberIOPlan:
    """The merged member I/Os of a coalesced stream of host I/Os of ``bs`` bytes and, per host
    I/O, its piece's mode and its share of the pieces' stripes (``_stripe_shares``)."""
    n = len(offsets)
    h, m, o, w, ph, merged = runs
    mode, share = _host_shares(starts, lens, offsets, bs, piece_mode, piece_stripes)
    return MemberIOPlan(
        host_index=h, member=m, member_offset_bytes=o, length_bytes=merged.astype(np.int64),
        is_write=w, phase=ph, mode=mode,
        parity_bytes_computed=np.zeros(n, dtype=np.int64),  # per piece, not per host I/O: not shared out
        stripes_touched=share,
    )


def _host_shares(starts: np.ndarray, lens: np.ndarray, offsets: np.ndarray, bs: int, piece_mode: np.ndarray,
                 piece_stripes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per host I/O of ``bs`` bytes at ``offsets``: the mode of the piece it starts in and its share
    of the pieces' stripes (``_stripe_shares``)."""
    piece = np.clip(np.searchsorted(starts, offsets, side="right") - 1, 0, len(starts) - 1)
    return piece_mode[piece], _stripe_shares(starts, lens, piece_stripes.astype(np.float64), offsets, piece, bs)


@nb.njit(nogil=True, cache=True)
def _stripe_shares(starts, lens, piece_stripes, offsets, piece, bs):
    """Per host I/O of ``bs`` bytes at ``offsets`` (``piece``: the piece it starts in), its share of
    the stripes of the pieces its bytes fall in: each piece's stripes in proportion to the bytes of
    the piece it holds. A host I/O larger than a stripe holds all of every stripe it spans (a 1 MiB
    write on 88 KiB stripes: 11.6), one inside a stripe its bytes' part of it; the shares of a
    stream's host I/Os add up to its stripes. A piece's neighbour in the array belongs to the same
    run only when it starts where the piece ends."""
    share = np.zeros(offsets.size)
    for i in range(offsets.size):
        lo, hi = offsets[i], offsets[i] + bs
        p = piece[i]
        while p < starts.size:
            end = starts[p] + lens[p]
            overlap = min(hi, end) - max(lo, starts[p])
            if overlap > 0 and lens[p] > 0:
                share[i] += overlap / lens[p] * piece_stripes[p]
            if end >= hi or p + 1 >= starts.size or starts[p + 1] != end:
                break
            p += 1
    return share


def _plan_full_stripes(model: ArrayModel, starts: np.ndarray, lens: np.ndarray,
                       offsets: np.ndarray) -> MemberIOPlan | None:
    """``_plan_coalesced`` without page-level planning of the whole-stripe pieces: a full-stripe
    write with no member failed is, in closed form, one write of the strip on each data member in
    data order, then P (and Q), and needs no reads (the planner's FULL_STRIPE_WRITE). Only the
    partial pieces go through the planner; the pages are walked to their host I/Os and merged as
    ``_stream_walk`` does (the same six arrays). None where the walk or its preconditions fail
    (the caller then takes the page-level path, whose answer is the same)."""
    g = model.geometry
    strip = g.strip_bytes
    stripe = (g.n_members - parity_members(g.level)) * strip
    if not (len(offsets) and len(starts) and strip % 4096 == 0 and bool(np.all(offsets[1:] >= offsets[:-1]))):
        return None
    full, partial = _whole_stripes(starts, lens, stripe)
    part = plan_ios(g, np.ones(len(partial), dtype=bool), starts[partial], lens[partial], model.failed_members) \
        if len(partial) else _EMPTY_PLAN
    if len(part.phase) and not (0 <= int(part.phase.min()) and int(part.phase.max()) <= 1):
        return None
    lo, hi = _partial_bounds(part.host_index, partial, len(starts))
    runs = _full_stripe_walk(g.level, g.layout_code, g.n_members, strip, starts, lens, full, lo, hi, part.member,
                             part.member_offset_bytes, part.length_bytes, part.is_write, part.phase, offsets)
    if runs[6] < 0:
        return None
    count = runs[6]
    piece_mode, piece_stripes = np.full(len(starts), FULL_STRIPE_WRITE, np.int8), np.ones(len(starts))
    piece_mode[partial], piece_stripes[partial] = part.mode, part.stripes_touched  # whole pieces: one stripe each
    mode, share = _host_shares(starts, lens, offsets, model.workload.bs, piece_mode, piece_stripes)
    h, m, o, w, ph, merged = (a[:count].copy() for a in runs[:6])
    return MemberIOPlan(host_index=h, member=m, member_offset_bytes=o, length_bytes=merged, is_write=w, phase=ph,
                        mode=mode, parity_bytes_computed=np.zeros(len(offsets), dtype=np.int64),
                        stripes_touched=share)


@nb.njit(nogil=True, cache=True)
def _whole_stripes(starts, lens, stripe):
    """Which pieces are whole stripes (start on a stripe boundary, a stripe long), and the others' indices."""
    full = np.empty(starts.size, np.bool_)
    partial = np.empty(starts.size, np.int64)
    count = 0
    for k in range(starts.size):
        full[k] = starts[k] % stripe == 0 and lens[k] == stripe
        if not full[k]:
            partial[count] = k
            count += 1
    return full, partial[:count].copy()


@nb.njit(nogil=True, cache=True)
def _partial_bounds(host_index, partial, pieces):
    """Where each partial piece's member I/Os lie in their plan (grouped by piece in order):
    ``lo[k]:hi[k]`` per piece k (empty for whole stripes)."""
    lo = np.zeros(pieces, np.int64)
    hi = np.zeros(pieces, np.int64)
    at = 0
    for p in range(partial.size):
        k = partial[p]
        lo[k] = at
        while at < host_index.size and host_index[at] == p:
            at += 1
        hi[k] = at
    return lo, hi


@nb.njit(nogil=True, cache=True)
def _full_stripe_walk(level, code, n, strip, starts, lens, full, lo, hi, p_mem, p_off, p_len, p_w, p_ph, offsets):
    """``_stream_walk`` over pieces whose pages are generated (whole stripes: data blocks in data
    order, P, Q; one strip each) or read from the partial pieces' plan (``lo[k]:hi[k]``): the
    merged runs' (host, member, offset, is_write, phase, bytes) and their count; count -1 where
    ``_stream_walk`` would decline. Allocates the state; the loop runs without reference counting."""
    st = _walk_state(_runs_bound(n, (n - (1 if level == 5 else 2)) * strip, starts, full, lo, hi, offsets.size), 4 * n)
    count = _full_stripe_loop(level, code, n, strip, starts, lens, full, lo, hi, p_mem, p_off, p_len, p_w, p_ph,
                              offsets, st)
    return st[0], st[1], st[2], st[3], st[4], st[5], count


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _full_stripe_loop(level, code, n, strip, starts, lens, full, lo, hi, p_mem, p_off, p_len, p_w, p_ph, offsets, st):
    """The pages in order, each to its host I/O (the position of ``_stream_walk``) and its bucket;
    returns the output runs' count, or -1. Consecutive whole stripes that lie inside the current
    host I/O (the positions rise within a piece: its last page is the current host's) are added
    as one block per member (``_walk_stripes``): each member holds one strip of each, contiguous."""
    kd = n - (1 if level == 5 else 2)
    # typed -1s, not literals: Numba would compile _walk_stripes again for a literal argument
    j, last, current = 0, -np.inf, np.int64(-1)
    g0, g1 = np.int64(-1), np.int64(-1)  # the pending run of whole stripes inside the current host I/O
    for k in range(starts.size):
        cnt = n if full[k] else hi[k] - lo[k]
        s = starts[k] // (kd * strip)
        if full[k] and current >= 0 and starts[k] + 0.5 * lens[k] / cnt >= last:
            end = starts[k] + (cnt - 1 + 0.5) * lens[k] / cnt
            if j >= offsets.size or offsets[j] > end:
                if g0 >= 0 and s == g1 + 1:
                    g1 = s
                else:
                    if g0 >= 0 and not _walk_stripes(st, current, level, code, n, kd, strip, g0, g1):
                        return -1
                    g0 = g1 = s
                last = end
                continue
        if g0 >= 0:
            if not _walk_stripes(st, current, level, code, n, kd, strip, g0, g1):
                return -1
            g0 = -1
        pd, qd = _pq_of_stripe(level, code, n, s)
        for r in range(cnt):
            position = starts[k] + (r + 0.5) * lens[k] / max(cnt, 1)
            if position < last:
                return -1
            last = position
            while j < offsets.size and offsets[j] <= position:
                j += 1
            h = min(max(j - 1, 0), offsets.size - 1)
            if h != current:
                _walk_flush(st)
                current = h
            if full[k]:
                m = _data_member(level, code, n, pd, r) if r < kd else (pd if r == kd else qd)
                ok = _walk_add(st, h, np.int64(m), s * strip, strip, s * strip, np.bool_(True), np.int64(1), n)
            else:
                i = lo[k] + r
                ok = _walk_add(st, h, np.int64(p_mem[i]), p_off[i], p_len[i], p_off[i], p_w[i], np.int64(p_ph[i]), n)
            if not ok:
                return -1
    if g0 >= 0 and not _walk_stripes(st, current, level, code, n, kd, strip, g0, g1):
        return -1
    _walk_flush(st)
    return st[17][1]


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _walk_stripes(st, h, level, code, n, kd, strip, s0, s1):
    """Whole stripes s0..s1 of host I/O h: on each member one block of their strips (what adding
    their pages one by one gives: each bucket's pages in the same order, contiguous)."""
    pd, qd = _pq_of_stripe(level, code, n, s0)
    for r in range(n):
        m = _data_member(level, code, n, pd, r) if r < kd else (pd if r == kd else qd)
        if not _walk_add(st, h, np.int64(m), s0 * strip, (s1 - s0 + 1) * strip, s1 * strip, np.bool_(True),
                         np.int64(1), n):
            return False
    return True


@nb.njit(nogil=True, cache=True, **INNER)
def _runs_bound(n, stripe, starts, full, lo, hi, hosts):
    """At most how many runs the walk makes: a host I/O's whole-stripe pages start a run on a
    member only at its first page there or after a piece that does not follow the previous one
    (the next stripe), so n per host I/O and per such piece, and one per partial piece's page."""
    bound = n * (hosts + 1)
    for k in range(starts.size):
        if not full[k]:
            bound += hi[k] - lo[k]
        elif k == 0 or not full[k - 1] or starts[k] != starts[k - 1] + stripe:
            bound += n
    return bound


@nb.njit(nogil=True, cache=True, **INNER)
def _walk_state(n, keys):
    """The closed-form walk's state: the output runs' host, member, offset, is_write, phase, bytes
    (0-5); the current host's runs: the same six and the next run of their bucket (6-12); per
    bucket its first and last run and its last page's offset and end (13-16); counts (17: runs,
    output runs, buckets touched); the buckets touched (18)."""
    return (np.empty(n, np.int64), np.empty(n, np.int32), np.empty(n, np.int64), np.empty(n, np.bool_),
            np.empty(n, np.int8), np.empty(n, np.int64),
            np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.bool_),
            np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.full(keys, -1, np.int64), np.full(keys, -1, np.int64), np.full(keys, -1, np.int64),
            np.full(keys, -1, np.int64), np.zeros(3, np.int64), np.empty(keys, np.int64))


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _walk_add(st, h, m, off, ln, last_off, w, ph, n):
    """A page (or contiguous pages, the last at ``last_off``) into its (phase, direction, member)
    bucket: extends the bucket's last run when it starts where the bucket's last page ended
    (``_add_page``); False when it starts below that page (or the runs would overflow the state)."""
    key = (ph * 2 + (1 if w else 0)) * n + m
    b_first, b_last, b_off, b_end, c = st[13], st[14], st[15], st[16], st[17]
    if b_last[key] >= 0:
        if off < b_off[key]:
            return False
        if off == b_end[key]:
            b_off[key] = last_off
            b_end[key] = off + ln
            st[11][b_last[key]] += ln
            return True
    r = c[0]
    if c[1] + r >= st[6].size:  # more runs than ``_runs_bound`` allowed for: decline, never write past
        return False
    c[0] = r + 1
    st[6][r], st[7][r], st[8][r], st[9][r], st[10][r], st[11][r], st[12][r] = h, m, off, w, ph, ln, -1
    if b_last[key] >= 0:
        st[12][b_last[key]] = r
    else:
        b_first[key] = r
        st[18][c[2]] = key
        c[2] += 1
    b_last[key] = r
    b_off[key] = last_off
    b_end[key] = off + ln
    return True


@nb.njit(nogil=True, cache=True, inline="always", **INNER)
def _sort_few(keys, count):
    """``keys[:count]`` sorted in place by insertion (the few buckets one host I/O touched)."""
    for a in range(1, count):
        key, b = keys[a], a - 1
        while b >= 0 and keys[b] > key:
            keys[b + 1] = keys[b]
            b -= 1
        keys[b + 1] = key


@nb.njit(nogil=True, cache=True, _nrt=False, **INNER)
def _walk_flush(st):
    """The current host's runs out, bucket by bucket in key order, each bucket's in the order they
    started (``_flush_runs``); the buckets and runs cleared."""
    touched, c = st[18], st[17]
    _sort_few(touched, c[2])
    for a in range(c[2]):
        key = touched[a]
        r = st[13][key]
        while r >= 0:
            o = c[1]
            st[0][o], st[1][o], st[2][o], st[3][o], st[4][o], st[5][o] = \
                st[6][r], st[7][r], st[8][r], st[9][r], st[10][r], st[11][r]
            c[1] = o + 1
            r = st[12][r]
        st[13][key] = st[14][key] = st[15][key] = st[16][key] = -1
    c[0] = 0
    c[2] = 0


def _stream_pages(plan: MemberIOPlan, starts: np.ndarray, lens: np.ndarray,
                  offsets: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """``_host_of_pages`` then ``_merge_member_pages`` in one compiled pass, where both take their
    compiled paths (host I/O offsets and the pages' bytes rising, offsets rising within each
    bucket): the same six arrays; None elsewhere (the caller takes the two steps)."""
    n = len(offsets)
    piece = plan.host_index
    if not (len(piece) and n and 0 <= int(plan.phase.min()) and int(plan.phase.max()) <= 1
            and int(plan.member.min()) >= 0 and bool(np.all(offsets[1:] >= offsets[:-1]))):
        return None
    heads, merged, host = _stream_walk(piece, starts, lens, offsets, len(starts), plan.member, plan.member_offset_bytes,
                                       plan.length_bytes, plan.is_write, plan.phase, int(plan.member.max()) + 1)
    if len(host) != len(piece):
        return None
    return host[heads], plan.member[heads], plan.member_offset_bytes[heads], plan.is_write[heads], \
        plan.phase[heads], merged


@nb.njit(cache=True)
def _stream_walk(piece, starts, lens, offsets, pieces, member, offset, length, is_write, phase, members):
    """Each page's host I/O (``_pages_walk``'s arithmetic and walk), and as the hosts rise, each
    host I/O's runs: per (phase, direction, member) bucket, pages continuing the bucket's last run
    extend it; a host's runs come out bucket by bucket (``_bucket_order``'s order). Returns (run
    heads, run bytes, page hosts); empty hosts where a compiled step of the two would fail."""
    n = piece.size
    counts = np.zeros(pieces, np.int64)
    for i in range(n):
        counts[piece[i]] += 1
    first = np.zeros(pieces, np.int64)
    for k in range(1, pieces):
        first[k] = first[k - 1] + counts[k - 1]
    host = np.empty(n, np.int64)
    runs = _run_state(n, 4 * members)
    j, last, current = 0, -np.inf, -1
    for i in range(n):
        k = piece[i]
        position = starts[k] + (i - first[k] + 0.5) * lens[k] / max(counts[k], 1)
        if position < last:
            return runs[0][:0], runs[0][:0], host[:0]
        last = position
        while j < offsets.size and offsets[j] <= position:
            j += 1
        h = min(max(j - 1, 0), offsets.size - 1)
        host[i] = h
        if h != current:
            _flush_runs(runs)
            current = h
        key = (np.int64(phase[i]) * 2 + np.int64(is_write[i])) * members + np.int64(member[i])
        if not _add_page(runs, key, i, offset, length):
            return runs[0][:0], runs[0][:0], host[:0]
    _flush_runs(runs)
    return runs[6][:runs[9][1]], runs[7][:runs[9][1]], host


@nb.njit(cache=True, **INNER)
def _run_state(n, keys):
    """The walk's run state: run heads, bytes and next run of the same bucket (0-2); per bucket its
    first run, last run and last page (3-5); the output heads and bytes (6, 7); the buckets
    touched by this host (8); counts (9: runs, output runs, buckets touched)."""
    return (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.full(keys, -1, np.int64),
            np.full(keys, -1, np.int64), np.full(keys, -1, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.empty(keys, np.int64), np.zeros(3, np.int64))


@nb.njit(cache=True, _nrt=False, **INNER)
def _add_page(runs, key, i, offset, length):
    """Page ``i`` into bucket ``key``: extends the bucket's last run when contiguous with its last
    page, else starts a run; False when its offset falls below that page's."""
    head, size, nxt, b_first, b_last, b_page, touched, c = runs[0], runs[1], runs[2], runs[3], runs[4], runs[5], \
        runs[8], runs[9]
    p = b_page[key]
    b_page[key] = i
    if p >= 0:
        if offset[i] < offset[p]:
            return False
        if offset[i] == offset[p] + length[p]:
            size[b_last[key]] += length[i]
            return True
    r = c[0]
    c[0] = r + 1
    head[r], size[r], nxt[r] = i, length[i], -1
    if b_last[key] >= 0:
        nxt[b_last[key]] = r
    else:
        b_first[key] = r
        touched[c[2]] = key
        c[2] += 1
    b_last[key] = r
    return True


@nb.njit(cache=True, _nrt=False, **INNER)
def _flush_runs(runs):
    """The current host's runs out, bucket by bucket in key order, each bucket's in the order
    they started; the buckets cleared."""
    head, size, nxt, b_first, b_last, b_page, out_head, out_size, touched, c = runs
    _sort_few(touched, c[2])
    for a in range(c[2]):
        key = touched[a]
        r = b_first[key]
        while r >= 0:
            out_head[c[1]], out_size[c[1]] = head[r], size[r]
            c[1] += 1
            r = nxt[r]
        b_first[key] = b_last[key] = b_page[key] = -1
    c[2] = 0


def _merge_member_pages(host: np.ndarray, plan: MemberIOPlan) -> tuple[np.ndarray, ...]:
    """The plan's member I/Os ordered by (host I/O, phase, direction, member, offset), runs that
    are contiguous on one member merged into one: (host, member, offset, is_write, phase, length)
    of each merged member I/O. A stable counting sort on the first four keys, compiled, when the
    offsets already rise within each of its buckets (the planner emits a stream's stripes in
    order); else the general sort -- the same order either way."""
    columns = (host, plan.member, plan.member_offset_bytes, plan.is_write, plan.phase)
    order = None
    if len(host) and 0 <= int(plan.phase.min()) and int(plan.phase.max()) <= 1 and int(plan.member.min()) >= 0:
        order = _bucket_order(*columns)
    if order is None or len(order) != len(host):
        order = _lexsort_packed((plan.member_offset_bytes, plan.member, plan.is_write, plan.phase, host))
    heads, merged = _runs(order, *columns, plan.length_bytes)
    return host[heads], plan.member[heads], plan.member_offset_bytes[heads], plan.is_write[heads], \
        plan.phase[heads], merged


def _host_of_pages(piece: np.ndarray, starts: np.ndarray, lens: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The host I/O each member page of a stream's pieces belongs to: the logical byte it stands
    for (its piece's bytes spread evenly over the piece's pages) looked up among the host I/Os'
    offsets (compiled in one pass when both rise; NumPy's arithmetic and search otherwise: the
    same answer)."""
    n = len(offsets)
    if len(piece) and n and bool(np.all(offsets[1:] >= offsets[:-1])):
        host = _pages_walk(piece, starts, lens, offsets, len(starts))
        if len(host) == len(piece):
            return host
    counts = np.bincount(piece, minlength=len(starts))
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(len(piece)) - first[piece]
    position = starts[piece] + (rank + 0.5) * lens[piece] / np.maximum(counts[piece], 1)
    return np.clip(np.searchsorted(offsets, position, side="right") - 1, 0, n - 1)


@nb.njit(cache=True)
def _pages_walk(piece, starts, lens, offsets, pieces):
    """``_host_of_pages`` for rising offsets: the same arithmetic as its NumPy form, and a merge
    walk; empty when the pages' bytes fall somewhere (the caller then searches)."""
    counts = np.zeros(pieces, np.int64)
    for i in range(piece.size):
        counts[piece[i]] += 1
    first = np.zeros(pieces, np.int64)
    for k in range(1, pieces):
        first[k] = first[k - 1] + counts[k - 1]
    out = np.empty(piece.size, np.int64)
    j = 0
    last = -np.inf
    for i in range(piece.size):
        k = piece[i]
        rank = i - first[k]
        position = starts[k] + (rank + 0.5) * lens[k] / max(counts[k], 1)
        if position < last:
            return np.empty(0, np.int64)
        last = position
        while j < offsets.size and offsets[j] <= position:
            j += 1
        out[i] = min(max(j - 1, 0), offsets.size - 1)
    return out


@nb.njit(cache=True)
def _bucket_order(host, member, offset, is_write, phase):
    """Stable counting sort by (host, phase, is_write, member); an empty array when the offsets
    fall within a bucket somewhere (the caller then sorts on the offsets too)."""
    n = host.size
    members = np.int64(member.max()) + 1
    hosts = np.int64(host.max()) + 1
    key = np.empty(n, np.int64)
    for i in range(n):
        key[i] = ((np.int64(host[i]) * 2 + np.int64(phase[i])) * 2 + np.int64(is_write[i])) * members + np.int64(member[i])
    counts = np.zeros(hosts * 4 * members + 1, np.int64)
    for i in range(n):
        counts[key[i] + 1] += 1
    for b in range(1, counts.size):
        counts[b] += counts[b - 1]
    order = np.empty(n, np.int64)
    last = np.full(hosts * 4 * members, -1, np.int64)
    for i in range(n):
        b = key[i]
        if last[b] >= 0 and offset[i] < offset[last[b]]:
            return np.empty(0, np.int64)
        last[b] = i
        order[counts[b]] = i
        counts[b] += 1
    return order


@nb.njit(cache=True)
def _runs(order, h, m, o, w, ph, length):
    """Taken in ``order``, the runs of member I/Os that continue one another on one member (same
    host I/O, member, phase and direction, each starting where the last ended): each run's first
    member I/O (an index into the unsorted arrays) and its bytes."""
    n = order.size
    heads = np.empty(n, np.int64)
    merged = np.empty(n, np.int64)
    k = -1
    for pos in range(n):
        i = order[pos]
        if pos:
            p = order[pos - 1]
            new = h[i] != h[p] or m[i] != m[p] or ph[i] != ph[p] or w[i] != w[p] or o[i] != o[p] + length[p]
        else:
            new = True
        if new:
            k += 1
            heads[k] = i
            merged[k] = 0
        merged[k] += length[i]
    return heads[:k + 1], merged[:k + 1]


def _lexsort_packed(keys: tuple[np.ndarray, ...]) -> np.ndarray:
    """``np.lexsort(keys)`` (the last key primary; stable) of non-negative integer keys, as one
    stable argsort of the keys packed into an int64 when their bits fit (several times faster
    than lexsort on a batch's member I/Os); else lexsort itself."""
    if not len(keys[0]):
        return np.zeros(0, dtype=np.int64)
    first = keys[0].astype(np.int64)
    low = int(np.bitwise_or.reduce(first))
    shift = (low & -low).bit_length() - 1 if low else 0  # common trailing zero bits (sector alignment)
    columns = [first >> shift] + [k.astype(np.int64) for k in keys[1:]]
    widths = [max(1, int(c.max()).bit_length()) for c in columns]
    if min(int(c.min()) for c in columns) < 0 or sum(widths) > 62:
        return np.lexsort(keys)
    packed = np.zeros(len(first), dtype=np.int64)
    at = 0
    for column, width in zip(columns, widths):
        packed |= column << at
        at += width
    return np.argsort(packed, kind="stable")


def _engine_work(model: ArrayModel, plan: MemberIOPlan, is_write: np.ndarray, chunks: np.ndarray, memo: Memo,
                 write_key: int, offsets: np.ndarray):
    """The engine's costs of a plan (cached with the plan: a sweep re-costs the same plans); of a
    batch planned by place, gathered from the costs of its places (``_work_by_place``)."""
    e = model.engine
    if e.costs_each_host_io_alone and _planned_by_place(model, is_write):
        work = _work_by_place(model, plan, is_write, offsets, memo)
        if work is not None:
            return work
    key = (id(plan), e.spec.name, e.parameter_key, e.members, e.degraded, e.shared_access_factor, e.line_transfer_us,
           model.workload.bs, model.array.level, write_key)
    return memo.recall(memo.engine_work, key, e.work, plan, is_write, chunks, model.workload.bs, model.array.level,
                       owner=plan, weigh=_work_weight)


def _work_weight(work) -> int:
    """Member I/Os an engine's costs of a plan hold (``Memo.recall``'s bound)."""
    return len(work.host_index)


_PER_HOST_WORK = tuple(f.name for f in fields(EngineWork) if f.name not in MemberIOPlan.__dataclass_fields__)
"""``EngineWork``'s fields of one value per host I/O: those it does not share with the plan's member I/Os."""


def _work_by_place(model: ArrayModel, plan: MemberIOPlan, is_write: np.ndarray, offsets: np.ndarray,
                   memo: Memo) -> EngineWork | None:
    """The engine's costs of a batch planned by place (``plan``): each host I/O's are those of its
    place in the table (``_places``), costed once per place as the engine costs the whole batch,
    since an engine that ``costs_each_host_io_alone`` prices a host I/O from its own member I/Os
    alone, the same a whole number of layout periods further on. None where the batch's places are
    not all filed, or where the engine adds member I/Os of its own (VROC's partial parity log)."""
    table = _places(model, memo)
    with table.lock:  # the entries, the version and the places costed agree (another thread may file more)
        entry = table.entries(is_write, offsets)
        if len(entry) and entry.min() < 0:
            return None
        e = model.engine
        key = ("by place", id(table), table.version, e.spec.name, e.parameter_key, e.members, e.degraded,
               e.shared_access_factor, e.line_transfer_us, model.workload.bs, model.array.level)
        places = memo.recall(memo.engine_work, key, _place_work, model, table, owner=table, weigh=_place_work_weight)
    if places is None:
        return None
    return EngineWork(host_index=plan.host_index, member=plan.member, length_bytes=plan.length_bytes,
                      is_write=plan.is_write, phase=plan.phase,
                      **{f: None if places[f] is None else places[f][entry] for f in _PER_HOST_WORK})


def _place_work(model: ArrayModel, table: PositionPlans) -> dict[str, np.ndarray] | None:
    """The engine's per-host costs of every place in ``table``, each place one host I/O with its
    member I/Os in the order a batch's plan has them (``_phase_ordered``); None where the engine
    adds member I/Os of its own."""
    plan, offsets, is_write = table.places_plan()
    plan = _phase_ordered(plan)
    bs = model.workload.bs
    work = model.engine.work(plan, is_write, strips_spanned(offsets, bs, model.array.strip_bytes), bs,
                             model.array.level)
    if work.host_index is not plan.host_index:
        return None
    return {f: getattr(work, f) for f in _PER_HOST_WORK}


def _place_work_weight(places: dict[str, np.ndarray] | None) -> int:
    """Values the per-place costs hold (``Memo.recall``'s bound)."""
    return 0 if places is None else len(places["lock_s"])


def host_io_batch(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray,
                  rng: np.random.Generator | None = None, write_share: float | None = None, memo: Memo = MEMO,
                  ) -> HostIoBatch:
    """Service demands of host I/Os of ``job`` at ``offsets``.

    With ``rng`` (the event mode), each NAND service time is drawn around its mean
    (``nvsim.ssd.latency.draw_die_s``: page-type spread, program interference, read retry);
    without it (the fluid mode), means. ``write_share``: the
    share of NAND time spent programming, which makes reads pay program suspend (None: this
    batch's own; the batch records the share it was priced with, ``nand_write_share``).
    """
    work, op_start, runs, die, link, _ = _member_service(model, job, offsets, is_write, memo)
    if write_share is None:  # share of NAND time spent programming, from this batch
        write_share = nand_write_share(die, work.is_write, model.drive.suspend_unit_s)
    die = _die_s(model, rng, die, work.is_write, write_share)
    return _demands(model, job, model.cpu_speed[model.job_cpu[job]], is_write, work, op_start, runs, die, link,
                    write_share)


def host_io_batches(model: ArrayModel, jobs: list[int], offsets: list[np.ndarray], is_write: list[np.ndarray],
                    rngs: list[np.random.Generator], write_share: float, memo: Memo = MEMO) -> list[HostIoBatch] | None:
    """``host_io_batch`` of each job's batch (``jobs[i]``'s host I/Os at ``offsets[i]``, its NAND
    times drawn from ``rngs[i]``), bit for bit, planned and priced as one batch: each host I/O's
    member I/Os and costs are its own alone where ``prices_alone`` holds, and every other step is
    element by element. None where the engine adds member I/Os of its own (VROC's partial parity
    log, grouped by host I/O): then each batch is priced alone. A many-job run plans each job's
    batch in turn, and the Python work per batch (about 1.5 ms) was the run's time."""
    counts = np.array([len(o) for o in offsets], dtype=np.int64)
    every_offset, every_write = np.concatenate(offsets), np.concatenate(is_write)
    work, op_start, runs, die, link, added = _member_service(model, jobs[0], every_offset, every_write, memo)
    if added:
        return None
    hosts = np.concatenate([[0], np.cumsum(counts)])
    ops = op_start[hosts]
    die = np.concatenate([_die_s(model, rng, die[lo:hi], work.is_write[lo:hi], write_share)
                          for rng, lo, hi in zip(rngs, ops[:-1].tolist(), ops[1:].tolist())])
    speed = np.repeat(np.array([model.cpu_speed[model.job_cpu[j]] for j in jobs], dtype=np.float64), counts)
    whole = _demands(model, jobs[0], speed, every_write, work, op_start, runs, die, link, write_share)
    return [_part_of(whole, job, hosts[i], hosts[i + 1]) for i, job in enumerate(jobs)]


def prices_alone(model: ArrayModel) -> bool:
    """Whether every host I/O of the model's batches is planned and priced from itself alone, so
    that several jobs' batches can be priced as one (``host_io_batches``): an array (not JBOD: its
    member is the job's drive) of a level whose host I/Os plan independently (``LEVELS``), an engine
    that ``costs_each_host_io_alone``, and no stripe cache gathering a sequential stream's writes
    (``_gathered_bytes`` grows with the writes in flight, at most the depth)."""
    return (not model.jbod and model.geometry.level in LEVELS and model.engine.costs_each_host_io_alone
            and _gathered_bytes(model, float(model.workload.iodepth)) == 0)


def _member_service(model: ArrayModel, job: int, offsets: np.ndarray, is_write: np.ndarray, memo: Memo) -> tuple:
    """A batch's engine work, where each host I/O's member I/Os start, its phase runs, and each
    member I/O's mean NAND unit and link times, and whether the engine added member I/Os."""
    n = len(offsets)
    write_key = hash(is_write.tobytes())
    first, shift, chunks, op_start, runs = _planned_batch(model, job, offsets, is_write, memo, write_key)
    member_ios = _moved_on(first, shift)
    work = _engine_work(model, member_ios, is_write, chunks, memo, write_key, offsets)
    random = model.workload.is_random
    if work.host_index is member_ios.host_index:
        die, link = model.drive.service_of(first, random, memo)  # the sizes and directions of ``member_ios``
        return work, op_start, runs, die, link, False
    # the engine added member I/Os of its own (VROC's partial parity log writes), grouped by host I/O
    op_start = member_io_starts(work.host_index, n)
    die, link = model.drive.service(work.length_bytes, work.is_write, random)
    return work, op_start, phase_runs(work.phase, op_start), die, link, True


def _die_s(model: ArrayModel, rng: np.random.Generator | None, die: np.ndarray, op_is_write: np.ndarray,
           write_share: float) -> np.ndarray:
    """Member I/Os' NAND unit times: drawn from ``rng``, or means without it."""
    drive = model.drive
    if rng is not None and len(die):  # drawn: tR/tPROG spread, program and erase interference, read retry (nvsim.ssd.latency)
        return draw_die_s(rng, die, op_is_write, drive.suspend_unit_s, write_share, drive.erasing,
                          drive.erase_step_unit_s)
    return mean_die_s(die, op_is_write, drive.suspend_unit_s, write_share)  # a read on a programming die pays suspend


def _demands(model: ArrayModel, job: int, speed, is_write: np.ndarray, work, op_start: np.ndarray, runs: np.ndarray,
             die: np.ndarray, link: np.ndarray, write_share: float) -> HostIoBatch:
    """The batch's demands from its engine work and member I/Os' service; ``speed``: the job's
    core's clock (one, or one per host I/O)."""
    n = len(is_write)
    scale_engine = model.engine_clock_scale
    on_host = model.engine.server is not None and model.engine.server.on_host_cpu
    thread_scale = scale_engine if on_host else 1.0
    lengths = work.length_bytes
    device_bw = (work.device_read_bytes / model.device_read_bytes_per_s) if model.device_read_bytes_per_s else np.zeros(n)
    if model.device_link is not None:
        up, _ = model.device_link.nvme_io_load(model.workload.bs, True)
        _, down = model.device_link.nvme_io_load(model.workload.bs, False)
        bw = model.device_link.usable_bytes_per_s()
        dev_down = np.where(work.device_down_bytes > 0, down / bw, 0.0)
        dev_up = np.where(work.device_up_bytes > 0, up / bw, 0.0)
    else:
        dev_down = dev_up = np.zeros(n)
    if model.switch_uplink is not None:  # the drives hang behind switches: their data crosses an uplink too
        dev_up, dev_down = switch_uplink_s(model.switch_uplink, work.host_index, work.is_write, lengths, n)
    return HostIoBatch(
        job=job,
        submit_s=(model.host_submit_s + work.submit_cpu_ref_s * scale_engine) / speed,
        complete_s=np.full(n, model.host_complete_s / speed),
        lock_s=work.lock_s, pre_s=work.pre_s * thread_scale, mid_s=work.mid_s * thread_scale,
        device_bw_s=device_bw, device_down_s=dev_down, device_up_s=dev_up,
        memory_s=work.memory_bytes / model.memory_bytes_per_s,
        is_write=is_write,
        op_start=op_start, op_runs=runs, op_drive=work.member.astype(np.int64), op_is_write=work.is_write,
        op_phase=work.phase, op_die_s=die, op_link_s=link, op_bytes=lengths, op_pieces=model.drive.pieces_of(lengths),
        nand_write_share=write_share, stripe_heads=work.stripe_heads if work.stripe_heads.any() else None,
        ack_s=work.ack_s * thread_scale if work.ack_s is not None and work.ack_s.any() else None,
    )


def _part_of(whole: HostIoBatch, job: int, lo: int, hi: int) -> HostIoBatch:
    """Host I/Os ``lo:hi`` of ``whole`` and their member I/Os, as a batch of ``job``'s own."""
    first, end = int(whole.op_start[lo]), int(whole.op_start[hi])
    runs = whole.op_runs[np.searchsorted(whole.op_runs, first):np.searchsorted(whole.op_runs, end)] - first
    heads = None if whole.stripe_heads is None else whole.stripe_heads[lo:hi]
    ack = None if whole.ack_s is None else whole.ack_s[lo:hi]
    return HostIoBatch(job=job, **{f: getattr(whole, f)[lo:hi] for f in HOST_FIELDS},
                       op_start=whole.op_start[lo:hi + 1] - first, **{f: getattr(whole, f)[first:end] for f in OP_FIELDS},
                       op_runs=runs, nand_write_share=whole.nand_write_share,
                       stripe_heads=heads if heads is not None and heads.any() else None,
                       ack_s=ack if ack is not None and ack.any() else None)


def switch_uplink_s(uplink: UplinkTiming, host_index: np.ndarray, op_is_write: np.ndarray, op_bytes: np.ndarray,
                    n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per host I/O, the seconds its member I/Os keep a switch's uplink busy, (to host, to drives):
    each member I/O's time in its data direction on the uplink (``UplinkTiming``: the same TLPs as
    on the drive link, the uplink's own DLLPs and rate)."""
    scaled = uplink.op_s(op_bytes, op_is_write)
    up = np.bincount(host_index, weights=np.where(op_is_write, 0.0, scaled), minlength=n)[:n]
    down = np.bincount(host_index, weights=np.where(op_is_write, scaled, 0.0), minlength=n)[:n]
    return up, down


def _rebuild_reads(model: ArrayModel, protocol: RebuildProtocol, target: int,
                   offsets: np.ndarray) -> tuple[list, list, list]:
    """(members, member offsets, request index) of the reads of rebuild requests of member
    ``target`` at ``offsets``, as the engine's protocol names them (``RebuildProtocol.reads``):
    every other member that has not failed (parity levels: md's handle_stripe reads them all while
    syncing), a surviving copy (mirrors), or every member (a check)."""
    n = len(offsets)
    reads = protocol.reads
    missing = set(model.failed_members) | ({target} if reads != "every member" else set())
    members, moffs, hosts = [], [], []
    if reads == "one copy":
        for i, copies in _surviving_copies(model, target, offsets, missing):
            if copies:
                members.append(copies[0][0]); moffs.append(copies[0][1]); hosts.append(i)
    elif model.array.level in (5, 6) or reads == "every member":
        for i in range(n):
            for m in range(model.array.drives):
                if m not in missing:
                    members.append(m); moffs.append(int(offsets[i])); hosts.append(i)
    return members, moffs, hosts


def _surviving_copies(model: ArrayModel, target: int, offsets: np.ndarray, missing: set):
    """(request index, [(member, member offset) of each copy not in ``missing``, in md's order]) of
    the data at ``offsets`` of member ``target``, for each request whose offset holds array data (a
    member's tail past its last whole strip holds none: 1 TiB strips on 7.68 TB members leave 6
    strips and 1.08 TB of tail, nothing there to copy)."""
    n = len(offsets)
    logical = unmap_member(model.geometry, np.full(n, target), offsets)
    mapped = (logical >= 0) & (logical < model.geometry.capacity_bytes)
    copy_members, copy_offsets = map_logical_copies(model.geometry, np.where(mapped, logical, 0))
    for i in np.flatnonzero(mapped):
        yield int(i), [(int(m), int(o)) for m, o in zip(copy_members[i], copy_offsets[i]) if int(m) not in missing]


def _resync_ios(model: ArrayModel, target: int, offsets: np.ndarray) -> tuple[list, list, list, list, list]:
    """(members, member offsets, request index, is_write, phase) of a mirror's resync requests of
    the rows at ``offsets`` of member ``target`` (md RAID1 after an unclean shutdown): the read of
    the first surviving copy (``raid1_sync_request``'s ``read_disk``: the first readable mirror),
    phase 0, then its write to every other surviving copy (``sync_request_write``), phase 1."""
    members, moffs, hosts, writes, phases = [], [], [], [], []
    for i, copies in _surviving_copies(model, target, offsets, set(model.failed_members)):
        for k, (m, o) in enumerate(copies if len(copies) > 1 else ()):  # one copy alone has nothing to resync
            members.append(m); moffs.append(o); hosts.append(i); writes.append(k > 0); phases.append(int(k > 0))
    return members, moffs, hosts, writes, phases


def rebuild_batch(model: ArrayModel, target: int, member_offsets: np.ndarray, step_bytes: int,
                  protocol: RebuildProtocol | None = None) -> HostIoBatch:
    """Demands of rebuild requests that each cover ``step_bytes`` of member ``target`` at
    ``member_offsets``, as the engine's protocol says (``protocol``, default the array's recovery,
    ``model.rebuild``; a ``check`` or a ``resync`` covers a row of every member): its reads (phase 0)
    and, for a recovery, the write of the rebuilt bytes (phase 1), for a resync the writes of the copy
    read to every other copy (phase 1). Member I/Os are sequential within each member."""
    offsets = np.asarray(member_offsets, dtype=np.int64)
    n = len(offsets)
    level = model.array.level
    protocol = protocol or model.rebuild
    if protocol.writes == "the other copies":
        members, moffs, hosts, writes, phases = _resync_ios(model, target, offsets)
    else:
        members, moffs, hosts = _rebuild_reads(model, protocol, target, offsets)
        writes, phases = [False] * len(members), [0] * len(members)
        if protocol.writes_member:
            members += [target] * n; moffs += [int(o) for o in offsets]; hosts += list(range(n))
            writes += [True] * n; phases += [1] * n
    order = np.lexsort((np.asarray(phases), np.asarray(hosts)))
    host_index = np.asarray(hosts, dtype=np.int64)[order]
    plan = MemberIOPlan(
        host_index=host_index, member=np.asarray(members, dtype=np.int32)[order],
        member_offset_bytes=np.asarray(moffs, dtype=np.int64)[order],
        length_bytes=np.full(len(order), step_bytes, dtype=np.int64), is_write=np.asarray(writes, dtype=bool)[order],
        phase=np.asarray(phases, dtype=np.int8)[order], mode=np.zeros(n, dtype=np.int8),
        parity_bytes_computed=np.zeros(n, dtype=np.int64), stripes_touched=np.ones(n, dtype=np.int64))
    rows = max(1, step_bytes // model.array.strip_bytes)  # stripe rows one request rebuilds
    work = model.engine.rebuild_work(plan, n, rows, level)
    die, link = model.drive.service(plan.length_bytes, plan.is_write, random=False)
    op_start = member_io_starts(host_index, n)
    on_host = model.engine.server is not None and model.engine.server.on_host_cpu
    scale = model.engine_clock_scale if on_host else 1.0
    zeros = np.zeros(n)
    up, down = switch_uplink_s(model.switch_uplink, host_index, plan.is_write, plan.length_bytes, n) \
        if model.switch_uplink is not None \
        else (zeros.copy(), zeros.copy())
    return HostIoBatch(
        job=-1, submit_s=work.submit_cpu_ref_s * model.engine_clock_scale, complete_s=zeros.copy(),
        lock_s=work.lock_s, pre_s=work.pre_s * scale, mid_s=work.mid_s * scale,
        device_bw_s=zeros.copy(), device_down_s=down, device_up_s=up,
        memory_s=work.memory_bytes / model.memory_bytes_per_s, is_write=np.ones(n, dtype=bool),
        op_start=op_start, op_drive=plan.member.astype(np.int64), op_is_write=plan.is_write, op_phase=plan.phase,
        op_die_s=die, op_link_s=link, op_bytes=plan.length_bytes, op_pieces=model.drive.pieces_of(plan.length_bytes))


__all__ = ["HostIoBatch", "interleave", "host_io_batch", "host_io_batches", "prices_alone", "rebuild_batch", "switch_uplink_s", "plan_host_ios", "phase_runs", "nand_write_share"]
