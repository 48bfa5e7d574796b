"""The public API: `import nvsim` gives what docs/api.md lists, its worked example runs, one
orchestrator routes every set-up, and a catalog takes other values without threading overrides."""

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nvsim
from nvsim.bounds import drive_link
from nvsim.simulation import ArrayState, predict_workload, route
from nvsim.ssd import drive_workload_limit, predict_drive_workload
from nvsim.wear import drive_wear, lifetime_years, member_write_bytes_per_s

ROOT = Path(__file__).resolve().parents[2]
API_PAGE = ROOT / "docs" / "api.md"
G6 = ROOT / "scenarios" / "graid-gen5-raid6"
MYSQL = ROOT / "scenarios" / "graid-mysql-oltp"
KIOXIA = ROOT / "scenarios" / "kioxia-cm7-namespace" / "cm7r-7.68-ns6.4.yaml"


def documented_names() -> set[str]:
    """The names of the page's table of public names (first column, in backticks)."""
    table = API_PAGE.read_text().split("## The public names", 1)[1]
    return set(re.findall(r"^\| `([A-Za-z_][A-Za-z0-9_]*)` \|", table, re.M))


def test_all_matches_the_api_page():
    assert set(nvsim.__all__) == documented_names()
    assert len(nvsim.__all__) == len(set(nvsim.__all__))
    for name in nvsim.__all__:
        assert getattr(nvsim, name) is not None, name


def test_the_worked_example_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", API_PAGE.read_text(), re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    exec(compile("\n".join(blocks), str(API_PAGE), "exec"), namespace)  # one session, as a reader would type it
    printed = capsys.readouterr().out
    assert "IOPS, limited by GPU" in printed and "transactions/s while rebuilding" in printed
    assert "rebuilding" in printed and "drive 3 rebuilt in" in printed
    assert namespace["what_if"].write_iops < namespace["sim"].run("fluid").total_iops


def test_import_nvsim_and_cli_help_do_not_load_the_simulator():
    code = ("import sys, nvsim; assert 'numba' not in sys.modules and 'nvsim.sim' not in sys.modules; "
            "from nvsim import ftl; import nvsim.cli; assert 'nvsim.simulation' not in sys.modules")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_one_route_table(catalog):
    optimal = nvsim.load_scenario(G6, catalog)
    assert route(optimal, optimal.workloads[0]) == "array"
    assert route(nvsim.load_scenario(KIOXIA, catalog), None) == "state"  # an idle array: the rebuild alone
    drive = nvsim.load_scenario(KIOXIA, catalog)
    assert route(drive, drive.workloads[0]) == "drive"
    oltp = nvsim.load_scenario(MYSQL / "sr-raid6.yaml", catalog)
    assert route(oltp, oltp.workloads[0]) == "state"
    rebuilding = nvsim.load_scenario(MYSQL / "sr-raid6-rebuilding.yaml", catalog)
    assert ArrayState.at_start(rebuilding) == ArrayState((0,), 0)
    assert route(optimal, optimal.workloads[0], ArrayState()) == "state"  # a pinned state (the timeline's)


def test_workload_by_name_and_bad_inputs_are_one_line_errors(catalog):
    sim = nvsim.Simulation(G6, "read-b1m-j192-d16", catalog=catalog)
    assert sim.workload.name == "read-b1m-j192-d16" and sim.scenario.name == "graid-gen5-raid6-sr1010"
    with pytest.raises(nvsim.InputError, match="no workload 'randread-4k'.*it has: randread-b4k-j192-d32"):
        nvsim.Simulation(G6, "randread-4k", catalog=catalog)
    with pytest.raises(nvsim.InputError, match="unknown fidelity 'slow'"):
        sim.run("slow")


