import re
from pathlib import Path

import pytest
import yaml

from nvsim.catalog import DEFAULT_CATALOG_DIR, Catalog, iter_cited, load_catalog
from nvsim.errors import InputError
from nvsim.published import fitted_parameter_count
from nvsim.specs import DriveSpec, PlatformSpec

MODELS = Path(__file__).resolve().parents[2] / "models"
REQUIRED = {
    "drives": {"kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb", "kioxia-cm7-v-6.4tb", "solidigm-d5-p5336-61.44tb", "intel-d7-p5510-3.84tb"},
    "platforms": {"supermicro-as-2125hs-tnr", "supermicro-as-1125hs-tnr", "asus-rs520a-e12-rs24u", "dell-poweredge-r750", "supermicro-sys-120u-tnr"},
    "links": {"pcie-gen3", "pcie-gen4", "pcie-gen5"},
    "host_io": {"libaio", "io_uring"},
}


def test_catalog_has_every_entry_of_the_reference_documents(catalog: Catalog):
    for section, names in REQUIRED.items():
        assert names <= set(getattr(catalog, section)), section


def test_every_source_key_resolves_in_the_bibliography(catalog: Catalog):
    used = {cited.source for _, entry in catalog.entries() for _, cited in iter_cited(entry)}
    assert used and used <= set(catalog.bibliography)


