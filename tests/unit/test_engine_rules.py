"""The engines' rules, asked of the engine classes (nvsim.engines): md's power-of-two chunk, a
card's RAID10 drive multiples, which arrays pass discards, VROC's need for VMD; and the modules
that used to decide them by engine kind (specs, topology, trims, the plan) now ask the class."""

import ast
import copy
from pathlib import Path

import numpy as np
import pytest

from nvsim.engines import ENGINES, Engine, EngineParameters
from nvsim.specs import ScenarioSpec

ROOT = Path(__file__).resolve().parents[2]
LEVELS = (0, 1, 5, 6, 10)
MD_KINDS = ("md", "vroc")
BUILT_IN = ("none", "ideal", "md", "vroc", "lockless_cpu", "gpu", "hardware")


class _PlugIn(Engine):
    """An engine that states no rule of its own (as tests/support/dpu_engine.py): the base's defaults."""

    Parameters = EngineParameters


def test_every_built_in_kind_is_registered():
    assert set(BUILT_IN) <= set(ENGINES)


@pytest.mark.parametrize("kind", BUILT_IN)
def test_md_and_vroc_take_only_power_of_two_strips_on_raid5_6_and_10(kind):
    expected = {lv: kind in MD_KINDS and lv in (5, 6, 10) for lv in LEVELS}
    assert {lv: ENGINES[kind].strip_must_be_power_of_two(lv) for lv in LEVELS} == expected


@pytest.mark.parametrize("kind", BUILT_IN)
@pytest.mark.parametrize("copies", (2, 3))
def test_a_cards_raid10_is_a_multiple_of_its_copies_and_mds_near_layout_is_not(kind, copies):
    """A card's or vendor's RAID10 mirrors sets of its copies; md's near layout takes any count;
    VROC's IMSM RAID10 is two-drive mirrors striped (mdadm: an even count of at least four)."""
    expected = {lv: copies if lv == 10 and kind not in MD_KINDS else 1 for lv in LEVELS}
    if kind == "vroc":
        expected[10] = 2
    assert {lv: ENGINES[kind].drive_multiple(lv, copies) for lv in LEVELS} == expected


@pytest.mark.parametrize("kind", BUILT_IN)
def test_which_arrays_pass_discards(kind):
    passes = {lv: ENGINES[kind].passes_discards(lv) for lv in (0, 1, 4, 5, 6, 10)}
    if kind in ("none", "ideal"):
        assert all(passes.values())
    elif kind in MD_KINDS:
        assert passes == {0: True, 1: True, 4: False, 5: False, 6: False, 10: True}
        assert ENGINES[kind].discard_refusal(6, "x") == (
            "md RAID 6 passes discards to its drives only with the raid456 module's "
            "devices_handle_discard_safely=Y, which the scenario does not state")
    else:
        assert not any(passes.values())
        assert ENGINES[kind].discard_refusal(5, "card") == "nvsim does not know whether card passes discards to its drives"


def test_only_vroc_needs_vmd():
    assert {kind for kind, engine in ENGINES.items() if engine.needs_vmd} == {"vroc"}


def test_an_engine_that_states_no_rule_gets_the_bases_defaults():
    assert not any(_PlugIn.strip_must_be_power_of_two(lv) for lv in LEVELS)
    assert [_PlugIn.drive_multiple(lv, 2) for lv in LEVELS] == [1, 1, 1, 1, 2]
    assert not any(_PlugIn.passes_discards(lv) for lv in LEVELS)
    assert _PlugIn.discard_refusal(0, "dpu") == "nvsim does not know whether dpu passes discards to its drives"
    assert _PlugIn.needs_vmd is False


def test_the_catalog_gives_each_entry_its_kinds_class(catalog):
    for name, entry in catalog.engines.items():
        assert catalog.engine_class(name) is ENGINES[entry.engine_kind]


