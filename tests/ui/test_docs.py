import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_doc_tables_match_the_models():
    result = subprocess.run([sys.executable, "docs/generate.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_architecture_doc_states_the_pipeline_in_one_line():
    text = (ROOT / "docs/architecture.md").read_text()
    assert "Pipeline:" in text
    for module in ("specs", "catalog", "pcie", "platform", "raid", "bounds", "validation", "cli"):
        assert f"nvsim/{module}.py" in text, module


def test_readme_quick_start_has_exactly_two_commands_and_ci_uses_the_test_one():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.strip().startswith("#")]
    assert len(commands) == 2, commands
    test_command = commands[1].split("#")[0].strip()
    assert test_command in (ROOT / ".ci/run").read_text()
