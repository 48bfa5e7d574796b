import json

import pytest

from nvsim.io import write_text_atomic


def test_run_default_scenario_prints_capacity_and_bounds(cli):
    result = cli("run", "scenarios/graid-gen5-raid6", "--fidelity", "fluid")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "84.48 TB" in out and "TiB" in out
    for metric in ("4K random read", "4K random write", "128K sequential read", "128K sequential write"):
        assert metric in out
    assert "limited by" in out


def test_run_json_is_machine_readable(cli, tmp_path):
    result = cli("run", "scenarios/graid-gen5-raid6", "--json", "--fidelity", "fluid")
    data = json.loads(result.stdout)
    assert data["capacity"]["usable_bytes"] == 84_480_000_000_000
    assert {b["metric"] for b in data["bounds"]} == {"4K random read", "4K random write", "128K sequential read", "128K sequential write"}
    assert all(b["limited_by"] for b in data["bounds"])
    target = tmp_path / "out" / "result.json"
    written = cli("run", "scenarios/graid-gen5-raid6", "--json", "--fidelity", "fluid", "-o", str(target))
    assert written.returncode == 0 and json.loads(target.read_text()) == data
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]  # no temp files left behind


def test_every_command_has_help(cli):
    for args in (["--help"], ["run", "--help"], ["catalog", "--help"], ["catalog", "show", "--help"], ["validate", "--help"],
                 ["fio", "--help"], ["calibrate", "--help"]):
        result = cli(*args)
        assert result.returncode == 0 and "Usage" in result.stdout, args
    assert "usable capacity" in cli("run", "--help").stdout.lower()


def test_atomic_write_leaves_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "x.txt"
    write_text_atomic(target, "old")

    with pytest.raises(TypeError):  # the writer fails half-way: the old file stays, no temporary is left
        write_text_atomic(target, object())  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


def test_single_drive_scenario_prints_predictions_per_workload(cli):
    result = cli("run", "scenarios/kioxia-cm7-namespace/cm7r-7.68-ns6.4.yaml", "--json")
    assert result.returncode == 0, result.stderr
    predictions = json.loads(result.stdout)["predictions"]
    assert set(predictions) == {"seqread-b128k-j1-d32", "seqwrite-b128k-j1-d32", "randread-b4k-j16-d32", "randwrite-b4k-j8-d4", "randrw70-b4k-j8-d4"}
    mix = predictions["randrw70-b4k-j8-d4"]
    assert abs(mix["read_iops"] / mix["total_iops"] - 0.7) < 1e-9
    assert mix["limited_by"]
    text = cli("run", "scenarios/kioxia-cm7-namespace/cm7r-7.68-ns6.4.yaml").stdout
    assert "Predicted steady state per workload" in text and "randwrite-b4k-j8-d4" in text


def test_array_workloads_get_simulated_predictions_with_the_bottleneck_named(cli):
    data = json.loads(cli("run", "scenarios/graid-gen5-raid6", "--json", "--fidelity", "fluid").stdout)
    predictions, simulations = data["predictions"], data["simulations"]
    assert set(predictions) == set(simulations) == {
        "randread-b4k-j192-d32", "randwrite-b4k-j192-d16", "read-b1m-j192-d16", "write-b1m-j192-d16"}
    read = predictions["randread-b4k-j192-d32"]
    assert read["read_iops"] > 1e6 and read["write_iops"] == 0
    assert "GPU" in read["limited_by"] and "%" in read["limited_by"]
    assert all(0 <= u <= 1 for u in simulations["randread-b4k-j192-d32"]["utilisation"].values())


def test_event_mode_run_prints_latency_percentiles_and_utilisation(cli, tmp_path):
    scenario = tmp_path / "small.yaml"
    scenario.write_text(
        "name: small\nplatform: supermicro-as-2125hs-tnr\n"
        "array: {level: 5, drive: kioxia-cm7-r-3.84tb, drives: 4, strip_bytes: 64KiB, engine: xinnor-xiraid}\n"
        "workloads:\n  - {name: rr, rw: randread, bs: 4k, iodepth: 8, numjobs: 2}\n")
    result = cli("run", str(scenario), "--json")
    assert result.returncode == 0, result.stderr
    sim = json.loads(result.stdout)["simulations"]["rr"]
    assert sim["fidelity"] == "event"
    assert sim["read_latency_us"]["p50"] <= sim["read_latency_us"]["p99"] <= sim["read_latency_us"]["p99.9"]
    text = cli("run", str(scenario)).stdout
    assert "rr: limited by" in text and "utilisation" in text


