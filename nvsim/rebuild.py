"""Failures, degraded running and rebuilds over time: the scenario's fault timeline, integrated.

Between two events (a fault in ``scenario.faults``, or a rebuild finishing) the array is in one
state -- which members are missing and which one is being rebuilt -- and runs at that state's
rates (the fluid mode's network, or a measured event-mode window): rebuilt bytes grow linearly,
so an hours-long rebuild of a 30 TB drive costs a handful of solves, not hours of events. Under
host I/O a rebuild runs in ``PROGRESS_STEPS`` steps, each a state standing for its step (the
rebuild's edge anywhere in it): host I/O reads and writes the part of the member already rebuilt. A state
that misses more members than the level tolerates is data loss, reported with the stripes and
bytes lost, never a crash.

Rebuilds run one member at a time, in the order members were replaced (md recovers several spares
in one pass; one at a time is the conservative reading). A hot spare (``array.hot_spares``) starts
a rebuild at the failure; without one the array stays degraded until a ``replace`` event.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .array_capacity import drives_striped
from .constants import EVENT_HOST_IOS
from .bounds import capacity
from .errors import InputError
from .catalog import Catalog, catalog_or_default
from .raid import data_copies, data_members_per_stripe
from .risk import HOURS_PER_YEAR, RebuildRisk, rebuild_risk
from .units import format_number
from .sim.system import ArraySystem
from .scenario import as_scenario
from .simulation import FIDELITIES, Result, Simulation, check_against_catalog
from .specs import FaultSpec, Phase, ScenarioSpec, WorkloadSpec
from .states import ArrayState, DataLoss, data_loss_at_start, data_loss_metrics, lost_data

TIMELINE_HOST_IOS = 20_000
"""Measured host I/Os of each state's event-mode run (a timeline solves one run per state)."""
CHECKING = ArrayState(checking=True)
"""The whole array with a parity scrub running (``array.scrub``, a ``check`` event)."""
RESYNCING = ArrayState(checking=True, resync=True)
"""The whole array resyncing after an unclean shutdown (``array.unclean_shutdown``: the engine's
``resync_operation``, md RAID1's copy of one mirror onto the others)."""


@dataclass
class Segment:
    start_s: float
    end_s: float
    state: str  # optimal, checking, degraded, rebuilding, data loss
    missing: tuple[int, ...]
    rebuilding: int | None
    foreground_iops: float
    transactions_per_s: float | None
    rebuild_bytes_per_s: float  # the sync's member bytes per s: the rebuild's, or while checking the check's
    rebuilt_bytes_at_end: float  # of the member rebuilt, or while checking of each member checked
    limited_by: str


@dataclass
class RebuildRecord:
    member: int
    start_s: float
    end_s: float | None  # None: not finished within the timeline
    bytes_rebuilt: float
    survivor_bytes_read: float
    raid_waf: float = float("nan")  # member bytes written per byte of the replaced member rebuilt
    waf_nand: float = float("nan")  # NAND bytes programmed per byte the rebuild writes, in the member written
    host_bytes_to_member: float = 0.0  # host writes that landed on the new member's rebuilt part meanwhile
    host_waf_nand: float = float("nan")  # NAND bytes programmed per byte of those (the host stream's)

    @property
    def duration_s(self) -> float | None:
        return None if self.end_s is None else self.end_s - self.start_s

    @property
    def member_waf_nand(self) -> float:
        """NAND bytes programmed per byte written to the new member over its rebuild: the rebuild's
        fill interleaved with the host writes that land on its rebuilt part (each at its own)."""
        rebuild_bytes = self.bytes_rebuilt * self.raid_waf
        host_waf = self.host_waf_nand if math.isfinite(self.host_waf_nand) else 1.0
        total = rebuild_bytes + self.host_bytes_to_member
        if not total > 0:
            return self.waf_nand
        return (rebuild_bytes * self.waf_nand + self.host_bytes_to_member * host_waf) / total

    def add_host_writes(self, result: Result, survivors: int, before_bytes: float, member_bytes: float, dt_s: float) -> None:
        """Host writes of one segment that land on the new member: the engine writes a stripe's
        member once it is rebuilt (md's recovery_offset; a card's or a GPU's rebuilt region), so
        a member's share of the host's member writes, times the share of the member (of
        ``member_bytes``) rebuilt (averaged over the segment, during which it grows linearly). The
        state's member writes are the survivors' and the new member's in that share of the rows, so
        a member's share is of the survivors and that share (divided by the survivors alone, an md
        RAID1 of 2 drives counted its rows rebuilt, which write both copies, twice: 1.65x). A phase:
        each job's writes at its own RAID WAF, their NAND WAF weighted by their bytes."""
        rebuilt_share = (before_bytes + self.bytes_rebuilt) / (2.0 * member_bytes)
        members = max(survivors + rebuilt_share, 1.0)
        writes = [(job.write_bytes_per_s * job.raid_waf / members, job.waf_nand) for job in result.jobs or (result,)]
        writes = [(per_member, waf) for per_member, waf in writes if math.isfinite(per_member) and per_member > 0]
        if not writes:
            return
        per_member = sum(b for b, _ in writes)  # one job: its own figure, exactly (0 + b)
        self.host_bytes_to_member += per_member * rebuilt_share * dt_s
        finite = [(b, waf) for b, waf in writes if math.isfinite(waf)]
        if finite:
            self.host_waf_nand = finite[0][1] if len(finite) == 1 else sum(b * w for b, w in finite) / sum(b for b, _ in finite)


