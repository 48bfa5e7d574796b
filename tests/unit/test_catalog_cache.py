"""The catalog kept on disk (``nvsim.catalog.cached_catalog``): the next process reads the very
catalog the YAML files give, and any edit of a file gives a new key, so a stale catalog is never
read; a cache that cannot be read is loaded afresh."""

from __future__ import annotations

import pickle
import shutil

import pytest

from nvsim import catalog as catalog_module
from nvsim.catalog import DEFAULT_CATALOG_DIR, cached_catalog, catalog_digest, load_catalog

SECTIONS = ("drives", "engines", "platforms", "families", "links", "nand", "controllers", "bibliography", "files")


@pytest.fixture(scope="module")
def shipped():
    return load_catalog(DEFAULT_CATALOG_DIR)


def _same(a, b) -> None:
    for section in SECTIONS:
        assert getattr(a, section) == getattr(b, section), section
    name = next(iter(a.drives))
    for field, value in vars(a.drives[name]).items():  # entries keep their very types (Cited[int], ...)
        assert type(getattr(b.drives[name], field)) is type(value), field


def test_the_second_load_reads_the_cache_and_gives_the_same_catalog(tmp_path, shipped, monkeypatch):
    first = cached_catalog(DEFAULT_CATALOG_DIR, base=tmp_path)
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    _same(first, shipped)

    def no_parsing(*_):
        raise AssertionError("parsed the YAML files although the cache holds this catalog")

    monkeypatch.setattr(catalog_module, "load_catalog", no_parsing)
    _same(cached_catalog(DEFAULT_CATALOG_DIR, base=tmp_path), shipped)


def test_an_edited_catalog_file_gets_a_new_key(tmp_path):
    copy = tmp_path / "models"
    shutil.copytree(DEFAULT_CATALOG_DIR, copy)
    before = catalog_digest(copy)
    drive = sorted((copy / "drives").glob("*.yaml"))[0]
    drive.write_text(drive.read_text() + "\n# an edit\n")
    assert catalog_digest(copy) != before


def test_a_broken_cache_file_is_loaded_afresh(tmp_path, shipped):
    path = tmp_path / f"{catalog_digest(DEFAULT_CATALOG_DIR)}.pickle"
    path.write_bytes(b"not a pickle")
    _same(cached_catalog(DEFAULT_CATALOG_DIR, base=tmp_path), shipped)
    assert isinstance(pickle.loads(path.read_bytes()), catalog_module.Catalog)  # and rewritten


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch, shipped):
    monkeypatch.setenv(catalog_module.CACHE_ENV, "0")
    _same(cached_catalog(DEFAULT_CATALOG_DIR, base=tmp_path), shipped)
    assert not list(tmp_path.glob("*.pickle"))
