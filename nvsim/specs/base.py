"""Shared ground of the typed specifications: the frozen ``Spec`` base, ``Cited`` catalog numbers, units.

Every model is frozen and forbids unknown keys. Sizes and rates may be written with units
("4KiB", "7.68 TB", "14.5 GB/s"); field names carry the canonical unit (``_bytes``,
``_bytes_per_s``, ``_iops``). Catalog numbers are ``Cited``: a value with the key of its source in
models/bibliography.yaml and its basis. Here also the checks the other spec modules share: finite
and bounded sizes, PCIe generations and link widths, a price with its date and kind, and a name the
catalog must know.
"""

from __future__ import annotations

import math
import types
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar, Union, get_args, get_origin

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, ValidationInfo,
                      field_validator, model_validator)

from ..errors import not_printable, suggestion_then
from ..units import format_number, parse_bytes, parse_bytes_per_s, parse_count, parse_fio_time_s, parse_seconds, seconds_text

def _positive(value: float) -> float:
    if value <= 0:
        raise ValueError(f"must be > 0, got {value!r}")
    return value


class _finite:  # noqa: N801 - used as a function
    """``parse`` that refuses NaN and infinity: no physical size, rate, count or time is either.
    A class, not a closure, so that the types it annotates pickle (the catalog's disk cache)."""

    def __init__(self, parse: Any) -> None:
        self.parse = parse
        self.__doc__ = parse.__doc__

    def __call__(self, value: Any) -> Any:
        number = self.parse(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"must be a finite number, got {value!r}")
        return number

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _finite) and other.parse is self.parse

    def __hash__(self) -> int:
        return hash(self.parse)


MAX_BYTES = 2**64
"""Largest size any field takes (16,384 PiB): no device or address space nvsim models is larger."""


def _bounded_bytes(value: Any) -> int:
    """``parse_bytes``, refusing sizes beyond ``MAX_BYTES`` (they would overflow every float after)."""
    number = parse_bytes(value)
    if abs(number) > MAX_BYTES:
        raise ValueError(f"must be at most 2^64 bytes (16,384 PiB), got {value!r}")
    return number


Bytes = Annotated[int, BeforeValidator(_bounded_bytes)]
BytesPerS = Annotated[float, BeforeValidator(_finite(parse_bytes_per_s))]
Count = Annotated[float, BeforeValidator(_finite(parse_count))]
Seconds = Annotated[float, BeforeValidator(_finite(parse_seconds))]
FioTime = Annotated[float, BeforeValidator(_finite(parse_fio_time_s)), PlainSerializer(seconds_text, return_type=str)]
"""A fio time option that counts microseconds without a unit (thinktime, latency_target,
latency_window), held in seconds and written back as seconds with their unit ("5e-05s"), so a
dumped workload reads back to the same bits."""
FORMULA_STARTS = ("=", "+", "-", "@")
"""First characters a spreadsheet reads a CSV cell as a formula by (OWASP's CSV injection list, less
the tab and carriage return a name cannot hold anyway)."""


def _name_text(value: str) -> str:
    _printable_text(value)
    if value.startswith(FORMULA_STARTS):
        raise ValueError(f"must not begin with {value[0]!r}: a spreadsheet opening nvsim's CSV would read the name as "
                         f"a formula; allowed first: anything but {', '.join(FORMULA_STARTS)}")
    return value


def _printable_text(value: str) -> str:
    if (why := not_printable(value)) is not None:
        raise ValueError(why)
    return value


def _prose_text(value: str) -> str:
    if (why := not_printable(value.translate(_PROSE_BREAKS))) is not None:
        raise ValueError(why)
    return value


_PROSE_BREAKS = str.maketrans("\n\t", "  ")
Text = Annotated[str, AfterValidator(_printable_text)]
"""Free text the catalog carries into tables, reports and terminals (a note, a source's title and
publisher, a description): no control or formatting character (``nvsim.errors.NOT_PRINTABLE``),
so none can move a terminal's cursor, set its title or turn the text around."""
Prose = Annotated[str, AfterValidator(_prose_text)]
"""A scenario's own prose (its description and source): ``Text`` that may break lines and hold
tabs, as a YAML block scalar does."""
Label = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_name_text)]
"""A name a user gives (a scenario, a workload, a phase, a volume): 1 to 200 printable characters,
not starting as a spreadsheet formula does (the names go into sweeps' and the dashboard's CSV)."""
PCIE_GENERATIONS = (1, 2, 3, 4, 5, 6)
"""PCIe generations the PCI-SIG has published a base specification for, to 6.0 (2022)."""
PCIE_TRANSFER_RATES_GT_PER_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
"""Each generation's transfer rate per lane, as its base specification defines it."""
SECTOR_BYTES = 512
"""The smallest logical block an NVMe namespace has: sizes on a drive are whole sectors."""

