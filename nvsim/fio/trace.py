"""Traces in: fio's ``read_iolog`` files (versions 2 and 3), blktrace (binary, or blkparse's text),
and the SNIA / MSR Cambridge CSV format, read into one ``Trace`` of host I/Os and summarised for
replay (``TraceSummary``).

A trace is replayed as the job's closed loop or open loop of what it holds (``nvsim.fio``: a
``read_iolog`` job): its mix of block sizes per direction (``nvsim.workload.mix``, binned to at most
``MAX_MIX_PARTS`` sizes), its read share, whether its I/Os are mostly sequential (each starts where
the one before ended) or random, and the region it touches; open-loop at its timestamps' mean
rate (fio's default: ``nvsim.workload.open_loop``, arrivals taken as Poisson) or, with ``replay_no_stall``
or a trace without timestamps, closed-loop at the job's iodepth; ``replay_skip``, ``replay_scale`` and
``replay_align`` change the I/Os replayed as fio's do (``replayed``). The I/Os are not replayed one by
one: the simulated stream draws the trace's sizes, directions and offsets' character, which are
what the array's answer depends on.

Formats (detected from the content):

* fio v2: ``fio version 2 iolog``, then ``file action [offset length]``; ``wait`` lines (µs) give times;
* fio v3: ``fio version 3 iolog``, then ``timestamp file action [offset length]``, the timestamp
  in microseconds from the start (what fio 3.33's write_iolog writes);
* blkparse text (its default format): ``maj,min cpu seq time_s pid action rwbs sector + blocks
  [process]``; the ``Q`` (queued) events are the host's I/Os (``D``, issued, if there is no ``Q``);
* binary blktrace (``struct blk_io_trace``, 48 bytes and a payload, either byte order): ``QUEUE``
  events, their sector, bytes and time in ns;
* SNIA / MSR Cambridge CSV: ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``,
  the timestamp in Windows file time (100 ns ticks).

Reads and writes are kept; trims, syncs and file actions are counted and left out (a note says
how many). Every problem is one ``InputError`` line naming the file and line.

Bounded before anything grows: at most ``MAX_TRACE_RECORDS`` lines (or binary records) are read;
every I/O kept lies within ``[0, MAX_TRACE_BYTES)`` (offset and offset + size; fio's and
blktrace's unsigned 64-bit fields beyond it are refused, never wrapped), its size a positive
multiple of 512 bytes below ``MAX_TRACE_IO_BYTES``, its timestamp finite, not negative, not
before the I/O before it and at most ``MAX_TRACE_SECONDS`` after the first.
"""

from __future__ import annotations

import math
import re
import struct
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, env_hint, limit_from_env
from ..loader import read_bytes
from ..specs.workload import MixPart, TraceSummary
from ..units import ascii_digits

SECTOR_BYTES_BLKTRACE = 512
"""blktrace and blkparse count 512-byte sectors whatever the device's block size."""
WINDOWS_TICK_S = 1e-7
"""A Windows file-time tick (the MSR Cambridge traces' timestamps)."""
BLK_TRACE_MAGIC = 0x65617400
"""blktrace's magic (its low byte is the format version)."""
BLK_TA_QUEUE, BLK_TA_ISSUE = 1, 7
BLK_TC_READ, BLK_TC_WRITE, BLK_TC_DISCARD = 1 << 0, 1 << 1, 1 << 7
BLK_TC_SHIFT = 16
_BLK_HEADER = "IIQQIIIIIHH"  # magic, sequence, time, sector, bytes, action, pid, device, cpu, error, pdu_len

MAX_TRACE_BYTES = 2**63
"""Every I/O of a trace ends below this byte address: a signed 64-bit file offset (the
kernel's ``loff_t``), where fio's ``%llu`` offsets and blktrace's 64-bit sectors would wrap."""
MAX_TRACE_IO_BYTES = 2**32
"""Every I/O of a trace is shorter: fio's iolog reads a length as ``%u`` and blktrace keeps it in a ``__u32``."""
MAX_TRACE_SECONDS = 2**64 * 1e-9
"""Longest span of a trace's timestamps: blktrace's 64-bit nanosecond clock (about 585 years)."""
MAX_TRACE_RECORDS = 2**20
"""Most lines (or binary records) a trace is read to (25 bytes a kept I/O: about 26 MB at the limit, twice
that while the arrays are made, beside the file's bytes and text)."""
MAX_TRACE_RECORDS_ENV = "NVSIM_MAX_TRACE_RECORDS"


