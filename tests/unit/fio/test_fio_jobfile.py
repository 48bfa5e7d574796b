"""fio job files in (nvsim.fio.jobfile, nvsim.fio.parse_fio_jobfile): the reference briefs' job files, fio's
syntax and values, the options read (a mix's bssplit and bsrange, rw=TYPE:N and offset as the host
stream in nvsim.sim.workload takes them, zones, flow, pacing), refused or listed as unmodelled,
engines, notes and the command line.

The fixtures in tests/data/fio are the job files of the reference briefs, copied verbatim: seed 000's
appendix profile, and seed 001's appendix profiles (with the no-break spaces of the web page, and
the random-read profile cut off as the brief has it).
"""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.errors import InputError
from nvsim.fio import (
    FioJobFile, command_line_to_jobfile, load_fio_jobfile, parse_fio_jobfile, shares_one_loop, workload_to_fio_section,
)
from nvsim.sim.workload import HostStream, named_rng
from nvsim.specs import WorkloadSpec

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "fio"
SEEDS = Path("/work/shared/seeds")
SEED000 = SEEDS / "000_1c8313f7a5083cfb.txt"
SEED001 = SEEDS / "001_3d34dbd516d9e7d6.txt"
GiB = 2**30
KEYWORDS = {"ncpus": 128, "mb_memory": 524288, "pagesize": 4096}


def parse(text: str, **kwargs) -> FioJobFile:
    return parse_fio_jobfile(text, "job.fio", **kwargs)


