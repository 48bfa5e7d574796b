"""fio jobs that mix block sizes, arrive at random, share the array with other jobs, or replay a
trace, simulated on graid-gen5-raid6 (nvsim.workload.mix, open_loop, together, nvsim.fio.trace through
nvsim.fio.run): the laws each answer obeys, and the latency-against-load sweep docs/fio.md shows."""

import json
from pathlib import Path

import numpy as np
import pytest

import nvsim
from nvsim.fio import parse_fio_jobfile, platform_keywords
from nvsim.fio.run import fio_report, simulate_jobs

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "tests" / "data" / "fio" / "traces"
ENGINE = "[global]\nioengine=libaio\ndirect=1\n"


@pytest.fixture(scope="module")
def spec(catalog):
    return nvsim.load_scenario(ROOT / "scenarios" / "graid-gen5-raid6", catalog)


def run(text, spec, catalog, fidelity="fluid"):
    parsed = parse_fio_jobfile(ENGINE + text, "job.fio", catalog=catalog)
    runs = simulate_jobs(parsed, spec, catalog, fidelity)
    return parsed, runs, fio_report(parsed, runs, catalog, timestamp=0)


def iops(runs, index=0):
    return runs[index].result.total_iops * runs[index].scale


def alone(text, spec, catalog, fidelity="fluid"):
    return iops(run(text, spec, catalog, fidelity)[1])


def test_a_bssplit_job_moves_its_mean_size_and_runs_between_its_parts(spec, catalog):
    job = "[a]\nrw=randread\nnumjobs=8\niodepth=32\nbssplit=4k/10:64k/50:32k/40\n"
    _, runs, _ = run(job, spec, catalog)
    result = runs[0].result
    mean_size = 0.1 * 4096 + 0.5 * 65536 + 0.4 * 32768
    assert result.read_bytes_per_s / result.total_iops == pytest.approx(mean_size, rel=1e-9)  # not 4 KiB
    parts = [alone(f"[a]\nrw=randread\nnumjobs=8\niodepth=32\nbs={bs}\n", spec, catalog) for bs in ("4k", "64k", "32k")]
    harmonic = 1.0 / (0.1 / parts[0] + 0.5 / parts[1] + 0.4 / parts[2])
    assert harmonic * (1 - 1e-9) <= result.total_iops <= max(parts)  # fluid: the weighted demands' cap, at least the time share


def test_the_event_mode_mix_is_the_time_share_and_same_seed_same_bits(spec, catalog):
    job = "[a]\nrw=randwrite\nnumjobs=2\niodepth=8\nbssplit=4k/50:128k/50\n"
    _, runs, report = run(job, spec, catalog, "event")
    parts = [alone(f"[a]\nrw=randwrite\nnumjobs=2\niodepth=8\nbs={bs}\n", spec, catalog, "event") for bs in ("4k", "128k")]
    assert runs[0].result.total_iops == pytest.approx(1.0 / (0.5 / parts[0] + 0.5 / parts[1]), rel=1e-9)
    lat = report["jobs"][0]["write"]["clat_ns"]
    assert lat["N"] > 0 and lat["percentile"]["99.000000"] > lat["percentile"]["50.000000"]
    assert run(job, spec, catalog, "event")[2] == report


def test_poisson_arrivals_queue_more_than_linear_pacing_and_rise_with_load(spec, catalog):
    """The latency-against-load sweep of docs/fio.md (fluid mode)."""
    curves = {}
    for process in ("linear", "poisson"):
        points = []
        for per_clone in (25_000, 100_000, 200_000, 250_000, 300_000, 340_000):
            job = f"[a]\nrw=randread\nbs=4k\nnumjobs=4\niodepth=16\nrate_iops={per_clone}\nrate_process={process}\n"
            _, runs, report = run(job, spec, catalog)
            assert iops(runs) == pytest.approx(4 * per_clone, rel=1e-9)  # the rate is met
            points.append(report["jobs"][0]["read"]["lat_ns"]["mean"] / 1000)
        curves[process] = points
    print("\nmean latency (us) at 100K..1.36M IOPS:", {k: [round(v, 1) for v in p] for k, p in curves.items()})
    poisson, linear = np.array(curves["poisson"]), np.array(curves["linear"])
    # poisson's lightest load is answered by one job at depth 1, linear's by the four: one busy core
    # holds a higher clock than four (nvsim.platform.active_core_clock_ghz), a few ns less latency
    assert (np.diff(poisson) >= -1e-9).all() and (poisson >= linear * (1 - 1e-5)).all()
    assert poisson[-1] > 1.5 * poisson[0]  # near the array's capacity the queue grows


def test_poisson_at_the_arrays_capacity_runs_at_the_loops_rate(spec, catalog):
    _, runs, _ = run("[a]\nrw=randread\nbs=4k\nnumjobs=4\niodepth=16\nrate_iops=10000000\nrate_process=poisson\n", spec, catalog)
    assert "does not settle" in runs[0].note and iops(runs) < 4e7


