"""fio's JSON details (nvsim.fio.json_report) and the runtime rule of `nvsim fio` (nvsim.fio.run.job_runtime_s)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim.errors import InputError
from nvsim.fio.json_report import (
    PLAT_NR, fio_json_report, iodepth_json, json_plus_bins, lat_stats, parse_percentile_list, plat_idx_to_val,
    plat_val_to_idx,
)
from nvsim.fio.run import job_runtime_s, population_ladder
from nvsim.specs import WorkloadSpec


def job(**read) -> dict:
    return {"name": "j", "group": 0, "options": {}, "runtime_s": 2.0, "cpu_percent": 10.0,
            "read": {"ios": 2000, "bytes": 2000 * 4096, **read}, "write": {"ios": 0, "bytes": 0}}


@pytest.mark.parametrize("depth, bucket", [(1, "1"), (2, "2"), (3, "2"), (4, "4"), (31, "16"), (32, "32"), (63, "32"), (64, ">=64")])
def test_iodepth_level_is_fios_io_u_map_bucket(depth, bucket):
    level = iodepth_json(depth, 1, 1)["iodepth_level"]
    assert level[bucket] == 100.0 and sum(level.values()) == 100.0


@pytest.mark.parametrize("batch, bucket", [(0, "0"), (1, "4"), (4, "4"), (5, "8"), (16, "16"), (33, "64"), (64, "64"), (65, ">=64")])
def test_iodepth_submit_and_complete_are_fios_batch_buckets(batch, bucket):
    dist = iodepth_json(8, batch, batch)
    assert dist["iodepth_submit"][bucket] == 100.0 and dist["iodepth_complete"][bucket] == 100.0


@given(st.integers(0, 2**45))
@settings(max_examples=300, deadline=None)
def test_a_bucket_holds_its_value_within_fios_error(value):
    """fio's histogram law: a bucket's value is within 1/128 of every value it holds (exact below 128)."""
    index = int(plat_val_to_idx(np.array([value]))[0])
    assert 0 <= index < PLAT_NR
    if value < 2**34:  # from 2^34 ns (17 s) on, fio's last bucket takes everything
        assert abs(plat_idx_to_val(index) - value) <= max(value / 128, 0)


def test_json_plus_bins_count_every_sample_in_increasing_buckets():
    samples = np.array([5, 5, 100, 1000, 1001, 250_000, 10**9])
    bins = json_plus_bins(samples)
    assert sum(bins.values()) == samples.size and list(map(int, bins)) == sorted(map(int, bins))
    assert bins["5"] == 2 and bins["100"] == 1


def test_fluid_mode_fills_the_mean_latency_without_inventing_a_distribution():
    stats = lat_stats(np.zeros(0, dtype=np.int64), percentiles=(50.0,), mean_ns=96_943.5, count=4096)
    assert stats == {"min": 0, "max": 0, "mean": 96_943.5, "stddev": 0.0, "N": 4096}
    report = fio_json_report([job(latencies_ns=None, mean_latency_ns=96_943.5)], timestamp=0)
    read = report["jobs"][0]["read"]
    assert read["lat_ns"]["mean"] == read["clat_ns"]["mean"] == 96_943.5 and "percentile" not in read["clat_ns"]
    assert report["jobs"][0]["latency_us"]["100"] == 100.0  # every I/O in the bucket of the mean (50, 100] us


def test_steady_state_rate_samples_and_group_share():
    report = fio_json_report([job(latencies_ns=np.full(100, 50_000.0)), {**job(), "name": "k"}], timestamp=0)
    read = report["jobs"][0]["read"]
    assert read["bw_min"] == read["bw_max"] == read["bw"] and read["bw_samples"] == 4  # 2 s over fio's 500 ms
    assert read["iops_mean"] == read["iops"] == 1000.0 and read["iops_stddev"] == 0.0
    assert read["bw_agg"] == pytest.approx(50.0)  # half of the group's bandwidth
    assert "global options" not in report and report["disk_util"] == []


def test_json_plus_puts_bins_beside_the_percentiles_only():
    report = fio_json_report([job(latencies_ns=np.arange(1000, 3000))], timestamp=0, json_plus=True, percentiles=(50.0, 99.0))
    read = report["jobs"][0]["read"]
    assert list(read["clat_ns"]["percentile"]) == ["50.000000", "99.000000"]
    assert sum(read["clat_ns"]["bins"].values()) == 2000 and "bins" not in read["lat_ns"]


@pytest.mark.parametrize("text", ["", "a:b", "0", "101", ":".join(["50"] * 21)])
def test_bad_percentile_lists_are_one_line_errors(text):
    with pytest.raises(InputError) as info:
        parse_percentile_list(text)
    assert str(info.value).startswith("percentile_list")


def test_job_runtime_is_the_runtime_or_the_time_size_takes():
    w = WorkloadSpec(name="a", rw="write", bs=1 << 20, numjobs=4, size=1 << 30)
    assert job_runtime_s(w, 4 * (1 << 30), device_bytes=1 << 40) == pytest.approx(1.0)  # 4 clones x 1 GiB at 4 GiB/s
    assert job_runtime_s(w.model_copy(update={"runtime": 0.25}), 4 * (1 << 30), 1 << 40) == 0.25  # runtime stops it first
    assert job_runtime_s(w.model_copy(update={"runtime": 60.0, "time_based": True}), 1.0, 1 << 40) == 60.0
    assert job_runtime_s(w.model_copy(update={"size": None}), 4 * (1 << 40), device_bytes=1 << 40) == pytest.approx(1.0)


def test_the_population_ladder_grows_one_job_or_one_depth_step_at_a_time():
    w = WorkloadSpec(name="a", rw="randread", numjobs=3, iodepth=4)
    ladder = population_ladder(w)
    assert ladder == [(1, 1), (2, 1), (3, 1), (3, 2), (3, 3), (3, 4)]
    populations = [j * d for j, d in ladder]
    assert populations == sorted(populations) and ladder[-1] == (w.numjobs, w.iodepth)


def test_a_description_is_written_as_fios_desc():
    assert fio_json_report([{**job(), "description": "4k random reads"}], timestamp=0)["jobs"][0]["desc"] == "4k random reads"
    assert "desc" not in fio_json_report([job()], timestamp=0)["jobs"][0]