def error_of(text: str, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        parse(text, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- the reference briefs' job files

@pytest.mark.parametrize("fixture, seed", [
    ("seed000_appendix.fio", SEED000), ("seed001_fill.fio", SEED001), ("seed001_seq_write.fio", SEED001),
    ("seed001_seq_read.fio", SEED001), ("seed001_rand_precondition.fio", SEED001), ("seed001_rand_write.fio", SEED001),
    ("seed001_rand_read_cut_off.fio", SEED001),
])
def test_fixtures_are_verbatim_copies_of_the_briefs(fixture, seed):
    if not seed.exists():
        pytest.skip("reference briefs not available here")
    text = (DATA / fixture).read_text(encoding="utf-8")
    assert text.startswith("[global]") and text in seed.read_text(encoding="utf-8")


def test_seed000_appendix_five_jobs_in_five_stonewall_groups(catalog):
    jobfile = load_fio_jobfile(DATA / "seed000_appendix.fio", catalog=catalog)
    names = ["randread-b4k-j192-d32", "write-b1m-j192-d16", "read-b1m-j192-d16", "randrw73-b16k-j192-d16", "randwrite-b4k-j192-d16"]
    assert [job.name for job in jobfile.jobs] == names
    assert [job.group for job in jobfile.jobs] == [0, 1, 2, 3, 4]
    assert [job.phase for job in jobfile.jobs] == [0, 1, 2, 3, 4]
    expected = {
        "randread-b4k-j192-d32": ("randread", 4096, 32, 9600 * GiB, 0, 300.0, True),
        "write-b1m-j192-d16": ("write", 2**20, 16, 50 * GiB, 50 * GiB, None, False),
        "read-b1m-j192-d16": ("read", 2**20, 16, 50 * GiB, 50 * GiB, 300.0, True),
        "randrw73-b16k-j192-d16": ("randrw", 16384, 16, 9600 * GiB, 0, 300.0, True),
        "randwrite-b4k-j192-d16": ("randwrite", 4096, 16, 9600 * GiB, 0, 300.0, True),
    }
    for job in jobfile.jobs:
        w = job.workload
        assert (w.rw, w.bs, w.iodepth, w.size, w.offset_increment, w.runtime, w.time_based) == expected[job.name]
        assert (w.numjobs, w.ioengine, w.ramp_time) == (192, "libaio", 0.0)  # inherited from [global]
        assert (job.filename, job.cpus_allowed, job.numa_cpu_nodes) == ("/dev/gdg0n1", "0-191", None)
        assert job.options["cpus_allowed_policy"] == "split" and job.options["stonewall"] == ""
    assert jobfile.jobs[3].workload.rwmixread == 70 and jobfile.jobs[3].workload.read_fraction == 0.7
    # every option of the appendix is modelled, kept or understood (cpus_allowed is kept for placement)
    assert jobfile.unmodelled_options == () and jobfile.unmodelled_warning() is None
    assert jobfile.global_options["numjobs"] == "192" and "rw" not in jobfile.global_options


@pytest.mark.parametrize("fixture, rw", [("seed001_seq_write.fio", "write"), ("seed001_seq_read.fio", "read")])
def test_seed001_sequential_profiles(fixture, rw, catalog):
    jobfile = load_fio_jobfile(DATA / fixture, catalog=catalog)
    (job,) = jobfile.jobs
    w = job.workload
    assert (job.name, w.rw, w.bs, w.iodepth, w.numjobs, w.runtime, w.ramp_time, w.time_based) == \
        ("job1", rw, 512 * 1024, 64, 16, 4500.0, 1500.0, False)
    assert job.offset_increment_percent == 1.0 and w.offset_increment == 0  # a percentage is not bytes
    assert job.size_percent is None and w.size is None
    assert (job.filename, job.numa_cpu_nodes, job.cpus_allowed) == ("/dev/xi_raid_numa0", "0", None)
    assert job.options["numa_mem_policy"] == "local" and job.options["group_reporting"] == ""
    assert jobfile.unmodelled_options == ()


@pytest.mark.parametrize("fixture, ramp", [("seed001_rand_write.fio", 1500.0), ("seed001_rand_precondition.fio", 0.0)])
def test_seed001_random_profiles(fixture, ramp, catalog):
    (job,) = load_fio_jobfile(DATA / fixture, catalog=catalog).jobs
    w = job.workload
    assert (w.rw, w.bs, w.iodepth, w.numjobs, w.ramp_time, job.numa_cpu_nodes) == ("randwrite", 4096, 64, 16, ramp, "0")
    assert w.runtime == (4500.0 if ramp else 57600.0)
    assert job.offset_increment_percent is None


def test_seed001_fill_profile_runs_five_drives_at_once(catalog):
    jobfile = load_fio_jobfile(DATA / "seed001_fill.fio", catalog=catalog)
    assert [job.filename for job in jobfile.jobs] == [f"/dev/nvme{i}n1" for i in range(5)]
    assert {(job.group, job.phase) for job in jobfile.jobs} == {(0, 0)}  # no stonewall: one group, together
    assert {(job.workload.rw, job.workload.bs, job.workload.numjobs, job.workload.runtime) for job in jobfile.jobs} == {("write", 512 * 1024, 1, None)}


def test_seed001_cut_off_random_read_profile_has_no_job():
    with pytest.raises(InputError, match=r"seed001_rand_read_cut_off.fio: no jobs defined"):
        load_fio_jobfile(DATA / "seed001_rand_read_cut_off.fio")


def test_a_missing_file_is_one_line():
    with pytest.raises(InputError, match="cannot read file"):
        load_fio_jobfile(DATA / "no-such.fio")


# ---------------------------------------------------------------- syntax

def test_comments_blank_lines_flags_and_spaces_around_equals():
    text = "; a comment\n# another\n\n[global]\n  ioengine =libaio   ; trailing comment\nbs = 4k # inline\n" \
           "time_based\n[j]\r\nrw\t=randread\r\nruntime = 10\n"
    (job,) = parse(text).jobs
    w = job.workload
    assert (w.ioengine, w.bs, w.time_based, w.rw, w.runtime) == ("libaio", 4096, True, "randread", 10.0)
    assert job.line == 8


@pytest.mark.parametrize("line", ["rw = randread", "rw=\trandread", "ioengine= libaio", "rate_process = poisson",
                                  "kb_base = 1000", "random_distribution = zipf:1.2", "readwrite = randwrite"])
def test_a_word_option_with_a_blank_after_equals_is_refused_as_fio_drops_the_job(line):
    # fio 3.33 and parse.c's get_option: the name's end blanks are stripped, the value's front ones not,
    # so the word does not match ("fio: failed parsing rw= randread", "fio: job j dropped")
    written, _, value = line.partition("=")
    message = error_of(f"[j]\n{line}\nrate_iops=1000\n")
    assert message.startswith(f"job.fio line 2: {written.strip()}: "), message
    assert f"write {written.strip()}={value.strip()}" in message, message


@pytest.mark.parametrize("text, line, phrase", [
    ("rw=read\n[job]\n", 1, "option 'rw=read' outside of a [section]"),
    ("[global]\nrw=read\n\nSequential Write\n", 4, "expected key=value or [section], got 'Sequential Write'"),
    ("[global]\n[job\nrw=read\n", 2, "a section header is [name]"),
    ("[job]\ninclude other.fio\n", 2, "include directives are not read"),
    ("[job]\n=4k\n", 2, "expected key=value or [section]"),
])
def test_syntax_errors_name_the_file_and_line(text, line, phrase):
    message = error_of(text)
    assert message.startswith(f"job.fio line {line}: "), message
    assert phrase in message, message


# ---------------------------------------------------------------- values

@pytest.mark.parametrize("body, line, option, phrase", [
    ("rw=randwirte", 2, "rw", "did you mean 'randwrite'"),
    ("rw=randtrimread", 2, "rw", "allowed: read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim"),
    ("rw=randread:0", 2, "rw", "count of I/Os per random offset"),
    ("rw=read:1000", 2, "rw", "multiple of 512 bytes"),
    ("rw=read:", 2, "rw", "needs a size to skip"),
    ("bssplit=4k/60:8k/50", 2, "bssplit", "add up to at most 100"),
    ("bssplit=4k/x", 2, "bssplit", "SIZE/PERCENT"),
    ("bssplit=1000/100", 2, "bssplit", "multiple of 512"),
    ("bsrange=8k-4k", 2, "bsrange", "HIGH at least LOW"),
    ("bsrange=4k", 2, "bsrange", "LOW-HIGH"),
    ("rate_process=bursty", 2, "rate_process", "allowed: linear, poisson"),
    ("flow=x", 2, "flow", "whole number"),
    ("flow_id=-1", 2, "flow_id", "whole number >= 0"),
    ("zonemode=strided", 2, "zonemode", "needs zonesize"),
    ("zonemode=strided\nzonesize=64k", 3, "zonesize", "jump too often"),
    ("zonemode=sometimes", 2, "zonemode", "allowed: none, strided"),
    ("random_distribution=zipf", 2, "random_distribution", "allowed: random, zipf:THETA"),
    ("rw=randwrite\nrandom_distribution=sequence:2,0,1", 3, "random_distribution", "cannot be simulated"),
    ("rw=randwrite\nrandom_distribution=zipf:1", 3, "random_distribution", "zipf theta must be in (0, 20] and not 1"),
    ("rw=randwrite\nrandom_distribution=zoned:60/10:30/20", 3, "random_distribution", "must add up to 100"),
    ("rw=randwrite\ndrive_state=used", 3, "drive_state", "allowed: steady, fresh"),
    ("read_iolog=/nonexistent/trace.log", 2, "read_iolog", "not found"),
    ("size=(4*", 2, "size", "fio's arithmetic"),
    ("size=1/0", 2, "size", "fio's arithmetic"),
    ("rw", 2, "rw", "needs a value"),
    ("rw=randrw\nbs=4k,8k", 3, "bs", "asymmetric block sizes (read 4096, write 8192 bytes) are not modelled"),
    ("bs=1.5k", 2, "bs", "fio reads whole numbers only"),
    ("bs=4 parsecs", 2, "bs", "cannot read"),
    ("bs=4q", 2, "bs", "unknown unit 'q'"),
    ("bs=4KiB", 2, "bs", "'4KiB' is 4000 bytes to fio"),
    ("bs=1000", 2, "bs", "multiple of 512"),
    ("iodepth=0", 2, "iodepth", "greater than or equal to 1"),
    ("rw=read\nnumjobs=64\nrwmixread=150", 4, "rwmixread", "less than or equal to 100"),
    ("rwmixwrite=130", 2, "rwmixwrite", "must be 0 to 100"),
    ("runtime=5min", 2, "runtime", "unit us, ms, s, m, h or d (s without one)"),
    ("ramp_time=1.5s", 2, "ramp_time", "whole numbers only"),
    ("time_based=yes", 2, "time_based", "0/1"),
    ("size=0%", 2, "size", "1% to 100%"),
    ("size=10z", 2, "size", "zone units"),
    ("iodepth=50%", 2, "iodepth", "percentage is not allowed"),
    ("numjobs=${NVSIM_TEST_UNSET_NJOBS}", 2, "numjobs", "environment variable NVSIM_TEST_UNSET_NJOBS is not set"),
    ("iodepth=($ncpus*2)", 2, "iodepth", "$ncpus is the machine's value"),
    ("ioengine=${NVSIM_TEST_UNSET_ENGINE}", 2, "ioengine", "is not set"),
    ("direct=2", 2, "direct", "must be 0 or 1"),
    ("kb_base=512", 2, "kb_base", "must be 1024 or 1000"),
    ("RW=read", 2, "RW", "case-sensitive; did you mean 'rw'"),
])
def test_bad_values_give_one_line_naming_line_option_and_what_is_allowed(body, line, option, phrase):
    message = error_of(f"[job]\n{body}\n")
    assert message.startswith(f"job.fio line {line}: {option}: "), message
    assert phrase in message, message


def test_an_error_in_a_global_option_names_the_global_line():
    message = error_of("[global]\nioengine=libaio\niodepth=0\n[a]\nrw=read\n")
    assert message.startswith("job.fio line 3: iodepth: ") and "job [a]" in message


def test_ioengine_is_checked_against_the_catalog_only_when_one_is_given(catalog):
    text = "[job]\nrw=read\nioengine=libaoi\n"
    assert parse(text).jobs[0].workload.ioengine == "libaoi"
    message = error_of(text, catalog=catalog)
    assert message.startswith("job.fio line 3: ioengine: unknown ioengine 'libaoi'") and "did you mean 'libaio'" in message


def test_fio_defaults_apply_when_the_file_is_silent(catalog):
    (job,) = parse("[job]\n").jobs
    w = job.workload
    assert (w.rw, w.bs, w.iodepth, w.numjobs, w.rwmixread, w.ioengine, w.runtime, w.size) == ("read", 4096, 1, 1, 50, "psync", None, None)
    (job,) = parse("[job]\n", catalog=catalog).jobs  # fio's default engine is in the catalog (models/host_io/psync.yaml)
    assert job.workload.ioengine == "psync"


def test_host_io_options_are_read_with_fio_aliases_and_written_back(catalog):
    text = ("[global]\ndirect=1\n[ring]\nrw=randread\niodepth=128\nioengine=io_uring\nhipri\nfixedbufs=1\n"
            "registerfiles=1\nsqthread_poll=0\niodepth_batch=32\niodepth_batch_complete=16\n")
    (job,) = parse(text, catalog=catalog).jobs
    w = job.workload
    assert (w.hipri, w.fixedbufs, w.registerfiles, w.sqthread_poll) == (True, True, True, False)
    assert (w.iodepth_batch_submit, w.iodepth_batch_complete_min) == (32, 16)
    written = workload_to_fio_section(w)
    assert "ioengine=io_uring\nhipri=1\nfixedbufs=1\nregisterfiles=1\niodepth_batch_submit=32\n" in written
    (again,) = parse("[global]\ndirect=1\n" + written, catalog=catalog).jobs
    assert again.workload == w


def test_a_synchronous_ioengine_runs_one_io_per_job_whatever_iodepth_says(catalog):
    (job,) = parse("[job]\nrw=randread\niodepth=32\n", catalog=catalog).jobs  # no ioengine: psync
    assert (job.workload.ioengine, job.workload.iodepth) == ("psync", 1)
    (job,) = parse("[job]\nrw=randread\niodepth=32\nioengine=libaio\n", catalog=catalog).jobs
    assert job.workload.iodepth == 32


def test_an_option_the_ioengine_does_not_take_is_one_line_naming_it(catalog):
    message = error_of("[job]\nrw=randread\nioengine=libaio\nhipri=1\n", catalog=catalog)
    assert message.startswith("job.fio line 1:") or "hipri" in message
    assert "hipri: ioengine libaio does not take it" in message
    assert "sqthread_poll" in error_of("[job]\nrw=read\nioengine=psync\nsqthread_poll\n", catalog=catalog)
    assert "takes no value or 0/1" in error_of("[job]\nrw=read\nioengine=io_uring\nhipri=yes\n", catalog=catalog)


def test_block_sizes_read_write_trim_and_fio_units():
    def bs(body):
        return parse(f"[job]\n{body}\n").jobs[0].workload.bs
    assert bs("rw=read\nbs=4k,8k") == 4096 and bs("rw=randwrite\nbs=4k,8k") == 8192
    assert bs("rw=randrw\nbs=16k,16k,4k") == 16384  # the trim size does not matter
    assert bs("rw=write\nbs=,8k") == 8192 and bs("rw=read\nbs=,8k") == 4096  # an empty part keeps the default
    assert bs("rw=read\nblocksize=8k") == 8192
    assert bs("rw=randwrite\nbs=8k,") == 4096  # 'R,' sets reads only: writes keep 4096
    assert bs("bs=1M") == bs("bs=1m") == bs("bs=1mb") == bs("bs=1024k") == 2**20
    assert bs("bs=512KiB") == 512_000  # fio's kb_base=1024 compatibility mode: IEC prefixes are powers of 1000
    assert bs("bs=0x1000") == 4096


def test_kb_base_1000_swaps_the_prefixes():
    def size(body):
        return parse(f"[job]\nbs=512\n{body}\n").jobs[0].workload.size  # a size of at least one block
    assert size("size=1k") == 1024 and size("size=1KiB") == 1000
    assert size("kb_base=1000\nsize=1k") == 1000 and size("kb_base=1000\nsize=1KiB") == 1024
    assert size("size=0") is None  # fio: 0 means the whole file


def test_a_size_below_the_block_size_is_refused_as_fio_refuses_it():
    """fio's filesetup.c: "blocksize too large for data set" (nvsim ran it: 0 I/Os and a bandwidth)."""
    with pytest.raises(InputError, match=r"size: 4,096 bytes is smaller than the block size, 65,536 bytes"):
        parse("[job]\nrw=randread\nbs=64k\nsize=4k\n")
    with pytest.raises(InputError, match=r"smaller than the block size, 8,192 bytes"):  # a mix: its smallest part
        parse("[job]\nrw=randread\nbssplit=8k/50:16k/50\nsize=4k\n")
    assert parse("[job]\nrw=randread\nbs=4k\nsize=4k\n").jobs[0].workload.size == 4096


def test_rwmixwrite_sets_rwmixread():
    def mix(text):
        return [job.workload.rwmixread for job in parse(text).jobs]
    assert mix("[j]\nrw=randrw\nrwmixwrite=30\n") == [70]
    assert mix("[global]\nrwmixwrite=30\n[a]\nrw=randrw\n[b]\nrw=randrw\nrwmixread=10\n") == [70, 10]
    assert mix("[global]\nrwmixread=20\n[a]\nrw=rw\nrwmixwrite=25\n") == [75]
    # in one section the later wins, as fio 3.33 reads them (null engine, 64 MiB of 4 KiB: 0.798 and
    # 0.697 of the I/Os reads); nvsim refused a pair that does not add up to 100
    assert mix("[j]\nrw=randrw\nrwmixread=70\nrwmixwrite=20\n") == [80]
    assert mix("[j]\nrw=randrw\nrwmixwrite=20\nrwmixread=70\n") == [70]
    assert mix("[global]\nrwmixread=70\nrwmixwrite=20\n[j]\nrw=randrw\n") == [80]


def test_runtime_units_and_zero_means_no_limit():
    def runtime(value):
        return parse(f"[job]\nruntime={value}\n").jobs[0].workload.runtime
    assert runtime("300") == runtime("300s") == runtime("5m") == 300.0
    assert runtime("2h") == 7200.0 and runtime("250ms") == 0.25 and runtime("1500us") == 0.0015
    assert runtime("1d") == 86400.0 and runtime("0") is None
    assert parse("[job]\ntimeout=7\n").jobs[0].workload.runtime == 7.0  # fio's alias


def test_repeated_global_applies_to_the_jobs_after_it():
    text = """
[global]
ioengine=libaio
iodepth=8
name=ignored
[a]
rw=randread
[global]
iodepth=32
bs=64k
[b]
rw=randwrite
[c]
rw=read
name=renamed
"""
    jobfile = parse(text)
    assert [job.name for job in jobfile.jobs] == ["a", "b", "renamed"]  # a global name= gives way to the section name
    assert [(job.workload.iodepth, job.workload.bs) for job in jobfile.jobs] == [(8, 4096), (32, 65536), (32, 65536)]
    assert all(job.workload.ioengine == "libaio" for job in jobfile.jobs)
    assert jobfile.global_options == {"ioengine": "libaio", "iodepth": "32", "name": "ignored", "bs": "64k"}
    assert jobfile.jobs[0].options["iodepth"] == "8" and jobfile.jobs[1].options["iodepth"] == "32"


def test_a_section_named_global_something_is_global_as_in_fio():
    jobfile = parse("[global-defaults]\niodepth=4\n[a]\nrw=read\n")
    assert [job.name for job in jobfile.jobs] == ["a"] and jobfile.jobs[0].workload.iodepth == 4


def test_stonewall_and_new_group():
    text = """
[global]
direct=1
[a]
stonewall
[b]
[c]
new_group
[d]
wait_for_previous=1
[e]
stonewall=0
"""
    jobs = parse(text).jobs
    # stonewall on the first job changes nothing; new_group starts a reporting group but runs alongside
    assert [(job.name, job.group, job.phase) for job in jobs] == [("a", 0, 0), ("b", 0, 0), ("c", 1, 0), ("d", 2, 1), ("e", 2, 1)]
    every = parse("[global]\nstonewall\n[a]\n[b]\n[c]\n").jobs
    assert [(job.group, job.phase) for job in every] == [(0, 0), (1, 1), (2, 2)]  # a global stonewall applies to each job


def test_unmodelled_options_are_listed_once_sorted_and_understood_ones_are_not():
    text = """
[global]
direct=1
fsync=8
exitall
randrepeat=0
thread
description=x
[a]
rw=randread
fsync=16
[b]
rw=read
exitall
verify=crc32c
"""
    jobfile = parse(text)
    assert jobfile.unmodelled_options == ("exitall", "fsync", "verify")
    warning = jobfile.unmodelled_warning()
    assert warning == "job.fio: fio options not modelled (nvsim ignores them): exitall, fsync, verify"
    assert jobfile.jobs[0].options["fsync"] == "16"


@pytest.mark.parametrize("option, value", [
    ("thinktime_blocks", "4"), ("latency_run", "1"), ("zonemode", "zbd"),
])
def test_options_that_change_the_answer_are_refused_in_one_line_naming_them(option, value):
    message = error_of(f"[a]\nrw=randread\n{option}={value}\n")
    assert f"line 3: {option}: cannot be simulated" in message and f"{option}={value}" in message


@pytest.mark.parametrize("option, value", [("rate_process", "linear"), ("thinktime_blocks", "1"), ("bssplit", "4k/100"), ("bsrange", "4k-4k"),
                                           ("random_distribution", "random"), ("zonemode", "none")])
def test_refused_options_at_fios_default_are_accepted(option, value):
    parse(f"[a]\nrw=randread\ndirect=1\n{option}={value}\n")
    assert option not in parse(f"[a]\nrw=randread\ndirect=1\n{option}={value}\n").unmodelled_options


def test_buffered_io_asked_for_is_listed_as_unmodelled_direct():
    assert parse("[a]\ndirect=0\n").unmodelled_options == ("direct",)
    assert parse("[a]\nbuffered=0\n").unmodelled_options == ()
    assert parse("[global]\ndirect=1\n[a]\nbuffered=1\n").unmodelled_options == ("direct",)
    warning = parse("[a]\nrw=read\ndirect=0\nverify=crc32c\n").unmodelled_warning()  # the line says what buffered means
    assert warning.endswith("not modelled (nvsim ignores them): direct (buffered I/O, direct=0, is simulated as direct=1), verify")
    assert parse("[a]\ndirect=0\n").buffered_note() is None  # said once, in the warning


def test_fios_buffered_default_is_one_note_not_an_unmodelled_option():
    """The README's `nvsim-fio --name=a --rw=randread --bs=4k` sets no direct: fio's default
    (buffered) is not an option the user gave, so it is not listed as unmodelled; one note says
    how nvsim simulates it."""
    jobfile = parse(command_line_to_jobfile(["--name=a", "--rw=randread", "--bs=4k", "--name=b", "--direct=1"]))
    assert jobfile.unmodelled_options == () and jobfile.unmodelled_warning() is None
    note = ("job.fio: no direct given for a: fio's default buffered I/O (direct=0) is simulated as direct I/O "
            "(direct=1; the page cache is not modelled)")
    assert jobfile.buffered_note() == note and jobfile.notes().count(note) == 1
    assert parse("[global]\nbuffered=0\n[a]\n").buffered_note() is None


def test_a_misspelled_option_is_refused_as_fio_refuses_it_with_a_suggestion():
    """fio stops at an option it does not know ('Bad option'); nvsim listed it as unmodelled and
    ran the job without it: io_depth=8 ran at fio's default depth of 1."""
    message = error_of("[a]\nrw=randread\ndirect=1\nio_depth=8\n")
    assert message == ("job.fio line 4: io_depth: not an option of fio 3.42, which stops at it ('Bad option'); "
                       "did you mean 'iodepth' or 'iodepth_low' or 'iodepth_batch'?")
    assert "verify" in parse("[a]\nrw=read\ndirect=1\nverify=crc32c\n").unmodelled_options  # fio's, not modelled


def test_fios_aliases_of_modelled_options_are_taken():
    """blocksize_range is fio's alias of bsrange: it was ignored (the job ran at bs=4k); fileoffset
    is offset's."""
    aliased = parse("[a]\nrw=randread\ndirect=1\nblocksize_range=4k-64k\nfileoffset=1m\n").jobs[0]
    named = parse("[a]\nrw=randread\ndirect=1\nbsrange=4k-64k\noffset=1m\n").jobs[0]
    assert aliased.bs_mix == named.bs_mix and aliased.bs_mix
    assert aliased.workload.offset == named.workload.offset == 2**20


# ---------------------------------------------------------------- engines, notes, the command line


@pytest.mark.parametrize("engine", ["null", "net", "http", "rbd", "io_uring_cmd", "filecreate", "libpmem", "cpuio", "sg"])
def test_engines_that_cannot_be_simulated_are_refused_in_one_line_naming_what_is_supported(engine):
    message = error_of(f"[a]\nrw=read\nioengine={engine}\n")
    assert message.startswith(f"job.fio line 3: ioengine: '{engine}' cannot be simulated: it ")
    assert "nvsim simulates the block engines psync, sync, pvsync, pvsync2, posixaio, libaio, io_uring, spdk" in message
    assert "fio's default psync" in message


@pytest.mark.parametrize("plugin", ["external:/opt/engine.so", "/usr/lib/fio/libfio_x.so"])
def test_external_engine_plugins_are_refused(plugin):
    assert "external engine plug-in" in error_of(f"[a]\nrw=read\nioengine={plugin}\n")


def test_posixaio_is_a_block_engine_with_one_io_in_flight_per_job(catalog):
    job = parse("[a]\nrw=randread\nioengine=posixaio\niodepth=32\ndirect=1\n", catalog=catalog).jobs[0]
    assert job.workload.ioengine == "posixaio" and job.workload.iodepth == 1  # glibc serialises one fd's requests
    posix, psync = catalog.host_io["posixaio"], catalog.host_io["psync"]
    assert posix.synchronous and posix.switch_us.value > psync.switch_us.value and posix.wake_us.value > psync.wake_us.value


def test_a_job_without_ioengine_gets_fios_default_and_a_note_says_so(catalog):
    jobfile = parse("[global]\ndirect=1\n[a]\nrw=read\n[b]\nrw=read\nioengine=libaio\n", catalog=catalog)
    assert [job.workload.ioengine for job in jobfile.jobs] == ["psync", "libaio"]
    notes = jobfile.notes()
    assert notes[0] == ("job.fio: no ioengine given for a: fio's default psync is used "
                        "(one I/O in flight per job whatever iodepth says)")
    assert "share one simulated array, each its own closed loop" in notes[1] and notes[1].endswith(": a, b")
    assert parse("[global]\ndirect=1\n[a]\nrw=read\nioengine=libaio\n[b]\nstonewall\nioengine=libaio\n").notes() == []


def test_command_line_options_become_a_job_file_as_fio_reads_them():
    text = command_line_to_jobfile(["--direct=1", "--ioengine=libaio", "--name=a", "--rw=randread", "--bs=4k",
                                    "--name=b", "--rw=write", "--stonewall"])
    assert text == "[global]\ndirect=1\nioengine=libaio\n[a]\nname=a\nrw=randread\nbs=4k\n[b]\nname=b\nrw=write\nstonewall\n"
    jobfile = parse(text)
    assert [(j.name, j.workload.rw, j.phase) for j in jobfile.jobs] == [("a", "randread", 0), ("b", "write", 1)]
    assert jobfile.unmodelled_options == ()


def test_a_command_line_jobs_options_list_its_name_first_as_fios_json_does():
    """fio parses --name=X as an option of the job it opens (init.c parse_cmd_line calls
    fio_cmd_option_parse for it, which adds it to the job's opt_list), so its JSON's "job options"
    start with "name" (tests/data/fio/real/fio-3.33-null-randread-qd4.json); a job file's section
    header is no option and is not listed."""
    jobfile = parse_fio_jobfile("[c]\nrw=read\n", "job.fio", command_line=("--direct=1", "--name=a", "--rw=randread",
                                                                            "--bs=4k", "--name=b", "--rw=write"))
    assert [list(job.job_options.items()) for job in jobfile.jobs] == [
        [("name", "a"), ("rw", "randread"), ("bs", "4k")], [("name", "b"), ("rw", "write")], [("rw", "read")]]
    assert jobfile.global_options == {"direct": "1"} and jobfile.jobs[0].where == "command line --name=a"
    with pytest.raises(InputError, match=r"^command line --numjobs=zz: numjobs: cannot read 'zz'"):
        parse_fio_jobfile("", "job.fio", command_line=("--name=a", "--rw=read", "--name=b", "--numjobs=zz"))


@pytest.mark.parametrize("arguments, field", [(["--name="], "--name"), (["rw=read"], "command line"), (["-x"], "command line")])
def test_command_line_errors_are_one_line(arguments, field):
    with pytest.raises(InputError) as info:
        command_line_to_jobfile(arguments)
    assert str(info.value).startswith(field) and "\n" not in str(info.value)


def test_errors_name_the_file_line_or_the_command_line_option_given_with_both():
    """The command line's options are read before the file (its globals apply to the file's jobs),
    but the file's lines keep their own numbers and a command-line option is named as given (they
    were counted together: a file's line 9 was reported as line 11 after two command-line options)."""
    text = "[global]\nioengine=libaio\n\n[a]\nrw=randread\nbs=4k\niodepth=64\n\nnumjobs=banana\n"
    with pytest.raises(InputError, match=r"^job.fio line 9: numjobs: cannot read 'banana'"):
        parse_fio_jobfile(text, "job.fio", command_line=("--direct=1", "--runtime=10"))
    with pytest.raises(InputError, match=r"^command line --numjobs=zz: numjobs: cannot read 'zz'"):
        parse_fio_jobfile("[a]\nrw=randread\n", "job.fio", command_line=("--numjobs=zz",))
    jobs = parse_fio_jobfile("[a]\nrw=randread\n", "job.fio", command_line=("--direct=1", "--bs=8k")).jobs
    assert jobs[0].workload.bs == 8192 and jobs[0].where == "job.fio line 1"
    assert jobs[0].option_places == {"direct": "command line --direct=1", "bs": "command line --bs=8k",
                                     "rw": "job.fio line 2"}


def test_sizes_written_with_a_zero_fraction_are_read_as_fio_reads_them():
    job = parse("[a]\nrw=read\nsize=16777216.0\nbs=4096.00\n").jobs[0]
    assert (job.workload.size, job.workload.bs) == (16777216, 4096)
    assert "fio reads whole numbers only" in error_of("[a]\nrw=read\nsize=1.5\n")


@pytest.mark.parametrize("options, cap", [
    ("rw=randread\nrate_iops=1000", 1000.0), ("rw=randread\nrate=4m", 1024.0),  # 4 MiB/s of 4 KiB
    ("rw=randread\nrate=,1m", None), ("rw=randwrite\nrate=,1m", 256.0), ("rw=randread\nrate=1m,", 256.0),
    ("rw=randread\nrate_iops=0", None),
    ("rw=randrw\nrwmixread=70\nrate_iops=700,300", 1000.0),  # caps in the mix's proportions: one cap over it
    ("rw=randread\nrate_iops=2000\nrate=4m", 1024.0),
])
def test_rate_caps_are_per_clone_iops_of_the_jobs_mix(options, cap):
    job = parse(f"[a]\nbs=4k\n{options}\n").jobs[0]
    assert job.rate_iops == (pytest.approx(cap) if cap is not None else None)
    assert job.workload.rate_iops_by_direction is None


@pytest.mark.parametrize("options, caps", [
    ("rwmixread=70\nrate_iops=1000", (1000.0, 1000.0)),  # one value caps each direction (fio 3.33: 999.7 / 1000.0)
    ("rate_iops=500,1000", (500.0, 1000.0)), ("rate_iops=,200", (None, 200.0)), ("rate=4m,", (1024.0, None)),
    ("rate_iops=1000,200\nrate=,400k", (1000.0, 100.0)),  # each direction's tightest of rate and rate_iops
])
def test_a_mix_whose_caps_are_not_its_proportions_caps_each_direction_on_its_own(options, caps):
    """fio's rate_ddir caps each direction on its own: rate_iops=1000 on a 60/40 mix is 1,000 reads and
    1,000 writes a second, and a cap on one direction leaves the other free (it was one cap over the
    mix: 1,000 reads and 667 writes; 300 reads where fio ran 20,874 under rate_iops=,200)."""
    job = parse(f"[a]\nbs=4k\nrw=randrw\n{options}\n").jobs[0]
    assert job.rate_iops is None and job.workload.rate_iops_by_direction == caps


def test_rate_minimums_are_the_highest_minimum_of_the_jobs_mix():
    job = parse("[a]\nrw=read\nbs=4k\nratemin=1m\nrate_iops_min=10\n").jobs[0]  # ratemin: fio's alias of rate_min
    assert job.rate_min_iops == 256.0 and job.rate_iops is None


def test_jobs_fio_runs_together_share_one_loop_when_their_workloads_agree():
    same = parse("[global]\nioengine=libaio\ndirect=1\nrw=randread\n[a]\nnumjobs=2\nruntime=10\n[b]\n[c]\nstonewall\nrw=write\n")
    phases = same.phases()
    assert [[job.name for job in phase] for phase in phases] == [["a", "b"], ["c"]]
    assert shares_one_loop(phases[0]) and not shares_one_loop(phases[1])  # numjobs and runtime may differ
    assert same.notes() == ["job.fio: jobs that fio runs at the same time with the same workload run together on one "
                            "simulated array, as one closed loop of all their clones: a, b"]
    assert not shares_one_loop(parse("[global]\nioengine=libaio\n[a]\nrw=read\n[b]\nrw=read\nbs=8k\n").jobs)
    assert not shares_one_loop(parse("[global]\nioengine=libaio\nrw=read\n[a]\n[b]\nrate_iops=10\n").jobs)  # paced jobs apart


@pytest.mark.parametrize("value, seconds", [("2000", 0.002), ("2ms", 0.002), ("1s", 1.0), ("0", None)])
def test_thinktime_is_microseconds_unless_a_unit_says_otherwise(value, seconds):
    assert parse(f"[a]\nrw=read\nthinktime={value}\n").jobs[0].thinktime_s == seconds


def test_thinktime_with_a_rate_cap_is_read_into_the_workload():
    job = parse("[a]\nrw=read\nrate_iops=10\nthinktime=10\n").jobs[0]
    assert (job.workload.rate_iops, job.workload.thinktime) == (10.0, 1e-05)  # solved by nvsim.workload.compose


def test_latency_target_options_are_read_as_fio_reads_them():
    job = load_fio_jobfile(DATA / "upstream" / "examples" / "latency-profile.fio").jobs[0]
    assert (job.latency_target_s, job.latency_window_s, job.latency_percentile) == (0.5, 5.0, 99.9)  # microseconds by default
    assert "latency_run: cannot be simulated" in error_of("[a]\nrw=read\nlatency_target=1ms\nlatency_run=1\n")
    assert "a latency target together with a rate cap" in error_of("[a]\nrw=read\nlatency_target=1ms\nrate_iops=10\n")
    assert "expected a percentage" in error_of("[a]\nrw=read\nlatency_target=1ms\nlatency_percentile=120\n")


# ---------------------------------------------------------------- bssplit, bsrange, rw:N, offset, zones, flow

def test_bssplit_shares_and_a_size_without_percentage_shares_the_rest():
    job = parse("[a]\nrw=randread\nbssplit=512/25:1k/:2k/:4k/\n").jobs[0]
    assert [(p.bs, pytest.approx(p.share), p.rw) for p in job.bs_mix] == [
        (512, 0.25, None), (1024, 0.25, None), (2048, 0.25, None), (4096, 0.25, None)]
    assert job.workload.bs == 2048  # the mix's mean size, whole sectors: 1920 -> 2048


def test_bssplit_per_direction_gives_each_direction_its_split():
    job = parse("[a]\nrw=randrw\nrwmixread=40\nbssplit=64k/40:1024k/60,1024k/100\n").jobs[0]
    parts = {(p.bs, p.rw): p.share for p in job.bs_mix}
    assert parts == {(65536, "read"): pytest.approx(0.16), (1048576, "read"): pytest.approx(0.24),
                     (1048576, "write"): pytest.approx(0.6)}


@pytest.mark.parametrize("options, parts", [
    ("bs=8k\nbssplit=4k/70:64k/30,", {(4096, "read"): 0.35, (65536, "read"): 0.15, (8192, "write"): 0.5}),
    ("bssplit=,4k/50:8k/50", {(4096, "read"): 0.5, (4096, "write"): 0.25, (8192, "write"): 0.25}),  # fio's bs: 4k
    ("bs=4k,16k\nbssplit=8k/100,", {(8192, "read"): 0.5, (16384, "write"): 0.5}),  # the write's own bs
    ("bs=16k\nbssplit=4k/100,,8k/100", {(4096, "read"): 0.5, (16384, "write"): 0.5}),  # the middle one empty
])
def test_bssplit_with_an_empty_direction_leaves_it_the_jobs_bs_as_fio_does(options, parts):
    """fio (options.c): str_split_parse hands each direction its text; split_parse_ddir reads no
    entry from an empty one and bssplit_ddir then sets nothing, so that direction draws the job's bs."""
    job = parse(f"[a]\nrw=randrw\n{options}\n").jobs[0]
    assert {(p.bs, p.rw): p.share for p in job.bs_mix} == {key: pytest.approx(share) for key, share in parts.items()}


def test_bssplit_of_empty_directions_only_is_the_jobs_bs():
    job = parse("[a]\nrw=randrw\nbs=8k\nbssplit=,\n").jobs[0]
    assert job.bs_mix is None and job.workload.bs == 8192
    assert parse("[a]\nrw=randread\nbs=16k\nbssplit=,4k/50:8k/50\n").jobs[0].workload.bs == 16384


def test_bsrange_is_fios_rounded_uniform_draw():
    """fio (io_u.c, get_next_buflen): LOW + HIGH x u rounded down to a multiple of LOW, capped at
    HIGH. 1k-4k: 1, 2, 3 and 4 KiB a quarter each (HIGH is drawn as often as the others); 4k-10k:
    4 and 8 KiB 0.4 each, the capped rest 10 KiB, 0.2 (worked by hand over the draw's range)."""
    job = parse("[a]\nrw=randread\nbsrange=1k-4k\n").jobs[0]
    assert [(p.bs, pytest.approx(p.share)) for p in job.bs_mix] == [(1024, 0.25), (2048, 0.25), (3072, 0.25), (4096, 0.25)]
    uneven = parse("[a]\nrw=randread\nbsrange=4k-10k\n").jobs[0]
    assert [(p.bs, pytest.approx(p.share)) for p in uneven.bs_mix] == [(4096, 0.4), (8192, 0.4), (10240, 0.2)]
    assert parse("[a]\nrw=read\nbsrange=512:1M\n").jobs[0].bs_mix is not None
    assert parse("[a]\nrw=read\nbsrange=8k-8k\n").jobs[0].workload.bs == 8192  # one size: the job's bs


def test_rw_modifier_and_offset_shape_the_host_stream():
    w = parse("[a]\nrw=read:-8k\nbs=4k\nsize=1m\noffset=64k\n").jobs[0].workload
    assert (w.rw_skip_bytes, w.offset) == (-8192, 65536)
    offsets, _ = HostStream.for_job(w, 0, 1 << 30, seed=1).next_batch(4)
    assert offsets.tolist() == [65536, 65536 + (1 << 20) - 4096, 65536 + (1 << 20) - 8192, 65536 + (1 << 20) - 12288]
    w = parse("[a]\nrw=write:112k\nbs=16k\n").jobs[0].workload
    offsets, _ = HostStream.for_job(w, 0, 1 << 30, seed=1).next_batch(3)
    assert np.diff(offsets).tolist() == [131072, 131072]
    w = parse("[a]\nrw=randread:8\nbs=4k\n").jobs[0].workload
    offsets, _ = HostStream.for_job(w, 0, 1 << 30, seed=1).next_batch(16)
    runs = offsets.reshape(2, 8)
    assert (np.diff(runs, axis=1) == 4096).all() and runs[0, 0] != runs[1, 0]


def test_the_default_stream_is_unchanged_same_seed_same_bits():
    w = WorkloadSpec(name="a", rw="randread", bs=4096)
    offsets, _ = HostStream.for_job(w, 0, 1 << 40, seed=7).next_batch(64)
    expected = named_rng(7, "random offsets", 0, 0).integers(0, (1 << 40) // 4096, size=64, dtype=np.int64) * 4096
    assert offsets.tolist() == expected.tolist()


def test_zones_skew_and_offsets_that_simulate():
    job = parse("[a]\nrw=read\nbs=64k\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n").jobs[0]
    assert job.workload.rw == "read" and "zoneskip" not in parse("[a]\nzonemode=strided\nzonesize=1m\nzoneskip=2g\n").unmodelled_options
    for distribution in ("zipf:1.2", "pareto:0.9", "normal:10", "zoned:50/5:30/15:20/80", "random"):
        assert parse(f"[a]\nrw=randread\nrandom_distribution={distribution}\n").jobs[0].workload.rw == "randread"
    assert parse("[a]\nrw=randwrite\nrandom_distribution=random\n").jobs[0].workload.rw == "randwrite"
    job = parse("[a]\nrw=read\nbs=4k\noffset=50%\n").jobs[0]
    assert job.offset_percent == 50.0 and job.resolved(1 << 30).offset == 1 << 29
    assert parse("[a]\noffset=0%\n").jobs[0].workload.offset == 0


def test_flow_and_rate_process_are_read():
    job = parse("[a]\nrw=read\nflow=-8\nflow_id=2\nrate_iops=100\nrate_process=poisson\n").jobs[0]
    assert (job.flow_weight, job.flow_id, job.rate_process, job.rate_iops) == (8, 2, "poisson", 100.0)
    assert parse("[a]\nflow=0\n").jobs[0].flow_weight is None


NEW_OPTIONS = ["bssplit", "bsrange", "rw", "offset", "flow", "flow_id", "rate_process", "zonemode", "zonesize",
               "random_distribution", "replay_time_scale", "replay_no_stall", "size", "iodepth", "numjobs"]


VALUES = st.one_of(st.sampled_from(["4k/50:8k/50", "4k/:8k/", "512-4k", "1k:1M", "read:8k", "randread:4", "write:-4k",
                                    "(2*$ncpus)", "${HOME}", "1/0", "2^70", "4k/100,", ",8k/100", "strided", "zbd",
                                    "zipf:1.1", "zoned:10/90:90/10", "poisson", "-3", "1e3", "0x10", "50%", "0%",
                                    "((", "4k/50:", ":", "/", "-"]),
                   st.text(alphabet="0123456789kmKM/:%,-+*()^$.", max_size=14))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NEW_OPTIONS), VALUES), min_size=1, max_size=4))
