"""A published.yaml's numbers (``nvsim.published``): a metric must be one nvsim predicts (a typo read
as "not modelled yet" and passed ``--strict``), each id names one number, and every number a run gives is in
the vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nvsim import published
from nvsim.errors import InputError
from nvsim.scenario import load_scenario
from nvsim.simulation import predict_workload
from nvsim.validation import compare_all

ROOT = Path(__file__).resolve().parents[2]
NUMBER = {"id": "x", "scenario": "s.yaml", "workload": "rr", "metric": "read_iops", "value": 1, "unit": "IOPS",
          "tolerance": {"relative": 0.1}, "table": "t", "wording": "w"}


def _file(tmp_path, *numbers) -> Path:
    path = tmp_path / "published.yaml"
    path.write_text(yaml.safe_dump({"source": "seed-000", "numbers": [{**NUMBER, **n} for n in numbers]}))
    return path


def test_an_unknown_metric_is_refused_naming_the_number_and_the_nearest_name(tmp_path):
    with pytest.raises(InputError, match=r"numbers\[1\]\.metric: unknown metric 'read_iop'; did you mean 'read_iops'\?"):
        published.load_published(_file(tmp_path, {}, {"id": "y", "metric": "read_iop"}))


def test_a_repeated_id_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"numbers: .*id 'x' is given twice"):
        published.load_published(_file(tmp_path, {}, {"metric": "write_iops"}))


@pytest.mark.parametrize("metric", ["read_latency_p99_us", "write_latency_p99_9_us", "transaction_latency_mean_us",
                                    "tps_ratio", "rebuild_mb_per_s_idle"])
def test_latencies_and_the_states_metrics_are_known(tmp_path, metric):
    workload = None if metric in published.SCENARIO_METRICS else "rr"
    assert published.load_published(_file(tmp_path, {"metric": metric, "workload": workload})).numbers[0].metric == metric


@pytest.mark.parametrize("number, refusal", [
    ({"workload": None}, r"numbers\[0\]: workload: read_iops is a workload's metric; name the workload of the scenario it was "
                         r"measured under$"),
    ({"metric": "usable_capacity_bytes", "unit": "bytes"},
     r"numbers\[0\]: workload: usable_capacity_bytes is the scenario's, with no workload running; leave workload out, got 'rr'$"),
])
def test_a_number_names_a_workload_exactly_when_its_metric_is_a_workloads(tmp_path, number, refusal):
    """Either way round the number read as "not modelled yet" and passed --strict (the fuzz helper's
    published files: read_iops without a workload, the capacity under one)."""
    with pytest.raises(InputError, match=refusal):
        published.load_published(_file(tmp_path, number))


@pytest.mark.parametrize("scenario, workload", [
    ("graid-gen5-raid6/scenario.yaml", "randwrite-b4k-j192-d16"),  # an array
    ("drive-families/kioxia-cd6-r-15.36tb.yaml", None),  # one drive: the SSD model's numbers
    ("graid-mysql-oltp/md-raid6-rebuilding.yaml", None),  # OLTP under a fault: the optimal state and the ratio
])
def test_every_number_a_run_gives_is_a_metric_a_published_file_may_name(catalog, scenario, workload):
    spec = load_scenario(ROOT / "scenarios" / scenario, catalog)
    chosen = next(w for w in spec.workloads if workload in (None, w.name))
    values = predict_workload(spec, chosen, catalog, "fluid")
    numbers = [k for k, v in values.items() if isinstance(v, (int, float))]
    assert numbers and all(k in published.METRICS or published.LATENCY_METRIC.fullmatch(k) for k in numbers), numbers


def test_every_shipped_number_names_a_known_metric_and_a_unique_id():
    for path in published.published_files():
        numbers = published.load_published(path).numbers  # validated: an unknown metric or a repeated id raises
        assert numbers


@pytest.mark.parametrize("changed, words", [
    ({"value": 0}, r"numbers\[0\]: value: must be above 0 for a relative tolerance"),
    ({"value": -5}, r"numbers\[0\]: value: must be above 0 for a relative tolerance"),
    ({"value": float("inf")}, r"numbers\[0\]: value: must be a finite number"),
    ({"metric": "read_bytes_per_s", "unit": "B/s", "value": "1M"}, r"numbers\[0\]: value: '1M' is not a number in B/s"),
    ({"value": "lots"}, r"numbers\[0\]: value: 'lots' is not a number in IOPS"),
])
def test_a_value_that_is_no_number_of_its_unit_or_zero_under_a_relative_tolerance_is_refused(tmp_path, changed, words):
    """validate divided by it (ZeroDivisionError) or parsed it mid-run (a traceback): refused at load."""
    with pytest.raises(InputError, match=words):
        published.load_published(_file(tmp_path, changed))


def test_zero_under_an_absolute_tolerance_is_a_number(tmp_path):
    number = published.load_published(_file(tmp_path, {"metric": "cpu_percent", "unit": "percent", "value": 0,
                                                        "tolerance": {"absolute": 5}})).numbers[0]
    assert number.numeric_value == 0.0


def test_a_source_the_bibliography_does_not_hold_is_refused(tmp_path):
    path = tmp_path / "published.yaml"
    path.write_text(yaml.safe_dump({"source": "seed-0000", "numbers": [NUMBER]}))
    with pytest.raises(InputError, match=r"source: 'seed-0000' is not in models/bibliography\.yaml; did you mean 'seed-000'"):
        published.load_published(path)


@pytest.mark.parametrize("number, refusal", [
    ({"scenario": "nope.yaml"}, r"published\.yaml: numbers\[0\]\.scenario: no scenario file 'nope\.yaml' beside published\.yaml; "
                                r"allowed: s\.yaml$"),
    ({"workload": "nope"}, r"published\.yaml: numbers\[0\]\.workload: s\.yaml has no workload 'nope'; allowed: rr$"),
])
def test_a_number_naming_no_scenario_or_workload_is_refused_naming_the_number(tmp_path, catalog, number, refusal):
    """Named 'SCENARIO' (nvsim run's argument) or 'workload' alone, without the published file or the
    number (the fuzz helper's published files)."""
    folder = tmp_path / "set"
    folder.mkdir()
    scenario = {"name": "s", "platform": "supermicro-as-2125hs-tnr",
                "array": {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 2, "engine": "linux-md"},
                "workloads": [{"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 1, "numjobs": 1}]}
    (folder / "s.yaml").write_text(yaml.safe_dump(scenario))
    _file(folder, number)
    with pytest.raises(InputError, match=refusal):
        compare_all(folder, catalog=catalog)
