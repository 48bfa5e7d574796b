"""The plan's table cells (nvsim.plan.output.si_text): three significant digits under the SI
prefix of the value's magnitude, whatever its sign (a negative margin or a shortfall reads as
its positive twin with a minus), worked by hand."""

from __future__ import annotations

import pytest

from nvsim.plan.output import si_text


@pytest.mark.parametrize("value, unit, text", [
    (2.5e6, "B/s", "2.5MB/s"), (1234, "", "1.23K"), (999, "", "999"), (0.25, "", "0.25"),
    (7.68e12, "B", "7.68TB"), (3.2e9, "", "3.2G"),
    (-2.5e6, "", "-2.5M"), (-1234, "W", "-1.23KW"), (None, "", "-"),
])
def test_si_text_by_hand(value, unit, text):
    assert si_text(value, unit) == text
