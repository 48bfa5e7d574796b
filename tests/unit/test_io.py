"""Output paths (``nvsim.io``): a rename over a device, FIFO or socket would replace the node itself
(as root, ``-o /dev/null`` made /dev/null a file), so such a target is refused in one line naming
the field, before any work, and left as it was; a symbolic link is written through (the file it
names is replaced, the link stays a link)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from conftest import ROOT
from nvsim.errors import InputError
from nvsim.io import check_output_path, commit_together, json_ready, json_text, output_target, write_text_atomic

BASE = ROOT / "scenarios" / "graid-gen5-raid6" / "scenario.yaml"


def _fifo(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    return fifo


def test_a_fifo_is_refused_by_the_check_and_by_the_writer_and_stays_a_fifo(tmp_path):
    fifo = _fifo(tmp_path)
    with pytest.raises(InputError, match=r"--output: .*out\.fifo is a FIFO, not a regular file"):
        check_output_path(fifo, "--output")
    with pytest.raises(InputError, match="is a FIFO"):
        write_text_atomic(fifo, "{}")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # no temporary left


def test_a_link_to_a_fifo_is_refused_naming_both(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(_fifo(tmp_path))
    with pytest.raises(InputError, match=r"is a FIFO \(the link .*link\.json names it\)"):
        check_output_path(link, "-o")


def test_a_character_device_is_refused():
    with pytest.raises(InputError, match="/dev/null is a character device"):
        output_target("/dev/null", "--out")


def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "answer.json"
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to("answer.json")  # relative, as `ln -s` makes it
    write_text_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == "answer.json"
    assert target.read_text() == "new"


def test_files_committed_together_are_written_through_a_link(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    (tmp_path / "out.csv").symlink_to(target)

    def writer(text):
        return lambda tmp: open(tmp, "w").write(text)

    commit_together([(tmp_path / "out.csv", writer("a,b\n")), (tmp_path / "out.txt", writer("x"))])
    assert (tmp_path / "out.csv").is_symlink() and target.read_text() == "a,b\n"
    assert (tmp_path / "out.txt").read_text() == "x"


def test_nvsim_run_onto_a_fifo_exits_2_in_one_line_before_any_work(tmp_path):
    fifo = _fifo(tmp_path)
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", str(BASE), "--fidelity", "fluid", "-o", str(fifo)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: --output: {fifo} is a FIFO, not a regular file; give a file path"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_json_nvsim_writes_is_strict_json_with_null_for_undefined_and_unbounded_numbers():
    """A read-only single drive's WAF (no writes: NaN) and a rebuild that never ends (infinity)
    were written as NaN and Infinity, which strict JSON readers refuse."""
    import json
    import numpy as np
    data = {"waf": float("nan"), "hours": float("inf"), "rows": [np.float64("-inf"), np.int64(3), 2.5, True, None, "x"]}
    assert json_ready(data) == {"waf": None, "hours": None, "rows": [None, 3, 2.5, True, None, "x"]}
    assert json.loads(json_text(data), parse_constant=lambda c: pytest.fail(f"non-standard constant {c}"))["rows"][1] == 3
