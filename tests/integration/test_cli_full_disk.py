"""A write the file system refuses for room (ENOSPC, EDQUOT) is one line and exit 1, the old file
kept: it was a 42-line traceback (a helper's finding on a 12 KiB tmpfs, 2026-12-01)."""

import errno

import pytest

import nvsim.cli
import nvsim.io

from conftest import ROOT


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_disk_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys, code):
    target = tmp_path / "r.json"
    target.write_text("ORIG")
    real = nvsim.io._fsync_file

    def full(path):
        real(path)
        raise OSError(code, "No space left on device")

    monkeypatch.setattr(nvsim.io, "_fsync_file", full)
    with pytest.raises(SystemExit) as done:
        nvsim.cli.main(["run", str(ROOT / "scenarios" / "kioxia-cm7-namespace"), "--fidelity", "fluid", "--json",
                        "-o", str(target)])
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: cannot write") and "Traceback" not in err
    assert target.read_text() == "ORIG" and [p.name for p in tmp_path.iterdir()] == ["r.json"]
