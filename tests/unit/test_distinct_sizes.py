"""sim.drive: distinct_sizes (the compiled pass over a batch's few member I/O sizes gives exactly
np.unique's sorted keys and inverse, and hands many distinct sizes to np.unique itself) and
DriveTiming.pieces_of (the units a member I/O runs on at once)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.sim.drive import FEW_DISTINCT, distinct_sizes, drive_timing


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(1, 300), min_size=0, max_size=400), seed=st.integers(0, 2**32 - 1))
def test_same_as_numpy_unique(sizes, seed):
    lengths = np.array(sizes, dtype=np.int64) * 4096
    is_write = np.random.default_rng(seed).integers(0, 2, lengths.size).astype(bool)
    values, inverse = distinct_sizes(lengths, is_write)
    want_values, want_inverse = np.unique(lengths * 2 + is_write, return_inverse=True)
    assert np.array_equal(values, want_values) and values.dtype == want_values.dtype
    assert np.array_equal(inverse, want_inverse) and inverse.dtype == want_inverse.dtype


def test_more_sizes_than_the_compiled_list_holds():
    lengths = np.arange(1, 3 * FEW_DISTINCT, dtype=np.int64)[::-1] * 512
    values, inverse = distinct_sizes(lengths, np.zeros(lengths.size, bool))
    assert values.size == lengths.size and np.array_equal(values[inverse], lengths * 2)


@pytest.mark.parametrize("drive", ["kioxia-cm7-r-7.68tb", "solidigm-d5-p5336-61.44tb"])
def test_a_member_io_runs_on_its_pages_at_most_the_pools_units(drive):
    """``pieces_of``: one unit per 4 KiB page, whatever the drive's indirection unit (a 16 KiB read
    on a 16 KiB-IU QLC drive is four pages read in parallel), never more than the pool's units."""
    catalog = default_catalog()
    timing = drive_timing(catalog, drive, None, "supermicro-sys-120u-tnr")
    lengths = np.array([512, 4096, 16384, 131072, 1 << 30])
    assert timing.pieces_of(lengths).tolist() == [1, 1, 4, min(32, timing.units), timing.units]
