"""The orchestrator: a scenario and a workload in, one :class:`Result` out.

In the manner of pvlib's ``ModelChain`` and PyBaMM's ``Simulation``: ``Simulation(scenario,
workload)`` holds a set-up, ``.run(fidelity)`` picks the solver and returns one record, the same
type for a single drive, an array, an OLTP database and a degraded or rebuilding array::

    result = Simulation("scenarios/graid-gen5-raid6", "randread-b4k-j192-d32").run("fluid")
    result.total_iops, result.bottleneck

The route is chosen in one place, :func:`route`, from this table:

| set-up | route | solver |
|---|---|---|
| one drive used directly (engine ``none``, one drive) under a fio job | ``drive`` | the SSD model's steady state (nvsim.ssd); the fidelity does not apply |
| an array in its optimal state under a fio job | ``array`` | the array simulator: SimPy events (``event``) or rates (``fluid``) |
| an OLTP workload (on one drive too), an idle array, a member missing, or a state the caller pins | ``state`` | a fio job in the ``event`` mode runs SimPy with the rebuild's requests alongside; everything else solves the queueing network of nvsim.sim.mixed |
| jobs that run at the same time (a ``Phase``, or a workload with a ``phase``) | ``phase`` | nvsim.workload.compose.phase |
| trims only (rw: trim, randtrim) | ``trim`` | nvsim.workload.compose.trim |
| fresh drives (``drive_state: fresh``) | ``fresh`` | nvsim.workload.compose.fresh |
| drives a sequential fill left (``drive_state: filled``) | ``filled`` | nvsim.workload.compose.filled |
| a trim before each write (rw: trimwrite) | ``trimwrite`` | nvsim.workload.compose.trimwrite |
| a rate cap per direction of a mix (``rate_iops_by_direction``) | ``direction_caps`` | nvsim.workload.compose.direction_caps |
| a rate cap with Poisson arrivals | ``poisson`` | nvsim.workload.compose.poisson |
| a rate cap (``rate_iops``) | ``paced`` | nvsim.workload.compose.paced |
| a think time (``thinktime``) | ``think`` | nvsim.workload.compose.think |
| a latency target (``latency_target``) | ``latency_target`` | nvsim.workload.compose.latency_target |
| a mix of block sizes (``bssplit``, ``bsrange``, a trace's sizes) | ``mix`` | nvsim.workload.compose.mix |

The composite rows (the last eleven) come first, in that order: each peels one feature of the workload
and solves the rest through the runner it is handed (``Simulation`` itself, with that row skipped),
so a workload with a mix, a rate cap and fresh drives goes fresh -> paced -> mix -> array. A
composite result carries ``scale``, the job's rate over the closed loop that gave its latencies.

A scenario's state is the one its faults at t = 0 leave (:meth:`ArrayState.at_start`); the fault
timeline (nvsim.rebuild) pins each later state in turn, and a pinned state always takes the
``state`` route, so every segment of a timeline comes from the same solver.

``Result``, ``Route`` and ``Fidelity`` live in nvsim.result (below the composite workloads of
nvsim.workload, which return them too) and are re-exported here.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import ValidationError

from . import budget
from .catalog import Catalog, catalog_or_default, default_catalog
from .constants import EVENT_HOST_IOS
from .cpus import usable_cpus
from .errors import InputError, from_validation_error, shown, suggestion_then
from .host_io import HostIoOptions, path_polls, workload_host_io_costs
from .links import drive_link
from .numba_cache import compile_notice
from .platform import PlatformModel
from .result import Fidelity, Result, Route
from .scenario import as_scenario
from .sim import ArraySystem, SimResult, simulate_event, simulate_fluid
from .sim.drive_load import ftl_load
from .sim.event import Precision
from .sim.mixed import solve_state
from .specs import Phase, ScenarioSpec, WorkloadSpec
from .array_capacity import Capacity, drives_striped
from .array_capacity import capacity as _capacity
from .states import ArrayState, lost_data
from .ssd import DrivePrediction, SsdModel
from .workload.compose import ROWS, SHARED_DRIVE, Job, composite_route

FIDELITIES: tuple[str, ...] = ("event", "fluid")
HOST_IOS_MIN = 1_000
HOST_IOS_MAX = 10_000_000
"""The ``host_ios`` a run (``Simulation.run``) and a sweep take: 1,000 to 10,000,000 measured host
I/Os (0 ended in a division by zero, a negative count in a NumPy error, 10^8 took gigabytes and minutes)."""
DRIVE_MODEL = "drive model"
"""The ``fidelity`` of a single drive's result: the SSD model has one (steady-state rates)."""