def test_any_value_of_the_new_options_parses_or_is_one_line(pairs):
    text = "[a]\n" + "".join(f"{key}={value}\n" for key, value in pairs)
    try:
        parse(text, keywords=KEYWORDS, environ={"HOME": "4k"})
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("job.fio line ")


def test_section_runs_the_named_jobs_and_an_unknown_name_is_refused_naming_the_files_jobs():
    """fio's --section: an unknown name said "no job section, only [global]" of a file with jobs."""
    text = "[global]\nrw=randread\n[a]\nbs=4k\n[b]\nbs=8k\n"
    assert [j.name for j in parse(text, sections=("b",)).jobs] == ["b"]
    with pytest.raises(InputError, match=r"--section: no job named 'zzz'; the file's jobs: a, b"):
        parse(text, sections=("zzz",))


def test_time_based_without_a_runtime_is_said_as_fio_says_it():
    """fio: "time_based requires a runtime/timeout setting"; the job then runs its size once."""
    untimed = parse("[a]\nioengine=libaio\nrw=randread\ntime_based=1\n")
    assert any("time_based requires a runtime" in line and ": a run their whole size once" in line for line in untimed.notes())
    timed = parse("[a]\nioengine=libaio\nrw=randread\ntime_based\nruntime=5\n")
    assert not any("time_based" in line for line in timed.notes())


