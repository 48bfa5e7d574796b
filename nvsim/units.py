"""Sizes, rates and counts written with units: "4KiB", "7.68 TB", "14.5 GB/s", "2,700K".

Decimal (kB, MB, GB, TB, PB; k/M/G for counts) and binary (KiB, MiB, GiB, TiB, PiB) prefixes
are kept apart. A bare fio-style suffix without "B" ("4k", "1m", "50G") follows fio's default
``kb_base=1024`` and is binary, so fio job values mean what they mean to fio.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from fractions import Fraction

DECIMAL_BYTE_UNITS = {"B": 1, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}
BINARY_BYTE_UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
FIO_BARE_UNITS = {"k": 2**10, "K": 2**10, "m": 2**20, "M": 2**20, "g": 2**30, "G": 2**30, "t": 2**40, "T": 2**40, "p": 2**50, "P": 2**50}
COUNT_UNITS = {"": 1, "K": 10**3, "k": 10**3, "M": 10**6, "G": 10**9}
TIME_UNITS_S = {"": 1.0, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}

SUB_SECOND_PER_S = {"ns": 1e9, "us": 1e6, "µs": 1e6, "ms": 1e3}

_NUMBER_UNIT = re.compile(r"^\s*([-+]?[0-9][0-9,_]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ/]*)\s*$")

ALLOWED_BYTE_UNITS = "B, kB/KB, MB, GB, TB, PB (decimal), KiB, MiB, GiB, TiB, PiB (binary), or fio-style k/m/g/t (binary)"


MAX_NUMBER_DIGITS = 100
"""Digits a number nvsim reads may have (no size, rate, count or time is near that long; Python
refuses to convert more than 4,300, in words that name its own setting)."""


def check_digits(text: str, one_number: bool = False) -> None:
    """ValueError for a number of more than ``MAX_NUMBER_DIGITS`` digits in ``text``: its longest
    run of digits, or (``one_number``: a number with separators, ``1_000``) all its digits."""
    count = sum(ch.isdigit() for ch in text) if one_number else \
        max((len(run) for run in _DIGIT_RUN.findall(text)), default=0)
    if count > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {count:,} digits; numbers are read up to {MAX_NUMBER_DIGITS} digits")


_DIGIT_RUN = re.compile(r"\d+")


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is a whole number as fio's strtoll and sscanf read it: ASCII digits only (``str.isdigit``
    also takes other scripts' digits, which int() reads, and superscripts, which it refuses)."""
    return text.isascii() and text.isdigit()


def _split_exact(text: str) -> tuple[Fraction, str]:
    """The number (exact, thousands separators dropped) and the unit text."""
    check_digits(text, one_number=True)
    match = _NUMBER_UNIT.match(text)
    if not match:
        raise ValueError(f"cannot read {text!r} as a number with a unit; allowed: a number and its unit, e.g. "
                         f"'64KiB', '4 KB', '300s'")
    return Fraction(match.group(1).replace(",", "").replace("_", "")), match.group(2)


def _split(text: str) -> tuple[float, str]:
    number, unit = _split_exact(text)
    try:
        return float(number), unit
    except OverflowError:  # e.g. "1E400": beyond any float
        raise ValueError(f"{text.strip()!r} is too large a number (at most ~1.8e308)") from None


def parse_bytes(value: int | float | str) -> int:
    """Bytes from 4096, "4KiB", "4 KB" (4000), "7.68 TB", or fio's "4k" (4096)."""
    if isinstance(value, bool):
        raise ValueError("a size must be a number of bytes or a string with a unit")
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value != int(value):
            raise ValueError(f"a size in bytes must be a whole number, got {value!r}")
        return int(value)
    number, unit = _split_exact(str(value))  # exact: large sizes must not pass through a float
    for table in (DECIMAL_BYTE_UNITS, BINARY_BYTE_UNITS, FIO_BARE_UNITS, {"": 1}):
        if unit in table:
            result = number * table[unit]
            if result.denominator != 1:
                raise ValueError(f"{value!r} is not a whole number of bytes")
            return int(result)
    raise ValueError(f"unknown size unit {unit!r} in {value!r}; allowed: {ALLOWED_BYTE_UNITS}")


def parse_size_bound(text: str) -> float:
    """A size to compare against, with a decimal or binary byte unit ("20.95 TiB", "20 TB"): unlike
    ``parse_bytes`` it need not be whole bytes (a sweep's constraint is a bound, not an extent)."""
    number, unit = _split_exact(str(text).strip())
    for table in (DECIMAL_BYTE_UNITS, BINARY_BYTE_UNITS):
        if unit in table:
            return float(number * table[unit])
    return float(parse_bytes(text))  # anything else: parse_bytes's own word for it


