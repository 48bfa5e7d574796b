"""An installed copy (nvsim in site-packages) reads only its own catalog and published numbers: a
clone's models/ and scenarios/ are found beside the package only where the folder above it is
nvsim's own repository (its pyproject.toml). Any wheel's top-level models/ in site-packages took
the catalog's place and broke every command (a helper's finding, 2026-12-01)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = ("import nvsim.catalog as c, nvsim.published as p; "
         "print(c.DEFAULT_CATALOG_DIR); print(*p.SCENARIO_ROOTS, sep=',')")


def _probe(site: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=site, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    return out.stdout.split("\n")


def test_a_stray_models_folder_in_site_packages_is_not_the_catalog(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(ROOT / "nvsim", site / "nvsim", ignore=shutil.ignore_patterns("__pycache__", "_models", "_scenarios"))
    (site / "models").mkdir()
    (site / "models" / "__init__.py").write_text("")
    (site / "scenarios" / "x").mkdir(parents=True)
    (site / "scenarios" / "x" / "published.yaml").write_text("source: x\n")
    catalog, roots = _probe(site)[:2]
    assert catalog == str((site / "nvsim" / "_models").resolve())
    assert roots == str((site / "nvsim" / "_scenarios").resolve())


def test_a_clone_reads_its_own_folders(tmp_path):
    catalog, roots = _probe(ROOT)[:2]
    assert catalog == str(ROOT / "models")
    assert roots.split(",")[0] == str(ROOT / "scenarios")


EXAMPLES_PROBE = ("from dashboard.client_files import ClientFiles\n"
                  "files = ClientFiles()\n"
                  "for name in ('scenarios/graid-gen5-raid6/job.fio', 'plans/example.yaml'):\n"
                  "    shown, raw = files(name, 'plan.yaml'); print(shown, len(raw) > 0)\n"
                  "print(files('job.fio', 'scenarios/xiraid-qlc-raid5/scenario.yaml')[0])\n"
                  "try:\n    files('tests/data/fio/traces/fio-v3.iolog', 'x')\n"
                  "except Exception as refused:\n    print(refused)\n")


def test_an_installed_dashboard_opens_the_examples_the_wheel_carries(tmp_path):
    """The dashboard's shipped examples (a Plan requirement's ``fio:``, an uploaded job file's
    ``read_iolog``) in an installed copy are the package's nvsim._scenarios and nvsim._plans, named
    as in a clone; they were looked up in site-packages/scenarios, and every one was refused (a
    helper's finding, 2026-12-02). The tests' traces do not travel in a wheel, and the refusal says
    only what does."""
    site, cwd = tmp_path / "site", tmp_path / "cwd"
    ignore = shutil.ignore_patterns("__pycache__", "_models", "_scenarios", "_plans")
    shutil.copytree(ROOT / "nvsim", site / "nvsim", ignore=ignore)
    shutil.copytree(ROOT / "dashboard", site / "dashboard", ignore=ignore)
    shutil.copytree(ROOT / "scenarios", site / "nvsim" / "_scenarios")
    shutil.copytree(ROOT / "plans", site / "nvsim" / "_plans")
    cwd.mkdir()
    out = subprocess.run([sys.executable, "-c", EXAMPLES_PROBE], cwd=cwd, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[:3] == ["scenarios/graid-gen5-raid6/job.fio True", "plans/example.yaml True",
                         "scenarios/xiraid-qlc-raid5/job.fio"]
    assert lines[3].endswith("is not a shipped example (a relative path under scenarios/, plans/); "
                             "the dashboard opens no other file of its server"), lines[3]
    assert str(site) not in out.stdout


def test_an_installed_cli_says_where_it_carries_an_example_named_as_a_clone_names_it(tmp_path):
    """README's and docs/' commands name the examples as a clone holds them (scenarios/graid-gen5-raid6,
    plans/example.yaml); run from another folder by an installed nvsim they are not there, and the
    one line (exit 2) said only 'no such file'. It now ends with the path of the copy the package
    carries; a name it does not carry gets no such words (a helper's finding, 2026-12-02)."""
    site, cwd = tmp_path / "site", tmp_path / "cwd"
    shutil.copytree(ROOT / "nvsim", site / "nvsim", ignore=shutil.ignore_patterns("__pycache__", "_models", "_scenarios", "_plans"))
    for folder in ("models", "scenarios", "plans"):
        shutil.copytree(ROOT / folder, site / "nvsim" / f"_{folder}")
    cwd.mkdir()
    carried = (site / "nvsim").resolve()
    commands = {("run", "scenarios/graid-gen5-raid6", "--fidelity", "fluid"): "_scenarios/graid-gen5-raid6",
                ("plan", "plans/example.yaml", "-o", "out"): "_plans/example.yaml",
                ("sweep", "scenarios/sweeps/drive-count-level-strip.yaml", "-o", "out"): "_scenarios/sweeps/drive-count-level-strip.yaml",
                ("fio", "scenarios/graid-gen5-raid6/job.fio", "--system", str(carried / "_scenarios/graid-gen5-raid6")):
                    "_scenarios/graid-gen5-raid6/job.fio",
                ("run", "scenarios/no-such-example"): None,
                ("validate", "--scenarios", "scenarios"): "_scenarios"}
    for command, copy in commands.items():
        out = subprocess.run([sys.executable, "-m", "nvsim.cli", *command], cwd=cwd, capture_output=True, text=True,
                             env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": str(tmp_path / "numba")})
        assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, (command, out.stderr[-2000:])
        if copy is None:
            assert "carries" not in out.stderr, out.stderr
        else:
            assert out.stderr.rstrip().endswith(f"; this installed nvsim carries it as {carried / copy}"), out.stderr
    assert not (cwd / "out").exists()