def test_fio_job_file_runs_and_prints_fio_json(cli, tmp_path):
    jobfile = tmp_path / "job.fio"
    jobfile.write_text("[global]\nioengine=libaio\ndirect=1\nnumjobs=2\ngroup_reporting\nexitall\n"
                       "[rr]\nrw=randread\nbs=4k\niodepth=8\nstonewall\n"
                       "[sw]\nrw=write\nbs=1m\niodepth=4\nsize=1%\nstonewall\n")
    out = tmp_path / "fio.json"
    result = cli("fio", str(jobfile), "--system", "scenarios/xiraid-qlc-raid5", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning:") == 1 and "exitall" in result.stderr
    report = json.loads(out.read_text())
    rr, sw = report["jobs"]
    assert rr["jobname"] == "rr" and rr["read"]["iops"] > 0 and rr["write"]["iops"] == 0
    assert int(rr["read"]["clat_ns"]["percentile"]["99.000000"]) >= int(rr["read"]["clat_ns"]["percentile"]["50.000000"])
    assert sw["write"]["bw_bytes"] > 1e9


def test_bad_fidelity_and_broken_job_file_are_one_line_errors(cli, tmp_path):
    bad = cli("run", "scenarios/graid-gen5-raid6", "--fidelity", "quantum")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--fidelity" in bad.stderr
    none = cli("run", "scenarios/graid-gen5-raid6", "--workers", "-1")  # 0 is one per CPU, as for sweep, plan, validate
    assert none.returncode == 2 and none.stderr.count("\n") == 1 and "--workers" in none.stderr
    jobfile = tmp_path / "broken.fio"
    jobfile.write_text("[global]\nrw=randread\nthis line is broken\n")
    broken = cli("fio", str(jobfile), "--system", "scenarios/xiraid-qlc-raid5")
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1 and "line 3" in broken.stderr


def test_a_run_that_falls_back_from_the_event_mode_says_so_first(cli):
    """One drive used directly has no event mode (the SSD model's steady state): the first line of
    the tables says which workloads did not get the mode asked for, and why; with --json the note
    goes to stderr and stdout stays JSON."""
    tables = cli("run", "scenarios/kioxia-cm7-namespace")
    assert tables.returncode == 0, tables.stderr
    words = " ".join(tables.stdout.split())  # the note wraps at the width like any paragraph
    assert words.startswith("note: event mode asked for; 5 of 5 workloads did not get it: seqread-b128k-j1-d32, ")
    assert "ran in the drive model mode (one drive used directly" in words.split("Usable capacity")[0]
    machine = cli("run", "scenarios/kioxia-cm7-namespace", "--json")
    assert machine.returncode == 0 and json.loads(machine.stdout)["predictions"]
    assert machine.stderr.startswith("note: event mode asked for; ")
    fluid = cli("run", "scenarios/kioxia-cm7-namespace", "--fidelity", "fluid")
    assert "note: event mode" not in fluid.stdout + fluid.stderr


def test_the_fallback_note_names_each_mode_and_why():
    from types import SimpleNamespace

    from nvsim.report import fallback_note

    results = {"a": SimpleNamespace(fidelity="event"), "oltp-64": SimpleNamespace(fidelity="fluid"),
               "oltp-128": SimpleNamespace(fidelity="fluid")}
    note = fallback_note("event", results)
    assert note.startswith("note: event mode asked for; 2 of 3 workloads did not get it: oltp-64, oltp-128 ran in the fluid mode")
    assert "OLTP" in note and "\n" not in note
    assert "degraded or rebuilding array too" in note  # the event mode runs fio jobs on them (not a fallback)
    assert fallback_note("fluid", results) is None and fallback_note("event", {"a": results["a"]}) is None


def test_names_and_descriptions_are_printed_as_written_not_read_as_markup(cli, tmp_path):
    """rich reads '[bold]' as a style and '[/]' as a closing tag: a workload or scenario named so
    stopped the run with a traceback. Names and descriptions are text."""
    scenario = tmp_path / "markup.yaml"
    scenario.write_text(
        "name: 'set[/]up'\ndescription: '[red]not red[/red] [link=file:///etc/passwd]x[/link]'\n"
        "platform: dell-poweredge-r750\n"
        "array: {level: 10, drive: intel-d7-p5510-3.84tb, drives: 4, strip_bytes: 128KiB, engine: linux-md}\n"
        "workloads:\n  - {name: 'rr[/]x[bold]y', rw: randread, bs: 4k, iodepth: 4, numjobs: 2, runtime: 10}\n")
    result = cli("run", str(scenario), "--fidelity", "fluid")
    assert result.returncode == 0, result.stderr
    assert "rr[/]x[bold]y" in result.stdout and "set[/]up" in result.stdout
    assert "[red]not red[/red] [link=file:///etc/passwd]x[/link]" in result.stdout.replace("\n", "")


SMALL_SCENARIO = "tests/support/small_md_raid6.yaml"  # 8 CM7-R in md RAID6, one workload: seconds in event mode


def test_the_report_predicts_what_run_predicts_for_the_same_scenario(cli, tmp_path, monkeypatch):
    """`nvsim report` ran the event mode on the dashboard's 20,000 host I/Os and no precision,
    `nvsim run` on 60,000 and its --precision and --max-seconds: graid-gen5-raid6's randread was
    850 W and NAND 48% in the report, 835 W and 45% in the run. Both run the same event mode now:
    with --max-seconds 0 (the planned window, the same bits) the report's record is the run's."""
    from dashboard import report as one_page
    from nvsim.cli import main

    records = []
    monkeypatch.setattr(one_page, "report_html", lambda record, **fields: records.append(record) or "<html></html>")
    main(["report", SMALL_SCENARIO, "-o", str(tmp_path / "r.html"), "--max-seconds", "0"])
    run = cli("run", SMALL_SCENARIO, "--json", "--max-seconds", "0")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    (reported,) = records[0]["workloads"]
    name = reported["name"]
    predicted, simulated = data["predictions"][name], data["simulations"][name]
    assert (reported["read_iops"], reported["write_iops"], reported["cpu_percent"]) == \
        (predicted["read_iops"], predicted["write_iops"], predicted["cpu_percent"])
    assert reported["read_latency_us"] == simulated["read_latency_us"] and reported["utilisation"] == simulated["utilisation"]
    assert reported["cost_power"]["power_w"] == data["cost_power"]["per_workload"][name]["power_w"]


def test_report_and_run_take_the_same_event_mode_options_with_the_same_defaults():
    import typer

    from nvsim.cli import app

    commands = typer.main.get_command(app).commands
    run, report = ({p.name: (p.default, p.help) for p in commands[name].params if p.name in ("precision", "max_seconds")}
                   for name in ("run", "report"))
    assert report == run and len(run) == 2


def test_calibrate_says_a_fit_on_no_published_number_so(monkeypatch, capsys):
    """kioxia-cm7's controller time per NAND page is fitted on a catalog figure (the CM7-R 7.68 TB's
    datasheet random write), not on a published number: its list is empty, printed 'fitted on : '."""
    import nvsim
    from nvsim.cli import main

    monkeypatch.setattr(nvsim.calibrate, "fit_all", lambda: {})  # the fits' values are not what is tested
    main(["calibrate"])
    words = " ".join(capsys.readouterr().out.split())
    assert "fitted on :" not in words
    assert "fitted on no published number: controller time per NAND page a random write programs: the reference CM7-R" in words


def test_the_json_carries_the_notes_the_tables_print_below_the_predictions(cli, tmp_path):
    """A fresh drive's job without a runtime writes its free blocks and then collects garbage: the
    tables said so below the predictions, the JSON left it out (a 'fresh' rate with no word why)."""
    scenario = tmp_path / "fresh.yaml"
    scenario.write_text("name: fresh\nplatform: supermicro-as-1125hs-tnr\n"
                        "array: {level: 0, drive: kioxia-cm7-r-7.68tb, drives: 1, engine: none}\n"
                        "workloads:\n  - {name: w, rw: randwrite, bs: 4k, iodepth: 32, numjobs: 4, drive_state: fresh}\n"
                        "  - {name: r, rw: randread, bs: 4k, iodepth: 32, numjobs: 4}\n")
    data = json.loads(cli("run", str(scenario), "--fidelity", "fluid", "--json").stdout)
    assert set(data["notes"]) == {"w"} and "drive_state=fresh" in data["notes"]["w"]
    text = cli("run", str(scenario), "--fidelity", "fluid").stdout
    assert "garbage-collect" in " ".join(text.split()) and "garbage-collect" in data["notes"]["w"]


def test_calibrate_write_refuses_the_catalog_inside_an_installed_package(monkeypatch, capsys):
    """In a regular install it wrote 20 files into site-packages' catalog, which the next pip install undoes."""
    import nvsim.catalog
    from nvsim.cli import main

    monkeypatch.setattr(nvsim.catalog, "BUNDLED_CATALOG_DIR", nvsim.catalog.catalog_dir())
    monkeypatch.setattr(nvsim.calibrate, "fit_all", lambda: pytest.fail("fitted before refusing"))
    with pytest.raises(SystemExit) as exit_info:
        main(["calibrate", "--write"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: --write: this nvsim is installed, and its catalog is inside the package")


def test_run_says_it_compiles_before_the_bounds_table_compiles_its_kernels(monkeypatch, capsys):
    """The bounds table compiled kernels first, so the cache was no longer empty when the notice
    was asked for: `nvsim run` never said it compiled."""
    import nvsim
    from nvsim.cli import main

    order = []
    monkeypatch.setattr(nvsim.numba_cache, "compile_notice", lambda *a: order.append("notice") or False)
    real_bounds = nvsim.array_bounds
    monkeypatch.setattr(nvsim, "array_bounds", lambda *a, **k: order.append("bounds") or real_bounds(*a, **k))
    main(["run", "scenarios/kioxia-cm7-namespace/cm7r-7.68-ns6.4.yaml", "--fidelity", "fluid"])  # returns when done
    assert order[:2] == ["notice", "bounds"]


def test_catalog_show_lists_a_gpu_cards_family_parameters_once():
    """A GPU card carries its family's parameters as its own: `catalog show` listed each twice
    (`parameters.gpu_stripe_us` and `gpu_family.parameters.gpu_stripe_us`, one number); the family's
    own figures (its reference GPU, its drivers) stay."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    out = subprocess.run([sys.executable, "-m", "nvsim.cli", "catalog", "show", "graid-supremeraid-sr1000"],
                         cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, COLUMNS="400")).stdout
    fields = [line.split("\u2502")[1].strip() for line in out.splitlines() if line.count("\u2502") > 2]
    assert fields.count("parameters.gpu_stripe_us") == 1
    assert not [f for f in fields if f.startswith("gpu_family.parameters.")]
    assert "gpu_family.reference_gpu.memory_bytes_per_s" in fields


def test_run_json_records_the_set_up_beside_the_scenarios_name(cli):
    """`nvsim run --json` wrote the checked scenario under "scenario" and then overwrote it with the
    name: which driver, drives or strip a result came from was not in the file. The name stays under
    "scenario"; the set-up is "setup", with the engine as the tables name it."""
    result = cli("run", "scenarios/gpu-raid-family/pro-a1000-driver2.yaml", "--fidelity", "fluid", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["scenario"] == "gpu-raid-family-pro-a1000-driver2"
    setup = data["setup"]
    assert setup["array"]["engine_settings"] == {"driver": "2.x"} and setup["array"]["drives"] == 16
    assert setup["engine_label"].endswith("(driver 2.x)")
    # the rebuild fields the GPU card's rebuild reads, not md's speed limits (shown on every engine before)
    assert setup["array"]["rebuild"] == {"priority": "normal", "span_bytes": None}


def test_run_json_records_mds_rebuild_speed_limits_for_md():
    from nvsim.catalog import default_catalog
    from nvsim.cli import _setup_record
    from nvsim.scenario import load_scenario

    catalog = default_catalog()
    spec = load_scenario("scenarios/graid-gen5-raid6/md-raid6-4k.yaml", catalog)
    assert _setup_record(spec, catalog)["array"]["rebuild"]["speed_limit_max_kib_per_s"] == 200000
