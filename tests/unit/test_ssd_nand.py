"""NAND generations and types as data (issue 39, item 1): the die capacity is stated once, in the
generation (models/nand/), and the family model, the SSD model and the array modes' die pool count
the same dies; a new NAND type and generation are data alone (they load and run); a name the catalog
does not have is one line naming the field.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nvsim.catalog import load_catalog
from nvsim.errors import InputError
from nvsim.links import drive_link
from nvsim.scenario import parse_scenario
from nvsim.simulation import Simulation
from nvsim.ssd import derive_ssd_parameters
from nvsim.sim.drive import DriveTiming
from nvsim.ssd.model import SsdModel
from nvsim.ssd.family import die_program_bytes_per_s, family_dies, predict_sku

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(MODELS)


def _family_skus(catalog):
    return [(name, drive) for name, drive in catalog.drives.items() if drive.family is not None]


def test_every_family_sku_has_the_dies_the_ssd_model_uses(catalog):
    skus = _family_skus(catalog)
    assert len(skus) >= 30 and {drive.family for _, drive in skus} == set(catalog.families)
    for name, drive in skus:
        family = catalog.families[drive.family]
        generation = catalog.nand[family.nand_generation]
        raw = drive.raw_nand_bytes.value
        expected = round(raw / generation.die_bytes.value)
        assert family.die_bytes == generation.die_bytes and drive.nand_die_bytes == generation.die_bytes, name
        assert family_dies(family, raw) == expected, name
        assert derive_ssd_parameters(drive).nand_dies == expected, name
        assert predict_sku(family, drive.capacity_bytes.value, raw).dies == expected, name
        # the array modes' die pool (nvsim.sim.drive): at most that many units, the same pool capacity
        # and each read's suspend over the same dies
        model = SsdModel.from_drive(drive)
        timing = DriveTiming(model, drive_link(drive, catalog.platforms["asus-rs520a-e12-rs24u"], catalog))
        assert 1 <= timing.units <= expected, name
        assert timing.suspend_unit_s == pytest.approx(drive.program_suspend_us.value * 1e-6 / expected * timing.units), name
        assert timing.unit_s(4096, False, True) / timing.units == pytest.approx(model.read_pool_s(4096, True)), name


def test_the_cm6_r_30_72tb_counts_its_512_dies_of_512_gbit(catalog):
    drive = catalog.drives["kioxia-cm6-r-30.72tb"]
    assert drive.nand_die_bytes.value == 64 * 2**30
    assert derive_ssd_parameters(drive).nand_dies == 512


def test_a_drive_with_no_family_takes_its_types_default_generation(catalog):
    for name, drive in catalog.drives.items():
        if drive.family is None:
            generation = catalog.nand_types[drive.nand].default_generation
            assert drive.nand_generation == generation, name
            die = catalog.nand[generation].die_bytes
            assert (drive.nand_die_bytes.value, drive.nand_die_bytes.source) == (die.value, die.source), name
            named = "nand_generation" in catalog.files[name].read_text()
            # a die the drive does not name is an assumption about it (it read 'published', the generation's basis)
            assert drive.nand_die_bytes.basis == (die.basis if named else "assumed"), name


def test_every_family_and_generation_names_a_known_type_with_its_bits(catalog):
    for family in catalog.families.values():
        assert family.nand == catalog.nand[family.nand_generation].nand
        assert family.bits_per_cell == catalog.nand_types[family.nand].bits_per_cell


def _copy(tmp_path) -> Path:
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    return models


def test_a_new_nand_type_and_generation_are_data_alone(tmp_path, catalog):
    models = _copy(tmp_path)
    (models / "nand_types" / "plc.yaml").write_text(
        "name: PLC\n"
        "bits_per_cell: {value: 5, source: nvsim-assumptions, basis: assumed, note: penta-level cell}\n"
        "indirection_unit_bytes: {value: 16 KiB, source: nvsim-assumptions, basis: assumed, note: test}\n"
        "default_generation: test-plc\n")
    (models / "nand" / "test-plc.yaml").write_text(
        "name: test-plc\nmaker: Test\ngeneration: test\nnand: PLC\n"
        "layers: {value: 300, source: nvsim-assumptions, basis: assumed, note: test}\n"
        "die_bytes: {value: 200 GiB, source: nvsim-assumptions, basis: assumed, note: test}\n")
    text = (models / "drives" / "solidigm-d5-p5336-61.44tb.yaml").read_text()
    (models / "drives" / "test-plc-drive.yaml").write_text(
        text.replace("name: solidigm-d5-p5336-61.44tb", "name: test-plc-drive").replace("nand: QLC", "nand: PLC"))
    family = (models / "families" / "micron-9550.yaml").read_text()
    (models / "families" / "micron-9550.yaml").write_text(family.replace("nand_generation: micron-232l-tlc",
                                                                         "nand_generation: test-plc"))
    for sku in (models / "drives").glob("micron-9550-*.yaml"):  # a SKU file that states its type states the family's
        sku.write_text(sku.read_text().replace("nand: TLC", "nand: PLC"))
    loaded = load_catalog(models)
    drive = loaded.drives["test-plc-drive"]
    assert (drive.nand, drive.nand_generation, drive.nand_die_bytes.value) == ("PLC", "test-plc", 200 * 2**30)
    assert derive_ssd_parameters(drive).nand_dies == round(64 * 2**40 / (200 * 2**30)) == 328
    plc_family = loaded.families["micron-9550"]
    assert plc_family.bits_per_cell.value == 5 and plc_family.die_bytes.value == 200 * 2**30
    tlc_family = catalog.families["micron-9550"]
    # the die's program rate goes as its bits per cell: 5/3 of the TLC family's, from the data alone
    assert die_program_bytes_per_s(plc_family) == pytest.approx(die_program_bytes_per_s(tlc_family) * 5 / 3)
    _runs(loaded, "test-plc-drive", "micron-9550-max-3.2tb", "micron-9550-max-25.6tb")


def _runs(catalog, *drives):
    """Each drive loads, derives and runs: a single-drive scenario of it, a 4 KiB 70/30 mix, through
    the orchestrator; a family SKU on the new NAND with its dies from the new die capacity."""
    for name in drives:
        drive = catalog.drives[name]
        assert derive_ssd_parameters(drive).nand_dies == round(drive.raw_nand_bytes.value / drive.nand_die_bytes.value)
        scenario = parse_scenario({
            "name": f"run-{name}", "description": "one drive", "source": "nvsim-assumptions", "seed": 1,
            "platform": "asus-rs520a-e12-rs24u", "array": {"level": 0, "drive": name, "drives": 1, "engine": "none"},
            "workloads": [{"name": "mix70", "rw": "randrw", "rwmixread": 70, "bs": "4k", "iodepth": 32,
                           "numjobs": 16, "ioengine": "libaio"}]}, catalog)
        result = Simulation(scenario, "mix70", catalog=catalog).run()
        assert 0 < result.read_iops < 1e8 and result.write_iops == pytest.approx(result.read_iops * 3 / 7, rel=1e-6), name


def _refused(models, field, match):
    with pytest.raises(InputError, match=match) as error:
        load_catalog(models)
    assert error.value.field == field
    assert "\n" not in str(error.value)


def test_an_unknown_generation_named_by_a_family_is_one_line(tmp_path):
    models = _copy(tmp_path)
    path = models / "families" / "kioxia-cm6.yaml"
    path.write_text(path.read_text().replace("nand_generation: kioxia-bics4-tlc", "nand_generation: kioxia-bics4-tl"))
    _refused(models, "nand_generation", "unknown NAND generation 'kioxia-bics4-tl'.*kioxia-bics4-tlc")


def test_a_family_that_states_its_die_capacity_is_one_line(tmp_path):
    models = _copy(tmp_path)
    path = models / "families" / "kioxia-cm6.yaml"
    path.write_text(path.read_text() + "die_bytes: {value: 128 GiB, source: nvsim-assumptions, basis: assumed}\n")
    _refused(models, "die_bytes", "stated by the family's NAND generation")


def test_a_drive_of_an_unknown_type_or_its_own_die_is_one_line(tmp_path):
    models = _copy(tmp_path)
    path = models / "drives" / "intel-d7-p5510-3.84tb.yaml"
    text = path.read_text()
    path.write_text(text.replace("nand: TLC", "nand: XLC"))
    _refused(models, "nand", "unknown NAND type 'XLC'")
    path.write_text(text + "nand_die_bytes: {value: 64 GiB, source: nvsim-assumptions, basis: assumed}\n")
    _refused(models, "nand_die_bytes", "stated by the drive's NAND generation")
    path.write_text(text.replace("nand: TLC", "nand: TLC\nnand_generation: intel-144l-qlc"))
    _refused(models, "nand_generation", "intel-144l-qlc is QLC NAND, the drive TLC")


def test_a_generation_of_an_unknown_type_is_one_line(tmp_path):
    models = _copy(tmp_path)
    path = models / "nand" / "samsung-v8-tlc.yaml"
    path.write_text(path.read_text().replace("nand: TLC", "nand: TCL"))
    _refused(models, "nand", "unknown NAND type 'TCL'")