@dataclass
class CheckRecord:
    """One parity check the timeline ran (a ``check`` event): from its start until it had read
    every member's span (``done``), a member failed under it (``interrupted``: md's md_error stops a
    running sync, MD_RECOVERY_INTR), or the timeline ended (``running``, no end); ``refused``: it
    was asked while a member was missing or another sync ran (md's sync_action answers EBUSY while
    one runs; a missing member leaves nothing to compare), never started."""

    start_s: float
    end_s: float | None
    bytes_checked: float  # of each member
    outcome: str  # done, interrupted, running, refused

    @property
    def duration_s(self) -> float | None:
        return None if self.end_s is None else self.end_s - self.start_s


@dataclass
class Timeline:
    scenario: str
    workload: str | None
    fidelity: str
    segments: list[Segment] = field(default_factory=list)
    rebuilds: list[RebuildRecord] = field(default_factory=list)
    data_loss: DataLoss | None = None
    checks: list[CheckRecord] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _state_result(scenario: ScenarioSpec, workload: WorkloadSpec | Phase | None, catalog: Catalog, state: ArrayState,
                  fidelity: str) -> Result:
    """One state's foreground and rebuild rates, from the orchestrator with the state pinned."""
    return Simulation(scenario, workload, catalog=catalog, state=state).run(fidelity, host_ios=TIMELINE_HOST_IOS)


def sync_rate(result: Result) -> tuple[float, str]:
    """(member bytes per second, what limits it) of the rebuild or check running in a state's
    ``result``. A phase's Result holds each job's own closed loop solved in the state with the
    rebuild beside it (``workload.compose.phase``: the jobs then share the foreground's queues, and
    no joint solve of all the jobs with the rebuild exists), so the phase's rate is the slowest of
    its jobs' -- the jobs together load the array at least as much as any one of them, so a heavier
    load never rebuilds faster (an upper bound on the rate: the jobs' joint load would slow it more).
    Its first job's record alone (``Result.rebuild_bytes_per_s``) ran a scrub under a reader and a
    writer at the reader's pace."""
    runs = [job for job in result.jobs if job.rebuild_bytes_per_s is not None] or [result]
    slowest = min(runs, key=lambda run: float(run.rebuild_bytes_per_s or 0.0))
    why = slowest.rebuild_limited_by or slowest.limited_by
    if len({run.rebuild_bytes_per_s for run in runs}) > 1:
        why += f" (beside {slowest.workload}: the slowest of the phase's jobs)"
    return float(slowest.rebuild_bytes_per_s or 0.0), why


def _catalog_of(catalog: object) -> Catalog:
    """The catalog argument, or the default one; anything else is a one-line InputError (a workload
    given second, where the catalog goes, failed deep in the model)."""
    try:
        return catalog_or_default(catalog)
    except InputError as error:
        raise InputError("catalog", f"{error.message}; a workload goes by name: workload=...") from None


def _scenario_of(scenario: object, catalog: Catalog) -> ScenarioSpec:
    """A ``ScenarioSpec`` whose parts ``catalog`` has, as it is (one ``InputError`` naming a part
    it lacks: a spec parsed against another catalog raised a KeyError deep inside), or a scenario
    file's path loaded (``as_scenario``)."""
    if isinstance(scenario, ScenarioSpec):
        for field, section, name in (("platform", "platforms", scenario.platform), ("array.drive", "drives", scenario.array.drive),
                                     ("array.engine", "engines", scenario.array.engine)):
            if name not in getattr(catalog, section):
                raise InputError(field, f"{name!r} is not in the catalog given (a scenario parsed against another "
                                        f"catalog: pass that one as catalog=)")
    return as_scenario(scenario, catalog)  # a spec checked again: model_copy checks nothing (30 drives in 24 bays ran)


