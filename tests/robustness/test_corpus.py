"""The bad-input corpus (tests/robustness/corpus.py), run in-process through the CLI's entry point:
every case exits with status 2 and one line on stderr matching its pattern, no traceback, no
output on stdout, and no file left behind in its folder."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
from pathlib import Path

import pytest
import yaml

from corpus import (ALL_CASES, BASE_PLAN, BASE_SCENARIO, DRIVE, FIO_SYSTEM, GOOD_FIO_JOB, GOOD_TRACES, TRACE_JOB, Case,
                    changed)
from nvsim.catalog import load_catalog
from nvsim.cli import main
from nvsim.errors import EXIT_INPUT_ERROR
from nvsim.fio import load_fio_jobfile, parse_trace
from nvsim.plan import prepare_plan
from nvsim.scenario import parse_scenario

ROOT = Path(__file__).resolve().parents[2]


def _repo(arg: str) -> str:
    """A repository path of the corpus (scenarios/...) made absolute: cases run in their own folder."""
    return str(ROOT / arg) if arg.startswith("scenarios/") else arg


def _prepare(case: Case, here: Path) -> list[str]:
    """Write the case's input into ``here``; the command line that reads it."""
    argv = [_repo(a) for a in case.argv]
    while "--mkdir" in argv or "--touch" in argv:  # set-up steps, not nvsim options
        flag = "--mkdir" if "--mkdir" in argv else "--touch"
        at = argv.index(flag)
        target = here / argv[at + 1]
        target.mkdir() if flag == "--mkdir" else target.write_text("x")
        del argv[at:at + 2]
    (here / "job.fio").write_text(GOOD_FIO_JOB)
    (here / "two.fio").write_text(GOOD_FIO_JOB + "[other]\nrw=randwrite\nbs=4k\n")  # two jobs fio runs together
    (here / "share.fio").write_text(GOOD_FIO_JOB + "size=1%\n")  # a region as a share of the device
    if "--link-loop" in argv:  # a symbolic link to itself
        at = argv.index("--link-loop")
        (here / argv[at + 1]).symlink_to(argv[at + 1])
        del argv[at:at + 2]
    if "--write-lost" in argv:  # a scenario whose faults at t = 0 lose data
        argv.remove("--write-lost")
        faults = [{"at_s": 0, "drive": d, "action": "fail"} for d in (0, 1, 2)]
        (here / "lost.yaml").write_text(yaml.safe_dump(dict(BASE_SCENARIO, faults=faults)))
    kind, data = case.kind, case.data
    if kind == "scenario":
        (here / "scenario.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    if kind == "scenario_text":
        (here / "scenario.yaml").write_bytes(data)
    if kind.startswith("scenario"):
        return ["run", "scenario.yaml", *argv]
    if kind == "fio_trace":  # a job that replays the case's trace
        (here / "t.trace").write_bytes(data)
        kind, data = "fio", TRACE_JOB.encode()
    if kind == "fio":
        (here / "bad.fio").write_bytes(data)
        return ["fio", "bad.fio", "--system", _repo(FIO_SYSTEM), *argv]
    if kind in ("sweep", "sweep_text"):
        text = data if kind == "sweep_text" else yaml.safe_dump(_absolute_base(data), sort_keys=False).encode()
        (here / "spec.yaml").write_bytes(text)
        return ["sweep", "spec.yaml", *(argv if "-o" in argv else [*argv, "-o", "out"])]
    if kind in ("plan", "plan_text"):
        text = data if kind == "plan_text" else yaml.safe_dump(data, sort_keys=False).encode()
        (here / "spec.yaml").write_bytes(text)
        return ["plan", "spec.yaml", *(argv if "-o" in argv else [*argv, "-o", "out"])]
    if kind.startswith("catalog"):
        _write_catalog(case, here / "models")
        return ["catalog"]
    return argv


def _absolute_base(data):
    if isinstance(data, dict) and isinstance(data.get("base"), str):
        return {**data, "base": _repo(data["base"])}
    return data


def _write_catalog(case: Case, models: Path) -> None:
    """A copy of models/ with the case's one change."""
    shutil.copytree(ROOT / "models", models)
    file, change = case.data[0], case.data[1:]
    target = models / file
    if case.kind == "catalog":
        path, value = change
        entry = yaml.safe_load(target.read_text())
        target.write_text(yaml.safe_dump(changed(entry, path, value), sort_keys=False))
    elif change[0] is None:  # the entry with one key written twice
        target.write_text(target.read_text() + "lanes: {value: 8, source: seed-000, basis: datasheet}\n")
    else:
        target.write_bytes(change[0])


def _files(here: Path) -> set[str]:
    return {str(p.relative_to(here)) for p in here.rglob("*")}


def run_case(case: Case, here: Path, monkeypatch) -> tuple[int, str, str, set[str]]:
    """Run one case in ``here``: (exit status, stdout, stderr, files it left behind)."""
    monkeypatch.chdir(here)
    argv = _prepare(case, here)
    inputs = _files(here)
    env = dict(case.env)
    if case.kind.startswith("catalog"):
        env["NVSIM_CATALOG"] = str(here / "models")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_info:
        main(argv)
    return exit_info.value.code, out.getvalue(), err.getvalue(), _files(here) - inputs


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_bad_input_is_one_line_exit_2_and_leaves_nothing(case: Case, tmp_path: Path, monkeypatch):
    here = tmp_path / "case"
    here.mkdir()
    code, out, err, left = run_case(case, here, monkeypatch)
    lines = err.strip().splitlines()
    assert code == EXIT_INPUT_ERROR, (code, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert re.search(case.pattern, lines[0]), lines[0]
    assert out == "", out
    assert not left, f"files left behind: {sorted(left)}"


def test_corpus_has_a_few_hundred_cases_over_every_input_kind():
    kinds = {case.kind.split("_")[0] for case in ALL_CASES}
    assert kinds == {"scenario", "fio", "sweep", "plan", "catalog", "cli"}
    assert len(ALL_CASES) >= 250
    assert len({case.id for case in ALL_CASES}) == len(ALL_CASES)


def test_corpus_cases_are_bad_only_in_what_they_change(tmp_path: Path, monkeypatch):
    """The base scenario, fio job and catalog copy of the corpus are valid: each case's failure
    comes from its one change."""
    catalog = load_catalog(ROOT / "models")
    assert parse_scenario(BASE_SCENARIO, catalog).array.drives == 8
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(BASE_PLAN))
    assert prepare_plan(tmp_path / "plan.yaml", catalog)[1].size == 1
    (tmp_path / "job.fio").write_text(GOOD_FIO_JOB)
    assert load_fio_jobfile(tmp_path / "job.fio", catalog=catalog).jobs[0].workload.iodepth == 32
    assert [len(parse_trace(text.encode()).size_bytes) for text in GOOD_TRACES.values()] == [2, 2, 1]
    shutil.copytree(ROOT / "models", tmp_path / "models")
    assert load_catalog(tmp_path / "models").drives[Path(DRIVE).stem].lanes.value == 4