def single_drive(scenario: ScenarioSpec) -> bool:
    """One drive used directly: the SSD model's steady state answers, not the array simulator."""
    return scenario.array.single_drive


def capacity(scenario: ScenarioSpec | str | Path, catalog: Catalog | None = None) -> Capacity:
    """Usable, raw and member bytes of the scenario's array (``nvsim.capacity``): a ``ScenarioSpec``,
    checked again, or its file's path (``as_scenario``)."""
    catalog = catalog_or_default(catalog)
    return _capacity(as_scenario(scenario, catalog), catalog)


def route(scenario: ScenarioSpec, workload: WorkloadSpec | Phase | None, state: ArrayState | None = None,
          peeled: frozenset[str] = frozenset()) -> Route:
    """The route table of the module docstring: which solver answers this set-up.

    ``state`` None: the state the scenario's faults leave at t = 0; a state the caller pins (the
    fault timeline's) always takes the ``state`` route once the composite rows are peeled;
    ``peeled``: composite rows already applied (skipped)."""
    if workload is not None and not workload.is_oltp:
        row = composite_route(workload, peeled)
        if row is not None:
            return row
    return placed_route(scenario, workload, state, shared_drive=SHARED_DRIVE in peeled)


def placed_route(scenario: ScenarioSpec, workload: WorkloadSpec | Phase | None, state: ArrayState | None = None,
                 shared_drive: bool = False) -> Route:
    """Where a closed loop of the workload is solved: one drive, the optimal array, or a state
    (``shared_drive``: one drive's loop among jobs sharing it, solved by the array simulator)."""
    if state is not None or workload is None:
        return "state"
    if workload.is_oltp:  # a database's users are the network's class, on one drive as on an array
        return "state"
    if single_drive(scenario) and not shared_drive:
        return "drive"
    if ArrayState.at_start(scenario).missing:
        return "state"
    return "array"


def check_against_catalog(workload: WorkloadSpec | Phase, catalog: Catalog) -> None:
    """A workload built in Python, checked against the catalog as a scenario file's are (its
    ioengine a host I/O path the catalog has: a misspelled one was a KeyError deep in a run)."""
    for job in workload.jobs if isinstance(workload, Phase) else (workload,):
        try:
            WorkloadSpec.model_validate(job.model_dump(exclude_unset=True), context={"catalog": catalog})
        except ValidationError as error:
            raise from_validation_error(error, WorkloadSpec, prefix=f"workload {job.name!r}") from None


def _check_state(state: ArrayState, drives: int) -> None:
    """A state the caller pins: its members on the array, none twice, the one rebuilt among the
    missing, the rebuilt share a share."""
    members = list(state.missing) + ([state.rebuilding] if state.rebuilding is not None else [])
    if any(not isinstance(m, int) or isinstance(m, bool) or not 0 <= m < drives for m in members):
        raise InputError("state.missing", f"members of the array, 0 to {drives - 1}; got missing {list(state.missing)}, "
                                          f"rebuilding {state.rebuilding}")
    if len(set(state.missing)) != len(state.missing):
        raise InputError("state.missing", f"each member once; got {list(state.missing)}")
    if state.rebuilding is not None and state.rebuilding not in state.missing:
        raise InputError("state.rebuilding", f"one of the missing members {list(state.missing)} (a rebuild writes a "
                                             f"member that is missing); got {state.rebuilding}")
    if state.resync and not state.checking:
        raise InputError("state.resync", "with checking=True (the resync after an unclean shutdown is a sync of the "
                                         "whole array, as a check is); got checking=False")
    for name in ("rebuilt_fraction", "rebuilt_step"):
        value = getattr(state, name)
        if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise InputError(f"state.{name}", f"a share from 0 to 1; got {shown(value)}")