def _check_run_arguments(fidelity: object, horizon_s: object) -> None:
    """A timeline's fidelity one nvsim has (checked before a state is solved: an idle timeline
    took any word) and its horizon a time from now on (-5 s gave a segment ending before it began)."""
    if fidelity not in FIDELITIES:
        raise InputError("fidelity", f"unknown fidelity {fidelity!r}; allowed: {', '.join(FIDELITIES)}")
    if horizon_s is not None and not (isinstance(horizon_s, (int, float)) and not isinstance(horizon_s, bool)
                                      and horizon_s > 0 and not math.isnan(horizon_s)):
        raise InputError("horizon_s", f"a time in seconds above 0 (or None: until every rebuild is done), got {horizon_s!r}")


def _workload_of(scenario: ScenarioSpec, workload: object, catalog: Catalog) -> WorkloadSpec | Phase | None:
    """The caller's workload as ``Simulation`` takes it: None, a ``WorkloadSpec`` or ``Phase``
    (checked against ``catalog``), or the name of one of the scenario's workloads or phases; anything
    else one ``InputError``."""
    if workload is None:
        return None
    if isinstance(workload, (WorkloadSpec, Phase)):
        check_against_catalog(workload, catalog)
        return workload
    return Simulation(scenario, workload, catalog=catalog).workload


def run_timeline(scenario: ScenarioSpec, workload: WorkloadSpec | Phase | None, catalog: Catalog | None = None,
                 fidelity: str = "fluid", horizon_s: float | None = None) -> Timeline:
    """Integrate the scenario's fault events under ``workload`` (a ``Phase``: its jobs at once)
    until every rebuild is done (or ``horizon_s``), state by state; ``scenario`` a ``ScenarioSpec``,
    checked again, or its file's path."""
    catalog = _catalog_of(catalog)
    scenario = _scenario_of(scenario, catalog)
    workload = _workload_of(scenario, workload, catalog)
    _check_run_arguments(fidelity, horizon_s)
    return _integrate(scenario, workload, catalog, fidelity, horizon_s)


