"""The input boundary (nvsim.loader), the work budget (nvsim.budget), the schema's drive limit
against the planner's, and a workload on an array that has lost data."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, run_cli
from corpus import BASE_SCENARIO
from nvsim.catalog import load_catalog
from nvsim.budget import MAX_EVENT_SLOTS, check_points, check_workload, event_pages, held_pages, planned_pages
from nvsim.errors import InputError
from nvsim.loader import MAX_DEPTH, load_yaml, parse_yaml
from nvsim.raid import MAX_MEMBERS
from nvsim.scenario import load_scenario, parse_scenario
from nvsim.specs import WorkloadSpec
from nvsim.stripe.layout import ArrayGeometry
from nvsim.sweep import run_point


def test_valid_yaml_features_still_load():
    """Merge keys (a key overridden after <<), a byte-order mark, anchors used a few times."""
    text = "base: &b {bs: 4k, iodepth: 8}\njob:\n  <<: *b\n  iodepth: 32\nlist: [*b, *b]\n"
    data = parse_yaml(text, "t.yaml")
    assert data["job"] == {"bs": "4k", "iodepth": 32} and data["list"][1]["iodepth"] == 8


def test_bom_is_dropped_and_offsets_count_from_the_file_start(tmp_path: Path):
    good = tmp_path / "good.yaml"
    good.write_bytes(b"\xef\xbb\xbfname: x\n")
    assert load_yaml(good) == {"name": "x"}
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: ok\nother: \xc3\x28\n")
    with pytest.raises(InputError, match=r"bad\.yaml: not UTF-8 text: byte 0xc3 at offset 16"):
        load_yaml(bad)


@pytest.mark.parametrize("depth, ok", [(MAX_DEPTH, True), (MAX_DEPTH + 1, False)])
def test_depth_bound_is_exact(depth: int, ok: bool):
    text = "[" * depth + "]" * depth
    if ok:
        parse_yaml(text, "t")
    else:
        with pytest.raises(InputError, match=f"nested deeper than {MAX_DEPTH} levels"):
            parse_yaml(text, "t")


def test_duplicate_keys_are_refused_at_every_level_with_their_line():
    with pytest.raises(InputError, match=r"t: line 3: YAML syntax error: duplicate key 'b'"):
        parse_yaml("a:\n  b: 1\n  b: 2\n", "t")


def test_a_50_mb_scenario_is_refused_at_once_and_loads_fast_when_the_bound_is_raised(tmp_path: Path, monkeypatch):
    """The issue's hang: 50 MB through the pure-Python loader took minutes, then printing the
    description never ended. Refused by the size bound in well under a second; with the bound
    raised, libyaml reads it in seconds and the schema bounds the description."""
    data = dict(BASE_SCENARIO, description="x" * 50_000_000)
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data, width=2**31))
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"input files are bounded at 4,194,304 bytes"):
        load_scenario(path)
    assert time.perf_counter() - start < 1.0
    monkeypatch.setenv("NVSIM_MAX_INPUT_BYTES", str(100 * 2**20))
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"description: .*at most 10000 characters"):
        load_scenario(path)
    assert time.perf_counter() - start < 10.0


def test_the_schema_drive_limit_is_the_planners():
    ArrayGeometry(level=6, n_members=MAX_MEMBERS, strip_bytes=65536, layout="left-symmetric")
    with pytest.raises(ValueError):
        ArrayGeometry(level=6, n_members=MAX_MEMBERS + 1, strip_bytes=65536, layout="left-symmetric")
    data = json.loads(json.dumps(BASE_SCENARIO))
    data["array"]["drives"] = MAX_MEMBERS
    # 256 drives need bays and root-port lanes for them (issue 20): 11 x 24 bays, behind 8 x PEX89144
    # (32 drives x4 + a x16 uplink = its 144 lanes), 8 x16 uplinks = the platform's 128 lanes
    data["topology"] = {"backplane": "supermicro-2u-24x-nvme-gen5", "backplanes": 11,
                        "switches": {"model": "broadcom-pex89144", "count": 8, "uplink_lanes": 16}}
    assert parse_scenario(data).array.drives == MAX_MEMBERS
    data["array"]["drives"] = MAX_MEMBERS + 1
    with pytest.raises(InputError, match=r"array\.drives: .*less than or equal to 256"):
        parse_scenario(data)


def test_budget_refuses_above_and_accepts_at_its_limits():
    at_limit = WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=512, numjobs=MAX_EVENT_SLOTS // 512)
    check_workload(at_limit, "event")
    over = WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=512, numjobs=MAX_EVENT_SLOTS // 512 + 1)
    check_workload(over, "fluid")  # the fluid mode keeps no slots
    with pytest.raises(InputError, match=r"NVSIM_MAX_EVENT_SLOTS"):
        check_workload(over, "event")
    assert planned_pages(WorkloadSpec(name="w", rw="read", bs=2**30)) == 16 * 2**18
    check_workload(WorkloadSpec(name="w", rw="read", bs=2**32), "fluid")  # 4 GiB: the fluid mode's limit
    with pytest.raises(InputError, match=r"NVSIM_MAX_PLANNED_PAGES"):
        check_workload(WorkloadSpec(name="w", rw="read", bs=2**32 + 4096), "fluid")
    # the event mode plans its warm-up (12,000 host I/Os here) and window (60,000): 72,000 x 4,096 pages
    assert event_pages(WorkloadSpec(name="w", rw="read", bs=16 * 2**20)) == 72_000 * 4096
    check_workload(WorkloadSpec(name="w", rw="read", bs=32 * 2**20), "event")
    with pytest.raises(InputError, match=r"about 1,179,648,000 member pages in the event mode .*NVSIM_MAX_EVENT_PAGES"):
        check_workload(WorkloadSpec(name="w", rw="read", bs=64 * 2**20), "event")
    check_workload(WorkloadSpec(name="w", rw="read", bs=64 * 2**20), "event", host_ios=20_000)  # a sweep's window
    # every job holds a batch of 8 planned host I/Os: 65,536 jobs of 8 MiB reads asked NumPy for 18 GiB at once
    many = WorkloadSpec(name="w", rw="randread", bs=8 * 2**20, numjobs=65_536)
    assert held_pages(many) == 65_536 * 8 * 2048
    check_workload(many, "fluid")
    with pytest.raises(InputError, match=r"numjobs: 65,536 jobs of 8,388,608-byte blocks hold about 1,073,741,824 "
                                         r"member pages planned at once in the event mode .*NVSIM_MAX_PLANNED_PAGES"):
        check_workload(many, "event")
    check_workload(WorkloadSpec(name="w", rw="randread", bs=4096, numjobs=65_536, iodepth=4), "event")
    check_points(100_000, 100_000)
    with pytest.raises(InputError, match=r"100,001 set-ups; the limit is 100,000"):
        check_points(100_001, 100_000)


def test_budget_limit_is_raised_by_its_environment_variable(monkeypatch):
    over = WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=1024, numjobs=1024)
    with pytest.raises(InputError):
        check_workload(over, "event")
    monkeypatch.setenv("NVSIM_MAX_EVENT_SLOTS", str(2**20))
    check_workload(over, "event")


def test_the_python_api_checks_the_same_budget_before_it_allocates(monkeypatch):
    """``Simulation.run`` checked nothing: 65,536 x 65,536 slots asked NumPy for 32 GiB, where the CLI
    refuses the workload in one line; a 1 GiB block's event run went on for minutes."""
    import nvsim

    spec = parse_scenario(BASE_SCENARIO, load_catalog())
    huge = WorkloadSpec(name="huge", rw="randread", bs=4096, iodepth=65536, numjobs=65536)
    with pytest.raises(InputError, match=r"^workload 'huge'.iodepth: iodepth x numjobs = 4,294,967,296 I/Os in flight.*"
                                         r"or run\('fluid'\)\)$"):
        nvsim.Simulation(spec, huge).run("event")
    with pytest.raises(InputError, match=r"member pages in the event mode"):
        nvsim.Simulation(spec, WorkloadSpec(name="big", rw="read", bs=2**30)).run("event")
    assert nvsim.Simulation(spec, huge).run("fluid").total_iops > 0  # the fluid mode keeps no slots
    monkeypatch.setenv("NVSIM_MAX_EVENT_SLOTS", "1000")
    small = WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=64, numjobs=32)
    with pytest.raises(InputError, match=r"limit 1,000 slots; set NVSIM_MAX_EVENT_SLOTS"):
        nvsim.Simulation(spec, small).run("event")
    monkeypatch.setattr("nvsim.budget._SERVING", [True])  # a dashboard's process: the client's limits, its own words
    with pytest.raises(InputError) as refused:
        check_workload(WorkloadSpec(name="w", rw="randread", bs=4096, iodepth=1024, numjobs=1024), "event")
    assert "NVSIM" not in str(refused.value) and "262,144 slots" in str(refused.value)
    check_workload(small, "event")  # the server's lowered limit is neither read nor named


