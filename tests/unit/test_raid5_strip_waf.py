"""The RAID 5 strip study: the member write stream's laws and the study's RAID factor."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nvsim import default_catalog
from nvsim.ssd.raid5_strip_waf import member_write_trace, raid5_strip_waf

KiB = 1024


@settings(max_examples=40, deadline=None)
@given(n_drives=st.sampled_from([3, 5, 9]), strips_per_io=st.sampled_from([1, 2, 4, 8]), stripes=st.integers(1, 40))
def test_every_member_sees_the_stripe_bytes_the_raid_writes(n_drives, strips_per_io, stripes):
    data = n_drives - 1
    if data % strips_per_io:
        return
    strip = 128 * KiB
    writes_per_stripe = data // strips_per_io
    total = 0
    for member in range(n_drives):
        offsets, lengths, host = member_write_trace(strips_per_io * strip, strip, n_drives, stripes, member)
        assert host == stripes * data * strip
        assert np.all(lengths == strip)
        total += int(lengths.sum())
    # each host write writes its data strips and rewrites the stripe's parity strip once
    assert total == stripes * (data + writes_per_stripe) * strip


def test_a_write_that_does_not_tile_the_stripe_is_refused():
    with pytest.raises(ValueError, match="tiles a stripe"):
        member_write_trace(3 * 128 * KiB, 128 * KiB, 5, 4)


def test_full_stripes_write_parity_once_and_single_strips_rewrite_it():
    drive = default_catalog().drives["solidigm-d5-p5336-61.44tb"]
    full = raid5_strip_waf(drive, 512 * KiB, n_blocks=64, pages_per_block=32)
    single = raid5_strip_waf(drive, 128 * KiB, n_blocks=64, pages_per_block=32)
    assert full.raid_waf == pytest.approx(5 / 4, rel=0.01)  # member 0 stands for all: whole rotations only
    assert single.raid_waf == pytest.approx(2.0, rel=0.01)
    assert single.total_waf == pytest.approx(single.raid_waf * single.drive_waf)
    assert single.drive_waf >= full.drive_waf >= 1.0


def test_the_study_module_is_the_one_that_reads_the_catalog():
    import nvsim.ssd.raid5_strip_waf as model
    import nvsim.studies.raid5_strip_waf as study
    assert not hasattr(model, "default_catalog") and not hasattr(model, "main")
    assert callable(study.main)


@pytest.mark.parametrize("args, field", [((0,), "io_bytes"), ((128 * KiB, 0), "strip_bytes"), ((128 * KiB, 128 * KiB, 2), "n_drives"),
                                         ((3 * 128 * KiB,), "io_bytes")])
def test_bad_arguments_are_one_line_naming_the_argument(args, field):
    """A strip of 0 was a ZeroDivisionError and a RAID 5 of 2 drives answered (a helper's finding)."""
    from nvsim.errors import InputError
    drive = default_catalog().drives["solidigm-d5-p5336-61.44tb"]
    with pytest.raises(InputError, match=f"^{field}:"):
        raid5_strip_waf(drive, *args)
    with pytest.raises(InputError, match="^drive: a DriveSpec"):
        raid5_strip_waf("solidigm-d5-p5336-61.44tb", 128 * KiB)
