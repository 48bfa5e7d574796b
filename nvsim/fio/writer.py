"""fio job files out: a ``WorkloadSpec`` as a job section (``workload_to_fio_section``; the reader,
``nvsim.fio.jobfile.parse_fio_jobfile``, of what it writes gives the same spec), and fio's
command-line job options as job-file text (``command_line_to_jobfile``).
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import InputError
from ..specs import WorkloadSpec
from ..specs.mix import direction_sizes
from .options import HOST_IO_FLAGS


def command_line_to_jobfile(arguments: list[str] | tuple[str, ...]) -> str:
    """fio's command-line job options (``--name=a --rw=randread --bs=4k``) as job-file text.

    As fio's parse_cmd_line: options before the first ``--name`` go to ``[global]``; each
    ``--name=X`` opens job ``[X]``, whose first option is ``name=X`` (fio parses --name as an option
    of the job, so its JSON lists it in "job options"), and the options after it are that job's;
    ``--flag`` alone is a bare flag. The text comes before any job file's, so its global options
    apply to the file's jobs too, as fio's command-line defaults do. Anything else than
    ``--key[=value]`` is an error. ``command_line_lines`` says how many lines each argument gives.
    """
    lines = ["[global]"]
    for argument in arguments:
        if not argument.startswith("--") or len(argument) < 3:
            raise InputError("command line", f"fio's job options are written --key=value or --flag, got {argument!r}")
        key, has_value, value = argument[2:].partition("=")
        if key == "name":
            if not value:
                raise InputError("--name", "needs a job name (--name=NAME)")
            lines.extend((f"[{value}]", f"name={value}"))
        else:
            lines.append(f"{key}={value}" if has_value else key)
    return "\n".join(lines) + "\n"


def command_line_lines(argument: str) -> int:
    """Lines of job-file text ``command_line_to_jobfile`` gives one argument: two for ``--name=X``."""
    return 2 if argument.startswith("--name=") else 1


def workload_to_fio_section(workload: WorkloadSpec) -> str:
    """One fio job section for ``workload``; ``parse_fio_jobfile`` of it gives ``workload`` back.

    Values fio cannot say exactly are refused (InputError): a name fio would read differently
    (empty, ';' or '#', surrounding blanks, starting with "global", control characters), times that
    are not whole microseconds, a zero runtime or size (fio reads 0 as "no limit" / "whole file").
    """
    w = workload
    _check_section_text("name", w.name, name=True)
    _check_section_text("ioengine", w.ioengine, name=False)
    lines = [f"[{w.name}]", f"rw={w.trim or w.rw}", f"bs={_format_bytes(w.bs)}", f"iodepth={w.iodepth}", f"numjobs={w.numjobs}"]
    if w.rwmixread != 50:
        lines.append(f"rwmixread={w.rwmixread}")
    if w.size is not None:
        if w.size <= 0:
            raise InputError("size", f"fio reads size={w.size} as the whole file; write None for that (job {w.name!r})")
        lines.append(f"size={_format_bytes(w.size)}")
    if w.offset_increment:
        if w.offset_increment < 0:
            raise InputError("offset_increment", f"must not be negative, got {w.offset_increment} (job {w.name!r})")
        lines.append(f"offset_increment={_format_bytes(w.offset_increment)}")
    if w.runtime is not None:
        if w.runtime <= 0:
            raise InputError("runtime", f"fio reads runtime={w.runtime} as no limit; write None for that (job {w.name!r})")
        lines.append(f"runtime={_format_seconds('runtime', w.runtime, w.name)}")
    if w.ramp_time:
        if w.ramp_time < 0:
            raise InputError("ramp_time", f"must not be negative, got {w.ramp_time} (job {w.name!r})")
        lines.append(f"ramp_time={_format_seconds('ramp_time', w.ramp_time, w.name)}")
    if w.time_based:
        lines.append("time_based=1")
    lines.append(f"ioengine={w.ioengine}")
    lines += [f"{flag}=1" for flag in HOST_IO_FLAGS if getattr(w, flag)]  # engine options follow ioengine, as fio needs
    lines += [f"{key}={getattr(w, key)}" for key in ("iodepth_batch_submit", "iodepth_batch_complete_min")
              if getattr(w, key) != 1]
    return "\n".join(lines + _composite_lines(w)) + "\n"


def _composite_lines(w: WorkloadSpec) -> list[str]:
    """The options of a composite workload (nvsim.workload.compose): its mix, pacing, flow and run length."""
    lines = [f"bssplit={_bssplit(w)}"] if w.bs_mix else []
    caps: list[float | None] = []
    if w.rate_iops is not None:  # fio caps each direction on its own: a cap over a mix is each direction's share of it
        caps = [round(w.rate_iops * share, 9) for share in (w.read_fraction, 1.0 - w.read_fraction) if share > 0]
    elif w.rate_iops_by_direction is not None:
        caps = list(w.rate_iops_by_direction)
    if caps:
        lines += [_rate_line(w, caps), f"rate_process={w.rate_process}"]
    for key in ("thinktime", "latency_target", "latency_window"):
        if getattr(w, key) is not None:
            lines.append(f"{key}={_microseconds(key, getattr(w, key), w.name)}")
    if w.latency_target is not None and w.latency_percentile != 100.0:
        lines.append(f"latency_percentile={w.latency_percentile:g}")
    if w.flow is not None:
        lines += [f"flow={w.flow}", f"flow_id={w.flow_id}"]
    if w.io_size is not None:
        lines.append(f"io_size={_format_bytes(w.io_size)}")
    if w.loops != 1:
        lines.append(f"loops={w.loops}")
    return lines


def _rate_line(w: WorkloadSpec, caps: list[float | None]) -> str:
    """The caps (I/Os per second per direction, read first; one value: the job's direction) as fio runs
    them: rate_iops, except for a mix of sizes under the linear process, where fio's rate_iops is a
    cap of rate_iops x the smallest block in bytes (nvsim.fio.jobfile._cap_iops; rate_iops=1000 on
    4k/50:64k/50 runs 117.6 I/Os a second): there the bytes per second, each cap x its direction's
    mean size, to the whole byte fio reads."""
    if not w.bs_mix or w.rate_process != "linear":
        return "rate_iops=" + ",".join("" if cap is None else _whole("rate_iops", cap, w.name) for cap in caps)
    first = 0 if w.read_fraction > 0 else 1
    sizes = [direction_sizes(w.bs_mix, w.bs, first + index)[1] for index in range(len(caps))]
    return "rate=" + ",".join("" if cap is None else str(round(cap * size)) for cap, size in zip(caps, sizes))


def _bssplit(w: WorkloadSpec) -> str:
    """fio's bssplit for the mix: one split, or a read and a write split (each its direction's shares)."""
    def split(parts) -> str:
        total = sum(p.share for p in parts)
        return ":".join(f"{_format_bytes(p.bs)}/{p.share / total * 100:.12g}" for p in parts)
    if all(p.rw is None for p in w.bs_mix):
        return split(w.bs_mix)
    reads, writes = ([p for p in w.bs_mix if p.rw == d] for d in ("read", "write"))
    return ",".join(split(parts) for parts in (reads or writes, writes or reads))


def _microseconds(label: str, seconds: float, job: str) -> str:
    """A pacing time in fio's microseconds ('50us' reads as 4.9999999999999996e-05 s: the nearest one)."""
    microseconds = round(seconds * 1e6)
    if microseconds < 1 or abs(seconds * 1e6 - microseconds) > 1e-6:
        raise InputError(label, f"{seconds!r} s is not a whole number of microseconds, fio's resolution (job {job!r})")
    return f"{microseconds}us"


