"""The declared calibration step: which published numbers fit which parameters, and the fits.

This module and nvsim/validation.py are the only readers of scenarios/*/published.yaml. Every
published number named here is reported as *fitted* by `nvsim validate`; all others are predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .catalog import Catalog, default_catalog


@dataclass(frozen=True)
class DeclaredFit:
    parameter: str
    where: str
    published_ids: tuple[str, ...]
    why: str


DECLARED_FITS: tuple[DeclaredFit, ...] = (
    DeclaredFit(
        parameter="ssd program_suspend_us",
        where="nvsim/ssd/derive.py PROGRAM_SUSPEND_US",
        published_ids=("kioxia-cm7-namespace/cm7r-ns768-mix-total",
                       # the 70/30 split of the fitted total follows from it
                       "kioxia-cm7-namespace/cm7r-ns768-mix-read-iops",
                       "kioxia-cm7-namespace/cm7r-ns768-mix-write-iops"),
        why="die time a read costs when it lands on a programming die; only mixed workloads depend on it",
    ),
)


def fitted_ids() -> frozenset[str]:
    """Published-number ids (``<scenario dir>/<id>``) used by some fit."""
    return frozenset(i for fit in DECLARED_FITS for i in fit.published_ids)


def fit_all(catalog: Catalog | None = None, root: Path | None = None) -> dict[str, tuple[float, float]]:
    """Re-run every declared fit: parameter -> (value fitted now, value the model uses)."""
    from .ssd import PROGRAM_SUSPEND_US, derive_ssd_parameters, fit_program_suspend_us
    from .validation import SCENARIOS_DIR, load_published

    catalog = catalog or default_catalog()
    root = root or SCENARIOS_DIR
    kioxia = load_published(root / "kioxia-cm7-namespace" / "published.yaml")
    total = next(n for n in kioxia.numbers if n.id == "cm7r-ns768-mix-total").numeric_value
    params = derive_ssd_parameters(catalog.drives["kioxia-cm7-r-7.68tb"])
    fitted = fit_program_suspend_us(params, int(7.68e12), total, 0.7)
    return {"ssd program_suspend_us": (fitted, PROGRAM_SUSPEND_US)}
