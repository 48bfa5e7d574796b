"""fio's JSON out (nvsim.fio.json_report, nvsim.fio.fio_json_report): the keys and units fio's tools
read, directions without I/O, fio's iodepth buckets, json+ bins, the fluid mode's mean without a
distribution, the steady-state rate samples, percentile lists and descriptions."""

import json

import numpy as np
import pytest

from nvsim.errors import InputError
from nvsim.fio.json_report import (
    fio_json_report, iodepth_json, json_plus_bins, lat_stats, parse_percentile_list,
)


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


def test_a_description_is_written_as_fios_desc():
    assert fio_json_report([{**job(), "description": "4k random reads"}], timestamp=0)["jobs"][0]["desc"] == "4k random reads"
    assert "desc" not in fio_json_report([job()], timestamp=0)["jobs"][0]


# ---------------------------------------------------------------- a whole report

FIO_KEYS = ["1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000", "50.000000", "60.000000",
            "70.000000", "80.000000", "90.000000", "95.000000", "99.000000", "99.500000", "99.900000", "99.950000",
            "99.990000"]


def _result(**changes):
    rng = np.random.default_rng(7)
    result = {
        "name": "randrw73-b16k-j192-d16", "group": 3, "options": {"rw": "randrw", "rwmixread": "70", "bs": "16k"},
        "runtime_s": 2.0,
        "read": {"ios": 7000, "bytes": 7000 * 16384, "latencies_ns": rng.lognormal(11, 0.5, 7000)},
        "write": {"ios": 3000, "bytes": 3000 * 16384, "latencies_ns": rng.lognormal(12, 0.5, 3000)},
        "cpu_percent": 22.09,
    }
    result.update(changes)
    return result


