import re
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
    # the packages the table lists module by module (engines' md_bitmap and fio's argv were missing)
    modules += [p.stem for name in ("engines", "fio", "plan", "workload", "specs", "sim/event", "studies")
                for p in (package / name).glob("*.py") if p.stem != "__init__"]
    missing = [m for m in modules if f"`{m}`" not in layers]
    assert missing == [], f"modules without a layer in docs/architecture.md: {missing}"


def test_readme_quick_start_has_exactly_two_commands_and_ci_uses_the_test_one():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.strip().startswith("#")]
    assert len(commands) == 2, commands
    test_command = commands[1].split("#")[0].strip()
    assert test_command in (ROOT / ".ci/run").read_text()


def _commands() -> list[str]:
    import typer

    from nvsim.cli import app

    return sorted(typer.main.get_command(app).commands)


def _nav_pages() -> list[str]:
    """Every page of the site's nav but the API reference's module pages (its index stands for them)."""
    import yaml

    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    nav = yaml.safe_load("nav:" + (ROOT / "mkdocs.yml").read_text().split("\nnav:", 1)[1])["nav"]
    return [page for page in walk(nav) if not page.startswith("reference/") or page == "reference/index.md"]


def test_the_front_pages_list_every_command_and_every_docs_page():
    """README, docs/index.md and docs/getting-started.md name every command; README and the home
    page name every page of the site (the dashboard, the report, the Python API, cost and power...)."""
    commands = _commands()
    assert {"run", "fio", "sweep", "plan", "catalog", "validate", "calibrate", "dashboard", "report"} <= set(commands)
    pages = _nav_pages()
    assert {"api.md", "cost-power.md", "dashboard.md", "plan.md", "sweeps.md", "fio.md"} <= set(pages)
    readme, index = (ROOT / "README.md").read_text(), (ROOT / "docs/index.md").read_text()
    started = (ROOT / "docs/getting-started.md").read_text()
    for name, text in (("README.md", readme), ("docs/index.md", index), ("docs/getting-started.md", started)):
        missing = [c for c in commands if f"nvsim {c}" not in text]
        assert not missing, f"{name} does not name: {missing}"
    assert not [p for p in pages if f"({p})" not in index and p != "index.md"], "docs/index.md"
    assert not [p for p in pages if f"docs/{p}" not in readme and f"`{p.rsplit('/', 1)[-1]}`" not in readme], "README.md"
    for page in ("api.md", "cost-power.md", "dashboard.md", "plan.md", "sweeps.md", "fio.md", "index.md"):
        assert f"]({page}" in started, page


def test_notebooks_readme_cites_only_files_a_clone_has():
    text = (ROOT / "notebooks/README.md").read_text()
    assert "shared/" not in text
    cited = re.findall(r"`([\w./*<>-]+\.(?:ipynb|py|md|yaml|txt))`", text)
    assert len(cited) >= 10
    for path in cited:
        if "<" in path:
            continue
        hits = list(ROOT.glob(path)) + list((ROOT / "notebooks").glob(path))
        assert hits, f"notebooks/README.md cites {path}, which a clone does not have"


def test_scenarios_doc_names_every_engine_setting_a_scenario_can_set():
    """docs/scenarios.md's list of `array.engine_settings` names each field every engine's
    Settings takes (it listed md's and VROC's only: xiRAID's recon_prio, recon_threads and
    recon_rows_per_thread, a GPU card's driver and a RAID card's mode were missing)."""
    import nvsim.engines.card  # noqa: F401  (registers every engine kind)
    from nvsim.engines import ENGINES

    text = (ROOT / "docs/scenarios.md").read_text()
    line = next(line for line in text.splitlines() if "`array.engine_settings` (" in line)
    listed = line.split("`array.engine_settings` (", 1)[1]
    fields = {name for engine in ENGINES.values() for name in engine.Settings.model_fields}
    missing = sorted(name for name in fields if f"`{name}`" not in listed)
    assert missing == [], f"engine settings not named in docs/scenarios.md: {missing}"


