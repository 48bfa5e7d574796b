"""`nvsim report -o x.pdf` without Chromium refuses before it simulates (it ran the whole set-up
first, 7.6 s, then refused; a helper's finding), as a bad option does."""

import pytest

import nvsim.cli
from dashboard import report as one_page

from conftest import ROOT


def test_a_pdf_without_chromium_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(one_page, "pdf_missing", lambda: "the PDF needs Chromium (/x not found; set CHROMIUM)")

    def no_run(*_args, **_kwargs):
        raise AssertionError("simulated before the refusal")

    monkeypatch.setattr(one_page, "scenario_record", no_run)
    with pytest.raises(SystemExit) as done:
        nvsim.cli.main(["report", str(ROOT / "scenarios" / "kioxia-cm7-namespace"), "-o", str(tmp_path / "r.pdf")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err == "error: --out: the PDF needs Chromium (/x not found; set CHROMIUM)\n"
    assert not (tmp_path / "r.pdf").exists()
