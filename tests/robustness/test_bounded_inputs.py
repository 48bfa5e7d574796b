"""Issue 34, bounded parsers: trace files (fio iolog v2/v3, blkparse text, binary blktrace, MSR
CSV) that ``corpus.py`` cannot express (a job file and the trace it names). Each bad trace is one
line, exit 2, naming the file, the line (or record) and what is allowed; a trace the reader
accepts holds only I/Os within [0, 2^63) bytes and finite, non-decreasing timestamps. The bsrange
bins given without listing the sizes are the bins the listed sizes give."""

from __future__ import annotations

import contextlib
import io
import math
import re
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.cli import main
from nvsim.errors import EXIT_INPUT_ERROR, InputError
from nvsim.fio import MAX_LISTED_SIZES, parse_fio_jobfile
from nvsim.fio.jobfile import _range_bins
from nvsim.workload.mix import MixPart, binned
from nvsim.fio.trace import BLK_TRACE_MAGIC, MAX_TRACE_BYTES, parse_iolog, parse_trace

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = str(ROOT / "scenarios/graid-gen5-raid6")  # 84,480,000,000,000 bytes usable
V3, V2 = "fio version 3 iolog\n", "fio version 2 iolog\nf add\nf open\n"


def _blktrace(*events: tuple[int, int, int]) -> bytes:
    """Little-endian QUEUE reads: (time ns, sector, bytes) each."""
    return b"".join(struct.pack("<IIQQIIIIIHH", BLK_TRACE_MAGIC | 7, 0, t, sector, nbytes, 1 | (1 << 16), 1, 1, 0, 0, 0)
                    for t, sector, nbytes in events)


def _blkparse(*events: tuple[str, int]) -> str:
    return "".join(f"8,0 1 {i} {t} 10 Q R {sector} + 8 [fio]\n" for i, (t, sector) in enumerate(events, start=1))


def _msr(*events: tuple[int, int]) -> str:
    return "".join(f"{ticks},hm,1,Read,{offset},4096,10\n" for ticks, offset in events)


TRACES = [  # (id, trace bytes, the one line expected)
    ("iolog-v3-offset-2-63", V3 + "1 f read 9223372036854775808 4096\n",
     r"t\.trace: line 2 of the fio v3 iolog trace: offset 9223372036854775808 \(size 4096\): offsets not negative, "
     r"offset \+ size below 2\^63 bytes"),
    ("iolog-v2-offset-wraps-64-bits", V2 + "f read 18446744073709551615 4096\n", r"line 4 of the fio v2 iolog trace: offset 18446744073709551615"),
    ("iolog-v2-end-reaches-2-63", V2 + f"f read {2**63 - 4096} 4096\n", r"line 4 of .*offset \+ size below 2\^63"),
    ("iolog-v3-infinite-time", V3 + "inf f read 0 4096\n", r"line 2 of the fio v3 iolog trace: timestamp inf: timestamps must be finite"),
    ("iolog-v3-nan-time", V3 + "0 f read 0 4096\nnan f read 0 4096\n", r"line 3 .*timestamp nan: timestamps must be finite"),
    ("iolog-v3-backward-time", V3 + "5 f read 0 4096\n3 f read 4096 4096\n", r"line 3 .*timestamps must not go backwards"),
    ("iolog-v2-negative-wait", V2 + "f read 0 4096\nf wait -5 0\nf read 0 4096\n", r"line 5: wait '-5': a wait is a finite number"),
    ("iolog-v2-size-over-32-bits", V2 + "f read 0 8589934592\n", r"line 4 .*size 8589934592: sizes must be positive multiples of 512 bytes below 2\^32"),
    ("blkparse-offset-2-63", _blkparse(("0.5", 2**54)), r"line 1 of the blkparse text trace: offset 9223372036854775808"),
    ("blkparse-backward-time", _blkparse(("0.5", 8), ("0.4", 16)), r"line 2 of the blkparse text trace: .*must not go backwards"),
    ("blkparse-infinite-time", _blkparse(("1" * 400 + ".0", 8)), r"line 1 of the blkparse text trace: timestamp inf"),
    ("blktrace-sector-wraps-64-bits", _blktrace((5, 2**63, 4096)), r"record 1 \(byte 0\) of the binary blktrace trace: offset 4722366482869645213696"),
    ("blktrace-backward-time", _blktrace((5, 8, 4096), (4, 16, 4096)), r"record 2 \(byte 48\) of the binary blktrace trace: .*must not go backwards"),
    ("msr-offset-2-63", _msr((128166372003061629, 2**63)), r"line 1 of the MSR CSV trace: offset 9223372036854775808"),
    ("msr-backward-one-tick", _msr((128166372003061629, 0), (128166372003061628, 4096)), r"line 2 of the MSR CSV trace: .*must not go backwards"),
    ("msr-time-over-64-bits", _msr((2**64, 0)), r"line 1 of the MSR CSV trace: timestamp '18446744073709551616': a Windows file time is 0 to 2\^64"),
    ("trace-past-the-array", V2 + "f read 0 4096\nf read 90000000000000 4096\n",
     r"bad\.fio: \[j\]\.read_iolog: the trace's I/Os reach byte 90,000,000,004,096, past the end of the array \(84,480,000,000,000 bytes\)"),
]