def _integrate(scenario: ScenarioSpec, workload: WorkloadSpec | Phase | None, catalog: Catalog,
               fidelity: str, horizon_s: float | None) -> Timeline:
    """``run_timeline``'s integration over a scenario and workload already checked."""
    array = scenario.array
    cap = capacity(scenario, catalog)
    member_bytes = float(cap.member_bytes)
    span = min(float(array.rebuild.span_bytes or member_bytes), member_bytes)
    if isinstance(workload, WorkloadSpec):  # a job of a phase runs with the rest of it (as the rebuild summary's)
        workload = _with_its_phase(scenario, workload)
    trims_only = _trims_only(workload)  # the rebuild at the idle rate (a trim-only load held it at 0, for ever)
    out = Timeline(scenario.name, workload.name if workload else None, fidelity)
    events = list(scenario.faults)
    missing: set[int] = set()
    failed: set[int] = set()  # members that failed or were pulled at some time: a replace of one is a new drive
    striped = drives_striped(scenario, catalog)
    reported: set[int] = set()  # drives used directly whose loss the timeline has marked
    queue: list[int] = []
    spares = array.hot_spares
    t = 0.0
    current: RebuildRecord | None = None
    checking: CheckRecord | None = None
    cache: dict[tuple, Result] = {}
    protocol = _idle_system(scenario, catalog, ()).rebuild  # what a rebuilt byte reads
    for _ in range(max_segments(len(events))):
        while events and events[0].at_s <= t:
            e = events.pop(0)
            if e.action == "check":
                checking = _start_check(out, t, checking, bool(missing))
            elif e.action in ("fail", "pull"):
                if checking is not None:  # a failure stops the check (md_error: MD_RECOVERY_INTR)
                    checking.end_s, checking.outcome, checking = t, "interrupted", None
                if current is not None and current.member == e.drive:
                    current = None  # the drive being rebuilt failed again
                    queue = [m for m in queue if m != e.drive]
                missing.add(e.drive)
                failed.add(e.drive)
                if spares > 0:
                    spares -= 1
                    queue.append(e.drive)
            elif e.action == "replace":
                if not striped:  # a drive used directly: the new one is an empty device, nothing to rebuild
                    missing.discard(e.drive)
                elif e.drive in missing and e.drive not in queue and (current is None or current.member != e.drive):
                    queue.append(e.drive)
                elif e.drive in failed:  # a hot spare took the member's place: the new drive is a spare
                    spares += 1
        rebuilt = {current.member: current.bytes_rebuilt} if current else {}
        loss = lost_data(scenario, catalog, missing, rebuilt)
        if loss is not None and (loss.stops_io or not missing <= reported):
            loss.at_s = t
            out.data_loss = out.data_loss or loss
            out.segments.append(Segment(t, t, "data loss", tuple(sorted(missing)), None, 0.0, None, 0.0, 0.0, loss.detail))
            if loss.stops_io:
                break
            reported |= missing  # drives used directly: their own data is gone, the others' jobs go on
        if current is None and queue:
            member = queue.pop(0)
            current = RebuildRecord(member, t, None, 0.0, 0.0,
                                    *rebuild_write_amplification(scenario, catalog, member, tuple(missing - {member})))
            out.rebuilds.append(current)
        next_event = events[0].at_s if events else math.inf
        if horizon_s is not None:
            next_event = min(next_event, horizon_s)
        if checking is not None:
            if ("check",) not in cache:
                cache[("check",)] = _state_result(scenario, workload, catalog, CHECKING, fidelity)
            t = _check_segment(out, checking, cache[("check",)], t, next_event, span)
            if checking.end_s is not None:
                checking = None
            if math.isinf(t) or (horizon_s is not None and t >= horizon_s):
                break
            continue
        if current is None and not missing:
            if math.isinf(next_event):
                break
            iops, tps, why = math.nan, None, ""
            if workload is not None:  # the foreground before (and between) faults, for comparison
                if ((), None) not in cache:
                    cache[((), None)] = _state_result(scenario, workload, catalog, ArrayState(), fidelity)
                optimal = cache[((), None)]
                iops, tps, why = optimal.total_iops, optimal.transactions_per_s, optimal.limited_by
            out.segments.append(Segment(t, next_event, "optimal", (), None, iops, tps, 0.0, 0.0, why))
            t = next_event
            if horizon_s is not None and t >= horizon_s:
                break
            continue
        fraction, step_end = progress_step(current.bytes_rebuilt, span, workload is not None) if current else (0.0, span)
        fraction, width = _device_shares(fraction, span, member_bytes)
        key = (tuple(sorted(missing)), current.member if current else None, fraction)
        if key not in cache:
            cache[key] = _state_result(scenario, workload, catalog, ArrayState(key[0], key[1], rebuilt_fraction=fraction,
                                                                                rebuilt_step=width), fidelity)
        result = cache[key]
        if trims_only and key[1] is not None:
            idle = ("idle",) + key
            if idle not in cache:
                cache[idle] = _state_result(scenario, None, catalog, ArrayState(key[0], key[1], rebuilt_fraction=fraction,
                                                                                     rebuilt_step=width), fidelity)
            rate, rebuild_why = sync_rate(cache[idle])
        else:
            rate, rebuild_why = sync_rate(result)
        if current is None and workload is None:  # degraded with nothing running: nothing limits (as optimal)
            rebuild_why = ""
        end = _segment_end(t, next_event, current.bytes_rebuilt, step_end, rate) if current is not None else next_event
        if math.isinf(end):  # degraded for good: no replacement and no more events
            out.segments.append(Segment(t, math.inf, "degraded", key[0], None, result.total_iops,
                                        result.transactions_per_s, 0.0, 0.0, rebuild_why))
            break
        state = "rebuilding" if current is not None else "degraded"
        if current is not None:
            done, before = rate * (end - t), current.bytes_rebuilt
            current.bytes_rebuilt = step_end if end < next_event else min(step_end, current.bytes_rebuilt + done)
            done = current.bytes_rebuilt - before
            current.add_host_writes(result, array.drives - len(missing), before, member_bytes, end - t)
            current.survivor_bytes_read += done * protocol.reads_per_byte(array.drives, len(missing))
        out.segments.append(Segment(t, end, state, key[0], current.member if current else None, result.total_iops,
                                    result.transactions_per_s, rate, current.bytes_rebuilt if current else 0.0,
                                    rebuild_why))
        t = end
        if current is not None and current.bytes_rebuilt >= span * (1 - 1e-12):
            current.end_s = t
            missing.discard(current.member)
            current = None
        if horizon_s is not None and t >= horizon_s:
            break
    else:  # every event and rebuild ends within max_segments: not reaching an end is a defect, not a result
        raise RuntimeError(f"the timeline of {scenario.name!r} did not end within {max_segments(len(scenario.faults)):,} "
                           f"segments ({len(events)} events left at t = {t:,.0f} s)")
    return out


