"""A workload written as a fio job section (nvsim.fio.writer, nvsim.fio.workload_to_fio_section): the
section fio reads back as the same workload, plain fio text, and one-line refusals of what fio would
read differently."""

import re

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.errors import NOT_PRINTABLE, InputError
from nvsim.fio import UNSIMULATED_IOENGINES, FioJobFile, parse_fio_jobfile, workload_to_fio_section
from nvsim.specs import WorkloadSpec
from nvsim.specs.base import FORMULA_STARTS


def parse(text: str, **kwargs) -> FioJobFile:
    return parse_fio_jobfile(text, "job.fio", **kwargs)


NAME_CHARS = st.characters(blacklist_categories=("Cs",) + NOT_PRINTABLE)  # anything printable (a name may hold no control)


PLAIN_CHARS = st.characters(whitelist_categories=("L", "N", "P", "S"))  # mostly what fio keeps as written


TEXT = (st.text(PLAIN_CHARS, min_size=1, max_size=30) | st.text(NAME_CHARS, min_size=1, max_size=30)).filter(
    lambda text: not text.startswith(FORMULA_STARTS))  # a name may not open as a spreadsheet formula


def _simulable_engine_name(text: str) -> bool:
    """Engine names the parser keeps as written (no catalog): not one fio cannot simulate, not a plug-in path."""
    return text not in UNSIMULATED_IOENGINES and not (text.startswith("external") or "/" in text or text.endswith(".so"))


SECONDS = (st.integers(1, 10**6).map(float) | st.integers(1, 10**9).map(lambda ms: ms / 10**3)
           | st.integers(1, 10**12).map(lambda us: us / 10**6))  # whole s, ms and us, as fio writes them


WORKLOADS = st.builds(
    WorkloadSpec,
    name=TEXT,
    rw=st.sampled_from(["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw"]),
    bs=st.integers(1, 2**22).map(lambda n: n * 512),
    iodepth=st.integers(1, 65536),
    numjobs=st.integers(1, 65536),
    rwmixread=st.integers(0, 100),
    size=st.none() | st.integers(2**31, 2**50),  # at least the largest bs drawn (fio refuses a size below the block)
    offset_increment=st.integers(0, 2**36).map(lambda sectors: 512 * sectors),  # direct I/O: whole sectors
    runtime=st.none() | SECONDS,
    ramp_time=st.just(0.0) | SECONDS,
    time_based=st.booleans(),
    ioengine=st.sampled_from(["libaio", "io_uring", "psync", "posixaio"]) | TEXT.filter(_simulable_engine_name),
    hipri=st.booleans(), fixedbufs=st.booleans(), registerfiles=st.booleans(), sqthread_poll=st.booleans(),
    iodepth_batch_submit=st.integers(1, 65536), iodepth_batch_complete_min=st.integers(1, 65536),
)


def _representable(text: str, *, name: bool) -> bool:
    """Independent statement of what fio reads back unchanged (see fio's parse_jobs_ini)."""
    if not text or text != text.strip() or re.search(r"[;#]", text):
        return False
    if any(not ch.isprintable() for ch in text):
        return False
    if not name and ("${" in text or re.search(r"\$[A-Za-z_]", text)):  # environment variables, fio's $keywords
        return False
    return not (name and (text.startswith("global") or len(text) > 255))


@settings(max_examples=300, deadline=None)
@given(WORKLOADS)
def test_workload_to_fio_section_round_trips(workload):
    if not (_representable(workload.name, name=True) and _representable(workload.ioengine, name=False)):
        with pytest.raises(InputError, match="cannot be written to a fio job file"):
            workload_to_fio_section(workload)
        return
    text = workload_to_fio_section(workload)
    (job,) = parse("[global]\ndirect=1\n" + text).jobs
    assert job.workload == workload
    assert job.name == workload.name and job.group == 0


def test_an_ioengine_fio_would_read_as_a_keyword_is_not_written():
    """CI's random seed found ioengine='$A': written as ``ioengine=$A``, fio (and nvsim) read it as a
    keyword; it is refused in one line, as '${' is."""
    with pytest.raises(InputError, match=r"'\$A' contains '\$' before a name, which fio reads as one of its keywords"):
        workload_to_fio_section(WorkloadSpec(name="0", rw="read", bs=512, ioengine="$A"))
    assert "ioengine=a$" in workload_to_fio_section(WorkloadSpec(name="0", rw="read", bs=512, ioengine="a$"))


def test_written_section_is_plain_fio():
    w = WorkloadSpec(name="seqw", rw="write", bs="1m", iodepth=16, numjobs=192, size="50G", offset_increment="50G",
                     runtime=300, time_based=True)
    assert workload_to_fio_section(w) == ("[seqw]\nrw=write\nbs=1m\niodepth=16\nnumjobs=192\nsize=50g\n"
                                          "offset_increment=50g\nruntime=300\ntime_based=1\nioengine=libaio\n")
    assert "runtime=1500ms" in workload_to_fio_section(w.model_copy(update={"runtime": 1.5}))


@pytest.mark.parametrize("update, phrase", [
    ({"runtime": 0.1234567}, "whole number of microseconds"),
    ({"runtime": 0.0}, "as no limit"),
    ({"size": 0}, "as the whole file"),
    ({"name": "global-x"}, "starts with 'global'"),
    ({"name": "a;b"}, "comment"),
    ({"ioengine": " libaio"}, "blanks"),
    ({"ioengine": "${ENGINE}"}, "environment variable"),
])
def test_writer_refuses_what_fio_would_read_differently(update, phrase):
    w = WorkloadSpec(name="j", rw="read").model_copy(update=update)
    with pytest.raises(InputError, match=re.escape(phrase)):
        workload_to_fio_section(w)


def test_options_fio_ignores_on_a_job_are_not_handed_on_to_be_refused():
    """fio uses no flow_id without a flow weight and draws no offsets for a sequential job: a job
    file fio runs is read, the fields left at their defaults (the scenario schema refuses them)."""
    job = parse("[j]\nrw=write\nbs=4k\nflow_id=3\nrandom_distribution=zipf:1.2\n").jobs[0]
    assert job.workload.flow_id == 0 and job.workload.random_distribution == "random"
    rand = parse("[j]\nrw=randwrite\nbs=4k\nflow=2\nflow_id=3\nrandom_distribution=zipf:1.2\n").jobs[0]
    assert rand.workload.flow_id == 3 and rand.workload.random_distribution == "zipf:1.2"