def parse_bytes_per_s(value: int | float | str) -> float:
    """Bytes per second from "14.5 GB/s", "3 GiB/s", "600000 KB/s" or a plain number."""
    if isinstance(value, bool):
        raise ValueError("a rate must be a number of bytes per second or a string such as '14.5 GB/s'")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if not text.endswith("/s"):
        raise ValueError(f"a rate needs '/s' (e.g. '14.5 GB/s'), got {value!r}")
    number, unit = _split(text[:-2])
    for table in (DECIMAL_BYTE_UNITS, BINARY_BYTE_UNITS):
        if unit in table:
            return number * table[unit]
    raise ValueError(f"unknown rate unit {unit!r}/s in {value!r}; allowed: {ALLOWED_BYTE_UNITS} per second")


def parse_count(value: int | float | str) -> float:
    """Plain counts with decimal suffixes: "2,700K" -> 2.7e6, "28M" -> 2.8e7, "310K IOPS"."""
    if isinstance(value, bool):
        raise ValueError("a count must be a number")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    for word in ("IOPS", "iops"):
        if text.endswith(word):
            text = text[: -len(word)].strip()
    number, unit = _split(text)
    if unit not in COUNT_UNITS:
        raise ValueError(f"unknown count suffix {unit!r} in {value!r}; allowed: K, M, G (decimal)")
    return number * COUNT_UNITS[unit]


def parse_plain(raw: str) -> float:
    """A plain number ('2e6', '0.5', '400'), or one with a decimal multiplier K, M, G ('10M'); a
    count written with IOPS is refused (a count's unit, not a plain number's)."""
    try:
        return float(raw)
    except ValueError:
        if "iops" in raw.lower():  # parse_count's own word: a count's unit only
            raise
        return parse_count(raw)


def parse_with_unit(unit: str, scale: float = 1.0) -> Callable[[str], float]:
    """A reader of a plain number (``parse_plain``), or one followed by ``unit`` (its value times
    ``scale``): watts as 400, 400 W or 1.5 kW (a sweep's constraints, a plan's power limit)."""
    def parse(raw: str) -> float:
        text = raw.strip()
        if unit and text.endswith(unit) and text[:-len(unit)].strip():
            return parse_plain(text[:-len(unit)].strip()) * scale
        return parse_plain(text)
    return parse


def parse_time_in(unit_s: float) -> Callable[[str], float]:
    """A reader of a plain number in a time unit of ``unit_s`` seconds (``parse_plain``), or a time
    with its unit (0.2 ms, 90 min, 2 h: ``parse_seconds``): a sweep's time columns, a plan's hours
    (0.2 ms against a microsecond column had been refused as 'takes microseconds')."""
    def parse(raw: str) -> float:
        try:
            return parse_plain(raw.strip())
        except ValueError:
            return parse_seconds(raw.strip()) / unit_s
    return parse


def parse_seconds(value: int | float | str) -> float:
    """Seconds from 300, "300s", "5m" (fio: minutes), "250us", "2h"."""
    if isinstance(value, bool):
        raise ValueError("a duration must be a number of seconds or a string such as '300s'")
    if isinstance(value, (int, float)):
        return float(value)
    number, unit = _split(str(value))
    if unit not in TIME_UNITS_S:
        raise ValueError(f"unknown time unit {unit!r} in {value!r}; allowed: {', '.join(u for u in TIME_UNITS_S if u)} "
                         f"(none: seconds)")
    return number * TIME_UNITS_S[unit]


def parse_fio_time_s(value: int | float | str) -> float:
    """Seconds from a fio time option that counts microseconds without a unit (fio's thinktime,
    latency_target, latency_window: "When the unit is omitted, the value is interpreted in
    microseconds"): 50 and "50" are 50 us, "2ms" and "0.5s" their unit's."""
    if isinstance(value, bool):
        raise ValueError("a time must be a number of microseconds or a string such as '50us' or '2ms'")
    if isinstance(value, (int, float)):
        return float(value) / 1e6
    number, unit = _split(str(value))
    if unit not in TIME_UNITS_S:
        raise ValueError(f"unknown time unit {unit!r} in {value!r}; allowed: {', '.join(u for u in TIME_UNITS_S if u)} "
                         f"(none: microseconds, as fio)")
    per_second = SUB_SECOND_PER_S.get(unit or "us")  # divided: 50 us is 5e-05 s to the bit, as fio's reader has it
    return number / per_second if per_second else number * TIME_UNITS_S[unit]


def seconds_text(value: float) -> str:
    """A duration in seconds as text that every time parser reads back to the same float: "5e-05s"."""
    return f"{float(value)!r}s"