def max_segments(events: int) -> int:
    """Segments a timeline of ``events`` fault events can have: before, between and after them
    one (optimal, degraded, a check, data loss) or a rebuild's ``PROGRESS_STEPS`` cut by the events
    that fall inside it. Until 2026-12-01 a fixed 1,000 cut a timeline of 500 fail/replace cycles
    (1,000 events; up to 1,024 are taken) at its 167th rebuild, silently."""
    return (events + 1) * (PROGRESS_STEPS + 3)


PROGRESS_STEPS = 4
"""A rebuild under host I/O runs in this many steps of its span, each a state standing for its
step (``ArrayState.rebuilt_fraction`` its middle, ``rebuilt_step`` its width): host I/O reads and
writes the part of the member already rebuilt, so its rates, and the rebuild's, move as the
rebuild runs."""


def progress_step(done_bytes: float, span: float, under_load: bool) -> tuple[float, float]:
    """(the middle of the step the rebuild is in, as a share of its span, and the bytes rebuilt when
    that step ends) with ``done_bytes`` of ``span`` rebuilt; an idle array's rebuild is one step
    (no host I/O to use the rebuilt part)."""
    if not under_load:
        return 0.0, span
    step = min(PROGRESS_STEPS - 1, int(done_bytes / span * PROGRESS_STEPS * (1 + 1e-12)))
    return (step + 0.5) / PROGRESS_STEPS, span * (step + 1) / PROGRESS_STEPS


def _device_shares(fraction: float, span: float, member_bytes: float) -> tuple[float, float]:
    """(where the rebuild's edge is, the width of the step it stands for) as shares of the member,
    from ``fraction``, the middle of its step as a share of the ``span`` it rebuilds (0: idle, one
    step): the span is the member's first bytes (md's sync_max), so host I/O above it stays degraded
    (a 4 GiB span of a 3.84 TB member was taken as the whole device's steps: md RAID5 of 6 CM7-R
    under a 70/30 mix rose from 428K to 518K IOPS as if the whole member came back)."""
    if not fraction:
        return 0.0, 0.0
    return fraction * span / member_bytes, span / member_bytes / PROGRESS_STEPS


def _start_check(out: Timeline, t: float, checking: CheckRecord | None, degraded: bool) -> CheckRecord | None:
    """A ``check`` event at ``t``: the running check (a new one when the array is whole and none
    runs; a refused record otherwise)."""
    if checking is None and not degraded:
        checking = CheckRecord(t, None, 0.0, "running")
        out.checks.append(checking)
    else:
        out.checks.append(CheckRecord(t, t, 0.0, "refused"))
    return checking


def _segment_end(t: float, next_event: float, done_bytes: float, span: float, rate: float) -> float:
    """When a pass over every member's ``span`` (a rebuild or a check, ``done_bytes`` of it done at
    ``t``) running at ``rate`` bytes per second ends: when it is done, or at the next event first."""
    return min(next_event, t + (span - done_bytes) / rate) if rate > 0 else next_event


def _check_segment(out: Timeline, check: CheckRecord, result: Result, t: float, next_event: float, span: float) -> float:
    """The whole array checking from ``t`` at the checking state's rate until the check has read
    every member's ``span`` or the next event: its segment, the check's progress; the segment's end."""
    rate, why = sync_rate(result)
    end = _segment_end(t, next_event, check.bytes_checked, span, rate)
    check.bytes_checked = min(span, check.bytes_checked + rate * (end - t)) if math.isfinite(end) else check.bytes_checked
    out.segments.append(Segment(t, end, "checking", (), None, result.total_iops, result.transactions_per_s, rate,
                                check.bytes_checked, why))
    if check.bytes_checked >= span * (1 - 1e-12):
        check.end_s, check.outcome = end, "done"
    return end


REBUILD_SAMPLE_REQUESTS = 8
"""Rebuild requests priced to measure the rebuild's write amplification (every one writes alike)."""


def rebuild_write_amplification(scenario: ScenarioSpec, catalog: Catalog, target: int,
                                missing: tuple[int, ...] = ()) -> tuple[float, float]:
    """(RAID WAF, NAND WAF) of rebuilding member ``target`` with ``missing`` members down, from the
    engine's own rebuild requests (``ArraySystem.rebuild_batch``): the member bytes they write per
    byte of the replaced member they rebuild (1 for a plain recovery), and inside the drive written
    the FTL's NAND bytes programmed per byte written -- as for host writes (``sim.fluid.
    write_amplification``: the indirection unit's read-modify-write of each write size times the
    garbage collection of the stream), the stream here being the new member's sequential fill."""
    system = _idle_system(scenario, catalog, tuple(sorted(set(missing) | {target})))
    step = system.rebuild.step_bytes
    batch = system.rebuild_batch(target, np.arange(REBUILD_SAMPLE_REQUESTS, dtype=np.int64) * step, step)
    written = batch.op_bytes[batch.op_is_write]
    member = float(written.sum())
    if member == 0:
        return float("nan"), float("nan")
    ssd = system.drive.ssd
    sizes, counts = np.unique(written, return_counts=True)
    nand = float(sum(int(size) * ssd.rmw_factor(int(size), random=False) * c for size, c in zip(sizes, counts)))
    return member / (REBUILD_SAMPLE_REQUESTS * step), nand / member * ssd.waf_ftl(random=False)


