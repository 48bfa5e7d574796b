"""`nvsim plan` end to end: a small plan through the CLI, its files, its scenarios run by
`nvsim run`, the same bits for the same seed, and one-line refusals (exit 2) before any work."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

import nvsim.plan.output
from nvsim.catalog import DEFAULT_CATALOG_DIR
from nvsim.cli import main
from nvsim.errors import EXIT_INPUT_ERROR
from nvsim.plan import run_plan

PLAN = {
    "requirements": {
        "usable_bytes": "40 TB",
        "workloads": [{"name": "rr", "profile": "randread-4k", "numjobs": 16, "iodepth": 16, "min_iops": "1M",
                       "max_latency_us": {"p99": 5000}}],
        "max_data_loss_probability": 0.01,
    },
    "search": {"platforms": ["supermicro-as-2125hs-tnr"], "drives": ["kioxia-cm7-r-3.84tb", "kioxia-cm7-r-7.68tb"],
               "engines": ["linux-md", "graid-supremeraid-sr1010"], "drive_counts": [4, 8, 12], "levels": [0, 5, 6],
               "strips_bytes": ["64KiB"]},
    "objective": "usd_per_usable_tb", "top": 3, "confirm": 1, "event_host_ios": 2000, "seed": 7,
}


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> Path:
    here = tmp_path_factory.mktemp("plan")
    (here / "plan.yaml").write_text(yaml.safe_dump(PLAN))
    code, out, err = _cli(["plan", str(here / "plan.yaml"), "-o", str(here / "out"), "--workers", "1"])
    assert code == 0, err
    return here


def test_a_small_plan_writes_every_file_and_accounts_for_every_candidate(planned: Path):
    out = planned / "out"
    answer = json.loads((out / "plan.json").read_text())
    assert answer["candidates"] == 2 * 2 * 3 * 3
    assert sum(answer["pruned"].values()) + answer["ranked_count"] == answer["candidates"]
    assert answer["pruned"]["filters"] > 0 and answer["ranked_count"] >= 1
    first = answer["ranked"][0]
    assert first["rank"] == 1 and first["event"] == "confirmed" and first["level"] in (5, 6)
    assert first["margins"]["rr IOPS"] >= 0 and first["margins"]["usable_bytes"] >= 0
    assert first["event_workloads"]["rr"]["latency_us"]["p99"] <= 5000
    ranked_costs = [r["usd_per_usable_tb"] for r in answer["ranked"]]
    assert ranked_costs == sorted(ranked_costs)
    families = {(f["engine"], f["level"], f["drive"]): f for f in answer["rejected_families"]}
    raid0 = families[("linux-md", 0, "kioxia-cm7-r-3.84tb")]
    assert raid0["requirement"] == "P(data loss)" and "over" in raid0["reason"]
    assert (out / "ranking.csv").read_text().startswith("rank,platform,drive,drives,level")
    assert (out / "rejected.csv").exists() and (out / "scenarios" / "rank-01.yaml").exists()


def test_each_top_candidate_is_a_scenario_nvsim_run_accepts(planned: Path):
    answer = json.loads((planned / "out" / "plan.json").read_text())
    target = planned / "run.json"
    code, _, err = _cli(["run", str(planned / "out" / "scenarios" / "rank-01.yaml"), "--fidelity", "fluid", "-o", str(target)])
    assert code == 0, err
    run = json.loads(target.read_text())
    assert run["capacity"]["usable_bytes"] == answer["ranked"][0]["usable_bytes"]
    assert run["predictions"]["rr"]["read_iops"] == pytest.approx(answer["ranked"][0]["workloads"]["rr"]["iops"], rel=1e-9)


def test_the_same_requirements_and_seed_give_the_same_bits(planned: Path):
    code, _, err = _cli(["plan", str(planned / "plan.yaml"), "-o", str(planned / "again"), "--workers", "2"])
    assert code == 0, err
    for name in ("plan.json", "ranking.csv", "rejected.csv", "scenarios/rank-01.yaml"):
        assert (planned / "again" / name).read_bytes() == (planned / "out" / name).read_bytes(), name


@pytest.mark.parametrize("change, pattern", [
    ({"requirements": {"usable_bytes": -5}}, r"requirements\.usable_bytes"),
    ({"objective": "cheapest"}, r"objective"),
    ({"search": {"drives": ["nope-drive"]}}, r"search\.drives: unknown drive 'nope-drive'"),
    ({"requirements": {"usable_bytes": "1 TB", "max_rack_units": 2}}, r"search\.rack_units: .*supermicro-as-2125hs-tnr"),
    ({"requirements": {"usable_bytes": "1 TB", "workloads": [{"name": "x", "profile": "randread-4k"}]}}, r"give a target"),
])
def test_bad_plans_are_one_line_and_exit_2(tmp_path: Path, change: dict, pattern: str):
    plan = {**PLAN, **{k: ({**PLAN[k], **v} if isinstance(v, dict) else v) for k, v in change.items()}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(plan))
    code, out, err = _cli(["plan", str(tmp_path / "p.yaml"), "-o", str(tmp_path / "out")])
    assert code == EXIT_INPUT_ERROR and out == "" and len(err.strip().splitlines()) == 1, err
    assert re.search(pattern, err), err
    assert not (tmp_path / "out").exists()


def test_a_cost_objective_over_an_unpriced_drive_is_one_line_and_exit_2(tmp_path: Path, monkeypatch):
    """Every shipped drive is priced (tests/unit/test_catalog_prices.py): a catalog with one drive's
    price taken out (NVSIM_CATALOG) shows the line a cost plan over it gets."""
    models = tmp_path / "models"
    shutil.copytree(DEFAULT_CATALOG_DIR, models)
    drive = models / "drives" / "intel-d7-p5500-7.68tb.yaml"
    drive.write_text("".join(line for line in drive.read_text().splitlines(keepends=True) if not line.startswith("price_")))
    monkeypatch.setenv("NVSIM_CATALOG", str(models))
    plan = {**PLAN, "search": {**PLAN["search"], "drives": ["intel-d7-p5500-7.68tb"]}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(plan))
    code, out, err = _cli(["plan", str(tmp_path / "p.yaml"), "-o", str(tmp_path / "out")])
    assert code == EXIT_INPUT_ERROR and out == "" and len(err.strip().splitlines()) == 1, err
    assert re.search(r"search\.drives: .*price_usd.*intel-d7-p5500-7\.68tb", err), err


def _unconfirmed(plan: dict) -> dict:
    """``plan`` with no event stage (``confirm: 0``) and so no latency target, which only that stage checks."""
    workloads = [{k: v for k, v in w.items() if k != "max_latency_us"} for w in plan["requirements"]["workloads"]]
    return {**plan, "confirm": 0, "requirements": {**plan["requirements"], "workloads": workloads}}


def test_without_plotly_the_plan_says_so_in_one_line_and_writes_the_rest(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(nvsim.plan.output, "has_plotly", lambda: False)
    small = _unconfirmed({**PLAN, "requirements": {k: v for k, v in PLAN["requirements"].items() if k != "max_data_loss_probability"}})
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(small))
    code, out, err = _cli(["plan", str(tmp_path / "p.yaml"), "-o", str(tmp_path / "out"), "--workers", "1"])
    assert code == 0, err
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == ["note: plotly is not installed (pip install 'nvsim[dashboard]'): pareto.html not written"]
    assert not (tmp_path / "out" / "pareto.html").exists()
    assert (tmp_path / "out" / "plan.json").exists() and (tmp_path / "out" / "scenarios" / "rank-01.yaml").exists()


def test_a_plan_on_a_dask_cluster_gives_the_same_answer(tmp_path: Path):
    distributed = pytest.importorskip("distributed")
    small = _unconfirmed({**PLAN, "exhaustive": True})
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(small))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        on_dask = run_plan(tmp_path / "p.yaml", dask_address=cluster.scheduler_address)
    local = run_plan(tmp_path / "p.yaml", workers=1)
    assert json.dumps(on_dask.as_dict(), sort_keys=True, default=float) == json.dumps(local.as_dict(), sort_keys=True, default=float)
    assert on_dask.pruned["ranking"] == 0 and len(on_dask.ranked) > 0


def test_the_ranking_lists_distinct_set_ups_and_keeps_every_candidate(tmp_path: Path):
    """Strips and spares do not fill the top: one row per drive, count, level, engine and server,
    led by its best candidate; every feasible candidate stays in plan.json and candidates.csv."""
    wide = {**PLAN, "confirm": 1, "top": 3, "exhaustive": True,
            "search": {**PLAN["search"], "drives": ["kioxia-cm7-r-7.68tb"], "levels": [5, 6],
                       "strips_bytes": ["64KiB", "512KiB"], "hot_spares": [0, 1]}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(wide))
    code, out, err = _cli(["plan", str(tmp_path / "p.yaml"), "-o", str(tmp_path / "out"), "--workers", "1"])
    assert code == 0, err
    answer = json.loads((tmp_path / "out" / "plan.json").read_text())
    key = ("drive", "drives", "level", "engine", "platform")
    set_ups = [tuple(r[k] for k in key) for r in answer["ranked"]]
    everyone = answer["every_candidate"]
    assert len(set(set_ups)) == len(set_ups) == answer["set_ups_ranked"] >= 3
    assert len(everyone) == answer["ranked_count"] > len(set_ups)  # strips and spares were feasible too
    assert sum(answer["pruned"].values()) + answer["ranked_count"] == answer["candidates"]
    for rank, row in enumerate(answer["ranked"], start=1):
        members = [c for c in everyone if tuple(c[k] for k in key) == set_ups[rank - 1]]
        assert row["rank"] == rank and {c["set_up_rank"] for c in members} == {rank}
        assert row["objective"] == min(c["objective"] for c in members) and row["variants"]["candidates"] == len(members)
        assert row["variants"]["strips_bytes"] == sorted({c["strip_bytes"] for c in members})
    assert [r["objective"] for r in answer["ranked"]] == sorted(r["objective"] for r in answer["ranked"])
    assert answer["ranked"][0]["event"] == "confirmed"
    ranking_csv = (tmp_path / "out" / "ranking.csv").read_text().splitlines()
    assert len(ranking_csv) == 1 + len(set_ups) and "variants.strips_bytes" in ranking_csv[0] and "65536 524288" in ranking_csv[1]
    candidates_csv = (tmp_path / "out" / "candidates.csv").read_text().splitlines()
    assert len(candidates_csv) == 1 + len(everyone) and "set_up_rank" in candidates_csv[0]
    assert f"{len(everyone)} ranked, {len(set_ups)} distinct set-ups" in " ".join(out.split())

def test_a_plan_that_ranks_nothing_exits_1_with_its_files_written(tmp_path: Path):
    """Nothing meets the requirements: the files say why each family failed, the exit status says
    nothing was found (1, not 0), in one line on stderr."""
    impossible = _unconfirmed({**PLAN, "requirements": {**PLAN["requirements"], "usable_bytes": "10 PB"}})
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(impossible))
    code, out, err = _cli(["plan", str(tmp_path / "p.yaml"), "-o", str(tmp_path / "out"), "--workers", "1"])
    assert code == 1 and err.count("\n") == 1 and err.startswith("error: no set-up meets the requirements of ")
    assert json.loads((tmp_path / "out" / "plan.json").read_text())["ranked_count"] == 0
    assert (tmp_path / "out" / "rejected.csv").exists() and "Rejected families" in out
