"""The requirements file of ``nvsim plan``: what a planner needs, and where to look for it.

A plan file (YAML, read through ``nvsim.loader``; ``extra="forbid"``, one-line errors)::

    requirements:
      usable_bytes: 150 TB
      workloads:
        - {name: oltp, profile: randrw-8k-70, min_iops: 1M, max_latency_us: {p99: 2000}}
        - {name: scan, fio: scan.fio, min_bytes_per_s: 40 GB/s}      # a fio job file instead
      rebuild: {max_hours: 4, workload: oltp, load_fraction: 0.5}
      max_data_loss_probability: 1e-5      # per member failure (nvsim.risk)
      min_mttdl_years: 1000
      endurance: {service_life_years: 5, host_write_bytes_per_s: 1 GB/s}
      max_power_w: 2500
      max_bays: 24
      max_rack_units: 2                      # needs search.rack_units for every platform
      max_price_usd: 150000
    search:                                  # every field defaults to the whole catalog
      drives: [kioxia-cm7-r-7.68tb]
      drive_counts: [8, 12, 16, 24]
      levels: [5, 6, 10]
      strips_bytes: [64KiB, 512KiB]
      overprovisioning: [0.0, 0.1]           # share of each drive left out of its namespace
      hot_spares: [0, 1]
    objective: usd_per_usable_tb             # or usd_per_kiops, power_w, price_usd, drives, {weights: {...}}

Workloads are closed loops as fio runs them (numjobs x iodepth in flight); a target is met when
the predicted rate reaches it and every latency percentile named stays under its limit there. A
fio job runs with the jobs fio runs at the same time as it (its phase: no stonewall between them,
as ``nvsim fio`` runs the file), and its target is checked on its own rate (``FioPick``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from ..catalog import Catalog
from ..errors import InputError, shown, suggestion_text, suggestion_then
from ..fio import FileOpener, FioJob, FioJobFile, parse_fio_jobfile
from ..loader import decode, load_model, read_bytes
from ..raid import LEVELS
from ..specs import Bytes, BytesPerS, Count, NumbersNotTruthValues, WorkloadSpec
from ..sweep import first_repeat
from ..units import format_number, parse_time_in, parse_with_unit

PROFILES: dict[str, dict] = {
    "randread-4k": {"rw": "randread", "bs": 4096},
    "randwrite-4k": {"rw": "randwrite", "bs": 4096},
    "randrw-4k-70": {"rw": "randrw", "bs": 4096, "rwmixread": 70},
    "randrw-8k-70": {"rw": "randrw", "bs": 8192, "rwmixread": 70},
    "randread-16k": {"rw": "randread", "bs": 16384},
    "read-128k": {"rw": "read", "bs": 131072},
    "write-128k": {"rw": "write", "bs": 131072},
    "read-1m": {"rw": "read", "bs": 1 << 20},
    "write-1m": {"rw": "write", "bs": 1 << 20},
}
"""Named workload profiles (fio's rw, bs, rwmixread); numjobs and iodepth come from the requirement."""
NOT_PRODUCTS = ("ideal-raid", "none")
"""Catalog engines the default search leaves out: a theoretical engine and 'no RAID'."""
DEFAULT_STRIPS_BYTES = (64 * 1024, 128 * 1024, 512 * 1024)
"""Strips the default search tries: md's 512 KiB default and two smaller ones."""
OBJECTIVES = ("usd_per_usable_tb", "usd_per_kiops", "power_w", "price_usd", "drives")
"""What a plan may rank by (lowest first; ``drives``: the fewest drives, needing no prices); a
weighted mix takes these keys too."""
PER_WORKLOAD_OBJECTIVES = ("usd_per_kiops", "power_w")
"""Objectives taken at the workloads' operating points (the highest over the workloads): a plan
with no workload cannot rank by them."""
PERCENTILES = ("p50", "p90", "p95", "p99", "p99.9", "p99.99")


MAX_WEIGHT = 1e6
"""Largest weight of a weighted objective. Weights are relative (each is an exponent of the
weighted geometric mean, over their sum: ``search.objective_values``), so a million to one already
ranks by one metric alone; a larger one only made the old weighted sum overflow to infinity and tie
every candidate."""
MAX_RACK_UNITS = 100
"""Tallest height a plan takes, in rack units (a 42U rack is 42; a whole row, never 100)."""


class PlanModel(NumbersNotTruthValues):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WorkloadRequirement(PlanModel):
    """One workload and its targets: a named profile or a fio job file, the closed loop it runs."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    profile: str | None = None
    fio: str | None = Field(default=None, description="a fio job file, relative to the plan file")
    job: str | None = Field(default=None, description=(
        "which job of the fio file (needed when it has more than one); the jobs fio runs at the same time as it "
        "run beside it, and the targets are the job's own"))
    numjobs: int = Field(default=64, ge=1, le=4096)
    iodepth: int = Field(default=32, ge=1, le=4096)
    min_iops: Count | None = Field(default=None, gt=0)
    min_bytes_per_s: BytesPerS | None = Field(default=None, gt=0)
    max_latency_us: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_source(self) -> "WorkloadRequirement":
        if (self.profile is None) == (self.fio is None):
            raise ValueError("give exactly one of profile (" + ", ".join(PROFILES) + ") or fio (a job file)")
        if self.job is not None and self.fio is None:  # a profile has no jobs to choose from
            raise ValueError("job: only with fio (it names a job of the fio file); drop it or give fio")
        given = sorted({"numjobs", "iodepth"} & self.model_fields_set)
        if self.fio is not None and given:  # the job file sets its own
            raise ValueError(f"{given[0]}: a fio job sets its own numjobs and iodepth (its file's); drop {given[0]}, "
                             f"or give a profile")
        if self.profile is not None and self.profile not in PROFILES:
            raise ValueError(f"profile: unknown {self.profile!r}{suggestion_then(self.profile, PROFILES)}"
                             f"allowed: {', '.join(PROFILES)}")
        if self.min_iops is None and self.min_bytes_per_s is None and not self.max_latency_us:
            raise ValueError("give a target: min_iops, min_bytes_per_s or max_latency_us")
        return self

    @field_validator("max_latency_us")
    @classmethod
    def _percentiles(cls, limits: dict[str, float]) -> dict[str, float]:
        for key, value in limits.items():
            if key not in PERCENTILES:
                raise ValueError(f"unknown percentile {key!r}; allowed: {', '.join(PERCENTILES)}")
            if not value > 0 or value != value or value == float("inf"):
                raise ValueError(f"{key}: must be a finite number of microseconds > 0, got {value!r}")
        return limits


def _with_units(read):
    """A field's value read by ``read`` where it is text (a number with its unit), as a sweep's
    constraints read the same quantity (the plan had refused '1.5 kW' and '8 h' as 'not a valid number')."""
    return BeforeValidator(lambda value: read(value) if isinstance(value, str) else value)


class RebuildRequirement(PlanModel):
    """A rebuild (one member failed, a spare in its place) under a share of a workload's load."""

    max_hours: Annotated[float, _with_units(parse_time_in(3600.0))] = Field(gt=0, le=1e6)
    workload: str | None = Field(default=None, description="the load (a requirement's workload; default: idle)")
    load_fraction: float = Field(default=1.0, gt=0, le=1, description="share of the workload's jobs that run")


class EnduranceRequirement(PlanModel):
    """The drives must last ``service_life_years`` under an average host write rate."""

    service_life_years: float = Field(gt=0, le=100)
    host_write_bytes_per_s: BytesPerS = Field(gt=0, description=(
        "the average host write rate the drives must outlast (0 wears nothing: a requirement that changes nothing, "
        "whose lifetime was written as inf into ranking.csv)"))


class Requirements(PlanModel):
    usable_bytes: Bytes = Field(gt=0)
    workloads: tuple[WorkloadRequirement, ...] = Field(default=(), max_length=16)
    rebuild: RebuildRequirement | None = None
    max_data_loss_probability: float | None = Field(default=None, gt=0, le=1)
    min_mttdl_years: float | None = Field(default=None, gt=0, le=1e15)
    endurance: EnduranceRequirement | None = None
    max_power_w: Annotated[float | None, _with_units(parse_with_unit("W"))] = Field(default=None, gt=0, le=1e7)
    max_bays: int | None = Field(default=None, ge=1, le=1024)
    max_rack_units: int | None = Field(default=None, ge=1, le=MAX_RACK_UNITS)
    max_price_usd: float | None = Field(default=None, gt=0, le=1e12)

    @model_validator(mode="after")
    def _names(self) -> "Requirements":
        names = [w.name for w in self.workloads]
        if len(set(names)) != len(names):
            raise ValueError(f"workloads: names must be unique, got {', '.join(names)}")
        if self.rebuild and self.rebuild.workload and self.rebuild.workload not in names:
            raise ValueError(f"rebuild.workload: no workload {self.rebuild.workload!r}; allowed: {', '.join(names) or 'none given'}")
        if self.rebuild and self.rebuild.workload is None and "load_fraction" in self.rebuild.model_fields_set:
            raise ValueError("rebuild.load_fraction: only with rebuild.workload (the share of its jobs that run); "
                             "without one the rebuild is idle")
        if self.rebuild and self.rebuild.workload:
            self._check_load_jobs(next(w for w in self.workloads if w.name == self.rebuild.workload))
        return self

    def _check_load_jobs(self, workload: "WorkloadRequirement") -> None:
        """The rebuild's load is ``load_fraction`` of the workload's jobs, rounded to whole jobs and at
        least one: a share under half a job ran one job, the whole workload of a single job, without a
        word (0.1 of one job). A fio job's jobs are its file's, not known here."""
        if workload.fio is not None:
            return
        jobs = workload.numjobs * self.rebuild.load_fraction
        if jobs < 0.5:
            raise ValueError(f"rebuild.load_fraction: {self.rebuild.load_fraction:g} of {workload.name}'s "
                             f"{workload.numjobs} job(s) is {jobs:.3g} jobs, under half of one; allowed: at least "
                             f"{0.5 / workload.numjobs:.3g} (the rebuild's load runs whole jobs, at least one)")


OUTSIDE_SHOWN = 5
"""Values outside a list field's range an error names (a plan's 5,000 drive counts were echoed whole:
a one-line error of 28,981 characters)."""


def _outside(values, allowed) -> str:
    """The first ``OUTSIDE_SHOWN`` of ``values`` that ``allowed`` refuses, and how many more."""
    bad = [v for v in values if not allowed(v)]
    more = f" and {len(bad) - OUTSIDE_SHOWN:,} more" if len(bad) > OUTSIDE_SHOWN else ""
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in bad[:OUTSIDE_SHOWN]) + more


