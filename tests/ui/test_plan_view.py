"""The dashboard's Plan view without a browser: requirements text in, the ranked table, the
rejected families and the Pareto figure out; bad requirements are one line; the view is on the
page with its callback."""

from __future__ import annotations

import yaml

from dashboard import plan_view
from dashboard.app import create_app

SMALL = yaml.safe_load(plan_view.EXAMPLE)
SMALL["search"].update({"drive_counts": [8, 12], "levels": [0, 6], "drives": ["kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"],
                        "engines": ["linux-md", "graid-supremeraid-sr1010"]})
SMALL["requirements"]["usable_bytes"] = "20 TB"
SMALL["requirements"]["workloads"][0].update(min_iops="500k", numjobs=16, iodepth=8)
SMALL.update(confirm=0)


def test_a_plan_in_the_view_gives_its_ranking_families_and_front():
    status, ranked, figure, families = plan_view.on_plan(yaml.safe_dump(SMALL))
    assert status.startswith("16 candidates:") and "ranked" in status
    rows = ranked.children[1].children
    assert len(rows) >= 1 and rows[0].children[0].children == "1"
    assert "graid-supremeraid-sr1010" in rows[0].children[1].children
    assert {t.name for t in figure.data} == {"ranked", "Pareto front"} and len(figure.data[1].x) >= 1
    why = {r.children[0].children: r.children[2].children for r in families.children[1].children}
    assert "over" in why["linux-md RAID0 kioxia-cm7-r-3.84tb"]  # RAID0 cannot meet P(data loss)


def test_bad_requirements_are_one_line_naming_the_field():
    status, ranked, _, families = plan_view.on_plan("requirements: {usable_bytes: -1}\n")
    assert status.startswith("error: requirements") and "usable_bytes" in status and "\n" not in status
    assert ranked is None and families is None
    assert plan_view.on_plan("x" * (plan_view.MAX_TEXT_CHARS + 1))[0].startswith("error: requirements:")


def test_the_view_is_on_the_page_with_its_callback(catalog):
    app = create_app(catalog, warm=False)
    ids = set()

    def walk(node):
        ids.add(getattr(node, "id", None))
        children = getattr(node, "children", None) or []
        for child in children if isinstance(children, (list, tuple)) else [children]:
            if not isinstance(child, str):
                walk(child)
    walk(app.layout)
    assert {"plan-view", "plan-text", "plan-run", "plan-ranked", "plan-pareto", "plan-families"} <= ids
    assert any("plan-ranked.children" in key for key in app.callback_map)
    app.nvsim_runner.shutdown()
