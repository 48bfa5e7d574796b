"""A batch planned by place is priced by place (nvsim.sim.demand._work_by_place): every engine that
``costs_each_host_io_alone`` gives each host I/O the same costs, to the bit, whether its batch is
priced as a whole or gathered from the costs of its places in the layout's period; an engine that
adds member I/Os of its own (VROC's partial parity log) is priced as a whole."""

from dataclasses import fields

import numpy as np
import pytest

from nvsim.catalog import default_catalog
from nvsim.scenario import load_scenario
from nvsim.sim.demand import _planned_by_place, _work_by_place, host_io_batch
from nvsim.sim.memo import Memo
from nvsim.sim.model import build
from nvsim.specs import WorkloadSpec
from nvsim.stripe.positions import LEVELS

ROOT = __import__("pathlib").Path(__file__).resolve().parents[3] / "scenarios"
ARRAYS = {  # one shipped array for each kind of engine, and a strip small enough that its layout's
    # period holds at most 1,024 host I/Os of 4 KiB (``plans_by_position``): every batch planned by place
    "gpu": ("graid-gen5-raid6/scenario.yaml", 4096),
    "md-raid6": ("graid-gen5-raid6/md-raid6-4k.yaml", 4096),
    "md-raid5": ("graid-gen5-raid5-16x/md-raid5.yaml", 16384),
    "card": ("hardware-cards/smartraid-4300-raid5.yaml", 16384),
    "lockless": ("xiraid-qlc-raid5/scenario.yaml", 65536),
    "vroc-ppl": ("vroc-example/scenario.yaml", 65536),
    "ideal": ("host-io-paths/scenario.yaml", 131072),
}


def _model(name, bs, failed, memo):
    catalog = default_catalog()
    path, strip_bytes = ARRAYS[name]
    spec = load_scenario(ROOT / path, catalog)
    spec = spec.model_copy(update={"array": spec.array.model_copy(update={"strip_bytes": strip_bytes})})
    workload = WorkloadSpec(name="mix", rw="randrw", rwmixread=50, bs=bs, iodepth=8, numjobs=4)
    return build(spec, workload, catalog, failed_members=failed, memo=memo)


def _batch(model, seed, n=600):
    rng = np.random.default_rng(seed)
    bs = model.workload.bs
    align = bs if seed % 2 else 4096  # aligned to the size, and to 4 KiB only
    slots = (model.geometry.capacity_bytes - bs) // align
    offsets = rng.integers(0, slots, n).astype(np.int64) * align
    return offsets, rng.random(n) < 0.5


def _arrays(batch):
    return {f.name: getattr(batch, f.name) for f in fields(batch)
            if isinstance(getattr(batch, f.name), np.ndarray)}


@pytest.mark.parametrize("name", sorted(ARRAYS))
@pytest.mark.parametrize("bs", [4096, 16384])
@pytest.mark.parametrize("failed", [(), (1,)])
def test_a_batch_costs_the_same_priced_by_place_or_as_a_whole(name, bs, failed, monkeypatch):
    model = _model(name, bs, failed, Memo())
    assert model.geometry.level in LEVELS
    engine_class = type(model.engine)
    assert engine_class.costs_each_host_io_alone
    for seed in range(4):
        offsets, is_write = _batch(model, seed)
        assert _planned_by_place(model, is_write)
        by_place = host_io_batch(model, 0, offsets, is_write, memo=Memo())
        monkeypatch.setattr(engine_class, "costs_each_host_io_alone", False)
        whole = host_io_batch(model, 0, offsets, is_write, memo=Memo())
        monkeypatch.undo()
        a, b = _arrays(by_place), _arrays(whole)
        assert a.keys() == b.keys()
        for field in a:
            assert a[field].dtype == b[field].dtype and a[field].tobytes() == b[field].tobytes(), (name, field)


def test_the_place_path_is_taken_and_declines_where_the_engine_adds_member_ios():
    for name, expect in (("md-raid6", True), ("gpu", True), ("vroc-ppl", False)):
        memo = Memo()
        model = _model(name, 4096, (), memo)
        offsets, is_write = _batch(model, 1)
        batch = host_io_batch(model, 0, offsets, is_write, memo=memo)  # files the batch's places
        plan_view = type("Plan", (), {f: batch.op_drive for f in ("host_index", "member", "length_bytes",
                                                                   "is_write", "phase")})
        work = _work_by_place(model, plan_view, is_write, offsets, memo)
        assert (work is not None) is expect, name


def test_a_place_not_filed_prices_the_batch_as_a_whole():
    memo = Memo()
    model = _model("md-raid6", 4096, (), memo)
    offsets, is_write = _batch(model, 1)
    host_io_batch(model, 0, offsets[:10], is_write[:10], memo=memo)  # files only the first ten places
    assert _work_by_place(model, None, is_write, offsets, memo) is None
