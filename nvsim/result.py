"""What a simulation returns, whichever route answered: :class:`Result`, and the names of its
route (:data:`Route`) and fidelity (:data:`Fidelity`).

Below everything that returns one: the orchestrator (nvsim.simulation) and the composite workloads
(nvsim.workload) build it; clients read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from .sim.result import SimResult, Utilisation
from .specs import ScenarioSpec, WorkloadSpec
from .ssd import DrivePrediction
from .states import ArrayState

Fidelity = Literal["event", "fluid"]
Route = Literal["drive", "array", "state", "phase", "trim", "fresh", "filled", "trimwrite", "direction_caps", "poisson", "paced", "think",
                "latency_target", "mix"]
"""The rows of the route table (nvsim.simulation): three closed-loop solvers, and the composite rows
of nvsim.workload.compose, each peeling one feature of the workload."""
RATE_METRICS = ("read_iops", "write_iops", "total_iops", "read_bytes_per_s", "write_bytes_per_s")
"""The metrics a composite result's ``scale`` multiplies (its latencies are its closed loop's)."""

ClosedLoop = Callable[[ScenarioSpec, WorkloadSpec, str], "Result"]
"""The closed-loop runner the composite workloads (nvsim.workload) are handed: one closed loop of a
workload on a scenario at a fidelity, as ``Simulation(scenario, workload).run(fidelity)`` (the
caller binds the catalog)."""


@dataclass(frozen=True)
class Result:
    """What a simulation returns, whichever route answered: rates, CPU, latency, write
    amplification, utilisation and what limits them.

    ``simulation`` is the array simulator's full record (``nvsim.sim.SimResult``: latency samples,
    the measured window, every resource's utilisation) and ``drive`` the SSD model's
    (``nvsim.ssd.DrivePrediction``); exactly one of the two is set. The properties read either,
    spelled as :meth:`metrics` names them.

    A composite workload (nvsim.workload.compose) answers with the record of the closed loop that
    gave its latencies and ``scale``, the job's rate over that loop's (a rate cap, a share of a shared
    loop, think time, fresh drives filling): the rate properties and :meth:`metrics` are scaled,
    ``simulation``/``drive`` are the loop's own. ``loop``: that closed loop (None: the workload's
    own); ``note``: what the composite did; ``trim_iops``/``trim_latency_s``: trims (NVMe
    deallocations) per second and each one's latency; ``clones``: (first, count, of) the job's clones
    among a shared loop's; ``jobs``: a phase's jobs, each a Result (the phase's rates are their sum);
    ``solved``: the workload as solved where the composite changed it (a phase's trimmed share).
    """

    scenario: str
    workload: str | None
    route: Route
    fidelity: str  # the solver's: "event", "fluid" (the network's states too), or "drive model"
    state: ArrayState
    simulation: SimResult | None = None
    drive: DrivePrediction | None = None
    scale: float = 1.0
    loop: WorkloadSpec | None = None
    note: str = ""
    trim_iops: float | None = None
    trim_latency_s: float | None = None
    clones: tuple[int, int, int] | None = None
    jobs: tuple["Result", ...] = ()
    solved: WorkloadSpec | None = None
    paced_by: str = ""  # what holds the job below its loop's rate, where not a resource (a rate cap, a think time)

    @property
    def unscaled(self) -> "Result":
        """The closed loop's own rates (``scale`` 1)."""
        return replace(self, scale=1.0)

    def with_note(self, note: str) -> "Result":
        """This result with ``note`` added to its notes."""
        return replace(self, note=f"{self.note}; {note}" if self.note else note)

    def metrics(self) -> dict[str, float | str | None]:
        """Flat metrics, the names validation compares: the simulator's ``SimResult.metrics()``, or
        for a single drive the SSD model's numbers (``DrivePrediction.as_dict()``) and
        ``limited_by``."""
        if self.jobs:
            return self._phase_metrics()
        if self.drive is not None:
            values: dict[str, float | str | None] = dict(self.drive.as_dict())
            values["limited_by"] = self.drive.limited_by
        else:
            values = self.simulation.metrics()
        if self.scale != 1.0:
            values.update({k: v * self.scale for k, v in values.items() if k in RATE_METRICS and v is not None})
            if values.get("cpu_percent") is not None:
                values["cpu_percent"] = self.cpu_percent
        if self.paced_by:
            values["limited_by"] = self.paced_by
        if self.trim_iops is not None:  # trims are I/Os fio issues and counts: a trim job's IOPS are its trims
            values["trim_iops"] = self.trim_iops
            values["total_iops"] = (values.get("total_iops") or 0.0) + self.trim_iops
        return values

    def _phase_metrics(self) -> dict[str, float | str | None]:
        """A phase: its jobs' rates summed; what limits it, as its first job says."""
        each = [job.metrics() for job in self.jobs]
        values: dict[str, float | str | None] = {k: sum(m.get(k) or 0.0 for m in each) for k in RATE_METRICS}
        values["limited_by"] = self.jobs[0].limited_by
        return values

    def as_dict(self) -> dict:
        """A JSON record: the simulator's (``SimResult.as_dict()``), or a single drive's metrics."""
        if self.jobs:
            return {"phase": self.workload, "jobs": {job.workload: job.as_dict() for job in self.jobs}, **self.metrics()}
        out = self.simulation.as_dict() if self.simulation is not None else self.metrics()
        if self.scale != 1.0 or self.note or self.trim_iops is not None:
            scaled = RATE_METRICS + (("cpu_percent",) if out.get("cpu_percent") is not None else ())
            out = {**out, **{k: v for k, v in self.metrics().items() if k in scaled}, "scale": self.scale,
                   "note": self.note, "trim_iops": self.trim_iops}
        return out

    @property
    def read_iops(self) -> float:
        return self._rate("read_iops")

    @property
    def write_iops(self) -> float:
        return self._rate("write_iops")

    @property
    def total_iops(self) -> float:
        """Reads, writes and trims (fio counts a trim job's trims as its I/Os), as ``metrics``."""
        if self.jobs:
            return sum(job.total_iops for job in self.jobs)
        return self.read_iops + self.write_iops + (self.trim_iops or 0.0)

    @property
    def read_bytes_per_s(self) -> float:
        return self._rate("read_bytes_per_s")

    @property
    def write_bytes_per_s(self) -> float:
        return self._rate("write_bytes_per_s")

    @property
    def cpu_percent(self) -> float | None:
        """Host CPU busy, percent of all logical CPUs (None: the drive model has no host); a
        composite's, its closed loop's at the job's rate (``scale``: the CPU an I/O costs does not
        change when fio's rate cap or think time spaces the I/Os out; its thread sleeps between
        them), at most 100. Until 2026-11-30 a job capped at 100 IOPS reported its loop's CPU at
        7,071."""
        if self.simulation is None or self.simulation.cpu_percent is None:
            return None
        return min(100.0, self.simulation.cpu_percent * self.scale)

    @property
    def read_latency_us(self) -> dict[str, float]:
        """mean, p50, p90, p99, p99.9 in microseconds (event mode only; else empty)."""
        return {} if self.simulation is None else self.simulation.read_latency_us

    @property
    def write_latency_us(self) -> dict[str, float]:
        return {} if self.simulation is None else self.simulation.write_latency_us

    def modelled_percentile_us(self, ddir: str, percent: float) -> float | None:
        """The fluid mode's modelled latency percentile (``SimResult.modelled_percentile_us``); None
        in the event mode (its percentiles are measured) and without a simulation."""
        return None if self.simulation is None else self.simulation.modelled_percentile_us(ddir, percent)

    @property
    def raid_waf(self) -> float:
        """Member bytes written / host bytes written (1 for a drive used directly; NaN: no writes)."""
        if self.simulation is None:
            return 1.0 if self.drive.write_iops else float("nan")
        return self.simulation.raid_waf

    @property
    def waf_nand(self) -> float:
        """NAND bytes programmed / bytes written to the drives (NaN: no writes)."""
        return self.drive.waf_nand if self.simulation is None else self.simulation.waf_nand

    @property
    def utilisation(self) -> tuple[Utilisation, ...]:
        """Every resource's busy share (the array simulator's; none for a single drive)."""
        return () if self.simulation is None else self.simulation.utilisation

    @property
    def limited_by(self) -> str:
        """What the solver says limits the run (a resource's name, or its own sentence; a composite's
        pace where it holds the job below its loop, ``paced_by``)."""
        return self.paced_by or self._either("limited_by")

    @property
    def bottleneck(self) -> str:
        """The limiting resource as reports show it ("GPU ... at 100%"): ``metrics()["limited_by"]``;
        a composite's pace where it holds the job (``paced_by``)."""
        if self.paced_by:
            return self.paced_by
        return self.drive.limited_by if self.simulation is None else self.simulation.bottleneck_text

    @property
    def transactions_per_s(self) -> float | None:
        """OLTP workloads: transactions completed per second; otherwise None."""
        return None if self.simulation is None else self.simulation.transactions_per_s

    @property
    def rebuild_bytes_per_s(self) -> float | None:
        """While a member is being rebuilt: its rebuild rate; otherwise None."""
        return None if self.simulation is None else self.simulation.rebuild_bytes_per_s

    @property
    def rebuild_limited_by(self) -> str:
        return "" if self.simulation is None else self.simulation.rebuild_limited_by

    @property
    def latency_samples_s(self) -> dict:
        """Every measured host I/O's latency in seconds, "read"/"write" -> array (event mode only)."""
        return {} if self.simulation is None else self.simulation.latency_samples_s

    @property
    def simulated_s(self) -> float:
        """Simulated time of the measured window (0: the drive model and the network have none)."""
        return 0.0 if self.simulation is None else self.simulation.simulated_s

    def _either(self, name: str):  # a phase holds its first job's record
        return getattr(self.drive if self.simulation is None else self.simulation, name)

    def _rate(self, name: str) -> float:
        """A rate: the phase's sum, or the loop's times ``scale``."""
        if self.jobs:
            return sum(getattr(job, name) for job in self.jobs)
        value = self._either(name)
        return value * self.scale if self.scale != 1.0 else value


__all__ = ["Result", "Route", "Fidelity", "ClosedLoop", "RATE_METRICS"]
