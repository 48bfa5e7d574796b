"""nvsim.loader, the one boundary for input files: a document's values are counted before any is built."""

import pytest
import yaml

from nvsim.errors import InputError
from nvsim.loader import MAX_NODES, StrictLoader, parse_yaml


def _merges(keys: int, merges: int) -> str:
    """A mapping of ``keys`` keys, anchored, merged (``<<: *a``) into ``merges`` mappings."""
    return "a: &a {" + ", ".join(f"k{i}: 1" for i in range(keys)) + "}\nb:\n" + "  - {<<: *a}\n" * merges


def test_a_merge_key_bomb_is_refused_before_any_mapping_is_built(monkeypatch):
    """A merge copies its mapping into every mapping that uses it: 3,000 merges of a 3,000-key anchor
    (68 kB) built 9 million entries (412 MB, 19.5 s) before the count of values refused them. The
    oracle: how many mappings were built (none), not a clock."""
    built = []
    real = StrictLoader.construct_mapping
    monkeypatch.setattr(StrictLoader, "construct_mapping", lambda self, node, deep=False: built.append(1) or real(self, node, deep))
    with pytest.raises(InputError, match=rf"^s\.yaml: more than {MAX_NODES:,} values \(aliases counted each time used\)"):
        parse_yaml(_merges(3000, 3000), "s.yaml")
    assert built == []


def test_merges_and_aliases_within_the_bound_load_as_yaml_reads_them():
    text = _merges(50, 20) + "c: [*a, *a]\nd: {<<: [*a, {z: 2}], k0: 0}\n"
    assert parse_yaml(text, "s.yaml") == yaml.safe_load(text)
    assert parse_yaml("", "s.yaml") is None and parse_yaml("x", "s.yaml") == "x"


def test_a_document_at_the_bound_loads_and_one_past_it_is_refused(monkeypatch):
    """MAX_NODES counts the list and each item (an alias each time used); the count before building
    agrees with the one after (``check_shape``)."""
    monkeypatch.setattr("nvsim.loader.MAX_NODES", 1000)
    assert len(parse_yaml("[" + "0," * 999 + "]", "s.yaml")) == 999
    assert parse_yaml("a: &a [" + "0," * 497 + "]\nb: *a\n", "s.yaml")["b"] == [0] * 497  # 1 + 2 + 2 x 498 = 999
    for text in ("[" + "0," * 1000 + "]", "a: &a [" + "0," * 498 + "]\nb: *a\n"):
        with pytest.raises(InputError, match="more than 1,000 values"):
            parse_yaml(text, "s.yaml")


def test_an_alias_inside_its_own_anchor_is_one_line():
    with pytest.raises(InputError, match=r"^s\.yaml: "):
        parse_yaml("a: &a [1, *a]\n", "s.yaml")
