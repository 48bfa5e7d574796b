"""The ranking's distinct set-ups (nvsim.plan.answer): one row per drive, count, level, engine and
server, led by its best candidate, and the objective the best-first search stops at."""

from __future__ import annotations

from nvsim.plan.answer import distinct_set_ups, nth_set_up_objective


def _row(drives: int, strip_kib: int, spares: int = 0, level: int = 6, op: float = 0.0) -> dict:
    return {"platform": "s", "drive": "d", "drives": drives, "level": level, "engine": "e",
            "strip_bytes": strip_kib * 1024, "hot_spares": spares, "overprovisioning": op}


# best first, as the ranking holds them: three strips and a spare of one set-up lead
RANKED = [_row(16, 64), _row(16, 128), _row(16, 512), _row(16, 64, spares=1), _row(14, 64), _row(14, 512, op=0.1),
          _row(16, 64, level=5), _row(18, 64)]
VALUES = [271.0, 271.0, 271.0, 286.0, 281.0, 290.0, 295.0, 300.0]


def test_one_row_per_set_up_led_by_its_best_candidate():
    rows = distinct_set_ups(RANKED)
    assert [(r["drives"], r["level"]) for r in rows] == [(16, 6), (14, 6), (16, 5), (18, 6)]
    first = rows[0]
    assert first["strip_bytes"] == 64 * 1024 and first["hot_spares"] == 0
    assert first["variants"] == {"candidates": 4, "strips_bytes": [65536, 131072, 524288], "hot_spares": [0, 1],
                                 "overprovisioning": [0.0]}
    assert rows[1]["variants"]["overprovisioning"] == [0.0, 0.1] and rows[3]["variants"]["candidates"] == 1
    assert "variants" not in RANKED[0]  # the candidates themselves are left as they were


def test_the_search_stops_at_the_nth_distinct_set_up_not_the_nth_candidate():
    assert nth_set_up_objective(RANKED, VALUES, 1) == 271.0
    assert nth_set_up_objective(RANKED, VALUES, 2) == 281.0  # the 2nd candidate (128K) is the same set-up
    assert nth_set_up_objective(RANKED, VALUES, 3) == 295.0
    assert nth_set_up_objective(RANKED, VALUES, 4) == 300.0
    assert nth_set_up_objective(RANKED, VALUES, 5) is None