def _latencies_times(record: SimResult, factor: float) -> SimResult:
    """``record`` with every latency (means, percentiles, samples, the tail's interval, the fluid
    mode's floor) ``factor`` times."""
    def times(stats: dict) -> dict:
        return {k: (None if v is None else (tuple(None if x is None else x * factor for x in v)
                                            if isinstance(v, tuple) else v * factor)) for k, v in stats.items()}
    return replace(record, read_latency_us=times(record.read_latency_us), write_latency_us=times(record.write_latency_us),
                   latency_samples_s={k: v * factor for k, v in record.latency_samples_s.items()},
                   tail_ci95_us=times(record.tail_ci95_us),
                   unloaded_latency_us=None if record.unloaded_latency_us is None else record.unloaded_latency_us * factor)


class Simulation:
    """A set-up ready to run: a scenario, one workload (or none: the array idle), a catalog and the
    array's state (default: the one the scenario's faults leave at t = 0).

    ``scenario``: a ``ScenarioSpec``, or a path to a scenario file or directory (loaded with
    ``nvsim.scenario.load_scenario``); ``workload``: a ``WorkloadSpec``, a ``Phase`` (jobs that run
    at the same time), or the name of one of the scenario's workloads or phases. ``peeled``: the
    composite rows already applied (the runner the composite rows are handed sets it).
    """

    def __init__(self, scenario: ScenarioSpec | str | Path, workload: WorkloadSpec | Phase | str | None = None, *,
                 catalog: Catalog | None = None, state: ArrayState | None = None, peeled: frozenset[str] = frozenset()):
        if catalog is not None and not isinstance(catalog, Catalog):
            raise InputError("catalog", f"a nvsim Catalog (nvsim.load_catalog(folder) for your own), got "
                                        f"{type(catalog).__name__} {shown(catalog)}")
        if state is not None and not isinstance(state, ArrayState):
            raise InputError("state", f"a nvsim ArrayState (missing, rebuilding, rebuilt_fraction), got "
                                      f"{type(state).__name__} {shown(state)}")
        self.catalog = catalog or default_catalog()
        top = not peeled and state is None  # the caller's (a composite row's or a timeline's are checked already)
        self.scenario = as_scenario(scenario, self.catalog) if top or not isinstance(scenario, ScenarioSpec) else scenario
        if top and isinstance(workload, (WorkloadSpec, Phase)):
            check_against_catalog(workload, self.catalog)
        if state is not None and not peeled:
            _check_state(state, self.scenario.array.drives)
        self.workload = self._workload(workload)
        self.peeled = peeled
        self.route: Route = route(self.scenario, self.workload, state, peeled)
        self.pinned = state
        self.state = state if state is not None else ArrayState.at_start(self.scenario)

    def _workload(self, workload: WorkloadSpec | Phase | str | None) -> WorkloadSpec | Phase | None:
        if workload is None or isinstance(workload, (WorkloadSpec, Phase)):
            return workload
        if not isinstance(workload, str):
            raise InputError("workload", f"a WorkloadSpec, a Phase, or the name of one of the scenario's workloads or "
                                         f"phases; got {type(workload).__name__} {shown(workload)}")
        names = [w.name for w in self.scenario.workloads]
        if workload in names:
            return self.scenario.workloads[names.index(workload)]
        phase = self.scenario.phase(workload)
        if phase is None:
            raise InputError("workload", f"scenario {self.scenario.name} has no workload {workload!r}"
                                         f"{suggestion_then(workload, names)}it has: {', '.join(names) or 'none'}")
        return phase

    def run(self, fidelity: Fidelity = "event", seed: int | None = None, host_ios: int = EVENT_HOST_IOS,
            precision: Precision | None = None, progress=None) -> Result:
        """Solve the set-up on its route. ``fidelity``: ``event`` (latency percentiles) or
        ``fluid`` (rates, ~1000x faster); ``seed`` None: the scenario's; ``host_ios``: host I/Os
        measured by an event-mode run (after its warm-up), longer if ``precision`` asks for a tail
        known to it (``nvsim.sim.event.Precision``); ``progress(done_s, total_s)`` as it runs."""
        if fidelity not in FIDELITIES:
            raise InputError("fidelity", f"unknown fidelity {fidelity!r}; allowed: {', '.join(FIDELITIES)}")
        check_host_ios(host_ios)
        check_seed(seed)
        if not self.peeled and self.workload is not None:  # the caller's workload (a composite's inner loops are no larger)
            jobs = self.workload.jobs if isinstance(self.workload, Phase) else (self.workload,)
            for job in jobs:
                budget.check_workload(job, fidelity, field=f"workload {job.name!r}", host_ios=host_ios,
                                      instead="run('fluid')")
            self._check_regions(jobs)
        if precision is not None and not isinstance(precision, Precision):
            raise InputError("precision", f"a nvsim.Precision, got {type(precision).__name__}")
        compile_notice()  # a process's first run with an empty kernel cache says it compiles (a terminal only)
        if self.route != "drive" and self.state.missing:
            loss = lost_data(self.scenario, self.catalog, set(self.state.missing), {})
            survivors = self._drives_left() if loss is not None else None
            if survivors is not None:  # drives used directly: the others' jobs go on
                result = survivors.run(fidelity, seed, host_ios, precision, progress)
                return replace(result, scenario=self.scenario.name, state=self.state).with_note(
                    f"DATA LOSS on drive(s) {list(self.state.missing)}: {loss.detail}; the jobs bound to them stop "
                    f"(fio: I/O errors), {survivors.workload.numjobs} of {self.workload.numjobs} go on")
            if loss is not None:  # md fails the array: every I/O errors, no rate to predict
                return _record(self, _no_io(self, fidelity, f"DATA LOSS: {loss.detail}"))
        window = EventWindow(host_ios, precision, progress)
        if self.route in ROWS:
            return ROWS[self.route](self._job(fidelity, seed, window))
        spinning = self._spinning_jobs()
        if spinning is not None:
            return self._polled_on(spinning, fidelity, seed, window)
        return SOLVERS[self.route](self, fidelity, seed, window)

    def _check_regions(self, jobs) -> None:
        """Refuse, as ``nvsim run`` does (``budget.check_scenario_regions``), a job whose region is
        not on the array: an ``offset`` or a clone's start past its end, an OLTP data set larger than
        it. A ``size`` past the end is left to the run, which cuts it there (fio's 'N%' sizes are
        cut so)."""
        placed = [job for job in jobs if job.offset or job.offset_increment or job.is_oltp]
        device_bytes, devices = self.device_extent if placed else (0, 1)
        for job in placed:
            budget.check_region(job, device_bytes, field=f"workload {job.name!r}", size_clamped=True, devices=devices)

    def _spinning_jobs(self) -> int | None:
        """How many of a fio job's clones can poll at once where they outnumber their CPUs: a job
        that polls for its completions (a polled path: SPDK, hipri) spins on its CPU until its I/O
        completes, and each io_uring SQ polling thread spins on one more, so the job's logical CPUs
        over the spinning threads of one job (None: nothing spins, or they fit)."""
        workload = self.workload
        if not isinstance(workload, WorkloadSpec) or workload.is_oltp or workload.pure_trim:
            return None
        host_io = self.catalog.host_io[workload.ioengine]
        options = HostIoOptions.of(workload)
        spinning = int(path_polls(host_io, options)) + int(options.sqthread_poll)
        if not spinning:
            return None
        _cores, cpus = PlatformModel(self.catalog.platforms[self.scenario.platform], self.scenario.placement,
                                     self.scenario.array.drives, self.catalog).job_cores()
        fit = max(1, cpus // spinning)
        return fit if workload.numjobs > fit else None

    def _polled_on(self, fit: int, fidelity: str, seed: int | None, window: "EventWindow") -> Result:
        """More polling clones than their CPUs hold: the rates of the ``fit`` clones that spin at once
        (the others' I/Os wait for a CPU), the job's own clone count in every per-clone figure."""
        workload = self.workload
        inner = Simulation(self.scenario, workload.model_copy(update={"numjobs": fit}), catalog=self.catalog,
                           state=self.pinned, peeled=self.peeled | {"polled"})
        result = SOLVERS[inner.route](inner, fidelity, seed, window)
        if result.simulation is not None:  # Little's law over the job's own clones: each I/O waits for its CPU
            result = replace(result, simulation=_latencies_times(result.simulation, workload.numjobs / fit))
        return result.with_note(
            f"job {workload.name}: its {workload.numjobs} clones poll for their I/Os (a spinning thread keeps its CPU "
            f"busy until its I/O completes), and the job's CPUs spin for {fit} of them at once: the rates are those "
            f"{fit} clones', and each clone's I/Os wait for a CPU about {workload.numjobs / fit:.1f} times as long "
            f"as theirs (nvsim.simulation)")

    def _job(self, fidelity: str, seed: int | None, window: "EventWindow") -> Job:
        """What a composite row is handed: the set-up, and this orchestrator as its runner."""
        def solve(workload: WorkloadSpec, peel: frozenset[str]) -> Result:
            inner = Simulation(self.scenario, workload, catalog=self.catalog, state=self.pinned,
                               peeled=self.peeled | peel | {self.route})
            return inner.run(fidelity, seed, window.host_ios, window.precision, window.progress)
        placed = placed_route(self.scenario, self._any_workload(), self.pinned)
        return Job(self.scenario, self.workload, self.catalog, fidelity, self.state, placed, solve, lambda: self.device_bytes)

    def _drives_left(self) -> "Simulation | None":
        """Drives used directly (engine none, a card's pass-through) with some missing: each fio job
        is bound to one drive (job j to drive j mod drives, as the array's run binds them), so the
        jobs of the drives left run on those drives alone; None where the array is striped, where
        no job is left, or for a phase or an OLTP database (one device over every drive)."""
        workload, array = self.workload, self.scenario.array
        if not isinstance(workload, WorkloadSpec) or workload.is_oltp or drives_striped(self.scenario, self.catalog):
            return None
        missing = set(self.state.missing)
        jobs = sum(1 for j in range(workload.numjobs) if j % array.drives not in missing)
        if jobs == 0:
            return None
        left = array.model_copy(update={"drives": array.drives - len(missing), "hot_spares": 0})
        scenario = self.scenario.model_copy(update={"array": left, "faults": ()})
        return Simulation(scenario, workload.model_copy(update={"numjobs": jobs}), catalog=self.catalog)

    def without_faults(self) -> "Simulation":
        """The same set-up on the optimal array (the scenario without its faults)."""
        return Simulation(self.scenario.model_copy(update={"faults": ()}), self.workload, catalog=self.catalog)

    @property
    def device_bytes(self) -> int:
        """Bytes the host sees: the array's usable capacity, or one drive's namespace (no RAID)."""
        return ArraySystem(self.scenario, self._any_workload(), self.catalog).device_bytes

    @property
    def job_devices(self) -> int:
        """Devices a job's clones are spread over, each of ``device_bytes``: the drives where they
        are used directly (no RAID: clone ``j`` on drive ``j mod drives``), else 1, the array."""
        return 1 if drives_striped(self.scenario, self.catalog) else self.scenario.array.drives

    @property
    def device_extent(self) -> tuple[int, int]:
        """(``device_bytes``, ``job_devices``): where a job's region must lie, as the region checks
        take it (``budget.check_scenario_regions``, ``check_region``)."""
        return self.device_bytes, self.job_devices

    def _any_workload(self) -> WorkloadSpec:
        if isinstance(self.workload, Phase):
            return self.workload.jobs[0]
        return self.workload or WorkloadSpec(name="idle", rw="randread", bs=4096)


SEED_MAX = 2**64 - 1
"""Largest seed a run takes (a scenario's ``seed`` is below 2^64: NumPy's seeds are unsigned)."""


def check_seed(seed: object) -> None:
    """A run's ``seed``: None (the scenario's) or a whole number from 0 to 2^64 - 1, else a one-line
    InputError (a negative one raised NumPy's ValueError, text a TypeError)."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= SEED_MAX:
        raise InputError("seed", f"None (the scenario's) or a whole number from 0 to 2^64 - 1, got {shown(seed)}")


def check_host_ios(host_ios: object, field: str = "host_ios") -> int:
    """``host_ios`` as a run takes it: a whole number from ``HOST_IOS_MIN`` to ``HOST_IOS_MAX`` (true
    and false are not numbers), or a one-line InputError naming ``field``."""
    if isinstance(host_ios, bool) or not isinstance(host_ios, numbers.Integral) \
            or not HOST_IOS_MIN <= host_ios <= HOST_IOS_MAX:
        raise InputError(field, f"measured host I/Os of an event-mode run: a whole number from {HOST_IOS_MIN:,} to "
                                f"{HOST_IOS_MAX:,}, got {shown(host_ios)}")
    return int(host_ios)


def _record(sim: Simulation, simulation: SimResult | None = None, drive: DrivePrediction | None = None) -> Result:
    """A run's Result; its fidelity is the solver's own (an OLTP state is fluid in either mode)."""
    fidelity = simulation.fidelity if simulation is not None else DRIVE_MODEL
    return Result(sim.scenario.name, sim.workload.name if sim.workload else None, sim.route, fidelity, sim.state,
                  simulation, drive)


def _no_io(sim: Simulation, fidelity: str, why: str) -> SimResult:
    """A state that serves no I/O (it has lost data): zero rates, and why."""
    return SimResult(scenario=sim.scenario.name, workload=sim.workload.name if sim.workload else "idle",
                     fidelity=fidelity, read_iops=0.0, write_iops=0.0, read_bytes_per_s=0.0, write_bytes_per_s=0.0,
                     cpu_percent=0.0, limited_by=why)


@dataclass(frozen=True)
class EventWindow:
    """How long an event-mode run measures: ``host_ios``, or on until ``precision``; ``progress``."""

    host_ios: int = EVENT_HOST_IOS
    precision: Precision | None = None
    progress: Callable | None = None


def _run_drive(sim: Simulation, fidelity: str, seed: int | None, window: EventWindow) -> Result:
    """One drive used directly: the SSD model's steady state on the platform's drive link, bounded
    by the job's queue (Little's law) and its cores' host-path CPU."""
    scenario, catalog = sim.scenario, sim.catalog
    drive = catalog.drives[scenario.array.drive]
    link = drive_link(drive, catalog.platforms[scenario.platform], catalog, scenario.topology, 1)  # bay or slot
    model = SsdModel.from_drive(drive, scenario.array.namespace_bytes)
    model = model.with_load(ftl_load(sim.workload, model.namespace_bytes))  # region, skew, trims, state
    host = PlatformModel(catalog.platforms[scenario.platform], scenario.placement, 1, catalog)
    costs = workload_host_io_costs(catalog.host_io[sim.workload.ioengine], sim.workload,  # as the simulator's
                                   host.loaded_clock_ghz(sim.workload.numjobs), model.unloaded_latency_s(sim.workload, link))
    prediction = model.predict(sim.workload, link, costs.cpu_s, costs.wake_s)
    return _record(sim, drive=prediction)


