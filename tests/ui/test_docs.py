import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_doc_tables_match_the_models():
    result = subprocess.run([sys.executable, "docs/generate.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_architecture_doc_states_the_pipeline_in_one_line_and_places_every_module():
    text = (ROOT / "docs/architecture.md").read_text()
    pipeline = [line for line in text.splitlines() if line.startswith("**Pipeline:**")]
    assert len(pipeline) == 1 and "→" in pipeline[0]
    layers = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    package = ROOT / "nvsim"
    modules = [p.stem for p in package.glob("*.py") if p.stem != "__init__"]
    modules += [f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").exists() and p.name != "sim"]
    modules += [f"sim/{p.stem}" for p in (package / "sim").glob("*.py") if p.stem != "__init__"] + ["sim/event/"]
    missing = [m for m in modules if f"`{m}`" not in layers]
    assert missing == [], f"modules without a layer in docs/architecture.md: {missing}"


def test_readme_quick_start_has_exactly_two_commands_and_ci_uses_the_test_one():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.strip().startswith("#")]
    assert len(commands) == 2, commands
    test_command = commands[1].split("#")[0].strip()
    assert test_command in (ROOT / ".ci/run").read_text()