@pytest.mark.parametrize("value, phrase", [("4k/50:1e308k/50", "cannot read '1e308k'"), ("4k/50:8k/60", "add up to at most 100")])
def test_a_bad_bssplit_names_its_line_and_option_once(value, phrase):
    """A size the reader could not take came back wrapped twice ('job.fio line 3: bssplit: job.fio
    line 3: bssplit: ...')."""
    with pytest.raises(InputError) as info:
        parse(f"[a]\nrw=randread\nbssplit={value}\n")
    assert phrase in str(info.value) and str(info.value).count("bssplit:") == 1, str(info.value)


def test_a_job_waiting_for_the_job_before_it_runs_after_it_and_one_waiting_beside_others_is_refused():
    """fio's wait_for starts a job once every clone of the waitee is done: the two jobs of this file
    ran together in nvsim (each at half its rate alone); a wait for one of several running jobs is
    refused, as nvsim's phases cannot say it."""
    head = "[global]\nioengine=libaio\nrw=randread\n[a]\n"
    jobs = parse(head + "[b]\nwait_for=a\n").jobs
    assert [(j.name, j.phase, j.group) for j in jobs] == [("a", 0, 0), ("b", 1, 0)]
    assert "wait_for" not in parse(head + "[b]\nwait_for=a\n").unmodelled_options
    later = parse(head + "[b]\nstonewall\n[c]\nwait_for=a\n").jobs  # a is done before b's phase starts
    assert [j.phase for j in later] == [0, 1, 1]
    assert "runs beside b: a job that starts while some jobs still run is not modelled" in \
        error_of(head + "[b]\n[c]\nwait_for=a\n")


