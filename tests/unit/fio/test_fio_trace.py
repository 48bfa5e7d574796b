"""fio's traces in (nvsim.fio.trace): fio's iolog v2 and v3, blkparse text, binary blktrace and MSR
CSV read as fio replays them, their summaries, one-line errors, and a job replaying a trace (its mix
and pace)."""

import struct
from pathlib import Path

import pytest

from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.trace import (BLK_TRACE_MAGIC, parse_blkparse, parse_blktrace, parse_iolog, parse_msr_csv, read_trace, replayed,
                             summarize)

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "tests" / "data" / "fio" / "traces"


def parse(text: str, **kwargs):
    return parse_fio_jobfile(text, "job.fio", **kwargs)


def test_each_trace_format_reads_its_file():
    expected = {"fio-v2.iolog": ("fio v2 iolog", 40, 0.0, 1000.0), "fio-v3.iolog": ("fio v3 iolog", 200, None, None),
                "blkparse.txt": ("blkparse text", 60, 2 / 3, 2000.0), "blktrace.bin": ("binary blktrace", 50, 1.0, 5000.0),
                "msr-hm1.csv": ("MSR CSV", 80, 0.25, 4000.0)}
    for name, (fmt, ios, reads, rate) in expected.items():
        trace = read_trace(TRACES / name)
        summary = summarize(trace)
        assert trace.format == fmt and summary.ios == ios, name
        if reads is not None:
            assert summary.read_fraction == pytest.approx(reads), name
            assert summary.arrival_iops == pytest.approx(rate, rel=1e-3), name
        assert sum(p.share for p in summary.parts) == pytest.approx(1.0)
    v3 = summarize(read_trace(TRACES / "fio-v3.iolog"))  # written by Debian's fio 3.33: 70/30 randrw at 4k/64k
    assert 0.3 < v3.read_fraction < 0.8 and v3.sequential_share < 0.1 and 100 < v3.arrival_iops < 10000
    assert summarize(read_trace(TRACES / "fio-v2.iolog")).sequential_share == 1.0


def test_trace_details():
    v2 = parse_iolog("fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 500 0\nf write 4096 8192\nf sync 0 0\nf close\n")
    assert v2.time_s.tolist() == [0.0, 0.0005] and v2.is_write.tolist() == [False, True] and v2.skipped == 1
    untimed = parse_iolog("fio version 2 iolog\nf read 0 4096\nf read 4096 4096\n")  # no wait: no rate to replay at
    assert summarize(untimed).arrival_iops is None and summarize(untimed).sequential_share == 1.0
    big = struct.pack(">IIQQIIIIIHH", BLK_TRACE_MAGIC | 7, 0, 5, 8, 4096, 1 | (2 << 16), 1, 1, 0, 0, 0)
    trace = parse_blktrace(big)  # big-endian, a write
    assert trace.offset_bytes.tolist() == [4096] and trace.is_write.tolist() == [True]
    text = "8,0 1 1 0.5 10 Q D 8 + 8 [fio]\n8,0 1 2 0.6 10 Q R 16 + 8 [fio]\n"
    assert parse_blkparse(text).skipped == 1  # the discard


@pytest.mark.parametrize("text, phrase", [
    ("fio version 4 iolog\n", "expected 'fio version 2 iolog'"),
    ("fio version 3 iolog\n1 f read x 4096\n", "line 2: cannot read"),
    ("fio version 3 iolog\n1 f fly 0 4096\n", "unknown action 'fly'"),
    ("fio version 3 iolog\n1 f read 0 1000\n", "multiples of 512"),
    ("fio version 2 iolog\nf open\n", "holds no reads or writes"),
])
def test_bad_traces_are_one_line(text, phrase):
    with pytest.raises(InputError) as info:
        parse_iolog(text, "t.log")
    assert phrase in str(info.value) and "\n" not in str(info.value)


