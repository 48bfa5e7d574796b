"""Drive wear (endurance): drive writes per day and lifetime from a predicted host write rate.

The chain: the host writes ``host_write_bytes_per_s``; the RAID level writes ``raid_waf`` member
bytes per host byte, spread over the drives; inside each drive the FTL programs ``waf_nand`` NAND
bytes per byte written. A drive's rating (``dwpd`` full-capacity drive writes per day for
``warranty_years``) is in drive writes *of the vendor's endurance workload* (random writes of the
datasheet's random block size over the whole span), which itself programs ``rated_waf`` NAND bytes
per byte written -- the closed-form WAF of the full-capacity drive (nvsim.ssd.derive) times the
indirection unit's read-modify-write at that block size (4 on a 16 KiB IU written 4 KiB at a time). So the NAND budget is rating x rated_waf, and
what wears the drive is the effective DWPD = member DWPD x NAND WAF / rated WAF.
"""

from __future__ import annotations

from .catalog import Catalog
from .ftl.closed_form import iu_rmw_factor
from .specs import DriveSpec
from .ssd import derive_ssd_parameters

SECONDS_PER_DAY = 86_400.0


def member_write_bytes_per_s(host_write_bytes_per_s: float, raid_waf: float | None, drives: int) -> float:
    """Bytes per second written to each member drive: host writes x RAID WAF / drives (no RAID
    WAF known: 1; no writes: 0)."""
    writes = host_write_bytes_per_s or 0.0
    return writes * (raid_waf or 1.0) / max(1, drives) if writes > 0 else 0.0


def effective_dwpd(nand_write_bytes_per_s: float, capacity_bytes: float, rated_waf: float) -> float:
    """Drive writes per day of the rating's kind: NAND bytes per day / capacity / the rating
    workload's own WAF (dimensionless)."""
    return nand_write_bytes_per_s * SECONDS_PER_DAY / capacity_bytes / rated_waf


def rated_waf(drive: DriveSpec) -> float:
    """NAND bytes per byte of the rating's workload (dimensionless): random writes of the drive's
    ``rand_block_bytes`` over its full capacity, each programming its whole IUs, at the closed-form
    WAF of the full-capacity drive."""
    params = derive_ssd_parameters(drive)
    rmw = iu_rmw_factor(int(drive.rand_block_bytes.value), params.indirection_unit_bytes)
    return rmw * float(params.waf_at_capacity)


def lifetime_years(rated_dwpd: float, warranty_years: float, effective: float) -> float | None:
    """Years until the rated writes are used up at ``effective`` DWPD: warranty x rated / effective
    (None: nothing wears the drive)."""
    return rated_dwpd * warranty_years / effective if effective > 0 else None


def drive_wear(catalog: Catalog, drive_name: str, drives: int, host_write_bytes_per_s: float,
               raid_waf: float | None, waf_nand: float | None) -> dict[str, float | None]:
    """Each member's write rates (bytes/s), drive writes per day, the drive's rating and its
    lifetime (years) for ``drives`` drives of ``drive_name`` under ``host_write_bytes_per_s``.

    ``raid_waf`` / ``waf_nand`` None: unknown, taken as 1 (e.g. a read-only job's)."""
    drive = catalog.drives[drive_name]
    capacity = float(drive.capacity_bytes.value)
    rating_waf = rated_waf(drive)
    member = member_write_bytes_per_s(host_write_bytes_per_s, raid_waf, drives)
    nand = member * (waf_nand if waf_nand is not None else 1.0)
    effective = effective_dwpd(nand, capacity, rating_waf)
    rated_dwpd = float(drive.dwpd.value)
    years = float(drive.warranty_years.value)
    return {"member_write_bytes_per_s": member, "nand_write_bytes_per_s": nand,
            "member_dwpd": member * SECONDS_PER_DAY / capacity, "effective_dwpd": effective,
            "rated_dwpd": rated_dwpd, "rated_waf": rating_waf, "warranty_years": years,
            "lifetime_years": lifetime_years(rated_dwpd, years, effective)}


__all__ = ["drive_wear", "member_write_bytes_per_s", "effective_dwpd", "rated_waf", "lifetime_years", "SECONDS_PER_DAY"]