def _run_array(sim: Simulation, fidelity: str, seed: int | None, window: EventWindow) -> Result:
    """The optimal array under a fio job: the array simulator in either fidelity."""
    system = ArraySystem(sim.scenario, sim.workload, sim.catalog)
    if fidelity == "fluid":
        return _record(sim, simulate_fluid(system, seed))
    return _record(sim, simulate_event(system, seed=seed, host_ios=window.host_ios, precision=window.precision,
                                       progress=window.progress))


def _run_state(sim: Simulation, fidelity: str, seed: int | None, window: EventWindow) -> Result:
    """One state's foreground and rebuild rates (``workload`` None: the array idle): a fio job in
    the event mode runs SimPy with the rebuild's requests alongside; OLTP workloads, an idle array
    and the fluid mode solve the network of nvsim.sim.mixed."""
    state, workload = sim.state, sim.workload
    if fidelity == "event" and workload is not None and not workload.is_oltp:
        system = ArraySystem(sim.scenario, workload, sim.catalog, failed_members=state.missing,
                             rebuilding=state.rebuilding, rebuilt_fraction=state.rebuilt_fraction,
                             rebuilt_step=state.rebuilt_step)
        return _record(sim, simulate_event(system, seed=seed, host_ios=window.host_ios, rebuild_member=state.rebuilding,
                                           checking=state.checking, resync=state.resync))
    result = solve_state(sim.scenario, workload, sim.catalog, failed=state.failed, rebuilding=state.rebuilding,
                         seed=seed, checking=state.checking, resync=state.resync,
                         rebuilt_fraction=state.rebuilt_fraction,
                         rebuilt_step=state.rebuilt_step)
    return _record(sim, result)


