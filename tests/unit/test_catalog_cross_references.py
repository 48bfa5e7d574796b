"""Catalog entries are checked against each other and against PCIe when the catalog loads
(issue 34): a slot on a socket the platform lacks, two slots of one name, a switch with more ports
than lanes to feed them, a link width PCIe does not define (a x3 bay: a ValueError traceback when a
scenario used it), a SKU's ``family`` that is not a name (a TypeError) -- each one line naming the
file and the field, before anything runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from nvsim.catalog import load_catalog
from nvsim.errors import InputError

MODELS = Path(__file__).resolve().parents[2] / "models"
PLATFORM = "platforms/supermicro-as-2125hs-tnr.yaml"  # 2 sockets; slot1-x16 on 0, slot2-x16 on 1
SWITCH = "switches/broadcom-pex89104.yaml"  # 104 lanes, 52 ports
SKU = "drives/intel-d7-p5600-6.4tb.yaml"  # a SKU of family intel-d7-p5500-p5600


def _set(entry: dict, path: str, value) -> dict:
    node = entry
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[int(parts[-1]) if isinstance(node, list) else parts[-1]] = value
    return entry


CASES = [
    (PLATFORM, "slots.1.socket", 2, r"slots\[1\]\.socket: socket 2 does not exist; the platform has 2 socket\(s\), allowed: 0\.\.1"),
    (PLATFORM, "slots.1.name", "slot1-x16", r"slots\[1\]\.name: 'slot1-x16' names two slots"),
    (PLATFORM, "slots.0.lanes", 3, r"slots\[0\]\.lanes: a PCIe link is x1, x2, x4, x8, x16 or x32 wide, got 3"),
    (PLATFORM, "drive_bay_lanes.value", 6, r"drive_bay_lanes: a PCIe link is .* got 6"),
    (SWITCH, "ports.value", 105, r"ports: 105 ports need at least 105 lanes \(x1 each\); lanes is 104"),
    (SWITCH, "ports.value", 1, r"ports: a switch has an upstream port and at least one downstream port, got 1"),
    ("backplanes/supermicro-2u-24x-nvme-gen5.yaml", "bay_lanes.value", 3, r"bay_lanes: a PCIe link is .* got 3"),
    ("drives/kioxia-cm7-r-3.84tb.yaml", "lanes.value", 5, r"lanes: a PCIe link is .* got 5"),
    ("engines/broadcom-megaraid-9560-16i.yaml", "device.lanes.value", 12, r"device: lanes: a PCIe link is .* got 12"),
    (SKU, "family", ["intel-d7-p5500-p5600"], r"family: must name one drive family of models/families/ \(a string\), got a list"),
    (SKU, "family", {"name": "intel-d7-p5500-p5600"}, r"family: .*got a dict; allowed: intel-d7-p5500-p5600"),
]


@pytest.mark.parametrize("file,path,value,pattern", CASES, ids=[f"{f.split('/')[0]}-{p}-{v}" for f, p, v, _ in CASES])
def test_a_bad_cross_reference_is_one_line_naming_the_file_and_field(tmp_path, file, path, value, pattern):
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    target = models / file
    target.write_text(yaml.safe_dump(_set(yaml.safe_load(target.read_text()), path, value), sort_keys=False))
    with pytest.raises(InputError) as info:
        load_catalog(models)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{target}: ")
    assert re.search(pattern, message), message


def test_the_shipped_catalog_meets_every_cross_reference():
    catalog = load_catalog(MODELS)
    for platform in catalog.platforms.values():
        names = [slot.name for slot in platform.slots]
        assert len(set(names)) == len(names)
        assert all(0 <= slot.socket < platform.cpu.sockets for slot in platform.slots)
    assert all(2 <= s.ports.value <= s.lanes.value for s in catalog.switches.values())
