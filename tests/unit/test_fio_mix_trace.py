"""fio's expansions, block-size mixes, open-loop arrivals, jobs sharing an array, and traces in,
as pure functions (nvsim.fio.expand, nvsim.workload.mix, open_loop, together, nvsim.fio.trace; the host stream's
rw=TYPE:N and offset in nvsim.sim.workload)."""

import struct
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.errors import InputError
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.expand import expand_value, platform_keywords
from nvsim.workload.mix import MAX_MIX_PARTS, MixPart, binned
from nvsim.workload.open_loop import ladder_picks, occupancy
from nvsim.fio.run import job_runtime_s
from nvsim import fabric
from nvsim.workload.together import JOB_CPUS_LABEL, Member, shared_wait
from nvsim.fio.trace import BLK_TRACE_MAGIC, parse_blkparse, parse_blktrace, parse_iolog, parse_msr_csv, read_trace, summarize
from nvsim.sim.result import Utilisation
from nvsim.sim.workload import HostStream, named_rng
from nvsim.specs import WorkloadSpec

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "data" / "fio" / "traces"
KEYWORDS = {"ncpus": 128, "mb_memory": 524288, "pagesize": 4096}


def parse(text: str, **kwargs):
    return parse_fio_jobfile(text, "job.fio", **kwargs)


# ---------------------------------------------------------------- ${VAR}, keywords, arithmetic

def test_variables_keywords_and_arithmetic_expand_as_fio_does():
    env = {"FIO_BS": "8k", "DEPTH": "16"}
    job = parse("[a]\nrw=randread\nbs=${FIO_BS}\niodepth=${DEPTH}\nnumjobs=$ncpus/4\nsize=5*1024*1024*$mb_memory/8\n",
                keywords=KEYWORDS, environ=env).jobs[0]
    w = job.workload
    assert (w.bs, w.iodepth, w.numjobs, w.size) == (8192, 16, 32, 5 * 1024 * 1024 * 524288 // 8)
    assert parse("[a]\nbs=$pagesize\n", keywords=KEYWORDS).jobs[0].workload.bs == 4096
    assert parse("[a]\nbs=(2^3)*512\n").jobs[0].workload.bs == 4096  # fio's '^' is a power


def test_an_option_nvsim_does_not_read_keeps_unset_variables_and_other_keywords():
    job = parse("[a]\nrw=read\nfilename_format=$jobnum.${NVSIM_TEST_UNSET}\n").jobs[0]
    assert job.options["filename_format"] == "$jobnum.${NVSIM_TEST_UNSET}"


def test_platform_keywords_are_the_simulated_platforms(catalog):
    platform = next(iter(catalog.platforms.values()))
    words = platform_keywords(platform)
    assert words["ncpus"] == platform.total_cores * platform.cpu.threads_per_core.value
    assert words["mb_memory"] == int(platform.memory_bytes.value) // 2**20 and words["pagesize"] == 4096


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10**4), st.integers(0, 10**4), st.sampled_from(["+", "*", "-", "/", "%"]))
def test_arithmetic_is_fios_integer_result(a, b, c, op):
    text = f"({a}{op}{b})+{c}"
    exact = {"+": a + b, "*": a * b, "-": a - b, "/": a / b, "%": a % b}[op] + c
    if exact < 0:
        with pytest.raises(InputError, match="negative"):
            expand_value("size", text, None)
    else:
        assert expand_value("size", text, None) == str(int(exact))


# ---------------------------------------------------------------- bssplit, bsrange, rw:N, offset

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


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4096), st.floats(0.01, 1.0)), min_size=1, max_size=80))
def test_binning_keeps_the_shares_and_at_most_eight_parts(items):
    parts = [MixPart(sectors * 512, share) for sectors, share in items]
    out = binned(parts)
    assert len(out) <= MAX_MIX_PARTS
    assert sum(p.share for p in out) == pytest.approx(1.0)
    assert all(p.bs % 512 == 0 and p.bs > 0 for p in out)
    total = sum(s for _, s in items)
    mean = sum(n * 512 * s for n, s in items) / total
    assert sum(p.bs * p.share for p in out) == pytest.approx(mean, abs=512)


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


# ---------------------------------------------------------------- open loop, shared array

def test_ladder_picks_keep_both_ends():
    assert ladder_picks(5) == [0, 1, 2, 3, 4]
    picks = ladder_picks(100)
    assert picks[0] == 0 and picks[-1] == 99 and len(picks) <= 12 and picks == sorted(picks)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.floats(1e3, 1e6), st.floats(0.01, 0.98))
