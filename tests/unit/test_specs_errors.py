"""Every bad input named in the foundation issue: one line naming the field, exit status 2, no traceback."""

import textwrap
from pathlib import Path

import pytest

from nvsim.errors import InputError
from nvsim.scenario import parse_scenario

BASE = {
    "name": "t", "platform": "supermicro-as-2125hs-tnr",
    "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 24, "strip_bytes": "4KiB", "engine": "linux-md"},
    "workloads": [{"name": "w", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 4}],
}


def with_changes(**array_or_workload):
    import copy
    data = copy.deepcopy(BASE)
    for key, value in array_or_workload.items():
        target, field = key.split("__")
        if target == "array":
            data["array"][field] = value
        elif target == "workload":
            data["workloads"][0][field] = value
        else:
            data[field] = value
    return data


CASES = [
    ("raid6-3-drives", with_changes(array__drives=3), "array", "RAID6 needs at least 4 drives, got 3"),
    ("strip-not-4k", with_changes(array__strip_bytes="6KiB"), "array.strip_bytes", "multiple of 4 KiB"),
    ("namespace-too-big", with_changes(array__namespace_bytes="4 TB"), "array", "larger than the drive"),
    ("unknown-drive", with_changes(array__drive="kioxia-cm7r-3.84"), "array.drive", "did you mean 'kioxia-cm7-r-3.84tb'"),
    ("iodepth-0", with_changes(workload__iodepth=0), "workloads[0].iodepth", "greater than or equal to 1"),
    ("unknown-key", with_changes(array__stripe="4KiB"), "array.stripe", "did you mean 'strip_bytes'"),
    ("unknown-engine", with_changes(array__engine="md"), "array.engine", "unknown engine"),
    ("unknown-platform", with_changes(top__platform="supermicro-as-2125"), "platform", "did you mean"),
    ("bad-layout", with_changes(array__layout="diagonal"), "array", "layout: RAID6 allows left-symmetric"),
    ("bad-size-unit", with_changes(array__strip_bytes="4 parsecs"), "array.strip_bytes", "unknown size unit"),
    ("drives-true", with_changes(array__drives=True), "array.drives", "must be a number, got true"),
    ("iodepth-true", with_changes(workload__iodepth=True), "workloads[0].iodepth", "must be a number, got true"),
    ("size-false", with_changes(workload__size=False), "workloads[0].size", "must be a number, got false"),
    ("seed-true", with_changes(top__seed=True), "seed", "must be a number, got true"),
    ("namespace-256k", with_changes(array__namespace_bytes="256KiB"), "array", "namespace_bytes: at least 1 MiB per drive"),
    ("speed-limit-inf", with_changes(array__rebuild={"speed_limit_max_kib_per_s": float("inf")}),
     "array.rebuild.speed_limit_max_kib_per_s", "inf KiB/s; allowed: a whole number of KiB/s"),
    ("write-part-on-a-read-job", with_changes(workload__bs_mix=[{"bs": "4k", "share": 0.5}, {"bs": "8k", "share": 0.5, "rw": "write"}]),
     "workloads[0]", "bs_mix: a part marked rw: write in a job of rw: randread, which issues no writes"),
    ("bssplit-huge", with_changes(workload__bs=None, workload__bssplit="1e308k/50:4k/50"), "workloads[0]",
     "block size '1e308k' must be at most 2^64 bytes"),
]


@pytest.mark.parametrize("name, data, field, phrase", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_gives_one_line_naming_the_field(name, data, field, phrase):
    with pytest.raises(InputError) as info:
        parse_scenario(data)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(field), message
    assert phrase in message, message


def test_a_good_scenario_parses_and_is_frozen():
    spec = parse_scenario(BASE)
    assert spec.array.strip_bytes == 4096 and spec.workloads[0].bs == 4096
    with pytest.raises(Exception):
        spec.array.drives = 3  # frozen


@pytest.mark.parametrize("name, data, field, phrase", CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_cli_exit_status_2_and_no_traceback(tmp_path: Path, cli, name, data, field, phrase):
    import yaml
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    result = cli("run", str(path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and phrase in lines[0] and str(path) in lines[0]
    assert result.stdout == ""


def test_yaml_syntax_error_names_the_line(tmp_path: Path, cli):
    path = tmp_path / "broken.yaml"
    path.write_text(textwrap.dedent("""\
        name: x
        array:
          level: 6
         drives: 3
        """))
    result = cli("run", str(path))
    assert result.returncode == 2
    assert "line 4" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file_and_usage_errors_are_one_line(cli):
    for args in (["run", "no/such/scenario.yaml"], ["run"], ["frobnicate"], ["catalog", "--kind", "drivez"]):
        result = cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_truth_value_stays_one_where_the_field_is_a_switch():
    data = with_changes(workload__time_based=True, workload__runtime=10)
    assert parse_scenario(data).workloads[0].time_based is True


@pytest.mark.parametrize("args, option, phrase", [
    (["-o", "a.json", "--output=b.json"], "--output", "given more than once (-o and --output)"),
    (["--fidelity", "fluid", "--fidelity=event"], "--fidelity", "given more than once"),
    (["-o", "out/"], "--output", "ends in a path separator"),
    (["-oout/"], "--output", "ends in a path separator"),
])
def test_a_repeated_option_or_a_folder_as_output_is_refused_before_any_work(tmp_path: Path, cli, args, option, phrase):
    import yaml
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(BASE))
    result = cli("run", str(path), *args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: {option}: ") and phrase in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]  # nothing written


def test_fio_output_given_twice_is_refused(tmp_path: Path, cli):
    result = cli("fio", "--system", "scenarios/graid-gen5-raid6", "-o", str(tmp_path / "a"), f"--output={tmp_path / 'b'}",
                 "--name=a", "--rw=randread", "--bs=4k", "--size=1g")
    assert result.returncode == 2 and "--output: given more than once" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_level_written_as_text_is_read_as_the_number_as_drives_is():
    from nvsim import parse_scenario

    data = {"name": "x", "platform": "dell-poweredge-r750",
            "array": {"level": "6", "drive": "intel-d7-p5510-3.84tb", "drives": "8", "engine": "linux-md"}}
    spec = parse_scenario(data)
    assert (spec.array.level, spec.array.drives) == (6, 8)


def test_the_rebuild_summary_of_a_spec_with_a_part_the_catalog_lacks_is_one_input_error():
    """A spec parsed against the user's own catalog, summarised without it, raised a KeyError."""
    import pytest

    from nvsim import InputError, load_scenario, rebuild_summary, run_timeline

    spec = load_scenario("scenarios/graid-gen5-raid6").model_copy(update={"platform": "my-own-server"})
    for call in (lambda: rebuild_summary(spec), lambda: run_timeline(spec, None)):
        with pytest.raises(InputError, match=r"platform: 'my-own-server' is not in the catalog given .*catalog="):
            call()
