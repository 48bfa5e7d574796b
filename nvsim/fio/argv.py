"""fio's command line as fio parses it (init.c ``parse_cmd_line``, getopt_long_only over ``l_opts``
and every job option): ``--key=value`` and ``--key value`` alike, ``-key`` as ``--key``, flags bare,
fio's own options (``l_opts``) taken or ignored with a note, job files the arguments left over.

Read from fio 3.42's source (github.com/axboe/fio, commit f5344384): ``l_opts`` in init.c with each
option's ``has_arg``, and the job options whose ``.type`` is ``FIO_OPT_STR_SET`` (options.c's
``add_to_lopt`` gives them ``optional_argument``, a value only as ``--key=value``; every other job
option ``required_argument``). One leniency: a job option written bare right before another option
(``--write_bw_log --per_job_logs=0``) is read as a bare key of a job file, where fio's getopt would
take the next option as its value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from .names import FIO_OPTION_ALIASES, FIO_OPTION_NAMES, FIO_VERSION

REQUIRED, OPTIONAL, NONE = "required", "optional", "none"

FIO_OWN_OPTIONS: dict[str, str] = {
    "output": REQUIRED, "latency-log": REQUIRED, "bandwidth-log": OPTIONAL, "minimal": NONE, "output-format": REQUIRED,
    "append-terse": OPTIONAL, "version": NONE, "help": NONE, "cmdhelp": OPTIONAL, "enghelp": OPTIONAL, "showcmd": NONE,
    "readonly": NONE, "eta": REQUIRED, "eta-interval": REQUIRED, "eta-newline": REQUIRED, "debug": REQUIRED,
    "parse-only": NONE, "section": REQUIRED, "inflate-log": REQUIRED, "alloc-size": REQUIRED, "profile": REQUIRED,
    "warnings-fatal": NONE, "max-jobs": REQUIRED, "terse-version": REQUIRED, "server": OPTIONAL,
    "server-internal": REQUIRED, "daemonize": REQUIRED, "client": REQUIRED, "remote-config": REQUIRED,
    "cpuclock-test": NONE, "crctest": OPTIONAL, "memcpytest": OPTIONAL, "idle-prof": REQUIRED,
    "status-interval": REQUIRED, "trigger-file": REQUIRED, "trigger-timeout": REQUIRED, "trigger": REQUIRED,
    "trigger-remote": REQUIRED, "aux-path": REQUIRED, "merge-blktrace-only": NONE,
}
"""fio's own command-line options (init.c ``l_opts``) and whether each takes a value."""

FLAG_OPTIONS = frozenset("""
blocksize_unaligned bs_unaligned dummy exitall exitall_on_error fixedbufs group_reporting hipri
libblkio_force_enable_completion_eventfd libblkio_write_zeroes_on_trim listen new_group
no_completion_thread norandommap pingpong prep refill_buffers registerfiles sqthread_poll stonewall
thread time_based userspace_reap verify_only wait_for_previous xnvme_iovec zero_buffers
""".split())
"""Job options of type ``FIO_OPT_STR_SET``: bare flags on fio's command line (no value follows)."""

TAKEN = ("output", "output-format", "section", "parse-only", "version", "help", "readonly")
"""fio's own options ``nvsim fio`` does what fio does with."""
IGNORED = {
    "eta": "progress display", "eta-interval": "progress display", "eta-newline": "progress display",
    "status-interval": "progress display", "max-jobs": "how many jobs fio runs at once",
    "warnings-fatal": "a parse setting", "debug": "fio's debug logging", "alloc-size": "fio's shared memory",
    "aux-path": "where fio keeps its own files", "idle-prof": "CPU idleness profiling",
    "trigger-file": "a trigger", "trigger-timeout": "a trigger", "trigger": "a trigger", "trigger-remote": "a trigger",
    "latency-log": "fio's latency log (use the job option write_lat_log)",
    "bandwidth-log": "fio's bandwidth log (use the job option write_bw_log)", "terse-version": "terse output, not written",
    "append-terse": "terse output, not written",
}
"""fio's own options that change nothing nvsim simulates: accepted, with a note naming what they do."""
REFUSED = {
    "minimal": "terse output is not written; use --output-format=json",
    "profile": "fio's built-in profiles are not simulated; write the job options",
    "server": "nvsim simulates locally, there is no fio server", "server-internal": "there is no fio server",
    "daemonize": "there is no fio server", "client": "nvsim simulates locally, there are no fio clients",
    "remote-config": "there are no fio clients", "cpuclock-test": "a test of the CPU clock, not of storage",
    "crctest": "a test of fio's checksums, not of storage", "memcpytest": "a test of memcpy, not of storage",
    "merge-blktrace-only": "a trace tool, not a run",
    "inflate-log": "fio inflates a compressed log to its output and runs nothing; nvsim fio simulates the jobs (run "
                   "fio --inflate-log for the log)",
    "showcmd": "fio prints the job file as a command line and runs nothing; nvsim fio simulates the jobs (run fio "
               "--showcmd for the printout)",
    "cmdhelp": "fio prints its option help and runs nothing; nvsim fio simulates the jobs (see docs/fio.md's option "
               "table, or run fio --cmdhelp)",
    "enghelp": "fio prints an ioengine's help and runs nothing; nvsim fio simulates the jobs (see docs/fio.md's "
               "ioengines, or run fio --enghelp)",
}
"""fio's own options that ask for something nvsim does not do: refused in one line."""


