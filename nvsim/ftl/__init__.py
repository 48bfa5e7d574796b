"""Flash translation layer: closed-form write amplification and a Numba page-mapped simulation."""

from .closed_form import (iu_rmw_factor, iu_rmw_factor_random, spare_factor_from_capacity, waf_asymptotic_small_spare,
                          waf_greedy_desnoyers2012, waf_hot_cold_lru_desnoyers2012, waf_hot_cold_separated_desnoyers2012,
                          waf_lru_desnoyers2012, waf_sequential)
from .simulate import FtlResult, random_write_trace, simulate_ftl, simulate_ftl_trace

__all__ = [
    "FtlResult", "simulate_ftl", "simulate_ftl_trace", "random_write_trace", "spare_factor_from_capacity",
    "waf_lru_desnoyers2012", "waf_greedy_desnoyers2012", "waf_hot_cold_lru_desnoyers2012",
    "waf_hot_cold_separated_desnoyers2012", "waf_sequential", "waf_asymptotic_small_spare", "iu_rmw_factor",
    "iu_rmw_factor_random",
]
