import pytest
from hypothesis import given, strategies as st

from nvsim.units import format_bytes_binary, format_bytes_decimal, parse_bytes, parse_bytes_per_s, parse_count, parse_seconds


@pytest.mark.parametrize("text, expected", [
    ("4KiB", 4096), ("4 KiB", 4096), ("4KB", 4000), ("4 kB", 4000), ("4k", 4096), ("1m", 2**20),
    ("50G", 50 * 2**30), ("7.68 TB", 7_680_000_000_000), ("8 TiB", 8 * 2**40), ("512", 512), (4096, 4096),
    ("9600G", 9600 * 2**30), ("1,024", 1024),
])
def test_parse_bytes_keeps_decimal_and_binary_apart(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("bad", ["4 furlongs", "KiB", "", "1.5B", 1.5, True, "4 Kib"])
def test_parse_bytes_rejects_nonsense(bad):
    with pytest.raises(ValueError):
        parse_bytes(bad)


def test_rates_counts_and_times():
    assert parse_bytes_per_s("14.5 GB/s") == pytest.approx(14.5e9)
    assert parse_bytes_per_s("260 GiB/s") == pytest.approx(260 * 2**30)
    assert parse_bytes_per_s("600000 KB/s") == pytest.approx(6e8)
    assert parse_count("2,700K") == pytest.approx(2.7e6)
    assert parse_count("28M") == pytest.approx(2.8e7)
    assert parse_count("310K IOPS") == pytest.approx(3.1e5)
    assert parse_seconds("300") == 300 and parse_seconds("5m") == 300 and parse_seconds("250us") == pytest.approx(2.5e-4)
    with pytest.raises(ValueError):
        parse_bytes_per_s("14.5 GB")


@given(st.integers(min_value=1, max_value=2**50))
def test_whole_bytes_round_trip_through_both_prefix_systems(n):
    assert parse_bytes(f"{n}B") == n
    assert parse_bytes(f"{n}KiB") == n * 2**10
    assert parse_bytes(f"{n}kB") == n * 10**3


def test_formatting_uses_the_prefix_it_names():
    assert format_bytes_decimal(675.84e12) == "675.84 TB"
    assert format_bytes_binary(2**40) == "1.00 TiB"


@given(st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([5e-324, 9.999999e-10, -2.2e-308]))
def test_a_number_a_message_quotes_is_never_in_e_notation_and_reads_back_near_itself(value):
    from nvsim.units import format_number

    text = format_number(value)
    assert "e" not in text.lower() and len(text) < 40
    if text.replace(",", "").replace(".", "").lstrip("-").isdigit():
        assert float(text.replace(",", "")) == pytest.approx(value, rel=1e-5, abs=1e-9)


def test_format_number_writes_limits_as_people_read_them():
    from nvsim.units import format_number

    assert [format_number(x) for x in (1e-6, 1e6, 2.5, 1e8, 1e300, 1e-300, 0, 5e-324, 9.999999e-10)] == \
        ["0.000001", "1,000,000", "2.5", "100,000,000", "1.0×10³⁰⁰", "1.0×10⁻³⁰⁰", "0", "4.9×10⁻³²⁴", "0.000000001"]
    assert [format_number(x) for x in (float("nan"), float("inf"))] == ["NaN", "infinity"]


def test_a_value_that_rounds_to_a_thousand_of_its_prefix_takes_the_next_one():
    """As the plan's cells do (``nvsim.plan.output.si_text``): 999.999 GB was "1000.00 GB", one byte
    short of a TiB "1024.00 GiB", 999,999 IOPS "1,000.00K"; a value that does not round up keeps its
    prefix and its digits."""
    from nvsim.units import format_count, format_rate_decimal

    assert format_bytes_decimal(999.999e9) == "1.00 TB" and format_bytes_decimal(999.99e9) == "999.99 GB"
    assert format_bytes_decimal(999.6) == "1.00 kB" and format_bytes_decimal(999) == "999 B"
    assert format_bytes_binary(2**40 - 1) == "1.00 TiB" and format_bytes_binary(1000 * 2**30) == "1000.00 GiB"
    assert format_rate_decimal(999.999e6) == "1.00 GB/s"
    assert format_count(999_999) == "1.00M" and format_count(999.6) == "1.00K" and format_count(999_994) == "999.99K"
    assert format_bytes_decimal(2e18) == "2000.00 PB"  # no prefix past the largest