SOLVERS: dict[str, Callable[[Simulation, str, int | None, EventWindow], Result]] = {
    "drive": _run_drive, "array": _run_array, "state": _run_state}
"""Each route's solver (see :func:`route`)."""


def predict_workload(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None,
                     fidelity: Fidelity = "event") -> dict[str, float | str | None]:
    """The metrics validation and calibration compare: ``Simulation(...).run(fidelity).metrics()``,
    and for an OLTP workload under faults also the same users on the optimal array
    (``transactions_per_s_optimal``) and the ratio of the two (``tps_ratio``)."""
    simulation = Simulation(scenario, workload, catalog=catalog)
    result = simulation.run(fidelity)
    values = result.metrics()
    if simulation.route != "drive" and workload.is_oltp and scenario.faults:
        optimal = simulation.without_faults().run(fidelity)
        values["transactions_per_s_optimal"] = optimal.transactions_per_s
        values["tps_ratio"] = result.transactions_per_s / optimal.transactions_per_s
    return values


def compile_beside(scenario: ScenarioSpec, catalog: Catalog, fidelity: Fidelity) -> bool:
    """A first event-mode run's kernel compiled in a forked process while this one compiles the
    rest (``nvsim.sim.event.beside``), where some workload of ``scenario`` takes the array's event
    mode; True when it was started."""
    if fidelity != "event" or single_drive(scenario):
        return False
    if not any(route(scenario, w) == "array" for w in scenario.workloads):
        return False
    from .sim.event import beside

    return beside.compile_beside(scenario, catalog)