def _idle_system(scenario: ScenarioSpec, catalog: Catalog, missing: tuple[int, ...]) -> ArraySystem:
    """The array with ``missing`` members down, for its rebuild protocol and requests alone."""
    idle = WorkloadSpec(name="idle", rw="randread", bs=4096)  # a system needs a workload; none runs
    return ArraySystem(scenario, idle, catalog, missing)


def rebuild_summary(scenario: ScenarioSpec, catalog: Catalog | None = None, workload: WorkloadSpec | None = None,
                    fidelity: str = "fluid") -> dict:
    """One member fails and a hot spare takes its place at once (without one, a new drive after
    ``array.replace_hours``), under ``workload`` (the scenario's first, else idle) with every job of
    its phase (they run together, as the scrub's load): rebuild time and speed, the risk of losing
    data over the wait and the rebuild (its URE over the survivor bytes the rebuild reads), and the
    array's MTTDL with that repair time."""
    catalog = _catalog_of(catalog)
    scenario = _scenario_of(scenario, catalog)
    workload = _workload_of(scenario, workload, catalog)
    array = scenario.array
    if workload is None and scenario.workloads:
        workload = scenario.workloads[0]
    drive = catalog.drives[array.drive]
    if array.engine == "none" or array.level == 0:
        return {"rebuild_hours": None, "rebuild_mb_per_s": None, "data_loss_probability": 1.0,
                "mttdl_years": (drive.mtbf_hours.value / array.drives) / HOURS_PER_YEAR,
                "note": f"RAID{array.level} has no redundancy: a failed drive loses data" if drives_striped(scenario, catalog)
                else "no RAID (each drive a device of its own): a failed drive loses its own data"}
    load = None if workload is None else _with_its_phase(scenario, workload)
    trims_only = _trims_only(load)
    if trims_only:
        load = None
    trial = scenario.model_copy(update={"faults": (FaultSpec(at_s=0.0, drive=0, action="fail"),),
                                        "array": array.model_copy(update={"hot_spares": max(1, array.hot_spares)})})
    _check_run_arguments(fidelity, None)
    timeline = _integrate(trial, load, catalog, fidelity, None)
    record = timeline.rebuilds[0]
    hours = (record.duration_s or math.inf) / 3600.0
    wait = array.replace_hours  # without a hot spare: degraded until a new drive takes the slot, then its rebuild
    risk: RebuildRisk = rebuild_risk(array.level, array.drives, drive.mtbf_hours.value, drive.uber_per_bit.value,
                                     hours, record.survivor_bytes_read, array.copies, wait_hours=wait,
                                     kind=array.raid10_kind)
    return {
        "workload": load.name if load else "idle", "replacement": slot_words(array.hot_spares, array.replace_hours),
        "replace_hours": wait, "exposure_hours": wait + hours,
        "rebuild_hours": hours, "rebuild_mb_per_s": record.bytes_rebuilt / max(record.duration_s or math.inf, 1e-12) / 1e6,
        "data_loss_probability": risk.p_data_loss, "mttdl_years": risk.mttdl_years,
        "p_another_failure": risk.p_another_failure, "p_unrecoverable_read": risk.p_unrecoverable_read,
        "annual_failure_rate": risk.annual_failure_rate, "survivor_bytes_read": risk.survivor_bytes_read,
        "rebuild_limited_by": _longest_limit(timeline),
        "rebuild_raid_waf": record.raid_waf, "rebuild_waf_nand": record.waf_nand,
        "rebuild_host_bytes_to_new_member": record.host_bytes_to_member,
        "rebuild_member_waf_nand": record.member_waf_nand,
        **({"note": "the workload trims only: the rebuild is an idle array's"} if trims_only else {}),
    }


def slot_words(hot_spares: int, replace_hours: float) -> str:
    """How a failed member's slot is filled, in words: the CLI summary's title and the report's
    rebuild heading say it alike."""
    if hot_spares:
        return "onto a hot spare"
    return f"no hot spare: replaced after {format_number(replace_hours)} h" if replace_hours else "no hot spare: replaced at once"