def not_finite_word(value: float | int) -> str | None:
    """The word a formatter writes for a value that is no finite number, or None for a number:
    NaN "-", infinity "never" (a rebuild that never ends, a price per nothing), minus infinity "-".
    Compared, not converted, so an integer beyond any float is a number here."""
    if value != value:
        return "-"
    if value == math.inf:
        return "never"
    if value == -math.inf:
        return "-"
    return None


def _past_floats(value: float | int) -> bool:
    """An integer too large for a float (a JSON number of 400 digits): divided, it overflows."""
    return abs(value) > sys.float_info.max


DECIMAL_BYTE_PREFIXES = (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1))
BINARY_BYTE_PREFIXES = (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1))
COUNT_PREFIXES = (("G", 1e9), ("M", 1e6), ("K", 1e3), ("", 1))
"""The prefixes a formatter chooses from, largest first; the last, 1, is the plain number (no decimals)."""


def _with_prefix(value: float, prefixes: tuple, base: int, digits: int, space: str, grouping: str = "") -> str:
    """``value`` in the largest prefix it reaches, with ``digits`` decimals (none without a prefix);
    a value that rounds up to ``base`` of its prefix takes the next one, as the plan's cells do (999.999
    GB was "1000.00 GB", 2^40 - 1 bytes "1024.00 GiB", 999,999 IOPS "1,000.00K")."""
    index = next(i for i, (_, factor) in enumerate(prefixes) if abs(value) >= factor or factor == 1)
    text = _in_prefix(value, prefixes[index][1], digits, grouping)
    if index and abs(float(text.replace(",", ""))) >= base:
        index -= 1
        text = _in_prefix(value, prefixes[index][1], digits, grouping)
    return f"{text}{space}{prefixes[index][0]}"


def _in_prefix(value: float, factor: float, digits: int, grouping: str) -> str:
    return f"{value / factor:{grouping}.{digits}f}" if factor != 1 else f"{value:{grouping}.0f}"


def format_bytes_decimal(n_bytes: float, digits: int = 2) -> str:
    """'675.84 TB' style, powers of 1000."""
    if (word := not_finite_word(n_bytes)) is not None:
        return word
    if _past_floats(n_bytes):
        return f"{format_large(n_bytes)} B"
    return _with_prefix(n_bytes, DECIMAL_BYTE_PREFIXES, 1000, digits, " ")


def format_bytes_binary(n_bytes: float, digits: int = 2) -> str:
    """'614.67 TiB' style, powers of 1024."""
    if (word := not_finite_word(n_bytes)) is not None:
        return word
    if _past_floats(n_bytes):
        return f"{format_large(n_bytes)} B"
    return _with_prefix(n_bytes, BINARY_BYTE_PREFIXES, 1024, digits, " ")


def format_rate_decimal(bytes_per_s: float) -> str:
    text = format_bytes_decimal(bytes_per_s)
    return text if not_finite_word(bytes_per_s) is not None else text + "/s"


def format_count(value: float) -> str:
    """'28.52M', '310.0K'."""
    if (word := not_finite_word(value)) is not None:
        return word
    if _past_floats(value):
        return format_large(value)
    return _with_prefix(value, COUNT_PREFIXES, 1000, 2, "", ",")


def format_value(value: float | None, unit: str) -> str:
    """A value for a table, by its unit: "B/s" and "bytes" decimal, "IOPS" a count, "percent" two
    decimals; anything else at least four significant digits, never in e-notation (1234567.0 was
    "1.235e+06"); None and NaN are "-", infinity "never" (``not_finite_word``)."""
    if value is None:
        return "-"
    if (word := not_finite_word(value)) is not None:
        return word
    if _past_floats(value):
        return format_large(value)
    if unit in ("B/s",):
        return format_rate_decimal(value)
    if unit == "bytes":
        return format_bytes_decimal(value)
    if unit == "IOPS":
        return format_count(value)
    if unit == "percent":
        return f"{value:.2f}%"
    return format_significant(value, 4)


# --- numbers for tables: the unit (and its SI prefix) goes in the header, the cell holds a plain number ---

SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
LARGE_NAMES = ((1e18, "quintillion"), (1e15, "quadrillion"), (1e12, "trillion"), (1e9, "billion"), (1e6, "million"))
COLUMN_SCALES = {  # a column's unit -> (threshold, factor, header unit), largest first
    "IOPS": ((1e6, 1e6, "M IOPS"), (1e3, 1e3, "K IOPS"), (0.0, 1.0, "IOPS")),
    "B/s": ((1e9, 1e9, "GB/s"), (1e6, 1e6, "MB/s"), (0.0, 1e3, "kB/s")),
    "TPS": ((1e6, 1e6, "M TPS"), (0.0, 1.0, "TPS")),
}


