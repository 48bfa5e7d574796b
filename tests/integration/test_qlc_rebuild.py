"""Issue 18: the large QLC RAID5 rebuild scenarios (scenarios/qlc-raid5-rebuild/) through the command
line, and the rebuild's write amplification (RAID and NAND) in the summary and the timeline."""

import json
import math
from pathlib import Path

import pytest

from conftest import ROOT

from nvsim.rebuild import rebuild_summary, rebuild_write_amplification, run_timeline
from nvsim.scenario import load_scenario, parse_scenario

DIR = ROOT / "scenarios" / "qlc-raid5-rebuild"


@pytest.mark.parametrize("name", ["xiraid-5x.yaml", "md-5x.yaml"])
def test_nvsim_run_prints_rebuild_time_its_limit_and_waf(cli, name):
    result = cli("run", str(DIR / name), "--fidelity", "fluid", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["resilience"]["if_one_drive_fails"]
    assert 1.0 < summary["rebuild_hours"] < 2000.0
    assert summary["rebuild_limited_by"]
    assert summary["rebuild_raid_waf"] == 1.0 and summary["rebuild_waf_nand"] >= 1.0
    text = cli("run", str(DIR / name), "--fidelity", "fluid")
    assert text.returncode == 0, text.stderr
    for words in ("rebuild time", "rebuild limited by", "rebuild RAID WAF", "rebuild NAND WAF"):
        assert words in text.stdout


def test_xiraid_rebuilds_the_qlc_array_faster_than_md_idle_and_loaded(catalog):
    for drives in (5, 9):
        xi = load_scenario(DIR / f"xiraid-{drives}x.yaml", catalog)
        md = load_scenario(DIR / f"md-{drives}x.yaml", catalog)
        for workload in (None, xi.workloads[1]):
            t_xi = run_timeline(xi, workload, catalog, "fluid").rebuilds[0].duration_s
            t_md = run_timeline(md, workload, catalog, "fluid").rebuilds[0].duration_s
            assert t_xi < t_md / 5, (drives, workload)


def test_rebuild_nand_waf_is_the_sequential_fills_whatever_the_write_size(catalog):
    """md RAID10 recovery on 4 KiB chunks writes 4 KiB pieces in order on the new member: the drive
    fills the D5-P5336's 16 KiB IUs in its buffer and programs what is written (it charged four
    times that until a sequential stream filled its IUs); a RAID5 rebuild of 128 KiB strips
    programs what it writes."""
    def array(level, strip, engine):
        return parse_scenario({"name": "t", "platform": "supermicro-sys-120u-tnr",
                               "array": {"level": level, "drive": "solidigm-d5-p5336-61.44tb", "drives": 4,
                                         "strip_bytes": strip, "engine": engine}}, catalog)
    raid_waf, waf_nand = rebuild_write_amplification(array(10, "4KiB", "linux-md"), catalog, 0)
    assert raid_waf == 1.0 and waf_nand == pytest.approx(1.0)
    raid_waf, waf_nand = rebuild_write_amplification(array(5, "128KiB", "xinnor-xiraid"), catalog, 0)
    assert raid_waf == 1.0 and waf_nand == pytest.approx(1.0)


def test_summary_of_an_unrebuildable_array_has_no_waf(catalog):
    scenario = parse_scenario({"name": "t", "platform": "supermicro-sys-120u-tnr",
                               "array": {"level": 0, "drive": "solidigm-d5-p5336-61.44tb", "drives": 4,
                                         "engine": "xinnor-xiraid"}}, catalog)
    summary = rebuild_summary(scenario, catalog)
    assert summary["rebuild_hours"] is None and "rebuild_raid_waf" not in summary


def test_md_idle_rebuild_of_the_measured_set_is_its_resync_thread_at_the_clock_its_core_holds(catalog):
    """Issue 38's md row (scenarios/rebuild-measured): with speed_limit_max out of the way md's idle
    rebuild is its resync thread's pace, so it scales with the clock its core holds (the idle host's
    one busy core: the 6354's 3.6 GHz turbo); docs/models/rebuild.md gives the study's 2.1 GHz base
    figure from this (about 93 h against the stand-in's 54.3 h)."""
    import dataclasses
    path = ROOT / "scenarios" / "rebuild-measured" / "md-10x-idle.yaml"
    name = "supermicro-sys-120u-tnr"
    platform = catalog.platforms[name]

    def hours_at(base_ghz: float | None) -> dict:
        """The rebuild with the CPU at ``base_ghz`` under any load (None: the catalog's clocks)."""
        if base_ghz is None:
            return rebuild_summary(load_scenario(path, catalog), catalog)
        clock = platform.cpu.base_clock_ghz.model_copy(update={"value": base_ghz})
        cpu = platform.cpu.model_copy(update={"base_clock_ghz": clock, "all_core_boost_clock_ghz": None})
        changed = dataclasses.replace(catalog, platforms={**catalog.platforms, name: platform.model_copy(update={"cpu": cpu})})
        return rebuild_summary(load_scenario(path, changed), changed)

    boosted, base, slow = hours_at(None), hours_at(3.0), hours_at(2.1)
    assert "Linux kernel md (mdadm) rebuild thread " in boosted["rebuild_limited_by"]  # md's resync thread
    assert slow["rebuild_hours"] == pytest.approx(base["rebuild_hours"] * 3.0 / 2.1, rel=0.01)
    assert boosted["rebuild_hours"] == pytest.approx(base["rebuild_hours"] * 3.0 / 3.6, rel=0.01)


def test_idle_rebuild_speed_metric_is_the_member_over_the_idle_rebuild_hours(catalog):
    """``rebuild_mb_per_s_idle`` (scenarios/linux-raid-rebuild, /proc/mdstat's speed) is the member's
    bytes over the idle rebuild's time, as ``rebuild_hours_idle`` reads it: the two published metrics
    of one idle rebuild agree. On four members md's resync thread binds, as on ten (the known miss)."""
    from nvsim.validation import predict_metric
    scenario = load_scenario(ROOT / "scenarios" / "linux-raid-rebuild" / "md-raid5-4x-idle.yaml", catalog)
    speed = predict_metric(scenario, None, "rebuild_mb_per_s_idle", catalog)
    hours = predict_metric(scenario, None, "rebuild_hours_idle", catalog)
    member_bytes = catalog.drives[scenario.array.drive].capacity_bytes.value
    assert speed * 1e6 * hours * 3600 == pytest.approx(member_bytes, rel=1e-6)
    assert "Linux kernel md (mdadm) rebuild thread " in rebuild_summary(scenario, catalog)["rebuild_limited_by"]