Basis = Literal["datasheet", "published", "fitted", "assumed", "predicted"]
"""predicted: computed by a model of nvsim's from other cited numbers (its note names the model), e.g. a
drive family's sibling SKU figures (nvsim.ssd.family)."""
T = TypeVar("T")


def _numeric_annotation(annotation: Any) -> bool:
    """A field that holds a number: int or float, with units (``Annotated``) or optional."""
    if get_origin(annotation) is Annotated:
        return _numeric_annotation(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return bool(members) and all(_numeric_annotation(a) for a in members)
    return annotation in (int, float)


def _numeric_items(annotation: Any) -> bool:
    """A field that holds a list or tuple of numbers (``tuple[int, ...]``, optional or not)."""
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        return len(members) == 1 and _numeric_items(members[0])
    if get_origin(annotation) in (list, tuple):
        items = [a for a in get_args(annotation) if a is not Ellipsis]
        return bool(items) and all(_numeric_annotation(a) for a in items)
    return False


def _truth_value(value: Any) -> bool:
    return value is True or value is False


class NumbersNotTruthValues(BaseModel):
    """YAML's true/false is not a count or a size: pydantic's lax mode would read ``drives: true``
    as 1 drive (and ``drive_counts: [true]`` as [1]); a truth value in a numeric field, or among a
    list of numbers, is refused, naming the field. Fields that are switches take true/false."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_truth_values_as_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        annotation = cls.model_fields[info.field_name].annotation
        if _truth_value(value) and _numeric_annotation(annotation):
            raise ValueError(f"must be a number, got {'true' if value else 'false'}")
        if isinstance(value, (list, tuple)) and any(map(_truth_value, value)) and _numeric_items(annotation):
            raise ValueError(f"must be numbers, got {'true' if True in value else 'false'} among them")
        return value


class Spec(NumbersNotTruthValues):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class Cited(Spec, Generic[T]):
    """A catalog number with where it comes from.

    basis: datasheet (vendor or standard's specification), published (measured in a cited
    document), fitted (set by ``nvsim calibrate``), assumed (engineering judgement, said why in note),
    predicted (computed by an nvsim model from other cited numbers, the note names it).
    """

    value: T
    source: Text = Field(min_length=1)
    basis: Basis
    note: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _written_with_its_source(cls, data: Any) -> Any:
        """A bare value where a cited one belongs: say how it is written (pydantic's words were "Input
        should be a valid dictionary or instance of Cited[int]")."""
        if isinstance(data, (dict, BaseModel)):
            return data
        raise ValueError(f"a catalog number is written with its source: {{value: {data!r}, source: <a key of "
                         f"bibliography.yaml>, basis: datasheet, published, fitted, assumed or predicted, note: ...}}")

    def __reduce__(self):
        """Pickled through its type argument (``Cited[int]`` has no importable name; the catalog's
        disk cache, ``nvsim.catalog``, pickles entries)."""
        return _new_cited, (type(self).__pydantic_generic_metadata__["args"],), self.__getstate__()


def _new_cited(args: tuple) -> Cited:
    """An empty ``Cited[args]`` for pickle to fill (``Cited.__reduce__``)."""
    cls = Cited[args] if args else Cited
    return cls.__new__(cls)


def _cited_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


ZERO_ALLOWED_PREFIXES = ("price_", "power_")
"""Cited numbers that may be 0: a free licence's price, a device whose power is counted elsewhere."""


BYTES_PER_S_RANGE = (1e6, 1e13, "a data rate in bytes/s, from 1 MB/s to 10 TB/s (above any memory system's: an HBM3e "
                                  "GPU's is 8 TB/s)")
"""A rate a device, link or socket moves data at: a figure of 1e-300 GB/s was simulated (an answer of
1e-292 I/Os a second), one of GB/s written as bytes/s is below the floor."""
IOPS_RANGE = (1e3, 1e9, "an I/O rate ceiling, from a thousand to a billion I/Os a second")
"""A RAID engine device's datasheet I/O ceiling (the largest shipped: 28M)."""
COST_US_RANGE = (0.0, 1e6, "a CPU cost per I/O in µs, up to a second")
"""A host or engine cost per operation: 0 is free, a second per operation no I/O path takes (1e300 µs
gave md 2.3e-292 I/Os a second)."""
CLOCK_GHZ_RANGE = (0.1, 10.0, "a clock in GHz (a figure in MHz is a thousand times this)")
"""A reference or CPU clock."""
FACTOR_RANGE = (0.01, 100.0, "a factor on a cost or rate, from a hundredth to a hundredfold")
"""A driver's or a generation's change of a cost: a vendor's 'N x' of one generation over another."""


def _within(entry: Any, ranges: dict[str, tuple[float, float, str]], prefix: str = "") -> None:
    """Each named cited figure of ``entry`` (when stated) within its range, one ValueError naming it."""
    for name, (low, high, what) in ranges.items():
        cited = getattr(entry, name)
        if cited is not None and not low <= cited.value <= high:
            raise ValueError(f"{prefix}{name}: {format_number(cited.value)}; {what}: allowed {format_number(low)} to "
                             f"{format_number(high)}")


class PhysicalNumbers(Spec):
    """A catalog entry whose cited numbers are physical: finite, and > 0 unless named in
    ``NON_NEGATIVE`` or a price or power (may be 0); ``AT_MOST_ONE`` names probabilities (in [0, 1]). A zero where the
    model divides (lanes, MTBF, IOPS, cores, a memory rate) is refused at load, in one line."""

    NON_NEGATIVE: ClassVar[tuple[str, ...]] = ()
    AT_MOST_ONE: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _physical(self) -> "PhysicalNumbers":
        for name in type(self).model_fields:
            cited = getattr(self, name)
            if not isinstance(cited, Cited) or not _cited_number(cited.value):
                continue
            value = cited.value
            if not math.isfinite(value):
                raise ValueError(f"{name}: must be a finite number, got {value!r}")
            may_be_zero = name in self.NON_NEGATIVE or name.startswith(ZERO_ALLOWED_PREFIXES)
            if may_be_zero and value < 0:
                raise ValueError(f"{name}: must be >= 0, got {value!r}")
            if not may_be_zero and value <= 0:
                raise ValueError(f"{name}: must be > 0, got {value!r}")
            if name in self.AT_MOST_ONE and value > 1:
                raise ValueError(f"{name}: a probability, allowed 0 to 1, got {value!r}")
        return self


def _pcie_generation(label: str, generation: Any) -> None:
    if generation not in PCIE_GENERATIONS:
        raise ValueError(f"{label}: PCIe generation {generation!r} does not exist; allowed: "
                         f"{', '.join(map(str, PCIE_GENERATIONS))}")


PCIE_LINK_WIDTHS = (1, 2, 4, 8, 16, 32)
"""Link widths the PCIe base specification defines (x1 to x32); ``nvsim.pcie.PcieLink`` builds no other."""


def _link_width(label: str, lanes: Any) -> None:
    """A bay's, slot's, drive's or card's link width is one PCIe defines: a x3 bay is no link."""
    if lanes not in PCIE_LINK_WIDTHS:
        raise ValueError(f"{label}: a PCIe link is x1, x2, x4, x8, x16 or x32 wide, got {lanes!r} lanes; allowed: "
                         f"{', '.join(map(str, PCIE_LINK_WIDTHS))}")

PCIE_PAYLOAD_SIZES = (128, 256, 512, 1024, 2048, 4096)
"""Max payload (and max read request) sizes the PCIe base specification defines; ``nvsim.pcie.PcieLink``
builds a link with no other."""


def _payload_size(label: str, size: Any) -> None:
    """A platform's max payload is one PCIe defines: 100 bytes is no MPS (it stopped a run with a traceback)."""
    if size not in PCIE_PAYLOAD_SIZES:
        raise ValueError(f"{label}: a PCIe max payload size is a power of two from 128 to 4096 bytes, got {size!r}; "
                         f"allowed: {', '.join(map(str, PCIE_PAYLOAD_SIZES))}")

PriceKind = Literal["list", "street", "estimate"]
"""A price's kind: the vendor's list price, a retailer's street price, or an estimate (basis assumed)."""
PRICE_DATE = r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$"


PRICE_USD_MAX = 1e8
"""The dearest part the catalog takes, US dollars: a server, a card or a drive is far below it (a
price of 1e300 was taken and printed as 300 digits, cutting the table's cells)."""


def _price_together(entry: Any) -> Any:
    """A price comes with its date and kind, or not at all (docs/cost-power.md), and is at most
    ``PRICE_USD_MAX``."""
    given = (entry.price_usd is not None, entry.price_date is not None, entry.price_kind is not None)
    if any(given) and not all(given):
        raise ValueError("price_usd, price_date (YYYY-MM or YYYY-MM-DD) and price_kind (list, street or estimate) go together")
    if entry.price_usd is not None and entry.price_usd.value > PRICE_USD_MAX:
        raise ValueError(f"price_usd: ${entry.price_usd.value:,.0f} is more than any part costs; allowed: 0 to "
                         f"${PRICE_USD_MAX:,.0f}")
    return entry

def _catalog(info: ValidationInfo) -> Any:
    return (info.context or {}).get("catalog")

def _known_name(value: str, info: ValidationInfo, section: str, label: str) -> str:
    """Refuse a name the catalog does not have, suggesting close ones (no catalog: no check)."""
    catalog = _catalog(info)
    if catalog is not None and value not in getattr(catalog, section):
        known = getattr(catalog, section)
        raise ValueError(f"unknown {label} {value!r}{suggestion_then(value, known)}allowed: {', '.join(sorted(known))} "
                         f"(or one of your own in a catalog folder: docs/catalog.md, 'Your own catalog')")
    return value
