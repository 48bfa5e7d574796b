"""The workload a scenario runs: a fio-like job (``WorkloadSpec``) or an OLTP database (``OltpSpec``).

Names and meanings follow fio (sizes binary for bare k/m/g as fio's, fio's booleans); the
ioengine, its options and the OLTP profile are checked against the catalog when one is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field, ModelWrapValidatorHandler, ValidationInfo, field_validator, model_validator

from ..skew_syntax import check_distribution
from .base import Bytes, Count, FioTime, Label, Seconds, Spec, _catalog, _known_name
from .mix import MAX_MIX_PARTS, MixPart, block_size_mix, mean_size, parse_bsrange, parse_bssplit  # noqa: F401 (re-exported)
from ..errors import suggestion_then
from ..units import parse_bytes

SECONDS_BOUNDS = {"bound_unit": "seconds"}
"""The bounds of a fio time (``FioTime``): in seconds, whatever unit the value came in."""


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
RATE_IOPS_MIN = 1e-3
"""The least cap a clone's direction takes: one I/O in 1,000 s (1e-300 was taken, and printed as such)."""
RATE_IOPS_MAX = 1e9
"""The most a clone's cap takes, in I/Os per second."""
PositiveRate = Annotated[Count, Field(ge=RATE_IOPS_MIN, le=RATE_IOPS_MAX)]
"""I/Os per second of one clone in one direction (``rate_iops_by_direction``)."""


def _host_io_entry(data: Any, info: ValidationInfo) -> Any:
    """The catalog's host I/O entry a raw workload names (None: no catalog, or not yet valid)."""
    catalog = _catalog(info)
    engine = data.get("ioengine", "libaio") if isinstance(data, dict) else None
    if catalog is None or not isinstance(engine, str):
        return None
    return catalog.host_io.get(engine)

TRIM_SHAPE = {"trim": "write", "randtrim": "randwrite", "trimwrite": "write", "randtrimwrite": "randwrite"}
"""The write job whose offsets (and, for trimwrite, writes) a trim job has (fio's rw for trims)."""
COMPOSITE_FIELDS = ("bs_mix", "rate_iops", "rate_iops_by_direction", "thinktime", "latency_target", "flow", "trim", "phase")
"""The fields that make a workload composite (solved by nvsim.workload.compose from closed loops)."""
OLTP_IGNORES = ("bs", "iodepth", "numjobs", "random_distribution", "rwmixread", "size", "offset", "offset_increment",
                "rw_skip_bytes", "random_run_ios", "ioengine", "hipri", "fixedbufs", "registerfiles", "sqthread_poll",
                "iodepth_batch_submit", "iodepth_batch_complete_min", "drive_state", "deallocated_fraction", "io_size",
                "loops", "runtime", "ramp_time", "time_based")
"""A fio job's fields an OLTP workload has no use for (``users`` and ``oltp`` set its load: its
pages, log writes and flushes, nvsim.oltp): given other than their defaults, they are refused
rather than ignored (``drive_state: fresh`` on a database was dropped without a word)."""
MAX_LISTED_PARTS = 2**16 + 1
"""Most parts a mix lists (a bsrange of 2^16 sizes, and HIGH's remainder)."""
MIX_SHARE_SLACK = 1e-6
"""How far above 1 a mix's shares may add up (a trace's counts over their total, rounded)."""


def _bytes(text: str) -> int:
    """One size of a mix written in a scenario (nvsim.units; binary for bare k/m/g, as fio's)."""
    return parse_bytes(text.strip())


def _part(item: Any) -> Any:
    """A mix part written as a mapping, its size with units."""
    if isinstance(item, dict) and isinstance(item.get("bs"), str):
        return {**item, "bs": parse_bytes(item["bs"])}
    return item


def _read_percent(data: dict) -> int:
    """rwmixread as a bssplit's directions are weighed by (50 where it cannot be read: its field's check says why)."""
    try:
        return int(data.get("rwmixread", 50))
    except (TypeError, ValueError, OverflowError):
        return 50