def test_a_single_drive_gives_the_same_result_type_and_the_drive_models_metrics(catalog):
    spec = nvsim.load_scenario(KIOXIA, catalog)
    workload = spec.workloads[0]
    result = nvsim.Simulation(spec, workload, catalog=catalog).run("event")
    assert isinstance(result, nvsim.Result) and result.route == "drive" and result.fidelity == "drive model"
    drive = catalog.drives[spec.array.drive]
    link = drive_link(drive, catalog.platforms[spec.platform], catalog)
    expected = dict(predict_drive_workload(drive, spec.array.namespace_bytes, workload, link))
    expected["limited_by"] = drive_workload_limit(drive, spec.array.namespace_bytes, workload, link)
    assert repr(result.metrics()) == repr(expected)  # repr: NaN (a read-only job's WAF) equals itself
    assert result.total_iops == expected["total_iops"] and result.cpu_percent is None and result.utilisation == ()


def test_an_oltp_database_on_one_drive_runs_its_users_not_a_fio_job(catalog):
    """One drive used directly (engine none) under rw: oltp: its users' transactions, as on an array
    (it was answered by the drive model as a QD1 4 KiB 50/50 fio job: 9.5K IOPS at any user count,
    no TPS)."""
    spec = nvsim.load_scenario(KIOXIA, catalog)
    oltp = nvsim.WorkloadSpec(name="db", rw="oltp", users=64,
                              oltp={"dataset_bytes": 100 * 10**9, "buffer_pool_bytes": 25 * 10**9})
    assert route(spec, oltp) == "state"
    result = nvsim.Simulation(spec, oltp, catalog=catalog).run("fluid")
    tps = result.transactions_per_s
    assert tps and tps > 0
    assert result.read_iops / tps == pytest.approx(22 * (1 - 0.25))  # 22 leaf pages, a 25% buffer pool hits
    assert 64 / tps == pytest.approx(result.simulation.transaction_latency_us["mean"] * 1e-6, rel=1e-6)  # Little's law


def test_an_oltp_state_under_faults_is_compared_with_the_optimal_array(catalog):
    spec = nvsim.load_scenario(MYSQL / "sr-raid6-rebuilding.yaml", catalog)
    workload = spec.workloads[0]
    values = predict_workload(spec, workload, catalog, "fluid")
    state = nvsim.Simulation(spec, workload, catalog=catalog).run("fluid")
    assert values["transactions_per_s"] == state.transactions_per_s and state.rebuild_bytes_per_s > 0
    assert values["tps_ratio"] == values["transactions_per_s"] / values["transactions_per_s_optimal"]
    assert "tps_ratio" not in state.metrics()  # the state's own metrics, as `nvsim run` prints them


def test_catalog_with_values_is_a_new_validated_frozen_catalog(catalog):
    key = "engines/linux-md/barrier_lock_us"
    changed = catalog.with_values({key: 2.0, "host_io/libaio/submit_us": 2.0})
    before = catalog.engines["linux-md"].parameters["barrier_lock_us"]
    after = changed.engines["linux-md"].parameters["barrier_lock_us"]
    assert after.value == 2.0 and (after.source, after.basis, after.note) == (before.source, before.basis, before.note)
    assert changed.host_io["libaio"].submit_us.value == 2.0
    assert catalog.engines["linux-md"].parameters["barrier_lock_us"] is before  # the original is untouched
    assert changed.drives["kioxia-cm7-r-3.84tb"] is catalog.drives["kioxia-cm7-r-3.84tb"]  # unchanged: shared
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.drives = {}
    with pytest.raises(nvsim.InputError, match="did you mean 'barrier_lock_us'"):
        catalog.with_values({"engines/linux-md/device_lok_us": 1.0})
    with pytest.raises(nvsim.InputError, match="section/entry/field"):
        catalog.with_values({"linux-md/barrier_lock_us": 1.0})
    md = nvsim.load_scenario(G6 / "md-raid10-512k.yaml", catalog)  # random reads wait at raid10's barrier lock
    slower = nvsim.Simulation(md, "randread-b4k-j192-d32", catalog=changed).run("fluid")
    assert slower.total_iops < nvsim.Simulation(md, "randread-b4k-j192-d32", catalog=catalog).run("fluid").total_iops


