"""One orchestrator: a scenario and a workload in, the predicted metrics out.

Today: single drives (engine ``none``, one drive) through the SSD model. Arrays join when the
array simulator lands; until then they return None ("not modelled yet"), never a guess.
"""

from __future__ import annotations

from .catalog import Catalog, default_catalog
from .specs import ScenarioSpec, WorkloadSpec


def predict_workload(scenario: ScenarioSpec, workload: WorkloadSpec, catalog: Catalog | None = None) -> dict[str, float | str] | None:
    catalog = catalog or default_catalog()
    array = scenario.array
    if array.engine == "none" and array.drives == 1:
        try:
            from .ssd import drive_workload_limit, predict_drive_workload
        except ImportError:
            return None
        from .bounds import drive_link
        drive = catalog.drives[array.drive]
        link = drive_link(drive, catalog.platforms[scenario.platform], catalog)
        values = dict(predict_drive_workload(drive, array.namespace_bytes, workload, link))
        values["limited_by"] = drive_workload_limit(drive, array.namespace_bytes, workload, link)
        return values
    return None
