"""The workload a scenario runs: a fio-like job (``WorkloadSpec``) or an OLTP database (``OltpSpec``).

Names and meanings follow fio (sizes binary for bare k/m/g as fio's, fio's booleans); the
ioengine, its options and the OLTP profile are checked against the catalog when one is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator

from ..skew_syntax import check_distribution
from .base import Bytes, Seconds, Spec, _catalog, _known_name

def _fio_bool(value: Any) -> bool:
    """fio's boolean options: 0/1 (and true/false, yes/no, on/off as YAML writes them)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"must be 0 or 1 (fio's boolean), got {value!r}")


FioBool = Annotated[bool, BeforeValidator(_fio_bool)]


def _host_io_entry(data: Any, info: ValidationInfo) -> Any:
    """The catalog's host I/O entry a raw workload names (None: no catalog, or not yet valid)."""
    catalog = _catalog(info)
    engine = data.get("ioengine", "libaio") if isinstance(data, dict) else None
    if catalog is None or not isinstance(engine, str):
        return None
    return catalog.host_io.get(engine)

class OltpSpec(Spec):
    """An OLTP database on the array: the profile (catalog ``oltp``), the data and its cache."""

    profile: str = "sysbench-oltp-rw"
    dataset_bytes: Bytes = Field(gt=0)
    buffer_pool_bytes: Bytes = Field(ge=0)

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "oltp", "OLTP profile")