def _longest_limit(timeline: Timeline) -> str:
    """What limits the rebuild where it spends the most time: its steps under load may differ."""
    rebuilding = [s for s in timeline.segments if s.state == "rebuilding"] or timeline.segments
    return max(rebuilding, key=lambda s: s.end_s - s.start_s).limited_by if rebuilding else ""


def scrub_summary(scenario: ScenarioSpec, catalog: Catalog | None = None, workload: WorkloadSpec | None = None,
                  fidelity: str = "fluid", host_ios: int = EVENT_HOST_IOS, span_bytes: float | None = None) -> dict:
    """The array's parity scrub (the engine's ``check`` protocol: md's ``check`` sync action, a
    card's consistency check) as a state of the array (``ArrayState(checking=True)``, solved by the
    orchestrator): its time over the member span (``span_bytes``, else ``array.rebuild.span_bytes``,
    else the whole member) idle and under ``workload`` (the scenario's first), what limits it, and
    the host's rate while it runs against the optimal state's (``workload``'s phase whole, where it
    has one, and the phase's name). Idle it is the state solver's; under load in ``fidelity``
    ("event": the check's requests as the event mode's rebuild slots beside
    the host's, about ``host_ios`` measured)."""
    catalog = _catalog_of(catalog)
    scenario = _scenario_of(scenario, catalog)
    workload = _workload_of(scenario, workload, catalog)
    return _sync_summary(scenario, catalog, workload, fidelity, host_ios, span_bytes, CHECKING)


def _sync_summary(scenario: ScenarioSpec, catalog: Catalog, workload: WorkloadSpec | Phase | None, fidelity: str,
                  host_ios: int, span_bytes: float | None, state: ArrayState) -> dict:
    """``scrub_summary`` of the whole-array sync ``state`` runs (a check, or the resync after an
    unclean shutdown), its arguments checked: its protocol, the member bytes it writes over the
    span (``member_bytes_written``: none for a check, the other copies for a mirror's resync), its
    time and rate idle and under ``workload``, and the host's rate meanwhile."""
    if workload is None and scenario.workloads:
        workload = scenario.workloads[0]
    span = span_bytes if span_bytes is not None else \
        float(min(scenario.array.rebuild.span_bytes or math.inf, capacity(scenario, catalog).member_bytes))
    system = _idle_system(scenario, catalog, ())
    protocol = system.sync_protocol(state.resync)
    idle = Simulation(scenario, None, catalog=catalog, state=state).run("fluid")
    out = {"protocol": protocol.describe(), "span_bytes": span,
           "member_bytes_written": span * _written_per_byte(system, protocol), **_scrub_rate("idle", span, idle)}
    if workload is not None:
        load = _with_its_phase(scenario, workload)
        loaded = Simulation(scenario, load, catalog=catalog, state=state).run(fidelity, host_ios=host_ios)
        optimal = Simulation(scenario, load, catalog=catalog, state=ArrayState()).run(fidelity, host_ios=host_ios)
        out.update(_scrub_rate("loaded", span, loaded), workload=load.name,
                   host_iops_during=loaded.total_iops, host_iops_optimal=optimal.total_iops,
                   host_share=loaded.total_iops / optimal.total_iops if optimal.total_iops else None)
        if loaded.fidelity == "event":
            out["loaded_fidelity"] = "event"
    return out


def _written_per_byte(system: ArraySystem, protocol) -> float:
    """Member bytes a whole-array sync writes per byte of each member it covers, from its own
    requests (``rebuild_batch``): 0 for a check (nvsim writes no mismatch), N - 1 for an N-way
    mirror's resync (one copy read, every other written)."""
    if not protocol.writes_member:
        return 0.0
    step = protocol.step_bytes
    batch = system.rebuild_batch(0, np.arange(REBUILD_SAMPLE_REQUESTS, dtype=np.int64) * step, step, protocol)
    return float(batch.op_bytes[batch.op_is_write].sum()) / (REBUILD_SAMPLE_REQUESTS * step)