class SearchSpace(PlanModel):
    """Where to look; a field left out is the whole catalog (or the default named)."""

    platforms: tuple[str, ...] | None = Field(default=None, min_length=1)
    drives: tuple[str, ...] | None = Field(default=None, min_length=1)
    engines: tuple[str, ...] | None = Field(default=None, min_length=1)
    drive_counts: tuple[int, ...] | None = Field(default=None, min_length=1)
    levels: tuple[Literal[0, 1, 5, 6, 10], ...] = Field(default=LEVELS, min_length=1)
    strips_bytes: tuple[Bytes, ...] = Field(default=DEFAULT_STRIPS_BYTES, min_length=1)
    overprovisioning: tuple[float, ...] = Field(default=(0.0,), min_length=1)
    hot_spares: tuple[int, ...] = Field(default=(0,), min_length=1)
    priced_only: bool = Field(default=False, description="leave out catalog entries without a price")
    rack_units: dict[str, int] = Field(default_factory=dict, description="rack units of each platform (the catalog has none)")

    @field_validator("platforms", "drives", "engines", "drive_counts", "levels", "strips_bytes", "overprovisioning", "hot_spares")
    @classmethod
    def _each_value_once(cls, values: tuple | None) -> tuple | None:
        """A value listed twice searched it twice (a name: two candidates of one set-up), as a sweep's grid refuses."""
        if values and (at := first_repeat(values)) is not None:
            raise ValueError(f"the value {shown(values[at])} is given more than once (each repeat would search the same "
                             f"set-ups again); give each value once")
        return values

    @field_validator("drive_counts")
    @classmethod
    def _counts(cls, counts: tuple[int, ...] | None) -> tuple[int, ...] | None:
        if counts and not all(2 <= c <= 256 for c in counts):
            raise ValueError(f"each count must be 2 to 256 drives, got {_outside(counts, lambda c: 2 <= c <= 256)}")
        return counts

    @field_validator("overprovisioning")
    @classmethod
    def _shares(cls, shares: tuple[float, ...]) -> tuple[float, ...]:
        if not all(0.0 <= s < 0.9 for s in shares):
            raise ValueError(f"each share must be 0 to 0.9 (a share of the drive left unallocated), got "
                             f"{_outside(shares, lambda s: 0.0 <= s < 0.9)}")
        return shares

    @field_validator("hot_spares")
    @classmethod
    def _spares(cls, spares: tuple[int, ...]) -> tuple[int, ...]:
        if not all(0 <= s <= 64 for s in spares):
            raise ValueError(f"each count must be 0 to 64 spares, got {_outside(spares, lambda s: 0 <= s <= 64)}")
        return spares

    @field_validator("rack_units")
    @classmethod
    def _racks(cls, racks: dict[str, int]) -> dict[str, int]:
        bad = {name: units for name, units in racks.items() if not 1 <= units <= MAX_RACK_UNITS}
        if bad:
            name, units = next(iter(bad.items()))
            raise ValueError(f"{name}: a server is 1 to {MAX_RACK_UNITS} rack units high, got {units}")
        return racks

    @field_validator("strips_bytes")
    @classmethod
    def _strips(cls, strips: tuple[int, ...]) -> tuple[int, ...]:
        if not all(s > 0 and s % 4096 == 0 for s in strips):
            raise ValueError(f"each strip must be a positive multiple of 4 KiB, got {list(strips)}")
        return strips