def run_workloads(scenario: ScenarioSpec, catalog: Catalog | None = None, fidelity: Fidelity = "event",
                  precision: Precision | None = None, workers: int = 1,
                  progress: Callable[[str], Callable[[float, float], None]] | None = None) -> dict[str, Result]:
    """Each workload of ``scenario`` run on its own ``Simulation``, by name in the scenario's order:
    in this process, or in event mode with ``workers`` > 1 in that many forked processes (at most
    one per CPU), the largest blocks first, where a pool pays (``_forks_pay``). A workload's run has its own seeded
    streams, so the results do not depend on ``workers``. ``progress(name)``: the callback of one
    workload's run (``LateProgress.for_task``); a forked run reports when done."""
    catalog = catalog or default_catalog()
    workloads = list(scenario.workloads)
    progress = progress or (lambda name: None)
    runs = workload_runs(scenario)
    workers = min(workers, len(runs), usable_cpus())  # a process beyond the CPUs adds its memory, no speed
    if fidelity == "event" and workers > 1:  # a first run's kernel compiled beside: then the workers may fork
        from .sim.event import beside

        beside.wait()
    if fidelity != "event" or workers <= 1 or not _forks_pay():
        results = {i: r for run in runs for i, r in zip(run, run_workload_group(scenario, catalog, fidelity, run, precision,
                                                                                progress(workloads[run[0]].name)))}
        return {w.name: results[i] for i, w in enumerate(workloads)}
    from .workers import process_pool

    order = sorted(range(len(runs)), key=lambda k: -max(workloads[i].bs for i in runs[k]))  # long runs first (stable)
    with process_pool(workers, initializer=_adopt, initargs=(scenario, catalog, fidelity, precision)) as pool:
        futures = {k: pool.submit(_run_adopted, runs[k]) for k in order}
        results = {}
        for k in order:
            results.update(zip(runs[k], futures[k].result()))
            for i in runs[k]:
                report = progress(workloads[i].name)
                if report is not None:
                    report(1.0, 1.0)
    return {w.name: results[i] for i, w in enumerate(workloads)}