BASE = {"name": "rules", "description": "rules", "platform": "supermicro-as-2125hs-tnr",
        "array": {"level": 6, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "strip_bytes": "64KiB", "engine": "linux-md"},
        "workloads": [{"name": "r", "rw": "randread", "bs": "4k", "iodepth": 32, "numjobs": 8, "runtime": 60}]}


def _scenario_error(catalog, **array):
    data = copy.deepcopy(BASE)
    data["array"].update(array)
    try:
        ScenarioSpec.model_validate(data, context={"catalog": catalog})
    except ValueError as exc:
        return str(exc)
    return None


def test_the_scenarios_validator_asks_the_engine_with_its_messages_word_for_word(catalog):
    assert ("strip_bytes: md takes only a power-of-two chunk for RAID6, got 49152 bytes; "
            "allowed: 4 KiB, 8 KiB, 16 KiB, ... (powers of two)") in _scenario_error(catalog, strip_bytes="48KiB")
    assert _scenario_error(catalog, strip_bytes="48KiB", level=1, drives=2) is None
    assert _scenario_error(catalog, strip_bytes="48KiB", engine="xinnor-xiraid") is None
    card = "microchip-smartraid-4300"
    assert ("drives: RAID10 on engine microchip-smartraid-4300 mirrors sets of 3 drives; "
            "the count must be a multiple of 3, got 7") in _scenario_error(catalog, engine=card, level=10, drives=7,
                                                                            near_copies=3)
    assert _scenario_error(catalog, engine=card, level=10, drives=6, near_copies=3) is None
    assert _scenario_error(catalog, engine="linux-md", level=10, drives=7, near_copies=3) is None


@pytest.mark.parametrize("card", ["broadcom-megaraid-9560-16i", "broadcom-megaraid-9670w-16i",
                                  "lenovo-thinksystem-raid-940-16i"])
def test_a_megaraid_raid10_is_two_drive_mirrors_so_three_copies_are_refused(catalog, card):
    """The MegaRAID user guide: RAID 10 spans RAID 1 drive groups of two drives."""
    error = _scenario_error(catalog, engine=card, level=10, drives=6, near_copies=3)
    assert error is not None and f"near_copies: a RAID10 on {card} mirrors sets of 2 drives" in error
    assert "allowed: 2, got 3" in error
    assert _scenario_error(catalog, engine=card, level=10, drives=6, near_copies=2) is None


@pytest.mark.parametrize("card", ["broadcom-megaraid-9560-16i", "broadcom-megaraid-9670w-16i",
                                  "lenovo-thinksystem-raid-940-16i"])
def test_a_megaraid_virtual_drive_takes_only_the_strips_its_user_guide_lists(catalog, card):
    """MegaRAID Storage Manager: strips of 8 KB to 1024 KB (powers of two); a 2 MiB, 4 KiB or 100 KiB
    strip is a volume the card cannot build, refused in one line naming strip_bytes."""
    for strip, got in (("2MiB", "2.00 MiB"), ("4KiB", "4.00 KiB"), ("100KiB", "100.00 KiB")):
        error = _scenario_error(catalog, engine=card, level=5, strip_bytes=strip)
        assert error is not None and f"strip_bytes: a virtual drive on {card} takes strips of 8 KiB to 1024 KiB" in error
        assert f"allowed: 8 KiB, 16 KiB, 32 KiB, 64 KiB, 128 KiB, 256 KiB, 512 KiB, 1024 KiB, got {got}" in error
    for strip in ("8KiB", "64KiB", "1MiB"):
        assert _scenario_error(catalog, engine=card, level=5, strip_bytes=strip) is None
    # pass-through stripes nothing: its strip is not the card's to refuse
    assert _scenario_error(catalog, engine=card, level=0, strip_bytes="2MiB",
                           engine_settings={"mode": "passthrough"}) is None


def test_a_family_that_lists_no_strips_takes_any(catalog):
    """SmartRAID 43xx: no stored guide lists its strips, so none is refused for it."""
    assert _scenario_error(catalog, engine="microchip-smartraid-4300", level=5, strip_bytes="2MiB") is None


