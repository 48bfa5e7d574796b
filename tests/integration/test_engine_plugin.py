"""An engine is one module and one catalog YAML: the test-only DPU engine (tests/support/) joins a
copy of models/ and runs through the public API in both modes, its mechanism visible in the
answers; a misspelled parameter, an unknown engine kind and an engine setting it does not know are
each refused with one line naming the field."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

import nvsim
from nvsim.catalog import load_catalog
from nvsim.engines import ENGINES
from nvsim.links import engine_link
from nvsim.scenario import parse_scenario

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "tests" / "support"
ENTRY = SUPPORT / "dpu-offload.yaml"
MODULE_NAME = "nvsim_test_support_dpu_engine"


def dpu_module():
    """tests/support/dpu_engine.py, imported once per process (importing it registers the kind)."""
    if MODULE_NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(MODULE_NAME, SUPPORT / "dpu_engine.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[MODULE_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[MODULE_NAME]


def catalog_with(tmp_path: Path, entry_text: str):
    """The repository's models/ plus one engine entry, loaded from a copy in ``tmp_path``."""
    dpu_module()
    shutil.copytree(ROOT / "models", tmp_path / "models")
    (tmp_path / "models" / "engines" / "dpu-offload.yaml").write_text(entry_text)
    return load_catalog(tmp_path / "models")


@pytest.fixture(scope="module")
def dpu_catalog(tmp_path_factory):
    return catalog_with(tmp_path_factory.mktemp("dpu"), ENTRY.read_text())


def scenario(catalog, **array_extra):
    data = {
        "name": "dpu-raid5", "platform": "asus-rs520a-e12-rs24u",
        "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB",
                  "engine": "dpu-offload", **array_extra},
        "workloads": [
            {"name": "randwrite", "rw": "randwrite", "bs": "4k", "iodepth": 16, "numjobs": 8},
            {"name": "seqread", "rw": "read", "bs": "128k", "iodepth": 16, "numjobs": 8},
        ],
    }
    return parse_scenario(data, catalog)


def test_the_module_registers_its_kind():
    assert ENGINES[dpu_module().KIND] is dpu_module().DpuEngine


def test_a_large_stripe_cost_makes_the_dpu_the_bottleneck(dpu_catalog):
    slow = dpu_catalog.with_values({"engines/dpu-offload/dpu_stripe_us": 40.0})
    sim = nvsim.Simulation(scenario(slow), "randwrite", catalog=slow)
    fluid = sim.run("fluid")
    p = slow.engines["dpu-offload"].parameters
    # a 4 KiB RAID5 write: one stripe update, 4 KiB read twice and written twice through the cores
    per_write_s = 1e-6 * (p["dpu_stripe_us"].value + 16 * p["dpu_us_per_kib"].value)
    assert fluid.bottleneck.startswith("DPU Arm cores (Test DPU)")
    assert fluid.write_iops == pytest.approx(p["dpu_cores"].value / per_write_s, rel=0.01)
    event = sim.run("event", host_ios=4000)
    assert event.bottleneck.startswith("DPU Arm cores")
    assert event.write_iops == pytest.approx(fluid.write_iops, rel=0.10)
    fast = dpu_catalog.with_values({"engines/dpu-offload/dpu_stripe_us": 0.1})
    quick = nvsim.Simulation(scenario(fast), "randwrite", catalog=fast).run("fluid")
    assert not quick.bottleneck.startswith("DPU") and quick.write_iops > 2 * fluid.write_iops


def test_the_dpu_link_carries_every_byte_read(dpu_catalog):
    sim = nvsim.Simulation(scenario(dpu_catalog), "seqread", catalog=dpu_catalog)
    result = sim.run("fluid")
    engine = dpu_catalog.engines["dpu-offload"]
    link = engine_link(engine, dpu_catalog.platforms[sim.scenario.platform], dpu_catalog)
    wire_bytes, _ = link.nvme_io_load(128 * 1024, True)
    busy = {u.resource: u.utilisation for u in result.utilisation}
    to_host = busy[f"RAID card link {link.name} to host"]
    assert to_host == pytest.approx(result.read_iops * wire_bytes / link.usable_bytes_per_s(), rel=1e-3)
    assert to_host > 0.5 and busy[f"RAID card link {link.name} to card"] < to_host
    event = sim.run("event", host_ios=3000)
    assert event.read_bytes_per_s == pytest.approx(result.read_bytes_per_s, rel=0.10)


@pytest.mark.parametrize("line, named", [
    ("  dpu_stripe_usec: {value: 2.0, source: nvsim-assumptions, basis: assumed}", "parameters.dpu_stripe_us"),
    ("  dpu_stripe_us: {value: 2.0, source: nvsim-assumptions, basis: assumed}\n"
     "  dpu_strpe_us: {value: 2.0, source: nvsim-assumptions, basis: assumed}", "parameters.dpu_strpe_us"),
])
def test_a_misspelled_parameter_fails_when_the_catalog_loads(tmp_path, line, named):
    """Misspelled: the key the schema wants is missing; misspelled beside the right one: unknown."""
    lines = [x for x in ENTRY.read_text().splitlines() if not x.startswith("  dpu_stripe_us:")]
    with pytest.raises(nvsim.InputError) as error:
        catalog_with(tmp_path, "\n".join(lines + [line]) + "\n")
    message = str(error.value)
    assert "\n" not in message and f"{named}:" in message and "dpu-offload.yaml" in message


def test_an_unknown_engine_kind_names_the_kinds_allowed(tmp_path):
    with pytest.raises(nvsim.InputError) as error:
        catalog_with(tmp_path, ENTRY.read_text().replace("engine_kind: dpu_offload", "engine_kind: dpu_ofload"))
    message = str(error.value)
    assert "\n" not in message and "engine_kind: unknown engine kind 'dpu_ofload'" in message
    assert all(kind in message.split("allowed:")[1] for kind in ("dpu_offload", "md", "gpu", "vroc"))


def test_an_engine_setting_the_engine_does_not_know_fails_at_scenario_load(dpu_catalog):
    with pytest.raises(nvsim.InputError) as error:
        scenario(dpu_catalog, engine_settings={"group_thread_cnt": 4})
    message = str(error.value)
    assert "\n" not in message and "array.engine_settings.group_thread_cnt" in message