def _bounded_weight(weight: float) -> float:
    """One weight, at most ``MAX_WEIGHT`` (named with its metric: the check runs per entry)."""
    if not weight <= MAX_WEIGHT:
        raise ValueError(f"at most {format_number(MAX_WEIGHT)} (weights are relative: {format_number(MAX_WEIGHT)} to 1 "
                         f"already ranks by one metric alone), got {format_number(weight)}")
    return weight


class WeightedObjective(PlanModel):
    """A weighted mix: the weighted geometric mean of the metrics, each to the power of its weight's
    share of the weights (``search.objective_values``; its own figure, whatever the other candidates)."""

    weights: dict[Literal["usd_per_usable_tb", "usd_per_kiops", "power_w", "price_usd", "drives"],
                  Annotated[float, AfterValidator(_bounded_weight)]] = Field(min_length=1)

    @field_validator("weights")
    @classmethod
    def _positive(cls, weights: dict[str, float]) -> dict[str, float]:
        if not all(w > 0 and w != float("inf") for w in weights.values()):
            raise ValueError("each weight must be a finite number > 0")
        return weights


ObjectiveName = Literal["usd_per_usable_tb", "usd_per_kiops", "power_w", "price_usd", "drives"]


def _objective_kind(value) -> str:
    """A mapping is a weighted mix; anything else names one objective (errors then name the branch meant)."""
    return "<weights>" if isinstance(value, (dict, WeightedObjective)) else "<name>"


