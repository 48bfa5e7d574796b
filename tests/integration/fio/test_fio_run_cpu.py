"""fio's CPU and run-time figures as fio computes them, and clones that poll beyond their CPUs:
identical clones report identical sys_cpu whichever sections they come from; a group_reporting
entry is its clones' mean (fio's stat.c: the group's system time over its summed run time) and
its job_runtime their sum; polling clones that outnumber their CPUs move no more than the CPUs
can spin for, and wait for them (Little's law)."""

from pathlib import Path

import pytest

from conftest import run_fio

ROOT = Path(__file__).resolve().parents[3]
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"
GPU_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6"
HEAD = "[global]\nioengine=libaio\ndirect=1\nruntime=5\ntime_based\nrw=randread\nbs=4k\niodepth=4\n"


def _entries(text, catalog, scenario=RAID10):
    return run_fio(text, scenario, catalog)[1]["jobs"]


def test_clones_of_two_sections_sharing_one_loop_report_the_cpu_of_one_section_of_all_of_them(catalog):
    alone = _entries(HEAD + "[A]\nnumjobs=8\n", catalog)
    split = _entries(HEAD + "[A]\nnumjobs=2\n[B]\nnumjobs=6\n", catalog)
    assert len(alone) == len(split) == 8
    assert [e["sys_cpu"] for e in split] == pytest.approx([alone[0]["sys_cpu"]] * 8, rel=1e-12)
    assert [e["read"]["iops"] for e in split] == pytest.approx([alone[0]["read"]["iops"]] * 8, rel=1e-9)


def test_a_group_entry_is_its_clones_mean_cpu_and_their_summed_run_time(catalog):
    clones = _entries(HEAD + "[A]\nnumjobs=4\n", catalog)
    group = _entries(HEAD + "group_reporting\n[A]\nnumjobs=4\n", catalog)
    assert len(group) == 1
    assert group[0]["sys_cpu"] == pytest.approx(clones[0]["sys_cpu"], rel=1e-12)
    assert group[0]["job_runtime"] == 4 * clones[0]["job_runtime"] == 4 * 5000
    assert group[0]["read"]["iops"] == pytest.approx(4 * clones[0]["read"]["iops"], rel=1e-5)  # whole I/Os


def test_polling_clones_beyond_their_cpus_move_what_the_cpus_spin_for(catalog):
    """pvsync2 with hipri polls: on the two EPYC 9654's 384 logical CPUs, 1,536 clones at QD1 move
    what 384 move, each clone's I/O waiting four times as long (and each clone's CPU a quarter of one)."""
    body = "[global]\nioengine=pvsync2\nhipri=1\ndirect=1\nruntime=5\ntime_based\nrw=randread\nbs=4k\ngroup_reporting\n"
    fit = _entries(body + "[p]\nnumjobs=384\n", catalog, GPU_RAID6)[0]
    runs, report = run_fio(body + "[p]\nnumjobs=1536\n", GPU_RAID6, catalog)
    many = report["jobs"][0]
    assert many["read"]["iops"] == pytest.approx(fit["read"]["iops"], rel=1e-9)
    assert many["read"]["lat_ns"]["mean"] == pytest.approx(4 * fit["read"]["lat_ns"]["mean"], rel=1e-6)
    assert many["sys_cpu"] == pytest.approx(fit["sys_cpu"] / 4, rel=1e-6)
    assert "poll for their I/Os" in runs[0].note
    plain = _entries(body.replace("hipri=1\n", "") + "[p]\nnumjobs=1536\n", catalog, GPU_RAID6)[0]  # interrupts: the job sleeps
    assert plain["read"]["iops"] > many["read"]["iops"]


def test_a_clone_that_would_start_past_the_end_is_refused(catalog):
    import nvsim
    with pytest.raises(nvsim.InputError, match=r"offset_increment: clone 1 would start at .* past the end"):
        run_fio("[global]\nioengine=libaio\ndirect=1\n[a]\nrw=read\nbs=1m\nsize=1g\nnumjobs=2\noffset_increment=2000t\n",
                RAID10, catalog)


def test_a_run_past_fios_64_bit_counters_is_refused_naming_its_runtime(catalog):
    import nvsim
    job = "[global]\nioengine=libaio\ndirect=1\ntime_based\n[a]\nrw=randread\nbs=4k\nruntime={}\n"
    with pytest.raises(nvsim.InputError, match=r"\[a\]\.runtime: the job would run .* past fio's 64-bit counters"):
        run_fio(job.format(10**20), RAID10, catalog)
    assert run_fio(job.format(86400), RAID10, catalog)[1]["jobs"][0]["read"]["io_bytes"] < 2**64
