"""Drive families: a controller plus a NAND generation, and the SKUs built from them.

A *family* (models/families/<name>.yaml) holds what its SKUs share: the NAND die (its generation,
models/nand/, whose die capacity, NAND type and bits per cell the catalog fills in; planes, page,
tR / tPROG / tBERS, the suspend cost a read pays on a programming die), the
controller (channels and their transfer rate, command-rate and bandwidth ceilings per direction,
its time per NAND page a random write programs), and the datasheet values every SKU quotes alike
(latencies, block sizes, IU, warranty). A *SKU* (models/drives/<name>.yaml with ``family:``) is
what a buyer knows: capacity, raw NAND, DWPD class, form factor, link width, and -- for an add-in
card that puts several of the family's controllers behind one x8/x16 link -- ``controllers`` (each
with an equal share of the NAND; the card's figures are the sum, the link caps them in the drive
model). Any datasheet figure
the SKU's file gives is an input (datasheet mode); those it leaves out are predicted here:

* dies ``D = raw NAND / die capacity``; die program bandwidth ``planes * page * bits / tPROG``,
  die read bandwidth ``planes * page / tR``, 4 KiB die reads ``planes / tR`` per second;
* sequential write ``min(D * die program bw, channels * channel bw, controller write bw)``;
  sequential read likewise with the read figures;
* random read ``min(D * planes / tR, controller read IOPS)``;
* random write (4 KiB, steady state, full namespace): each host write programs ``rmw * WAF``
  NAND pages (WAF: greedy GC at the SKU's spare factor ``(raw - capacity) / raw``, nvsim.ftl), each
  page costing the controller ``controller_write_page_us`` and the die pool ``t_page / D``
  (``t_page`` = one 4 KiB page's share of a die's program time); a write smaller than the IU
  also reads one IU. Capped by the controller's write command rate where the family states one.

So a 3 DWPD part writes faster than a 1 DWPD one through its spare area, a part with more dies
writes faster through its die term (less so when the controller term dominates), and two parts at
the controller's write ceiling quote one figure whatever their spare. docs/models/drive-families.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..constants import PAGE_BYTES
from ..ftl.closed_form import iu_rmw_factor, spare_factor_from_capacity, waf_greedy_desnoyers2012
from ..specs import Bytes, BytesPerS, Cited, Count, PhysicalNumbers
from ..specs.nand import ENTRY_NAME, NAND_NAME
from ..units import parse_bytes
from .derive import nand_dies, partial_iu_reads

FAMILY_MODEL_SOURCE = "nvsim-drive-family-model"
"""Bibliography key of the figures this module predicts (basis ``predicted``)."""

MAX_CONTROLLERS = 8
"""Controllers one add-in card may carry (x16 cards carry two to four x4 controllers today)."""

SHARED_FIELDS = ("pcie_generation", "seq_block_bytes", "rand_block_bytes", "rand_queue_depth", "read_latency_us",
                 "write_latency_us", "indirection_unit_bytes", "warranty_years", "mtbf_hours", "uber_per_bit",
                 "program_suspend_us", "nand_program_us", "nand_erase_us")
"""Family values a SKU takes as they are unless its own file gives them."""


class SkuFieldError(ValueError):
    """A SKU file's field the family model cannot use: ``field`` and the one-line reason."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class DriveFamilySpec(PhysicalNumbers):
    """One drive family: controller + NAND generation (units in the names; every number cited)."""

    AT_MOST_ONE: ClassVar[tuple[str, ...]] = ("uber_per_bit",)

    name: str
    kind: Literal["drive_family"] = "drive_family"
    vendor: str
    model: str
    controller: str = Field(pattern=ENTRY_NAME, description="models/controllers/ entry: its channels, channel rate and "
                                                       "write command ceiling are filled in from it by the catalog")
    nand_generation: str = Field(description="models/nand/ entry: its die capacity, NAND type and bits per cell are "
                                             "filled in from it by the catalog (nvsim.ssd.nand)")
    nand: str = Field(pattern=NAND_NAME, description="the generation's NAND type (filled in by the catalog)")
    bits_per_cell: Cited[int] = Field(description="the NAND type's (filled in by the catalog): a wordline program "
                                                  "writes that many pages per plane")
    reference_sku: str
    die_bytes: Cited[Bytes] = Field(description="the generation's die capacity (filled in by the catalog)")
    planes_per_die: Cited[int]
    page_bytes: Cited[Bytes]
    nand_read_us: Cited[float]
    nand_program_us: Cited[float]
    nand_erase_us: Cited[float]
    program_suspend_us: Cited[float]
    channels: Cited[int] = Field(description="the controller's (filled in by the catalog)")
    channel_bytes_per_s: Cited[BytesPerS] = Field(description="the controller's (filled in by the catalog)")
    controller_read_bytes_per_s: Cited[BytesPerS]
    controller_write_bytes_per_s: Cited[BytesPerS]
    controller_read_iops: Cited[Count]
    controller_write_iops: Cited[Count] | None = Field(default=None, description="the controller's write command "
                                                       "ceiling where its brief states one (filled in by the catalog)")
    controller_write_page_us: Cited[float]
    random_write_die_page_us: Cited[float] | None = Field(
        default=None, description="die time per 4 KiB NAND page a steady-state random write programs (GC and die "
                                  "collisions included), fitted with controller_write_page_us on the family's smallest, "
                                  "die-bound SKU and its reference (fit_write_page_us); None: one page's share of the "
                                  "NAND generation's program (die_program_bytes_per_s)")
    dram_bytes: Cited[Bytes] | None = None
    pcie_generation: Cited[int]
    indirection_unit_bytes: Cited[Bytes]
    seq_block_bytes: Cited[Bytes]
    rand_block_bytes: Cited[Bytes]
    rand_queue_depth: Cited[int]
    read_latency_us: Cited[float]
    write_latency_us: Cited[float]
    warranty_years: Cited[float]
    mtbf_hours: Cited[float]
    uber_per_bit: Cited[float]


