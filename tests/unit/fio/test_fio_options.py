"""fio's option tables (nvsim.fio.options, nvsim.fio.names): every option nvsim names is fio's, every
alias names one, the tables do not overlap, and docs/fio.md names every option nvsim reads."""

from pathlib import Path

from nvsim.fio import KEPT_OPTIONS, MODELLED_OPTIONS, UNDERSTOOD_WITHOUT_EFFECT

ROOT = Path(__file__).resolve().parents[3]


def test_every_option_nvsim_names_is_fios_and_every_alias_names_one():
    """The tables name fio's options (a typo in them would never match a job file); nvsim's one
    option of its own is drive_state."""
    from nvsim.fio.names import FIO_OPTION_ALIASES, FIO_OPTION_NAMES
    from nvsim.fio.options import ALIASES, REFUSED_OPTIONS
    names = set(MODELLED_OPTIONS) | set(KEPT_OPTIONS) | set(UNDERSTOOD_WITHOUT_EFFECT) | set(REFUSED_OPTIONS)
    assert {n for n in names if n not in FIO_OPTION_NAMES and n not in FIO_OPTION_ALIASES} == {"drive_state"}
    assert set(FIO_OPTION_ALIASES.values()) <= FIO_OPTION_NAMES
    assert all(alias in FIO_OPTION_NAMES | set(FIO_OPTION_ALIASES) for alias in ALIASES)


def test_option_tables_do_not_overlap():
    assert not set(MODELLED_OPTIONS) & set(KEPT_OPTIONS)
    assert not (set(MODELLED_OPTIONS) | set(KEPT_OPTIONS)) & UNDERSTOOD_WITHOUT_EFFECT
    assert {"direct", "group_reporting", "randrepeat", "random_generator", "norandommap", "cpus_allowed_policy",
            "numa_mem_policy", "name", "description", "thread"} <= UNDERSTOOD_WITHOUT_EFFECT | set(KEPT_OPTIONS)


def test_docs_name_every_option_nvsim_reads():
    doc = (ROOT / "docs" / "fio.md").read_text()
    for name in [*MODELLED_OPTIONS, *KEPT_OPTIONS, *UNDERSTOOD_WITHOUT_EFFECT]:
        assert f"`{name}`" in doc, name
