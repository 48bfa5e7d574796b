"""fio job files in, fio JSON out.

``parse_fio_jobfile`` reads a job file the way fio's own ini parser does (``init.c:parse_jobs_ini``
and ``parse.c`` of fio 3.x) and turns every job into a validated ``WorkloadSpec``:

* a line is cut at the first ``;`` or ``#`` (fio strips trailing comments too), then stripped;
  blank lines are skipped; ``[name]`` opens a section; any other line is ``key=value`` or a bare
  flag (``time_based``, ``stonewall``); an option before the first section is an error;
* a section whose name starts with ``global`` (fio compares six characters) sets defaults for the
  jobs that *follow* it; a later ``[global]`` changes only the jobs after it; every other section
  is a job that starts from the global options in force, then applies its own;
* values mean what they mean to fio: sizes use fio's ``kb_base=1024`` rules (``4k`` = 4096 and,
  as fio's compatibility mode has it, ``4KiB`` = 4000), times are seconds unless suffixed
  (``us``, ``ms``, ``s``, ``m``, ``h``, ``d``), ``bs=4k,8k`` is read,write[,trim], ``rwmixwrite=30``
  is ``rwmixread=70``, ``runtime=0`` and ``size=0`` mean "no limit" / "whole file", and a job
  without ``rw`` or ``ioengine`` gets fio's defaults (``read``, ``psync``);
* ``stonewall`` and ``new_group`` give fio's reporting group (``groupid``); ``stonewall`` also
  starts a new serial *phase* (the job waits for every job before it).

Options nvsim maps or keeps are listed in ``MODELLED_OPTIONS`` and ``KEPT_OPTIONS``; options that
are understood but do not change the model's answer are in ``UNDERSTOOD_WITHOUT_EFFECT``; options
that change the answer in ways nvsim does not model (``REFUSED_OPTIONS``) and ioengines that cannot
be simulated (``UNSIMULATED_IOENGINES``) are refused; every other option is collected in
``FioJobFile.unmodelled_options`` so the CLI can print one warning, and ``FioJobFile.notes`` says
what the user should know (fio's default ioengine and buffered I/O, jobs fio runs together). fio's command-line
job options become job-file text with ``command_line_to_jobfile``.
Every problem is an ``InputError`` of one line naming the file, the line and the option.

``workload_to_fio_section`` (nvsim.fio.writer, re-exported here) writes a ``WorkloadSpec`` back as a
job section (``parse`` of what it writes gives the same spec). fio's JSON is ``nvsim.fio.json_report``
(``fio_json_report`` is re-exported here), running a job file is ``nvsim.fio.run``, its log files
``nvsim.fio.logs``. docs/fio.md has the details and the deviations from fio.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, env_hint, from_validation_error, limit_from_env, suggestion_text, suggestion_then
from ..loader import read_bytes, read_text
from .options import (  # noqa: F401 (the tables, re-exported for callers of nvsim.fio)
    MODELLED_OPTIONS, KEPT_OPTIONS, UNDERSTOOD_WITHOUT_EFFECT, REFUSED_OPTIONS, REFUSED_DEFAULTS, ALIASES, FIO_RW_MODELLED,
    FIO_RW_TRIM, FIO_DEFAULT_RW, FIO_DEFAULT_IOENGINE, BLOCK_IOENGINES, UNSIMULATED_IOENGINES, HOST_IO_FLAGS, WORD_OPTIONS,
    UNSIGNED_OPTIONS,
)
from .expand import expand_value, platform_keywords  # noqa: F401 (re-exported)
from .names import FIO_OPTION_NAMES, FIO_VERSION
from .trace import REPLAY_SKIP_ACTIONS, parse_trace, replayed, summarize
from ..skew_syntax import check_distribution
from ..units import ascii_digits, check_digits, seconds_text
from .json_report import FIO_PERCENTILES, fio_json_report, percentile_table  # noqa: F401 (fio's JSON lives in nvsim.fio.json_report)
from ..specs import Phase, WorkloadSpec
from ..specs.mix import (MAX_LISTED_SIZES, MixPart, block_size_mix, direction_sizes, is_a_mix, mean_size, parse_bsrange,
                         parse_bssplit, range_bins)
from ..specs.workload import DRIVE_STATES, RATE_IOPS_MAX, RATE_IOPS_MIN, TRIM_SHAPE, TraceSummary
from .writer import command_line_lines, command_line_to_jobfile, workload_to_fio_section  # noqa: F401 (re-exported: the writer lives in nvsim.fio.writer)

_KNOWN = frozenset({*MODELLED_OPTIONS, *KEPT_OPTIONS, *UNDERSTOOD_WITHOUT_EFFECT, *ALIASES})
_READS = {"read", "randread"}
_WRITES = {"write", "randwrite"}
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")

# ---------------------------------------------------------------- data


NAMED_JOBS_MAX = 10
"""Most job names a note lists; the rest are counted ("and 4,086 more")."""


def named(names: list[str], most: int = NAMED_JOBS_MAX, once: bool = True) -> str:
    """``names`` (each once, in order; ``once=False``: as given) as a note lists them: the first
    ``most``, then how many more.
    Until 2026-12-01 every name was listed: a file of 4,096 jobs run together wrote a 28 kB line to
    stderr (4,096 names of up to 200 characters each: 800 kB)."""
    unique = list(dict.fromkeys(names)) if once else list(names)
    shown = ", ".join(unique[:most])
    return shown if len(unique) <= most else f"{shown} and {len(unique) - most:,} more"


@dataclass(frozen=True)
class FioJob:
    """One job of a job file (numjobs clones are one FioJob with ``workload.numjobs``).

    group: fio's reporting group (``groupid``): a new one starts at ``stonewall`` or
    ``new_group`` once the current group has jobs. phase: jobs of one phase run together; a
    ``stonewall`` job waits for every job before it, so it starts the next phase.
    options: every option in force for the job (globals first, then the job's own), by fio's
    canonical name, value as written ("" for a bare flag). job_options: the job section's own
    options only, as fio's JSON writes them under "job options". rate_min_iops: the least one clone
    must do under rate_min / rate_iops_min (fio stops it below). Everything that changes the answer
    (mix, rate cap, think time, latency target, trims, flow, io_size, loops) is the workload's
    (``WorkloadSpec``), read here under the names nvsim.fio.run uses.
    """

    name: str
    workload: WorkloadSpec
    group: int
    filename: str | None
    size_percent: float | None
    offset_increment_percent: float | None
    options: dict[str, str]
    phase: int = 0
    cpus_allowed: str | None = None
    numa_cpu_nodes: str | None = None
    line: int = 0
    job_options: dict[str, str] = field(default_factory=dict)
    rate_min_iops: float | None = None
    offset_percent: float | None = None
    trace: TraceSummary | None = None
    where: str = ""  # the section's place for an error: "FILE line N", or the command line's --name
    option_places: dict[str, str] = field(default_factory=dict)  # each option in force -> its place

    # what changes the answer lives in the workload (nvsim.specs.workload); read here under fio's names
    @property
    def rate_iops(self) -> float | None:
        return self.workload.rate_iops

    @property
    def rate_process(self) -> str:
        return self.workload.rate_process

    @property
    def thinktime_s(self) -> float | None:
        return self.workload.thinktime

    @property
    def latency_target_s(self) -> float | None:
        return self.workload.latency_target

    @property
    def latency_percentile(self) -> float:
        return self.workload.latency_percentile

    @property
    def latency_window_s(self) -> float | None:
        return self.workload.latency_window

    @property
    def bs_mix(self) -> tuple[MixPart, ...] | None:
        return self.workload.bs_mix

    @property
    def flow_weight(self) -> int | None:
        return self.workload.flow

    @property
    def flow_id(self) -> int:
        return self.workload.flow_id

    @property
    def trim(self) -> str | None:
        return self.workload.trim

    @property
    def io_size_bytes(self) -> int | None:
        return self.workload.io_size

    @property
    def loops(self) -> int:
        return self.workload.loops

    @property
    def needs_device_bytes(self) -> bool:
        """Whether ``size`` or ``offset_increment`` was written as a share of the device ('N%')."""
        return self.size_percent is not None or self.offset_increment_percent is not None or self.offset_percent is not None

    def share_bytes(self, device_bytes: int) -> int:
        """A size written as 'N%': N% of ``device_bytes`` in whole blocks of the smallest size
        (fio's td_min_bs, ``WorkloadSpec.min_bs``), at least one, before ``resolved`` cuts it at the
        device's end."""
        block = self.workload.min_bs
        return max(block, int(device_bytes * self.size_percent / 100) // block * block)

    def start_bytes(self, device_bytes: int, clone: int = 0) -> int:
        """Where clone ``clone`` of a job whose offset or offset_increment is 'N%' starts, as fio's
        get_start_offset (filesetup.c) puts it: the offset (N% of ``device_bytes``, or bytes) plus
        ``clone`` raw increments (N% of ``device_bytes``, or bytes), rounded UP to the next whole
        block of the smallest size (td_min_bs, ``WorkloadSpec.min_bs``)."""
        w, block = self.workload, self.workload.min_bs
        offset = w.offset if self.offset_percent is None else int(device_bytes * self.offset_percent / 100)
        step = w.offset_increment if self.offset_increment_percent is None else int(device_bytes * self.offset_increment_percent / 100)
        return -(-(offset + clone * step) // block) * block

    def resolved(self, device_bytes: int) -> WorkloadSpec:
        """The job's workload with 'N%' sizes taken of ``device_bytes`` (as fio does: size whole
        smallest blocks of at least one, cut to the whole blocks from job 0's offset to the end, as
        fio's setup_files cuts its io_size; offset rounded up to the smallest block, ``start_bytes``;
        offset_increment the step from clone 0's start to clone 1's, each as fio rounds it: exact for
        two clones, a further clone k may start up to k - 1 blocks past fio's); the job's workload as
        it is where none is a share (``needs_device_bytes``)."""
        w = self.workload
        if not self.needs_device_bytes:
            return w
        update = {}
        if self.offset_percent is not None or self.offset_increment_percent is not None:
            update["offset"] = self.start_bytes(device_bytes)
            if w.offset_increment or self.offset_increment_percent is not None:  # a region model of one step: clone 1's
                update["offset_increment"] = self.start_bytes(device_bytes, 1) - update["offset"]
        if self.size_percent is not None:
            after = (device_bytes - update.get("offset", w.offset)) // w.min_bs * w.min_bs
            update["size"] = max(w.min_bs, min(self.share_bytes(device_bytes), after))
        return updated_workload(w, update, self.name)


@dataclass(frozen=True)
class FioJobFile:
    """A parsed job file: its jobs in file order and the options nvsim does not model."""

    path: str
    jobs: tuple[FioJob, ...]
    unmodelled_options: tuple[str, ...]
    global_options: dict[str, str] = field(default_factory=dict)

    @property
    def workloads(self) -> tuple[WorkloadSpec, ...]:
        return tuple(job.workload for job in self.jobs)

    def concurrent_jobs(self) -> list[list[str]]:
        """Names of the jobs fio would run at once (one phase, no stonewall between them); nvsim
        runs them on one array (``nvsim.fio.run.simulate_jobs``)."""
        phases: dict[int, list[str]] = {}
        for job in self.jobs:
            phases.setdefault(job.phase, []).append(job.name)
        return [names for names in phases.values() if len(names) > 1]

    def phases(self) -> list[list[FioJob]]:
        """The jobs in fio's order of running: each list runs at the same time (no stonewall between them)."""
        phases: dict[int, list[FioJob]] = {}
        for job in self.jobs:
            phases.setdefault(job.phase, []).append(job)
        return list(phases.values())

    def notes(self) -> list[str]:
        """What the user should know about how the file is simulated, one line each: jobs that
        name no ioengine (fio's default psync) or no direct (fio's default buffered I/O, simulated
        as direct), jobs fio runs together: on one array when they are one closed loop
        (``shares_one_loop``), else each its own loop sharing the array's queues."""
        lines = []
        defaulted = [job.name for job in self.jobs if "ioengine" not in job.options]
        if defaulted:
            lines.append(f"{self.path}: no ioengine given for {named(defaulted)}: fio's default "
                         f"{FIO_DEFAULT_IOENGINE} is used (one I/O in flight per job whatever iodepth says)")
        if buffered := self.buffered_note():
            lines.append(buffered)
        untimed = [job.name for job in self.jobs if job.options.get("time_based") not in (None, "0")
                   and job.workload.runtime is None]
        if untimed:  # fio: "time_based requires a runtime/timeout setting", and it runs the whole size
            lines.append(f"{self.path}: time_based requires a runtime (fio says so and drops it): "
                         f"{named(untimed)} run their whole size once")
        together = [phase for phase in self.phases() if len(phase) > 1]
        shared = [named([job.name for job in phase], once=False) for phase in together if shares_one_loop(phase)]
        apart = [named([job.name for job in phase], once=False) for phase in together if not shares_one_loop(phase)]
        if shared:
            lines.append(f"{self.path}: jobs that fio runs at the same time with the same workload run together on one "
                         f"simulated array, as one closed loop of all their clones: {'; '.join(shared)}")
        if apart:
            lines.append(f"{self.path}: jobs that fio runs at the same time (no stonewall between them) with different "
                         f"workloads share one simulated array, each its own closed loop waiting at the saturated "
                         f"resources it passes through (a job with a latency target runs alone): {'; '.join(apart)}")
        return lines

    def buffered_note(self) -> str | None:
        """The line naming the jobs that give neither direct nor buffered: fio runs them buffered
        (its default direct=0), nvsim as direct I/O (no page cache is modelled); None: there are none."""
        defaulted = [job.name for job in self.jobs if not {"direct", "buffered"} & job.options.keys()]
        if not defaulted:
            return None
        return (f"{self.path}: no direct given for {named(defaulted)}: fio's default buffered "
                f"I/O (direct=0) is simulated as direct I/O (direct=1; the page cache is not modelled)")

    def unmodelled_warning(self) -> str | None:
        """The one warning line for the CLI, or None when every option is understood."""
        if not self.unmodelled_options:
            return None
        names = [BUFFERED_NOTE if name == "direct" else PLACED_BY_THE_SCENARIO.get(name, name) for name in self.unmodelled_options]
        return f"{self.path}: fio options not modelled (nvsim ignores them): {', '.join(names)}"


MAX_JOB_ENTRIES = 4096
"""Most job entries one ``nvsim fio`` command reports (fio's jobs list: one per numjobs clone
without ``group_reporting``, one per reporting group with it) or writes logs for (one per clone
whatever the reporting): each entry is tens of kilobytes while the report is built (numjobs=65536
took 4.4 GB and 90 s and wrote 365 MB of JSON); at the limit the fluid mode takes about 0.5 GB and
12 s and writes 23 MB (measured). Checked before anything runs (``check_entries``)."""
MAX_JOB_ENTRIES_ENV = "NVSIM_MAX_FIO_JOB_ENTRIES"


def max_job_entries() -> int:
    """``MAX_JOB_ENTRIES``, or the bound ``NVSIM_MAX_FIO_JOB_ENTRIES`` sets (``errors.limit_from_env``)."""
    return limit_from_env(MAX_JOB_ENTRIES_ENV, MAX_JOB_ENTRIES)


BUFFERED_NOTE = "direct (buffered I/O, direct=0, is simulated as direct=1)"
"""How the warning names ``direct`` when a job asks for buffered I/O: the page cache is not modelled."""
PLACED_BY_THE_SCENARIO = {
    "cpus_allowed": "cpus_allowed (fewer CPUs than jobs: nvsim runs each job on a CPU of its own, on the system's "
                    "placement.job_sockets)",
}
"""How the warning names fio's CPU set where it holds fewer CPUs than the job's clones: nvsim places
one job to a CPU by the scenario's ``placement`` (16 jobs with cpus_allowed=0-1 ran on 16 CPUs with
nothing said)."""


def _one_cpu_each(cpus: str, numjobs: int) -> bool:
    """Whether fio's ``cpus_allowed`` list (``0-191``, ``0,2,4-7``) holds a CPU for each of the
    job's ``numjobs`` clones (as nvsim places them); a list it cannot read does not."""
    count = 0
    for part in cpus.split(","):
        low, _, high = part.strip().partition("-")
        if not ascii_digits(low) or (high and not ascii_digits(high)) or (high and int(high) < int(low)):
            return False
        count += int(high) - int(low) + 1 if high else 1
    return count >= numjobs


def shares_one_loop(jobs: list[FioJob]) -> bool:
    """Whether jobs that run at the same time are one closed loop (``Phase.one_loop``: the same
    workload but for name, numjobs and how long they run, unpaced); their 'N%' sizes alike."""
    sizes = {(job.size_percent, job.offset_increment_percent) for job in jobs}
    return len(sizes) == 1 and Phase(name="phase", jobs=tuple(job.workload for job in jobs)).one_loop


@dataclass(frozen=True)
class _Entry:
    key: str  # canonical name
    written: str  # as written in the file
    value: str | None  # None: a bare flag
    line: int
    where: str = ""  # the place an error names: "FILE line N", or the command line's option

    def place(self, path: str) -> str:
        return self.where or f"{path} line {self.line}"


@dataclass
class _Section:
    name: str
    line: int
    is_global: bool
    entries: list[_Entry] = field(default_factory=list)
    where: str = ""  # the header's place ("FILE line N", or the command line's --name)

    def place(self, path: str) -> str:
        return self.where or f"{path} line {self.line}"


# ---------------------------------------------------------------- reading the file


FileOpener = Callable[[str, str], tuple[str, bytes]]
"""How a file a job file names is reached: ``(name as written, the naming file's path) -> (the name
to show for it, its bytes)``, or a one-line ``InputError`` (its message, without a field)."""


def local_file(name: str, naming_path: str) -> tuple[str, bytes]:
    """fio's way (``nvsim fio``, ``nvsim plan``: the user's own files): the path as written, from the
    working directory, else beside the file that names it; read through the input boundary."""
    path = Path(name)
    beside = Path(naming_path).parent / path
    found = path if path.exists() or path.is_absolute() else beside if beside.exists() else path
    if not found.exists():
        raise InputError("", f"file {name!r} not found (looked in the working directory and beside {Path(naming_path).name})")
    try:
        return str(found), read_bytes(found)
    except InputError as exc:
        raise InputError("", f"{found}: {exc.message}") from None


def load_fio_jobfile(path: str | Path, *, catalog: Any = None, keywords: dict[str, int] | None = None,
                     environ: Mapping[str, str] | None = None, open_file: FileOpener = local_file) -> FioJobFile:
    """Read and parse a fio job file (see ``parse_fio_jobfile``)."""
    return parse_fio_jobfile(read_jobfile_text(path), str(path), catalog=catalog, keywords=keywords, environ=environ,
                             open_file=open_file)


def read_jobfile_text(path: str | Path) -> str:
    """A job file's text: UTF-8, a byte-order mark dropped; one-line errors naming the file."""
    return read_text(path)  # the one input boundary: size bound, strict UTF-8 naming the byte


def parse_fio_jobfile(text: str, path: str = "<jobfile>", *, catalog: Any = None, keywords: dict[str, int] | None = None,
                      environ: Mapping[str, str] | None = None, open_file: FileOpener = local_file,
                      sections: tuple[str, ...] | None = None, command_line: tuple[str, ...] = (),
                      max_jobs: tuple[int, str] | None = None) -> FioJobFile:
    """Parse fio job-file text; every job becomes a ``WorkloadSpec`` validated with ``catalog``.

    ``${VAR}`` is taken from ``environ`` (the process environment when None; ``NO_ENVIRONMENT``
    for a file someone else sent), fio's keywords ``$ncpus``, ``$mb_memory``, ``$pagesize`` from
    ``keywords`` (``platform_keywords`` of the simulated platform; None: a keyword is an error), as
    fio expands them (``nvsim.fio.expand``). A trace the file names (``read_iolog``) is reached
    through ``open_file`` (``local_file``: fio's way; the dashboard passes its own, which opens
    only what the client uploaded and the shipped examples). ``sections``: run only the job
    sections of these names (fio's ``--section``; [global] sections always apply).
    ``command_line``: fio's job options given on its command line (``--name=a --rw=randread``),
    read before the file as fio reads them (``command_line_to_jobfile``); an error names the
    option as given there, and the file's own lines keep their numbers. ``max_jobs``: (a caller's own
    bound on the job sections, what it is: ``(256, "a set-up")``), refused before any job is read."""
    chosen = sections
    lead: tuple[str, ...] = ()
    if command_line:
        text = command_line_to_jobfile(command_line) + text
        lead = ("the command line",) + tuple(f"command line {argument}" for argument in command_line
                                             for _ in range(command_line_lines(argument)))
    every = _sections(text, path, keywords, environ, lead)
    sections = [s for s in every if s.is_global or chosen is None or s.name in chosen]
    missing = [name for name in chosen or () if name not in {s.name for s in every if not s.is_global}]
    if missing:  # fio runs none of an unknown name's jobs: say which names the file has
        names = ", ".join(s.name for s in every if not s.is_global) or "none (only [global])"
        raise InputError("--section", f"no job named {missing[0]!r}; the file's jobs: {names}", source=path)
    jobs: list[FioJob] = []
    unmodelled: set[str] = set()
    global_entries: list[_Entry] = []
    groupid = prev_group_jobs = phase = 0
    if max_jobs is not None and (count := sum(not s.is_global for s in sections)) > max_jobs[0]:
        raise InputError("jobs", f"{count:,} jobs; {max_jobs[1]} takes at most {max_jobs[0]:,}", source=path)
    _check_section_count(sections, path)
    names: list[str] = []  # the jobs so far, and those of the running phase, kept as they grow (rebuilt for
    running: list[str] = []  # each section they took 100 s to read 20,000 sections)
    for section in sections:
        if section.is_global:
            global_entries.extend(section.entries)
            continue
        effective = [*global_entries, *section.entries]
        _check_waitee(effective, section.name, names, path)
        waits = _waits_for_the_phase(effective, section.name, running, path)
        job, flags = _build_job(section, effective, path, catalog, open_file)
        if (flags["stonewall"] or flags["new_group"]) and prev_group_jobs:
            groupid += 1
            prev_group_jobs = 0
        if (flags["stonewall"] or waits) and jobs:
            phase += 1
            running = []
        prev_group_jobs += 1
        jobs.append(replace(job, group=groupid, phase=phase))
        names.append(job.name)
        running.append(job.name)
        unmodelled.update(flags["unmodelled"])
    if not jobs:
        raise InputError("", "no jobs defined: the file has no job section, only [global] (fio: 'No jobs(s) defined')", source=path)
    global_options = {e.key: e.value or "" for e in global_entries}
    return FioJobFile(path=path, jobs=tuple(jobs), unmodelled_options=tuple(sorted(unmodelled)), global_options=global_options)


def _check_section_count(sections: list["_Section"], path: str) -> None:
    """Refuse, before any job is read, a file of more job sections than ``max_job_entries()``: each is
    a job simulated and reported (a 4 MiB file of empty sections held about 500,000, each read and
    validated before the count of the report's entries refused them: minutes)."""
    count, limit = sum(not s.is_global for s in sections), max_job_entries()
    if count > limit:
        raise InputError("", f"{count:,} job sections; at most {limit:,}{env_hint(MAX_JOB_ENTRIES_ENV)}, "
                             f"each a job nvsim simulates and reports", source=path)


def _waits_for_the_phase(entries: list[_Entry], name: str, running: list[str], path: str) -> bool:
    """Whether the job's ``wait_for`` makes it start a phase of its own: fio starts it once every
    clone of the waitee is done, which nvsim's phases (every job of one running at once) say
    exactly where the waitee is all that runs before it (as ``stonewall``, without a new reporting
    group); a waitee of an earlier phase is done already. A job that waits for one of several jobs
    running is refused: it would run beside the others but not the waitee."""
    entry = next((e for e in reversed(entries) if e.key == "wait_for"), None)
    waitee = (entry.value or "").strip() if entry is not None else None
    if waitee is None or waitee not in running:
        return False
    others = sorted({job for job in running if job != waitee})
    if others:
        raise _error(entry, path, f"job [{name}] waits for [{waitee}], which runs beside {', '.join(others)}: a job "
                                  f"that starts while some jobs still run is not modelled (nvsim runs a file's jobs "
                                  f"in phases, each all at once); allowed: a wait_for naming every job running before "
                                  f"it, or stonewall")
    return True


def _check_waitee(entries: list[_Entry], name: str, before: list[str], path: str) -> None:
    """fio's ``wait_for`` names a job defined before this one (fio: "wait_for ... not found"); a
    name fio refuses is refused here too (what it waits for: ``_waits_for_the_phase``)."""
    entry = next((e for e in reversed(entries) if e.key == "wait_for"), None)
    waitee = (entry.value or "").strip() if entry is not None else None
    if waitee is not None and waitee not in before:
        raise _error(entry, path, f"no job named {waitee!r} before job [{name}] (fio: 'not found'); "
                                  f"allowed: a job defined above it: {', '.join(before) or 'none'}")


def _sections(text: str, path: str, keywords: dict[str, int] | None = None,
              environ: Mapping[str, str] | None = None, lead: tuple[str, ...] = ()) -> list[_Section]:
    """Split the text into sections of (key, value, line) entries, as fio's parse_jobs_ini. ``lead``:
    the places of the text's first lines when they are not the file's (the command line's options,
    ``parse_fio_jobfile``'s ``command_line``); the file's lines are numbered after them from 1."""
    sections: list[_Section] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = _strip_comment(raw).strip()  # str.strip also drops the no-break spaces of web copies
        if not line:
            continue
        where = lead[number - 1] if number <= len(lead) else f"{path} line {number - len(lead)}"
        number -= len(lead)
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise InputError("", f"a section header is [name], got {line!r}", source=where)
            name = line[1:-1]
            sections.append(_Section(name=name, line=number, is_global=name.startswith("global"), where=where))
            continue
        if line.split(None, 1)[0] == "include":
            raise InputError("", f"include directives are not read; put the included options in this file (got {line!r})", source=where)
        if not sections:
            raise InputError("", f"option {line!r} outside of a [section]; fio needs [global] or [job-name] first", source=where)
        written, has_value, value = line.partition("=")
        written = written.strip()
        if not _KEY.match(written):
            raise InputError("", f"expected key=value or [section], got {line!r}", source=where)
        key = ALIASES.get(written, written)
        _check_word_value(key, written, value, where)
        strict = key in MODELLED_OPTIONS or key in REFUSED_OPTIONS or key in ("kb_base", "stonewall", "new_group", "direct", "buffered")
        try:  # before any option reads it: Python converts at most 4,300 digits, and says so in its own words
            check_digits(value)
        except ValueError as exc:
            raise InputError(written, str(exc), source=where) from None
        value = expand_value(key, value.strip(), keywords, environ, written, where, strict) if has_value else None
        sections[-1].entries.append(_Entry(key, written, value, number, where))
    return sections


def _check_word_value(key: str, written: str, value: str, where: str) -> None:
    """fio drops a job whose word option has a blank after ``=`` (``WORD_OPTIONS``); nvsim refuses it."""
    if key in WORD_OPTIONS and value[:1].isspace() and value.strip():
        raise InputError(written, f"fio reads the value with the blank after '=' ({written}={value!r}), fails to "
                         f"parse it and drops the job; write {written}={value.strip()}", source=where)


def _strip_comment(line: str) -> str:
    """fio cuts a line at its first ';' and its first '#' (strip_blank_end in parse.c)."""
    for mark in (";", "#"):
        cut = line.find(mark)
        if cut >= 0:
            line = line[:cut]
    return line


# ---------------------------------------------------------------- one job

_SHAPE_OPTIONS = {"bssplit": "mix", "bsrange": "mix", "read_iolog": "replay", "replay_no_stall": "replay",
                  "replay_time_scale": "replay", "replay_skip": "replay", "replay_scale": "replay",
                  "replay_align": "replay", "zonemode": "placement", "zonesize": "placement",
                  "random_distribution": "placement"}
"""Options read once the whole section is (``_shape``): a mix of sizes, a replayed trace, zones and skew."""


def _build_job(section: _Section, entries: list[_Entry], path: str, catalog: Any,
               open_file: FileOpener = local_file) -> tuple[FioJob, dict[str, Any]]:
    """One job from its effective options (the globals in force, then its own section), in fio's order:
    every option is taken in turn, later ones overriding earlier ones, then the job is validated.
    Returns the job and its flags (``stonewall``, ``new_group``, the ``unmodelled`` option names)."""
    draft = _JobDraft(section=section, path=path, kb_base=_kb_base(entries, path), name=section.name,
                      data={"name": section.name}, open_file=open_file)
    for entry in entries:
        _take_option(draft, entry)
    if not draft.direct and {"direct", "buffered"} & draft.options.keys():  # buffered I/O asked for: nvsim models O_DIRECT
        draft.flags["unmodelled"].add("direct")  # (fio's buffered default, no direct given, is a note: FioJobFile.notes)
    job = _finish_job(draft, catalog)
    if job.cpus_allowed is not None and not _one_cpu_each(job.cpus_allowed, job.workload.numjobs):
        draft.flags["unmodelled"].add("cpus_allowed")  # fewer CPUs than clones: nvsim gives each one a CPU of its own
    return job, draft.flags


def _kb_base(entries: list[_Entry], path: str) -> int:
    """fio's ``kb_base`` (1024 or 1000; the last one given wins), needed before any size is read."""
    kb_base = 1024
    for entry in entries:
        if entry.key == "kb_base":
            value = _need_value(entry, path)
            if value not in ("1024", "1000"):
                raise _error(entry, path, f"must be 1024 or 1000, got {value!r}")
            kb_base = int(value)
    return kb_base


@dataclass
class _JobDraft:
    """A job as its options are read, before it becomes a validated ``WorkloadSpec`` and ``FioJob``:
    ``data`` is the spec's fields, ``origin`` the entry each field came from (to name the line of a
    validation error), the rest what ``FioJob`` keeps beside the spec."""

    section: _Section
    path: str
    kb_base: int
    name: str
    data: dict[str, Any]
    origin: dict[str, _Entry] = field(default_factory=dict)
    bs: list[tuple[int, _Entry] | None] = field(default_factory=lambda: [None, None, None])  # read, write, trim
    rw: str = FIO_DEFAULT_RW
    ioengine: str = FIO_DEFAULT_IOENGINE
    size_percent: float | None = None
    offset_percent: float | None = None
    kept: dict[str, str | None] = field(default_factory=lambda: {"filename": None, "cpus_allowed": None, "numa_cpu_nodes": None})
    flags: dict[str, Any] = field(default_factory=lambda: {"stonewall": False, "new_group": False, "unmodelled": set()})
    direct: bool = False
    options: dict[str, str] = field(default_factory=dict)
    places: dict[str, str] = field(default_factory=dict)  # option -> the place it was given (``FioJob.option_places``)
    pacing: _Pacing = field(default_factory=lambda: _Pacing())
    shape: dict[str, dict[str, _Entry]] = field(default_factory=lambda: {"mix": {}, "replay": {}, "placement": {}})
    extent: dict[str, int | None] = field(default_factory=dict)
    open_file: FileOpener = local_file


def _take_option(draft: _JobDraft, entry: _Entry) -> None:
    """Take one option into the draft; the handlers are tried in a fixed order and the first that
    knows the option takes it (an option no handler knows is collected as unmodelled)."""
    draft.options[entry.key] = entry.value if entry.value is not None else ""
    draft.places[entry.key] = entry.place(draft.path)
    if entry.key in MODELLED_OPTIONS and entry.value is not None and _substituted(entry.key, entry.value):
        raise _error(entry, draft.path, f"an expression is read only in numeric options (fio expands ${{VARIABLES}} and "
                                        f"$keywords everywhere, (arithmetic) in numbers; got {entry.value!r})")
    if not (_take_amount_option(draft, entry) or _take_run_option(draft, entry)):
        _take_job_option(draft, entry)


def _take_amount_option(draft: _JobDraft, entry: _Entry) -> bool:
    """The direction, block size, counts and extents of the I/O (``rw``, ``bs``, ``iodepth``, ``size``,
    ``offset``, ``io_size`` ...); False when the option is none of these."""
    key, path, kb_base, data = entry.key, draft.path, draft.kb_base, draft.data
    if key == "rw":
        draft.rw = _parse_rw(entry, path)
        data.pop("rw_skip_bytes", None)
        data.pop("random_run_ios", None)
        data.update(_parse_rw_modifier(entry, path, kb_base))
        draft.origin["rw"] = entry
    elif key == "bs":
        _apply_bs(draft.bs, entry, path, kb_base)
    elif key in ("iodepth", "numjobs", "rwmixread", "rwmixwrite", "iodepth_batch_submit", "iodepth_batch_complete_min"):
        number = _parse_int(entry, path, kb_base)
        if key == "rwmixwrite":
            if not 0 <= number <= 100:
                raise _error(entry, path, f"must be 0 to 100, got {number}")
            key, number = "rwmixread", 100 - number
        data[key] = number
        draft.origin[key] = entry
    elif key in ("size", "offset_increment"):
        amount, percent = _parse_size(entry, path, kb_base, allow_percent=True)
        if key == "size":
            draft.size_percent = percent
            data["size"] = amount if amount else None  # fio: size=0 means the whole file
        else:
            draft.offset_percent = percent
            data["offset_increment"] = amount
        draft.origin[key] = entry
    elif key == "offset":
        zero = re.fullmatch(r"0+\s*%", entry.value or "")  # offset=0%: the start, as offset=0
        data["offset"], offset_share = (0, None) if zero else _parse_size(entry, path, kb_base, allow_percent=True)
        draft.pacing.offset_percent = offset_share
        draft.origin[key] = entry
    elif key in ("io_size", "loops"):
        amount = _parse_int(entry, path, kb_base)
        if amount < (1 if key == "loops" else 0):
            raise _error(entry, path, f"must be at least 1, got {amount}")
        draft.extent[key] = amount or None
        draft.origin[key] = entry
    else:
        return False
    return True


def _take_run_option(draft: _JobDraft, entry: _Entry) -> bool:
    """How the job runs: the block-size mix, trace replay and placement options, its times, host I/O
    flags, drive state and ioengine; False when the option is none of these."""
    key, path = entry.key, draft.path
    if key in _SHAPE_OPTIONS:
        draft.shape[_SHAPE_OPTIONS[key]][key] = entry
    elif key in ("runtime", "ramp_time"):
        seconds = _parse_time(entry, path)
        draft.data[key] = (seconds or None) if key == "runtime" else seconds  # fio: runtime=0 is no limit
        draft.origin[key] = entry
    elif key in ("time_based", *HOST_IO_FLAGS):
        draft.data[key] = _parse_flag(entry, path)
        draft.origin[key] = entry
    elif key == "drive_state":
        draft.data["drive_state"] = _parse_drive_state(entry, path)
        draft.origin[key] = entry
    elif key == "ioengine":
        draft.ioengine = _parse_ioengine(entry, path)
        draft.origin["ioengine"] = entry
    else:
        return False
    return True


def _take_job_option(draft: _JobDraft, entry: _Entry) -> None:
    """Every other option: those kept as written, grouping flags, the job's name, O_DIRECT, pacing;
    refused options raise, misspelt case is named, an option fio has but nvsim does not model is
    collected."""
    key, path = entry.key, draft.path
    _refuse_negative(entry, path)
    if key in draft.kept:
        draft.kept[key] = _need_value(entry, path)
    elif key in ("stonewall", "new_group"):
        draft.flags[key] = _parse_flag(entry, path)
    elif key == "wait_for":  # read with the file's jobs (``_waits_for_the_phase``)
        _need_value(entry, path)
    elif key == "name":
        if any(entry is own for own in draft.section.entries):  # a name= in [global] gives way to the section name, as in fio
            draft.name = _need_value(entry, path)
            draft.origin["name"] = entry
    elif key in ("direct", "buffered"):
        value = _need_value(entry, path)
        if value not in ("0", "1"):
            raise _error(entry, path, f"must be 0 or 1, got {value!r}")
        draft.direct = (value == "1") == (key == "direct")
    elif key in _Pacing.KEYS:
        draft.pacing.take(entry, path)
    elif key in REFUSED_OPTIONS:
        _refuse_option(entry, path, draft.kb_base)
    elif key == "kb_base" or key in UNDERSTOOD_WITHOUT_EFFECT:
        pass
    elif key.lower() in _KNOWN:
        raise _error(entry, path, f"fio option names are case-sensitive; did you mean {key.lower()!r}?")
    elif key not in FIO_OPTION_NAMES:  # fio refuses the file; ignoring it would change the answer unseen
        raise _error(entry, path, f"not an option of fio {FIO_VERSION}, which stops at it ('Bad option')"
                                  f"{suggestion_text(key, FIO_OPTION_NAMES | _KNOWN)}")
    else:
        draft.flags["unmodelled"].add(key)


def _refuse_negative(entry: _Entry, path: str) -> None:
    """A negative value of an option fio stores unsigned (``UNSIGNED_OPTIONS``), refused."""
    if entry.key in UNSIGNED_OPTIONS and (entry.value or "").lstrip().startswith("-"):
        raise _error(entry, path, f"must be 0 or more {UNSIGNED_OPTIONS[entry.key]}, got {entry.value!r} (fio stores it "
                                  f"unsigned: a negative value wraps to 2^64 less it)")


def _finish_job(draft: _JobDraft, catalog: Any) -> FioJob:
    """The draft as a ``FioJob``: its spec validated, then pacing and any replayed trace applied."""
    section, path, data = draft.section, draft.path, draft.data
    data["name"] = draft.name
    trim = draft.rw if draft.rw in FIO_RW_TRIM else None
    data["rw"] = TRIM_SHAPE.get(draft.rw, draft.rw)  # a trim job's offsets are a write job's (nvsim.workload.trim)
    data["ioengine"] = draft.ioengine
    shape = draft.shape
    mix, trace = _shape(data, draft.bs, shape["mix"], shape["replay"], shape["placement"], draft.origin, section, path,
                        draft.kb_base, draft.open_file)
    if mix is not None:  # validated with the job (a size below its smallest block is refused as fio refuses it)
        data["bs_mix"] = mix
    workload = updated_workload(_validated_workload(draft, catalog), {
        "trim": trim, "io_size": draft.extent.get("io_size"), "loops": draft.extent.get("loops") or 1},
        draft.section.name, {**draft.origin, "trim": draft.origin.get("rw")}, section.place(path))
    job = FioJob(name=draft.name, workload=workload, group=0, filename=draft.kept["filename"], size_percent=draft.size_percent,
                 offset_increment_percent=draft.offset_percent, options=draft.options, phase=0,
                 cpus_allowed=draft.kept["cpus_allowed"], numa_cpu_nodes=draft.kept["numa_cpu_nodes"], line=section.line,
                 where=section.place(path), option_places=dict(draft.places),
                 job_options={e.key: e.value if e.value is not None else "" for e in section.entries})
    job = draft.pacing.apply(job, section.name, path, draft.kb_base)
    if trace is not None:
        job = _with_trace(job, trace, shape["replay"], path)
    return job


_UNITS = {"thinktime": "seconds", "latency_target": "seconds", "latency_window": "seconds", "io_size": "bytes",
          "size": "bytes", "offset": "bytes", "offset_increment": "bytes", "rate_iops": "I/Os per second of one clone"}
"""What a ``WorkloadSpec`` field a bound names counts, for the fio option's message (fio writes times
and sizes with units)."""


def updated_workload(workload: WorkloadSpec, update: dict[str, Any], job: str, entries: Mapping[str, _Entry] | None = None,
                     where: str = "") -> WorkloadSpec:
    """``workload`` with the fields of ``update`` set, held to ``WorkloadSpec``'s bounds as a
    scenario's workload is (pydantic's ``model_copy`` checks nothing: thinktime=2h, loops past 2^64
    were taken here and refused in a scenario); the result is that same ``model_copy`` (a valid
    job's spec is unchanged to the bit). A bound passed is one line naming the fio option's line
    (``entries``: field -> the option that set it; ``where``: the section's place, "FILE line N",
    when no option did) and the job."""
    if not update:
        return workload
    try:  # the times this reader holds in seconds, given to the spec with their unit
        WorkloadSpec.model_validate({**workload.model_dump(), **{k: seconds_text(v) if k in FIO_TIMES and v is not None
                                                                  else v for k, v in update.items()}})
    except ValidationError as exc:
        problem = from_validation_error(exc, WorkloadSpec)
        name = problem.field.split(".")[0]
        unit = f" ({name} in {_UNITS[name]})" if name in _UNITS else ""
        entry = (entries or {}).get(name)
        message = f"{problem.message}{unit} (job [{job}])"
        if entry is None:
            raise InputError(problem.field, message, source=where or None) from None
        raise _error(entry, where, message if entry.key == name else f"as {name}: {message}") from None
    return workload.model_copy(update=update)


def _validated_workload(draft: _JobDraft, catalog: Any) -> WorkloadSpec:
    """The draft's ``WorkloadSpec``; a validation error names the option's line (or the section's) and the job."""
    try:
        return WorkloadSpec.model_validate(draft.data, context={"catalog": catalog})
    except ValidationError as exc:
        problem = from_validation_error(exc, WorkloadSpec)
        entry = draft.origin.get(problem.field.split(".")[0])
        where = entry.place(draft.path) if entry else draft.section.place(draft.path)
        label = entry.written if entry else problem.field
        raise InputError(label, f"{problem.message} (job [{draft.section.name}])", source=where) from None


@dataclass
class _Pacing:
    """fio's options that pace a job, collected while its section is read, then applied to it: rate
    caps and minimums (per direction), think time, a latency target."""

    KEYS = ("rate", "rate_iops", "rate_min", "rate_iops_min", "thinktime", "latency_target", "latency_window",
            "latency_percentile", "rate_process", "flow", "flow_id")
    rates: dict[str, _Entry] = field(default_factory=dict)
    minimums: dict[str, _Entry] = field(default_factory=dict)
    think_s: float | None = None
    latency: dict[str, tuple[Any, _Entry]] = field(default_factory=dict)
    offset_percent: float | None = None
    process: str = "linear"
    flow: int | None = None
    flow_id: int = 0
    entries: dict[str, _Entry] = field(default_factory=dict)  # the option that set each field (to name its line)

    def take(self, entry: _Entry, path: str) -> None:
        key = entry.key
        self.entries[key] = entry
        if key in ("rate", "rate_iops"):
            self.rates[key] = entry
        elif key in ("rate_min", "rate_iops_min"):
            self.minimums[key.replace("_min", "")] = entry
        elif key == "thinktime":
            self.think_s = _parse_time(entry, path, default_unit="us") or None
        elif key in ("flow", "flow_id"):
            value = _need_value(entry, path)
            if not re.fullmatch(r"-?[0-9]+", value) or (key == "flow_id" and int(value) < 0):
                raise _error(entry, path, f"expected a whole number{'' if key == 'flow' else ' >= 0'}, got {value!r}")
            if key == "flow":
                self.flow = abs(int(value)) or None  # fio keeps the ratio of |weights|; 0: no flow control
            else:
                self.flow_id = int(value)
        elif key == "rate_process":
            value = _need_value(entry, path)
            if value not in ("linear", "poisson"):
                raise _error(entry, path, f"unknown value {value!r}; allowed: linear, poisson")
            self.process = value
        elif key == "latency_percentile":
            self.latency[key] = (_parse_percentage(entry, path), entry)
        else:  # latency_target, latency_window: microseconds by default
            self.latency[key] = (_parse_time(entry, path, default_unit="us") or None, entry)

    def apply(self, job: FioJob, section: str, path: str, kb_base: int) -> FioJob:
        """The job with its caps, think time and target; combinations nvsim does not model refused."""
        w = job.workload
        trims = job.trim in ("trim", "randtrim")
        process = self.process if job.trace is None else None  # a replay's sizes are the trace's: caps over their mean, as before
        rate = _rate_limit_iops(self.rates, w, path, kb_base, trims_only=trims, process=process)
        by_direction, over_mix = (None, None) if trims else _direction_caps(self.rates, w, path, kb_base, process)
        if by_direction is not None:  # a mix whose caps are not in its proportions: each direction on its own
            rate = None
        elif over_mix is not None:  # caps in the mix's proportions: one cap over the mix, their sum (700,300 is 1,000)
            rate = over_mix
        tightest = _tightest_rate_entry(self.rates, w, path, kb_base, trims, process)
        named = {**self.entries, "rate_iops": tightest, "rate_iops_by_direction": tightest}
        job = _paced(replace(job, offset_percent=self.offset_percent,
                             rate_min_iops=_rate_limit_iops(self.minimums, w, path, kb_base, tightest=False, trims_only=trims)),
                     named, path, rate_iops=rate, rate_iops_by_direction=by_direction, thinktime=self.think_s,
                     rate_process=self.process if rate is not None or by_direction is not None else "linear",
                     flow=self.flow, flow_id=self.flow_id if self.flow is not None else 0)  # fio: no weight, no group
        target, entry = self.latency.get("latency_target", (None, None))
        if not target:
            return job
        if self.think_s or job.rate_iops is not None or job.workload.rate_iops_by_direction is not None:
            raise _error(entry, path, f"a latency target together with a rate cap or thinktime is not modelled (job [{section}])")
        return _paced(job, self.entries, path, latency_target=target, latency_window=self.latency.get("latency_window", (None,))[0],
                      latency_percentile=self.latency.get("latency_percentile", (100.0,))[0])


def _paced(job: FioJob, entries: Mapping[str, _Entry | None], path: str, **pacing: Any) -> FioJob:
    """The job with its workload's pacing fields set, held to ``WorkloadSpec``'s bounds
    (``updated_workload``; ``entries``: field -> the option that set it)."""
    named = {key: entry for key, entry in entries.items() if entry is not None}
    return replace(job, workload=updated_workload(job.workload, pacing, job.name, named, job.where))


FIO_TIMES = ("thinktime", "latency_target", "latency_window")
"""``WorkloadSpec`` fields that read a bare number as microseconds (``specs.base.FioTime``)."""


def _tightest_rate_entry(rates: dict[str, _Entry], workload: WorkloadSpec, path: str, kb_base: int,
                         trims_only: bool, process: str | None = None) -> _Entry | None:
    """Which of rate and rate_iops gives the job's cap (``_rate_limit_iops``), to name its line."""
    caps = [(_rate_limit_iops({key: entry}, workload, path, kb_base, trims_only=trims_only, process=process), entry)
            for key, entry in rates.items()]
    caps = [(cap, entry) for cap, entry in caps if cap is not None]
    return min(caps, key=lambda item: item[0])[1] if caps else None


def _rate_limit_iops(rates: dict[str, _Entry], workload: WorkloadSpec, path: str, kb_base: int,
                     tightest: bool = True, trims_only: bool = False, process: str | None = None) -> float | None:
    """One clone's IOPS cap from fio's rate (bytes/s) and rate_iops, each read,write[,trim] as bs
    (keys "rate", "rate_iops"; ``process``: the job's rate_process, ``_cap_iops``); with
    ``tightest=False`` the least rate rate_min / rate_iops_min ask (``process`` None).

    fio caps each direction on its own; a job issues its directions in its mix (rwmixread), so the
    job's I/Os per second are capped at the tightest cap over a direction's share of the I/Os, and
    its minimum is the highest minimum over a direction's share. A trim-only job (rw=trim,
    randtrim: ``trims_only``) takes the trim part.
    """
    caps = []
    shares = (0.0, 0.0, 1.0) if trims_only else (workload.read_fraction, 1.0 - workload.read_fraction, 0.0)
    for key, entry in rates.items():
        for direction, (value, share) in enumerate(zip(_per_direction(entry, path, kb_base), shares)):
            if value and share > 0:  # 0 or an empty part: no cap on that direction
                caps.append(_cap_iops(key, value, workload, direction, process) / share)
    return (min(caps) if tightest else max(caps)) if caps else None


def _direction_caps(rates: dict[str, _Entry], workload: WorkloadSpec, path: str, kb_base: int,
                    process: str | None = None) -> tuple[tuple[float | None, float | None] | None, float | None]:
    """(a read/write mix's caps per direction, one clone's I/Os per second, None where uncapped;
    their sum where they are in the mix's proportions, which one cap over the mix says exactly):
    (None, None) for a job of one direction or without caps. fio caps each direction on its own
    (io_u.c ``rate_ddir``): ``rate_iops=1000`` on a 60/40 mix lets 1,000 reads and 1,000 writes a
    second, not 1,000 in all; a cap on one direction leaves the other free."""
    f = workload.read_fraction
    if not 0.0 < f < 1.0 or not rates:
        return None, None
    caps: list[float | None] = [None, None]
    for key, entry in rates.items():
        for direction, value in enumerate(_per_direction(entry, path, kb_base)[:2]):
            if value:  # 0 or an empty part: no cap on that direction
                iops = _cap_iops(key, value, workload, direction, process)
                caps[direction] = iops if caps[direction] is None else min(caps[direction], iops)
    if caps == [None, None]:
        return None, None
    if None not in caps and math.isclose(caps[0] * (1.0 - f), caps[1] * f, rel_tol=1e-9):
        return None, caps[0] + caps[1]
    return (caps[0], caps[1]), None


def _cap_iops(key: str, value: int, workload: WorkloadSpec, direction: int, process: str | None) -> float:
    """One clone's I/Os per second in ``direction`` (0 read, 1 write, 2 trim) under fio's ``key`` of
    ``value`` (rate: bytes/s; rate_iops). fio holds a cap in bytes/s (init.c ``__setup_rate``: rate, or
    rate_iops x the direction's smallest block): the linear process issues bytes at it (io_u.c
    ``usec_for_io``), so rate_iops=1000 on a 4k/64k mix is 1,000 x 4,096 / 34,816 = 117.6 I/Os a
    second; the Poisson process draws one I/O per smallest block of it, whatever its size (rate=4096000
    on that mix: 1,000). nvsim took rate_iops as I/Os and rate over the mean size in both. ``process``
    None: a minimum (rate_min, rate_iops_min), checked on the bytes and I/Os done, or a replay's cap."""
    smallest, mean = direction_sizes(workload.bs_mix, workload.bs, direction)
    if key == "rate":
        return value / (smallest if process == "poisson" else mean)
    return value * smallest / mean if process == "linear" else float(value)


def _per_direction(entry: _Entry, path: str, kb_base: int) -> list[int | None]:
    """R[,W[,T]] as fio reads rate and rate_iops: the last part given also fills the directions after it."""
    value = _need_value(entry, path)
    parts = value.split(",")
    if len(parts) > 3:
        raise _error(entry, path, f"takes at most three values (read,write,trim), got {value!r}")
    out: list[int | None] = [None, None, None]
    for index, part in enumerate(parts):
        if part.strip():
            amount, _ = _parse_size(replace(entry, value=part.strip()), path, kb_base, allow_percent=False)
            for direction in range(index, 3 if index == len(parts) - 1 else index + 1):
                out[direction] = amount
    return out


def _substituted(key: str, value: str) -> bool:
    """fio replaces ${VAR} in every option, and evaluates (arithmetic) with $pagesize etc. in numbers."""
    return "${" in value or (key not in ("rw", "ioengine") and ("$" in value or value.startswith("(")))


def _error(entry: _Entry, path: str, message: str) -> InputError:
    return InputError(entry.written, message, source=entry.place(path))


def _need_value(entry: _Entry, path: str) -> str:
    if entry.value is None or entry.value == "":
        raise _error(entry, path, f"needs a value ({entry.written}=...)")
    return entry.value


STRIDED_ZONE_MIN_IOS = 64
"""zonemode=strided is simulated as the job's plain stream when each zone holds at least this many
I/Os: the jump to the next zone then comes once per 64 I/Os or less often, which moves a sequential
stream's rate by a share of a stripe per zone."""

def _check_placement(placement: dict[str, _Entry], rw: str, rwmixread: int, path: str, kb_base: int) -> str | None:
    """zonemode and random_distribution: what nvsim simulates, the rest refused in one line.

    zonemode=strided (zones of zonesize bytes, zoneskip between them) is the job's stream when a
    zone holds at least ``STRIDED_ZONE_MIN_IOS`` I/Os; zonemode=zbd (zoned namespaces) is refused.
    random_distribution skews which blocks are hit: a read-only job's answer does not depend on it
    (nvsim models no read cache); for a job that writes it is returned, to become
    ``WorkloadSpec.random_distribution``: the written data's hotness sets the drives' hot/cold write
    amplification (nvsim.ftl.skew, nvsim.ftl.load)."""
    mode = placement.get("zonemode")
    value = (mode.value or "").strip() if mode else "none"
    if value == "zbd":
        raise _error(mode, path, "cannot be simulated: zoned block devices (zonemode=zbd) are not modelled, nvsim's drives "
                                 "are conventional NVMe namespaces; zonemode=none and zonemode=strided are simulated")
    if value == "strided":
        if "zonesize" not in placement:
            raise _error(mode, path, "zonemode=strided needs zonesize (the bytes of I/O in each zone)")
        zone = _parse_int(placement["zonesize"], path, kb_base)
        if zone < STRIDED_ZONE_MIN_IOS * 4096:
            raise _error(placement["zonesize"], path, f"zones of {zone} bytes jump too often to simulate as one stream: "
                                                      f"zonesize must be at least {STRIDED_ZONE_MIN_IOS * 4096} bytes")
    elif value not in ("none",):
        raise _error(mode, path, f"unknown value {value!r}; allowed: none, strided, zbd (refused)")
    entry = placement.get("random_distribution")
    if entry is None:
        return None
    distribution = _need_value(entry, path).strip()
    if distribution.lower().startswith("sequence"):
        raise _error(entry, path, "cannot be simulated: a fixed sequence of block indices is not modelled; allowed: random, "
                                  "zipf:THETA, pareto:H, normal:DEV, zoned:PCT/PCT:..., zoned_abs:PCT/SIZE:...")
    try:
        check_distribution(distribution)
    except ValueError as exc:
        raise _error(entry, path, f"cannot read {distribution!r}: {exc}; allowed: random, zipf:THETA, pareto:H, "
                                  f"normal:SIGMA, zoned:PCT/PCT:..., zoned_abs:PCT/SIZE:...") from None
    writes = not (rw in _READS or (rw not in _WRITES and rwmixread == 100))
    random = rw.startswith("rand")  # fio draws no offsets for a sequential job: its distribution is not used
    return distribution if writes and random and distribution != "random" else None


def _shape(data: dict[str, Any], bs: list, mixes: dict[str, _Entry], replay: dict[str, _Entry], placement: dict[str, _Entry],
           origin: dict[str, _Entry], section: _Section, path: str, kb_base: int, open_file: FileOpener = local_file,
           ) -> tuple[tuple[MixPart, ...] | None, TraceSummary | None]:
    """The job's I/O shape once its section is read: a replayed trace (it replaces rw, bs, offset
    and size, as fio's replay does), its block size or mix of sizes, zone and skew checks; sets
    ``data["rw"]``/``["bs"]`` and returns (the mix, None for one size; the trace summary)."""
    rw = data["rw"]
    trace = _replayed_trace(replay, path, kb_base, open_file, data.get("numjobs", 1)) if "read_iolog" in replay else None
    if trace is not None:
        rw, mixes = _trace_rw(trace), {}
        data.update(rw=rw, rwmixread=round(trace.read_fraction * 100), offset=trace.start_bytes, size=max(512, trace.region_bytes))
        data.pop("rw_skip_bytes", None)
        data.pop("random_run_ios", None)
    job_bs = tuple(item[0] if item else 4096 for item in bs)  # fio's default bs is 4096 for every direction
    mix = _block_size_mix(mixes, rw, data.get("rwmixread", 50), path, kb_base, job_bs) if trace is None else trace.parts
    skew = _check_placement(placement, rw, data.get("rwmixread", 50), path, kb_base)
    if skew is not None:
        data["random_distribution"] = skew
    data["bs"] = mean_size(mix) if mix else _choose_bs(rw, bs, origin, section, path)
    if mix:
        origin["bs"] = mixes.get("bssplit") or mixes.get("bsrange") or replay["read_iolog"]
        mix = mix if is_a_mix(mix) else None  # one size: the job's bs
    return mix, trace


REPLAY_TIME_SCALE_MAX = 10**6
"""The largest replay_time_scale taken, in percent of the trace's rate (10,000 times it)."""


def _replayed_trace(replay: dict[str, _Entry], path: str, kb_base: int, open_file: FileOpener = local_file,
                    numjobs: int = 1) -> TraceSummary:
    """The trace a job's read_iolog names (``_clones_trace``), reached through ``open_file`` (fio's
    path, or beside the job file), its I/Os as replay_skip, replay_scale and replay_align leave them
    (``_replay_edits``), summarised at replay_time_scale (a percentage of the trace's rate, default 100)."""
    entry = replay["read_iolog"]
    name = _clones_trace(entry, path, numjobs)
    try:
        found, raw = open_file(name, path)
    except InputError as exc:
        raise _error(entry, path, f"trace {exc.message}") from None
    scale = 100
    if "replay_time_scale" in replay:
        scale = _parse_int(replay["replay_time_scale"], path, kb_base)
        if not 1 <= scale <= REPLAY_TIME_SCALE_MAX:
            raise _error(replay["replay_time_scale"], path, f"a percentage of the trace's rate, allowed 1 to "
                                                            f"{REPLAY_TIME_SCALE_MAX:,}, got {scale}")
    edits = _replay_edits(replay, path, kb_base)
    try:
        trace = parse_trace(raw, found)
    except InputError as exc:
        raise _error(entry, path, f"{found}: {exc.message}") from None
    try:
        return summarize(replayed(trace, **edits), scale / 100.0)
    except InputError as exc:
        named = replay[exc.field]
        raise _error(named, path, f"{named.value!r} {exc.message} ({found})") from None


def _clones_trace(entry: _Entry, path: str, numjobs: int) -> str:
    """The one trace the job's clones replay: read_iolog's names split at each ':' not after a '\\'
    (a colon of the name), empty ones dropped, clone i taking name i modulo their count, as fio's
    get_name_by_idx; clones given different traces are refused (a job's clones run one workload)."""
    names = [name.replace("\\:", ":") for name in re.split(r"(?<!\\):", _need_value(entry, path)) if name]
    if not names:
        raise _error(entry, path, f"needs a file name, got {entry.value!r}")
    used = dict.fromkeys(names[:max(1, min(numjobs, len(names)))])
    if len(used) > 1:
        raise _error(entry, path, f"{len(used)} traces for {numjobs} clones (fio gives clone i the i-th name): clones "
                                  f"replaying different traces are not modelled; allowed: one trace, or a job section per trace")
    return names[0]


def _replay_edits(replay: dict[str, _Entry], path: str, kb_base: int) -> dict[str, Any]:
    """replay_skip (directions, a comma-separated list of read, write, trim, sync), replay_scale (a
    whole number, 0 or 1: offsets as written) and replay_align (0 or a power of 2), as fio reads them."""
    skip = frozenset()
    if "replay_skip" in replay:
        skip = frozenset(_need_value(replay["replay_skip"], path).strip().split(","))
        if not skip <= set(REPLAY_SKIP_ACTIONS):
            raise _error(replay["replay_skip"], path, f"unknown skip type {sorted(skip - set(REPLAY_SKIP_ACTIONS))[0]!r}; "
                                                      f"allowed: a comma-separated list of {', '.join(REPLAY_SKIP_ACTIONS)}")
    scale = _parse_int(replay["replay_scale"], path, kb_base) if "replay_scale" in replay else 0
    if scale >= 2**32:
        raise _error(replay["replay_scale"], path, f"must be a whole number below 2^32 (fio's unsigned int), got {scale}")
    align = _parse_int(replay["replay_align"], path, kb_base) if "replay_align" in replay else 0
    if align & (align - 1) or align >= 2**32:
        raise _error(replay["replay_align"], path, f"must be 0 or a power of 2 below 2^32, got {align}")
    return {"skip": skip, "scale": scale, "align_bytes": align}


def _trace_rw(trace: TraceSummary) -> str:
    """fio's rw for the trace's character: random unless most I/Os start where the one before ended."""
    kind = "" if trace.sequential_share >= 0.5 else "rand"
    if trace.read_fraction >= 1.0:
        return f"{kind}read"
    if trace.read_fraction <= 0.0:
        return f"{kind}write"
    return "randrw" if kind else "rw"


def _with_trace(job: FioJob, trace: TraceSummary, replay: dict[str, _Entry], path: str) -> FioJob:
    """A replayed trace: open loop at its timestamps' rate (Poisson arrivals), or with
    replay_no_stall (or no timestamps) the closed loop at the job's iodepth; each numjobs clone
    replays the whole trace, as fio's init_iolog opens it for every clone."""
    stall = not (_parse_flag(replay["replay_no_stall"], path) if "replay_no_stall" in replay else False)
    if job.rate_iops is not None or job.thinktime_s is not None or job.latency_target_s is not None:
        raise _error(replay["read_iolog"], path, f"a replayed trace sets its own pace; rate, thinktime and latency_target "
                                                 f"are not modelled with it (job [{job.name}])")
    if stall and trace.arrival_iops:
        _check_replay_pace(trace, replay, path, job.name)
        named = {"rate_iops": replay.get("replay_time_scale") or replay["read_iolog"], "rate_process": replay["read_iolog"]}
        return replace(_paced(job, named, path, rate_iops=trace.arrival_iops, rate_process="poisson"),
                       trace=trace)
    return replace(job, trace=trace)


def _check_replay_pace(trace: TraceSummary, replay: dict[str, _Entry], path: str, name: str) -> None:
    """A timed replay is paced at its timestamps' mean rate (``_with_trace``): one outside the rates
    a clone's cap takes (``RATE_IOPS_MIN`` to ``RATE_IOPS_MAX``) is refused naming read_iolog."""
    rate = trace.arrival_iops
    if not RATE_IOPS_MIN <= rate <= RATE_IOPS_MAX:
        scale = replay.get("replay_time_scale")
        scaled = f" at replay_time_scale={scale.value}" if scale is not None else ""
        raise _error(replay["read_iolog"], path, f"the trace's {trace.ios:,} I/Os replay at {rate:.3g} I/Os per second"
                                                 f"{scaled} (their timestamps' mean rate); allowed: {RATE_IOPS_MIN:g} to "
                                                 f"{RATE_IOPS_MAX:,.0f} I/Os per second, or replay_no_stall=1 (the closed "
                                                 f"loop at iodepth) (job [{name}])")


def _block_size_mix(mixes: dict[str, _Entry], rw: str, rwmixread: int, path: str, kb_base: int,
                    job_bs: tuple[int, int, int]) -> tuple[MixPart, ...] | None:
    """The job's mix of block sizes from bssplit (which wins, as in fio) or bsrange, for the
    directions its rw uses (``nvsim.specs.mix``; a bssplit's empty direction takes ``job_bs``, the
    job's bs by direction): one part per (size, direction); None when it is a single size."""
    if not mixes:
        return None
    entry = mixes.get("bssplit") or mixes["bsrange"]
    value = _need_value(entry, path)

    def size_of(text: str) -> int:
        return _parse_size(replace(entry, value=text), path, kb_base, allow_percent=False)[0]
    try:
        per_direction = parse_bssplit(value, size_of, job_bs) if entry.key == "bssplit" else parse_bsrange(value, size_of)
    except InputError:  # a size that cannot be read: ``size_of`` already named the line and the option
        raise
    except ValueError as exc:
        raise _error(entry, path, str(exc)) from None
    return block_size_mix(per_direction, rw, rwmixread)


_range_bins = range_bins  # noqa: F401 (the bins' law is tested here)


def _refuse_option(entry: _Entry, path: str, kb_base: int) -> None:
    """An option that changes the answer in a way nvsim does not model: refused unless it says fio's default."""
    value = (entry.value or "").strip()
    if value in REFUSED_DEFAULTS.get(entry.key, ()):
        return
    raise _error(entry, path, f"cannot be simulated: {REFUSED_OPTIONS[entry.key]} (got {entry.written}={value})")


def _parse_ioengine(entry: _Entry, path: str) -> str:
    """The engine as written; one that cannot be simulated (network, null, file operations, plug-ins) is refused."""
    value = _need_value(entry, path)
    supported = f"nvsim simulates the block engines {', '.join(BLOCK_IOENGINES)} (no ioengine: fio's default {FIO_DEFAULT_IOENGINE})"
    if value.startswith("external") or "/" in value or value.endswith(".so"):
        raise _error(entry, path, f"{value!r} is an external engine plug-in, which cannot be simulated; {supported}")
    if value in UNSIMULATED_IOENGINES:
        raise _error(entry, path, f"{value!r} cannot be simulated: it {UNSIMULATED_IOENGINES[value]}; {supported}")
    return value


def _parse_rw_modifier(entry: _Entry, path: str, kb_base: int) -> dict[str, int]:
    """fio's rw=TYPE:N: a sequential job skips N bytes after each I/O (negative: backwards), a random
    job issues N I/Os one after the other from each random offset (``WorkloadSpec.rw_skip_bytes``,
    ``random_run_ios``); no modifier: {}."""
    value = _need_value(entry, path)
    if ":" not in value:
        return {}
    kind, _, modifier = value.partition(":")
    modifier = modifier.strip()
    if kind.startswith("rand"):
        if not re.fullmatch(r"[0-9]+", modifier) or not 1 <= int(modifier) <= 2**20:
            raise _error(entry, path, f"the ':N' of a random rw is a count of I/Os per random offset, 1 to {2**20}, got {value!r}")
        return {"random_run_ios": int(modifier)}
    negative = modifier.startswith("-")
    if not modifier.lstrip("-"):
        raise _error(entry, path, f"the ':' of {value!r} needs a size to skip (read:8k) or a count of I/Os (randread:8)")
    skip, _ = _parse_size(replace(entry, value=modifier.lstrip("-")), path, kb_base, allow_percent=False)
    if skip % 512:
        raise _error(entry, path, f"the ':N' of {value!r} is a size to skip after each I/O, a multiple of 512 bytes")
    return {"rw_skip_bytes": -skip if negative else skip}


def _parse_rw(entry: _Entry, path: str) -> str:
    value = _need_value(entry, path).partition(":")[0].strip()
    if value in FIO_RW_TRIM:
        return value
    if value not in FIO_RW_MODELLED:
        raise _error(entry, path, f"unknown value {value!r}{suggestion_then(value, FIO_RW_MODELLED + FIO_RW_TRIM)}allowed: {', '.join(FIO_RW_MODELLED + FIO_RW_TRIM)}")
    return value


def _parse_drive_state(entry: _Entry, path: str) -> str:
    """nvsim's drive_state (not a fio option): steady (preconditioned, the default), fresh or filled."""
    value = _need_value(entry, path).strip().lower()
    if value not in DRIVE_STATES:
        raise _error(entry, path, f"unknown value {value!r}; allowed: {', '.join(DRIVE_STATES)} (nvsim's own option: "
                                  f"steady = preconditioned drives, fresh = secure-erased drives writing into free blocks, "
                                  f"filled = drives just written sequentially end to end)")
    return value


def _parse_flag(entry: _Entry, path: str) -> bool:
    """A fio 'set' option: bare means on; otherwise an integer, non-zero is on."""
    if entry.value is None:
        return True
    if not re.fullmatch(r"[0-9]+", entry.value):
        raise _error(entry, path, f"takes no value or 0/1, got {entry.value!r}")
    return int(entry.value) != 0


def _parse_percentage(entry: _Entry, path: str) -> float:
    """A float percentage in (0, 100], as fio's latency_percentile."""
    value = _need_value(entry, path)
    try:
        if not value.isascii():  # fio's strtod reads ASCII digits only; float() reads any script's
            raise ValueError(value)
        number = float(value)
    except ValueError:
        raise _error(entry, path, f"expected a percentage (0, 100], got {value!r}") from None
    if not 0 < number <= 100:
        raise _error(entry, path, f"expected a percentage (0, 100], got {value!r}")
    return number


def _parse_int(entry: _Entry, path: str, kb_base: int) -> int:
    amount, _ = _parse_size(entry, path, kb_base, allow_percent=False)
    return amount


_SIZE = re.compile(r"^(0[xX][0-9a-fA-F]+|[0-9]+)([A-Za-z%]*)$")


def _parse_size(entry: _Entry, path: str, kb_base: int, *, allow_percent: bool) -> tuple[int, float | None]:
    """fio's str_to_decimal + get_mult_bytes: a whole number and an optional unit; 'N%' if allowed.

    With kb_base=1024 (fio's default) k/kb/m/mb/... are powers of 1024 and, in fio's compatibility
    mode, kib/mib/... are powers of 1000; kb_base=1000 swaps them. Returns (bytes, None) or
    (0, percent).
    """
    value = _need_value(entry, path)
    whole = re.fullmatch(r"([0-9]+)\.0*", value)
    if whole:  # fio's strtoll reads "16777216.0" as 16777216 (the ".0" is no unit): so does nvsim
        value = whole.group(1)
    match = _SIZE.match(value)
    if not match:
        hint = "; fio reads whole numbers only" if re.match(r"^[0-9]+\.[0-9]", value) else ""
        raise _error(entry, path, f"cannot read {value!r} as a number with an optional unit (k, m, g, t, p{', %' if allow_percent else ''}){hint}")
    digits, unit = match.groups()
    hexadecimal = digits[:2].lower() == "0x"
    if hexadecimal and unit:
        raise _error(entry, path, f"a hexadecimal value takes no unit, got {value!r}")
    number = int(digits, 16) if hexadecimal else int(digits)
    unit_lower = unit.lower()
    if unit_lower == "%":
        if not allow_percent:
            raise _error(entry, path, f"a percentage is not allowed here, got {value!r}")
        if not 1 <= number <= 100:
            raise _error(entry, path, f"a percentage must be 1% to 100%, got {value!r}")
        return 0, float(number)
    powers = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
    if unit_lower in ("", "b"):
        return number, None
    if unit_lower[:1] in powers and unit_lower[1:] in ("", "b", "ib"):
        iec = unit_lower.endswith("ib")
        base = (1000 if kb_base == 1024 else 1024) if iec else kb_base
        return number * base ** powers[unit_lower[0]], None
    if unit_lower == "z":
        raise _error(entry, path, f"zone units ({value!r}) are not modelled")
    raise _error(entry, path, f"unknown unit {unit!r} in {value!r}; allowed: k, m, g, t, p (powers of {kb_base}), "
                              f"kib, mib, gib, tib, pib (powers of {1000 if kb_base == 1024 else 1024}){', %' if allow_percent else ''}")


_TIME_UNITS_US = {"us": 1, "usec": 1, "ms": 1000, "msec": 1000, "s": 10**6, "m": 60 * 10**6, "h": 3600 * 10**6, "d": 86400 * 10**6}


def _parse_time(entry: _Entry, path: str, default_unit: str = "s") -> float:
    """fio's check_str_time: a whole number, in ``default_unit`` (seconds for runtime, microseconds
    for thinktime) unless a unit says otherwise."""
    value = _need_value(entry, path)
    match = re.fullmatch(r"([0-9]+)([A-Za-z]*)", value)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in ("", *_TIME_UNITS_US):
        hint = "; fio reads whole numbers only" if re.match(r"^[0-9]+\.[0-9]", value) else ""
        raise _error(entry, path, f"cannot read {value!r} as a time; a whole number with unit us, ms, s, m, h or d "
                                  f"({default_unit} without one){hint}")
    microseconds = int(match.group(1)) * _TIME_UNITS_US[unit or default_unit]
    return float(Fraction(microseconds, 10**6))


def _apply_bs(bs: list, entry: _Entry, path: str, kb_base: int) -> None:
    """bs=R[,W[,T]]: empty parts keep their value; the last non-empty part also fills the rest (fio's handle_option)."""
    value = _need_value(entry, path)
    parts = value.split(",")
    if len(parts) > 3:
        raise _error(entry, path, f"takes at most three sizes (read,write,trim), got {value!r}")
    for index, part in enumerate(parts):
        part = part.strip()
        if not part:
            continue
        amount, _ = _parse_size(replace(entry, value=part), path, kb_base, allow_percent=False)
        if amount <= 0:
            raise _error(entry, path, f"must be positive, got {part!r}")
        last = index == len(parts) - 1
        for direction in range(index, 3 if last else index + 1):
            bs[direction] = (amount, entry)
        iec = re.fullmatch(r"([0-9]+)([kmgtpKMGTP])[iI][bB]", part)
        if kb_base == 1024 and iec and amount % 512:
            raise _error(entry, path, f"{part!r} is {amount} bytes to fio: with kb_base=1024 (fio's default) KiB, MiB, ... are powers "
                                      f"of 1000 and k, m, ... powers of 1024; write {iec.group(1)}{iec.group(2).lower()} for the binary size")


def _choose_bs(rw: str, bs: list, origin: dict[str, _Entry], section: _Section, path: str) -> int:
    """The one block size the job uses: the read size, the write size, or both when they agree."""
    read, write = bs[0], bs[1]
    used = [read] if rw in _READS else [write] if rw in _WRITES else [read, write]
    sizes = [item[0] if item else 4096 for item in used]  # fio's default bs is 4096 for every direction
    if len(set(sizes)) > 1:
        entry = (write or read)[1]  # type: ignore[index]
        raise _error(entry, path, f"asymmetric block sizes (read {sizes[0]}, write {sizes[1]} bytes) are not modelled for rw={rw}; "
                                  f"give one size for both (job [{section.name}])")
    chosen = next((item for item in used if item), None)
    if chosen:
        origin["bs"] = chosen[1]
    return sizes[0]