def test_bad_msr_and_unknown_formats_are_one_line(tmp_path):
    with pytest.raises(InputError, match="line 1: cannot read .* as MSR CSV"):
        parse_msr_csv("128166372003061629,hm,1,Erase,0,4096,10\n")
    odd = tmp_path / "odd.trace"
    odd.write_text("hello world\n")
    with pytest.raises(InputError, match="not a fio iolog"):
        read_trace(odd)
    job = tmp_path / "job.fio"
    job.write_text(f"[a]\nread_iolog={odd}\n")
    with pytest.raises(InputError) as info:
        parse(job.read_text())
    assert str(info.value).startswith("job.fio line 2: read_iolog: ") and "\n" not in str(info.value)


def test_a_trace_job_takes_the_traces_mix_and_pace():
    job = parse(f"[a]\nioengine=libaio\niodepth=8\nread_iolog={TRACES / 'msr-hm1.csv'}\n").jobs[0]
    assert job.workload.rw == "randrw" and job.workload.rwmixread == 25
    assert job.rate_process == "poisson" and job.rate_iops == pytest.approx(4000.0, rel=1e-3)
    assert {(p.bs, p.rw) for p in job.bs_mix} == {(4096, "read"), (65536, "read"), (4096, "write"), (65536, "write")}
    closed = parse(f"[a]\nread_iolog={TRACES / 'msr-hm1.csv'}\nreplay_no_stall=1\n").jobs[0]
    assert closed.rate_iops is None
    half = parse(f"[a]\nread_iolog={TRACES / 'msr-hm1.csv'}\nreplay_time_scale=50\n").jobs[0]
    assert half.rate_iops == pytest.approx(2000.0, rel=1e-3)


@pytest.mark.parametrize("scale", ["0", "1000001"])
def test_a_replay_time_scale_out_of_its_range_is_refused_naming_both_ends(scale):
    """It said '1 or more' of 1,000,001 too (the fuzz helper's traces): the line names the range it holds."""
    with pytest.raises(InputError, match=rf"replay_time_scale: a percentage of the trace's rate, allowed 1 to 1,000,000, got {scale}$"):
        parse(f"[a]\nread_iolog={TRACES / 'msr-hm1.csv'}\nreplay_time_scale={scale}\n")


def test_each_numjobs_clone_replays_the_whole_trace_at_its_rate():
    """fio's init_iolog opens the trace for every clone, each replaying all of it at its
    timestamps; nvsim gave each of 4 clones a quarter of the rate (1,000 IOPS of msr-hm1.csv's
    4,000: the job 4,000 in all, fio's 16,000)."""
    job = parse(f"[a]\nnumjobs=4\nread_iolog={TRACES / 'msr-hm1.csv'}\n").jobs[0]
    assert job.workload.numjobs == 4 and job.rate_iops == pytest.approx(4000.0, rel=1e-3)


