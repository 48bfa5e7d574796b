"""A catalog contributor's impossible drive figures are refused when the catalog loads, in one line
naming the field, never as a traceback from the drive model later."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nvsim.catalog import load_catalog
from nvsim.errors import InputError

MODELS = Path(__file__).resolve().parents[2] / "models"
ROOT = MODELS.parent
DRIVE = "drives/kioxia-cm7-r-7.68tb.yaml"


def catalog_with(tmp_path: Path, pattern: str, replacement: str) -> Path:
    shutil.copytree(MODELS, tmp_path / "models")
    drive = tmp_path / "models" / DRIVE
    text, n = re.subn(pattern, replacement, drive.read_text(), count=1, flags=re.M)
    assert n == 1
    drive.write_text(text)
    return tmp_path / "models"


@pytest.mark.parametrize("pattern, replacement, message", [
    (r"^raw_nand_bytes: \{value: 8 TiB", "raw_nand_bytes: {value: 7.68 TB", r"raw_nand_bytes: .*more than capacity_bytes"),
    (r"^indirection_unit_bytes: \{value: 4 KiB", "indirection_unit_bytes: {value: 1 TiB",
     r"indirection_unit_bytes: .*rand_write_iops"),
    (r"^indirection_unit_bytes: \{value: 4 KiB", "indirection_unit_bytes: {value: 3 KiB",
     r"indirection_unit_bytes: .*power of two"),
], ids=["no-spare", "iu-too-large-for-its-writes", "iu-not-a-power-of-two"])
def test_an_impossible_drive_figure_is_refused_naming_its_field(tmp_path, pattern, replacement, message):
    with pytest.raises(InputError, match=message):
        load_catalog(catalog_with(tmp_path, pattern, replacement))


def test_a_drive_with_no_spare_nand_stops_nvsim_run_in_one_line(tmp_path):
    models = catalog_with(tmp_path, r"^raw_nand_bytes: \{value: 8 TiB", "raw_nand_bytes: {value: 7.68 TB")
    env = {**os.environ, "NVSIM_CATALOG": str(models), "NVSIM_CATALOG_CACHE": "0", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", str(ROOT / "scenarios/kioxia-cm7-namespace"),
                           "--fidelity", "fluid"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "raw_nand_bytes" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
