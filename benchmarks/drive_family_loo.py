"""Leave-one-out over the drive families (issue 39, must show): each family of at least three SKUs
rebuilt from its NAND generation and two of its SKUs, then the other SKUs' datasheet figures
predicted and compared.

Usage: python benchmarks/drive_family_loo.py [--json OUT]. For every pair of a family's SKUs of
different die counts (the write path needs two), the family is rebuilt from the pair alone, as
the catalog's family files are built from their declared fit SKUs (nvsim/published.py):

* the controller's ceilings (sequential read and write, random read) are the pair's largest
  figures (the SKU with more dies is the one the controller bounds);
* the write path (``--one-sku-write-fit``: every family the second way, as before issue 39): where the family declares a two-SKU write fit (``WRITE_PATH_PAIRS``), the
  controller's and the die's time per NAND page from the pair's random writes
  (``fit_write_page_us``); else (one value fitted on the reference) the controller's time from the
  pair's larger SKU, the die time from the NAND generation;
* the suspend cost: where the family fits one (Micron 9550), on the pair's 70/30 figure (the larger
  SKU's where both have one); a pair without one keeps the family file's value.

Every other SKU of the family is then predicted (``predict_sku``; its 70/30 through the SSD model's
pool equation at a deep queue, no link or host limit) and each datasheet figure it has is compared.
A SKU's datasheet figures: its published numbers (scenarios/drive-families/published.yaml), and a
reference SKU's catalog inputs (basis datasheet). Reported: median and 90th percentile |error|
over all (pair, predicted figure), per family and over the catalog. Pure closed form: a few seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nvsim.catalog import load_catalog  # noqa: E402
from nvsim.published import WRITE_PATH_PAIRS, load_published  # noqa: E402
from nvsim.specs import Cited, WorkloadSpec  # noqa: E402
from nvsim.ssd.derive import derive_ssd_parameters  # noqa: E402
from nvsim.ssd.family import family_dies, fit_controller_write_page_us, fit_write_page_us, predict_sku  # noqa: E402
from nvsim.ssd.model import SsdModel, fit_program_suspend_us  # noqa: E402

FIGURES = {"seqread-bw": "seq_read_bytes_per_s", "seqwrite-bw": "seq_write_bytes_per_s",
           "randread-iops": "rand_read_iops", "randwrite-iops": "rand_write_iops", "mix70-total-iops": "mix70"}
MIX70 = WorkloadSpec(name="randrw70", rw="randrw", rwmixread=70, bs=4096, iodepth=32, numjobs=16)


def datasheets(catalog) -> dict[str, dict[str, float]]:
    """SKU -> {figure: value}: published numbers, and a reference SKU's datasheet inputs."""
    out: dict[str, dict[str, float]] = {}
    published = load_published(ROOT / "scenarios" / "drive-families" / "published.yaml")
    for number in published.numbers:
        sku = number.scenario.removesuffix(".yaml")
        suffix = number.id.removeprefix(sku + "-")
        if suffix in FIGURES:
            out.setdefault(sku, {})[FIGURES[suffix]] = number.numeric_value
    for family in catalog.families.values():
        drive = catalog.drives[family.reference_sku]
        for field in ("seq_read_bytes_per_s", "seq_write_bytes_per_s", "rand_read_iops", "rand_write_iops"):
            if getattr(drive, field).basis == "datasheet" and drive.name in out:
                out[drive.name].setdefault(field, float(getattr(drive, field).value))
    return out


def _cited(value: float, note: str) -> Cited:
    return Cited(value=value, source="nvsim-drive-family-model", basis="predicted", note=note)


def rebuild(catalog, family, pair: tuple[str, str], sheets, two_sku_fit: bool = True) -> object:
    """``family`` rebuilt from the two SKUs of ``pair`` (module docstring)."""
    big, small = sorted(pair, key=lambda n: -family_dies(family, catalog.drives[n].raw_nand_bytes.value))
    note = f"leave-one-out: from {big} and {small}"
    update = {}
    for field, own in (("controller_read_bytes_per_s", "seq_read_bytes_per_s"),
                       ("controller_write_bytes_per_s", "seq_write_bytes_per_s"), ("controller_read_iops", "rand_read_iops")):
        values = [sheets[n][own] for n in pair if own in sheets[n]]
        if values:
            update[field] = _cited(max(values), note)
    family = family.model_copy(update=update)
    drive = {n: catalog.drives[n] for n in pair}
    two_sku = two_sku_fit and family.name in {name for name, _, _ in WRITE_PATH_PAIRS}
    if two_sku:
        t_ctrl, t_die = fit_write_page_us(family, tuple(
            (drive[n].capacity_bytes.value, drive[n].raw_nand_bytes.value, sheets[n]["rand_write_iops"]) for n in (big, small)))
        family = family.model_copy(update={"controller_write_page_us": _cited(t_ctrl, note),
                                           "random_write_die_page_us": _cited(t_die, note)})
    else:
        t_ctrl = fit_controller_write_page_us(family, drive[big].capacity_bytes.value, drive[big].raw_nand_bytes.value,
                                              sheets[big]["rand_write_iops"])
        family = family.model_copy(update={"controller_write_page_us": _cited(t_ctrl, note)})
    if family.program_suspend_us.basis == "fitted":
        with_mix = [n for n in (big, small) if "mix70" in sheets[n]]
        if with_mix:
            params = derive_ssd_parameters(_sku(catalog, with_mix[0], family))
            s = fit_program_suspend_us(params, params.capacity_bytes, sheets[with_mix[0]]["mix70"], 0.7)
            family = family.model_copy(update={"program_suspend_us": _cited(s, note)})
    return family