def format_significant(value: float, digits: int = 4) -> str:
    """A plain decimal with at least ``digits`` significant digits and thousands separators, never
    e-notation: 28 -> "28.00", 0.24791 -> "0.2479", 45740.2 -> "45,740"; 0 -> "0"."""
    if (word := not_finite_word(value)) is not None:
        return word
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = min(9, max(0, digits - 1 - magnitude))
    return f"{value:,}" if isinstance(value, int) and decimals == 0 else f"{value:,.{decimals}f}"  # an int past floats


def format_number(value: float) -> str:
    """A number a message quotes (a limit, what was given), never in e-notation: as written to six
    significant digits without trailing zeros (1e-06 -> "0.000001", 1e+06 -> "1,000,000", 2.5 ->
    "2.5"), from 10^15 on in words or powers of ten (``format_large``: 1e+300 -> "1.0×10³⁰⁰"), below
    10^-9 as a power of ten (1e-300 -> "1.0×10⁻³⁰⁰")."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "infinity" if value > 0 else "-infinity"
    if value == 0:
        return "0"
    if abs(value) >= 1e15:
        return format_large(value)
    mantissa, exponent = f"{value:.1e}".split("e")  # from the text: 10 ** -324 is 0 as a float
    if int(exponent) < -9:  # 1e-300 as "1.0×10⁻³⁰⁰", not three hundred zeros
        return f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPT)}"
    magnitude = math.floor(math.log10(abs(value)))
    text = f"{value:,.{max(0, 5 - magnitude)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_jobs(numjobs: int, iodepth: int) -> str:
    """A closed loop's jobs and depth as the tables write them: "192 jobs x QD32", "1 job x QD4"."""
    return f"{numjobs:,} job{'s' if numjobs != 1 else ''} x QD{iodepth}"


def column_scale(values, unit: str) -> tuple[float, str]:
    """The factor and header unit for a column of ``values`` in ``unit`` ("IOPS", "B/s", "TPS"),
    chosen by the column's largest value so that every cell shares one prefix."""
    largest = max((abs(v) for v in values if v is not None and v == v), default=0.0)
    for threshold, factor, header in COLUMN_SCALES[unit]:
        if largest >= threshold:
            return factor, header
    raise ValueError(f"no scale for {unit!r}")  # pragma: no cover - every table ends at threshold 0


def _power_of_ten(log10_value: float) -> str:
    """"3.1×10³¹⁹" from a number's base-10 logarithm: odds 1/p of a p so small that 1/p is no float."""
    exponent = math.floor(log10_value)
    mantissa = 10 ** (log10_value - exponent)
    if round(mantissa, 1) >= 10:  # 9.96 rounds up to the next power
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.1f}×10{str(exponent).translate(SUPERSCRIPT)}"


def format_large(value: float) -> str:
    """A large number in words: 313,000 -> "313,000"; 3.13e11 -> "313 billion"; beyond the named
    scales, "3.1×10²¹" (superscript, not e-notation); NaN and infinity a word (``not_finite_word``)."""
    if (word := not_finite_word(value)) is not None:
        return word
    if abs(value) < 1e6:
        return f"{value:,.0f}"
    for factor, name in LARGE_NAMES:
        if abs(value) >= factor and abs(value) < 1000 * factor:
            return f"{format_significant(value / factor, 3)} {name}"
    exponent = math.floor(math.log10(abs(value)))
    return f"{value / 10 ** exponent:.1f}×10{str(exponent).translate(SUPERSCRIPT)}"


def format_probability(p: float) -> str:
    """A probability as people read it: "0", "2.5%", or odds "1 in 50.5 billion" below 0.1%; odds
    past any float (p = 1e-320: 1/p is infinite) from the logarithm, "1 in 1.0×10³²⁰". NaN and
    infinity, which no probability is, are "-"."""
    if not_finite_word(p) is not None:
        return "-"
    if p <= 0:
        return "0"
    if p >= 1e-3:
        percent = 100 * p
        return "-" if percent == math.inf else f"{format_significant(percent, 3)}%"
    odds = 1 / p
    return f"1 in {format_large(odds) if not math.isinf(odds) else _power_of_ten(-math.log10(p))}"


def format_exact(value: float | int) -> str:
    """A catalog number as written, with thousands separators and no e-notation: 2,500,000;
    0.691068; 1e-17 -> "1×10⁻¹⁷"; NaN and infinity a word (``not_finite_word``)."""
    if (word := not_finite_word(value)) is not None:
        return word
    text = f"{value:,}"
    if "e" not in text:
        return text
    mantissa, exponent = f"{value:e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPT)}"
