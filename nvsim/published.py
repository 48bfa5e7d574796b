"""Published numbers and the declared fits, as data: what scenarios/*/published.yaml holds, and
which of those numbers the calibration step fits which catalog parameters on.

Published numbers live only in scenarios/*/published.yaml (an installed wheel carries scenarios/
as ``nvsim._scenarios``: a clone's copy is found first, else the package's). This module reads them; validation
(re-predict and compare) and calibration (fit) are its only users -- the models never see them (a
test enforces it). Keeping the data here, below both, is what lets validation label the fitted
numbers without importing the fitting code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .catalog import default_catalog, read_yaml
from .errors import InputError, close_matches, from_validation_error, suggestion_text
from .shipped import packaged_folder, shipped_folder
from .units import parse_bytes, parse_bytes_per_s, parse_count

PACKAGE_SCENARIOS = packaged_folder("scenarios")
"""The copy an installed wheel carries inside the package (pyproject.toml maps scenarios/ to ``nvsim._scenarios``)."""
SCENARIO_ROOTS: tuple[Path, ...] = tuple(dict.fromkeys((shipped_folder("scenarios"), PACKAGE_SCENARIOS)))
"""Where published numbers are looked for, in this order: a clone first, else the installed package."""
PUBLISHED_FILE = "published.yaml"
"""A scenario folder's published numbers, the file this module reads (``nvsim validate``)."""
PUBLISHED_GLOB = f"*/{PUBLISHED_FILE}"


def scenarios_dir() -> Path:
    """The first of ``SCENARIO_ROOTS`` that holds a ``*/published.yaml`` (mirrors how
    ``nvsim.catalog`` finds models/); the clone's path when none does (``published_files`` then
    finds nothing and ``nvsim validate`` says where it looked)."""
    for root in SCENARIO_ROOTS:
        if any(root.glob(PUBLISHED_GLOB)):
            return root
    return SCENARIO_ROOTS[0]


SCENARIOS_DIR = scenarios_dir()
"""The scenarios this process found at import (calibration reads its declared numbers here)."""


# ---------------------------------------------------------------- published numbers

METRICS = ("read_iops", "write_iops", "total_iops", "read_bytes_per_s", "write_bytes_per_s", "cpu_percent",
           "raid_waf", "waf_nand", "waf_ftl", "rmw_factor", "spare_factor", "nand_pool_utilisation",
           "transactions_per_s", "transactions_per_s_optimal", "tps_ratio", "rebuild_bytes_per_s",
           "usable_capacity_bytes", "rebuild_hours_idle", "rebuild_mb_per_s_idle")
"""The metrics a published number may name: a run's (``Result.metrics``, a drive's prediction), an
OLTP state's against its optimal array, the capacity, an idle rebuild's (``validation``)."""
SCENARIO_METRICS = ("usable_capacity_bytes", "rebuild_hours_idle", "rebuild_mb_per_s_idle")
"""The metrics of a scenario with no workload running (its capacity, an idle rebuild's): a number of
one names no workload, a number of any other metric names the workload it was measured under."""
LATENCY_METRIC = re.compile(r"(read|write|transaction)_latency_(mean|p\d+(_\d+)?)_us")
"""And a direction's latency: its mean or a percentile (``read_latency_p99_9_us``: p99.9)."""


class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    relative: float | None = Field(default=None, gt=0)
    absolute: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one(self) -> "Tolerance":
        if (self.relative is None) == (self.absolute is None):
            raise ValueError("give exactly one of relative, absolute")
        return self