@dataclass(frozen=True)
class SkuFigures:
    """A SKU's predicted datasheet figures and the terms that set them."""

    dies: int
    spare_factor: float
    waf: float
    seq_read_bytes_per_s: float
    seq_write_bytes_per_s: float
    rand_read_iops: float
    rand_write_iops: float
    limits: tuple[tuple[str, str], ...]

    def as_fields(self) -> dict[str, float]:
        return {"seq_read_bytes_per_s": self.seq_read_bytes_per_s, "seq_write_bytes_per_s": self.seq_write_bytes_per_s,
                "rand_read_iops": self.rand_read_iops, "rand_write_iops": self.rand_write_iops}


def family_dies(family: DriveFamilySpec, raw_nand_bytes: float) -> int:
    """Dies behind the controller: raw NAND over the family's die capacity (its NAND generation's),
    the same count as the SSD model's (``nvsim.ssd.derive.nand_dies``)."""
    return nand_dies(raw_nand_bytes, family.die_bytes.value)


def die_program_bytes_per_s(family: DriveFamilySpec) -> float:
    """One die programming all planes, one wordline (bits-per-cell pages per plane) per tPROG."""
    bits = family.bits_per_cell.value
    return family.planes_per_die.value * family.page_bytes.value * bits / (family.nand_program_us.value * 1e-6)


def die_read_iops(family: DriveFamilySpec) -> float:
    """4 KiB reads one die serves per second: each plane reads independently, one tR each."""
    return family.planes_per_die.value / (family.nand_read_us.value * 1e-6)


def die_write_page_s(family: DriveFamilySpec) -> float:
    """Die seconds one 4 KiB NAND page of a random write costs: the family's fitted value where it
    has one, else one page's share of a die's program (``die_program_bytes_per_s``)."""
    if family.random_write_die_page_us is not None:
        return family.random_write_die_page_us.value * 1e-6
    return PAGE_BYTES / die_program_bytes_per_s(family)


def _channels_bytes_per_s(family: DriveFamilySpec) -> float:
    return family.channels.value * family.channel_bytes_per_s.value


def _min_named(*terms: tuple[str, float]) -> tuple[str, float]:
    return min(terms, key=lambda term: term[1])


def sequential_figures(family: DriveFamilySpec, dies: int) -> tuple[tuple[str, float], tuple[str, float]]:
    """(limit, bytes/s) of a sequential read and of a sequential write stream (WAF 1)."""
    page = family.page_bytes.value
    read = _min_named(("dies", dies * family.planes_per_die.value * page / (family.nand_read_us.value * 1e-6)),
                      ("channels", _channels_bytes_per_s(family)),
                      ("controller", family.controller_read_bytes_per_s.value))
    write = _min_named(("dies", dies * die_program_bytes_per_s(family)), ("channels", _channels_bytes_per_s(family)),
                       ("controller", family.controller_write_bytes_per_s.value))
    return read, write