def _numbers_outside_cited(value, path=""):
    """Plain numbers in a raw YAML entry that are not the `value` of a cited mapping."""
    if isinstance(value, dict):
        if {"value", "source", "basis"} <= set(value):
            return []
        return [p for k, v in value.items() for p in _numbers_outside_cited(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _numbers_outside_cited(v, f"{path}[{i}]")]
    return [path] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


ALLOWED_PLAIN = {".generation", ".cpu.sockets", ".levels[0]", ".levels[1]", ".levels[2]", ".levels[3]", ".levels[4]"}


@pytest.mark.parametrize("path", sorted(MODELS.glob("*/*.yaml")), ids=lambda p: p.name)
def test_every_catalog_number_carries_source_and_basis(path: Path):
    raw = yaml.safe_load(path.read_text())
    plain = [p for p in _numbers_outside_cited(raw) if p not in ALLOWED_PLAIN and not p.startswith(".slots")]
    assert plain == [], f"uncited numbers in {path.name}: {plain}"


def test_unknown_source_key_is_refused(tmp_path: Path):
    import shutil
    shutil.copytree(MODELS, tmp_path / "models")
    drive = tmp_path / "models/drives/kioxia-cm7-r-3.84tb.yaml"
    drive.write_text(drive.read_text().replace("source: kioxia-cm7-brief, basis: datasheet}", "source: kioxia-cm7-brif, basis: datasheet}", 1))
    with pytest.raises(InputError, match="kioxia-cm7-brif.*did you mean 'kioxia-cm7-brief'"):
        load_catalog(tmp_path / "models")


def test_unknown_key_in_catalog_entry_is_refused(tmp_path: Path):
    import shutil
    shutil.copytree(MODELS, tmp_path / "models")
    drive = tmp_path / "models/drives/intel-d7-p5510-3.84tb.yaml"
    drive.write_text(drive.read_text() + "colour: blue\n")
    with pytest.raises(InputError, match="colour: unknown key"):
        load_catalog(tmp_path / "models")


def test_a_catalog_under_the_home_folder_loads_by_its_tilde_path(tmp_path: Path, monkeypatch):
    # docs/catalog.md, "Your own catalog": catalog = nvsim.load_catalog("~/my-catalog")
    import shutil
    shutil.copytree(MODELS, tmp_path / "my-catalog")
    monkeypatch.setenv("HOME", str(tmp_path))
    catalog = load_catalog("~/my-catalog")
    assert "kioxia-cm7-r-3.84tb" in catalog.drives


def test_typed_values_are_in_canonical_units(catalog: Catalog):
    drive: DriveSpec = catalog.drives["kioxia-cm7-r-7.68tb"]
    assert drive.capacity_bytes.value == 7_680_000_000_000
    assert drive.raw_nand_bytes.value == 8 * 2**40
    assert drive.seq_read_bytes_per_s.value == pytest.approx(14e9)
    assert drive.rand_read_iops.value == pytest.approx(2.7e6)
    platform: PlatformSpec = catalog.platforms["supermicro-as-2125hs-tnr"]
    assert platform.total_cores == 192  # seed 000: "a total of 192 physical cores"
    assert platform.memory_bytes_per_s_per_socket == pytest.approx(12 * 4800e6 * 8)


def test_catalog_commands(cli):
    listing = cli("catalog")
    assert listing.returncode == 0
    for name in ("kioxia-cm7-r-3.84tb", "dell-poweredge-r750", "pcie-gen5", "graid-supremeraid-sr1010"):
        assert name in listing.stdout
    only = cli("catalog", "--kind", "links")
    assert "pcie-gen4" in only.stdout and "kioxia" not in only.stdout
    show = cli("catalog", "show", "intel-d7-p5510-3.84tb")
    assert show.returncode == 0 and "rand_write_iops" in show.stdout and "intel-d7-p5510-brief" in show.stdout
    assert "Intel SSD D7-P5510 Series product brief" in show.stdout
    missing = cli("catalog", "show", "kioxia-cm7-r-3.84")
    assert missing.returncode == 2 and "did you mean 'kioxia-cm7-r-3.84tb'" in missing.stderr
    in_its_kind = cli("catalog", "--kind", "drives", "show", "intel-d7-p5510-3.84tb")
    assert in_its_kind.returncode == 0 and in_its_kind.stdout == show.stdout
    other_kind = cli("catalog", "--kind", "links", "show", "intel-d7-p5510-3.84tb")
    assert other_kind.returncode == 2 and "is in drives, not in --kind links" in other_kind.stderr


def test_every_declared_fitted_parameter_is_marked_fitted_in_the_catalog():
    """The validation report calls these numbers fitted; the catalog must say so too (not 'assumed')."""
    from nvsim.published import ENGINE_FITS

    wrong = []
    for fit in ENGINE_FITS:
        raw = yaml.safe_load((MODELS / fit.section / f"{fit.entry}.yaml").read_text())
        for name in fit.parameters:
            found = [v for k, v in _walk_cited(raw) if k == name]
            if not found or any(v.get("basis") != "fitted" for v in found):
                wrong.append(f"{fit.entry} {name}")
    assert wrong == []


def _walk_cited(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict) and {"value", "basis"} <= set(item):
                yield key, item
            else:
                yield from _walk_cited(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_cited(item)


MAX_FITTED_PER_ENTRY = 4
"""The brief's rule: at most 4 fitted parameters in any catalog entry."""


def test_no_catalog_entry_has_more_than_four_fitted_numbers():
    """Read models/ itself (every YAML, every nested value): a fifth ``basis: fitted`` fails."""
    crowded = {}
    for path in sorted(DEFAULT_CATALOG_DIR.glob("*/*.yaml")):
        text = path.read_text()
        fitted = len(re.findall(r"basis:\s*fitted\b", text))
        if fitted > MAX_FITTED_PER_ENTRY:
            crowded[path.name] = fitted
    assert crowded == {}


def test_every_fitted_value_in_models_is_a_declared_fit():
    """`nvsim calibrate` prints the declared fits' count: it is the number of ``basis: fitted``
    values in models/ (a fit added to models/ without its declaration, or the reverse, fails)."""
    in_models = sum(len(re.findall(r"basis:\s*fitted\b", path.read_text()))
                    for path in DEFAULT_CATALOG_DIR.glob("*/*.yaml"))
    assert fitted_parameter_count() == in_models


def test_the_fit_count_rule_reads_what_calibrate_writes(tmp_path):
    """The count above sees the line format calibrate writes (a test of the test)."""
    line = "  x_us: {value: 1.0, source: seed-000, basis: fitted, note: \"nvsim calibrate\"}\n"
    assert len(re.findall(r"basis:\s*fitted\b", line * 5)) == 5


def test_a_loaded_catalogs_sections_cannot_be_changed_and_stay_so_across_processes():
    """``Catalog`` refused attribute assignment, but its sections were plain dicts: one stray
    ``catalog.drives[name] = other`` in a notebook changed every later answer of the process (the
    default scenario's capacity 84.48 TB -> 1,351.68 TB)."""
    import copy
    import pickle

    from nvsim.catalog import ReadOnlyDict, default_catalog

    catalog = default_catalog()
    other = catalog.drives["solidigm-d5-p5336-61.44tb"]
    for change in (lambda d: d.__setitem__("kioxia-cm7-r-3.84tb", other), lambda d: d.pop("kioxia-cm7-r-3.84tb"),
                   lambda d: d.update({"x": other}), lambda d: d.clear(), lambda d: d.setdefault("x", other)):
        with pytest.raises(TypeError, match="a catalog is frozen"):
            change(catalog.drives)
    assert catalog.drives["kioxia-cm7-r-3.84tb"].name == "kioxia-cm7-r-3.84tb"
    for twin in (pickle.loads(pickle.dumps(catalog)), copy.deepcopy(catalog),
                 catalog.with_values({"host_io/libaio/submit_us": 1.0})):
        assert isinstance(twin.drives, ReadOnlyDict) and twin.drives.keys() == catalog.drives.keys()


def test_catalog_show_gives_a_cards_derived_mechanisms_with_their_basis(cli, catalog: Catalog):
    """docs/models/engines.md: where a card's datasheet gives no figure, ``catalog show`` says which
    default is used; it listed the cited figures only, so the SmartRAID 4300's parity engine that
    costs nothing (no write ceiling) and the 9670W-16i's command time from 12M IOPS were nowhere."""
    from nvsim.engines import build_engine

    smartraid = dict((part, (value, why)) for part, value, why in
                     build_engine(catalog.engines["microchip-smartraid-4300"]).derived_costs())
    assert smartraid["parity engine, per KiB of member data"] == (
        "0 us", "no sequential parity-write ceiling in the datasheet: not a limit")
    assert smartraid["card DRAM bandwidth"][0] == "not a limit"
    megaraid = dict((part, (value, why)) for part, value, why in
                    build_engine(catalog.engines["broadcom-megaraid-9670w-16i"]).derived_costs())
    assert megaraid["command processor, per member command"] == (
        "0.08333 us", "1 / random-read ceiling (12,000,000 IOPS)")
    assert build_engine(catalog.engines["linux-md"]).derived_costs() == ()
    show = cli("catalog", "show", "microchip-smartraid-4300")
    assert show.returncode == 0 and "What the simulation derives from these figures" in show.stdout
    assert "not a limit" in show.stdout
    assert "derives" not in cli("catalog", "show", "intel-d7-p5510-3.84tb").stdout


@pytest.mark.parametrize("family", ["broadcom-megaraid-95xx", "broadcom-megaraid-96xx"])
def test_megaraids_default_rebuild_rate_is_cited_where_a_stored_guide_states_it(catalog: Catalog, family):
    """MegaRAID's 30% rebuild rate was basis assumed ('not found stated as a default in a stored
    source'); Intel's guide to its MegaRAID-based controllers states it: 'The default rebuild rate is 30%'."""
    rate = catalog.card_families[family].firmware.rebuild_rate_percent
    assert (rate.value, rate.basis, rate.source) == (30, "datasheet", "intel-raid-software-user-guide")
    assert "The default rebuild rate is 30%" in catalog.bibliography[rate.source].title
