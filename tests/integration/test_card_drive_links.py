"""Drives behind a hardware RAID card run at the card's generation (nvsim.links.behind_card): a
Gen5 drive cabled to a Gen4 tri-mode card's ports is a Gen4 x4 device, whatever the bay; a
software engine leaves the bay's Gen5 link."""

from __future__ import annotations

import pytest
import yaml

import nvsim
from nvsim.catalog import default_catalog
from nvsim.links import behind_card, drive_link


def _scenario(tmp_path, engine: str, settings: dict | None = None):
    array = {"level": 0, "drive": "kioxia-cm7-r-3.84tb", "drives": 1, "engine": engine}
    if settings:
        array["engine_settings"] = settings
    path = tmp_path / f"{engine}.yaml"
    path.write_text(yaml.safe_dump({"name": "card-links", "platform": "supermicro-as-2125hs-tnr", "array": array,
                                    "workloads": [{"name": "seqread", "rw": "read", "bs": "128k", "numjobs": 4,
                                                   "iodepth": 32, "ioengine": "libaio"}], "seed": 1}))
    return str(path)


def test_a_gen4_card_runs_its_drives_at_gen4(tmp_path):
    catalog = default_catalog()
    drive, platform = catalog.drives["kioxia-cm7-r-3.84tb"], catalog.platforms["supermicro-as-2125hs-tnr"]
    bay = drive_link(drive, platform, catalog)
    card = behind_card(bay, catalog.engines["broadcom-megaraid-9670w-16i"], catalog)
    assert bay.generation.generation == 5 and card.generation.generation == 4 and card.lanes == bay.lanes
    assert behind_card(bay, catalog.engines["linux-md"], catalog) is bay
    workload = nvsim.WorkloadSpec(name="seqread", rw="read", bs=131072, numjobs=4, iodepth=32, ioengine="libaio")
    passthrough = nvsim.Simulation(_scenario(tmp_path, "broadcom-megaraid-9670w-16i", {"mode": "passthrough"}),
                                   workload).run("fluid").simulation
    assert passthrough.read_bytes_per_s <= card.usable_bytes_per_s() * (1 + 1e-9)
    assert "Gen4 x4" in passthrough.limited_by
    plain = nvsim.Simulation(_scenario(tmp_path, "none"), workload).run("fluid").metrics()
    assert plain["read_bytes_per_s"] > 1.5 * passthrough.read_bytes_per_s  # the bay's Gen5 x4: the drive's 14 GB/s


def test_a_tri_mode_card_that_gives_each_drive_one_lane_runs_it_at_x1(tmp_path):
    """Lenovo's RAID 940-16i (LP1282): in Tri-Mode 'each drive has a x1 connection to the adapter'
    (``device.drive_link_lanes``): a CM7-R passed through it is a Gen4 x1 device (about 1.9 GB/s of
    sequential reads), where its bay's x4 gave it 7.5 GB/s; a card that states no width keeps the bay's."""
    catalog = default_catalog()
    drive, platform = catalog.drives["kioxia-cm7-r-3.84tb"], catalog.platforms["supermicro-as-2125hs-tnr"]
    bay = drive_link(drive, platform, catalog)
    card = behind_card(bay, catalog.engines["lenovo-thinksystem-raid-940-16i"], catalog)
    assert (card.generation.generation, card.lanes) == (4, 1) and bay.lanes == 4
    assert behind_card(bay, catalog.engines["broadcom-megaraid-9670w-16i"], catalog).lanes == 4
    workload = nvsim.WorkloadSpec(name="seqread", rw="read", bs=131072, numjobs=4, iodepth=32, ioengine="libaio")
    passthrough = nvsim.Simulation(_scenario(tmp_path, "lenovo-thinksystem-raid-940-16i", {"mode": "passthrough"}),
                                   workload).run("fluid").simulation
    assert passthrough.read_bytes_per_s <= card.usable_bytes_per_s() * (1 + 1e-9)
    assert "Gen4 x1" in passthrough.limited_by