def test_json_report_has_the_keys_fio_tools_read():
    report = fio_json_report([_result()], timestamp=1_700_000_000, global_options={"ioengine": "libaio"})
    assert list(report)[:6] == ["fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs"]
    assert report["fio version"] == "nvsim" and report["time"] == "Tue Nov 14 22:13:20 2023"
    job = report["jobs"][0]
    assert (job["jobname"], job["groupid"], job["error"], job["job options"]["rwmixread"]) == ("randrw73-b16k-j192-d16", 3, 0, "70")
    read = job["read"]
    assert read["iops"] == 3500.0 and read["total_ios"] == 7000 and read["runtime"] == 2000
    assert read["io_bytes"] == 7000 * 16384 and read["io_kbytes"] == 7000 * 16
    assert read["bw_bytes"] == 7000 * 16384 // 2 and read["bw"] == read["bw_bytes"] // 1024  # bw is KiB/s, as fio
    assert job["write"]["iops"] == 1500.0
    percentiles = read["clat_ns"]["percentile"]
    assert list(percentiles) == FIO_KEYS and all(isinstance(v, int) for v in percentiles.values())
    assert percentiles["99.000000"] > percentiles["50.000000"]
    values = list(percentiles.values())
    assert values == sorted(values)
    # fio prints a bucket's middle: within 1/128 of the samples' range (FIO_IO_U_PLAT_BITS = 6)
    assert read["clat_ns"]["N"] == 7000 and read["clat_ns"]["min"] * (1 - 1 / 128) <= values[0] <= values[-1] <= read["clat_ns"]["max"] * (1 + 1 / 128)
    assert read["lat_ns"]["mean"] == read["clat_ns"]["mean"] and "percentile" not in read["lat_ns"]  # fio's defaults
    assert read["slat_ns"] == {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    assert job["sys_cpu"] == 22.09 and job["usr_cpu"] == 0.0 and (job["ctx"], job["majf"], job["minf"]) == (0, 0, 0)
    assert sum(job["latency_us"].values()) + sum(job["latency_ms"].values()) + sum(job["latency_ns"].values()) == pytest.approx(100.0)
    assert json.loads(json.dumps(report)) == report  # plain JSON types only


def test_json_directions_without_io_are_zeros_as_fio_writes_them():
    result = _result(read={"ios": 10, "bytes": 40960, "latencies_ns": np.array([100_000.0] * 10)},
                     write={"ios": 0, "bytes": 0, "latencies_ns": None})
    job = fio_json_report([result], timestamp=0)["jobs"][0]
    for ddir in ("write", "trim"):
        d = job[ddir]
        assert (d["io_bytes"], d["bw_bytes"], d["bw"], d["iops"], d["runtime"], d["total_ios"]) == (0, 0, 0, 0.0, 0, 0)
        assert d["clat_ns"] == {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}  # no percentile without samples
    assert job["sync"]["total_ios"] == 0
    assert job["latency_us"]["250"] == 100.0  # 100 us falls in fio's (100, 250] us bucket


def test_lat_percentiles_option_adds_them_to_lat_ns():
    job = fio_json_report([_result()], timestamp=0, lat_percentiles=True)["jobs"][0]
    assert job["read"]["lat_ns"]["percentile"] == job["read"]["clat_ns"]["percentile"]


def test_json_report_rejects_incomplete_results():
    result = _result()
    del result["runtime_s"]
    with pytest.raises(InputError, match=r"jobs_results\[0\].runtime_s: required key is missing"):
        fio_json_report([result], timestamp=0)
    with pytest.raises(InputError, match="latencies_ns"):
        fio_json_report([_result(read={"ios": 1, "bytes": 4096, "latencies_ns": np.array([[1.0]])})], timestamp=0)


def test_fluid_percentiles_are_the_modelled_ones_in_fios_keys():
    """Without samples the fluid mode's modelled distribution fills fio's percentile table (whole ns)."""
    from nvsim.fio.json_report import lat_stats
    out = lat_stats(np.zeros(0, dtype=np.int64), percentiles=(50.0, 99.0), mean_ns=1000.0, count=10,
                    modelled=lambda p: 100.0 * p)
    assert out["percentile"] == {"50.000000": 5000, "99.000000": 9900} and out["mean"] == 1000.0
    assert "percentile" not in lat_stats(np.zeros(0, dtype=np.int64), percentiles=(50.0,), mean_ns=1000.0, count=10)


def test_bare_flags_are_not_listed_among_the_options_as_fio_3_33_leaves_them_out():
    report = fio_json_report([{**job(), "options": {"rw": "randread", "time_based": "", "stonewall": ""}}], timestamp=0,
                             global_options={"group_reporting": "", "ioengine": "libaio"})
    assert report["jobs"][0]["job options"] == {"rw": "randread"}
    assert report["global options"] == {"ioengine": "libaio"}
    assert "global options" not in fio_json_report([job()], timestamp=0, global_options={"group_reporting": ""})


def test_nvsim_fio_names_fios_version_and_itself():
    """The JSON said "fio version": "nvsim", where --version prints fio-3.42 (nvsim ...): a parser of
    fio's version found none. It is fio's version, marked as nvsim's."""
    from nvsim.fio import FIO_VERSION, parse_fio_jobfile
    from nvsim.fio.run import fio_report, simulate_jobs
    from nvsim.catalog import default_catalog
    from nvsim.scenario import load_scenario

    catalog = default_catalog()
    parsed = parse_fio_jobfile("[a]\nrw=randread\nioengine=libaio\ndirect=1\nruntime=1\ntime_based\n", "j.fio", catalog=catalog)
    spec = load_scenario("scenarios/graid-gen5-raid6", catalog)
    report = fio_report(parsed, simulate_jobs(parsed, spec, catalog, "fluid"), catalog, timestamp=0)
    assert report["fio version"] == f"fio-{FIO_VERSION}-nvsim" and "time_based" not in report["jobs"][0]["job options"]


def test_the_fluid_modes_buckets_are_those_of_its_modelled_percentiles():
    """Without samples the buckets put every I/O in the mean's bucket, beside modelled percentiles
    that spread them: a p50 of 491 us with 100% of the I/Os in 500-750 us."""
    modelled = lambda percent: 1000.0 * (100.0 + 10.0 * percent)  # noqa: E731 - 100 us at p0 to 1,100 us at p100
    report = fio_json_report([job(latencies_ns=None, mean_latency_ns=600_000.0, modelled_percentile_ns=modelled)], timestamp=0)
    entry = report["jobs"][0]
    buckets = {**{f"us{k}": v for k, v in entry["latency_us"].items()}, **{f"ms{k}": v for k, v in entry["latency_ms"].items()}}
    assert sum(buckets.values()) == pytest.approx(100.0, abs=0.2)
    assert buckets["us250"] == pytest.approx(15.0, abs=0.2) and buckets["us500"] == pytest.approx(25.0, abs=0.2)
    assert buckets["us750"] == pytest.approx(25.0, abs=0.2) and buckets["us1000"] == pytest.approx(25.0, abs=0.2)
    assert buckets["ms2"] == pytest.approx(10.0, abs=0.2)  # 1,000-1,100 us


def test_iodepth_batch_is_echoed_by_fios_name_whichever_was_written():
    """fio 3.33 echoes iodepth_batch=4 and iodepth_batch_submit=2 (its alias) as "iodepth_batch" in
    "job options" and "global options"; nvsim echoed its own name, iodepth_batch_submit."""
    from nvsim.fio import parse_fio_jobfile
    parsed = parse_fio_jobfile("[global]\niodepth_batch_submit=2\n[a]\nioengine=libaio\niodepth=8\niodepth_batch=4\n"
                               "iodepth_batch_complete=1\n")
    report = fio_json_report([{**job(), "options": parsed.jobs[0].job_options}], timestamp=0,
                             global_options=parsed.global_options)
    assert report["global options"] == {"iodepth_batch": "2"}
    assert report["jobs"][0]["job options"] == {"ioengine": "libaio", "iodepth": "8", "iodepth_batch": "4",
                                                "iodepth_batch_complete_min": "1"}


def test_job_options_is_written_only_for_a_section_that_gave_options_as_fio():
    """fio 3.33 (null engine): [a] with no line of its own has no "job options" key, [b] with only
    stonewall has "job options": {}; nvsim wrote {} for both."""
    from nvsim.fio import parse_fio_jobfile
    parsed = parse_fio_jobfile("[global]\nioengine=libaio\n[a]\n[b]\nstonewall\n[c]\nrw=read\n")
    report = fio_json_report([{**job(), "options": j.job_options} for j in parsed.jobs], timestamp=0)
    assert [j.get("job options") for j in report["jobs"]] == [None, {}, {"rw": "read"}]
