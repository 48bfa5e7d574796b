"""The datasheet form's price and power fields (issue 40, deliverable 3) and its errors, which name
the form's fields by their labels, never a spec path such as ``rand_read_iops.value`` (deliverable 7)."""

import pytest
import yaml

from dashboard import core, datasheet, views

FORM = {"ds-model": "PM1743 7.68 TB", "ds-vendor": "Samsung", "ds-capacity": "7.68 TB", "ds-dwpd": 1,
        "ds-seq-read": "14 GB/s", "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K",
        "ds-pcie": 5, "ds-nand": "TLC"}
PRICED = dict(FORM, **{"ds-price": "USD 1,250", "ds-price-date": "2025-03", "ds-power-idle": "5", "ds-power-read": "24 W",
                       "ds-power-write": "25"})


def _record(form, catalog):
    sheets, name = datasheet.add_sheet(form, [], catalog)
    session = datasheet.session_catalog(catalog, sheets)
    return session.drives[name], core.compute(core.default_setup() | {"drive": name}, catalog=session)


def test_a_priced_and_powered_form_drive_gets_a_cost(catalog):
    drive, record = _record(PRICED, catalog)
    assert (drive.price_usd.value, drive.price_date, drive.price_kind, drive.price_usd.basis) == (1250, "2025-03", "street", "datasheet")
    assert (drive.power_idle_w.value, drive.power_active_read_w.value, drive.power_active_write_w.value) == (5, 24, 25)
    cost = record["workloads"][0]["cost_power"]
    drives = core.default_setup()["drives"]
    assert cost["price_missing"] == "" and cost["price_drives_usd"] == pytest.approx(drives * 1250)
    assert cost["price_usd"] > cost["price_drives_usd"] and cost["usd_per_usable_tb"] > 0
    assert drives * 5 <= cost["power_drives_w"] <= drives * 25


def test_a_form_drive_without_a_price_is_named_as_the_part_the_total_lacks(catalog):
    drive, record = _record(FORM, catalog)
    cost = record["workloads"][0]["cost_power"]
    assert cost["price_usd"] is None and cost["price_missing"] == drive.name and cost["power_w"] is None


def test_the_exported_drive_file_keeps_its_price_and_power(catalog):
    sheets, _name = datasheet.add_sheet(PRICED, [], catalog)
    exported = yaml.safe_load(datasheet.sheet_yaml(sheets[0]))
    assert exported["price_usd"]["value"] == 1250 and exported["price_date"] == "2025-03" and exported["price_kind"] == "street"
    assert exported["power_active_write_w"]["value"] == 25


@pytest.mark.parametrize("changes, field, words", [
    ({"ds-rand-read": "lots"}, "ds-rand-read", "4K random read IOPS: cannot read 'lots'"),
    ({"ds-rand-read": "0"}, "ds-rand-read", "4K random read IOPS: '0' is outside what a drive can have"),
    ({"ds-rand-read": "500"}, "ds-rand-read", "4K random read IOPS: '500' is outside what a drive can have: allowed from 1.00K"),
    ({"ds-rand-write": "1e-300"}, "ds-rand-write", "4K random write IOPS: '1e-300' is outside what a drive can have"),
    ({"ds-seq-write": "0.5 MB/s"}, "ds-seq-write", "Sequential write: '0.5 MB/s' is outside what a drive can have: allowed from 1"),
    ({"ds-dwpd": "x"}, "ds-dwpd", "DWPD: "),
    ({"ds-raw": "1 TB"}, "ds-raw", "Raw NAND: 1,000,000,000,000 bytes; allowed: more than Capacity"),
    ({"ds-capacity": "7681 MB"}, "ds-capacity", "Capacity: must be a whole number of 512-byte sectors"),
    ({"ds-pcie": 9}, "ds-pcie", "PCIe: generation 9 does not exist"),
    ({"ds-seq-read": ""}, "ds-seq-read", "Sequential read: enter the figure from the datasheet"),
    ({"ds-price": "cheap"}, "ds-price", "Price (USD): not a number, got 'cheap'"),
    ({"ds-price": "1200"}, "ds-price-date", "Price date: enter the date the price holds for"),
    ({"ds-price": "1200", "ds-price-date": "June 2025"}, "ds-price-date", "as YYYY-MM or YYYY-MM-DD, got 'June 2025'"),
    ({"ds-price-date": "2025-06"}, "ds-price", "Price (USD): enter the price the date '2025-06' is for"),
    ({"ds-price": "0", "ds-price-date": "2025-06"}, "ds-price", "Price (USD): '0' is outside what a drive can have"),
    ({"ds-power-idle": "5"}, "ds-power-read", "Active read power (W): enter it too"),
    ({"ds-power-idle": "5", "ds-power-read": "24", "ds-power-write": "300 W"}, "ds-power-write", "Active write power (W): '300 W' is outside"),
])
def test_an_invalid_field_is_one_line_that_names_the_form_field(catalog, changes, field, words):
    _sheets, _name, errors, note = views.add_drive(dict(FORM, **changes), [], catalog)
    assert list(errors) == [field] and note.startswith("not added")
    message = errors[field]
    assert message.startswith(datasheet.LABELS[field] + ": ") and words in message and "\n" not in message
    assert ".value" not in message and not any(spec in message for spec in datasheet.SPEC_FIELDS if "_" in spec)


def test_every_form_field_has_its_label_and_a_box_on_the_form():
    keys = [key for key, *_rest in views.DATASHEET_INPUTS]
    assert set(keys) | {"ds-pcie", "ds-nand"} == set(datasheet.LABELS) == set(views.DATASHEET_FIELDS)
    assert dict((k, label) for k, label, *_ in views.DATASHEET_INPUTS)["ds-price"] == "Price (USD)"


def test_the_form_holds_a_drive_rate_to_the_catalog_drive_range_it_imports():
    """The datasheet form's rate fields take their range from the drive spec's
    (nvsim.specs.parts.DRIVE_FIGURE_RANGES), the range the catalog loader holds a drive to: the form
    had its own (above 0), so a 4K random read rate of 500 IOPS the catalog refuses was a drive."""
    from nvsim.specs.parts import DRIVE_FIGURE_RANGES

    for key, field in datasheet.FIELDS.items():
        if field in DRIVE_FIGURE_RANGES:
            assert datasheet.BOUNDS[key][1:3] == DRIVE_FIGURE_RANGES[field][:2]
    assert {datasheet.FIELDS[key] for key in ("ds-seq-read", "ds-seq-write", "ds-rand-read", "ds-rand-write")} <= set(DRIVE_FIGURE_RANGES)