DEFAULT_MAX_CANDIDATES = 5_000_000
"""Candidates a plan enumerates unless its file raises ``max_candidates`` (up to 50 million on the
command line); a plan a server runs for a client (the dashboard's Plan view) searches at most this
many: 50 million candidates took one plan worker to 5.1 GB, and two at once to 16 GB."""


class PlanSpec(PlanModel):
    requirements: Requirements
    search: SearchSpace = SearchSpace()
    objective: Annotated[Union[Annotated[ObjectiveName, Tag("<name>")], Annotated[WeightedObjective, Tag("<weights>")]],
                         Discriminator(_objective_kind)] = "usd_per_usable_tb"
    top: int = Field(default=10, ge=1, le=1000, description="candidates listed and written as scenarios")
    confirm: int = Field(default=3, ge=0, le=20, description="top candidates the event mode confirms")
    seed: int = Field(default=1, ge=0, lt=2**63)
    event_host_ios: int | None = Field(default=None, ge=2_000, le=1_000_000,
                                       description="host I/Os the event check measures per workload; none (the "
                                                   "default): the window `nvsim run --max-seconds 0` measures")
    max_candidates: int = Field(default=DEFAULT_MAX_CANDIDATES, ge=1, le=50_000_000)
    exhaustive: bool = Field(default=False, description="run the fluid mode on every survivor of the bounds, not only "
                                                        "until no survivor left can reach the top")

    @model_validator(mode="after")
    def _latency_needs_confirming(self) -> "PlanSpec":
        """Latency targets are checked only by the event stage (the fluid one knows no percentiles):
        with ``confirm: 0`` they would be dropped and a candidate ranked as meeting them."""
        timed = [i for i, w in enumerate(self.requirements.workloads) if w.max_latency_us]
        if self.confirm == 0 and timed:
            raise ValueError(f"confirm: 0 skips the event stage, which checks requirements.workloads[{timed[0]}]."
                             f"max_latency_us; set confirm >= 1 or drop the target")
        return self

    @model_validator(mode="after")
    def _per_workload_objective_needs_workloads(self) -> "PlanSpec":
        """$/1K IOPS and watts are figures of a workload's operating point (the highest over the
        workloads): with none every candidate's objective was infinite, a ranking by nothing."""
        per_workload = [k for k in self.objective_keys if k in PER_WORKLOAD_OBJECTIVES]
        if per_workload and not self.requirements.workloads:
            raise ValueError(f"objective: {per_workload[0]} is taken at each workload's operating point (the highest "
                             f"over requirements.workloads), and the plan has no workload; give requirements.workloads "
                             f"or another objective ({', '.join(k for k in OBJECTIVES if k not in PER_WORKLOAD_OBJECTIVES)})")
        return self

    @property
    def objective_keys(self) -> tuple[str, ...]:
        return (self.objective,) if isinstance(self.objective, str) else tuple(sorted(self.objective.weights))


