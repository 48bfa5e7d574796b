"""The declared calibration step: the fits of the parameters nvsim/published.py declares.

The declared fits (which published numbers fit which parameters) are data in nvsim/published.py;
every published number they name is reported as *fitted* by `nvsim validate`, all others are
predictions. Engine and host fits are least squares (scipy; on the fourth power of the relative
errors, so an over-determined fit spreads its misfit evenly) on the fluid mode -- the same
per-I/O demands as the event mode -- of the declared numbers, and ``nvsim calibrate --write``
stores the values in models/ with their provenance (basis: fitted, the source, the numbers).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from .catalog import Catalog, catalog_dir, default_catalog
from .io import write_text_atomic
from .published import ENGINE_FITS, FAMILY_FITS, SCENARIOS_DIR, SOURCE_OF_DIR, EngineFit, FamilyFit, load_published
from .scenario import load_scenario
from .simulation import predict_workload
from .specs import ScenarioSpec, WorkloadSpec
from .ssd import PROGRAM_SUSPEND_US, derive_ssd_parameters, fit_program_suspend_us
from .ssd.family import fit_controller_write_page_us, fit_write_page_us

Target = tuple[str, ScenarioSpec, WorkloadSpec, str, float]
"""One declared number: (id, scenario, workload, metric, published value)."""


def _targets(ids: tuple[str, ...], root: Path, catalog: Catalog) -> list[Target]:
    """(id, scenario, workload, metric, published value) of each declared number."""
    out = []
    for full in ids:
        directory, number_id = full.split("/", 1)
        published = load_published(root / directory / "published.yaml")
        number = next(n for n in published.numbers if n.id == number_id)
        scenario = load_scenario(root / directory / number.scenario, catalog)
        workload = next(w for w in scenario.workloads if w.name == number.workload)
        out.append((full, scenario, workload, number.metric, number.numeric_value))
    return out


def _residual(metric: str, predicted: float, published: float) -> float:
    if metric == "cpu_percent":  # tolerance is absolute: points, scaled to a 10-point band
        return (predicted - published) / 10.0
    return math.log(max(predicted, 1e-12) / published)


def residuals(x: np.ndarray, fit: EngineFit, catalog: Catalog, targets: list[Target]) -> np.ndarray:
    """The weighted residual of each declared number with ``fit``'s parameters at ``x``: a catalog
    with those values (``Catalog.with_values``), then the normal orchestrator in the fluid mode."""
    trial = catalog.with_values(dict(zip(fit.value_keys(), x.tolist())))
    out = []
    for _, scenario, workload, metric, published in targets:
        predicted = predict_workload(scenario, workload, trial, "fluid")[metric]
        out.append(_residual(metric, float(predicted), published))
    r = np.array(out)
    # sum of r^4, not r^2: where numbers outnumber parameters, spread the misfit evenly
    # rather than leave one number far out (the tolerance is a band, not an average)
    return r * np.sqrt(np.abs(r) / 0.1)


def start_values(fit: EngineFit, catalog: Catalog) -> np.ndarray:
    """The catalog's values of ``fit``'s parameters, inside its bounds (where least squares starts)."""
    entry = getattr(catalog, fit.section)[fit.entry]
    if fit.section in ("host_io", "oltp"):
        start = [float(getattr(entry, p).value) for p in fit.parameters]
    else:
        start = [float(entry.parameters[p].value) for p in fit.parameters]
    lo, hi = fit_bounds(fit)
    return np.clip(np.array(start), lo + 1e-9, hi - 1e-9)


def fit_bounds(fit: EngineFit) -> tuple[np.ndarray, np.ndarray]:
    return np.array([b[0] for b in fit.bounds]), np.array([b[1] for b in fit.bounds])


def fit_engine(fit: EngineFit, catalog: Catalog, root: Path) -> tuple[dict[str, float], float]:
    """Least squares over ``fit.parameters`` (fluid mode) starting from ``catalog``'s values;
    returns the values and the RMS residual."""
    targets = _targets(fit.published_ids, root, catalog)
    result = least_squares(residuals, start_values(fit, catalog), args=(fit, catalog, targets), bounds=fit_bounds(fit),
                           x_scale="jac", diff_step=1e-3, max_nfev=400)
    values = dict(zip(fit.parameters, (float(v) for v in result.x)))
    return values, float(np.mean(np.abs(result.fun) ** (4 / 3) * 0.1 ** (2 / 3)) ** 0.5)


def fit_all(catalog: Catalog | None = None, root: Path | None = None, engines: bool = True) -> dict[str, tuple[float, float]]:
    """Re-run every declared fit: parameter -> (value fitted now, value the model uses). The host
    I/O fit comes first; the fits after it run on its values."""
    catalog = catalog or default_catalog()
    root = root or SCENARIOS_DIR
    kioxia = load_published(root / "kioxia-cm7-namespace" / "published.yaml")
    total = next(n for n in kioxia.numbers if n.id == "cm7r-ns768-mix-total").numeric_value
    params = derive_ssd_parameters(catalog.drives["kioxia-cm7-r-7.68tb"])
    out = {"ssd program_suspend_us": (fit_program_suspend_us(params, int(7.68e12), total, 0.7), PROGRAM_SUSPEND_US)}
    out.update(fit_families(catalog, root))
    if not engines:
        return out
    fitting = catalog
    for fit in ENGINE_FITS:
        values, _ = fit_engine(fit, fitting, root)
        if fit.section == "host_io":
            fitting = catalog.with_values(dict(zip(fit.value_keys(), values.values())))
        entry = getattr(catalog, fit.section)[fit.entry]
        for name, value in values.items():
            used = getattr(entry, name).value if fit.section in ("host_io", "oltp") else entry.parameters[name].value
            out[f"{fit.entry} {name}"] = (value, float(used))
    return out


def _published_value(full_id: str, root: Path) -> float:
    directory, number_id = full_id.split("/", 1)
    published = load_published(root / directory / "published.yaml")
    return next(n for n in published.numbers if n.id == number_id).numeric_value


def fit_family(fit: FamilyFit, catalog: Catalog, root: Path) -> float:
    """One family value in closed form on its reference SKU: the controller's time per NAND page
    from the reference's random write (its published number, else its catalog datasheet figure),
    or the suspend cost from the reference's 70/30 total over its whole capacity."""
    family = catalog.families[fit.family]
    reference = catalog.drives[family.reference_sku]
    capacity, raw = float(reference.capacity_bytes.value), float(reference.raw_nand_bytes.value)
    if fit.parameter in ("controller_write_page_us", "random_write_die_page_us") and len(fit.published_ids) == 2:
        skus = []
        for number_id in fit.published_ids:  # "<dir>/<sku>-randwrite-iops"
            drive = catalog.drives[number_id.split("/", 1)[1].removesuffix("-randwrite-iops")]
            skus.append((float(drive.capacity_bytes.value), float(drive.raw_nand_bytes.value),
                         _published_value(number_id, root)))
        t_ctrl, t_die = fit_write_page_us(family, tuple(skus))
        return t_ctrl if fit.parameter == "controller_write_page_us" else t_die
    if fit.parameter == "controller_write_page_us":
        figure = _published_value(fit.published_ids[0], root) if fit.published_ids else float(reference.rand_write_iops.value)
        return fit_controller_write_page_us(family, capacity, raw, figure)
    if fit.parameter == "program_suspend_us":
        return fit_program_suspend_us(derive_ssd_parameters(reference), int(capacity), _published_value(fit.published_ids[0], root), 0.7)
    raise ValueError(f"{fit.family}: no closed-form fit for {fit.parameter!r}")