class PublishedNumber(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    scenario: str
    workload: str | None = None
    metric: str
    value: float | str
    unit: Literal["bytes", "B/s", "IOPS", "percent", "TPS", "ratio", "MB/s", "hours"]
    tolerance: Tolerance
    table: str
    wording: str
    reading: str | None = None
    known_miss: str | None = Field(default=None, description="why nvsim misses this number, when it does")

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, value: str) -> str:
        """A misspelled metric would read as a number nvsim does not model yet (and pass --strict)."""
        if value not in METRICS and not LATENCY_METRIC.fullmatch(value):
            near = close_matches(value, METRICS, n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise ValueError(f"unknown metric {value!r}; {hint}allowed: {', '.join(METRICS)}, or "
                             f"<read|write|transaction>_latency_<mean|pNN|pNN_N>_us")
        return value

    @model_validator(mode="after")
    def _workload_as_its_metric_needs(self) -> "PublishedNumber":
        """A workload's metric names its workload, a scenario's none: either way round the number
        read as "not modelled yet" and passed --strict."""
        if self.metric in SCENARIO_METRICS and self.workload is not None:
            raise ValueError(f"workload: {self.metric} is the scenario's, with no workload running; leave workload out, "
                             f"got {self.workload!r}")
        if self.metric not in SCENARIO_METRICS and self.workload is None:
            raise ValueError(f"workload: {self.metric} is a workload's metric; name the workload of the scenario it was "
                             f"measured under")
        return self

    @model_validator(mode="after")
    def _value_in_its_unit(self) -> "PublishedNumber":
        """The value reads as a number of its unit, finite, and above 0 where the tolerance is a
        share of it (a relative error of a 0 is no number)."""
        try:
            value = self.numeric_value
        except (ValueError, TypeError) as exc:
            raise ValueError(f"value: {self.value!r} is not a number in {self.unit} ({exc})") from None
        if not math.isfinite(value):
            raise ValueError(f"value: must be a finite number, got {self.value!r}")
        if self.tolerance.relative is not None and not value > 0:
            raise ValueError(f"value: must be above 0 for a relative tolerance (an error relative to it), got {self.value!r}; "
                             f"give tolerance.absolute instead")
        return self

    @property
    def numeric_value(self) -> float:
        """The value in base units (bytes, B/s, IOPS; others as written)."""
        parse = {"bytes": parse_bytes, "B/s": parse_bytes_per_s, "IOPS": parse_count}.get(self.unit, float)
        return float(parse(self.value))


class PublishedFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: str
    notes: str | None = None
    numbers: tuple[PublishedNumber, ...]

    @field_validator("numbers")
    @classmethod
    def _unique_ids(cls, numbers: tuple[PublishedNumber, ...]) -> tuple[PublishedNumber, ...]:
        """Each number's id names it in the table, the known-miss ceilings and the declared fits."""
        seen: set[str] = set()
        for number in numbers:
            if number.id in seen:
                raise ValueError(f"id {number.id!r} is given twice; each number needs its own")
            seen.add(number.id)
        return numbers


def load_published(path: Path) -> PublishedFile:
    """One published.yaml, validated (a bad file is one InputError line naming the field); its
    ``source`` must be a key of the catalog's bibliography, as every catalog number's is."""
    try:
        published = PublishedFile.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise from_validation_error(exc, PublishedFile, source=str(path)) from None
    sources = default_catalog().bibliography
    if published.source not in sources:
        raise InputError("source", f"{published.source!r} is not in models/bibliography.yaml"
                                   f"{suggestion_text(published.source, sources)} (cite the measurement there first)",
                         source=str(path))
    return published


def published_files(root: Path | None = None) -> list[Path]:
    """Every ``<scenario dir>/published.yaml`` under ``root`` (default: ``scenarios_dir()``: the
    clone's scenarios/, else the installed package's). ``root`` may also be one scenario folder
    that holds a published.yaml itself."""
    root = scenarios_dir() if root is None else Path(root)  # a str path too
    if (root / PUBLISHED_FILE).is_file():
        return [root / PUBLISHED_FILE]
    return sorted(root.glob(PUBLISHED_GLOB))


def where_looked(root: Path | None = None) -> str:
    """The places ``published_files(root)`` looks, in words (for the error when it finds nothing)."""
    if root is not None:
        return f"{Path(root) / PUBLISHED_GLOB} and {Path(root) / 'published.yaml'}"
    return ", then ".join(str(r / PUBLISHED_GLOB) for r in SCENARIO_ROOTS) + \
        " (a clone's scenarios/, then the copy an installed nvsim carries)"


def require_published_files(root: Path | None = None) -> list[Path]:
    """``published_files(root)``, or an InputError naming what was looked for and where when there
    is none: validating nothing is not a pass."""
    files = published_files(root)
    if not files:
        raise InputError("published numbers", f"none found: looked for {where_looked(root)}")
    return files


# ---------------------------------------------------------------- the declared fits


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

    def value_keys(self) -> tuple[str, ...]:
        """The parameters as ``Catalog.with_values`` names them ("section/entry/parameter")."""
        return tuple(f"{self.section}/{self.entry}/{name}" for name in self.parameters)


SSD_FIT = DeclaredFit(
    parameter="ssd program_suspend_us",
    where="models/families/kioxia-cm7.yaml program_suspend_us (nvsim/ssd/derive.py PROGRAM_SUSPEND_US for drives with no family)",
    published_ids=("kioxia-cm7-namespace/cm7r-ns768-mix-total",
                   # the 70/30 split of the fitted total follows from it
                   "kioxia-cm7-namespace/cm7r-ns768-mix-read-iops",
                   "kioxia-cm7-namespace/cm7r-ns768-mix-write-iops"),
    why="die time a read costs when it lands on a programming die; only mixed workloads depend on it",
)

DF = "drive-families"


@dataclass(frozen=True)
class FamilyFit:
    """One fitted value of a drive family (models/families/<family>.yaml), fitted in closed form on
    figures of the family's reference SKU only; every other SKU's figures are predictions."""

    family: str
    parameter: str  # "controller_write_page_us", "random_write_die_page_us" or "program_suspend_us"
    published_ids: tuple[str, ...]  # "<scenario dir>/<id>": the reference SKU's numbers it is fitted on (and the smallest SKU's)
    why: str


_CTRL_WHY = "controller time per NAND page a random write programs: the reference SKU's datasheet random write"
_PAIR_WHY = ("the write path's two times per NAND page, the controller's and the die's (GC and collisions included), "
             "from two SKUs' datasheet random writes: the smallest, die-bound SKU and the reference")
WRITE_PATH_PAIRS = (("samsung-pm9a3", "samsung-pm9a3-3.84tb", "samsung-pm9a3-1.92tb"),
                    ("kioxia-cd8p", "kioxia-cd8p-r-7.68tb", "kioxia-cd8p-v-3.2tb"),
                    ("solidigm-d7-ps1010-ps1030", "solidigm-d7-ps1010-7.68tb", "solidigm-d7-ps1010-3.84tb"),
                    ("sandisk-sn861", "sandisk-sn861-7.68tb", "sandisk-sn861-3.84tb"),
                    ("phison-x200", "phison-x200p-7.68tb", "phison-x200p-3.84tb"))
"""Families of at least three SKUs whose write path is fitted on two (reference, smallest die-bound
SKU): ``controller_write_page_us`` and ``random_write_die_page_us`` (nvsim.ssd.family.fit_write_page_us).
The Micron 9550 keeps the NAND generation's die time: its second fitted value is its suspend cost."""
FAMILY_FITS: tuple[FamilyFit, ...] = tuple(
    FamilyFit(family, "controller_write_page_us", (f"{DF}/{reference}-randwrite-iops",), _CTRL_WHY)
    for family, reference in (
        ("micron-9550", "micron-9550-max-6.4tb"), ("kioxia-cm6", "kioxia-cm6-r-30.72tb"),
        ("kioxia-cd6", "kioxia-cd6-r-15.36tb"), ("intel-d7-p5500-p5600", "intel-d7-p5500-7.68tb"),
        ("samsung-pm1743", "samsung-pm1743-7.68tb"))
) + tuple(
    FamilyFit(family, parameter, (f"{DF}/{reference}-randwrite-iops", f"{DF}/{small}-randwrite-iops"), _PAIR_WHY)
    for family, reference, small in WRITE_PATH_PAIRS for parameter in ("controller_write_page_us", "random_write_die_page_us")
) + (
    FamilyFit("kioxia-cm7", "controller_write_page_us", (),
              "controller time per NAND page a random write programs: the reference CM7-R 7.68 TB's datasheet random "
              "write (310K, seed 000; a catalog input, no published number). No CM7 drive uses it: each gives its own figures"),
    FamilyFit("micron-9550", "program_suspend_us", (f"{DF}/micron-9550-max-6.4tb-mix70-total-iops",),
              "die time a read costs on a programming die: the reference SKU's datasheet 70/30 total"),
    FamilyFit("kioxia-cm7", "program_suspend_us", SSD_FIT.published_ids, SSD_FIT.why),
)

G6, G5, XI, MY = "graid-gen5-raid6", "graid-gen5-raid5-16x", "xiraid-qlc-raid5", "graid-mysql-oltp"

ENGINE_FITS: tuple[EngineFit, ...] = (
    EngineFit("host_io", "libaio", ("submit_us", "per_page_us"),
              (f"{G6}/sr1010-randread-cpu", f"{G6}/sr1010-seqread-cpu"),
              "fio's own CPU per I/O and per page: the two SupremeRAID read CPU figures, where the engine adds "
              "no host work", ((0.05, 20.0), (0.001, 2.0))),
    EngineFit("gpu_families", "graid-supremeraid", ("gpu_stripe_us", "gpu_parity_block_us", "driver_member_page_us"),
              (f"{G6}/sr1010-randwrite-iops", f"{G5}/seed004-sr1010-randwrite-iops", f"{G6}/sr1010-randwrite-cpu"),
              "GPU time per stripe update (RAID6 and RAID5 small writes separate the per-parity part) and the "
              "driver's CPU per member page a host write reads or writes", ((0.01, 10.0), (0.0, 10.0), (0.0, 10.0))),
    EngineFit("engines", "linux-md", ("barrier_lock_us", "request_cpu_us", "stripe_member_bio_us"),
              (f"{G6}/md6-randread-iops", f"{G6}/md10-randread-iops", f"{G6}/md10-randwrite-iops",
               f"{G5}/seed004-md-randread-iops", f"{G6}/md6-randwrite-iops", f"{G6}/md6-seqwrite-bw",
               f"{G5}/seed004-md-randwrite-iops", f"{G5}/seed004-md-seqwrite-bw"),
              "raid10's resync_lock hold in wait_barrier, md's CPU per md request, raid5d's cost per member bio "
              "(device_lock's hold is the platform's cache-line transfer)",
              ((0.01, 10.0), (0.0, 50.0), (0.0, 10.0))),
    EngineFit("card_families", "broadcom-megaraid-95xx", ("card_stripe_op_us", "card_stripe_op_us_per_kib"),
              (f"{G5}/seed004-hwraid-randwrite-iops", f"{G5}/seed004-hwraid-seqwrite-bw"),
              "the MegaRAID 9500 family's parity engine: time per stripe update and per KiB of member data (its "
              "datasheets give no RAID5 write ceiling; seed 004's card is read as a 9560-16i)",
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
    EngineFit("gpu_families", "graid-supremeraid", ("rebuild_share",),
              (f"{MY}/sr-raid10-rebuild-speed", f"{MY}/sr-raid6-rebuild-speed"),
              "the share of its busiest drive's time the card paces its rebuild to at its default rebuild "
              "priority, while host I/O runs", ((0.01, 0.95),)),
    EngineFit("engines", "linux-md", ("resync_request_us",),
              (f"{MY}/md-raid10-rebuild-speed", f"{MY}/md-raid6-rebuild-speed", f"{MY}/md-raid6-u256-tps-ratio",
               f"{MY}/md-raid6-u512-tps-ratio", f"{MY}/md-raid6-u1024-tps-ratio"),
              "the resync thread's CPU per recovery request (md_do_sync -> sync_request: one per RAID10 "
              "request, one per RAID5/6 stripe_head)", ((0.1, 200.0),)),
)

DECLARED_FITS: tuple[DeclaredFit, ...] = (SSD_FIT,) + tuple(
    DeclaredFit(parameter=f"{fit.entry} {', '.join(fit.parameters)}", where=f"models/{fit.section}/{fit.entry}.yaml",
                published_ids=fit.published_ids, why=fit.why)
    for fit in ENGINE_FITS
) + tuple(
    DeclaredFit(parameter=f"{fit.family} {fit.parameter}", where=f"models/families/{fit.family}.yaml",
                published_ids=fit.published_ids, why=fit.why)
    for fit in FAMILY_FITS if fit.family != "kioxia-cm7" or fit.parameter != "program_suspend_us"
)

def fitted_parameter_count() -> int:
    """Every declared fitted value once: each ``DeclaredFit`` names its entry, then its parameters
    separated by ", " (the KIOXIA CM7 family's program_suspend_us is SSD_FIT itself)."""
    return sum(len(fit.parameter.split(" ", 1)[1].split(", ")) for fit in DECLARED_FITS)


SOURCE_OF_DIR = {G6: "seed-000", G5: "seed-004", XI: "seed-001", "kioxia-cm7-namespace": "seed-002", MY: "seed-003",
                 "host-io-paths": "axboe2019-io-uring", "qlc-raid5-rebuild": "solidigm-xinnor-rebuild-2025"}
"""The brief (shared/seeds source key) each scenario directory's published numbers come from."""


def fitted_ids() -> frozenset[str]:
    """Published-number ids (``<scenario dir>/<id>``) used by some fit."""
    return frozenset(i for fit in DECLARED_FITS for i in fit.published_ids)


__all__ = ["Tolerance", "PublishedNumber", "PublishedFile", "load_published", "published_files", "SCENARIOS_DIR",
           "SCENARIO_ROOTS", "scenarios_dir", "where_looked", "require_published_files",
           "DeclaredFit", "EngineFit", "FamilyFit", "FAMILY_FITS", "SSD_FIT", "ENGINE_FITS", "DECLARED_FITS", "SOURCE_OF_DIR", "fitted_ids", "fitted_parameter_count"]
