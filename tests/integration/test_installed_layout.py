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