FioRw = Literal["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "oltp"]


class WorkloadSpec(Spec):
    """A fio-like job: the names and meanings follow fio (sizes binary for bare k/m/g as fio's)."""

    name: str = Field(min_length=1, max_length=200)
    rw: FioRw
    bs: Bytes = 4096
    iodepth: int = Field(default=1, ge=1, le=65536)
    numjobs: int = Field(default=1, ge=1, le=65536)
    rwmixread: int = Field(default=50, ge=0, le=100)
    size: Bytes | None = Field(default=None, gt=0)
    offset_increment: Bytes = Field(default=0, ge=0)
    offset: Bytes = Field(default=0, ge=0, description="fio's offset: where job 0's region starts on the device")
    rw_skip_bytes: int = Field(default=0, ge=-(2**40), le=2**40, description="fio's rw=read:N for a sequential job: bytes "
                               "skipped after each I/O (negative: the stream runs backwards)")
    random_run_ios: int = Field(default=1, ge=1, le=2**20, description="fio's rw=randread:N: I/Os issued one after the "
                                "other from each random offset")
    runtime: Seconds | None = Field(default=None, gt=0)
    ramp_time: Seconds = Field(default=0.0, ge=0)
    time_based: bool = False
    ioengine: str = "libaio"
    hipri: FioBool = False
    fixedbufs: FioBool = False
    registerfiles: FioBool = False
    sqthread_poll: FioBool = False
    iodepth_batch_submit: int = Field(default=1, ge=1, le=65536)
    iodepth_batch_complete_min: int = Field(default=1, ge=1, le=65536)
    users: int | None = Field(default=None, ge=1, le=1_000_000, description="OLTP: concurrent clients (closed loop)")
    oltp: OltpSpec | None = None
    random_distribution: str = Field(default="random", max_length=4000, description=(
        "fio's random_distribution (random, zipf:THETA, pareto:H, normal:DEV, zoned:A/R:..., zoned_abs:A/SIZE:...): "
        "the hotness of the written data, which sets the drives' hot/cold write amplification (nvsim.ftl.skew)"))
    drive_state: Literal["steady", "fresh"] = Field(default="steady", description=(
        "steady: drives preconditioned (garbage collection at the steady-state WAF); fresh: secure-erased drives "
        "writing into free blocks, WAF 1 (nvsim.ftl.load)"))
    deallocated_fraction: float = Field(default=0.0, ge=0.0, lt=1.0, description=(
        "share of the written region deallocated (trimmed, NVMe Dataset Management) and not rewritten: it holds no "
        "valid data, so the FTL counts it as spare"))

    @field_validator("random_distribution")
    @classmethod
    def _distribution(cls, value: str) -> str:
        try:
            check_distribution(value)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}; allowed: random, zipf:THETA, pareto:H, normal:DEV, zoned:A/R:..., "
                             f"zoned_abs:A/SIZE:... (fio's random_distribution)") from None
        return value.strip()

    @model_validator(mode="after")
    def _oltp_fields(self) -> "WorkloadSpec":
        if self.rw == "oltp" and (self.oltp is None or self.users is None):
            raise ValueError("rw: oltp needs users and an oltp section (profile, dataset_bytes, buffer_pool_bytes)")
        if self.rw != "oltp" and (self.oltp is not None or self.users is not None):
            raise ValueError(f"users/oltp: only for rw: oltp, not rw: {self.rw}")
        return self

    @property
    def is_oltp(self) -> bool:
        return self.rw == "oltp"

    @field_validator("ioengine")
    @classmethod
    def _known_ioengine(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "host_io", "ioengine")

    @model_validator(mode="before")
    @classmethod
    def _sync_engine_depth_one(cls, data: Any, info: ValidationInfo) -> Any:
        """A synchronous ioengine (psync, sync, pvsync, pvsync2) has one I/O in flight per job
        whatever ``iodepth`` says: fio sets iodepth to 1 for engines flagged FIO_SYNCIO."""
        entry = _host_io_entry(data, info)
        if entry is not None and entry.synchronous and data.get("iodepth", 1) != 1:
            return {**data, "iodepth": 1}
        return data

    @model_validator(mode="after")
    def _options_of_ioengine(self, info: ValidationInfo) -> "WorkloadSpec":
        """Each fio option set must be one the ioengine takes (catalog ``options``)."""
        catalog = _catalog(info)
        entry = catalog.host_io.get(self.ioengine) if catalog is not None else None
        if entry is None:
            return self
        for option in ("hipri", "fixedbufs", "registerfiles", "sqthread_poll"):
            if getattr(self, option) and option not in entry.options:
                allowed = ", ".join(entry.options) or "none of hipri, fixedbufs, registerfiles, sqthread_poll"
                raise ValueError(f"{option}: ioengine {self.ioengine} does not take it; its options: {allowed}")
        return self

    @field_validator("bs")
    @classmethod
    def _sector_multiple(cls, value: int) -> int:
        if value <= 0 or value % 512:
            raise ValueError(f"must be a positive multiple of 512 bytes, got {value}")
        return value

    @property
    def read_fraction(self) -> float:
        if self.rw in ("read", "randread"):
            return 1.0
        if self.rw in ("write", "randwrite"):
            return 0.0
        return self.rwmixread / 100.0

    @property
    def is_random(self) -> bool:
        return self.rw.startswith("rand")


# ---------------------------------------------------------------- what fio's jobs carry beyond WorkloadSpec

DRIVE_STATES = ("steady", "fresh")

MAX_MIX_PARTS = 8
"""Most parts a mix is simulated as: a wider mix (``bsrange=16k-1m`` is 64 sizes) is binned into
this many parts of equal share (each the I/O-weighted mean size, a whole number of 512-byte
sectors), which keeps the event mode's work to 8 runs."""


@dataclass(frozen=True)
class MixPart:
    """One part of a mix: a block size, its share of the I/Os (0..1], and its direction ("read",
    "write", or None: the job's rw)."""

    bs: int
    share: float
    rw: str | None = None


@dataclass(frozen=True)
class TraceSummary:
    """What a replay draws from a trace: I/O count, read share, the size mix per direction, the
    share of sequential I/Os, the region touched, and the mean arrival rate (None: untimed)."""

    ios: int
    read_fraction: float
    parts: tuple[MixPart, ...]
    sequential_share: float
    start_bytes: int
    region_bytes: int
    arrival_iops: float | None
    skipped: int
    format: str = ""
