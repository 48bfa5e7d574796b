"""fio's zoned and zoned_abs random distributions (nvsim.skew_syntax.zones) worked by hand from
fio's options.c (``zone_split_ddir``): zoned_abs sizes are binary (1G = 2^30 bytes, as every fio
size), and zones that give no range share the rest equally, ``(100 - given) // missing`` percent."""

from __future__ import annotations

import pytest

from nvsim.skew_syntax import zones

GIB = 2**30


def test_zoned_abs_sizes_are_binary_shares_of_the_region():
    assert zones("50/1G:50/3G", "zoned_abs", 4 * GIB) == [pytest.approx((0.5, 0.25)), pytest.approx((0.5, 0.75))]
    # 512M of a 2 GiB region, the rest never accessed
    assert zones("100/512M", "zoned_abs", 2 * GIB) == [pytest.approx((1.0, 0.25)), pytest.approx((0.0, 0.75))]


def test_zones_without_a_range_split_what_the_others_leave():
    # 40% given to the last zone: the two without a range get (100 - 40) // 2 = 30% each
    got = zones("60/:20/:20/40", "zoned", 1.0)
    assert got == [pytest.approx((0.6, 0.3)), pytest.approx((0.2, 0.3)), pytest.approx((0.2, 0.4))]
    # (100 - 10) // 4 = 22%: four zones of 22% and the 12% left over unaccessed (integer percent, as fio)
    got = zones("25/:25/:25/:25/:0/10", "zoned", 1.0)
    assert [round(s, 6) for _, s in got] == [0.22, 0.22, 0.22, 0.22, 0.1, 0.02]
