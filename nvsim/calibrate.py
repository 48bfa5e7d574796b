"""The declared calibration step: which published numbers fit which parameters, and the fits.

This module and nvsim/validation.py are the only readers of scenarios/*/published.yaml. Every
published number named here is reported as *fitted* by `nvsim validate`; all others are
predictions. Engine and host fits are least squares (scipy; on the fourth power of the relative
errors, so an over-determined fit spreads its misfit evenly) on the fluid mode -- the same
per-I/O demands as the event mode -- of the declared numbers, and ``nvsim calibrate --write``
stores the values in models/ with their provenance (basis: fitted, the source, the numbers).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from .catalog import Catalog, catalog_dir, default_catalog


@dataclass(frozen=True)
class DeclaredFit:
    parameter: str
    where: str
    published_ids: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class EngineFit:
    """Free parameters of one catalog entry, fitted together on a declared set of numbers."""

    section: str  # "engines", "host_io" or "oltp"
    entry: str  # catalog name
    parameters: tuple[str, ...]
    published_ids: tuple[str, ...]  # "<scenario dir>/<id>"
    why: str
    bounds: tuple[tuple[float, float], ...] = ()


SSD_FIT = DeclaredFit(
    parameter="ssd program_suspend_us",
    where="nvsim/ssd/derive.py PROGRAM_SUSPEND_US",
    published_ids=("kioxia-cm7-namespace/cm7r-ns768-mix-total",
                   # the 70/30 split of the fitted total follows from it
                   "kioxia-cm7-namespace/cm7r-ns768-mix-read-iops",
                   "kioxia-cm7-namespace/cm7r-ns768-mix-write-iops"),
    why="die time a read costs when it lands on a programming die; only mixed workloads depend on it",
)

G6, G5, XI, MY = "graid-gen5-raid6", "graid-gen5-raid5-16x", "xiraid-qlc-raid5", "graid-mysql-oltp"

ENGINE_FITS: tuple[EngineFit, ...] = (
    EngineFit("host_io", "libaio", ("submit_us", "per_page_us"),
              (f"{G6}/sr1010-randread-cpu", f"{G6}/sr1010-seqread-cpu"),
              "fio's own CPU per I/O and per page: the two SupremeRAID read CPU figures, where the engine adds "
              "no host work", ((0.05, 20.0), (0.001, 2.0))),
    EngineFit("engines", "graid-supremeraid-sr1010", ("gpu_stripe_us", "gpu_parity_block_us", "driver_member_page_us"),
              (f"{G6}/sr1010-randwrite-iops", f"{G5}/seed004-sr1010-randwrite-iops", f"{G6}/sr1010-randwrite-cpu"),
              "GPU time per stripe update (RAID6 and RAID5 small writes separate the per-parity part) and the "
              "driver's CPU per member page a host write reads or writes", ((0.01, 10.0), (0.0, 10.0), (0.0, 10.0))),
    EngineFit("engines", "linux-md",
              ("device_lock_us", "barrier_lock_us", "barrier_lock_write_us", "request_cpu_us", "stripe_disk_us",
               "stripe_member_bio_us", "remote_access_factor"),
              (f"{G6}/md6-randread-iops", f"{G6}/md10-randread-iops", f"{G6}/md10-randwrite-iops",
               f"{G5}/seed004-md-randread-iops", f"{G6}/md6-randwrite-iops", f"{G6}/md6-seqwrite-bw",
               f"{G5}/seed004-md-randwrite-iops", f"{G5}/seed004-md-seqwrite-bw"),
              "md's two spinlocks, its per-request CPU, raid5d's per-stripe and per-bio cost and the slow-down of "
              "its shared structures when they bounce between two sockets",
              ((0.01, 5.0), (0.01, 10.0), (0.0, 10.0), (0.0, 50.0), (0.0, 50.0), (0.0, 10.0), (1.0, 5.0))),
    EngineFit("engines", "broadcom-megaraid-9560-16i", ("card_stripe_op_us", "card_stripe_op_us_per_kib"),
              (f"{G5}/seed004-hwraid-randwrite-iops", f"{G5}/seed004-hwraid-seqwrite-bw"),
              "the card processor's time per stripe update and per KiB through its XOR engine",
              ((0.0, 100.0), (0.0, 10.0))),
    EngineFit("engines", "xinnor-xiraid", ("request_cpu_us",),
              (f"{XI}/seed001-xiraid-randread-iops",),
              "xiRAID's CPU per host I/O on the submitting core", ((0.0, 20.0),)),
    EngineFit("oltp", "sysbench-oltp-rw", ("cpu_us_per_tx", "client_delay_us_per_tx", "contention_per_excess_thread"),
              (f"{MY}/sr-raid10-optimal-u64-tps", f"{MY}/sr-raid10-optimal-u256-tps", f"{MY}/sr-raid10-optimal-u512-tps",
               f"{MY}/sr-raid10-optimal-u1024-tps"),
              "the database's CPU per transaction, the client's round trips, and the CPU lost per runnable thread "
              "beyond the hardware threads: SupremeRAID RAID10 in the optimal state, where the engine adds least",
              ((100.0, 20000.0), (0.0, 20000.0), (0.0, 5.0))),
    EngineFit("engines", "graid-supremeraid-sr1010", ("rebuild_share",),
              (f"{MY}/sr-raid10-rebuild-speed", f"{MY}/sr-raid6-rebuild-speed"),
              "the share of its busiest drive's time the card paces its rebuild to at its default rebuild "
              "priority, while host I/O runs", ((0.01, 0.95),)),
    EngineFit("engines", "linux-md", ("group_thread_gain",),
              (f"{MY}/md-raid6-optimal-u256-tps", f"{MY}/md-raid6-optimal-u512-tps", f"{MY}/md-raid6-optimal-u1024-tps"),
              "the stripe-handling capacity each group_thread_cnt worker adds to raid5d's (the one published run "
              "with workers: md RAID6's plateau under MySQL)", ((0.0, 1.0),)),
    EngineFit("engines", "linux-md", ("resync_request_us", "rebuild_inflight"),
              (f"{MY}/md-raid10-rebuild-speed", f"{MY}/md-raid6-rebuild-speed", f"{MY}/md-raid6-u256-tps-ratio",
               f"{MY}/md-raid6-u512-tps-ratio", f"{MY}/md-raid6-u1024-tps-ratio"),
              "the resync thread's CPU per recovery request (md_do_sync -> sync_request), and the RAID5/6 resync's "
              "requests in flight (8 stripe_heads each: the stripe cache grows while the unthrottled resync finds "
              "none free)", ((0.1, 200.0), (8.0, 4096.0))),
)

DECLARED_FITS: tuple[DeclaredFit, ...] = (SSD_FIT,) + tuple(
    DeclaredFit(parameter=f"{fit.entry} {', '.join(fit.parameters)}", where=f"models/{fit.section}/{fit.entry}.yaml",
                published_ids=fit.published_ids, why=fit.why)
    for fit in ENGINE_FITS
)

SOURCE_OF_DIR = {G6: "seed-000", G5: "seed-004", XI: "seed-001", "kioxia-cm7-namespace": "seed-002", MY: "seed-003"}


def fitted_ids() -> frozenset[str]:
    """Published-number ids (``<scenario dir>/<id>``) used by some fit."""
    return frozenset(i for fit in DECLARED_FITS for i in fit.published_ids)


def _targets(ids: tuple[str, ...], root: Path, catalog: Catalog) -> list[tuple[str, object, object, str, float]]:
    """(id, scenario, workload, metric, published value) of each declared number."""
    from .scenario import load_scenario
    from .validation import load_published

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


def _fluid_metric(scenario, workload, catalog: Catalog, overrides: dict, metric: str) -> float:
    """One metric in the fluid mode with parameter ``overrides`` (the calibration's predictor)."""
    from .predict import predict_workload
    from .sim.fluid import simulate_fluid
    from .sim.system import ArraySystem

    if workload.is_oltp or scenario.faults:
        return float(predict_workload(scenario, workload, catalog, "fluid", overrides)[metric])
    system = ArraySystem(scenario, workload, catalog, engine_overrides=overrides["engine"],
                         host_io_overrides=overrides["host_io"])
    return float(simulate_fluid(system).metrics()[metric])


def fit_engine(fit: EngineFit, catalog: Catalog, root: Path, host_io_overrides: dict[str, float] | None = None,
               ) -> tuple[dict[str, float], float]:
    """Least squares over ``fit.parameters`` (fluid mode); returns the values and the RMS residual."""
    import numpy as np
    from scipy.optimize import least_squares


    targets = _targets(fit.published_ids, root, catalog)
    entry = getattr(catalog, fit.section)[fit.entry]
    if fit.section in ("host_io", "oltp"):
        start = [float(getattr(entry, p).value) for p in fit.parameters]
    else:
        start = [float(entry.parameters[p].value) for p in fit.parameters]
    lo = np.array([b[0] for b in fit.bounds])
    hi = np.array([b[1] for b in fit.bounds])
    x0 = np.clip(np.array(start), lo + 1e-9, hi - 1e-9)

    def residuals(x: np.ndarray) -> np.ndarray:
        values = dict(zip(fit.parameters, x.tolist()))
        out = []
        for _, scenario, workload, metric, published in targets:
            overrides = {
                "engine": values if fit.section == "engines" and scenario.array.engine == fit.entry else None,
                "host_io": values if fit.section == "host_io" else host_io_overrides,
                "oltp": values if fit.section == "oltp" else None,
            }
            predicted = _fluid_metric(scenario, workload, catalog, overrides, metric)
            out.append(_residual(metric, float(predicted), published))
        r = np.array(out)
        # sum of r^4, not r^2: where numbers outnumber parameters, spread the misfit evenly
        # rather than leave one number far out (the tolerance is a band, not an average)
        return r * np.sqrt(np.abs(r) / 0.1)

    result = least_squares(residuals, x0, bounds=(lo, hi), x_scale="jac", diff_step=1e-3, max_nfev=400)
    values = dict(zip(fit.parameters, (float(v) for v in result.x)))
    return values, float(np.mean(np.abs(result.fun) ** (4 / 3) * 0.1 ** (2 / 3)) ** 0.5)


def fit_all(catalog: Catalog | None = None, root: Path | None = None, engines: bool = True) -> dict[str, tuple[float, float]]:
    """Re-run every declared fit: parameter -> (value fitted now, value the model uses)."""
    from .ssd import PROGRAM_SUSPEND_US, derive_ssd_parameters, fit_program_suspend_us
    from .validation import SCENARIOS_DIR, load_published

    catalog = catalog or default_catalog()
    root = root or SCENARIOS_DIR
    kioxia = load_published(root / "kioxia-cm7-namespace" / "published.yaml")
    total = next(n for n in kioxia.numbers if n.id == "cm7r-ns768-mix-total").numeric_value
    params = derive_ssd_parameters(catalog.drives["kioxia-cm7-r-7.68tb"])
    out = {"ssd program_suspend_us": (fit_program_suspend_us(params, int(7.68e12), total, 0.7), PROGRAM_SUSPEND_US)}
    if not engines:
        return out
    host: dict[str, float] | None = None
    for fit in ENGINE_FITS:
        values, _ = fit_engine(fit, catalog, root, host)
        if fit.section == "host_io":
            host = values
        entry = getattr(catalog, fit.section)[fit.entry]
        for name, value in values.items():
            used = getattr(entry, name).value if fit.section in ("host_io", "oltp") else entry.parameters[name].value
            out[f"{fit.entry} {name}"] = (value, float(used))
    return out


def write_fitted(fitted: dict[str, tuple[float, float]], directory: Path | None = None) -> list[Path]:
    """Store fitted engine/host values in models/ (one line per parameter, atomically per file)."""
    from .io import write_text_atomic

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
    return written