def unclean_shutdown_summary(scenario: ScenarioSpec, catalog: Catalog | None = None,
                             workload: WorkloadSpec | None = None) -> dict:
    """md's resync after an unclean shutdown (``array.unclean_shutdown``: power lost while
    ``workload``, the scenario's first, wrote at its optimal rate, fluid mode): the span of each
    member it covers (``Engine.dirty_after_crash``: the write-intent bitmap's dirty chunks, every
    member without one) and its time idle and under the same workload, run as the engine's resync
    protocol over that span (``ArrayModel.resync``, the state ``ArrayState(checking=True,
    resync=True)``): md RAID1 reads one copy and writes it to every other mirror
    (``raid1_sync_request``, ``sync_request_write``); raid10 and raid4/5/6 read every member of each
    dirty row and write only what differs (raid10's ``sync_request_write`` compares the copies;
    raid5's ``handle_parity_checks5/6`` repair a mismatch), the engine's ``check``."""
    catalog = _catalog_of(catalog)
    scenario = _scenario_of(scenario, catalog)
    workload = _workload_of(scenario, workload, catalog)
    if workload is None and scenario.workloads:
        workload = scenario.workloads[0]
    array = scenario.array
    model = _idle_system(scenario, catalog, ()).model
    region, rate, rate_bytes, random, streams = _writes_at_crash(scenario, catalog, workload, float(model.device_bytes))
    dirty = model.engine.dirty_after_crash(array.level, rate, rate_bytes, region, random, streams,
                                           data_members_per_stripe(array.level, array.drives, array.copies),
                                           data_copies(array.level, array.drives, array.copies),
                                           float(model.capacity.member_bytes))
    at_crash = "idle" if workload is None else _with_its_phase(scenario, workload).name  # a phase's jobs write together
    out = {"workload_at_crash": at_crash, "write_iops_at_crash": rate, **dirty}
    if dirty["span_bytes"] <= 0:
        return {**out, "idle_hours": 0.0, "loaded_hours": 0.0 if workload is not None else None}
    return {**out, **_sync_summary(scenario, catalog, workload, "fluid", EVENT_HOST_IOS, dirty["span_bytes"], RESYNCING)}


def _writes_at_crash(scenario: ScenarioSpec, catalog: Catalog, workload: WorkloadSpec | None,
                     device_bytes: float) -> tuple[float, float, float, bool, int]:
    """(region, writes/s, bytes/s, random, streams) of what wrote when the power went: ``workload``
    at its optimal rate (fluid mode), or with every job of its phase, which run together (their
    writes summed, over the largest region one writes, random if one is, each job's streams); a
    trim writes no data, so sets no bitmap bit."""
    if workload is None:
        return device_bytes, 0.0, 0.0, True, 1
    load = _with_its_phase(scenario, workload)
    result = Simulation(scenario, load, catalog=catalog).run("fluid")
    jobs, results = (list(load.jobs), list(result.jobs)) if isinstance(load, Phase) else ([workload], [result])
    writers = [(job, r) for job, r in zip(jobs, results) if not job.pure_trim and r.write_iops > 0]
    if not writers:
        return float(min(workload.size or device_bytes, device_bytes)), 0.0, 0.0, workload.is_random, workload.numjobs
    return (max(float(min(job.size or device_bytes, device_bytes)) for job, _ in writers),
            sum(r.write_iops for _, r in writers), sum(r.write_bytes_per_s for _, r in writers),
            any(job.is_random for job, _ in writers), sum(job.numjobs for job, _ in writers))


def _with_its_phase(scenario: ScenarioSpec, workload: WorkloadSpec | Phase) -> WorkloadSpec | Phase:
    """``workload``, or every job of its phase where it has one (they run together), ``workload``
    in its namesake's place (a caller's copy of it: the planner's load at a share of its jobs); a
    ``Phase`` as it is."""
    if isinstance(workload, Phase):
        return workload
    found = scenario.phase(workload.phase) if workload.phase is not None else None
    if found is None or workload in found.jobs:
        return found or workload
    if any(job.name == workload.name for job in found.jobs):
        return Phase(name=found.name, jobs=tuple(workload if job.name == workload.name else job for job in found.jobs))
    return Phase(name=found.name, jobs=(workload, *found.jobs))


def _trims_only(load: WorkloadSpec | Phase | None) -> bool:
    """A load of trims alone: deallocations read nothing from the survivors and write nothing to the
    new member, so a rebuild beside them runs at the idle array's rate."""
    return load is not None and all(job.pure_trim for job in _jobs(load))


def _jobs(load: WorkloadSpec | Phase) -> tuple[WorkloadSpec, ...]:
    return load.jobs if isinstance(load, Phase) else (load,)


def _scrub_rate(name: str, span: float, result) -> dict:
    rate, why = sync_rate(result)
    return {f"{name}_hours": span / rate / 3600.0 if rate > 0 else None, f"{name}_mb_per_s": rate / 1e6,
            f"{name}_limited_by": why}


__all__ = ["run_timeline", "slot_words", "rebuild_summary", "scrub_summary", "sync_rate", "unclean_shutdown_summary", "rebuild_write_amplification", "Timeline", "Segment", "DataLoss", "RebuildRecord", "CheckRecord",
           "data_loss_at_start", "data_loss_metrics"]