def test_wear_model(catalog):
    assert member_write_bytes_per_s(2.4e9, 3.0, 24) == pytest.approx(3e8)
    assert member_write_bytes_per_s(0.0, None, 24) == 0.0
    assert lifetime_years(1.0, 5.0, 0.0) is None and lifetime_years(1.0, 5.0, 0.5) == 10.0
    wear = drive_wear(catalog, "kioxia-cm7-r-3.84tb", 24, 2.4e9, 3.0, 2.0)
    assert wear["lifetime_years"] == pytest.approx(1.0 * 5.0 / wear["effective_dwpd"])


def test_a_state_that_has_lost_data_serves_no_io():
    """Issue 24: two drives failed at t = 0 on RAID5 lose data -- the API reports that for the
    workload (no I/O, DATA LOSS named), not a degraded state's rates; one failed drive still runs."""
    spec = nvsim.load_scenario(ROOT / "scenarios" / "xiraid-qlc-raid5")
    faults = [{"at_s": 0, "drive": 0, "action": "fail"}, {"at_s": 0, "drive": 1, "action": "fail"}]
    lost = nvsim.parse_scenario({**spec.model_dump(mode="json"), "faults": faults})
    result = nvsim.Simulation(lost, lost.workloads[0]).run("fluid")
    assert result.total_iops == 0.0 and result.metrics()["limited_by"].startswith("DATA LOSS: 2 members down, RAID5")
    one = nvsim.parse_scenario({**spec.model_dump(mode="json"), "faults": faults[:1]})
    assert nvsim.Simulation(one, one.workloads[0]).run("fluid").total_iops > 0


def test_workloads_run_in_forked_workers_give_what_one_process_gives(catalog, monkeypatch):
    """``run_workloads`` with workers: each workload has its own seeded streams, so the pool's
    results (latency percentiles included) are this process's, in the scenario's order."""
    from nvsim import numba_cache
    from nvsim.simulation import run_workloads
    from nvsim.workers import start_method

    spec = nvsim.load_scenario(ROOT / "scenarios" / "latency-tails", catalog)
    window = nvsim.Precision(relative=0.1, max_wall_s=0.0)
    here = run_workloads(spec, catalog, "event", window, workers=1)
    monkeypatch.setattr(numba_cache, "compiled_in_cache", lambda dispatcher: True)  # the pool even on an empty cache
    done = []
    pooled = run_workloads(spec, catalog, "event", window, workers=2,
                           progress=lambda name: (lambda d, t: done.append(name)))
    assert list(pooled) == list(here) == [w.name for w in spec.workloads]
    for name in here:
        assert pooled[name].metrics() == here[name].metrics(), name
    if start_method() == "fork":  # the pool ran them: each reported once, when done
        assert sorted(done) == sorted(here)


def test_workers_beyond_the_cpus_start_one_process_per_cpu(catalog, monkeypatch):
    """``nvsim run --workers 512`` started min(workers, workloads) processes: 16 workloads with
    --workers 16 held 1.44 GB (the processes' PSS summed, 0.2 s windows), 256 would hold about 20 GB
    and up to 1.5 GB each at the event mode's slot limit; a process beyond the CPUs adds its memory
    and no speed. The pool holds one process per CPU at most."""
    from nvsim import numba_cache, simulation, workers
    from nvsim.simulation import run_workloads

    class Started(Exception):
        pass

    def pool(size, **kwargs):
        started.append(size)
        raise Started

    spec = nvsim.load_scenario(ROOT / "scenarios" / "latency-tails", catalog)
    monkeypatch.setattr(numba_cache, "compiled_in_cache", lambda dispatcher: True)
    monkeypatch.setattr(workers, "process_pool", pool)
    monkeypatch.setattr(workers, "start_method", lambda: "fork")
    monkeypatch.setattr(simulation, "usable_cpus", lambda: 2)
    started = []
    with pytest.raises(Started):
        run_workloads(spec, catalog, "event", nvsim.Precision(relative=0.1, max_wall_s=0.0), workers=512)
    assert started == [2]


