"""Flash translation layer: closed-form write amplification and a Numba page-mapped simulation.

The simulation (``simulate``: fifteen compiled functions) loads on first use, so the closed forms
a drive model needs cost no Numba set-up."""

from typing import TYPE_CHECKING, Any

from .closed_form import (iu_rmw_factor, iu_rmw_factor_random, spare_factor_active_range, spare_factor_from_capacity,
                          waf_asymptotic_small_spare, waf_classes_greedy_desnoyers2012, waf_greedy_desnoyers2012,
                          waf_hot_cold_lru_desnoyers2012, waf_hot_cold_separated_desnoyers2012, waf_lru_desnoyers2012,
                          waf_sequential)

_SIMULATE = ("FtlResult", "simulate_ftl", "simulate_ftl_trace", "simulate_ftl_transient", "random_write_trace")
"""The names of ``simulate``, loaded on first use."""


def __getattr__(name: str) -> Any:
    if name in _SIMULATE:
        from . import simulate
        return getattr(simulate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:  # what type checkers and the import graph see
    from .simulate import FtlResult, random_write_trace, simulate_ftl, simulate_ftl_trace, simulate_ftl_transient

__all__ = [
    "FtlResult", "simulate_ftl", "simulate_ftl_trace", "simulate_ftl_transient", "random_write_trace", "spare_factor_from_capacity",
    "spare_factor_active_range", "waf_classes_greedy_desnoyers2012", "waf_lru_desnoyers2012", "waf_greedy_desnoyers2012", "waf_hot_cold_lru_desnoyers2012",
    "waf_hot_cold_separated_desnoyers2012", "waf_sequential", "waf_asymptotic_small_spare", "iu_rmw_factor",
    "iu_rmw_factor_random",
]
