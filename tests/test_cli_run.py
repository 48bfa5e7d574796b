import json

from nvsim.io import write_text_atomic


def test_run_default_scenario_prints_capacity_and_bounds(cli):
    result = cli("run", "scenarios/graid-gen5-raid6")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "84.48 TB" in out and "TiB" in out
    for metric in ("4K random read", "4K random write", "sequential read", "sequential write"):
        assert metric in out
    assert "limited by" in out


def test_run_json_is_machine_readable(cli, tmp_path):
    result = cli("run", "scenarios/graid-gen5-raid6", "--json")
    data = json.loads(result.stdout)
    assert data["capacity"]["usable_bytes"] == 84_480_000_000_000
    assert {b["metric"] for b in data["bounds"]} == {"4K random read", "4K random write", "sequential read", "sequential write"}
    assert all(b["limited_by"] for b in data["bounds"])
    target = tmp_path / "out" / "result.json"
    written = cli("run", "scenarios/graid-gen5-raid6", "--json", "-o", str(target))
    assert written.returncode == 0 and json.loads(target.read_text()) == data
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]  # no temp files left behind


def test_every_command_has_help(cli):
    for args in (["--help"], ["run", "--help"], ["catalog", "--help"], ["catalog", "show", "--help"], ["validate", "--help"]):
        result = cli(*args)
        assert result.returncode == 0 and "Usage" in result.stdout, args
    assert "usable capacity" in cli("run", "--help").stdout.lower()


def test_atomic_write_leaves_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "x.txt"
    write_text_atomic(target, "old")

    try:
        write_text_atomic(target, object())  # type: ignore[arg-type]
    except Exception:
        pass
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


def test_array_workloads_say_not_modelled_rather_than_guess(cli):
    predictions = json.loads(cli("run", "scenarios/graid-gen5-raid6", "--json").stdout)["predictions"]
    assert predictions and all(value is None for value in predictions.values())