LOST = dict(BASE_SCENARIO, faults=[{"at_s": 0, "drive": d, "action": "fail"} for d in (0, 1, 2)])


def test_a_workload_on_an_array_that_lost_data_reports_data_loss(tmp_path: Path):
    """RAID6 with three members failed at t = 0: the workload's row says data loss and no I/O,
    not the optimal (or a degraded) state's rates; two failed members still serve I/O."""
    path = tmp_path / "lost.yaml"
    path.write_text(yaml.safe_dump(LOST))
    result = run_cli("run", str(path), "--json", "--fidelity", "fluid")
    assert result.returncode == 0, result.stderr
    prediction = json.loads(result.stdout)["predictions"]["randread"]
    assert prediction["data_loss"] is True and prediction["total_iops"] == 0.0
    assert "3 members down, RAID6 tolerates 2" in prediction["limited_by"]
    degraded = dict(LOST, faults=LOST["faults"][:2])
    rows = run_point({"point": {}, "base": degraded, "workloads": ["randread"], "fidelity": "fluid", "host_ios": 1000})
    assert rows[0]["status"] == "ok" and rows[0]["total_iops"] > 0
    rows = run_point({"point": {}, "base": LOST, "workloads": ["randread"], "fidelity": "fluid", "host_ios": 1000})
    assert rows[0]["status"] == "data loss" and rows[0]["total_iops"] == 0.0 and "tolerates 2" in rows[0]["error"]


