"""A tool that runs `fio` runs against nvsim unchanged (`nvsim-fio`, docs/fio.md): cdmpy 0.3.2's
call (`fio --ioengine posixaio --max-jobs=1 --output-format json JOBFILE`, its own job file) and
the fields it reads from fio's JSON."""

import json
import os
import subprocess
import sys

from conftest import ROOT

JOBFILE = ROOT / "tests" / "data" / "fio" / "wrappers" / "cdmpy-0.3.2.jobfile"
SHIM = "from nvsim.cli import fio_main; fio_main()"


def fio(*argv, system: str | None = str(ROOT / "scenarios" / "graid-gen5-raid6")):
    env = {k: v for k, v in os.environ.items() if k not in ("NVSIM_SYSTEM", "NVSIM_FIDELITY")}
    if system is not None:
        env.update(NVSIM_SYSTEM=system, NVSIM_FIDELITY="fluid")
    return subprocess.run([sys.executable, "-c", SHIM, *argv], capture_output=True, text=True, env=env, cwd=ROOT)


def test_cdmpys_call_gives_the_json_it_reads():
    result = fio("--ioengine", "posixaio", "--max-jobs=1", "--output-format", "json", str(JOBFILE))
    assert result.returncode == 0, result.stderr
    assert "--max-jobs ignored" in result.stderr
    info = {job.pop("jobname"): job for job in json.loads(result.stdout)["jobs"]}
    sections = {line.strip()[1:-1] for line in JOBFILE.read_text().splitlines() if line.startswith("[")} - {"global"}
    assert set(info) == sections  # cdmpy looks each of its jobs up by name
    read = info["seq-read-1m-q8-t1"]["read"]
    assert read["bw_bytes"] > 1e9 and read["iops"] > 0 and read["lat_ns"]["mean"] > 0
    write = info["seq-write-1m-q8-t1"]["write"]
    assert write["bw_bytes"] > 1e8


def test_without_a_system_the_shim_says_what_to_set():
    result = fio(str(JOBFILE), system=None)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "NVSIM_SYSTEM" in result.stderr


def test_a_system_that_is_not_there_is_refused_naming_the_variable():
    """The shim's user set $NVSIM_SYSTEM, not --system: the refusal names what they set."""
    result = fio(str(JOBFILE), system="no/such/scenario.yaml")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: NVSIM_SYSTEM: no/such/scenario.yaml") and "--system" not in result.stderr


def test_nvsims_own_options_are_refused_naming_the_variable_that_sets_them():
    """Every argument of nvsim-fio is fio's: --fidelity or --system there said "given more than
    once (--fidelity and --fidelity)" (the shim adds them from the environment)."""
    for argv, variable in ((("--fidelity=event",), "NVSIM_FIDELITY"), (("--system", "x"), "NVSIM_SYSTEM")):
        result = fio("--name=a", "--rw=randread", *argv)
        assert result.returncode == 2 and result.stderr.count("\n") == 1
        assert f"nvsim-fio takes it from ${variable}" in result.stderr


def test_without_a_system_the_shim_still_answers_fios_version_question():
    """Wrappers probe `fio --version` before anything else: a version query needs no array."""
    result = fio("--version", system=None)
    assert result.returncode == 0 and result.stdout.startswith("fio-3.42") and not result.stderr


def test_the_shim_answers_fios_version_question():
    result = fio("--version")
    assert result.returncode == 0 and result.stdout.startswith("fio-3.42")