def _scenario_keys() -> set[str]:
    """Every key a scenario file takes, by its dotted path (a list's items as ``[]``)."""
    import typing

    from pydantic import BaseModel

    from nvsim.specs import ScenarioSpec

    def models(annotation) -> list[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [annotation]
        return [m for arg in typing.get_args(annotation) for m in models(arg)]

    def listed(annotation) -> bool:
        return typing.get_origin(annotation) is tuple and typing.get_args(annotation)[-1:] == (Ellipsis,)

    keys: set[str] = set()

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, field in model.model_fields.items():
            path = prefix + name + ("[]" if listed(field.annotation) else "")
            keys.add(path)
            for sub in models(field.annotation):
                walk(sub, path + ".")

    walk(ScenarioSpec, "")
    for path in [p for p in keys if p.endswith("workloads[]")]:  # fio's written forms of a mix (WorkloadSpec._fio_forms)
        keys |= {f"{path}.bssplit", f"{path}.bsrange"}
    return keys


def _keys_section() -> str:
    text = (ROOT / "docs/scenarios.md").read_text()
    return text.split("## Every key of a scenario file", 1)[1].split("\n## ", 1)[0]


def test_scenarios_doc_lists_every_key_a_scenario_takes_and_only_those():
    """docs/scenarios.md's key table names every key of the scenario schema and every engine
    setting, and every key it names is one (the page described a few keys; most -- `placement`,
    `topology`, the host I/O options, `faults`, `oltp` -- had no allowed values on it)."""
    import nvsim.engines.card  # noqa: F401  (registers every engine kind)
    from nvsim.engines import ENGINES

    section = _keys_section()
    keys = _scenario_keys()
    values = [path for path in keys if not any(other.startswith(path + ".") for other in keys)]
    leaves = {path.rsplit(".", 1)[-1].removesuffix("[]") for path in values}
    leaves |= {name for engine in ENGINES.values() for name in engine.Settings.model_fields}
    missing = sorted(leaf for leaf in leaves if not re.search(rf"[`.\]]{leaf}(\[\])?`", section))
    assert missing == [], f"scenario keys without a row in docs/scenarios.md: {missing}"
    named, parent = [], ""
    for row in section.splitlines():
        cells = row.split("|")
        if len(cells) < 4 or not cells[1].strip().startswith("`"):
            continue
        for token in re.findall(r"`([^`]+)`", cells[1]):
            if token.startswith("."):
                token = parent + token
            parent = token.rsplit(".", 1)[0]
            named.append(token)
    settings = {name for engine in ENGINES.values() for name in engine.Settings.model_fields}
    unknown = [t for t in named if t not in keys and t not in settings]
    assert len(named) > 60 and unknown == [], f"keys named in docs/scenarios.md that a scenario does not take: {unknown}"


def test_cost_power_doc_seed_000_table_is_what_its_command_prints(tmp_path):
    """docs/cost-power.md's seed-000 table is what the command above it gives (`nvsim run
    scenarios/graid-gen5-raid6 --max-seconds 0`: the planned window, the same bits on every machine):
    each workload's power (drives / GPU / server), W and $ per 1K IOPS, drive writes a day and wear $
    a year. Its 4K random write row still read 673 W (284 W of drives) after reads paid program
    suspend at the run's programming load (7c06797), which gives 642 W (254 W)."""
    import json

    text = (ROOT / "docs/cost-power.md").read_text().split("## Seed 000", 1)[1]
    rows = [r.split("|")[1:-1] for r in text.split("\n\n| workload |", 1)[1].splitlines()[2:6]]
    out = tmp_path / "run.json"
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "run", "scenarios/graid-gen5-raid6", "--max-seconds", "0",
                           "--json", "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    per_workload = json.loads(out.read_text())["cost_power"]["per_workload"]
    assert len(rows) == len(per_workload) == 4
    for row, costs in zip(rows, per_workload.values()):
        power = (f"{round(costs['power_w']):,} ({round(costs['power_drives_w'])} / {round(costs['power_engine_w'])} / "
                 f"{round(costs['power_platform_w'])})")
        printed = [power, f"{costs['watts_per_kiops']:.3g}", f"{costs['usd_per_kiops']:.3g}",
                   f"{costs['effective_dwpd']:.3g}", f"{round(costs['wear_usd_per_year']):,}"]
        assert [c.strip() for c in (row[3], row[4], row[5], row[7], row[8])] == printed, row[0]


def test_front_pages_name_every_exit_status_1(tmp_path):
    """README's and getting-started's exit statuses name each case the CLI ends with 1: `validate
    --strict` with an unexplained miss, a plan that ranks nothing, a sweep whose every set-up is
    refused (exit 1 here, which both pages left out) and an output the disk has no room for."""
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(f"base: {ROOT / 'scenarios/graid-gen5-raid6/scenario.yaml'}\nworkloads: [randread-b4k-j192-d32]\n"
                     "fidelity: fluid\ngrid: {array.level: [6], array.drives: [3]}\n")
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "sweep", str(sweep), "-o", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and "every set-up of the sweep was refused" in done.stderr, done.stderr
    for page in ("README.md", "docs/getting-started.md"):
        text = " ".join((ROOT / page).read_text().split())
        status = text.split("Exit status: 0 done", 1)[1].split("2 for bad input", 1)[0]
        for case in ("validate --strict", "a plan that ranks nothing", "a sweep whose every set-up is refused", "no room"):
            assert case in status, (page, case)


def test_stripe_core_doc_gives_each_function_its_parameters():
    """docs/stripe-core.md's signature blocks name every parameter of each function they show, in
    order (``plan_ios`` lacked ``read_stream``, RAID1's read stream of a sequential job)."""
    import inspect

    import nvsim.parity
    import nvsim.stripe.layout
    import nvsim.stripe.planner

    blocks = re.findall(r"```\w*\n(.*?)```", (ROOT / "docs/stripe-core.md").read_text(), re.S)
    shown = re.findall(r"^(\w+)\(([^)]*(?:\([^)]*\)[^)]*)*)\) ->", "\n".join(blocks), re.M)
    assert len(shown) >= 10
    for name, params in shown:
        function = next(getattr(m, name) for m in (nvsim.parity, nvsim.stripe.layout, nvsim.stripe.planner)
                        if hasattr(m, name))
        names = [p.split(":")[0].split("=")[0].strip(" *") for p in re.split(r",(?![^(]*\))", params)]
        assert [n for n in names if n] == list(inspect.signature(function).parameters), name


def test_getting_started_names_every_catalog_section_kind_takes():
    """getting-started's catalog section names each section `nvsim catalog --kind` takes (it said
    "one section: drives, links, platforms or engines" of fifteen)."""
    from nvsim.catalog import SECTIONS

    text = (ROOT / "docs/getting-started.md").read_text().split("## The catalog", 1)[1].split("\n## ", 1)[0]
    assert [s for s in SECTIONS if f"`{s}`" not in text] == []


def test_architecture_status_counts_the_notebooks_there_are():
    """docs/architecture.md's status table counts notebooks/*.ipynb (it said five of eight)."""
    words = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen").split()
    said = re.search(r"(\w+) executed notebooks", (ROOT / "docs/architecture.md").read_text()).group(1)
    assert words.index(said) + 1 == len(list((ROOT / "notebooks").glob("*.ipynb")))


def test_fio_doc_names_the_line_that_says_a_default_was_taken():
    """docs/fio.md: a job without ioengine or direct gets fio's defaults and `nvsim fio` says so on
    stderr, in the kind of line the page names (it said "a note"; the lines are warnings)."""
    done = subprocess.run([sys.executable, "-m", "nvsim.cli", "fio", "--name=a", "--rw=randread", "--bs=4k",
                           "--system", "scenarios/graid-gen5-raid6", "--fidelity", "fluid"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    kinds = {line.split(":", 1)[0] for line in done.stderr.splitlines() if "no ioengine given" in line or "no direct given" in line}
    text = " ".join((ROOT / "docs/fio.md").read_text().split())
    sentence = text.split("fio's default buffered I/O, simulated as direct I/O;", 1)[1].split(".", 1)[0]
    assert len(kinds) == 1 and f"`{kinds.pop()}:`" in sentence, (kinds, sentence)


def test_the_pages_that_list_the_test_layers_list_every_one():
    """README's layout, docs/architecture.md's rules and tests/README.md's opening name every layer
    tests/conftest.py marks (all three left out `robustness/`)."""
    import ast

    tree = ast.parse((ROOT / "tests/conftest.py").read_text())
    LAYERS = next(ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "LAYERS")

    readme = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `tests/`"))
    rules = (ROOT / "docs/architecture.md").read_text().split("- Tests by layer", 1)[1].split("\n\n", 1)[0]
    opening = (ROOT / "tests/README.md").read_text().split("\n\n", 2)[1]
    for name, text, form in (("README.md", readme, "`{}/`"), ("docs/architecture.md", rules, "`{}/`"),
                             ("tests/README.md", opening, "{}`")):
        assert [layer for layer in LAYERS if form.format(layer) not in text] == [], name