def fit_families(catalog: Catalog, root: Path) -> dict[str, tuple[float, float]]:
    """Every declared family fit: "<family> <parameter>" -> (value fitted now, value models/ holds)."""
    return {f"{fit.family} {fit.parameter}": (fit_family(fit, catalog, root),
                                               float(getattr(catalog.families[fit.family], fit.parameter).value))
            for fit in FAMILY_FITS}


def write_family_fitted(fitted: dict[str, tuple[float, float]], directory: Path) -> list[Path]:
    """Store the fitted family values in models/families/ (the value of each fitted line); fits
    ``fitted`` does not hold are left as they are."""
    written = []
    for fit in FAMILY_FITS:
        if f"{fit.family} {fit.parameter}" not in fitted:
            continue
        path = directory / "families" / f"{fit.family}.yaml"
        text = path.read_text()
        value = fitted[f"{fit.family} {fit.parameter}"][0]
        pattern = re.compile(rf"^({re.escape(fit.parameter)}: \{{value: )[^,]+(, .*basis: fitted.*)$", re.MULTILINE)
        if not pattern.search(text):
            raise KeyError(f"{path}: no fitted line for {fit.parameter}")
        write_text_atomic(path, pattern.sub(lambda m: f"{m.group(1)}{value:.6g}{m.group(2)}", text, count=1))
        written.append(path)
    return sorted(set(written))


def write_fitted(fitted: dict[str, tuple[float, float]], directory: Path | None = None) -> list[Path]:
    """Store fitted engine/host values in models/ (one line per parameter, atomically per file)."""
    directory = Path(directory) if directory else catalog_dir()
    written = []
    for fit in ENGINE_FITS:
        path = directory / fit.section / f"{fit.entry}.yaml"
        text = path.read_text()
        sources = sorted({SOURCE_OF_DIR[i.split("/", 1)[0]] for i in fit.published_ids})
        for name in fit.parameters:
            value = fitted[f"{fit.entry} {name}"][0]
            note = f"nvsim calibrate: least squares (fluid mode) on {', '.join(fit.published_ids)}"
            line = (f"{name}: {{value: {value:.6g}, source: {sources[0]}, basis: fitted, "
                    f"note: \"{note}\"}}")
            pattern = re.compile(rf"^(\s*){re.escape(name)}: \{{.*\}}\s*$", re.MULTILINE)
            if not pattern.search(text):
                raise KeyError(f"{path}: no line for parameter {name}")
            text = pattern.sub(lambda m: m.group(1) + line, text, count=1)
        write_text_atomic(path, text)
        written.append(path)
    written += _restate_copies(fitted, directory)
    written += write_family_fitted(fitted, directory)
    return written


def _restate_copies(fitted: dict[str, tuple[float, float]], directory: Path) -> list[Path]:
    """Catalog numbers whose source is a fitted entry (``source: linux-md`` in intel-vroc.yaml:
    VROC runs md's code) restate its new values, so a refit never leaves a stale copy."""
    written = []
    for path in sorted((directory / "engines").glob("*.yaml")):
        text = original = path.read_text()
        for fit in ENGINE_FITS:
            for name in fit.parameters:
                value = fitted[f"{fit.entry} {name}"][0]
                pattern = re.compile(rf"^(\s*{re.escape(name)}: \{{value: )[^,]+(, source: {re.escape(fit.entry)},)",
                                     re.MULTILINE)
                text = pattern.sub(lambda m: f"{m.group(1)}{value:.6g}{m.group(2)}", text)
        if text != original:
            write_text_atomic(path, text)
            written.append(path)
    return written