def random_write_host_s(family: DriveFamilySpec, dies: int, spare_factor: float, block_bytes: int = PAGE_BYTES,
                        controller_write_page_us: float | None = None, die_page_us: float | None = None,
                        iu_bytes: int | None = None) -> float:
    """Seconds of the drive per random host write in steady state, without the command ceiling.

    ``rmw * WAF`` NAND pages per host write, each costing the controller ``controller_write_page_us``
    and the die pool ``die_write_page_s`` over ``dies``; plus the partial-IU
    read of a write smaller than the IU (one 4 KiB die read over the pool, or the controller's read
    rate, whichever is slower). ``iu_bytes``: the SKU's mapping unit where its file gives one, else
    the family's.
    """
    iu = iu_bytes or family.indirection_unit_bytes.value
    pages = iu_rmw_factor(block_bytes, iu) * waf_greedy_desnoyers2012(spare_factor) * block_bytes / PAGE_BYTES
    t_ctrl = (family.controller_write_page_us.value if controller_write_page_us is None else controller_write_page_us) * 1e-6
    t_die = (die_write_page_s(family) if die_page_us is None else die_page_us * 1e-6) / dies
    read_s = 1.0 / min(dies * die_read_iops(family), family.controller_read_iops.value)
    return pages * (t_ctrl + t_die) + partial_iu_reads(block_bytes, iu) * read_s * iu / PAGE_BYTES


def predict_sku(family: DriveFamilySpec, capacity_bytes: float, raw_nand_bytes: float, controllers: int = 1,
                iu_bytes: int | None = None) -> SkuFigures:
    """The datasheet figures of a SKU of ``family`` with this capacity and raw NAND (module
    docstring); ``controllers`` > 1: an add-in card of that many controllers, each with an equal share
    of the capacity and NAND, whose figures add up; ``iu_bytes``: the SKU's own mapping unit, where
    its file gives one (a large SKU that maps larger units to keep its table within the controller's
    DRAM writes 4 KiB randomly slower: read-modify-write of whole IUs), else the family's."""
    if controllers > 1:
        one = predict_sku(family, capacity_bytes / controllers, raw_nand_bytes / controllers, iu_bytes=iu_bytes)
        return SkuFigures(dies=one.dies * controllers, spare_factor=one.spare_factor, waf=one.waf,
                          seq_read_bytes_per_s=one.seq_read_bytes_per_s * controllers,
                          seq_write_bytes_per_s=one.seq_write_bytes_per_s * controllers,
                          rand_read_iops=one.rand_read_iops * controllers,
                          rand_write_iops=one.rand_write_iops * controllers, limits=one.limits)
    dies = family_dies(family, raw_nand_bytes)
    spare = spare_factor_from_capacity(raw_nand_bytes, capacity_bytes)
    (read_limit, seq_read), (write_limit, seq_write) = sequential_figures(family, dies)
    rand_read = _min_named(("dies", dies * die_read_iops(family)), ("controller", family.controller_read_iops.value))
    block = family.rand_block_bytes.value
    terms = [("nand+controller write path", 1.0 / random_write_host_s(family, dies, spare, block, iu_bytes=iu_bytes))]
    if family.controller_write_iops is not None:
        terms.append(("controller write commands", family.controller_write_iops.value))
    rand_write = _min_named(*terms)
    return SkuFigures(dies=dies, spare_factor=spare, waf=waf_greedy_desnoyers2012(spare),
                      seq_read_bytes_per_s=seq_read, seq_write_bytes_per_s=seq_write,
                      rand_read_iops=rand_read[1], rand_write_iops=rand_write[1],
                      limits=(("seq_read", read_limit), ("seq_write", write_limit), ("rand_read", rand_read[0]),
                              ("rand_write", rand_write[0])))


def fit_controller_write_page_us(family: DriveFamilySpec, capacity_bytes: float, raw_nand_bytes: float,
                                 rand_write_iops: float) -> float:
    """Invert the random-write time for the controller's time per NAND page (microseconds), given
    one SKU's datasheet random write (the family's reference): the write path time left after
    the die term and the partial-IU reads, per NAND page programmed."""
    dies = family_dies(family, raw_nand_bytes)
    spare = spare_factor_from_capacity(raw_nand_bytes, capacity_bytes)
    without_ctrl = random_write_host_s(family, dies, spare, family.rand_block_bytes.value, controller_write_page_us=0.0)
    block = family.rand_block_bytes.value
    pages = iu_rmw_factor(block, family.indirection_unit_bytes.value) * waf_greedy_desnoyers2012(spare) * block / PAGE_BYTES
    t_ctrl = (1.0 / rand_write_iops - without_ctrl) / pages
    if t_ctrl <= 0:
        raise ValueError(f"{family.name}: the die term alone is slower than {rand_write_iops:.0f} IOPS; "
                         "the family's die timings cannot give the reference's random write")
    return t_ctrl * 1e6