RULE_USERS = ("specs/scenario.py", "topology.py", "workload/trim.py", "plan/space.py")


@pytest.mark.parametrize("module", RULE_USERS)
def test_the_rules_users_ask_the_engine_and_never_branch_on_its_kind(module):
    tree = ast.parse((ROOT / "nvsim" / module).read_text(encoding="utf-8"))
    kinds = set(ENGINES) - {"none"}  # "none" also names the catalog's entry for drives used directly
    found = [f"line {node.lineno}: {node.value!r}" for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and node.value in kinds]
    found += [f"line {node.lineno}: .{node.attr}" for node in ast.walk(tree)
              if isinstance(node, ast.Attribute) and node.attr == "engine_kind"]
    assert found == []


@pytest.mark.parametrize("kind", BUILT_IN)
def test_only_vrocs_imsm_metadata_limits_a_raid1_volume_to_two_drives(kind):
    """mdadm's init_super_imsm_volume: 'imsm does not support more than 2 disks in a raid1 volume';
    md's own RAID1 mirrors any number of drives."""
    expected = {lv: 2 if kind == "vroc" and lv == 1 else None for lv in LEVELS}
    assert {lv: (ENGINES[kind].most_drives_at(lv) or (None,))[0] for lv in LEVELS} == expected
    assert _PlugIn.most_drives_at(1) is None


def test_a_vroc_raid1_of_more_than_two_drives_is_refused_in_the_scenario_and_the_plan(catalog):
    def error(**array):
        data = copy.deepcopy(BASE)
        data["platform"] = "dell-poweredge-r750"  # VROC runs on Intel CPUs
        data["array"].update(drive="intel-d7-p5510-3.84tb", strip_bytes="64KiB", level=1, **array)
        try:
            ScenarioSpec.model_validate(data, context={"catalog": catalog})
        except ValueError as exc:
            return str(exc)
        return None

    refused = error(engine="intel-vroc", drives=4)
    assert refused is not None and "drives: a RAID1 volume on intel-vroc has at most 2 drives" in refused
    assert "allowed: at most 2, got 4" in refused
    assert error(engine="intel-vroc", drives=2) is None
    assert error(engine="linux-md", drives=4) is None
    from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, resolve_axes
    from nvsim.plan.spec import PlanSpec
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "1 TB"}, "objective": "drives",
        "search": {"platforms": ["dell-poweredge-r750"], "drives": ["intel-d7-p5510-3.84tb"], "engines": ["intel-vroc"],
                   "levels": [1], "drive_counts": [2, 4], "strips_bytes": ["64KiB"]}})
    cands = enumerate_candidates(resolve_axes(spec, catalog), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, catalog, verdicts)
    alive = {int(c) for c, ok in zip(cands.count, verdicts.alive()) if ok}
    assert 2 in alive and 4 not in alive
    four = int(np.flatnonzero(cands.count == 4)[0])
    assert verdicts.labels[verdicts.requirement[four]] == "engine's drives at the RAID level"


@pytest.mark.parametrize("card", ["broadcom-megaraid-9560-16i", "broadcom-megaraid-9670w-16i"])
def test_a_megaraid_raid1_is_two_drives_in_the_scenario_and_the_plan(catalog, card):
    """The family's user guide: a RAID 1 drive group is two drives (raid10_copies); a RAID1 of 4 ran
    as a 4-way mirror at RAID WAF 4 and the plan ranked an 8-drive one (a helper's finding)."""
    error = _scenario_error(catalog, engine=card, level=1, drives=4)
    assert error is not None and f"drives: a RAID1 on {card} mirrors 2 drives" in error and "got 4" in error
    assert _scenario_error(catalog, engine=card, level=1, drives=2) is None
    assert _scenario_error(catalog, engine="linux-md", level=1, drives=4) is None  # md mirrors any number
    from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, resolve_axes
    from nvsim.plan.spec import PlanSpec
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "1 TB"}, "objective": "drives",
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": [card],
                   "levels": [1], "drive_counts": [2, 3, 4, 8], "strips_bytes": ["64KiB"]}})
    cands = enumerate_candidates(resolve_axes(spec, catalog), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, catalog, verdicts)
    assert {int(c) for c, ok in zip(cands.count, verdicts.alive()) if ok} == {2}
    four = int(np.flatnonzero(cands.count == 4)[0])
    assert verdicts.labels[verdicts.requirement[four]] == "engine's RAID1 mirror width"