def load_plan(path: str | Path) -> tuple[PlanSpec, Path]:
    """The plan file's spec and its folder (fio job files are relative to it); one-line errors."""
    return load_model(path, PlanSpec, "REQUIREMENTS")


def beside_plan(name: str, naming_path: str) -> tuple[str, bytes]:
    """The user's own file ``name``, relative to the folder of the file that names it (a plan's
    ``fio:``; a trace of that job file is then fio's, ``nvsim.fio.local_file``)."""
    path = Path(naming_path).parent / name
    try:
        return str(path), read_bytes(path)
    except InputError as exc:
        raise InputError("", f"{path}: {exc.message}") from None


@dataclass(frozen=True)
class FioPick:
    """A requirement's fio job: the file read (its notes are the plan's: ``fio_warnings``), the job,
    and the jobs fio runs at the same time as it (its phase: no stonewall or wait_for between them;
    ``new_group`` starts a reporting group only, as ``nvsim fio`` reads it)."""

    parsed: FioJobFile
    job: FioJob
    beside: tuple[FioJob, ...]

    def workloads(self, name: str) -> dict[str, WorkloadSpec]:
        """The job as requirement ``name``, and the jobs beside it as ``name/JOB``, all in phase
        ``phase of NAME`` (a scenario's phase: ``nvsim run`` and the fluid and event stages solve it
        whole, as ``nvsim fio`` solves the file's phase); a job that runs alone has no phase."""
        if not self.beside:
            return {name: self.job.workload.model_copy(update={"name": name})}
        phase = f"phase of {name}"  # no workload's name: a requirement's has no space, a job's beside it a '/'
        out = {name: self.job.workload.model_copy(update={"name": name, "phase": phase})}
        for other in self.beside:
            label = beside_name(name, other.name, out)
            out[label] = other.workload.model_copy(update={"name": label, "phase": phase})
        return out