def test_a_phase_is_solved_once_for_all_its_workloads_with_each_ones_own_answer(catalog, monkeypatch):
    """Each workload of a phase is answered by the phase's solve (its jobs' answers depend on each
    other): run_workloads solves it once, not once per workload (256 flow-weighted workloads took two
    minutes), and gives each workload what its own Simulation gives."""
    from nvsim.simulation import Simulation, run_workloads, workload_runs
    from nvsim.workload import compose

    base = nvsim.load_scenario(ROOT / "scenarios" / "graid-gen5-raid6", catalog)
    jobs = [base.workloads[0].model_copy(update={"name": f"j{i}", "phase": "p", "flow": i + 1, "numjobs": 4})
            for i in range(3)]
    alone = base.workloads[1].model_copy(update={"numjobs": 4})
    spec = base.model_copy(update={"workloads": (jobs[0], alone, *jobs[1:])})
    assert workload_runs(spec) == [(0, 2, 3), (1,)]
    solves = []
    real = compose.ROWS["phase"]
    monkeypatch.setitem(compose.ROWS, "phase", lambda job: solves.append(job.workload.name) or real(job))
    together = run_workloads(spec, catalog, "fluid")
    assert solves == ["p"] and list(together) == ["j0", alone.name, "j1", "j2"]
    for workload in spec.workloads:
        own = Simulation(spec, workload, catalog=catalog).run("fluid")
        assert together[workload.name].metrics() == own.metrics(), workload.name


@pytest.mark.parametrize("call, field", [
    (lambda s: nvsim.Precision(relative=0), "precision.relative"),
    (lambda s: nvsim.Precision(relative=5), "precision.relative"),
    (lambda s: nvsim.Precision(max_wall_s=-1), "precision.max_wall_s"),
    (lambda s: nvsim.Precision(max_records=0), "precision.max_records"),
    (lambda s: nvsim.Simulation(s, s.workloads[0]).run("fluid", seed=-1), "seed"),
    (lambda s: nvsim.Simulation(s, s.workloads[0]).run("fluid", seed="abc"), "seed"),
    (lambda s: nvsim.Simulation(s, s.workloads[0]).run("fluid", seed=2**64), "seed"),
    (lambda s: nvsim.Simulation(s, s.workloads[0]).run("fluid", precision=0.1), "precision"),
    (lambda s: nvsim.Simulation(s, 123), "workload"),
    (lambda s: nvsim.rebuild_summary(s, s.workloads[0]), "catalog"),
])
def test_the_python_api_refuses_what_the_command_line_refuses_in_one_line(call, field):
    """Each bad argument is an InputError naming it (they raised ZeroDivisionError, NumPy's
    ValueError, a TypeError or an AttributeError from deep in the model)."""
    scenario = nvsim.load_scenario("scenarios/graid-gen5-raid6")
    with pytest.raises(nvsim.InputError) as info:
        call(scenario)
    assert info.value.field == field and "\n" not in str(info.value)


@pytest.mark.parametrize("update, field", [
    ({"offset": 10**15}, "workload 'w'.offset"),
    ({"numjobs": 4, "offset_increment": 10**15}, "workload 'w'.offset_increment"),
    ({"rw": "oltp", "users": 8, "oltp": {"dataset_bytes": 10**15, "buffer_pool_bytes": 2**30}},
     "workload 'w'.oltp.dataset_bytes"),
])
def test_run_refuses_a_region_off_the_array_as_nvsim_run_does(update, field):
    """An offset past the array's end, a clone starting past it, a database larger than it: refused
    by Simulation.run in one line naming the field (the API ran them: 374K IOPS at 20 TB of a 15 TB
    array, a 1 PB database at the full drives' WAF)."""
    scenario = nvsim.load_scenario("scenarios/graid-gen5-raid6")
    fields = {"name": "w", "rw": "randread", **update}
    job = nvsim.WorkloadSpec(**fields) if fields["rw"] == "oltp" else nvsim.WorkloadSpec(bs=4096, **fields)
    with pytest.raises(nvsim.InputError) as info:
        nvsim.Simulation(scenario, job).run("fluid")
    assert info.value.field == field and "\n" not in str(info.value)