def max_trace_records() -> int:
    """``MAX_TRACE_RECORDS``, or the bound ``NVSIM_MAX_TRACE_RECORDS`` sets (``errors.limit_from_env``)."""
    return limit_from_env(MAX_TRACE_RECORDS_ENV, MAX_TRACE_RECORDS)


class _Kept:
    """The reads and writes of a trace as they are read, each checked against the bounds before it is
    kept, in flat columns (25 bytes an I/O; a list of tuples took about 300)."""

    def __init__(self, source: str, fmt: str):
        self.source, self.fmt = source, fmt
        self.time_s, self.offset_bytes, self.size_bytes, self.is_write = array("d"), array("q"), array("q"), bytearray()
        self.first_s: float | None = None
        self.last_s = 0.0
        self.last_clock: float | int = 0

    def add(self, where: str, time_s: float, offset: int, size: int, write: bool, clock: int | None = None) -> None:
        """Keep one I/O; ``clock``: its timestamp in the format's own whole units, where it has them
        (ticks, ns), so that order is compared exactly, not after rounding to float seconds."""
        clock = time_s if clock is None else clock
        problem = _bad_io(time_s, offset, size, self.first_s, self.last_s)
        if problem is None and self.first_s is not None and clock < self.last_clock:
            problem = f"timestamp {time_s:.9g} s is before the previous I/O's: timestamps must not go backwards"
        if problem:
            raise InputError("read_iolog", f"{where} of the {self.fmt} trace: {problem}", source=self.source)
        self.first_s = time_s if self.first_s is None else self.first_s
        self.last_s, self.last_clock = time_s, clock
        self.time_s.append(time_s)
        self.offset_bytes.append(offset)
        self.size_bytes.append(size)
        self.is_write.append(write)

    def __len__(self) -> int:
        return len(self.size_bytes)


def _bad_io(time_s: float, offset: int, size: int, first_s: float | None, last_s: float) -> str | None:
    """What is wrong with one I/O of a trace, its time aside from the one before (None: nothing)."""
    if not 0 < size < MAX_TRACE_IO_BYTES or size % 512:
        return f"size {size}: sizes must be positive multiples of 512 bytes below 2^32"
    if offset < 0 or offset + size >= MAX_TRACE_BYTES:
        return f"offset {offset} (size {size}): offsets not negative, offset + size below 2^63 bytes"
    if not (math.isfinite(time_s) and time_s >= 0):
        return f"timestamp {time_s!r}: timestamps must be finite and not negative"
    if first_s is not None and time_s < last_s:
        return f"timestamp {time_s:.9g} s is before the previous I/O's {last_s:.9g} s: timestamps must not go backwards"
    if first_s is not None and time_s - first_s > MAX_TRACE_SECONDS:
        return f"timestamp {time_s:.9g} s: a trace spans at most 2^64 ns ({MAX_TRACE_SECONDS:.3g} s) from its first I/O"
    return None