def _sku(catalog, name: str, family):
    """The catalog SKU with its four figures and suspend cost from ``family``'s prediction."""
    drive = catalog.drives[name]
    figures = predict_sku(family, drive.capacity_bytes.value, drive.raw_nand_bytes.value)
    update = {field: _cited(value, "leave-one-out") for field, value in figures.as_fields().items()}
    update["program_suspend_us"] = family.program_suspend_us
    return drive.model_copy(update=update)


def predict_figures(catalog, family, name: str) -> dict[str, float]:
    drive = catalog.drives[name]
    out = predict_sku(family, drive.capacity_bytes.value, drive.raw_nand_bytes.value).as_fields()
    out["mix70"] = SsdModel.from_drive(_sku(catalog, name, family)).nand_iops(MIX70)
    return out


def leave_one_out(catalog=None, two_sku_fit: bool = True) -> dict:
    catalog = catalog or load_catalog()
    sheets = datasheets(catalog)
    rows = []
    for family in catalog.families.values():
        skus = sorted(n for n, d in catalog.drives.items() if d.family == family.name and n in sheets)
        if len(skus) < 3:
            continue
        for pair in itertools.combinations(skus, 2):
            dies = {family_dies(family, catalog.drives[n].raw_nand_bytes.value) for n in pair}
            if len(dies) < 2 or any("rand_write_iops" not in sheets[n] for n in pair):
                continue
            try:
                rebuilt = rebuild(catalog, family, pair, sheets, two_sku_fit)
            except ValueError as exc:  # a pair whose random writes give a negative time per page
                rows.append({"family": family.name, "pair": list(pair), "refused": str(exc)})
                continue
            for name in skus:
                if name in pair:
                    continue
                predicted = predict_figures(catalog, rebuilt, name)
                for figure, value in sheets[name].items():
                    rows.append({"family": family.name, "pair": list(pair), "sku": name, "figure": figure,
                                 "datasheet": value, "predicted": predicted[figure],
                                 "error": predicted[figure] / value - 1})
    return {"rows": rows, "summary": summary(rows)}


def _stats(errors: list[float]) -> dict[str, float]:
    e = np.abs(np.asarray(errors))
    return {"n": int(e.size), "median": float(np.median(e)), "p90": float(np.percentile(e, 90)),
            "within_10pct": int((e <= 0.10).sum())}


def summary(rows: list[dict]) -> dict:
    scored = [r for r in rows if "error" in r]
    out = {"all": _stats([r["error"] for r in scored])}
    for key in sorted({r["family"] for r in scored}):
        out[key] = _stats([r["error"] for r in scored if r["family"] == key])
    for figure in FIGURES.values():
        errors = [r["error"] for r in scored if r["figure"] == figure]
        if errors:
            out[f"figure {figure}"] = _stats(errors)
    out["refused pairs"] = sum(1 for r in rows if "refused" in r)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write every comparison and the summary here")
    parser.add_argument("--one-sku-write-fit", action="store_true",
                        help="every family as before issue 39: the controller's time per page from one SKU, the die "
                             "time from the NAND generation")
    args = parser.parse_args()
    result = leave_one_out(two_sku_fit=not args.one_sku_write_fit)
    print(f"{'set':42s} {'n':>4s} {'median':>7s} {'p90':>7s} {'<=10%':>6s}")
    for key, s in result["summary"].items():
        if isinstance(s, dict):
            print(f"{key:42s} {s['n']:4d} {s['median']:7.1%} {s['p90']:7.1%} {s['within_10pct']:6d}")
    print(f"pairs refused (negative time per page): {result['summary']['refused pairs']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
