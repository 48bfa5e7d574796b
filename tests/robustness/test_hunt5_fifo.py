"""A named pipe (FIFO) where nvsim reads a file: opened without waiting for a writer, it reads as
empty and is refused in one line (hunt 5: a FIFO named like a catalog entry blocked ``nvsim
catalog`` forever); a pipe a shell hands over still reads."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def test_a_fifo_among_the_catalogs_files_is_refused_in_one_line(tmp_path):
    models = tmp_path / "models"
    shutil.copytree(ROOT / "models", models)
    os.mkfifo(models / "drives" / "zz.yaml")
    run = subprocess.run([sys.executable, "-m", "nvsim.cli", "catalog"], env={**ENV, "NVSIM_CATALOG": str(models)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "zz.yaml" in run.stderr and "Traceback" not in run.stderr


def test_a_fifo_nothing_writes_to_reads_as_empty_at_once(tmp_path):
    fifo = tmp_path / "job.fio"
    os.mkfifo(fifo)
    code = f"from nvsim.loader import read_bytes; print(len(read_bytes({str(fifo)!r})))"
    run = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "0"


def test_a_pipe_with_a_writer_still_reads(tmp_path):
    text = (ROOT / "scenarios" / "unclean-shutdown" / "md-raid6.yaml").read_text()
    code = "import sys; from nvsim.loader import read_bytes; sys.stdout.write(read_bytes('/dev/stdin').decode())"
    run = subprocess.run([sys.executable, "-c", code], env=ENV, input=text, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == text