def fit_write_page_us(family: DriveFamilySpec, skus: tuple[tuple[float, float, float], ...]) -> tuple[float, float]:
    """(controller_write_page_us, random_write_die_page_us) from two SKUs' datasheet random writes,
    each ``(capacity_bytes, raw_nand_bytes, rand_write_iops)``, of different die counts: each SKU's
    time per NAND page left after its partial-IU reads is ``t_ctrl + t_die / dies``, two linear
    equations in the two unknowns. The SKU with fewer dies (the die-bound one) sets the die time,
    the other the controller's; both must come out non-negative."""
    if len(skus) != 2:
        raise ValueError(f"{family.name}: the write path is fitted on two SKUs, got {len(skus)}")
    block, iu = family.rand_block_bytes.value, family.indirection_unit_bytes.value
    rows = []
    for capacity, raw, iops in skus:
        dies = family_dies(family, raw)
        spare = spare_factor_from_capacity(raw, capacity)
        pages = iu_rmw_factor(block, iu) * waf_greedy_desnoyers2012(spare) * block / PAGE_BYTES
        reads_s = random_write_host_s(family, dies, spare, block, controller_write_page_us=0.0, die_page_us=0.0)
        rows.append((1.0 / dies, (1.0 / iops - reads_s) / pages))
    (x1, y1), (x2, y2) = rows
    if x1 == x2:
        raise ValueError(f"{family.name}: the two SKUs have the same die count; the die time needs two")
    t_die = (y1 - y2) / (x1 - x2)
    t_ctrl = y1 - t_die * x1
    if t_die < 0 or t_ctrl < 0:
        raise ValueError(f"{family.name}: the two SKUs' random writes give a negative time per page "
                         f"(controller {t_ctrl * 1e6:.3f} us, die {t_die * 1e6:.3f} us)")
    return t_ctrl * 1e6, t_die * 1e6


def _predicted(value: float, family: DriveFamilySpec, figures: SkuFigures, field: str) -> dict[str, Any]:
    limit = dict(figures.limits)[field.replace("_bytes_per_s", "").replace("_iops", "")]
    note = (f"predicted by the {family.name} family model (nvsim.ssd.family): {figures.dies} dies, spare factor "
            f"{figures.spare_factor:.3f}, greedy WAF {figures.waf:.2f}; limited by {limit}")
    return {"value": value, "source": FAMILY_MODEL_SOURCE, "basis": "predicted", "note": note}


def complete_sku(raw: dict[str, Any], family: DriveFamilySpec) -> dict[str, Any]:
    """A SKU file's mapping with what it leaves out filled in from ``family``: its shared values as
    they are, its performance figures predicted from the SKU's capacity and raw NAND. Fields the
    file gives are kept (datasheet mode): the reference SKU keeps its own datasheet figures."""
    out = dict(raw)
    controllers = _controllers(out.pop("controllers", 1))
    out.setdefault("nand", family.nand)
    for name in SHARED_FIELDS:
        if name not in out:
            out[name] = getattr(family, name).model_dump()
    capacity, raw_nand = _cited_bytes(raw, "capacity_bytes"), _cited_bytes(raw, "raw_nand_bytes")
    if capacity is None or raw_nand is None or not 0 < capacity < raw_nand:
        return out  # DriveSpec's own validation names what is missing or wrong
    iu = _cited_bytes(raw, "indirection_unit_bytes")
    figures = predict_sku(family, capacity, raw_nand, controllers, int(iu) if iu else None)
    for field, value in figures.as_fields().items():
        if field not in out:
            out[field] = _predicted(value, family, figures, field)
    return out


def _controllers(value: Any) -> int:
    """A SKU file's ``controllers``: a whole number from 1 to ``MAX_CONTROLLERS``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CONTROLLERS:
        raise SkuFieldError("controllers", f"a whole number of the family's controllers on the card, 1 to "
                                           f"{MAX_CONTROLLERS}, got {value!r}")
    return value


def _cited_bytes(raw: dict[str, Any], name: str) -> float | None:
    item = raw.get(name)
    if not isinstance(item, dict) or "value" not in item:
        return None
    try:
        return float(parse_bytes(item["value"]))
    except (TypeError, ValueError):
        return None


__all__ = ["DriveFamilySpec", "SkuFigures", "SkuFieldError", "FAMILY_MODEL_SOURCE", "SHARED_FIELDS", "MAX_CONTROLLERS", "family_dies",
           "die_program_bytes_per_s", "die_read_iops", "sequential_figures", "random_write_host_s", "predict_sku",
           "fit_controller_write_page_us", "fit_write_page_us", "die_write_page_s", "complete_sku"]