def workload_runs(scenario: ScenarioSpec) -> list[tuple[int, ...]]:
    """The scenario's workloads (by index) as the runs that answer them, in the order of their
    first workload: a workload alone, or every workload of one phase together. A phase is solved
    whole (each of its jobs' answers depends on all the others'), so one run answers all its
    workloads; run once per workload it solved the same phase again for each (256 workloads with
    flow weights: 65,536 closed loops, two minutes in fluid mode)."""
    runs: list[tuple[int, ...]] = []
    at: dict[str, int] = {}
    for i, workload in enumerate(scenario.workloads):
        if workload.phase is not None and workload.phase in at:
            runs[at[workload.phase]] += (i,)
            continue
        if workload.phase is not None:
            at[workload.phase] = len(runs)
        runs.append((i,))
    return runs


def run_workload_group(scenario: ScenarioSpec, catalog: Catalog, fidelity: Fidelity, run: tuple[int, ...],
                       precision: Precision | None = None, progress=None, host_ios: int = EVENT_HOST_IOS) -> list[Result]:
    """The Results of the workloads of ``run`` (``workload_runs``): one workload's own, or a phase's
    jobs' (``Result.jobs``, in the scenario's order, as each of its workloads' own run gives it)."""
    first = scenario.workloads[run[0]]
    if len(run) == 1:
        return [Simulation(scenario, first, catalog=catalog).run(fidelity, host_ios=host_ios, precision=precision,
                                                                 progress=progress)]
    whole = Simulation(scenario, first.phase, catalog=catalog).run(fidelity, host_ios=host_ios, precision=precision,
                                                                   progress=progress)
    return list(whole.jobs)