@pytest.mark.parametrize("layout, refused", [("right-symmetric", True), ("left-symmetric", True), ("left-asymmetric", False),
                                             (None, False)])
def test_a_vroc_raid5_is_left_asymmetric_only(catalog, layout, refused):
    """mdadm's super-intel.c (imsm_level_to_layout): an IMSM RAID5 is left-asymmetric. Any layout ran,
    and PPL's writes, placed by IMSM's parity, missed the planner's (a helper's finding)."""
    data = copy.deepcopy(BASE)
    data["platform"] = "dell-poweredge-r750"
    data["array"].update(drive="intel-d7-p5510-3.84tb", strip_bytes="64KiB", level=5, drives=4, engine="intel-vroc",
                         **({"layout": layout} if layout else {}))
    try:
        ScenarioSpec.model_validate(data, context={"catalog": catalog})
        error = None
    except ValueError as exc:
        error = str(exc)
    assert (error is not None and "layout: an IMSM RAID5 (VROC's) is left-asymmetric only" in error) == refused
    data["array"].update(engine="linux-md")
    ScenarioSpec.model_validate(data, context={"catalog": catalog})  # md takes every layout


def test_a_vroc_raid5_that_names_no_layout_is_planned_as_imsm_builds_it(catalog):
    """md's left-symmetric default was planned for a VROC RAID5 naming none, while PPL places its
    writes by IMSM's left-asymmetric parity: the engine's default layout is the planner's."""
    from nvsim.scenario import parse_scenario
    from nvsim.sim.system import ArraySystem

    def layout(engine):
        array = {"level": 5, "drive": "intel-d7-p5510-3.84tb", "drives": 4, "strip_bytes": "64KiB", "engine": engine}
        scenario = parse_scenario({"name": "x", "platform": "dell-poweredge-r750", "array": array,
                                   "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k"}]}, catalog)
        return ArraySystem(scenario, scenario.workloads[0], catalog).model.geometry.layout

    assert layout("intel-vroc") == "left-asymmetric" and layout("linux-md") == "left-symmetric"


def test_a_cards_hot_spares_count_against_its_drive_limit_in_the_plan(catalog):
    """The 940-16i takes 16 drives; 16 members and a spare passed the plan's exact filters and were
    pruned later as 'a valid set-up' (a helper's finding): the filter counts the spares, as the
    scenario's check does."""
    from nvsim.plan.space import Verdicts, enumerate_candidates, exact_filters, resolve_axes
    from nvsim.plan.spec import PlanSpec
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "1 TB"}, "objective": "drives",
        "search": {"platforms": ["asus-rs520a-e12-rs24u"], "drives": ["kioxia-cm7-r-3.84tb"],
                   "engines": ["lenovo-thinksystem-raid-940-16i"], "levels": [5], "drive_counts": [15, 16],
                   "strips_bytes": ["256KiB"], "hot_spares": [0, 1]}})
    cands = enumerate_candidates(resolve_axes(spec, catalog), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, catalog, verdicts)
    alive = {(int(c), int(s)) for c, s, ok in zip(cands.count, cands.spares, verdicts.alive()) if ok}
    assert alive == {(15, 0), (15, 1), (16, 0)}
    over = int(np.flatnonzero((cands.count == 16) & (cands.spares == 1))[0])
    assert verdicts.labels[verdicts.requirement[over]] == "engine's drive limit"
