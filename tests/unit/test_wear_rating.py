"""A drive's endurance rating is in drive writes of its own rating workload (random writes of the
datasheet's random block size over the whole span): that workload, run at the rated DWPD, lasts the
warranty, whatever the drive's indirection unit."""

from __future__ import annotations

import pytest

from nvsim.catalog import load_catalog
from nvsim.ssd.model import SsdModel
from nvsim.wear import SECONDS_PER_DAY, drive_wear


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def rating_workload_nand_waf(drive) -> float:
    model = SsdModel.from_drive(drive)
    return model.rmw_factor(int(drive.rand_block_bytes.value)) * model.waf_ftl(random=True)


def test_the_rating_workload_at_the_rated_dwpd_lasts_the_warranty(catalog):
    for drive in catalog.drives.values():
        capacity = float(drive.capacity_bytes.value)
        host = float(drive.dwpd.value) * capacity / SECONDS_PER_DAY
        w = drive_wear(catalog, drive.name, 1, host, None, rating_workload_nand_waf(drive))
        assert w["effective_dwpd"] == pytest.approx(float(drive.dwpd.value), rel=1e-9), drive.name
        assert w["lifetime_years"] == pytest.approx(float(drive.warranty_years.value), rel=1e-9), drive.name


def test_a_qlc_drive_with_a_16k_iu_wears_a_quarter_as_fast_under_16k_random_writes(catalog):
    drive = catalog.drives["solidigm-d5-p5336-61.44tb"]
    model = SsdModel.from_drive(drive)
    waf = model.waf_ftl(random=True)
    w4 = drive_wear(catalog, drive.name, 1, 100e6, None, model.rmw_factor(4096) * waf)
    w16 = drive_wear(catalog, drive.name, 1, 100e6, None, model.rmw_factor(16384) * waf)
    assert w16["lifetime_years"] == pytest.approx(4 * w4["lifetime_years"])
    assert w4["effective_dwpd"] == pytest.approx(w4["member_dwpd"])