def beside_name(requirement: str, job: str, taken: Mapping[str, object]) -> str:
    """A job beside a requirement's, as its workload is named: ``REQUIREMENT/JOB`` (a requirement's
    name holds no '/'), with ``#N`` after a job name fio's file repeats."""
    label, n = f"{requirement}/{job}", 1
    while label in taken:
        n += 1
        label = f"{requirement}/{job}#{n}"
    return label


def fio_picks(spec: PlanSpec, here: Path, catalog: Catalog, *, open_file: FileOpener | None = None,
              environ: Mapping[str, str] | None = None) -> dict[str, FioPick]:
    """Each ``fio:`` requirement's job and the jobs fio runs with it, by the requirement's name.

    A ``fio:`` file, and any trace it names, is reached through ``open_file`` relative to the plan's
    folder ``here`` (None: the user's disk, ``beside_plan``, and fio's way for its traces; the
    dashboard's Plan view passes its ``ClientFiles``), its ``${VAR}`` taken from ``environ`` (None:
    the process environment)."""
    out: dict[str, FioPick] = {}
    for i, req in enumerate(spec.requirements.workloads):
        if req.fio is None:
            continue
        field = f"requirements.workloads[{i}]"
        parsed = _read_fio(req, field, here, catalog, open_file, environ)
        job = _chosen_job(req, field, parsed)
        phase = next(jobs for jobs in parsed.phases() if any(j is job for j in jobs))
        beside = tuple(j for j in phase if j is not job)
        _check_plannable(job, f"{field}.fio", "")
        for other in beside:
            _check_plannable(other, f"{field}.job", f", which fio runs at the same time as [{job.name}] (no stonewall "
                                                   f"between them),")
        out[req.name] = FioPick(parsed, job, beside)
    return out


def _read_fio(req: WorkloadRequirement, field: str, here: Path, catalog: Catalog, open_file: FileOpener | None,
              environ: Mapping[str, str] | None) -> FioJobFile:
    """The requirement's fio file, parsed; an unreadable one is refused naming ``fio``."""
    try:
        found, raw = (open_file or beside_plan)(req.fio, str(here / "plan.yaml"))
    except InputError as exc:
        raise InputError(f"{field}.fio", exc.message) from None
    traces = {"open_file": open_file} if open_file else {}
    return parse_fio_jobfile(decode(raw, found), found, catalog=catalog, environ=environ, **traces)


def _chosen_job(req: WorkloadRequirement, field: str, parsed: FioJobFile) -> FioJob:
    """The job ``job`` names (the file's only job without it)."""
    jobs = parsed.jobs
    if req.job is None and len(jobs) > 1:  # planning the first alone would answer another question
        names = ", ".join(j.name for j in jobs)
        raise InputError(f"{field}.job", f"{req.fio} has {len(jobs)} jobs ({names}), which fio runs together or in "
                                         f"turn; a plan workload is one job: name it (job: {jobs[0].name})")
    chosen = [j for j in jobs if req.job is None or j.name == req.job]
    if not chosen:
        raise InputError(f"{field}.job", f"no job {req.job!r} in {req.fio}; it has {', '.join(j.name for j in jobs)}")
    return chosen[0]


def _check_plannable(job: FioJob, field: str, beside: str) -> None:
    """Refuse (one line naming ``field``) a job the candidates cannot run: an OLTP job, or a region
    given as a share of the device ('N%'), another region on each candidate's array. ``beside``:
    how a job the requirement's runs with is named (empty for the requirement's own)."""
    if job.workload.is_oltp:
        raise InputError(field, f"[{job.name}]{beside} is an OLTP job, which a plan cannot run; allowed: fio jobs of "
                                f"reads and writes beside it, or a stonewall between them" if beside else
                                "an OLTP job is not a plan workload; give a fio job of reads and writes")
    if job.needs_device_bytes:  # each candidate's array is another size: the share is no one region
        raise InputError(field, f"[{job.name}]{beside} gives size, offset or offset_increment as a share of the device "
                                f"('N%'), which is another region on each candidate's array; give them in bytes "
                                f"(size=100g) for a plan")


