"""The RAID 5 strip study on the xiRAID / QLC brief's drive (seed 001), printed as a table.

Run: ``python -m nvsim.studies.raid5_strip_waf``. The study itself is
:func:`nvsim.ssd.raid5_strip_waf.raid5_strip_waf`; this module only picks the drive from the catalog.
"""

from __future__ import annotations

from ..catalog import default_catalog
from ..ssd.raid5_strip_waf import raid5_strip_waf

KiB = 1024


def main() -> None:
    drive = default_catalog().drives["solidigm-d5-p5336-61.44tb"]
    print(f"{drive.name}: RAID 5 4+1, 128 KiB strip, sequential host writes")
    print(f"{'io':>8} {'IU':>6} {'offset':>7} {'raid_waf':>9} {'drive_waf':>9} {'rmw':>6} {'gc':>6} {'total':>6}")
    for iu in (int(drive.indirection_unit_bytes.value), 64 * KiB):
        for offset in (0, 4 * KiB):
            for io in (128 * KiB, 512 * KiB):
                r = raid5_strip_waf(drive, io, member_offset_bytes=offset, iu_bytes=iu)
                print(f"{io // KiB:>6}Ki {iu // KiB:>4}Ki {offset // KiB:>5}Ki {r.raid_waf:9.3f} {r.drive_waf:9.3f} "
                      f"{r.drive_rmw_factor:6.3f} {r.drive_gc_waf:6.3f} {r.total_waf:6.3f}")


if __name__ == "__main__":
    main()