def test_the_api_takes_a_scenario_or_its_path_and_refuses_the_rest_in_one_line():
    """capacity, rebuild_summary and run_timeline took a ScenarioSpec only (a path: AttributeError),
    Simulation(None) raised TypeError, and a spec changed with model_copy (which checks nothing) to
    0 drives ended in a ZeroDivisionError deep in a run."""
    import nvsim
    from nvsim.errors import InputError
    from nvsim.rebuild import rebuild_summary, run_timeline

    path = "scenarios/graid-gen5-raid6"
    spec = nvsim.load_scenario(path)
    assert nvsim.capacity(path).usable_bytes == nvsim.capacity(spec).usable_bytes == 84_480_000_000_000
    assert rebuild_summary(path)["rebuild_hours"] == rebuild_summary(spec)["rebuild_hours"]
    assert run_timeline(path, None).segments == run_timeline(spec, None).segments
    with pytest.raises(InputError, match=r"^scenario: a nvsim ScenarioSpec or the path of a scenario YAML file, got NoneType$"):
        nvsim.Simulation(None)
    broken = spec.model_copy(update={"array": spec.array.model_copy(update={"drives": 0})})
    with pytest.raises(InputError, match=r"^scenario 'graid-gen5-raid6-sr1010': array\.drives: .*greater than or equal to 1"):
        nvsim.Simulation(broken)
    assert nvsim.Simulation(spec).scenario is spec  # a valid one is taken as it is


@pytest.mark.parametrize("kwargs, field", [
    ({"catalog": "models"}, "catalog"),
    ({"state": "degraded"}, "state"),
    ({"state": nvsim.ArrayState(missing=(99,))}, "state.missing"),
    ({"state": nvsim.ArrayState(missing=(0, 0))}, "state.missing"),
    ({"state": nvsim.ArrayState(missing=(0,), rebuilding=5)}, "state.rebuilding"),
    ({"state": nvsim.ArrayState(missing=(0,), rebuilding=0, rebuilt_fraction=2.0)}, "state.rebuilt_fraction"),
])
def test_a_wrong_catalog_or_impossible_state_is_one_input_error_naming_it(kwargs, field):
    with pytest.raises(nvsim.InputError) as caught:
        nvsim.Simulation(ROOT / "scenarios" / "graid-gen5-raid6", "randread-b4k-j192-d32", **kwargs)
    assert str(caught.value).startswith(field + ":")


def test_a_workload_built_in_python_is_checked_against_the_catalog():
    spec = nvsim.WorkloadSpec(name="x", rw="randread", ioengine="libaoi")  # no catalog at hand: taken
    with pytest.raises(nvsim.InputError, match="unknown ioengine 'libaoi'; did you mean 'libaio'"):
        nvsim.Simulation(ROOT / "scenarios" / "graid-gen5-raid6", spec)
    with pytest.raises(nvsim.InputError, match="unknown ioengine"):
        nvsim.Simulation(ROOT / "scenarios" / "graid-gen5-raid6", nvsim.Phase(name="p", jobs=(spec, spec.model_copy(update={"name": "y"}))))


def test_the_rebuild_timeline_and_helpers_take_what_simulation_takes_and_refuse_the_rest_in_one_line():
    scenario = nvsim.load_scenario(ROOT / "scenarios" / "graid-gen5-raid6")
    by_name = nvsim.run_timeline(scenario, "randread-b4k-j192-d32")
    assert by_name.workload == "randread-b4k-j192-d32"
    for call, field in ((lambda: nvsim.run_timeline(scenario, 5), "workload"),
                        (lambda: nvsim.rebuild_summary(scenario, workload=nvsim.WorkloadSpec(
                            name="x", rw="randread", ioengine="libaoi")), "workload 'x'.ioengine"),
                        (lambda: nvsim.ArrayState.at_start(str(ROOT / "scenarios" / "graid-gen5-raid6")), "scenario"),
                        (lambda: nvsim.load_scenario({"name": "x"}), "scenario"),
                        (lambda: nvsim.compare_all(root="/nonexistent-folder", fidelity="fluid"), "published numbers")):
        with pytest.raises(nvsim.InputError) as caught:
            call()
        assert str(caught.value).startswith(field + ":")
