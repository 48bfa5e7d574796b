"""The typed workload's fields beyond one closed loop (nvsim.specs.workload): the mix written as fio's
bssplit/bsrange text (``bs_mix``, ``bs`` its mean), trims written as fio's rw, a dump that loads
back, the combinations nvsim does not model refused, and ``Phase.one_loop``: jobs that fio runs at
the same time are one closed loop only when they differ in nothing but name, clones and duration."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from nvsim.errors import NOT_PRINTABLE, InputError
from nvsim.specs import MixPart, Phase, WorkloadSpec
from nvsim.specs.base import FORMULA_STARTS
from nvsim.fio.jobfile import parse_fio_jobfile
from nvsim.scenario import parse_scenario

KiB = 1024


def refusal(**fields) -> str:
    with pytest.raises(ValidationError) as info:
        WorkloadSpec(**{"name": "j", "rw": "randread", **fields})
    return str(info.value)


# ---------------------------------------------------------------- the mix in fio's text

def test_bssplit_text_sets_the_mix_and_bs_its_mean():
    w = WorkloadSpec(name="j", rw="randread", bssplit="4k/70:128k/30")
    assert w.bs_mix == (MixPart(4 * KiB, pytest.approx(0.7)), MixPart(128 * KiB, pytest.approx(0.3)))
    assert w.bs == 41984  # 0.7 x 4,096 + 0.3 x 131,072 = 42,188.8 B, 82 whole sectors
    assert w.mix == w.bs_mix


def test_bsrange_text_sets_fios_uniform_draw():
    w = WorkloadSpec(name="j", rw="randread", bsrange="4k-16k")
    assert [(p.bs, pytest.approx(p.share)) for p in w.bs_mix] == [(4 * KiB, 0.25), (8 * KiB, 0.25), (12 * KiB, 0.25), (16 * KiB, 0.25)]
    assert w.bs == 10 * KiB
    uneven = WorkloadSpec(name="j", rw="randread", bsrange="4k-10k")
    assert [(p.bs, pytest.approx(p.share)) for p in uneven.bs_mix] == [(4 * KiB, 0.4), (8 * KiB, 0.4), (10 * KiB, 0.2)]


def test_a_per_direction_split_follows_the_jobs_read_share():
    w = WorkloadSpec(name="j", rw="randrw", rwmixread=40, bssplit="64k/40:1m/60,1m/100")
    assert {(p.bs, p.rw): p.share for p in w.bs_mix} == {
        (64 * KiB, "read"): pytest.approx(0.16), (1 << 20, "read"): pytest.approx(0.24), (1 << 20, "write"): pytest.approx(0.6)}


def test_parts_written_with_units_are_the_same_mix_as_the_text():
    parts = WorkloadSpec(name="j", rw="randread", bs_mix=[{"bs": "4k", "share": 0.7}, {"bs": "128k", "share": 0.3}])
    text = WorkloadSpec(name="j", rw="randread", bssplit="4k/70:128k/30")
    assert parts == text and parts.bs == 41984


def test_a_bs_equal_to_the_mixs_mean_is_accepted():
    assert WorkloadSpec(name="j", rw="randread", bssplit="4k/70:128k/30", bs=41984).bs == 41984


def test_no_mix_is_one_size():
    w = WorkloadSpec(name="j", rw="randread", bs="8k")
    assert w.bs_mix is None and w.mix is None and w.bs == 8 * KiB


# ---------------------------------------------------------------- trims in fio's rw

@pytest.mark.parametrize("written, rw", [("trim", "write"), ("randtrim", "randwrite"), ("trimwrite", "write"),
                                         ("randtrimwrite", "randwrite")])
def test_a_trim_rw_becomes_the_write_shape_and_a_trim(written, rw):
    w = WorkloadSpec(name="j", rw=written)
    assert (w.rw, w.trim) == (rw, written)
    assert w.pure_trim == (written in ("trim", "randtrim"))


def test_a_trim_written_with_its_write_shape_is_the_same_workload():
    assert WorkloadSpec(name="j", rw="randwrite", trim="randtrimwrite") == WorkloadSpec(name="j", rw="randtrimwrite")


# ---------------------------------------------------------------- a dump loads back

@pytest.mark.parametrize("fields", [
    {"rw": "randread", "bssplit": "4k/70:128k/30"},
    {"rw": "randrw", "rwmixread": 40, "bssplit": "64k/40:1m/60,1m/100"},
    {"rw": "randread", "bsrange": "4k-10k", "rate_iops": 500, "rate_process": "poisson"},
    {"rw": "randtrimwrite", "iodepth": 8},
    {"rw": "read", "thinktime": "2ms", "rate_iops": 100, "flow": 4, "flow_id": 2, "phase": "p1"},
    {"rw": "randread", "latency_target": "1ms", "latency_percentile": 99.9, "latency_window": "5s"},
    {"rw": "write", "size": "1g", "io_size": "4g", "loops": 2, "drive_state": "fresh"},
])
def test_a_json_dump_without_defaults_validates_back_to_an_equal_spec(fields):
    w = WorkloadSpec(name="j", **fields)
    dumped = w.model_dump(mode="json", exclude_defaults=True)
    assert "bssplit" not in dumped and "bsrange" not in dumped  # the mix is dumped as its parts
    assert WorkloadSpec.model_validate(dumped) == w


# ---------------------------------------------------------------- refusals

def test_bssplit_with_a_different_bs_is_refused():
    assert "the block size is the mix's mean, 41984 bytes" in refusal(bssplit="4k/70:128k/30", bs="4k")


def test_two_mixes_are_refused():
    assert "give one mix of block sizes" in refusal(bssplit="4k/100", bsrange="4k-8k")
    assert "give one mix of block sizes" in refusal(bssplit="4k/100", bs_mix=[{"bs": 4096, "share": 1.0}])


def test_a_bad_mix_names_its_field():
    assert "bssplit: the percentages must add up to at most 100" in refusal(bssplit="4k/150")
    assert "bsrange: expected LOW-HIGH" in refusal(bsrange="4k")


@pytest.mark.parametrize("part, phrase", [
    ({"bs": 1000, "share": 1.0}, "positive multiple of 512"),
    ({"bs": 4096, "share": 0.0}, "in (0, 1]"),
    ({"bs": 4096, "share": 1.5}, "in (0, 1]"),
    ({"bs": 4096, "share": 1.0, "rw": "trim"}, "read, write or absent"),
])
def test_bad_parts_are_refused(part, phrase):
    assert phrase in refusal(bs_mix=[part], bs=4096)


def test_a_latency_target_with_a_rate_cap_or_a_think_time_is_refused():
    assert "latency target together with a rate cap or a think time" in refusal(latency_target="1ms", rate_iops=100)
    assert "latency target together with a rate cap or a think time" in refusal(latency_target="1ms", thinktime="1ms")


def test_poisson_arrivals_without_a_rate_are_refused():
    assert "poisson arrivals need a rate (rate_iops)" in refusal(rate_process="poisson")
    assert WorkloadSpec(name="j", rw="randread", rate_process="poisson", rate_iops=10).rate_process == "poisson"


@pytest.mark.parametrize("rw, trim", [("randread", "randtrim"), ("write", "randtrim"), ("randwrite", "trimwrite")])
def test_a_trim_whose_rw_is_not_its_write_shape_is_refused(rw, trim):
    assert f"trim: {trim}'s offsets are those of rw" in refusal(rw=rw, trim=trim)


OLTP = {"rw": "oltp", "users": 4, "oltp": {"dataset_bytes": "1g", "buffer_pool_bytes": "1g"}}


@pytest.mark.parametrize("field, value", [
    ("bssplit", "4k/50:8k/50"), ("rate_iops", 100), ("thinktime", "1ms"), ("latency_target", "1ms"), ("flow", 2),
    ("phase", "p"), ("bs", "16k"), ("iodepth", 128), ("numjobs", 8), ("random_distribution", "zipf:1.2"),
    ("rwmixread", 70), ("ioengine", "io_uring"), ("size", "10G"), ("offset", "1G"), ("drive_state", "fresh"),
    ("deallocated_fraction", 0.2), ("loops", 3),
])
def test_composite_fields_with_rw_oltp_are_refused(field, value):
    with pytest.raises(ValidationError, match="not for rw: oltp"):
        WorkloadSpec(name="db", **OLTP, **{field: value})


def test_an_oltp_workload_alone_is_accepted():
    assert WorkloadSpec(name="db", **OLTP).is_oltp
    dumped = WorkloadSpec(name="db", **OLTP).model_dump(mode="json")  # a sweep's base, a dashboard record
    assert WorkloadSpec.model_validate(dumped).is_oltp  # its fio fields at their defaults pass


# ---------------------------------------------------------------- Phase.one_loop

def phase(*jobs: dict) -> Phase:
    return Phase(name="p", jobs=[{"rw": "randread", "bs": "4k", "iodepth": 8, **job} for job in jobs])


def test_jobs_differing_only_in_name_clones_and_duration_are_one_loop():
    assert phase({"name": "a", "numjobs": 2, "runtime": 10}, {"name": "b", "numjobs": 5, "runtime": 30}).one_loop
    assert phase({"name": "a"}, {"name": "b", "time_based": True, "runtime": 60, "ramp_time": 5}).one_loop


def test_a_paced_job_is_not_one_loop_with_the_others():
    assert not phase({"name": "a"}, {"name": "b", "rate_iops": 100}).one_loop
    assert not phase({"name": "a", "rate_iops": 100}, {"name": "b", "rate_iops": 100}).one_loop  # paced alike: still apart
    assert not phase({"name": "a"}, {"name": "b", "thinktime": "1ms"}).one_loop


def test_jobs_with_different_workloads_or_one_job_are_not_one_loop():
    assert not phase({"name": "a"}, {"name": "b", "bs": "8k"}).one_loop
    assert not phase({"name": "a"}, {"name": "b", "iodepth": 16}).one_loop
    assert not phase({"name": "a"}).one_loop


# ---------------------------------------------------------------- names and the mix's total share

PRINTABLE = st.characters(blacklist_categories=("Cs",) + NOT_PRINTABLE)


@given(head=st.text(PRINTABLE, max_size=5), bad=st.characters(whitelist_categories=NOT_PRINTABLE),
       tail=st.text(PRINTABLE, max_size=5))
def test_a_name_holding_a_control_or_format_character_is_refused(head, bad, tail):
    """Whatever prints it (tables, CSV, HTML, a terminal), a name cannot rewrite it."""
    with pytest.raises(ValidationError, match=f"U\\+{ord(bad):04X}"):
        WorkloadSpec(name=head + bad + tail, rw="randread")
    with pytest.raises(ValidationError, match="must be printable"):
        WorkloadSpec(name="j", rw="randread", phase=head + bad + tail)


@given(name=st.text(PRINTABLE, min_size=1, max_size=200).filter(lambda text: not text.startswith(FORMULA_STARTS)))
def test_a_printable_name_is_kept_as_written(name):
    assert WorkloadSpec(name=name, rw="randread").name == name


@pytest.mark.parametrize("first", FORMULA_STARTS)
def test_a_name_that_opens_as_a_spreadsheet_formula_is_refused(first):
    """Names go into sweeps' and the dashboard's CSV: '=HYPERLINK(...)' would run in a spreadsheet."""
    assert f"must not begin with '{first}'" in refusal(name=first + "HYPERLINK(\"http://x\")")
    assert WorkloadSpec(name="a" + first + "b", rw="randread").name == "a" + first + "b"  # anywhere else it is text


def test_an_error_line_shows_a_control_character_as_its_code():
    line = str(InputError("name", "job [a\u202eb\x1b[2J] is bad"))
    assert line == "name: job [a\\u202eb\\x1b[2J] is bad" and all(c.isprintable() for c in line)


def test_a_mix_whose_shares_add_up_past_1_is_refused_and_one_below_scaled_up():
    assert "must add up to at most 1, got 1.5" in refusal(bs_mix=[{"bs": "4k", "share": 1}, {"bs": "8k", "share": 0.5}])
    half = WorkloadSpec(name="j", rw="randread", bs_mix=[{"bs": "4k", "share": 0.25}, {"bs": "12k", "share": 0.25}])
    assert half.bs == 8 * KiB  # the mean of equal parts, as if they were 0.5 and 0.5
    thirds = [{"bs": "4k", "share": 1 / 3}] * 3  # a trace's counts over their total: 1 within rounding
    assert WorkloadSpec(name="j", rw="randread", bs_mix=thirds).bs == 4 * KiB


def test_rwmixread_that_is_not_a_number_is_named_beside_a_bssplit():
    message = refusal(rw="randrw", rwmixread=[1], bssplit="4k/50:8k/50")
    assert "rwmixread" in message and "bssplit" not in message


@pytest.mark.parametrize("fields, words", [
    ({"rw": "read", "random_run_ios": 64}, "random_run_ios: fio's rw=randread:N run is for a random job, not rw: read"),
    ({"rw": "write", "random_distribution": "zipf:1.2"}, "random_distribution: spreads a random job's offsets; rw: write"),
    ({"rw": "randread", "rw_skip_bytes": 4096}, "rw_skip_bytes: fio's rw=read:N skip is for a sequential job"),
    ({"latency_window": 1}, "latency_window: the window of a latency target"),
    ({"flow_id": 3}, "flow_id: groups jobs by their flow weights; give flow too"),
])
def test_a_field_that_would_change_nothing_where_it_is_given_is_refused(fields, words):
    assert words in refusal(**fields)


def test_the_same_fields_where_they_apply_are_kept():
    assert WorkloadSpec(name="j", rw="randread", random_run_ios=64, random_distribution="zipf:1.2").random_run_ios == 64
    assert WorkloadSpec(name="j", rw="read", rw_skip_bytes=4096).rw_skip_bytes == 4096
    assert WorkloadSpec(name="j", rw="randread", flow=2, flow_id=3).flow_id == 3


@pytest.mark.parametrize("field", ["thinktime", "latency_target", "latency_window"])
@pytest.mark.parametrize("given, fio_text, seconds", [(50, "50", 5e-05), ("50", "50", 5e-05), ("2ms", "2ms", 0.002),
                                                      (1500, "1500us", 0.0015), ("1s", "1s", 1.0)])
def test_a_fio_time_without_a_unit_is_microseconds_as_fio_reads_it(field, given, fio_text, seconds):
    """fio's thinktime, latency_target and latency_window count microseconds without a unit; a
    scenario's (and the Python API's) read a bare number the same way, to the bit of what the job
    file reader gives, and a dumped workload reads back to the same bits."""
    extra = {"latency_target": "1ms"} if field == "latency_window" else {}
    workload = WorkloadSpec(name="t", rw="randread", bs=4096, **{**extra, field: given})
    assert getattr(workload, field) == seconds
    line = f"latency_target=1ms\n" if field == "latency_window" else ""
    job = parse_fio_jobfile(f"[t]\nrw=randread\nbs=4k\nioengine=libaio\n{line}{field}={fio_text}\n", "t.fio").jobs[0]
    assert getattr(job.workload, field) == seconds
    assert WorkloadSpec.model_validate(workload.model_dump()) == workload
    assert WorkloadSpec.model_validate_json(workload.model_dump_json()) == workload


def test_a_fio_time_past_an_hour_is_refused_naming_seconds():
    with pytest.raises(InputError, match=r"thinktime: Input should be less than or equal to 3600 seconds \(got .2h.\)"):
        parse_scenario({"name": "s", "platform": "asus-rs520a-e12-rs24u", "workloads": [{"name": "t", "rw": "randread", "thinktime": "2h"}],
                        "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 2, "engine": "linux-md"}})


@pytest.mark.parametrize("pool", [0, "1KiB", "5MiB - 1"])
def test_a_buffer_pool_below_innodbs_minimum_is_refused(pool):
    pool = 5 * 2**20 - 1 if pool == "5MiB - 1" else pool
    db = {"name": "db", "rw": "oltp", "users": 4, "oltp": {"dataset_bytes": "1g", "buffer_pool_bytes": pool}}
    with pytest.raises(InputError, match=r"workloads\[0\]\.oltp\.buffer_pool_bytes: Input should be greater than or "
                                         r"equal to 5242880 bytes \(InnoDB's innodb_buffer_pool_size is at least 5 MiB\)"):
        parse_scenario({"name": "s", "platform": "asus-rs520a-e12-rs24u", "workloads": [db],
                        "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 2, "engine": "linux-md"}})
    assert WorkloadSpec(name="db", rw="oltp", users=4, oltp={"dataset_bytes": "1g", "buffer_pool_bytes": "5MiB"})
