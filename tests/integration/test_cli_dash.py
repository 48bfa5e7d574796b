"""'-' on the command line: a job file named '-' is read from standard input, as fio reads it; an
output named '-' is refused in one line (a file called '-' was written where standard output was
meant, and `nvsim fio -` said no such file; a helper's findings)."""

import json
import os
import subprocess
import sys

from conftest import ROOT

JOB = "[a]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\niodepth=8\n"


def _nvsim(*args, stdin="", cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "nvsim.cli", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, COLUMNS="160"), timeout=120)


def test_a_job_file_named_dash_is_standard_input():
    done = _nvsim("fio", "-", "--system", str(ROOT / "scenarios/graid-gen5-raid6"), "--fidelity", "fluid", stdin=JOB)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["jobs"][0]["jobname"] == "a"


def test_an_output_named_dash_is_refused_and_no_file_is_written(tmp_path):
    done = _nvsim("run", str(ROOT / "scenarios/kioxia-cm7-namespace"), "--fidelity", "fluid", "--json", "-o", "-",
                  cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "'-' is not a file here" in done.stderr and list(tmp_path.iterdir()) == []