@pytest.mark.parametrize("cpus, numjobs, named", [("0-1", 16, True), ("0-15", 16, False), ("0,2,4-7", 6, False),
                                                   ("0,2,4-7", 7, True), ("0-3,x", 2, True), ("7-3", 1, True),
                                                   # fio's strtoll reads ASCII digits: a superscript passed
                                                   # isdigit() and int() raised (a traceback); Arabic-Indic
                                                   # 0-15 was read as 16 CPUs
                                                   ("0-\u00b2", 1, True), ("\u0660-\u0661\u0665", 16, True)])
def test_a_cpu_set_smaller_than_the_jobs_is_named_as_not_modelled(catalog, cpus, numjobs, named):
    """16 jobs with cpus_allowed=0-1 ran on 16 CPUs with nothing said (a helper's finding): nvsim gives
    each clone a CPU of its own, so a set with fewer CPUs (or one it cannot read) is in the warning."""
    text = f"[a]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\nnumjobs={numjobs}\ncpus_allowed={cpus}\n"
    jobfile = parse_fio_jobfile(text, "job.fio", catalog=catalog)
    assert ("cpus_allowed" in jobfile.unmodelled_options) == named
    assert jobfile.jobs[0].cpus_allowed == cpus


def test_a_file_of_more_job_sections_than_the_report_takes_is_refused_before_they_are_read(catalog, monkeypatch):
    """20,000 empty sections were each read and validated (quadratically: 102 s) before the report's
    count refused them (a helper's finding); the count is checked first, in one line."""
    monkeypatch.setenv("NVSIM_MAX_FIO_JOB_ENTRIES", "3")
    text = "[global]\nrw=randread\nioengine=libaio\ndirect=1\n" + "".join(f"[j{i}]\n" for i in range(4))
    with pytest.raises(InputError, match="4 job sections; at most 3"):
        parse_fio_jobfile(text, "job.fio", catalog=catalog)
    assert len(parse_fio_jobfile(text[:text.index("[j3]")], "job.fio", catalog=catalog).jobs) == 3


