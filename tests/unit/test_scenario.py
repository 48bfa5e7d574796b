"""nvsim/scenario.py: where a scenario file is found and what is refused as one."""

from pathlib import Path

import pytest

from nvsim.errors import InputError
from nvsim.plan.spec import PlanSpec
from nvsim.published import PublishedFile
from nvsim.scenario import OTHER_FILES, check_is_scenario
from nvsim.specs import ScenarioSpec
from nvsim.sweep import SweepSpec


def test_another_commands_file_is_told_by_a_key_only_its_own_kind_requires():
    """A published-numbers file, a sweep spec and a plan file are recognised by a top-level key their
    model requires and a scenario does not have, so a renamed key in either model fails here."""
    for (key, *_), model in zip(OTHER_FILES, (PublishedFile, SweepSpec, PlanSpec), strict=True):
        assert model.model_fields[key].is_required() and key not in ScenarioSpec.model_fields


def test_a_scenario_with_a_stray_key_is_left_to_the_scenario_check():
    """A scenario (its required keys present) with another kind's key is a scenario with an unknown
    key (refused by the scenario's own check, naming the key), not another kind of file."""
    check_is_scenario({"name": "a", "platform": "p", "array": {}, "base": "x.yaml"}, Path("s.yaml"))
    with pytest.raises(InputError, match=r"^SCENARIO: s\.yaml is a sweep spec \(top-level base:\), not a scenario; "
                                         r"`nvsim sweep s\.yaml -o OUT` runs it$"):
        check_is_scenario({"base": "x.yaml", "grid": {}}, Path("s.yaml"))


def test_a_fio_job_file_given_as_a_scenario_is_named_with_the_command_that_runs_it(tmp_path):
    """It was a YAML syntax error at its second line; a plan, sweep or published file already got its command."""
    from nvsim.errors import InputError
    from nvsim.scenario import load_scenario

    for name, text in (("job.fio", "[global]\nioengine=libaio\n[a]\nrw=randread\n"),
                       ("job.txt", "; a comment\n[a]\nrw=randread\nbs=4k\n")):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(InputError, match=r"this is a fio job file, not a YAML file; run it on a scenario with `nvsim fio .*"
                                             r"--system SCENARIO`"):
            load_scenario(path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [x\n")
    with pytest.raises(InputError, match="YAML syntax error"):
        load_scenario(bad)


@pytest.mark.parametrize("header", ["fio version 2 iolog", "fio version 3 iolog"])
def test_a_fio_iolog_given_as_a_scenario_names_the_option_that_replays_it(tmp_path, header):
    """It was "a scenario must be a YAML mapping" (the trace helper's finding, 2026-12-01)."""
    from nvsim.errors import InputError
    from nvsim.scenario import load_scenario

    path = tmp_path / "trace.log"
    path.write_text(f"{header}\n/dev/nvme0n1 add\n/dev/nvme0n1 open\n/dev/nvme0n1 read 0 4096\n")
    with pytest.raises(InputError, match=r"this is a fio I/O log \(a trace\), not a YAML file; replay it with "
                                         r"read_iolog=trace\.log in a fio job file"):
        load_scenario(path)


@pytest.mark.parametrize("command", ["run", "report", "sweep", "plan"])
def test_every_command_that_reads_yaml_names_a_fio_job_file(tmp_path, command):
    import subprocess
    import sys

    job = tmp_path / "job.fio"
    job.write_text("[global]\nioengine=libaio\n[a]\nrw=randread\n")
    args = {"run": [str(job)], "report": [str(job), "-o", str(tmp_path / "r.html")],
            "sweep": [str(job), "-o", str(tmp_path / "s")], "plan": [str(job), "-o", str(tmp_path / "p")]}[command]
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", command, *args], capture_output=True, text=True)
    assert done.returncode == 2 and "this is a fio job file, not a YAML file" in done.stderr, done.stderr
    assert not any(p.name in ("r.html", "s", "p") for p in tmp_path.iterdir())