def plan_workloads(spec: PlanSpec, catalog: Catalog, picks: Mapping[str, FioPick]) -> dict[str, WorkloadSpec]:
    """Every workload a candidate's scenario runs: each requirement's, by its name (a profile, or
    the job of a fio file: ``picks``), each followed by the jobs fio runs with it (``FioPick.workloads``)."""
    out: dict[str, WorkloadSpec] = {}
    for req in spec.requirements.workloads:
        if req.profile is None:
            out.update(picks[req.name].workloads(req.name))
            continue
        data = dict(PROFILES[req.profile], name=req.name, numjobs=req.numjobs, iodepth=req.iodepth)
        out[req.name] = WorkloadSpec.model_validate(data, context={"catalog": catalog})
    return out


def workload_specs(spec: PlanSpec, here: Path, catalog: Catalog, *, open_file: FileOpener | None = None,
                   environ: Mapping[str, str] | None = None) -> dict[str, WorkloadSpec]:
    """``plan_workloads`` of the plan's fio files (``fio_picks``)."""
    return plan_workloads(spec, catalog, fio_picks(spec, here, catalog, open_file=open_file, environ=environ))


def requirement_workloads(name: str, workloads: Mapping[str, WorkloadSpec]) -> list[WorkloadSpec]:
    """Requirement ``name``'s workload and the jobs fio runs with it (``FioPick.workloads``)."""
    own = workloads[name]
    return [own] + [w for w in workloads.values() if w is not own and own.phase is not None and w.phase == own.phase]


def fio_warnings(picks: Mapping[str, FioPick]) -> list[str]:
    """What ``nvsim fio`` warns of each fio file the plan reads (the fio reader's own lines: options
    it does not model, fio's defaults, jobs run together), each line once."""
    lines: list[str] = []
    for pick in picks.values():
        unmodelled = pick.parsed.unmodelled_warning()
        lines += ([unmodelled] if unmodelled else []) + pick.parsed.notes()
    return list(dict.fromkeys(lines))


def check_names(spec: PlanSpec, catalog: Catalog) -> None:
    """Every platform, drive and engine the search names is in the catalog; racks are known."""
    search = spec.search
    for field, section in (("platforms", "platforms"), ("drives", "drives"), ("engines", "engines")):
        known = getattr(catalog, section)
        for name in getattr(search, field) or ():
            if name not in known:
                raise InputError(f"search.{field}", f"unknown {section[:-1]} {name!r}{suggestion_text(name, known) or ';'} "
                                                    f"allowed: {', '.join(sorted(known))}")
    for name in search.rack_units:
        if name not in catalog.platforms:
            raise InputError("search.rack_units", f"unknown platform {name!r}{suggestion_text(name, catalog.platforms) or ';'} "
                                                  f"allowed: {', '.join(sorted(catalog.platforms))}")
    if spec.requirements.max_rack_units is not None:
        missing = [p for p in (search.platforms or sorted(catalog.platforms)) if p not in search.rack_units]
        if missing:
            raise InputError("search.rack_units", f"max_rack_units needs each platform's height, which the catalog "
                                                  f"does not hold; give it for {', '.join(missing)}")


def needs_prices(spec: PlanSpec) -> bool:
    keys = set(spec.objective_keys)
    return spec.requirements.max_price_usd is not None or bool(keys & {"usd_per_usable_tb", "usd_per_kiops", "price_usd"})


def needs_power(spec: PlanSpec) -> bool:
    return spec.requirements.max_power_w is not None or "power_w" in spec.objective_keys


__all__ = ["PlanSpec", "Requirements", "SearchSpace", "WorkloadRequirement", "RebuildRequirement", "EnduranceRequirement",
           "WeightedObjective", "PROFILES", "OBJECTIVES", "load_plan", "workload_specs", "check_names", "needs_prices",
           "FioPick", "fio_picks", "plan_workloads", "requirement_workloads", "fio_warnings", "beside_name",
           "needs_power", "NOT_PRODUCTS", "PERCENTILES", "MAX_WEIGHT"]
