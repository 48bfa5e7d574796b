"""Published numbers: every file parses, every scenario it names loads, modelled ones sit in tolerance."""

import json

import pytest

from nvsim.validation import compare_all, load_published, published_files, summary


def test_published_files_parse_and_name_real_scenarios_and_workloads():
    files = published_files()
    assert files, "no scenarios/*/published.yaml"
    comparisons = compare_all()
    assert len(comparisons) == sum(len(load_published(p).numbers) for p in files)


def test_capacity_claim_of_seed_000_is_reproduced():
    by_id = {c.number.id: c for c in compare_all()}
    claim = by_id["capacity-676tb"]
    assert claim.predicted == 22 * 30.72e12
    assert claim.status == "ok"


def test_no_modelled_number_is_out_of_tolerance():
    out = [c.as_record() for c in compare_all() if c.status == "OUT"]
    assert out == [], json.dumps(out, indent=1)
    assert summary(compare_all())["modelled"] >= 1


def test_validate_json_records_have_the_promised_fields(cli):
    result = cli("validate", "--json")
    assert result.returncode == 0, result.stderr
    records = json.loads(result.stdout)
    for record in records:
        assert {"scenario", "metric", "unit", "published", "predicted", "fitted"} <= set(record)
        assert isinstance(record["fitted"], bool)


def test_model_code_never_reads_published_files():
    from pathlib import Path
    package = Path(__file__).resolve().parent.parent / "nvsim"
    allowed = {"validation.py", "cli.py", "report.py", "calibrate.py"}
    readers = sorted(p.name for p in package.rglob("*.py")
                     if p.name not in allowed and any(word in p.read_text() for word in ("published.yaml", "load_published", "compare_all")))
    assert readers == [], readers


def test_declared_fits_are_labelled_fitted_and_reproduce():
    from nvsim.calibrate import fit_all, fitted_ids
    comparisons = compare_all()
    labelled = {f"{c.scenario_dir}/{c.number.id}" for c in comparisons if c.fitted}
    assert labelled == set(fitted_ids())
    for fitted_now, in_use in fit_all().values():
        assert fitted_now == pytest.approx(in_use, rel=0.02)
