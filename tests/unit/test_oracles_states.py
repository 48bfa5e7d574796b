"""What an array loses with members down (nvsim.states.lost_data), worked by hand from md's rules:
RAID0 loses every missing member's data; a parity level past its tolerance loses each stripe row
from the point the rebuilds have not reached, and with it that row's data strips (members less
parity), never the parity; a mirror set loses data only when all its copies are down."""

from __future__ import annotations

import pytest

from nvsim.array_capacity import capacity
from nvsim.scenario import parse_scenario
from nvsim.states import lost_data

STRIP = 64 * 1024


def _scenario(catalog, level: int, drives: int):
    return parse_scenario({"name": "t", "platform": "supermicro-as-2125hs-tnr",
                           "array": {"level": level, "drive": "kioxia-cm7-r-3.84tb", "drives": drives,
                                     "strip_bytes": "64KiB", "engine": "linux-md"},
                           "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}]}, catalog)


def test_raid0_loses_the_data_of_every_missing_member(catalog):
    spec = _scenario(catalog, 0, 4)
    member = capacity(spec, catalog).member_bytes
    assert lost_data(spec, catalog, {2}, {}).bytes_lost == pytest.approx(member)
    assert lost_data(spec, catalog, {0, 3}, {}).bytes_lost == pytest.approx(2 * member)


def test_raid6_past_its_tolerance_loses_the_data_strips_of_each_row_not_rebuilt(catalog):
    spec = _scenario(catalog, 6, 8)
    member = capacity(spec, catalog).member_bytes
    assert lost_data(spec, catalog, {0, 5}, {}) is None  # two down: RAID6 tolerates them
    loss = lost_data(spec, catalog, {0, 1, 5}, {})
    assert loss.stripes_lost == member // STRIP and loss.bytes_lost == pytest.approx(6 * member)  # 8 - 2 parity
    # two of the three are rebuilt a quarter and a half of the way: rows from the half on miss three members
    half = lost_data(spec, catalog, {0, 1, 5}, {0: member / 4, 1: member / 2})
    assert half.bytes_lost == pytest.approx(6 * member / 2)


def test_raid10_loses_data_only_when_both_copies_are_down(catalog):
    spec = _scenario(catalog, 10, 4)
    member = capacity(spec, catalog).member_bytes
    assert lost_data(spec, catalog, {0, 2}, {}) is None  # one drive of each mirror pair
    assert lost_data(spec, catalog, {2, 3}, {}).bytes_lost == pytest.approx(member)


def test_a_raid1_of_n_drives_loses_data_only_when_all_n_are_down(catalog):
    """md RAID1 keeps a whole copy on every member: any n - 1 may fail (until 2026-11-30 a 4-drive
    RAID1 was paired as RAID10's mirror sets and reported lost with drives 0 and 1 down)."""
    spec = _scenario(catalog, 1, 4)
    member = capacity(spec, catalog).member_bytes
    for down in ({0, 1}, {1, 2, 3}, {0, 3}):
        assert lost_data(spec, catalog, down, {}) is None
    assert lost_data(spec, catalog, {0, 1, 2, 3}, {}).bytes_lost == pytest.approx(member)
    assert lost_data(spec, catalog, {0, 1, 2, 3}, {2: member / 4}).bytes_lost == pytest.approx(0.75 * member)


def test_raid10_on_a_ring_loses_the_chunks_of_two_neighbours_only(catalog):
    """md RAID10 near 2 on 5 drives: chunk c's copies on members 2c and 2c + 1 (mod 5), so each
    drive shares chunks with both neighbours; two drives that are not neighbours hold no chunk
    together, and two neighbours hold one chunk in five of the array's (member x 5 / 2 bytes)."""
    spec = _scenario(catalog, 10, 5)
    member = capacity(spec, catalog).member_bytes
    assert lost_data(spec, catalog, {0, 2}, {}) is None
    assert lost_data(spec, catalog, {1, 3}, {}) is None
    assert lost_data(spec, catalog, {3, 4}, {}).bytes_lost == pytest.approx(member / 2)
    assert lost_data(spec, catalog, {0, 1, 2}, {}).bytes_lost == pytest.approx(member)  # {0,1} and {1,2}