def test_a_note_names_at_most_ten_jobs_and_counts_the_rest():
    """A file of 4,096 jobs run together, with no ioengine or direct, wrote notes naming every job:
    one line of stderr of 28 kB each (800 kB with 200-character names). Now ten, and how many more."""
    text = "".join(f"[j{i}]\nrw={'randread' if i % 2 else 'randwrite'}\nbs=4k\n" for i in range(300))
    notes = parse(text).notes()
    assert len(notes) == 3 and all(len(line) < 400 for line in notes)
    assert all("j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 and 290 more" in line for line in notes)
    small = parse("[a]\nrw=read\n[b]\nrw=write\n").notes()  # a few jobs: every name, as before
    assert all("a, b:" in line or line.endswith("a, b") for line in small)


@pytest.mark.parametrize("options, cap", [
    # fio (init.c __setup_rate) holds a cap in bytes/s: rate, or rate_iops x the direction's smallest block;
    # the linear process (io_u.c usec_for_io) issues bytes at it, so a mix of 4k and 64k at rate_iops=1000
    # runs 1,000 x 4,096 / 34,816 = 117.6 I/Os a second
    ("rate_iops=1000", 1000 * 4096 / 34816), ("rate=4096000", 4096000 / 34816),
    # the Poisson process draws one I/O per 1 / (bytes/s / smallest block) on average, whatever its size
    ("rate_iops=1000\nrate_process=poisson", 1000.0), ("rate=4096000\nrate_process=poisson", 1000.0),
])
def test_a_rate_cap_on_a_mix_of_block_sizes_is_the_iops_fio_runs(options, cap):
    """nvsim took rate_iops as the I/Os of any mix (1,000 where fio runs 117.6) and a Poisson rate in
    bytes over the mix's mean size (117.6 where fio draws 1,000 I/Os a second)."""
    (job,) = parse(f"[a]\nrw=randread\nbssplit=4k/50:64k/50\n{options}\n").jobs
    assert job.rate_iops == pytest.approx(cap, rel=1e-12)
    (one_size,) = parse(f"[a]\nrw=randread\nbs=4k\n{options}\n").jobs  # one size: the cap as before
    assert one_size.rate_iops == pytest.approx(1000.0, rel=1e-12)