def test_poisson_occupancy_is_a_distribution_and_rises_with_load(population, capacity, load):
    rates = np.minimum(capacity, np.arange(1, population + 1) * capacity / max(1, population // 2))
    low, high = occupancy(rates, load * capacity * 0.5), occupancy(rates, load * capacity)
    for chain in (low, high):
        assert chain[:-1].sum() == pytest.approx(1.0)
    mean = [float(np.arange(len(c) - 2) @ c[:-2] + c[-1]) for c in (low, high)]
    assert mean[1] >= mean[0]


def test_poisson_on_one_server_is_mm1():
    """One exponential-free server of rate mu: the chain is M/M/1, L = rho / (1 - rho)."""
    chain = occupancy(np.array([1000.0]), 800.0)
    mean = float(np.arange(len(chain) - 2) @ chain[:-2] + chain[-1])
    assert mean == pytest.approx(0.8 / 0.2)


def _member(iops, demands, unloaded_s, population, **kw):
    sim = SimpleNamespace(utilisation=[Utilisation(k, v * iops) for k, v in demands.items()])
    return Member(SimpleNamespace(simulation=sim, total_iops=iops), unloaded_s, population, **kw)


def test_one_job_alone_gets_the_fluid_answer():
    m = _member(1e5, {"drives": 1e-5}, 1e-4, 64)  # cap 100K, loop 640K
    wait, rates, label = shared_wait([m])
    assert rates[0] == pytest.approx(1e5, rel=1e-9) and label == "drives" and wait > 0
    m = _member(1e5, {"drives": 1e-6}, 1e-4, 4)  # loop 40K under the 1M cap: no wait
    assert shared_wait([m])[0] == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1e-7, 1e-4), st.floats(1e-6, 1e-3), st.integers(1, 256)), min_size=2, max_size=5))
def test_jobs_sharing_a_resource_never_load_it_past_its_servers(jobs):
    members = [_member(1.0 / d, {"drives": d}, r0, n) for d, r0, n in jobs]
    wait, rates, _ = shared_wait(members)
    load = sum(x * d for x, (d, _, _) in zip(rates, jobs))
    assert load <= 1.0 + 1e-6
    alone = [min(n / r0, 1 / d) for d, r0, n in jobs]
    assert all(x <= a * (1 + 1e-9) for x, a in zip(rates, alone))  # sharing never speeds a job up
    if wait > 0:
        assert load == pytest.approx(1.0, rel=1e-6)


def test_flow_keeps_the_ratio_of_weights():
    a = _member(1e5, {"drives": 1e-6}, 1e-4, 8, flow_weight=1)
    b = _member(1e5, {"drives": 1e-6}, 1e-4, 8, flow_weight=8)
    _, rates, _ = shared_wait([a, b])
    assert rates[1] / rates[0] == pytest.approx(8.0)


# ---------------------------------------------------------------- traces

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


def test_a_jobs_own_cpus_cap_only_that_job():
    """fabric's cores kind is each job's own CPUs: a job held back by them imposes no wait on the others."""
    assert fabric.KINDS[0].key == "cores" and fabric.KINDS[0].label(SimpleNamespace(job_cpus=3), "").startswith(JOB_CPUS_LABEL)
    cpu_bound = _member(1e4, {"host cores (1 job CPUs)": 1e-4, "drives": 1e-7}, 1e-5, 64)
    reader = _member(1e5, {"host cores (8 job CPUs)": 1e-6, "drives": 1e-6}, 1e-4, 8)
    wait, rates, _ = shared_wait([cpu_bound, reader])
    assert wait == 0.0 and rates[0] == pytest.approx(1e4) and rates[1] == pytest.approx(8 / 1e-4)


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


def test_io_size_and_loops_set_what_each_clone_moves():
    job = parse("[a]\nrw=write\nbs=16k\nnumjobs=2\nsize=1g\nio_limit=4g\nloops=2\n").jobs[0]
    assert (job.io_size_bytes, job.loops) == (4 << 30, 2)
    assert job_runtime_s(job.workload, 2 * (1 << 30), 1 << 40) == pytest.approx(8.0)
    once = job.workload.model_copy(update={"io_size": None, "loops": 1})
    assert job_runtime_s(once, 2 * (1 << 30), 1 << 40) == pytest.approx(1.0)  # size alone, once
