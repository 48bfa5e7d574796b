"""The one-page report's validation status when this install's published numbers cannot be found:
"not found", never "no published number uses it" (issue 40)."""

from __future__ import annotations

import pytest

from dashboard import report
from nvsim import published

RECORD = {"scenario": {"array": {"drive": "no-such-drive", "engine": "no-such-engine"}, "platform": "no-such-platform"}}


@pytest.fixture
def fresh_caches():
    report._published.cache_clear()
    report.validation_status.cache_clear()
    yield
    report._published.cache_clear()
    report.validation_status.cache_clear()


def test_absent_published_files_are_not_found(tmp_path, monkeypatch, catalog, fresh_caches):
    monkeypatch.setattr(published, "SCENARIO_ROOTS", (tmp_path / "clone", tmp_path / "package"))
    html = report.validation_html(RECORD, catalog)
    assert html.count("not found: this install's published numbers could not be found") == 3
    assert "no published number uses" not in html
    assert "Published numbers not found: this install has no scenarios/*/published.yaml" in html
    assert str(tmp_path) not in html  # the dashboard serves this report: no server folder in it


def test_found_files_that_no_number_uses_still_say_none_uses_it(catalog, fresh_caches):
    html = report.validation_html(RECORD, catalog)
    assert html.count("no published number uses it") == 3 and "not found" not in html
