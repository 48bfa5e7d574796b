"""nvsim: a calibrated simulator of NVMe RAID arrays.

The public API (docs/api.md)::

    import nvsim
    result = nvsim.Simulation("scenarios/graid-gen5-raid6", "randread-b4k-j192-d32").run("fluid")
    result.total_iops, result.bottleneck

Every name of ``__all__``, and every submodule (``nvsim.ssd``, ``nvsim.report``, ...), loads on
first use (PEP 562 module ``__getattr__``): ``import nvsim`` stays a few milliseconds, and the
Numba-compiled simulator loads only when something that needs it is first touched.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from .numba_cache import use_source_keyed_cache

__version__ = "0.1.0"

use_source_keyed_cache()  # before any kernel loads: compiled code always matches this source

_SOURCES: dict[str, str] = {
    # the orchestrator and its result
    "Simulation": "simulation", "Result": "result", "ArrayState": "simulation", "EVENT_HOST_IOS": "simulation",
    "Precision": "simulation",
    # inputs
    "load_scenario": "scenario", "parse_scenario": "scenario", "ScenarioSpec": "specs", "WorkloadSpec": "specs",
    "Phase": "specs", "MixPart": "specs",
    "default_catalog": "catalog", "load_catalog": "catalog", "Catalog": "catalog", "InputError": "errors",
    # capacity and bounds
    "capacity": "simulation", "array_bounds": "bounds",
    # failures over time
    "run_timeline": "rebuild", "rebuild_summary": "rebuild", "Timeline": "rebuild",
    # published numbers
    "compare_all": "validation", "load_published": "published", "published_files": "published",
    "fitted_ids": "published",
    # model functions for studies of one mechanism
    "gen_p": "parity", "gen_pq": "parity", "recover": "parity", "raid5_strip_waf": "ssd.raid5_strip_waf",
    "format_value": "units",
    "run_volumes": "volumes",
}
"""Each public name and the submodule that defines it."""

__all__ = ["__version__", *_SOURCES]


def __getattr__(name: str) -> Any:
    """A public name, or a submodule, loaded on first use and kept."""
    if name in _SOURCES:
        value = getattr(importlib.import_module(f"{__name__}.{_SOURCES[name]}"), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and the import graph see; at run time these load on first use
    from .bounds import array_bounds
    from .catalog import Catalog, default_catalog, load_catalog
    from .errors import InputError
    from .parity import gen_p, gen_pq, recover
    from .published import fitted_ids, load_published, published_files
    from .rebuild import Timeline, rebuild_summary, run_timeline
    from .scenario import load_scenario, parse_scenario
    from .result import Result
    from .simulation import EVENT_HOST_IOS, ArrayState, Precision, Simulation, capacity
    from .specs import MixPart, Phase, ScenarioSpec, WorkloadSpec
    from .ssd.raid5_strip_waf import raid5_strip_waf
    from .units import format_value
    from .validation import compare_all
