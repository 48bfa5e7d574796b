"""FTL: closed forms against Desnoyers' equations and limits; the Numba simulation against them."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import brentq

from nvsim.ftl import (iu_rmw_factor, iu_rmw_factor_random, random_write_trace, simulate_ftl, simulate_ftl_trace,
                       spare_factor_from_capacity, waf_asymptotic_small_spare, waf_greedy_desnoyers2012,
                       waf_hot_cold_lru_desnoyers2012, waf_hot_cold_separated_desnoyers2012, waf_lru_desnoyers2012)

SPARES = [0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40]


@pytest.mark.parametrize("sf", [0.02, 0.1, 0.27, 0.5, 0.8])
def test_lru_solves_desnoyers_fixed_point(sf):
    """x = exp(-alpha (1 - x)) and A = 1 / (1 - x), solved independently of Lambert W."""
    a = 1 / (1 - sf)
    x = brentq(lambda v: v - math.exp(-a * (1 - v)), 0.0, 1 - 1e-12)
    assert waf_lru_desnoyers2012(sf) == pytest.approx(1 / (1 - x), rel=1e-9)


def test_lru_limits():
    # small spare: A ~ 1 / (2 Sf); large spare: A -> 1; strictly decreasing in between
    assert waf_lru_desnoyers2012(1e-4) * 2e-4 == pytest.approx(1.0, rel=1e-3)
    assert waf_asymptotic_small_spare(0.01) == pytest.approx(waf_lru_desnoyers2012(0.01), rel=0.02)
    assert waf_lru_desnoyers2012(0.95) == pytest.approx(1.0, abs=1e-3)
    values = [waf_lru_desnoyers2012(s) for s in np.linspace(0.01, 0.9, 50)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert waf_greedy_desnoyers2012(0.2) == waf_lru_desnoyers2012(0.2)


def test_hot_cold_forms():
    sf = 0.2
    uniform = waf_lru_desnoyers2012(sf)
    # r = f is uniform traffic
    assert waf_hot_cold_lru_desnoyers2012(sf, 0.3, 0.3) == pytest.approx(uniform, rel=1e-6)
    mixed = waf_hot_cold_lru_desnoyers2012(sf, 0.8, 0.2)
    separated = waf_hot_cold_separated_desnoyers2012(sf, 0.8, 0.2)
    assert separated < uniform
    assert separated < mixed


def test_spare_factor_convention():
    assert spare_factor_from_capacity(100, 80) == pytest.approx(0.2)
    with pytest.raises(ValueError):
        spare_factor_from_capacity(100, 120)


@pytest.mark.parametrize("sf", SPARES)
def test_simulation_matches_closed_form_uniform(sf):
    result = simulate_ftl(sf, workload="uniform", n_blocks=2048, pages_per_block=256,
                          host_writes_per_logical_page=3.0, warmup_writes_per_logical_page=3.0, seed=7)
    assert result.waf_ftl == pytest.approx(waf_greedy_desnoyers2012(sf), rel=0.05)


def test_hot_cold_simulation_between_bounds():
    sf = 0.2
    r = simulate_ftl(sf, workload="hot_cold", n_blocks=1024, pages_per_block=128, hot_data_fraction=0.2,
                     hot_write_fraction=0.8, seed=3)
    # greedy without separation: no better than the optimal separated pools, no worse than LRU mixing
    assert waf_hot_cold_separated_desnoyers2012(sf, 0.8, 0.2) * 0.95 < r.waf_ftl < waf_hot_cold_lru_desnoyers2012(sf, 0.8, 0.2) * 1.05


def test_sequential_has_no_gc():
    r = simulate_ftl(0.1, workload="sequential", n_blocks=512, pages_per_block=64)
    assert r.waf_ftl == pytest.approx(1.0)
    assert r.gc_copies == 0


def test_same_seed_same_result_and_generator_seed():
    a = simulate_ftl(0.15, n_blocks=256, pages_per_block=64, seed=11)
    b = simulate_ftl(0.15, n_blocks=256, pages_per_block=64, seed=11)
    c = simulate_ftl(0.15, n_blocks=256, pages_per_block=64, seed=12)
    assert a == b
    assert a != c
    g1 = simulate_ftl(0.15, n_blocks=256, pages_per_block=64, seed=np.random.default_rng(5))
    g2 = simulate_ftl(0.15, n_blocks=256, pages_per_block=64, seed=np.random.default_rng(5))
    assert g1 == g2


def test_sub_iu_writes_cost_rmw():
    iu = 16384
    assert iu_rmw_factor(4096, iu) == 4.0
    assert iu_rmw_factor(16384, iu) == 1.0
    assert iu_rmw_factor(131072, iu, offset_bytes=4096) == pytest.approx(9 * iu / 131072)
    assert iu_rmw_factor_random(4096, iu) == 4.0
    span = 256 * 64 * iu
    off, ln = random_write_trace(20000, 4096, int(span * 0.8), 4096, seed=1)
    r = simulate_ftl_trace(0.2, off, ln, iu_bytes=iu, n_blocks=256, pages_per_block=64)
    assert r.rmw_factor == pytest.approx(4.0)
    assert r.rmw_reads == r.host_pages          # every 4 KiB write on a 16 KiB IU reads its IU
    assert r.waf_nand == pytest.approx(r.rmw_factor * r.waf_ftl)
    aligned = simulate_ftl_trace(0.2, *random_write_trace(5000, iu, int(span * 0.8), iu, seed=1), iu_bytes=iu,
                                 n_blocks=256, pages_per_block=64)
    assert aligned.rmw_reads == 0 and aligned.rmw_factor == 1.0


@settings(max_examples=15, deadline=None)
@given(sf=st.floats(0.08, 0.6), ppb=st.sampled_from([16, 32, 64]), seed=st.integers(0, 2**32),
       workload=st.sampled_from(["uniform", "hot_cold", "sequential"]))
def test_conservation(sf, ppb, seed, workload):
    """NAND programs = host programs + GC copies; every erase frees one block's worth of copies."""
    r = simulate_ftl(sf, workload=workload, n_blocks=64, pages_per_block=ppb, host_writes_per_logical_page=1.0,
                     warmup_writes_per_logical_page=1.0, seed=seed)
    assert r.nand_pages == r.host_pages + r.gc_copies
    assert r.gc_copies <= r.erases * (ppb - 1)


@settings(max_examples=10, deadline=None)
@given(write_kib=st.sampled_from([4, 8, 12, 16, 20, 64, 128]), offset_kib=st.sampled_from([0, 4, 8]),
       seed=st.integers(0, 1000))
def test_conservation_with_rmw(write_kib, offset_kib, seed):
    iu = 16384
    off, ln = random_write_trace(3000, write_kib * 1024, 64 * 32 * iu // 2, 4096, offset_kib * 1024, seed=seed)
    r = simulate_ftl_trace(0.3, off, ln, iu_bytes=iu, n_blocks=64, pages_per_block=32, passes=1, warmup_passes=1)
    assert r.nand_pages == r.host_pages + r.gc_copies
    assert r.host_pages * iu >= r.host_bytes
    assert r.waf_nand == pytest.approx(r.nand_pages * iu / r.host_bytes)
