"""`nvsim fio`'s output read by the tools that read fio's: real fio's key set, fio's own
fio_jsonplus_clat2csv, PerfKitBenchmarker's fio result parser (the keys it reads), fio-plot.

tests/data/fio/real/ holds a small file-backed job and Debian fio 3.33's json+ output of it;
tests/data/fio/tools/ holds fio's scripts (tests/data/fio/upstream/README.md names the commit).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

import nvsim
from nvsim.fio import parse_fio_jobfile
from nvsim.fio.json_report import json_plus_bins, percentile_table
from nvsim.fio.run import fio_report, simulate_jobs

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "fio"
REAL_JOB = DATA / "real" / "psync-file.fio"
REAL_JSON = DATA / "real" / "psync-file.fio-3.33.json"
SYSTEM = "scenarios/graid-gen5-raid6"


def nvsim_fio(cli, *args: str) -> dict:
    done = cli("fio", *args, "--system", SYSTEM)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def key_tree(value, depth: int = 0) -> object:
    """The keys of a fio report, nested; percentile and bin keys (numbers) and list items collapsed."""
    if isinstance(value, dict):
        if value and all(k.replace(".", "").replace(">=", "").isdigit() for k in value) and depth > 2:
            return "numbers"
        return {k: key_tree(v, depth + 1) for k, v in value.items() if k not in ("job options", "global options")}
    if isinstance(value, list):
        return [key_tree(value[0], depth + 1)] if value else []
    return None


def without_nvsim(tree: dict) -> dict:
    tree = json.loads(json.dumps(tree))
    for job in tree["jobs"]:
        job.pop("nvsim")
    return tree


@pytest.fixture(scope="module")
def nvsim_plus(tmp_path_factory):
    done = run_cli("fio", str(REAL_JOB), "--system", SYSTEM, "--output-format=json+")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_same_key_set_as_real_fio_json_plus(nvsim_plus):
    """Every key of fio 3.33's json+ report, at every level, and no other (bar each job's `nvsim`)."""
    real = json.loads(REAL_JSON.read_text())
    assert without_nvsim(key_tree(nvsim_plus)) == key_tree(real)
    assert set(nvsim_plus["global options"]) == set(real["global options"])
    assert nvsim_plus["jobs"][0]["job options"] == real["jobs"][0]["job options"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make system-packages installs Debian's fio)")
def test_same_key_set_as_fio_run_now(tmp_path, cli):
    """Run the installed fio on the file-backed job and compare the key sets of its JSON and nvsim's."""
    job = tmp_path / "job.fio"
    job.write_text(REAL_JOB.read_text().replace("/tmp/nvsim-fio-keyset.dat", str(tmp_path / "data")))
    done = subprocess.run(["fio", "--output-format=json", str(job)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    real = json.loads(done.stdout[done.stdout.index("{"):])
    ours = nvsim_fio(cli, str(job))
    assert without_nvsim(key_tree(ours)) == key_tree(real)


def test_percentiles_are_the_ones_real_fio_prints_for_the_same_latencies():
    """fio's json+ bins give back fio's own percentiles and bins through nvsim's histogram."""
    clat = json.loads(REAL_JSON.read_text())["jobs"][0]["read"]["clat_ns"]
    samples = np.concatenate([np.full(count, int(value)) for value, count in clat["bins"].items()])
    assert json_plus_bins(samples) == clat["bins"]
    assert percentile_table(samples) == clat["percentile"]


def test_fio_jsonplus_clat2csv_reads_nvsim_json_plus(nvsim_plus, tmp_path):
    """fio's own tools/fio_jsonplus_clat2csv writes a CSV with every bin, and validates it."""
    source = tmp_path / "nvsim.json"
    source.write_text(json.dumps(nvsim_plus))
    shim = tmp_path / "shim"  # the script imports six (Python 2 compatibility) for iteritems only
    shim.mkdir()
    (shim / "six.py").write_text("def iteritems(d):\n    return iter(d.items())\n")
    env = dict(os.environ, PYTHONPATH=str(shim))
    script = DATA / "tools" / "fio_jsonplus_clat2csv"
    for extra in ([], ["--validate"]):
        done = subprocess.run([sys.executable, str(script), str(source), str(tmp_path / "out.csv"), *extra],
                              capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    rows = (tmp_path / "out_job0.csv").read_text().strip().splitlines()
    bins = nvsim_plus["jobs"][0]["read"]["clat_ns"]["bins"]
    assert len(rows) == 1 + len(bins) and len(bins) > 5
    counts = [int(row.split(",")[4]) for row in rows[1:]]  # read_clat_ns_count
    assert sum(counts) == nvsim_plus["jobs"][0]["read"]["clat_ns"]["N"]


def pkb_samples(report: dict) -> list[tuple[str, float]]:
    """The keys PerfKitBenchmarker's fio.ParseResults reads (perfkitbenchmarker/linux_packages/fio.py),
    in its order: bw_min, bw_max, bw_dev, bw_agg, bw_mean, bw, clat_ns min/max/mean/stddev and
    every percentile key, iops; and the fixed percentile keys of its fio-2 era parser."""
    samples = []
    for job in report["jobs"]:
        for mode in ("read", "write", "trim"):
            data = job[mode]
            if not data["io_bytes"]:
                continue
            for key in ("bw_min", "bw_max", "bw_dev", "bw_agg", "bw_mean", "bw", "iops"):
                samples.append((f"{job['jobname']}:{mode}:{key}", float(data[key])))
            lat = data["clat_ns"]
            for key in ("min", "max", "mean", "stddev"):
                samples.append((f"{job['jobname']}:{mode}:latency:{key}", lat[key] / 1000))
            for key, value in lat["percentile"].items():
                samples.append((f"{job['jobname']}:{mode}:latency:p{float(key):g}", value / 1000))
            for key in ("1.000000", "50.000000", "99.000000", "99.990000"):
                samples.append((f"{job['jobname']}:{mode}:fixed:p{key}", lat["percentile"][key] / 1000))
    return samples


def test_perfkitbenchmarker_parser_reads_the_fluid_modes_modelled_percentiles(cli, tmp_path):
    """Fluid JSON carries clat_ns.percentile from the fluid latency model (floor plus an exponential
    wait with the solved mean), so PerfKitBenchmarker's parser reads it as it reads the event mode's:
    one psync job never queues (every percentile its latency); 32 in flight do."""
    alone = dict(pkb_samples(nvsim_fio(cli, str(REAL_JOB), "--fidelity", "fluid")))
    assert alone["randread:read:latency:p99"] == alone["randread:read:latency:p50"] == pytest.approx(alone["randread:read:latency:mean"], abs=1e-3)
    job = tmp_path / "queued.fio"
    job.write_text(REAL_JOB.read_text().replace("ioengine=psync", "ioengine=libaio\niodepth=32\nnumjobs=8"))
    queued = dict(pkb_samples(nvsim_fio(cli, str(job), "--fidelity", "fluid")))
    assert queued["randread:read:latency:p99"] > queued["randread:read:latency:mean"] > queued["randread:read:latency:p1"] > 0


def test_perfkitbenchmarker_parser_keys_and_percentile_list(cli, tmp_path):
    report = nvsim_fio(cli, str(REAL_JOB), "--fidelity", "event")
    samples = dict(pkb_samples(report))
    assert samples["randread:read:bw"] > 0 and samples["randread:read:bw_min"] == samples["randread:read:bw_max"]
    assert samples["randread:read:latency:p99"] >= samples["randread:read:latency:p50"] > 0
    job = tmp_path / "job.fio"  # percentile_list is honoured: those keys and no others
    job.write_text(REAL_JOB.read_text() + "percentile_list=50:99.9\n")
    listed = nvsim_fio(cli, str(job))
    assert list(listed["jobs"][0]["read"]["clat_ns"]["percentile"]) == ["50.000000", "99.900000"]


def test_fio_plot_reads_nvsim_json(cli, tmp_path):
    jsonparsing = pytest.importorskip("fio_plot.fiolib.jsonparsing", reason="fio-plot is not installed (pip install -e '.[test]')")
    job = tmp_path / "job.fio"
    job.write_text("[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=16\nnumjobs=2\ngroup_reporting\n"
                   "size=64m\n[randread]\nrw=randread\n")
    report = nvsim_fio(cli, str(job), "--fidelity", "fluid")
    settings = {"rw": "randread", "filter": ("read", "write"), "compare_graph": False, "include_hosts": None,
                "exclude_hosts": None}
    dataset = [{"directory": str(tmp_path), "rawdata": [report]}]
    jsonparsing.parse_json_data(settings, dataset)  # fills dataset[i]["data"]
    data = dataset[0]["data"]
    assert len(data) == 1 and data[0]["iops"] == pytest.approx(report["jobs"][0]["read"]["iops"])
    assert data[0]["lat"] == report["jobs"][0]["read"]["lat_ns"]["mean"] > 0  # the fluid mode fills the mean
    assert data[0]["iops_stddev"] == 0.0 and data[0]["iodepth"] == "16" and data[0]["numjobs"] == "2"


# ---------------------------------------------------------------- log files


def test_log_files_in_fios_formats_read_by_fios_log_parser(tmp_path):
    done = run_cli("fio", "--system", str(ROOT / SYSTEM), "--fidelity", "event", "--name=j", "--rw=randread", "--bs=4k",
                   "--ioengine=libaio", "--iodepth=8", "--direct=1", "--numjobs=2", "--time_based", "--runtime=2",
                   "--write_bw_log=j", "--write_lat_log=j", "--write_iops_log=j", "--log_avg_msec=200",
                   "--write_hist_log=j", "--log_hist_msec=500", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    names = {p.name for p in tmp_path.iterdir()}
    for index in (1, 2):  # one set per numjobs clone, numbered as fio numbers jobs
        assert {f"j_{kind}.{index}.log" for kind in ("bw", "iops", "lat", "clat", "slat", "clat_hist")} <= names
    bw_lines = (tmp_path / "j_bw.1.log").read_text().splitlines()
    rows = [[int(x) for x in line.split(", ")] for line in bw_lines]
    assert [r[0] for r in rows] == list(range(200, 2001, 200))  # time (ms) every log_avg_msec
    assert all(len(r) == 5 and r[2:] == [0, 0, 0] for r in rows)  # direction read, windowed: bs and offset 0
    assert {r[1] for r in rows} == {report["jobs"][0]["read"]["bw"]}  # KiB/s, the steady state in every window
    lat = [int(line.split(", ")[1]) for line in (tmp_path / "j_lat.1.log").read_text().splitlines()]
    assert set(lat) == {round(report["jobs"][0]["read"]["lat_ns"]["mean"])}
    parser = subprocess.run([sys.executable, str(DATA / "tools" / "fiologparser.py"), str(tmp_path / "j_iops.1.log")],
                            capture_output=True, text=True, timeout=60)
    assert parser.returncode == 0, parser.stderr
    assert float(parser.stdout) == pytest.approx(report["jobs"][0]["read"]["iops"], rel=1e-5)
    hist = [[int(x) for x in line.split(", ")] for line in (tmp_path / "j_clat_hist.1.log").read_text().splitlines()]
    assert [h[0] for h in hist] == [500, 1000, 1500, 2000] and all(len(h) == 3 + 1856 for h in hist)  # as fio 3.33
    assert sum(sum(h[3:]) for h in hist) == pytest.approx(report["jobs"][0]["read"]["total_ios"], rel=1e-3)


def test_per_job_logs_off_and_bare_option_name_the_file_after_the_job(tmp_path):
    done = run_cli("fio", "--system", str(ROOT / SYSTEM), "--fidelity", "fluid", "--name=seq", "--rw=read", "--bs=128k",
                   "--direct=1", "--size=64m", "--write_bw_log", "--per_job_logs=0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "log_avg_msec is not set" in done.stderr and "no ioengine given for seq: fio's default psync" in done.stderr
    assert (tmp_path / "seq_bw.log").exists()


# ---------------------------------------------------------------- fio's job entries and runtime


@pytest.fixture(scope="module")
def system(catalog):
    return nvsim.load_scenario(ROOT / SYSTEM, catalog)


def fluid_report(text: str, system, catalog) -> dict:
    parsed = parse_fio_jobfile(text, "job.fio", catalog=catalog)
    return fio_report(parsed, simulate_jobs(parsed, system, catalog, "fluid"), catalog, timestamp=0)


JOBS = ("[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=16\nsize=256m\n{extra}"
        "[a]\nrw=randread\nnumjobs=3\n[b]\nrw=randwrite\n[c]\nrw=read\nbs=128k\nstonewall\n")


def test_job_entries_are_fios_with_and_without_group_reporting(system, catalog):
    apart = fluid_report(JOBS.format(extra=""), system, catalog)
    assert [j["jobname"] for j in apart["jobs"]] == ["a", "a", "a", "b", "c"]  # one entry per numjobs clone, as fio
    together = fluid_report(JOBS.format(extra="group_reporting\n"), system, catalog)
    assert [(j["jobname"], j["groupid"]) for j in together["jobs"]] == [("a", 0), ("c", 1)]  # one per group
    group = together["jobs"][0]
    assert group["read"]["total_ios"] == sum(j["read"]["total_ios"] for j in apart["jobs"][:3])
    assert group["write"]["total_ios"] == apart["jobs"][3]["write"]["total_ios"]
    assert group["nvsim"]["jobs_in_group"] == 2 and group["nvsim"]["numjobs_in_entry"] == 4


def test_group_reporting_is_each_jobs_own_option_as_in_fio(system, catalog):
    """fio 3.33 on this file (ioengine=null): a (its 3 clones summed), b, c; group_reporting in [a]
    does not sum b, which has none, into a's entry (nvsim took it from any job for all of them)."""
    text = JOBS.replace("numjobs=3\n", "numjobs=3\ngroup_reporting\n").format(extra="")
    jobs = fluid_report(text, system, catalog)["jobs"]
    assert [(j["jobname"], j["groupid"]) for j in jobs] == [("a", 0), ("b", 0), ("c", 1)]
    assert jobs[0]["nvsim"]["numjobs_in_entry"] == 3 and jobs[0]["write"]["total_ios"] == 0
    assert jobs[1]["read"]["total_ios"] == 0 and jobs[1]["write"]["total_ios"] > 0


def test_elapsed_is_the_whole_runs_seconds_rounded_up_for_every_job_as_fio(system, catalog):
    """fio's elapsed is (ms since fio started + 999) / 1000, written when all jobs are done: 2.5 s
    (2 s and a 500 ms ramp) then a stonewalled 1 s job are 4 for both (nvsim wrote each job's own
    rounded: 2 and 1); a job of 0.3 s is 1, not 0."""
    text = ("[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\ntime_based\n"
            "[a]\nruntime=2\nramp_time=500ms\n[b]\nstonewall\nruntime=1\n")
    assert [j["elapsed"] for j in fluid_report(text, system, catalog)["jobs"]] == [4, 4]
    short = "[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\ntime_based\nruntime=300ms\n"
    assert fluid_report(short, system, catalog)["jobs"][0]["elapsed"] == 1


def test_percentile_options_are_each_jobs_own_as_in_fio(system, catalog):
    """fio 3.33 (ioengine=null) on [a] percentile_list=50:99.5, [b] lat_percentiles=1 clat_percentiles=0,
    [c]: a's clat_ns has 50 and 99.5, b's lat_ns has fio's 17 and clat_ns none, c's clat_ns the 17;
    nvsim gave every job the first job's."""
    text = ("[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=64m\n"
            "[a]\npercentile_list=50:99.5\n[b]\nlat_percentiles=1\nclat_percentiles=0\n[c]\n")
    a, b, c = (j["read"] for j in fluid_report(text, system, catalog)["jobs"])
    assert list(a["clat_ns"]["percentile"]) == ["50.000000", "99.500000"] and "percentile" not in a["lat_ns"]
    assert "percentile" not in b["clat_ns"] and len(b["lat_ns"]["percentile"]) == 17
    assert len(c["clat_ns"]["percentile"]) == 17 and "percentile" not in c["lat_ns"]


def test_runtime_and_io_are_the_jobs_and_the_simulated_window_is_stated(system, catalog):
    report = fluid_report(JOBS.format(extra=""), system, catalog)
    clone = report["jobs"][0]["read"]
    assert clone["io_bytes"] == pytest.approx(256 * 2**20, rel=1e-6)  # each clone moves its size, as fio
    assert clone["runtime"] == pytest.approx(1000 * clone["io_bytes"] / clone["bw_bytes"], abs=1)
    assert report["jobs"][0]["nvsim"]["fidelity"] == "fluid" and report["jobs"][0]["nvsim"]["simulated_window_s"] == 0.0
    assert clone["lat_ns"]["mean"] > 0 and clone["lat_ns"]["N"] == clone["total_ios"]


def test_command_line_jobs_and_decimal_sizes(cli):
    report = nvsim_fio(cli, "--fidelity", "fluid", "--direct=1", "--name=a", "--rw=randread", "--bs=4k",
                       "--ioengine=io_uring", "--iodepth=32", "--size=16777216.0")
    read = report["jobs"][0]["read"]
    assert report["jobs"][0]["jobname"] == "a" and read["io_bytes"] == 16777216 and read["iops"] > 0
    assert report["global options"] == {"direct": "1"}
    assert list(report["jobs"][0]["job options"]) == ["name", "rw", "bs", "ioengine", "iodepth", "size"]  # as fio's


def test_refusals_from_the_command_line_are_one_line_with_exit_status_2(cli):
    done = cli("fio", "--system", SYSTEM, "--name=a", "--rw=randread", "--bssplit=4k/70:64k/70")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bssplit: the percentages must add up" in done.stderr
    done = cli("fio", "--system", SYSTEM, "--name=a", "--rw=randread", "--zonemode=zbd")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "zonemode: cannot be simulated" in done.stderr
    done = cli("fio", "--system", SYSTEM, "--name=a", "--ioengine=null")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "'null' cannot be simulated" in done.stderr
    assert cli("fio", "--system", SYSTEM).returncode == 2  # neither a job file nor --name


@pytest.mark.parametrize("system, words", [
    ("no/such/scenario.yaml", "--system: no such file or directory: no/such/scenario.yaml"),
    ("docs", "--system: directory docs has no scenario.yaml"),
    (f"{SYSTEM}/published.yaml", "--system: " + SYSTEM + "/published.yaml is a published-numbers file"),
])
def test_a_system_that_is_no_scenario_is_refused_naming_the_option_typed(cli, system, words):
    for given in (["--system", system], [f"--system={system}"]):
        done = cli("fio", *given, "--name=a", "--rw=randread")
        assert done.returncode == 2 and done.stderr.startswith(f"error: {words}") and done.stderr.count("\n") == 1
        assert "SCENARIO" not in done.stderr and "Traceback" not in done.stderr and done.stdout == ""


def test_a_job_files_errors_keep_its_line_numbers_beside_command_line_options(cli, tmp_path):
    job = tmp_path / "job.fio"
    job.write_text("[a]\nrw=randread\nbs=4k\nnumjobs=banana\n")
    done = cli("fio", str(job), "--system", SYSTEM, "--direct=1", "--runtime=10")
    assert done.returncode == 2 and done.stderr == f"error: {job} line 4: numjobs: cannot read 'banana' as a number " \
                                                   f"with an optional unit (k, m, g, t, p)\n"
    done = cli("fio", "--system", SYSTEM, "--name=a", "--rw=randread", "--write_bw_log=/no/such/folder/x")
    assert done.returncode == 2 and done.stderr.startswith("error: command line --write_bw_log=/no/such/folder/x: write_bw_log:")


def test_a_single_drive_reports_littles_law_mean_latency(catalog):
    """The single-drive model gives no latency: the mean is the closed loop's I/Os in flight over its IOPS."""
    drive = nvsim.load_scenario(ROOT / "scenarios" / "kioxia-cm7-namespace", catalog)
    report = fluid_report("[a]\nrw=randwrite\nbs=4k\niodepth=16\nnumjobs=2\nioengine=libaio\ndirect=1\nsize=1g\ngroup_reporting\n",
                          drive, catalog)
    write = report["jobs"][0]["write"]
    assert write["lat_ns"]["mean"] == pytest.approx(2 * 16 / write["iops"] * 1e9, rel=1e-9)


# ---------------------------------------------------------------- rate limits


RATED = ("[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=16\nnumjobs=4\ntime_based\nruntime=10\n"
         "group_reporting\n[a]\nrw=randread\nrate_iops={rate}\n")


def test_a_rate_limited_sweep_never_exceeds_the_cap_and_draws_latency_against_load(system, catalog):
    full = fluid_report(RATED.format(rate=0), system, catalog)["jobs"][0]["read"]
    points = []
    for rate in (1_000, 20_000, 100_000, 250_000, 10**7):
        job = fluid_report(RATED.format(rate=rate), system, catalog)["jobs"][0]
        read = job["read"]
        assert job["nvsim"]["rate_cap_iops"] == 4 * rate
        assert read["iops"] == pytest.approx(min(4 * rate, full["iops"]), rel=1e-9)  # the cap, or what the loop allows
        assert read["total_ios"] == pytest.approx(read["iops"] * 10, rel=1e-6)
        points.append((read["iops"], read["lat_ns"]["mean"]))
    latencies = [lat for _, lat in points]
    assert latencies == sorted(latencies) and latencies[-1] > latencies[0]  # the knee of the closed loop at the top


MIXED = "[a]\nioengine=psync\ndirect=1\nsize=16m\nrw=randrw\nrwmixread=60\nbs=4k\nruntime=3\ntime_based\n{caps}\n"


@pytest.mark.parametrize("caps, reads, writes", [("rate_iops=1000", 1000.0, 1000.0), ("rate_iops=1000,200", 1000.0, 200.0),
                                                 ("rate_iops=600,400", 600.0, 400.0)])
def test_a_mix_runs_each_direction_at_its_own_cap_as_fio_does(system, catalog, caps, reads, writes):
    """fio 3.33 on this job (psync, QD1): rate_iops=1000 -> 999.7 reads and 1000.0 writes a second;
    rate_iops=1000,200 -> 1000.0 and 199.9. nvsim ran one cap over the mix: 1,000 and 667; 300 and 200."""
    job = fluid_report(MIXED.format(caps=caps), system, catalog)["jobs"][0]
    assert (job["read"]["iops"], job["write"]["iops"]) == (pytest.approx(reads), pytest.approx(writes))


def test_a_cap_on_one_direction_leaves_the_other_the_rest_of_the_depth(system, catalog):
    """rate_iops=,200: fio 3.33 ran 200 writes and 20,874 reads a second (on a file), the reads as fast
    as the job's depth lets them; nvsim ran 300 reads, the mix's share of a cap over it."""
    job = fluid_report(MIXED.format(caps="rate_iops=,200"), system, catalog)["jobs"][0]
    alone = fluid_report(MIXED.format(caps="").replace("rw=randrw", "rw=randread"), system, catalog)["jobs"][0]
    assert job["write"]["iops"] == pytest.approx(200.0)
    assert 0.9 * alone["read"]["iops"] < job["read"]["iops"] < alone["read"]["iops"]  # the writes slow the reads a little


def test_event_mode_latency_grows_with_the_rate(cli):
    means = []
    for rate in (20_000, 250_000):
        report = nvsim_fio(cli, "--name=a", "--rw=randread", "--bs=4k", "--iodepth=16", "--numjobs=4", "--ioengine=libaio",
                           "--direct=1", "--time_based", "--runtime=10", "--group_reporting", f"--rate_iops={rate}")
        read = report["jobs"][0]["read"]
        assert read["iops"] == pytest.approx(4 * rate, rel=1e-9)
        means.append((read["lat_ns"]["mean"], read["clat_ns"]["percentile"]["99.000000"]))
    assert means[1][0] > means[0][0] and means[1][1] >= means[0][1]


def test_a_job_below_its_rate_min_gets_a_note_as_fio_would_stop_it(cli):
    done = cli("fio", "--system", SYSTEM, "--fidelity", "fluid", "--name=a", "--rw=randread", "--bs=4k", "--ioengine=psync",
               "--direct=1", "--size=64m", "--rate_iops_min=10000000")
    assert done.returncode == 0, done.stderr
    assert "is below its rate_min (10,000,000 IOPS): fio would stop the job with an error" in done.stderr


def test_jobs_with_one_workload_run_together_on_one_array(system, catalog):
    """Two identical jobs in one phase are one closed loop of all their clones on the array: where the
    array binds (the engine card's bandwidth here), each gets half of what it gets alone."""
    base = "[global]\nioengine=libaio\ndirect=1\nbs=128k\niodepth=32\nrw=read\nsize=1g\n"
    pair = fluid_report(base + "[a]\nnumjobs=16\n[b]\nnumjobs=16\n", system, catalog)
    alone = fluid_report(base + "[a]\nnumjobs=16\n", system, catalog)
    both = fluid_report(base + "[ab]\nnumjobs=32\n", system, catalog)

    def total(report, name=None):
        return sum(job["read"]["iops"] for job in report["jobs"] if name in (None, job["jobname"]))
    assert len(pair["jobs"]) == 32 and total(pair) == pytest.approx(total(both), rel=1e-9)
    assert total(pair, "a") == pytest.approx(total(pair, "b"), rel=1e-9)
    assert total(pair, "a") == pytest.approx(total(alone) / 2, rel=1e-6)  # sharing the card's bandwidth
    assert "bandwidth limit" in pair["jobs"][0]["nvsim"]["limited_by"]


def test_disk_util_is_the_busiest_drives_share_of_the_wall_time(system, catalog):
    base = "[global]\nioengine=libaio\ndirect=1\nbs=128k\niodepth=32\nrw=read\nsize=1g\n"
    one = fluid_report(base + "[ab]\nnumjobs=32\n", system, catalog)["disk_util"][0]
    pair = fluid_report(base + "[a]\nnumjobs=16\n[b]\nnumjobs=16\n", system, catalog)["disk_util"][0]
    assert 0 < one["util"] <= 100 and pair["util"] == pytest.approx(one["util"], rel=1e-6)  # together: one wall time
    assert pair["read_ios"] == pytest.approx(one["read_ios"], abs=2)



@pytest.mark.parametrize("think_us", [1, 100, 2000, 10**6])
def test_think_time_obeys_littles_law_of_the_interactive_system(system, catalog, think_us):
    """numjobs clones, each thinking Z after every I/O: IOPS x (latency + Z) = numjobs, at depth 1."""
    job = fluid_report("[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nnumjobs=8\ntime_based\nruntime=10\n"
                       f"group_reporting\nthinktime={think_us}\n", system, catalog)["jobs"][0]
    read = job["read"]
    assert read["iops"] * (read["lat_ns"]["mean"] * 1e-9 + think_us * 1e-6) == pytest.approx(8, rel=1e-4)
    assert job["nvsim"]["closed_loop"]["iodepth"] == 1 and job["iodepth_level"]["1"] == 100.0


def test_latency_target_finds_the_highest_depth_that_meets_it(system, catalog):
    """fio's latency_target: the highest iodepth whose latency (the fluid mode: the mean) is at most
    the target; one more step of depth misses it. The JSON carries fio's latency_* keys."""
    base = "[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nnumjobs=4\ntime_based\nruntime=10\ngroup_reporting\n"
    # 4 jobs queue from about depth 14 on this array (below it every depth has the unloaded latency)
    means = {d: fluid_report(base + f"iodepth={d}\n", system, catalog)["jobs"][0]["read"]["lat_ns"]["mean"] for d in (24, 25)}
    target_ns = (means[24] + means[25]) / 2
    assert means[24] < target_ns < means[25]
    job = fluid_report(base + f"iodepth=64\nlatency_target={round(target_ns / 1000)}us\nlatency_percentile=99\nlatency_window=5s\n",
                       system, catalog)["jobs"][0]
    assert job["latency_depth"] == 24 and job["nvsim"]["closed_loop"]["iodepth"] == 24
    assert (job["latency_target"], job["latency_percentile"], job["latency_window"]) == (round(target_ns / 1000) * 1000, 99.0, 5_000_000)


def test_a_share_size_cut_at_the_arrays_end_is_warned_not_silent(cli):
    """offset=50% size=80%: fio cuts the region at the array's end without a word; nvsim does the
    same and says so on stderr (one warning line naming the job and the bytes), fio's JSON unchanged."""
    args = ("fio", "--system", "scenarios/graid-gen5-raid6", "--fidelity", "fluid", "--name=a", "--rw=randread", "--bs=4k",
            "--ioengine=libaio", "--direct=1", "--runtime=1", "--offset=50%")
    cut, whole = cli(*args, "--size=80%"), cli(*args, "--size=50%")
    assert cut.returncode == 0 and whole.returncode == 0, cut.stderr
    warned = [line for line in cut.stderr.splitlines() if "reaches past the end of the array" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: command line: [a] offset + size = 109,824,000,000,000 bytes")
    assert "cut to 42,240,000,000,000 bytes" in warned[0]
    assert "reaches past" not in whole.stderr


def test_each_clone_entry_carries_its_own_regions_bytes(cli):
    """numjobs=2 offset_increment=50% size=60%: clone 0 moves 50,688 GB, clone 1 the 42,240 GB from
    its offset to the array's end (fio's setup_files); each clone's entry showed the job's bytes
    split evenly (46,464 GB each). Now each shows its own, with its runtime as the model gives it:
    the job's rate held and shared evenly by the clones still running, so clone 1 ends when it has
    moved its region and clone 0 when the job does."""
    args = ("fio", "--system", SYSTEM, "--fidelity", "fluid", "--name=a", "--rw=read", "--bs=128k", "--ioengine=libaio",
            "--iodepth=32", "--direct=1", "--numjobs=2", "--offset_increment=50%", "--size=60%")
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    first, second = (entry["read"] for entry in json.loads(done.stdout)["jobs"])
    block = 128 * 1024
    assert (first["io_bytes"], second["io_bytes"]) == (50_688_000_000_000 // block * block, 42_240_000_000_000 // block * block)
    assert first["total_ios"] * block == first["io_bytes"] and second["total_ios"] * block == second["io_bytes"]
    grouped = json.loads(cli(*args, "--group_reporting").stdout)["jobs"][0]
    rate = grouped["read"]["io_bytes"] / grouped["read"]["runtime"]  # bytes per ms, the job's
    assert first["runtime"] == grouped["read"]["runtime"]  # the last clone ends with the job
    assert second["runtime"] == pytest.approx(2 * second["io_bytes"] / rate, abs=1)  # at half the job's rate
    assert first["bw_bytes"] > second["bw_bytes"] == pytest.approx(grouped["read"]["bw_bytes"] / 2, rel=1e-6)


def test_the_clones_of_a_mix_report_alike_in_the_event_mode(cli, tmp_path):
    """A mix's latency samples are its parts interleaved evenly, and each clone took every
    numjobs-th of them: one clone of a 2-clone 4k/50:1m/50 job reported only 4 KiB reads (mean 47 us),
    the other only 1 MiB ones (668 us); real fio's clones run the same mix."""
    job = tmp_path / "mix.fio"
    job.write_text("[mixbs]\nioengine=libaio\ndirect=1\nsize=100G\nruntime=30\ntime_based\niodepth=16\nnumjobs=2\n"
                   "rw=randread\nbssplit=4k/50:1m/50\n")
    done = cli("fio", str(job), "--system", SYSTEM, "--fidelity", "event")
    assert done.returncode == 0, done.stderr
    means = [entry["read"]["lat_ns"]["mean"] for entry in json.loads(done.stdout)["jobs"]]
    assert len(means) == 2 and means[0] == pytest.approx(means[1], rel=0.1)
    assert all(entry["read"]["lat_ns"]["min"] < 100_000 < 500_000 < entry["read"]["lat_ns"]["max"]
               for entry in json.loads(done.stdout)["jobs"])  # both sizes in each clone
