"""A RAID card added to the catalog from its datasheet alone -- a family with no fitted value and a
SKU with its figures -- loads, runs, and meets its own ceilings where the card is the bottleneck
(docs/catalog.md, "Adding a RAID card")."""

import shutil
from pathlib import Path

import pytest
import yaml

from nvsim.catalog import load_catalog
from nvsim.scenario import load_scenario
from nvsim.simulation import Simulation

MODELS = Path(__file__).resolve().parents[3] / "models"
SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "graid-gen5-raid5-16x" / "hardware-raid5.yaml"

FAMILY = """\
name: test-roc-family
vendor: Test
roc: Test ROC
generation: test
levels: [0, 1, 5, 6, 10]
firmware:
  rebuild_rate_percent: {value: 30, source: nvsim-assumptions, basis: assumed, note: test}
"""
SKU = """\
name: test-datasheet-card
family: test-roc-family
product: Test datasheet card
device:
  product: Test datasheet card
  pcie_generation: {value: 4, source: nvsim-assumptions, basis: datasheet}
  lanes: {value: 16, source: nvsim-assumptions, basis: datasheet}
  max_drives: {value: 32, source: nvsim-assumptions, basis: datasheet}
  max_read_iops: {value: 4M, source: nvsim-assumptions, basis: datasheet}
  max_raid5_write_iops: {value: 400K, source: nvsim-assumptions, basis: datasheet}
  max_raid5_write_bytes_per_s: {value: 12 GB/s, source: nvsim-assumptions, basis: datasheet}
  cache_mt_per_s: {value: 3200, source: nvsim-assumptions, basis: datasheet}
  cache_bus_bits: {value: 64, source: nvsim-assumptions, basis: datasheet}
"""


@pytest.fixture(scope="module")
def card_catalog(tmp_path_factory):
    models = tmp_path_factory.mktemp("catalog") / "models"
    shutil.copytree(MODELS, models)
    (models / "card_families" / "test-roc-family.yaml").write_text(FAMILY)
    (models / "engines" / "test-datasheet-card.yaml").write_text(SKU)
    return load_catalog(models)


def _run(catalog, workload_name, **array):
    raw = yaml.safe_load(SCENARIO.read_text())
    raw["array"].update({"engine": "test-datasheet-card", **array})
    raw["workloads"] = [w for w in raw["workloads"] if w["name"] == workload_name]
    from nvsim.scenario import parse_scenario
    scenario = parse_scenario(raw, catalog)
    return Simulation(scenario, scenario.workloads[0], catalog=catalog).run("fluid").metrics()


def test_no_fitted_value_anywhere(card_catalog):
    engine = card_catalog.engines["test-datasheet-card"]
    assert engine.parameters == {} and engine.firmware.rebuild_rate_percent.value == 30


def test_random_reads_meet_the_read_ceiling(card_catalog):
    iops = _run(card_catalog, "randread-b4k-j128-d64")["read_iops"]
    assert iops == pytest.approx(4e6, rel=0.03)  # 16 CM7-R drives could give 40M: the card holds it


def test_random_raid5_writes_meet_the_write_ceiling(card_catalog):
    iops = _run(card_catalog, "randwrite-b4k-j128-d64")["write_iops"]
    assert iops == pytest.approx(400e3, rel=0.05)


def test_pass_through_is_one_command_per_io_and_no_raid(card_catalog):
    metrics = _run(card_catalog, "randread-b4k-j128-d64", level=0, engine_settings={"mode": "passthrough"})
    assert metrics["read_iops"] == pytest.approx(4e6, rel=0.03)
    writes = _run(card_catalog, "randwrite-b4k-j128-d64", level=0, engine_settings={"mode": "passthrough"})
    assert writes["write_iops"] > 3e6  # no parity work: the drives and the command processor