def test_shipped_scenarios_and_catalog_pass_the_boundary():
    catalog = load_catalog(ROOT / "models")
    files = [p for p in (ROOT / "scenarios").glob("*/*.yaml") if p.name != "published.yaml" and p.parent.name != "sweeps"]
    assert len(files) > 20
    for path in files:
        load_scenario(path, catalog)


OFF_THE_ARRAY = dict(BASE_SCENARIO, workloads=[dict(BASE_SCENARIO["workloads"][0], offset="1PB")])
"""8 x 3.84 TB in RAID6 is about 23 TB: an offset of a petabyte is not on it (fio wraps no offset)."""


def test_a_region_off_the_array_is_refused_in_a_sweep_point_and_the_dashboard():
    """The region check of ``nvsim run`` holds at the other entry points that take a scenario: a
    sweep's point is invalid with the one line, the dashboard's set-up shows it at its control."""
    from dashboard import core

    rows = run_point({"point": {}, "base": OFF_THE_ARRAY, "workloads": ["randread"], "fidelity": "fluid", "host_ios": 1000})
    assert rows[0]["status"] == "invalid"
    assert "workloads[0].offset: 1,000,000,000,000,000 bytes is at or past the end of the array" in rows[0]["error"]
    inside = dict(BASE_SCENARIO, workloads=[dict(BASE_SCENARIO["workloads"][0], offset="1TB", size="1TB")])
    assert run_point({"point": {}, "base": inside, "workloads": ["randread"], "fidelity": "fluid",
                      "host_ios": 1000})[0]["status"] == "ok"
    setup = dict(core.default_setup(), workload=core.FILE_WORKLOADS)
    custom = {"label": "upload", "workloads": OFF_THE_ARRAY["workloads"]}
    _, spec, errors = core.validate(setup, custom)
    assert spec is None and any("is at or past the end of the array" in e for e in errors.values()), errors