def test_jobs_with_different_workloads_share_the_array(spec, catalog):
    reader = "[r]\nrw=randread\nbs=128k\nnumjobs=16\niodepth=32\n"
    writer = "[w]\nrw=randwrite\nbs=256k\nnumjobs=8\niodepth=16\n"
    solo = [alone(reader, spec, catalog), alone(writer, spec, catalog)]
    parsed, runs, report = run(reader + writer, spec, catalog)
    together = [iops(runs, 0), iops(runs, 1)]
    assert all(t <= s * (1 + 1e-9) for t, s in zip(together, solo))
    assert together[0] < solo[0] or together[1] < solo[1]  # the two saturate something together
    assert [j["jobname"] for j in report["jobs"]] == ["r"] * 16 + ["w"] * 8  # fio's entries, one per clone
    assert all("runs at the same time" in r.note for r in runs)
    grouped = fio_report(parse_fio_jobfile(ENGINE + "group_reporting\n" + reader + writer, "job.fio", catalog=catalog),
                         runs, catalog, timestamp=0)
    assert len(grouped["jobs"]) == 1 and grouped["jobs"][0]["read"]["total_ios"] > 0 and grouped["jobs"][0]["write"]["total_ios"] > 0


def test_flow_keeps_the_jobs_io_counts_in_the_ratio_of_their_weights(spec, catalog):
    text = ("[job2]\nrw=write\nbs=8k\niodepth=256\nflow=1\nruntime=30\ntime_based\n"
            "[job1]\nrw=randread\nbs=8k\niodepth=256\nflow=8\nruntime=30\ntime_based\n")  # fio's examples/flow.fio
    _, runs, report = run(text, spec, catalog)
    assert iops(runs, 1) / iops(runs, 0) == pytest.approx(8.0, rel=1e-9)
    assert report["jobs"][1]["read"]["total_ios"] / report["jobs"][0]["write"]["total_ios"] == pytest.approx(8.0, rel=1e-3)


@pytest.mark.parametrize("name", ["fio-v2.iolog", "fio-v3.iolog", "blkparse.txt", "blktrace.bin", "msr-hm1.csv"])
def test_each_trace_format_replays_open_and_closed_loop(name, spec, catalog):
    path = TRACES / name
    parsed, runs, report = run(f"[t]\niodepth=16\nread_iolog={path}\n", spec, catalog)
    rate = parsed.jobs[0].rate_iops
    assert rate and iops(runs) == pytest.approx(rate, rel=1e-9)  # at its timestamps' mean rate
    entry = report["jobs"][0]
    assert entry["read"]["io_bytes"] + entry["write"]["io_bytes"] > 0
    assert entry["nvsim"]["trace"]["ios"] > 0 and entry["nvsim"]["rate_process"] == "poisson"
    _, closed, _ = run(f"[t]\niodepth=16\nread_iolog={path}\nreplay_no_stall=1\n", spec, catalog)
    assert iops(closed) > iops(runs)  # as fast as iodepth 16 allows


def test_rw_offsets_change_the_stripe_plan(spec, catalog):
    """16 KiB writes with 112 KiB holes (fio's cross-stripe-verify.fio) are partial-stripe writes:
    slower per byte than the same writes back to back."""
    dense = run("[a]\nrw=write\nbs=16k\niodepth=32\n", spec, catalog)[1][0].result
    holes = run("[a]\nrw=write:112k\nbs=16k\niodepth=32\n", spec, catalog)[1][0].result
    assert holes.raid_waf > dense.raid_waf


def test_the_cli_takes_the_simulated_platforms_keywords_and_refuses_bad_values_in_one_line(cli, spec, catalog, tmp_path):
    cpus = platform_keywords(catalog.platforms[spec.platform])["ncpus"]
    job = tmp_path / "mix.fio"
    job.write_text("[a]\nioengine=libaio\ndirect=1\nrw=randread\nnumjobs=($ncpus/$ncpus)*2\nbssplit=4k/50:64k/50\n")
    done = cli("fio", str(job), "--system", "scenarios/graid-gen5-raid6", "--fidelity", "fluid")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report["jobs"]) == 2 and cpus > 0
    bad = tmp_path / "bad.fio"
    bad.write_text("[a]\nrw=randread\nbssplit=4k/70:64k/70\n")
    done = cli("fio", str(bad), "--system", "scenarios/graid-gen5-raid6", "--fidelity", "fluid")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "bssplit" in done.stderr


def test_a_single_drive_takes_mixes_and_its_jobs_share_it(catalog):
    drive = nvsim.load_scenario(ROOT / "scenarios" / "kioxia-cm7-namespace", catalog)
    text = "[a]\nrw=randrw\nbssplit=4k/50:64k/50\niodepth=16\n[b]\nrw=randread\nbs=4k\niodepth=4\n"
    parsed, runs, report = run(text, drive, catalog)
    a = runs[0].result
    assert (a.read_bytes_per_s + a.write_bytes_per_s) / a.total_iops == pytest.approx(34816, rel=1e-9)
    # the two jobs share the drive's dies (until 2026-12-01 each ran as if alone, with no note)
    assert len(report["jobs"]) == 2 and "runs at the same time as 1 other job" in runs[1].note
