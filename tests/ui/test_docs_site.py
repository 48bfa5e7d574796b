"""The documentation site (mkdocs.yml, docs/): builds with every warning an error, no page left out.

The build runs without -q/--quiet on purpose: in MkDocs 1.6 --quiet drops warnings before the
strict-mode counter sees them, so `mkdocs build --strict -q` exits 0 on a broken link
(mkdocs/mkdocs#4126). test_strict_build_fails_on_a_warning guards the command line used here.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-d", str(site)],
                          cwd=project, capture_output=True, text=True, timeout=300)


def nav_pages(nav) -> list[str]:
    """Every page path named in a MkDocs nav (nested lists of {title: path or list})."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


def test_site_builds_strict_with_the_key_pages(tmp_path):
    site = tmp_path / "site"
    result = mkdocs_build(ROOT, site)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    for page in ("index.html", "getting-started/index.html", "reference/index.html", "models/engines/index.html",
                 "scenarios/index.html", "validation/index.html", "sweeps/index.html"):
        assert (site / page).is_file(), page
    # every `::: module` of the API reference rendered (a module that fails to load leaves no anchor)
    rendered = {}
    for md in sorted((DOCS / "reference").glob("*.md")):
        for module in re.findall(r"^::: (\S+)", md.read_text(), re.M):
            html = site / "reference" / md.stem / "index.html"
            rendered[module] = html.is_file() and f'id="{module}"' in html.read_text()
    assert {"nvsim.units", "nvsim.sim.event", "nvsim.engines", "nvsim.fio"} <= set(rendered)
    assert [m for m, ok in rendered.items() if not ok] == []
    assert not list(site.rglob("generate.py")), "docs/generate.py is a script, not a page"


def test_every_markdown_file_under_docs_is_in_the_nav():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    assert Path(config["docs_dir"]).resolve() == DOCS
    in_nav = nav_pages(config["nav"])
    on_disk = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(set(on_disk) - set(in_nav)) == [], "pages not in the nav of mkdocs.yml"
    assert sorted(set(in_nav) - set(on_disk)) == [], "nav entries without a page"
    assert len(in_nav) == len(set(in_nav)), "a page is in the nav twice"


def test_strict_build_fails_on_a_warning(tmp_path):
    """The command line above does fail on a warning (here a broken link)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# t\n\n[missing](missing.md)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nstrict: true\n")
    result = mkdocs_build(tmp_path, tmp_path / "site")
    assert result.returncode != 0
    assert "missing.md" in result.stdout + result.stderr
