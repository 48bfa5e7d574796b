"""random_distribution and drive_state on jobs that write (the FTL load reaches the drive's write
cost), and fresh drives that turn steady once a long run has written their free blocks
(nvsim.workload.fresh), through nvsim fio's run."""

from pathlib import Path

import pytest

from conftest import run_fio
from nvsim.workload.fresh import blended_scale

ROOT = Path(__file__).resolve().parents[3]
RAID10 = ROOT / "scenarios" / "graid-gen5-raid6" / "md-raid10-512k.yaml"
GPU_RAID6 = ROOT / "scenarios" / "graid-gen5-raid6"
HEAD = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nruntime=30\ntime_based\n"


def _run(text, scenario, catalog):
    return run_fio(HEAD + text, scenario, catalog)


def test_skew_and_fresh_drives_reach_the_writes_waf(catalog):
    base = "[w]\nrw=randwrite\niodepth=32\nnumjobs=16\n"
    waf = {extra: _run(base + extra, RAID10, catalog)[0][0].result.simulation.waf_nand
           for extra in ("", "random_distribution=zipf:1.2\n", "random_distribution=zoned:50/5:30/15:20/80\n",
                         "drive_state=fresh\n", "random_distribution=zipf:1.2\ndrive_state=steady\n")}
    uniform = waf[""]
    assert waf["random_distribution=zipf:1.2\n"] > waf["random_distribution=zoned:50/5:30/15:20/80\n"] > uniform
    assert waf["drive_state=fresh\n"] < uniform
    assert waf["random_distribution=zipf:1.2\ndrive_state=steady\n"] == waf["random_distribution=zipf:1.2\n"]


def test_read_only_skew_and_default_state_keep_todays_numbers(catalog):
    plain = _run("[r]\nrw=randread\niodepth=32\n", RAID10, catalog)[0][0].result
    skewed = _run("[r]\nrw=randread\niodepth=32\nrandom_distribution=zipf:1.2\n", RAID10, catalog)[0][0].result
    assert skewed.workload == plain.workload and skewed.read_iops == plain.read_iops
    steady = _run("[w]\nrw=randwrite\ndrive_state=steady\n", RAID10, catalog)[0][0].result
    default = _run("[w]\nrw=randwrite\n", RAID10, catalog)[0][0].result
    assert steady.write_iops == default.write_iops and steady.simulation.waf_nand == default.simulation.waf_nand


def test_blended_scale_is_the_time_weighted_rate():
    assert blended_scale(100.0, 150.0, 10.0, 5.0) == 1.0  # the run ends before the free blocks are used
    assert blended_scale(100.0, 40.0, 10.0, 5.0) == pytest.approx((40 + 60 * 0.5) / 100)
    assert blended_scale(100.0, 0.0, 10.0, 5.0) == pytest.approx(0.5)


def test_fresh_drives_turn_steady_when_a_long_run_has_written_their_free_blocks(catalog):
    """GPU RAID 6, zipf writes: fresh drives are GPU-bound at WAF 1, steady ones NAND-bound; a run of
    two hours writes the drives' raw NAND after ~1.6 h, so its rate lies between the two."""
    body = "[w]\nrw=randwrite\niodepth=16\nnumjobs=192\nrandom_distribution=zipf:1.2\ngroup_reporting\n"
    rate, waf = {}, {}
    for state, runtime in (("fresh", 60), ("fresh", 7200), ("steady", 7200)):
        runs, _ = _run(body.replace("[w]", f"[w]\ndrive_state={state}\nruntime={runtime}"), GPU_RAID6, catalog)
        rate[state, runtime] = runs[0].result.write_iops * runs[0].scale
        waf[state, runtime] = runs[0].result.simulation.waf_nand
        if (state, runtime) == ("fresh", 7200):
            assert "free blocks are written after" in runs[0].note
            fresh_s = float(runs[0].note.split("written after ")[1].split(" s")[0].replace(",", ""))
    assert rate["steady", 7200] < rate["fresh", 7200] < rate["fresh", 60]
    # the drives' WAF over the run (what wear is reckoned from): WAF 1's I/Os, then the steady run's
    fresh_ios, steady_ios = rate["fresh", 60] * fresh_s, rate["steady", 7200] * (7200 - fresh_s)
    mean = (fresh_ios * waf["fresh", 60] + steady_ios * waf["steady", 7200]) / (fresh_ios + steady_ios)
    assert waf["fresh", 60] < waf["fresh", 7200] < waf["steady", 7200]
    assert waf["fresh", 7200] == pytest.approx(mean, rel=1e-4)  # the note gives the crossing to 0.1 s


def test_a_single_fresh_drive_turns_steady_too(catalog, tmp_path):
    """One drive (no array: the SSD model's result, no simulation record): a run that writes its
    free blocks many times over ends near the steady rate; before, a single drive never turned."""
    system = tmp_path / "one.yaml"
    system.write_text("name: one\nplatform: supermicro-as-1125hs-tnr\n"
                      "array: {level: 0, drive: kioxia-cm7-r-3.84tb, drives: 1, engine: none}\n"
                      "workloads:\n  - {name: unused, rw: randread, bs: 4k}\nseed: 1\n")
    body = "[w]\nrw=randwrite\niodepth=64\nnumjobs=4\ngroup_reporting\n"
    rate = {}
    for state, runtime in (("fresh", 60), ("fresh", 2_000_000), ("steady", 60)):
        runs, _ = _run(body.replace("[w]", f"[w]\ndrive_state={state}\nruntime={runtime}"), system, catalog)
        rate[state, runtime] = runs[0].result.write_iops * runs[0].scale
    assert rate["steady", 60] < rate["fresh", 60]
    assert rate["fresh", 2_000_000] == pytest.approx(rate["steady", 60], rel=0.01)
