"""The plan's fast paths give what the slow ones gave: the write factor by table, a rejection by
index, the chunks of a batch, and one fluid run shared by a candidate and its hot-spare twin; a
hot spare on RAID0 is ruled out before any of them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.catalog import default_catalog
from nvsim.errors import InputError
from nvsim.plan import fluid, search
from nvsim.plan.bounds import min_write_factor
from nvsim.plan.fluid import CHUNK, chunk_size, evaluate, evaluate_chunk, spares_apart
from nvsim.plan.space import NEAR_COPIES, Verdicts, enumerate_candidates, exact_filters, resolve_axes
from nvsim.plan.spec import PlanSpec, workload_specs
from nvsim.raid import MIN_DRIVES, full_stripe_write_bytes_per_host_byte
from nvsim.scenario import parse_scenario

CATALOG = default_catalog()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(MIN_DRIVES)), st.integers(1, 40)), min_size=1, max_size=60))
def test_write_factor_by_table_is_the_formula_per_candidate(pairs):
    level, count = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    want = [full_stripe_write_bytes_per_host_byte(lv, n, NEAR_COPIES) if n >= MIN_DRIVES[lv] else np.inf
            for lv, n in pairs]
    assert min_write_factor(level, count).tolist() == want
    assert min_write_factor(level[:0], count[:0]).shape == (0,)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["IOPS", "bytes/s"]), st.floats(allow_nan=True),
                          st.sampled_from(["NAND", "links", "cores"])), max_size=25))
def test_rejecting_one_by_index_is_rejecting_it_by_mask(answers):
    by_mask, by_index = Verdicts.empty(10), Verdicts.empty(10)
    by_mask.reject(np.arange(10) % 3 == 0, 2, "bound", 1.0, 2.0, "floor")  # an earlier stage's prunes
    by_index.reject(np.arange(10) % 3 == 0, 2, "bound", 1.0, 2.0, "floor")
    for i, label, achieved, resource in answers:
        mask = np.zeros(10, bool)
        mask[i] = True
        index = by_mask.index_of(by_mask.resources, resource)  # the order the fluid stage asked for it in
        pruned = by_mask.reject(mask, 3, label, achieved, 5.0, np.full(10, index, np.int32))
        assert by_index.reject_one(i, 3, label, achieved, 5.0, resource) == pruned
    for name in ("stage", "requirement", "achieved", "target", "resource"):
        np.testing.assert_array_equal(getattr(by_index, name), getattr(by_mask, name))
    assert (by_index.labels, by_index.resources) == (by_mask.labels, by_mask.resources)


@given(st.integers(1, 5000))
def test_a_batch_is_cut_into_even_chunks_of_at_most_chunk(tasks):
    size = chunk_size(tasks)
    assert size % 2 == 0 and 2 <= size <= CHUNK
    assert -(-tasks // size) <= max(8, -(-tasks // CHUNK))  # about eight chunks, more only at CHUNK


def _tasks() -> list[dict]:
    """The fluid-stage tasks of a small plan whose candidates come in hot-spare twins."""
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "10 TB", "workloads": [
            {"name": "rr", "profile": "randread-4k", "min_iops": "100K"},
            {"name": "mix", "profile": "randrw-8k-70", "numjobs": 16, "min_iops": "10K"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                   "drive_counts": [6, 8], "levels": [5], "strips_bytes": ["64KiB"], "overprovisioning": [0.0, 0.1],
                   "hot_spares": [0, 1]},
        "objective": "drives"})
    cands = enumerate_candidates(resolve_axes(spec, CATALOG), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, CATALOG, verdicts)
    idx = np.flatnonzero(verdicts.alive())
    tasks = search._tasks(spec, cands, idx, workload_specs(spec, Path("."), CATALOG))
    return [tasks[i] for i in idx.tolist()]


def test_hot_spare_twins_share_their_fluid_runs_and_answer_as_alone(monkeypatch):
    tasks = _tasks()
    twins = {spares_apart(t["scenario"]) for t in tasks}
    assert len(tasks) == 8 and len(twins) == 4  # 2 counts x 2 shares, each with and without a spare
    alone = [evaluate(t) for t in tasks]
    real, solved = fluid.Simulation, []

    def counting(*args, **kwargs):
        solved.append(args[1])
        return real(*args, **kwargs)
    monkeypatch.setattr(fluid, "Simulation", counting)
    together = evaluate_chunk(tasks)
    assert repr(together) == repr(alone)  # every figure, to the bit
    assert 0 < len(solved) <= 2 * len(twins)  # one run per twin pair and workload


def test_a_hot_spare_on_raid0_is_ruled_out_by_the_exact_filters_and_refused_by_the_scenario():
    """A spare is rebuilt onto from the members' redundancy: RAID0 has none, so a RAID0 candidate
    with a spare would be bought and powered for nothing (and the scenario refuses it)."""
    spec = PlanSpec.model_validate({
        "requirements": {"usable_bytes": "10 TB", "workloads": [{"name": "rr", "profile": "randread-4k", "min_iops": "100K"}]},
        "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb"], "engines": ["linux-md"],
                   "drive_counts": [6, 8], "levels": [0, 5], "strips_bytes": ["64KiB"], "hot_spares": [0, 1]},
        "objective": "drives"})
    cands = enumerate_candidates(resolve_axes(spec, CATALOG), spec.max_candidates)
    verdicts = Verdicts.empty(len(cands))
    exact_filters(spec, cands, CATALOG, verdicts)
    spared_raid0 = (cands.level == 0) & (cands.spares > 0)
    assert spared_raid0.any() and not (verdicts.alive() & spared_raid0).any()
    assert {verdicts.labels[r] for r in verdicts.requirement[spared_raid0]} == {"a hot spare needs redundancy to be rebuilt onto"}
    assert (verdicts.alive() & (cands.level == 5) & (cands.spares > 0)).any()
    row = cands.row(int(np.flatnonzero(spared_raid0)[0]))
    data = {"name": "r0", "platform": row["platform"], "seed": 1,
            "array": {k: row[k] for k in ("level", "drive", "drives", "strip_bytes", "engine", "hot_spares")}}
    with pytest.raises(InputError, match=r"array: hot_spares: a spare is rebuilt onto .* RAID0 on linux-md has none"):
        parse_scenario(data, CATALOG)
