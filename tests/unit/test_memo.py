"""The memo's bounds (``nvsim.sim.memo``): a table starts afresh past its entries, and a weighed
table (the per-batch plans, distinct sizes and engine costs) past ``HELD_MEMBER_IOS`` member I/Os,
so a long event-mode run's memory stays flat (every batch's plan was kept: 1.88 GB at the peak of an
8-second run); a value is the same whether or not it was remembered."""

from __future__ import annotations

import numpy as np

from nvsim.sim import memo as memo_module
from nvsim.sim.memo import Memo


def test_a_weighed_table_starts_afresh_past_its_member_ios(monkeypatch):
    monkeypatch.setattr(memo_module, "HELD_MEMBER_IOS", 1000)
    memo = Memo()
    for key in range(3):  # 3 x 400 member I/Os: the third passes 1,000, so the table starts afresh with it
        memo.recall(memo.plans, key, np.zeros, 400, weigh=len)
    assert list(memo.plans) == [2] and memo.held[id(memo.plans)] == 400
    again = memo.recall(memo.plans, 2, np.ones, 400, weigh=len)  # a hit: not made again, not weighed again
    assert not again.any() and memo.held[id(memo.plans)] == 400


def test_an_unweighed_table_keeps_its_entry_bound_only(monkeypatch):
    monkeypatch.setattr(memo_module, "HELD_MEMBER_IOS", 10)
    memo = Memo()
    for key in range(50):
        memo.recall(memo.geometries, key, np.zeros, 400)
    assert len(memo.geometries) == 50 and id(memo.geometries) not in memo.held


def test_clear_forgets_the_weights_too():
    memo = Memo()
    memo.recall(memo.plans, 0, np.zeros, 10, weigh=len)
    memo.clear()
    assert not memo.plans and not memo.held
