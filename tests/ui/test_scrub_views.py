"""Issue 38 (deliverable 5): the parity scrub a scenario asks for (``array.scrub``) in the one-page
report (``nvsim report``) and the dashboard's resilience cards; a set-up without one shows none."""

from pathlib import Path

import pytest
import yaml

from dashboard import app as dash_app, core, guard, report

ROOT = Path(__file__).resolve().parents[2]
FAST = ROOT / "scenarios" / "scrub" / "md-raid5-fast.yaml"


@pytest.fixture(scope="module")
def scrubbed(catalog):
    return report.scenario_record(FAST, catalog)


def test_the_report_has_a_scrub_section_when_the_scenario_asks(scrubbed, catalog):
    scrub = scrubbed["scrub"]
    assert scrub["reads"] == "every member" and not scrub["writes_member"]
    assert scrub["loaded_hours"] > scrub["idle_hours"] > 0 and 0 < scrub["host_share"] < 1
    section = report.scrub_html(scrubbed)
    assert "Parity scrub" in section and "every member" in section and "writes nothing" in section
    assert "speed_limit_min" in section  # what limits it under load
    assert section in report.report_html(scrubbed, catalog)
    plain = dict(scrubbed)
    plain.pop("scrub")
    assert report.scrub_html(plain) == ""


def test_a_set_up_without_a_scrub_computes_none(catalog):
    data = yaml.safe_load(FAST.read_text())
    data["array"]["scrub"] = False
    record = core.evaluate(data, core.parse_scenario(data, catalog), catalog, rebuild=False)
    assert "scrub" not in record


def test_the_dashboard_shows_a_scrub_card_and_an_imported_scenario_keeps_its_scrub(scrubbed, catalog):
    (card,) = dash_app.scrub_cards(scrubbed["scrub"])
    assert card.children[0].children == "Parity scrub" and card.children[1].children.endswith(" h")
    assert "under randrw70-b4k-j8-d16" in card.children[2].children
    assert dash_app.scrub_cards(None) == []
    assert dash_app.scrub_cards({"na": "why"})[0].children[1].children == "n/a"
    loaded = core.import_scenario(FAST.read_text(), "md-raid5-fast.yaml", catalog)
    assert loaded["extras"]["scrub"] is True
    data = core.scenario_dict(loaded["setup"], loaded["custom"], loaded["extras"], catalog)
    assert data["array"]["scrub"] is True


def test_a_crafted_scrub_extra_is_refused_by_its_shape():
    extras = guard._STORES["extras"]
    assert extras.validate_python({"scrub": True}).scrub is True
    with pytest.raises(Exception):
        extras.validate_python({"scrub": "maybe"})


def test_the_scrub_box_and_the_extras_store_are_kept_as_one():
    from dash import no_update

    from dashboard import views

    extras, box = views.scrub_sync("scrub", [views.SCRUB_ON], {"seed": 3})
    assert extras == {"seed": 3, "scrub": True} and box is no_update  # ticking sets array.scrub
    extras, _ = views.scrub_sync("scrub", [], {"seed": 3, "scrub": True})
    assert extras == {"seed": 3}  # unticking clears it
    assert views.scrub_sync("scrub", [views.SCRUB_ON], {"scrub": True}) == (no_update, no_update)
    assert views.scrub_sync("extras", [], {"scrub": True}) == (no_update, [views.SCRUB_ON])  # an import ticks it
    assert views.scrub_sync("extras", [views.SCRUB_ON], None) == (no_update, [])
    assert views.scrub_sync("extras", [], {}) == (no_update, no_update)


def test_the_ticked_box_asks_the_scenario_for_a_scrub_and_the_dashboard_shows_it(catalog):
    from dashboard import views

    setup = core.default_setup(catalog) | {"engine": "linux-md", "level": 5, "drives": 5, "strip_bytes": 131072}
    extras, _ = views.scrub_sync("scrub", [views.SCRUB_ON], None)
    assert core.scenario_dict(setup, None, extras, catalog)["array"]["scrub"] is True
    record = core.compute(setup, None, extras, catalog)
    assert record["scrub"]["idle_hours"] > 0 and dash_app.scrub_cards(record["scrub"])
    refused = core.compute(setup | {"level": 0}, None, extras, catalog)  # no redundancy: said beside the RAID level
    assert "check needs redundancy" in refused["errors"]["level"]


def test_the_scrub_box_takes_only_its_one_value():
    guard.check_value("scrub", "value", ["on"])
    guard.check_value("scrub", "value", [])
    for bad in (["/etc/passwd"], "on", [1]):
        with pytest.raises(guard.PayloadError):
            guard.check_value("scrub", "value", bad)