def _whole(label: str, value: float, job: str) -> str:
    if value != int(value):
        raise InputError(label, f"{value!r} is not a whole number of I/Os per second, which fio's {label} takes (job {job!r})")
    return str(int(value))


def _check_section_text(label: str, text: str, *, name: bool) -> None:
    problem = None
    if not text:
        problem = "is empty"
    elif text != text.strip():
        problem = "has blanks at its ends, which fio strips"
    elif ";" in text or "#" in text:
        problem = "contains ';' or '#', where fio starts a comment"
    elif not text.isprintable():
        problem = "contains a control or line-break character"
    elif not name and "${" in text:
        problem = "contains '${', which fio replaces with an environment variable"
    elif not name and re.search(r"\$[A-Za-z_]", text):
        problem = "contains '$' before a name, which fio reads as one of its keywords ($ncpus, $pagesize, ...)"
    elif name and text.startswith("global"):
        problem = "starts with 'global', which fio reads as a [global] section"
    elif name and len(text) > 255:
        problem = "is longer than the 255 characters fio keeps"
    if problem:
        raise InputError(label, f"{text!r} {problem}; it cannot be written to a fio job file")


def _format_bytes(n: int) -> str:
    """4096 -> '4k', 1048576 -> '1m' (fio's default kb_base=1024); other sizes in bytes."""
    for suffix, power in (("p", 5), ("t", 4), ("g", 3), ("m", 2), ("k", 1)):
        unit = 1024**power
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def _format_seconds(label: str, seconds: float, job: str) -> str:
    microseconds = round(Fraction(seconds) * 10**6)
    if float(Fraction(microseconds, 10**6)) != seconds:
        raise InputError(label, f"{seconds!r} s is not a whole number of microseconds, fio's resolution (job {job!r})")
    if microseconds % 10**6 == 0:
        return str(microseconds // 10**6)
    if microseconds % 1000 == 0:
        return f"{microseconds // 1000}ms"
    return f"{microseconds}us"


__all__ = ["workload_to_fio_section", "command_line_to_jobfile", "command_line_lines"]