def _mean_of(items: list) -> Any:
    """The mean size of a mix written as parts (4096 where the parts cannot be read: the field's check says why)."""
    try:
        return mean_size(tuple(p if isinstance(p, MixPart) else MixPart(int(p["bs"]), float(p["share"])) for p in items))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return 4096


INNODB_BUFFER_POOL_MIN_BYTES = 5 * 2**20
"""MySQL's least innodb_buffer_pool_size (5 MiB: the MySQL 8.0 reference manual's "Minimum Value
5242880" of the variable); a smaller pool does not start the server."""


class OltpSpec(Spec):
    """An OLTP database on the array: the profile (catalog ``oltp``), the data and its cache."""

    profile: str = "sysbench-oltp-rw"
    dataset_bytes: Bytes = Field(gt=0)
    buffer_pool_bytes: Bytes = Field(ge=INNODB_BUFFER_POOL_MIN_BYTES, json_schema_extra={
        "bound_unit": "bytes (InnoDB's innodb_buffer_pool_size is at least 5 MiB)"})

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "oltp", "OLTP profile")


FioRw = Literal["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "oltp"]


class WorkloadSpec(Spec):
    """A fio-like job: the names and meanings follow fio (sizes binary for bare k/m/g as fio's)."""

    name: Label
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
    drive_state: Literal["steady", "fresh", "filled"] = Field(default="steady", description=(
        "steady: drives preconditioned (garbage collection at the steady-state WAF); fresh: secure-erased drives "
        "writing into free blocks, WAF 1 (nvsim.ftl.load); filled: drives just written sequentially end to end, whose "
        "random writes go through garbage collection's transient over the job's runtime (nvsim.ftl.transient)"))
    deallocated_fraction: float = Field(default=0.0, ge=0.0, lt=1.0, description=(
        "share of the written region deallocated (trimmed, NVMe Dataset Management) and not rewritten: it holds no "
        "valid data, so the FTL counts it as spare"))
    # the block-size mix: bssplit / bsrange (fio's text, read by the model validator) or parts
    bs_mix: tuple[MixPart, ...] | None = Field(default=None, description=(
        "the mix of block sizes (fio's bssplit or bsrange, a trace's sizes): parts of a size, a share of the I/Os "
        "and a direction (None: the job's rw); the shares add up to at most 1 (parts that add up to less are "
        "scaled up to 1; fio's bssplit text gives its rest to the largest share, as fio draws it); bs is then the "
        "mix's mean (nvsim.workload.mix)"))
    # pacing (nvsim.workload.compose): a rate cap, a think time (either or both), or a latency target
    rate_iops: Count | None = Field(default=None, ge=RATE_IOPS_MIN, le=RATE_IOPS_MAX, description=(
        "fio's rate_iops: the I/Os per second one clone may issue (a cap over the job's mix of directions)"))
    rate_iops_by_direction: tuple[PositiveRate | None, PositiveRate | None] | None = Field(default=None, description=(
        "fio's rate_iops=R,W on a read/write mix: the I/Os per second one clone may issue in each direction, each "
        "direction capped on its own (null: that direction uncapped); fio issues a direction that is behind its cap "
        "at once, so a direction at its cap leaves the job's depth to the other (nvsim.workload.compose.direction_caps). "
        "rate_iops is the cap over the job's mix"))
    rate_process: Literal["linear", "poisson"] = Field(default="linear", description=(
        "fio's rate_process: linear (evenly spaced) or poisson (random arrivals at the cap's mean rate)"))
    thinktime: FioTime | None = Field(default=None, gt=0, le=3600, json_schema_extra=SECONDS_BOUNDS, description=(
        "fio's thinktime: each clone's stall after every I/O (as fio: microseconds without a unit; held in seconds, "
        "at most 3600 s)"))
    latency_target: FioTime | None = Field(default=None, gt=0, le=3600, json_schema_extra=SECONDS_BOUNDS, description=(
        "fio's latency_target: the highest iodepth at which latency_percentile % of the I/Os take at most this (as "
        "fio: microseconds without a unit; held in seconds)"))
    latency_percentile: float = Field(default=100.0, gt=0, le=100)
    latency_window: FioTime | None = Field(default=None, gt=0, le=3600, json_schema_extra=SECONDS_BOUNDS, description=(
        "fio's latency_window (as fio: microseconds without a unit; held in seconds)"))
    flow: int | None = Field(default=None, ge=1, le=2**31, description=(
        "fio's flow: this job's weight among the jobs of its flow_id that run together"))
    flow_id: int = Field(default=0, ge=0, le=2**31)
    trim: Literal["trim", "randtrim", "trimwrite", "randtrimwrite"] | None = Field(default=None, description=(
        "fio's trim rw (NVMe deallocate; written rw: trim, randtrim, trimwrite, randtrimwrite): trims only, or a trim "
        "before each write (nvsim.workload.trim); rw is then the write job whose offsets the trims have"))
    io_size: Bytes | None = Field(default=None, gt=0, description="fio's io_size: bytes each clone moves (default size)")
    loops: int = Field(default=1, ge=1, le=2**31, description="fio's loops: how many times each clone moves io_size")
    phase: Label | None = Field(default=None, description=(
        "the workloads of a scenario with one phase run at the same time on the array, as fio's jobs without a "
        "stonewall between them (nvsim.workload.compose.phase)"))

    @model_validator(mode="before")
    @classmethod
    def _fio_forms(cls, data: Any) -> Any:
        """fio's written forms: rw as a trim (trim, randtrim, trimwrite, randtrimwrite), bssplit and
        bsrange as fio's text (the mix's parts, ``bs`` their mean), parts' sizes with units."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("rw"), str) and data["rw"] in TRIM_SHAPE:
            data["trim"], data["rw"] = data["rw"], TRIM_SHAPE[data["rw"]]
        elif isinstance(data.get("rw"), str) and data["rw"] not in get_args(FioRw):  # name the trims too
            names = [*get_args(FioRw)[:-1], *TRIM_SHAPE, "oltp"]
            raise ValueError(f"rw: unknown {data['rw']!r}{suggestion_then(data['rw'], names)}allowed: {', '.join(names)}")
        texts = [key for key in ("bssplit", "bsrange") if key in data]
        if not texts:
            if isinstance(data.get("bs_mix"), (list, tuple)):
                data["bs_mix"] = [_part(item) for item in data["bs_mix"]]
                data.setdefault("bs", _mean_of(data["bs_mix"]))
            return data
        if len(texts) > 1 or data.get("bs_mix") is not None:  # a dumped workload's bs_mix: None is no mix
            raise ValueError("bssplit, bsrange, bs_mix: give one mix of block sizes")
        data.pop("bs_mix", None)
        key = texts[0]
        parse = parse_bssplit if key == "bssplit" else parse_bsrange
        try:
            split = parse(str(data.pop(key)), _bytes)
            mix = block_size_mix(split, str(data.get("rw", "")), _read_percent(data))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{key}: {exc}") from None
        if "bs" in data and parse_bytes(data["bs"]) != mean_size(mix):
            raise ValueError(f"bs: with {key} the block size is the mix's mean, {mean_size(mix)} bytes; leave bs out")
        data.update(bs_mix=list(mix), bs=mean_size(mix))
        return data

    @field_validator("bs_mix")
    @classmethod
    def _parts(cls, value: tuple[MixPart, ...] | None) -> tuple[MixPart, ...] | None:
        if value is None:
            return None
        if not 1 <= len(value) <= MAX_LISTED_PARTS:
            raise ValueError(f"a mix has 1 to {MAX_LISTED_PARTS} parts, got {len(value)}")
        for part in value:
            if part.bs <= 0 or part.bs % 512 or part.bs > 2**64:
                raise ValueError(f"a part's bs must be a positive multiple of 512 bytes, got {part.bs}")
            if not 0 < part.share <= 1 or part.share != part.share:
                raise ValueError(f"a part's share of the I/Os must be in (0, 1], got {part.share}")
            if part.rw not in (None, "read", "write"):
                raise ValueError(f"a part's rw must be read, write or absent, got {part.rw!r}")
        total = sum(part.share for part in value)
        if total > 1.0 + MIX_SHARE_SLACK:  # as fio refuses a bssplit over 100%
            raise ValueError(f"the parts' shares of the I/Os must add up to at most 1, got {total:.6g}")
        return value

    @model_validator(mode="after")
    def _pacing_and_trims(self) -> "WorkloadSpec":
        """Combinations nvsim does not model are refused, as the fio reader refuses them."""
        capped = self.rate_iops is not None or self.rate_iops_by_direction is not None
        if self.latency_target is not None and (capped or self.thinktime is not None):
            raise ValueError("latency_target: a latency target together with a rate cap or a think time is not modelled")
        if self.rate_process == "poisson" and not capped:
            raise ValueError("rate_process: poisson arrivals need a rate (rate_iops)")
        self._direction_caps()
        if self.trim is not None and self.rw != TRIM_SHAPE[self.trim]:
            raise ValueError(f"trim: {self.trim}'s offsets are those of rw {TRIM_SHAPE[self.trim]}; write rw: {self.trim}")
        directed = [p for p in self.bs_mix or () if p.rw is not None]
        against = "write" if self.rw in ("read", "randread") else "read" if self.rw in ("write", "randwrite") else None
        if against and any(p.rw == against for p in directed):
            raise ValueError(f"bs_mix: a part marked rw: {against} in a job of rw: {self.rw}, which issues no {against}s")
        if directed and self.rw not in ("read", "randread", "write", "randwrite"):
            reads = sum(p.share for p in directed if p.rw == "read") / sum(p.share for p in directed)
            if abs(reads - self.rwmixread / 100) > 0.005 + 1e-9:  # a trace's read share, rounded to a percent
                raise ValueError(f"bs_mix: its read parts are {reads:.1%} of the I/Os, rwmixread says {self.rwmixread}%")
        smallest = self.min_bs
        if self.size is not None and self.size < smallest:  # fio's filesetup.c: "blocksize too large for data set"
            raise ValueError(f"size: {self.size:,} bytes is smaller than the block size, {smallest:,} bytes "
                             f"(fio refuses it: blocksize too large for data set)")
        self._no_field_without_its_use()
        shaped = [name for name in COMPOSITE_FIELDS if getattr(self, name) not in (None, 0, "linear")]
        if self.rw == "oltp" and shaped:
            name = "bssplit/bsrange" if shaped[0] == "bs_mix" else shaped[0]
            why = "its profile sets its page and log sizes" if shaped[0] == "bs_mix" else "a database's clients pace themselves"
            raise ValueError(f"{name}: not for rw: oltp ({why})")
        return self

    def _direction_caps(self) -> None:
        """``rate_iops_by_direction`` is for a read/write mix with a cap on at least one direction,
        not beside ``rate_iops``, nor with a mix of block sizes marked by direction (whose read share
        is the mix's own, which the caps move)."""
        caps = self.rate_iops_by_direction
        if caps is None:
            return
        if self.rate_iops is not None:
            raise ValueError("rate_iops_by_direction: give either it (a cap per direction) or rate_iops (a cap over the mix)")
        if caps[0] is None and caps[1] is None:
            raise ValueError("rate_iops_by_direction: needs a cap on at least one direction, got [null, null]")
        if self.rw not in ("rw", "readwrite", "randrw") or self.rwmixread in (0, 100):
            raise ValueError("rate_iops_by_direction: for a read/write mix (rw: randrw, rw or readwrite with rwmixread "
                             "1-99); a job of one direction takes rate_iops")
        if any(part.rw is not None for part in self.bs_mix or ()):
            raise ValueError("rate_iops_by_direction: with a block-size mix marked by direction (bssplit per direction) "
                             "it is not modelled; allowed: one bssplit for both directions")

    def _no_field_without_its_use(self) -> None:
        """A field that would change nothing where it is given is refused, not ignored: a latency
        target's window and percentile without the target, a flow id without a flow weight, fio's
        rw=read:N skip on a random job, its randread:N run and the offsets' distribution on a
        sequential one (the fio reader passes none of these where fio ignores them)."""
        if self.latency_target is None:
            if self.latency_window is not None:
                raise ValueError("latency_window: the window of a latency target; give latency_target too")
            if self.latency_percentile != 100.0:
                raise ValueError("latency_percentile: the percentile of a latency target; give latency_target too")
        if self.flow_id and self.flow is None:
            raise ValueError("flow_id: groups jobs by their flow weights; give flow too")
        if self.rw == "oltp":
            return
        if self.is_random and self.rw_skip_bytes:
            raise ValueError(f"rw_skip_bytes: fio's rw=read:N skip is for a sequential job, not rw: {self.rw}")
        if not self.is_random and self.random_run_ios != 1:
            raise ValueError(f"random_run_ios: fio's rw=randread:N run is for a random job, not rw: {self.rw}")
        if not self.is_random and self.random_distribution != "random":
            raise ValueError(f"random_distribution: spreads a random job's offsets; rw: {self.rw} is sequential")

    @property
    def mix(self) -> tuple[MixPart, ...] | None:
        """The block-size mix (None: one size, ``bs``)."""
        return self.bs_mix

    @property
    def min_bs(self) -> int:
        """fio's ``td_min_bs``: the smallest block of any direction (the mix's smallest part, else
        ``bs``), to which fio rounds a size of N% and a region cut at the device's end (filesetup.c)."""
        return min(p.bs for p in self.bs_mix) if self.bs_mix else self.bs

    @property
    def pure_trim(self) -> bool:
        """Trims only (rw=trim, randtrim): deallocations, no reads or writes."""
        return self.trim in ("trim", "randtrim")

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
        fio_only = [name for name in OLTP_IGNORES if getattr(self, name) != type(self).model_fields[name].default] \
            if self.rw == "oltp" else []
        if fio_only:
            raise ValueError(f"{fio_only[0]}: not for rw: oltp (its users, its profile's pages and its data set set "
                             f"the I/O); leave it out")
        return self

    @property
    def is_oltp(self) -> bool:
        return self.rw == "oltp"

    def region_error(self, device_bytes: int, device: str = "array", size_clamped: bool = False,
                     devices: int = 1) -> tuple[str, str] | None:
        """(the field, why) where this workload's region is not on a ``device`` of ``device_bytes``:
        fio's ``offset`` at or past its end (fio: "offset extends end"), a clone's start (``offset_increment``)
        past it, or ``offset + size`` past it
        (fio stops the job at the device's end: the I/Os it was asked for are not done); fio wraps
        neither. ``size_clamped``: a size written as a share ('N%'), which fio cuts to what follows
        the offset; an OLTP database's data set larger than the ``device`` (than the ``devices``
        together where drives are used directly: its tables spread over them), whose tables could not be
        stored on it. ``devices``: drives used directly (no RAID), each a ``device`` of its own
        taking its share of the clones (clone ``j`` on drive ``j mod devices``), so a clone's start
        counts only its own drive's clones before it. None: it is on the device."""
        room = device_bytes * max(1, devices)  # a database's tables spread over drives used directly
        if self.is_oltp and self.oltp.dataset_bytes > room:
            where = f"the {device}" if devices <= 1 else f"the {devices} drives ({device_bytes:,} bytes each)"
            return "oltp.dataset_bytes", (f"{self.oltp.dataset_bytes:,} bytes of data do not fit on {where} "
                                          f"({room:,} bytes); allowed: up to {room:,}")
        if self.offset >= device_bytes:
            return "offset", (f"{self.offset:,} bytes is at or past the end of the {device} ({device_bytes:,} bytes); "
                              f"allowed: 0 to {device_bytes - 1:,}")
        clones = -(-self.numjobs // max(1, devices))  # on each device
        last = self.offset + (clones - 1) * (self.offset_increment or 0)
        if last >= device_bytes:  # fio fails the clone: its offset extends past the end
            room = (device_bytes - 1 - self.offset) // (clones - 1)
            where = f"the {device}" if devices <= 1 else f"its drive ({clones} clones on each of {devices})"
            return "offset_increment", (f"clone {clones - 1} would start at offset + {clones - 1} x "
                                        f"offset_increment = {last:,} bytes, at or past the end of {where} "
                                        f"({device_bytes:,} bytes); allowed: up to {room:,} bytes with {self.numjobs} jobs")
        end = self.offset + (self.size or 0)
        if not size_clamped and end > device_bytes:
            return "size", (f"offset + size = {end:,} bytes goes past the end of the {device} ({device_bytes:,} bytes); "
                            f"allowed: size up to {device_bytes - self.offset:,} at offset {self.offset:,}")
        return None

    @field_validator("ioengine")
    @classmethod
    def _known_ioengine(cls, value: str, info: ValidationInfo) -> str:
        return _known_name(value, info, "host_io", "ioengine")

    @model_validator(mode="wrap")
    @classmethod
    def _sync_engine_depth_one(cls, data: Any, handler: ModelWrapValidatorHandler["WorkloadSpec"],
                               info: ValidationInfo) -> "WorkloadSpec":
        """A synchronous ioengine (psync, sync, pvsync, pvsync2) has one I/O in flight per job
        whatever ``iodepth`` says: fio sets iodepth to 1 for engines flagged FIO_SYNCIO, once its
        parser has taken the value, so an iodepth fio refuses (0, not a count) is refused whatever the engine."""
        spec = handler(data)
        entry = _host_io_entry(data, info)
        if entry is not None and entry.synchronous and spec.iodepth != 1:
            return handler({**data, "iodepth": 1})
        return spec

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

    @field_validator("offset", "offset_increment")
    @classmethod
    def _sector_aligned(cls, value: int) -> int:
        """nvsim simulates direct I/O, and O_DIRECT on a block device takes whole 512-byte sectors
        (fio's I/O at offset=50 with direct=1 fails: 'Invalid argument'; nvsim ran it at 412K IOPS)."""
        if value % 512:
            raise ValueError(f"must be a multiple of 512 bytes (direct I/O takes whole sectors), got {value:,}")
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

DRIVE_STATES = ("steady", "fresh", "filled")

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


class Phase(Spec):
    """Jobs that run at the same time on one array (fio's jobs with no ``stonewall`` between them,
    or a scenario's workloads of one ``phase``): ``Simulation(scenario, phase)`` solves them
    together (nvsim.workload.compose.phase), one result per job."""

    name: Label
    jobs: tuple[WorkloadSpec, ...] = Field(min_length=1, max_length=4096)

    @property
    def is_oltp(self) -> bool:
        return False

    @property
    def one_loop(self) -> bool:
        """Whether the jobs are one closed loop: the same workload but for name, numjobs and how long
        they run, none paced (rate cap, think time, latency target, flow weight)."""
        def signature(w: WorkloadSpec) -> str:
            return w.model_copy(update={"name": "", "numjobs": 1, "runtime": None, "time_based": False, "ramp_time": 0.0,
                                        "io_size": None, "loops": 1, "flow_id": 0, "phase": None}).model_dump_json()
        unpaced = all(w.rate_iops is None and w.thinktime is None and w.latency_target is None and w.flow is None
                      for w in self.jobs)
        return len(self.jobs) > 1 and unpaced and len({signature(w) for w in self.jobs}) == 1