def test_replay_skip_scale_and_align_change_the_replayed_ios_as_fio_does(tmp_path):
    """fio's read_iolog drops the directions replay_skip names, divides each offset by replay_scale,
    then rounds it down to replay_align (iolog.c); nvsim ignored all three with a warning, replaying
    the v3 trace's 200 reads and writes at 852 IOPS over 16.7 MB whatever they said."""
    trace = f"[a]\nread_iolog={TRACES / 'fio-v3.iolog'}\n"
    reads = parse(trace + "replay_skip=write\n")
    assert reads.unmodelled_options == () and reads.jobs[0].workload.rw == "randread"
    assert reads.jobs[0].trace.ios == 94 and {p.rw for p in reads.jobs[0].trace.parts} == {"read"}
    whole = parse(trace).jobs[0].trace
    scaled = parse(trace + "replay_scale=4\n").jobs[0].trace
    assert scaled.start_bytes == whole.start_bytes // 4 and scaled.region_bytes < whole.region_bytes / 3
    aligned = parse(trace + "replay_scale=64\nreplay_align=1m\n").jobs[0].trace  # every offset rounds down to 0
    assert aligned.start_bytes == 0 and aligned.region_bytes == 65536
    blk = parse_blktrace(struct.pack("<IIQQIIIIIHH", BLK_TRACE_MAGIC | 7, 0, 5, 9, 4096, 1 | (1 << 16), 1, 1, 0, 0, 0))
    assert replayed(blk, align_bytes=8192).size_bytes.tolist() == [8192]  # blktrace.c's t_bytes_align rounds sizes up
    assert replayed(blk, align_bytes=8192).offset_bytes.tolist() == [0]
    huge = tmp_path / "huge.bin"  # a 2^32 - 512 byte I/O rounded up to 2^31: 2^32 bytes, past fio's u32
    huge.write_bytes(struct.pack("<IIQQIIIIIHH", BLK_TRACE_MAGIC | 7, 0, 5, 0, 2**32 - 512, 1 | (1 << 16), 1, 1, 0, 0, 0))
    with pytest.raises(InputError, match=r"^job\.fio line 4: replay_align: '2g' rounds a size up to 4,294,967,296 bytes"):
        parse(f"[a]\nread_iolog={huge}\nreplay_skip=trim\nreplay_align=2g\n")  # named, not the skip beside it
    for extra, phrase in (("replay_skip=read,write", "leaves none of the trace's 200 reads and writes"),
                          ("replay_skip=flush", "unknown skip type 'flush'"), ("replay_align=3000", "power of 2"),
                          ("replay_scale=99999999999999999999999", "below 2\\^32")):
        with pytest.raises(InputError, match=phrase) as info:
            parse(trace + extra + "\n")
        assert str(info.value).startswith("job.fio line 3: ") and "\n" not in str(info.value)


def test_read_iolog_names_a_trace_per_clone_as_fio_splits_them(tmp_path):
    """fio splits read_iolog at each ':' not after a '\\' and gives clone i the i-th name (modulo
    their count); nvsim looked for one file named 'a:b' ("not found")."""
    v3, v2 = TRACES / "fio-v3.iolog", TRACES / "fio-v2.iolog"
    assert parse(f"[a]\nread_iolog={v3}:{v2}\n").jobs[0].trace.ios == 200  # one clone: the first name
    assert parse(f"[a]\nnumjobs=2\nread_iolog={v3}:{v3}\n").jobs[0].trace.ios == 200
    odd = tmp_path / "odd:name.iolog"
    odd.write_bytes(v3.read_bytes())
    assert parse(f"[a]\nread_iolog={str(odd).replace(':', chr(92) + ':')}\n").jobs[0].trace.ios == 200
    with pytest.raises(InputError, match=r"^job\.fio line 3: read_iolog: 2 traces for 2 clones .* allowed: one trace"):
        parse(f"[a]\nnumjobs=2\nread_iolog={v3}:{v2}\n")


@pytest.mark.parametrize("times, scale, rate", [((0, 10**12), "", "1e-06"), ((0, 1), "replay_time_scale=1000000\n", "1e+10")])
def test_a_replay_whose_pace_is_outside_the_rates_taken_is_refused_naming_read_iolog(tmp_path, times, scale, rate):
    """Two reads 10^12 us apart replay at 1e-6 I/Os a second: the line read 'read_iolog: as rate_iops:
    Input should be greater than or equal to 0.001 (got 1e-06)', an option the user never wrote (the
    fuzz helper's traces). It names read_iolog, the pace and what is allowed; replay_no_stall replays it."""
    trace = tmp_path / "slow.iolog"
    trace.write_text("fio version 3 iolog\n" + "".join(f"{t} /dev/nvme0n1 read {i * 4096} 4096\n" for i, t in enumerate(times)))
    with pytest.raises(InputError) as info:
        parse(f"[a]\nioengine=libaio\nread_iolog={trace}\n{scale}")
    message = str(info.value)
    assert message.startswith("job.fio line 3: read_iolog: the trace's 2 I/Os replay at " + rate) and "\n" not in message
    assert "allowed: 0.001 to 1,000,000,000 I/Os per second" in message and "rate_iops" not in message
    assert parse(f"[a]\nread_iolog={trace}\nreplay_no_stall=1\n{scale}").jobs[0].rate_iops is None