def _forks_pay() -> bool:
    """Whether forked workers may run workloads: forking is safe (``nvsim.workers.start_method``)
    and the event kernel is compiled already (with an empty cache each worker would compile the
    same kernels at once: they compile once, here; after a first run's kernel compiled beside,
    the rest of the event mode's first batch is not yet). The fluid mode's runs take a fraction of a
    second: they run here (no pool, no multiprocessing import)."""
    from .numba_cache import compiled_in_cache
    from .sim.event import compiled, kernel
    from .workers import start_method

    # the kernel and the copy of each batch into its rows (compiled on a first run's first batch,
    # after the kernel was compiled beside it: ``compile_beside``)
    return start_method() == "fork" and compiled_in_cache(kernel.run) and compiled_in_cache(compiled._fill_rows)


_ADOPTED: tuple | None = None
"""A forked worker's (scenario, catalog, fidelity, precision), set once by ``_adopt`` (a forked
process inherits them: nothing is pickled)."""


def _adopt(scenario: ScenarioSpec, catalog: Catalog, fidelity: Fidelity, precision: Precision | None) -> None:
    global _ADOPTED
    _ADOPTED = (scenario, catalog, fidelity, precision)


def _run_adopted(run: tuple[int, ...]) -> list[Result]:
    """The workloads of ``run`` of the adopted scenario, run in a forked worker."""
    scenario, catalog, fidelity, precision = _ADOPTED
    return run_workload_group(scenario, catalog, fidelity, run, precision)


__all__ = ["Simulation", "capacity", "Result", "ArrayState", "Precision", "EventWindow", "route", "single_drive", "predict_workload", "run_workloads", "workload_runs", "run_workload_group", "SOLVERS",
           "EVENT_HOST_IOS", "HOST_IOS_MIN", "HOST_IOS_MAX", "check_host_ios", "FIDELITIES", "Fidelity", "Route", "Phase", "placed_route"]