@dataclass
class FioArguments:
    """A fio command line read as fio reads it."""

    job_options: list[str] = field(default_factory=list)  # --key=value / --flag, in order (``command_line_to_jobfile``)
    files: list[str] = field(default_factory=list)  # job files
    taken: dict[str, list[str]] = field(default_factory=dict)  # fio's own options nvsim takes, their values
    notes: list[str] = field(default_factory=list)  # fio's own options ignored, and why


def parse_fio_arguments(arguments: list[str] | tuple[str, ...]) -> FioArguments:
    """``arguments`` as fio's ``parse_cmd_line`` reads them (module docstring); an option fio does
    not know, a value missing, a refused option: one-line InputError."""
    out = FioArguments()
    items = list(arguments)
    i = 0
    while i < len(items):
        argument = items[i]
        i += 1
        if argument == "--":
            out.files.extend(items[i:])
            break
        if not argument.startswith("-") or argument == "-":
            out.files.append(argument)
            continue
        key, has_value, value = argument.lstrip("-").partition("=")
        if not key:
            raise InputError("command line", f"{argument!r} names no option")
        kind = _kind(key, argument)
        if kind == REQUIRED and not has_value and key not in FIO_OWN_OPTIONS and _is_option(items, i):
            kind = NONE  # a job option written bare before the next option: as a bare key of a job file
        if kind == REQUIRED and not has_value:
            if i >= len(items):
                raise InputError(f"--{key}", f"needs a value (--{key}=VALUE or --{key} VALUE), as fio does")
            value, has_value = items[i], True
            i += 1
        if key in FIO_OWN_OPTIONS:
            _own(out, key, value if has_value else None)
        else:
            out.job_options.append(f"--{key}={value}" if has_value else f"--{key}")
    return out


def _is_option(items: list[str], i: int) -> bool:
    """Whether the argument at ``i`` is another option (``--key`` or ``-key``, not a lone ``-``)."""
    return i < len(items) and items[i].startswith("-") and len(items[i]) > 1 and not items[i][1].isdigit()


def _kind(key: str, argument: str) -> str:
    """Whether option ``key`` takes a value on fio's command line (an unknown one: InputError)."""
    if key in FIO_OWN_OPTIONS:
        return FIO_OWN_OPTIONS[key]
    if key in FIO_OPTION_NAMES:
        return NONE if key in FLAG_OPTIONS else REQUIRED
    if key in FIO_OPTION_ALIASES:  # options.c gives an option's alias a long option of its own (--timeout, --blocksize)
        name = FIO_OPTION_ALIASES[key]
        return NONE if name in FLAG_OPTIONS else REQUIRED
    if len(argument) == 2 or not argument.startswith("--") and len(key) == 1:
        raise InputError(argument, "fio's one-letter options are not taken; write the long form (--output, --version, ...)")
    raise InputError(f"--{key}", f"not an option of fio {FIO_VERSION} (fio: 'unrecognized option')")


IDLE_PROF_RUNS = ("system", "percpu")
"""``--idle-prof`` values with which fio runs the jobs (``idle.c``, ``fio_idle_prof_parse_opt``):
``calibrate`` calibrates, prints and exits, running nothing; any other value is fio's error."""


def _own(out: FioArguments, key: str, value: str | None) -> None:
    if key in REFUSED:
        raise InputError(f"--{key}", REFUSED[key])
    if key == "idle-prof" and value not in IDLE_PROF_RUNS:
        raise InputError(f"--{key}", "fio calibrates its idleness profiling and runs nothing; nvsim fio simulates the "
                                     "jobs (allowed: system, percpu, which fio runs the jobs with)" if value == "calibrate"
                         else f"fio: 'incorrect idle-prof option: {value}'; allowed: calibrate, system, percpu")
    if key in IGNORED:
        out.notes.append(f"--{key} ignored: {IGNORED[key]}, nothing nvsim simulates")
        return
    out.taken.setdefault(key, []).append(value or "")


__all__ = ["parse_fio_arguments", "FioArguments", "FIO_OWN_OPTIONS", "FLAG_OPTIONS", "TAKEN", "IGNORED", "REFUSED"]