def _run(here: Path, monkeypatch, trace: str | bytes, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    monkeypatch.chdir(here)
    (here / "t.trace").write_bytes(trace.encode() if isinstance(trace, str) else trace)
    (here / "bad.fio").write_text("[j]\nioengine=libaio\niodepth=4\nread_iolog=t.trace\n")
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as info:
        main(["fio", "bad.fio", "--system", SYSTEM, "--fidelity", "fluid"])
    return info.value.code, out.getvalue(), err.getvalue()


def _one_line(code: int, out: str, err: str, pattern: str) -> None:
    lines = err.strip().splitlines()
    assert code == EXIT_INPUT_ERROR and out == "", (code, err)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize("trace, pattern", [t[1:] for t in TRACES], ids=[t[0] for t in TRACES])
def test_a_bad_trace_is_one_line_naming_the_file_and_line(trace, pattern, tmp_path, monkeypatch):
    _one_line(*_run(tmp_path, monkeypatch, trace), pattern)


def test_a_trace_is_read_to_a_bounded_number_of_lines(tmp_path, monkeypatch):
    trace = V2 + "f read 0 4096\n" * 20
    _one_line(*_run(tmp_path, monkeypatch, trace, {"NVSIM_MAX_TRACE_RECORDS": "16"}),
              r"bad\.fio line 4: read_iolog: t\.trace: line 17: a trace is read to at most 16 lines \(set NVSIM_MAX_TRACE_RECORDS to raise it\)")
    _one_line(*_run(tmp_path, monkeypatch, _blktrace(*[(i, 8 * i, 4096) for i in range(20)]), {"NVSIM_MAX_TRACE_RECORDS": "16"}),
              r"record 17 \(byte 768\): a trace is read to at most 16 records")


def test_a_traces_memory_is_a_few_dozen_bytes_an_io_beyond_its_text():
    """Reading a trace held each I/O as a tuple in a list and its text in io.StringIO (four bytes a
    character): 299 bytes an I/O at the peak for these 29-byte lines (369 MB over a 38.8 MB file of
    fio's 2^20 lines); now flat columns and the text cut a line at a time: 82 bytes an I/O, the
    text and its copy with plain line ends counted (87 MB over that file)."""
    import tracemalloc

    count = 100_000
    raw = (V3 + "".join(f"{i} f {'read' if i % 3 else 'write'} {i * 4096} 4096\r\n" for i in range(count))).encode()
    tracemalloc.start()
    try:
        trace = parse_trace(raw, "t.trace")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(trace.size_bytes) == count and trace.offset_bytes[-1] == (count - 1) * 4096
    assert peak < 2 * len(raw) + 64 * count  # the text, its copy with plain line ends, 25 bytes an I/O twice


# ------------------------------------------------------------------ laws

_NUMBER = st.one_of(st.integers(-2**65, 2**65), st.sampled_from(["inf", "-inf", "nan", "1e400", "-0", "1.5"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NUMBER, st.sampled_from(["read", "write", "trim"]), _NUMBER, _NUMBER), min_size=1, max_size=12))
def test_every_accepted_trace_lies_in_2_63_bytes_with_finite_ordered_times(records):
    """Whatever a v3 iolog holds, the reader refuses it in one line or gives I/Os within [0, 2^63)
    bytes, sizes positive multiples of 512 bytes, timestamps finite and non-decreasing."""
    text = V3 + "".join(f"{t} f {action} {offset} {size}\n" for t, action, offset, size in records)
    try:
        trace = parse_iolog(text, "t.trace")
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("t.trace: read_iolog: ")
        return
    offsets, sizes, times = (a.tolist() for a in (trace.offset_bytes, trace.size_bytes, trace.time_s))
    assert all(0 <= o and 0 < s and s % 512 == 0 and o + s < MAX_TRACE_BYTES for o, s in zip(offsets, sizes))
    assert all(math.isfinite(t) for t in times) and times == sorted(times)
    ends = trace.offset_bytes + trace.size_bytes  # the summary's arithmetic (int64) never wraps
    assert (ends > trace.offset_bytes).all()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([512, 1024, 4096, 65536]), st.integers(1, 5000))
def test_range_bins_are_the_bins_of_the_listed_sizes(low, count):
    """A range given as bins (never listed) is what binning its listed sizes gives: the same
    shares, each size within one 512-byte sector (a mean on a half sector may round either way)."""
    listed = binned([MixPart(low * k, 1.0 / count) for k in range(1, count + 1)])
    bins = _range_bins(low, count)
    assert len(bins) == len(listed)
    for (size, share), part in zip(bins, listed):
        assert abs(size - part.bs) <= 512 and share == pytest.approx(part.share, rel=1e-9)


def test_a_range_of_2_31_sizes_is_not_listed():
    job = parse_fio_jobfile("[a]\nrw=randread\nbsrange=512-1t\n").jobs[0]
    assert len(job.bs_mix) == 8 and sum(p.share for p in job.bs_mix) == pytest.approx(1.0)
    assert job.workload.bs == pytest.approx(2**39, rel=1e-3)  # the mean of 512 .. 1 TiB
    listed = parse_fio_jobfile(f"[a]\nrw=randread\nbsrange=512-{512 * MAX_LISTED_SIZES}\n").jobs[0]
    assert listed.bs_mix is not None and len(listed.bs_mix) == MAX_LISTED_SIZES  # at the limit, still listed as before