def test_a_capped_mix_written_back_runs_at_its_cap_in_fio_and_reads_back_the_same():
    """The writer turns a mix's cap (I/Os per second) into what fio needs to run it: the linear process's
    bytes per second, the Poisson process's rate_iops (it wrote rate_iops=1000, which fio runs at 117.6)."""
    for process, line in (("linear", "rate=34816000"), ("poisson", "rate_iops=1000")):
        w = WorkloadSpec(name="m", rw="randread", bssplit="4k/50:64k/50", rate_iops=1000, rate_process=process)
        written = workload_to_fio_section(w)
        assert line in written.splitlines(), written
        (again,) = parse("[global]\ndirect=1\n" + written).jobs
        assert again.workload == w


@pytest.mark.parametrize("option, value", [("startdelay", "-5"), ("zoneskip", "-1"), ("startdelay", "-2s")])
def test_a_negative_start_delay_or_zone_skip_is_refused_in_one_line(option, value):
    """fio's startdelay and zoneskip have no .minval (options.c): a negative value is stored in an
    unsigned 64-bit field, a start 2^64 - 5 s microseconds away (the job never starts) or a skip of
    2^64 - 1 bytes; nvsim refuses it naming the option and what is allowed."""
    message = error_of(f"[a]\nrw=randread\n{option}={value}\n")
    assert f"line 3: {option}: must be 0 or more" in message and repr(value) in message
    parse(f"[a]\nrw=randread\n{option}=0\n")


