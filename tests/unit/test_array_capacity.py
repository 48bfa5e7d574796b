"""The array's capacity (``nvsim.array_capacity``): a striped array rounds each member to whole
strips (md rounds to chunks); drives used directly (no RAID, a card's pass-through) are devices of
their own, whole to the byte."""

from __future__ import annotations

import pytest

from nvsim.array_capacity import capacity
from nvsim.catalog import default_catalog
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()


def _scenario(engine: str, drives: int, namespace: str, settings: dict | None = None, strip: str = "512KiB"):
    array = {"level": 0, "drive": "kioxia-cm7-r-7.68tb", "drives": drives, "strip_bytes": strip, "engine": engine,
             "namespace_bytes": namespace}
    if settings:
        array["engine_settings"] = settings
    return parse_scenario({"name": "c", "platform": "asus-rs520a-e12-rs24u", "array": array,
                           "workloads": [{"name": "r", "rw": "randread"}]}, CATALOG)


@pytest.mark.parametrize("namespace, member", [("5.76TB", 5_760_000_000_000), ("7.68TB", 7_680_000_000_000)])
def test_drives_used_directly_keep_every_byte(namespace, member):
    """engine none (it was 64 KiB short of 5.76 TB: rounded to strips it has none of) and a card's
    pass-through (2.1 MB short over 16 drives)."""
    assert capacity(_scenario("none", 1, namespace), CATALOG).usable_bytes == member
    passthrough = _scenario("broadcom-megaraid-9670w-16i", 16, namespace, {"mode": "passthrough"}, "256KiB")
    assert capacity(passthrough, CATALOG).usable_bytes == 16 * member


def test_a_striped_array_rounds_each_member_to_whole_strips():
    md = capacity(_scenario("linux-md", 4, "5.76TB"), CATALOG)
    strip = 512 * 1024
    assert md.usable_bytes == 4 * (5_760_000_000_000 // strip * strip) < 4 * 5_760_000_000_000


def test_a_built_array_takes_its_own_engines_capacity_whatever_was_built_before():
    """The model's capacity memo was keyed without the engine: md's strip-rounded capacity was
    handed to the same drives with no RAID built after it."""
    from nvsim.sim.memo import Memo
    from nvsim.sim.system import ArraySystem
    from nvsim.specs import WorkloadSpec

    memo, load = Memo(), WorkloadSpec(name="r", rw="randread", bs=4096)
    md, direct = _scenario("linux-md", 2, "5.76TB"), _scenario("none", 2, "5.76TB")
    assert ArraySystem(md, load, CATALOG, memo=memo).capacity.usable_bytes == capacity(md, CATALOG).usable_bytes
    assert ArraySystem(direct, load, CATALOG, memo=memo).capacity.usable_bytes == capacity(direct, CATALOG).usable_bytes \
        == 2 * 5_760_000_000_000
