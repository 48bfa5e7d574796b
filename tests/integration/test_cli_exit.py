"""The commands' entry points end without the interpreter's teardown (nvsim.cli._end_without_teardown),
and still do everything a normal exit does for the user: buffered output out, atexit handlers run,
other threads finished, the exit status and Python's own messages unchanged."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import atexit, sys, threading, time
from pathlib import Path
from nvsim.cli import _end_without_teardown
mark = Path(sys.argv[1])
how = sys.argv[2]

def entry():
    atexit.register(lambda: mark.with_suffix(".atexit").write_text("ran"))
    def late():
        time.sleep(0.3)
        mark.with_suffix(".thread").write_text("done")
    threading.Thread(target=late).start()
    sys.stdout.write("no newline, still buffered")
    if how == "code":
        raise SystemExit(3)
    if how == "text":
        raise SystemExit("went wrong")
    if how == "bug":
        raise RuntimeError("a bug")

_end_without_teardown(entry)
print("not reached")
"""


def _end(tmp_path: Path, how: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path / "mark"), how], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("how, status", [("return", 0), ("code", 3)])
def test_output_atexit_and_threads_survive_the_quick_end(tmp_path, how, status):
    done = _end(tmp_path, how)
    assert done.returncode == status, done.stderr
    assert done.stdout == "no newline, still buffered"  # flushed; nothing after the entry ran
    assert (tmp_path / "mark.atexit").read_text() == "ran"
    assert (tmp_path / "mark.thread").read_text() == "done"  # the non-daemon thread was joined
    assert done.stderr == ""


def test_text_exit_and_a_bug_take_pythons_own_way_out(tmp_path):
    text = _end(tmp_path, "text")
    assert text.returncode == 1 and text.stderr.strip() == "went wrong"
    bug = _end(tmp_path, "bug")
    assert bug.returncode == 1 and "Traceback" in bug.stderr and "RuntimeError: a bug" in bug.stderr


def test_a_closed_pipe_is_not_a_silent_success(tmp_path):
    """stdout closed under the command: the failed flush takes Python's own exit (its status 120
    where the final flush fails), never os._exit's 0."""
    reader = subprocess.Popen([sys.executable, "-c", PROGRAM, str(tmp_path / "mark"), "return"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.close()
    _, err = reader.communicate(timeout=60)
    assert reader.returncode != 0


def test_the_console_scripts_are_the_quick_ends():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"nvsim": "nvsim.cli:entry_point", "nvsim-fio": "nvsim.cli:fio_entry_point"}


def test_the_command_line_ends_with_its_status_and_output(tmp_path):
    """The real entry point (`python -m nvsim.cli`): a refused input keeps its one line and status 2,
    and a JSON answer written to stdout arrives whole."""
    bad = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", "scenarios/graid-gen5-raid6", "--fidelity", "nope"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    listed = subprocess.run([sys.executable, "-m", "nvsim.cli", "catalog"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "linux-md" in listed.stdout and listed.stdout.endswith("\n") and len(listed.stdout.splitlines()) > 20