def test_a_share_size_past_the_end_is_cut_to_what_follows_the_offset_as_fio_cuts_it():
    """fio's setup_files (filesetup.c): a size of N% is N% of the device, then cut to the bytes from
    the offset to its end, whole blocks. offset=50% size=60% moved 60% of the array (50,688 GB of
    84,480 GB) while the warning said the region was cut to 50%; the job moves 50%."""
    job = parse("[a]\nrw=read\nbs=128k\noffset=50%\nsize=60%\n").jobs[0]
    assert job.resolved(1 << 30).size == 1 << 29
    assert job.share_bytes(1 << 30) == int((1 << 30) * 0.6) // (128 << 10) * (128 << 10)  # the share, before the cut
    assert parse("[a]\nrw=read\nbs=128k\noffset=50%\nsize=40%\n").jobs[0].resolved(1 << 30).size == int((1 << 30) * 0.4) // (128 << 10) * (128 << 10)
    assert parse("[a]\nrw=read\nbs=128k\noffset=100m\nsize=100%\n").jobs[0].resolved(1 << 30).size == (1 << 30) - (100 << 20)


def test_each_clone_moves_what_follows_its_own_offset_as_fio_cuts_it():
    """fio's setup_files (filesetup.c) sets each clone's io_size from its own start offset
    (get_start_offset: offset + subjob_number x offset_increment): size=N% cut to what follows that
    offset, whole blocks; no size, everything from the offset to the end. numjobs=2
    offset_increment=50% size=60% moved 60% twice (the cut of clone 0, at offset 0), and offset=50%
    with no size the whole device; clone 1 moves 50%, and the job without size half the device."""
    from nvsim.fio.run import clamped_sizes
    from nvsim.workload.compose import job_bytes

    block = 128 << 10
    share = int(GiB * 0.6) // block * block
    clones = parse("[a]\nrw=read\nbs=128k\nnumjobs=2\noffset_increment=50%\nsize=60%\n")
    assert job_bytes(clones.jobs[0].resolved(GiB), GiB) == share + GiB // 2
    warned = clamped_sizes(clones, GiB, "f")
    assert len(warned) == 1 and "[a] clone 1" in warned[0] and f"cut to {GiB // 2:,} bytes" in warned[0]
    assert job_bytes(parse("[a]\nrw=read\nbs=128k\noffset=50%\n").jobs[0].resolved(GiB), GiB) == GiB // 2
    assert job_bytes(parse("[a]\nrw=read\nbs=128k\nnumjobs=3\nsize=10%\n").jobs[0].resolved(GiB), GiB) == 3 * (int(GiB * 0.1) // block * block)


@pytest.mark.parametrize("mix", ["bssplit=4k/50:128k/50", "bsrange=4k-128k", "bssplit=4k/10:64k/90,128k/100"])
def test_a_share_size_with_a_block_size_mix_is_whole_smallest_blocks_as_fio_rounds_it(mix):
    """fio's setup_files (filesetup.c) takes size=N% of the device and cuts it to what follows the
    clone's offset, then rounds it down to td_min_bs, the smallest block of any direction (options.c
    bssplit_ddir's min_bs; a bssplit without a trim list gives trims the write list's), not the mix's
    mean: bssplit=4k/50:128k/50 size=60% of 1 GiB rounded to 66 KiB blocks (644,210,688 bytes) where
    fio moves 644,243,456."""
    from nvsim.workload.compose import job_bytes

    page = 4096
    share = int(GiB * 0.6) // page * page
    job = parse(f"[a]\nrw=randrw\n{mix}\nsize=60%\n").jobs[0]
    assert job.share_bytes(GiB) == share and job.resolved(GiB).size == share
    clones = parse(f"[a]\nrw=randrw\n{mix}\nnumjobs=2\noffset_increment=50%\nsize=60%\n").jobs[0]
    assert job_bytes(clones.resolved(GiB), GiB) == share + GiB // 2
    uneven = GiB + 3 * page  # clone 1's region, cut at the end, is a whole number of 4 KiB blocks, not of the mean
    assert job_bytes(clones.resolved(uneven), uneven) == int(uneven * 0.6) // page * page + (uneven - clones.resolved(uneven).offset_increment)


@pytest.mark.parametrize(("block", "start"), [("bs=128k", 27_878_400_065_536), ("bssplit=4k/50:64k/50", 27_878_400_000_000),
                                              ("bs=4k", 27_878_400_000_000)])
def test_a_share_offset_is_rounded_up_to_the_smallest_block_as_fio_rounds_it(block, start):
    """fio's get_start_offset (filesetup.c) takes offset=N% of the device and rounds it UP to the
    next whole td_min_bs (the smallest block of any direction; offset_align when set): on 84.48 TB,
    offset=33% bs=128k starts at 27,878,400,065,536 where nvsim rounded down to 27,878,399,934,464,
    and bssplit=4k/50:64k/50 at 27,878,400,000,000 where nvsim rounded down to the mix's mean
    (27,878,399,995,904)."""
    device = 84_480_000_000_000
    assert parse(f"[a]\nrw=read\n{block}\noffset=33%\n").jobs[0].resolved(device).offset == start


@pytest.mark.parametrize(("offset", "starts"), [("", (0, 27_878_400_065_536)),
                                                ("offset=10%\n", (8_448_000_000_000, 36_326_400_065_536))])
def test_a_share_offset_increment_rounds_each_clone_start_up_as_fio_rounds_it(offset, starts):
    """fio's get_start_offset (filesetup.c) adds the raw increment (N% of the device) per clone to
    the raw offset, then rounds the clone's start UP to the smallest block: on 84.48 TB numjobs=2
    offset_increment=33% bs=128k puts clone 1 at 27,878,400,065,536, where nvsim rounded the
    increment down to 4 KiB once (27,878,400,000,000); with offset=10%, 36,326,400,065,536 (nvsim:
    36,326,400,000,000). The simulated clone's region (``job_region``) starts there."""
    from nvsim.sim.workload import job_region

    device = 84_480_000_000_000
    w = parse(f"[a]\nrw=read\nbs=128k\nnumjobs=2\n{offset}offset_increment=33%\n").jobs[0].resolved(device)
    assert tuple(job_region(w, clone, device)[0] for clone in (0, 1)) == starts