def _number(text: str, field: str, whole: bool = True) -> int | float:
    """A number field of a trace line as fio's sscanf (``%llu``, ``%u``) reads it: ASCII digits after an optional
    sign (``units.ascii_digits``; int() and float() read any script's digits); ValueError naming ``field`` otherwise.
    ``whole``: an integer (else a float, in ASCII)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not (ascii_digits(digits) if whole else text.isascii()):
        raise ValueError(f"{field} {text[:40]!r}: fio reads ASCII digits only")
    return int(text) if whole else float(text)


def _lines(text: str, source: str) -> Iterator[tuple[int, str]]:
    """The text's lines (``\\n``, ``\\r\\n`` or ``\\r`` ended), numbered from 1, cut one at a time from
    the text (no list of them; ``io.StringIO`` held four bytes a character), at most ``max_trace_records()``."""
    most = max_trace_records()
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        if number > most:
            raise InputError("read_iolog", f"line {number}: a trace is read to at most {most:,} lines"
                                           f"{env_hint(MAX_TRACE_RECORDS_ENV)}", source=source)
        yield number, text[start:end]
        start = end + 1


@dataclass(frozen=True)
class Trace:
    """Host I/Os of a trace in order: time (s from the first, NaN when the format has none),
    offset and size (bytes), direction; ``skipped``: actions left out (trims, syncs)."""

    format: str
    time_s: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    is_write: np.ndarray
    skipped: int = 0

    @property
    def timed(self) -> bool:
        return bool(len(self.time_s)) and not np.isnan(self.time_s).any()


def read_trace(path: str | Path) -> Trace:
    """The trace in ``path``, its format detected from the content."""
    return parse_trace(read_bytes(path), str(path))


def parse_trace(raw: bytes, source: str = "<trace>") -> Trace:
    """The trace in ``raw`` (a file's bytes, named ``source`` in errors), its format detected from the content."""
    if len(raw) >= 4 and (struct.unpack("<I", raw[:4])[0] & 0xFFFFFF00 == BLK_TRACE_MAGIC
                          or struct.unpack(">I", raw[:4])[0] & 0xFFFFFF00 == BLK_TRACE_MAGIC):
        return parse_blktrace(raw, source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("read_iolog", f"not a fio iolog, blkparse text, MSR CSV or binary blktrace (byte {exc.start} is not UTF-8)",
                         source=source) from None
    found = re.search(r"\S[^\r\n]*", text)  # the first line that is not blank (no list of every line)
    first = found.group(0).strip() if found else ""
    if first.startswith("fio version"):
        return parse_iolog(text, source)
    if re.match(r"^[0-9]+,[0-9]+\s+[0-9]+\s+[0-9]+\s+[0-9]+\.[0-9]+", first):
        return parse_blkparse(text, source)
    if re.match(r"^[0-9]+,[^,]*,[0-9]+,(Read|Write)", first, re.IGNORECASE) or first.lower().startswith("timestamp,"):
        return parse_msr_csv(text, source)
    raise InputError("read_iolog", f"not a fio iolog (version 2 or 3), blkparse text, MSR CSV or binary blktrace: "
                                   f"first line {first[:60]!r}", source=source)


def _trace(kept: _Kept, skipped: int) -> Trace:
    """The trace of the I/Os ``kept`` (each already within the bounds)."""
    if not len(kept):
        raise InputError("read_iolog", f"the {kept.fmt} trace holds no reads or writes", source=kept.source)
    t = np.frombuffer(kept.time_s, dtype=np.float64)
    t = t - np.nanmin(t) if not np.isnan(t).all() else t.copy()
    return Trace(kept.fmt, t, np.frombuffer(kept.offset_bytes, dtype=np.int64).copy(),
                 np.frombuffer(kept.size_bytes, dtype=np.int64).copy(), np.frombuffer(kept.is_write, dtype=bool).copy(), skipped)


def parse_iolog(text: str, source: str = "<iolog>") -> Trace:
    """fio's iolog, version 2 (``wait`` lines give the times) or 3 (a µs timestamp first)."""
    lines = _lines(text, source)
    header = next(lines, (1, ""))[1].strip()
    if header not in ("fio version 2 iolog", "fio version 3 iolog"):
        raise InputError("read_iolog", f"line 1: expected 'fio version 2 iolog' or 'fio version 3 iolog', got {header[:60]!r}",
                         source=source)
    v3 = header.startswith("fio version 3")
    kept, skipped, clock_us = _Kept(source, "fio v3 iolog" if v3 else "fio v2 iolog"), 0, 0.0
    for number, line in lines:
        fields = line.split()
        if not fields:
            continue
        try:
            stamp = _number(fields.pop(0), "timestamp", whole=False) if v3 else None
            action = fields[1] if len(fields) > 1 else ""
            if action == "wait" and not v3:
                wait_us = _number(fields[2], "wait", whole=False)
                if not (math.isfinite(wait_us) and wait_us >= 0):
                    raise InputError("read_iolog", f"line {number}: wait {fields[2][:40]!r}: a wait is a finite number of "
                                                   f"microseconds, not negative", source=source)
                clock_us += wait_us
            elif action in ("read", "write"):
                when = stamp if v3 else clock_us
                kept.add(f"line {number}", when * 1e-6, _number(fields[2], "offset"), _number(fields[3], "length"), action == "write")
            elif action in ("trim", "sync", "datasync"):
                skipped += 1
            elif action not in ("add", "open", "close"):
                raise ValueError(f"unknown action {action!r}")
        except InputError:
            raise
        except (ValueError, IndexError) as exc:
            raise InputError("read_iolog", f"line {number}: cannot read {line.strip()[:80]!r} ({exc})", source=source) from None
    return _trace(kept, skipped)


_BLKPARSE = re.compile(r"^\s*[0-9]+,[0-9]+\s+[0-9]+\s+[0-9]+\s+(?P<time>[0-9]+\.[0-9]+)\s+[0-9]+\s+(?P<action>[A-Z]+)\s+(?P<rwbs>[A-Z]+)"
                       r"\s+(?P<sector>[0-9]+)\s+\+\s+(?P<blocks>[0-9]+)")


def parse_blkparse(text: str, source: str = "<blkparse>") -> Trace:
    """blkparse's default text output; the Q events (or D, issued, when the trace has no Q)."""
    events = {"Q": _Kept(source, "blkparse text"), "D": _Kept(source, "blkparse text")}
    skipped = 0
    for number, line in _lines(text, source):
        match = _BLKPARSE.match(line)
        if not match or match["action"] not in events:
            continue
        rwbs = match["rwbs"]
        if "D" in rwbs or not ("R" in rwbs or "W" in rwbs) or match["blocks"] == "0":  # a discard, a flush
            skipped += match["action"] == "Q"
            continue
        events[match["action"]].add(f"line {number}", float(match["time"]), int(match["sector"]) * SECTOR_BYTES_BLKTRACE,
                                    int(match["blocks"]) * SECTOR_BYTES_BLKTRACE, "W" in rwbs)
    return _trace(events["Q"] if len(events["Q"]) else events["D"], skipped)


def parse_blktrace(raw: bytes, source: str = "<blktrace>") -> Trace:
    """Binary blktrace: each ``struct blk_io_trace`` (48 bytes) and its payload; QUEUE events (ISSUE without any)."""
    order = "<" if struct.unpack("<I", raw[:4])[0] & 0xFFFFFF00 == BLK_TRACE_MAGIC else ">"
    size = struct.calcsize(order + _BLK_HEADER)
    events = {BLK_TA_QUEUE: _Kept(source, "binary blktrace"), BLK_TA_ISSUE: _Kept(source, "binary blktrace")}
    at, skipped, record, most = 0, 0, 0, max_trace_records()
    while at + size <= len(raw):
        record += 1
        if record > most:
            raise InputError("read_iolog", f"record {record} (byte {at}): a trace is read to at most {most:,} records"
                                           f"{env_hint(MAX_TRACE_RECORDS_ENV)}", source=source)
        magic, _seq, time_ns, sector, nbytes, action, _pid, _dev, _cpu, _err, pdu = struct.unpack_from(order + _BLK_HEADER, raw, at)
        if magic & 0xFFFFFF00 != BLK_TRACE_MAGIC:
            raise InputError("read_iolog", f"binary blktrace: bad magic at byte {at}", source=source)
        at += size + pdu
        kind, category = action & 0xFFFF, action >> BLK_TC_SHIFT
        if kind not in events or nbytes == 0:
            continue
        if category & BLK_TC_DISCARD or not category & (BLK_TC_READ | BLK_TC_WRITE):
            skipped += kind == BLK_TA_QUEUE
            continue
        events[kind].add(f"record {record} (byte {at - size - pdu})", time_ns * 1e-9, sector * SECTOR_BYTES_BLKTRACE, nbytes,
                         bool(category & BLK_TC_WRITE), clock=time_ns)
    return _trace(events[BLK_TA_QUEUE] if len(events[BLK_TA_QUEUE]) else events[BLK_TA_ISSUE], skipped)


def parse_msr_csv(text: str, source: str = "<msr>") -> Trace:
    """SNIA / MSR Cambridge CSV: Timestamp (100 ns ticks), Hostname, DiskNumber, Type, Offset, Size, ResponseTime."""
    kept = _Kept(source, "MSR CSV")
    for number, line in _lines(text, source):
        fields = [f.strip() for f in line.split(",")]
        if not line.strip() or fields[0].lower() == "timestamp":
            continue
        try:
            kind = fields[3].lower()
            if kind not in ("read", "write"):
                raise ValueError(f"type {fields[3]!r} is not Read or Write")
            ticks, offset, size = (_number(fields[i], name) for i, name in ((0, "Timestamp"), (4, "Offset"), (5, "Size")))
        except (ValueError, IndexError) as exc:
            raise InputError("read_iolog", f"line {number}: cannot read {line.strip()[:80]!r} as MSR CSV ({exc})", source=source) from None
        if not 0 <= ticks < 2**64:
            raise InputError("read_iolog", f"line {number} of the MSR CSV trace: timestamp {fields[0][:40]!r}: a Windows "
                                           f"file time is 0 to 2^64 ticks of 100 ns", source=source)
        kept.add(f"line {number}", ticks * WINDOWS_TICK_S, offset, size, kind == "write", clock=ticks)
    return _trace(kept, 0)


REPLAY_SKIP_ACTIONS = ("read", "write", "trim", "sync")
"""What fio's ``replay_skip`` names (``str_replay_skip_cb``); trims and syncs are left out of a replay anyway."""


def replayed(trace: Trace, skip: frozenset[str] = frozenset(), scale: int = 0, align_bytes: int = 0) -> Trace:
    """The I/Os of ``trace`` that fio replays (iolog.c's ``read_iolog``, blktrace.c): ``skip``, the
    directions ``replay_skip`` leaves out; each offset divided by ``scale`` (``replay_scale``; 0 or
    1: as written), then rounded down to a multiple of ``align_bytes`` (``replay_align``, a power of
    2; 0: as written); a binary blktrace's sizes rounded up to it too (``t_bytes_align``).
    InputError naming the option when nothing is left to replay or a size outgrows its bound."""
    keep = np.ones(len(trace.size_bytes), dtype=bool)
    for write, action in ((False, "read"), (True, "write")):
        if action in skip:
            keep &= trace.is_write != write
    if not keep.any():
        raise InputError("replay_skip", f"leaves none of the trace's {len(keep):,} reads and writes to replay")
    offsets = trace.offset_bytes[keep] // max(scale, 1)
    sizes = trace.size_bytes[keep]
    if align_bytes:
        offsets = offsets & ~np.int64(align_bytes - 1)
        if trace.format == "binary blktrace":
            sizes = (sizes + align_bytes - 1) & ~np.int64(align_bytes - 1)
            if int(sizes.max()) >= MAX_TRACE_IO_BYTES:
                raise InputError("replay_align", f"rounds a size up to {int(sizes.max()):,} bytes; sizes are below 2^32")
    return Trace(trace.format, trace.time_s[keep], offsets, sizes, trace.is_write[keep], trace.skipped)


def summarize(trace: Trace, time_scale: float = 1.0) -> TraceSummary:
    """What a replay draws from ``trace`` (``time_scale``: fio's replay_time_scale / 100, the rate's factor)."""
    n = len(trace.size_bytes)
    ends = trace.offset_bytes + trace.size_bytes
    sequential = float(np.mean(trace.offset_bytes[1:] == ends[:-1])) if n > 1 else 1.0
    parts = []
    for write in (False, True):
        sizes = trace.size_bytes[trace.is_write == write]
        if len(sizes):
            values, counts = np.unique(sizes, return_counts=True)
            parts += [MixPart(int(v), float(c) / n, "write" if write else "read") for v, c in zip(values, counts)]
    start = int(trace.offset_bytes.min()) // 4096 * 4096
    duration = float(np.nanmax(trace.time_s)) if trace.timed else 0.0
    rate = (n - 1) / duration * time_scale if trace.timed and duration > 0 and n > 1 else None
    return TraceSummary(ios=n, read_fraction=float(np.mean(~trace.is_write)), parts=tuple(parts), sequential_share=sequential,
                        start_bytes=start, region_bytes=int(ends.max()) - start, arrival_iops=rate, skipped=trace.skipped,
                        format=trace.format)


__all__ = ["Trace", "TraceSummary", "read_trace", "parse_trace", "parse_iolog", "parse_blkparse", "parse_blktrace", "parse_msr_csv",
           "replayed", "summarize", "REPLAY_SKIP_ACTIONS", "SECTOR_BYTES_BLKTRACE", "WINDOWS_TICK_S", "BLK_TRACE_MAGIC"]
