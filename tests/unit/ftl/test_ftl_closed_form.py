"""The active range under greedy cleaning (nvsim.ftl.closed_form): data never written after the
fill leaves the pool, so the written data sees the whole spare. Oracles: a hand count of
Sf' = (T - U) / (T - (1 - r) U), and the greedy page simulation (nvsim.ftl.simulate), which
shares no code with the closed forms."""

import pytest
from hypothesis import given, settings, strategies as st

from nvsim.ftl import simulate_ftl
from nvsim.ftl.closed_form import (spare_factor_active_range, waf_classes_greedy_desnoyers2012,
                                   waf_classes_lru_desnoyers2012, waf_greedy_desnoyers2012)


def test_active_range_spare_is_the_spare_over_the_pages_static_data_leaves():
    # T = 100 pages, U = 87: 10% of U written, 78.3 static pages, 21.7 left of which 8.7 valid
    assert spare_factor_active_range(0.13, 0.1) == pytest.approx((100 - 87) / (100 - 0.9 * 87), rel=1e-12)
    assert spare_factor_active_range(0.13, 1.0) == 0.13  # the whole span: the same float
    for bad in (0.0, -0.1, 1.01):
        with pytest.raises(ValueError):
            spare_factor_active_range(0.13, bad)


@settings(max_examples=80)
@given(st.floats(min_value=0.02, max_value=0.6), st.floats(min_value=0.01, max_value=1.0),
       st.floats(min_value=0.01, max_value=1.0))
def test_a_smaller_active_range_never_raises_greedy_waf(spare, r1, r2):
    small, large = sorted((r1, r2))
    assert spare_factor_active_range(spare, small) >= spare_factor_active_range(spare, large) >= spare
    assert (waf_greedy_desnoyers2012(spare_factor_active_range(spare, small))
            <= waf_greedy_desnoyers2012(spare_factor_active_range(spare, large)) * (1 + 1e-12))


def test_greedy_sets_classes_without_writes_aside():
    sf = 0.127
    # all the writes to 10% of the data: uniform greedy at the active range's spare
    assert waf_classes_greedy_desnoyers2012(sf, [1.0, 0.0], [0.1, 0.9]) == waf_greedy_desnoyers2012(
        spare_factor_active_range(sf, 0.1))
    # written classes keep the multi-class model, over their own data at the active spare
    assert waf_classes_greedy_desnoyers2012(sf, [0.8, 0.2, 0.0], [0.1, 0.3, 0.6]) == pytest.approx(
        waf_classes_lru_desnoyers2012(spare_factor_active_range(sf, 0.4), [0.8, 0.2], [0.25, 0.75]), rel=1e-12)
    # every class written: the LRU multi-class model, bit for bit
    assert waf_classes_greedy_desnoyers2012(sf, [0.8, 0.2], [0.2, 0.8]) == waf_classes_lru_desnoyers2012(
        sf, [0.8, 0.2], [0.2, 0.8])
    with pytest.raises(ValueError):
        waf_classes_greedy_desnoyers2012(sf, [0.5, 0.6], [0.5, 0.5])


@pytest.mark.parametrize("spare, hot_data", [(0.127, 0.1), (0.2, 0.5)])
def test_writes_to_part_of_the_data_match_the_greedy_page_simulation(spare, hot_data):
    """Tolerance 3%: the simulation's finite blocks and 2 reserved free blocks (docs/models/ftl.md:
    within 2% for uniform writes at 2048 x 256). Sf 0.127, 10%: simulation 1.128, closed form 1.128;
    the LRU model, which copies the static data once per pass, 5.3."""
    run = simulate_ftl(spare, workload="hot_cold", hot_data_fraction=hot_data, hot_write_fraction=1.0)
    simulated = run.nand_pages / run.host_pages
    model = waf_classes_greedy_desnoyers2012(spare, [1.0, 0.0], [hot_data, 1.0 - hot_data])
    assert model == pytest.approx(simulated, rel=0.03)
    assert waf_classes_lru_desnoyers2012(spare, [1.0, 0.0], [hot_data, 1.0 - hot_data]) > 1.2 * simulated
    assert simulated < waf_greedy_desnoyers2012(spare)  # below the whole span's
