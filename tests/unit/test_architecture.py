"""The shape of the package (docs/architecture.md, "Rules that hold everywhere"), read from the
source as text: no import cycle among nvsim's modules -- counting function-local imports,
``TYPE_CHECKING`` imports and ``nvsim.<module>`` attribute access through the lazy top-level
package --, no function longer than 150 lines, and a public namespace whose names all resolve."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "nvsim"
LONGEST_FUNCTION_LINES = 150


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The longest prefix of a dotted name that is one of nvsim's modules."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def _attribute_chain(node: ast.Attribute) -> str | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "nvsim":
        return ".".join(["nvsim", *reversed(names)])
    return None


def imports_of(name: str) -> set[str]:
    """Every nvsim module ``name`` imports, wherever the import stands in the file."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from package import module`` imports that module (the package's own __init__ is
            # not what it asks for); ``from module import name`` imports the module
            names = [f"{module}.{alias.name}" for alias in node.names]
            targets = [n for n in names if n in MODULES]
            if len(targets) < len(names):
                targets.append(module)
        elif isinstance(node, ast.Attribute):
            chain = _attribute_chain(node)
            targets = [chain] if chain else []
        for target in targets:
            resolved = _resolve(target)
            if resolved and resolved != name:
                out.add(resolved)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_local_and_lazy_imports():
    graph = {name: imports_of(name) for name in MODULES}
    assert "nvsim.simulation" in graph["nvsim"]  # TYPE_CHECKING, loaded lazily at run time
    assert "nvsim.report" in graph["nvsim.cli"]  # ``nvsim.report.print_bounds`` through the package


def test_no_import_cycle_among_nvsims_modules():
    graph = {name: imports_of(name) for name in MODULES}
    assert cycles(graph) == []


LAYERS = {
    1: "units skew_syntax histogram constants numba_cache numba_args errors loader shipped specs topology scenario "
       "catalog published raid io cpus workers",
    2: "host_io pcie links platform array_capacity ssd ftl stripe parity isal oltp risk wear cost names",
    3: "engines",
    4: "fabric sim.model sim.demand sim.drive sim.drive_load sim.memo sim.system sim.workload sim.result",
    5: "sim sim.fluid sim.network sim.foreground sim.mixed sim.oltp_load sim.stripe_wait sim.event",
    6: "states result workload",
    7: "simulation",
    8: "nvsim warm bounds rebuild volumes volume_rules budget validation calibrate sweep fio report progress studies "
       "cli plan",
}
"""docs/architecture.md's layer table: each module (or package, with its modules) and its layer."""

IMPORTS_UP = {
    ("nvsim.catalog", "nvsim.engines"), ("nvsim.scenario", "nvsim.engines"),
    ("nvsim.catalog", "nvsim.ssd.family"), ("nvsim.catalog", "nvsim.ssd.derive"), ("nvsim.catalog", "nvsim.ssd.nand"),
    ("nvsim.catalog", "nvsim.pcie"), ("nvsim.scenario", "nvsim.volume_rules"),
    ("nvsim.array_capacity", "nvsim.engines"), ("nvsim.simulation", "nvsim.budget"),
}
"""The imports of a layer below docs/architecture.md states ("Layers": the exceptions), by the
importing module and the imported module or package."""


def layer_of(module: str) -> int | None:
    """The layer of ``module``: its own entry in ``LAYERS``, else its closest package's."""
    named = {("nvsim." + name) if name != "nvsim" else name: layer for layer, names in LAYERS.items()
             for name in names.split()}
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in named:
            return named[".".join(parts[:end])]
    return None


def test_each_layer_imports_only_its_own_and_the_layers_above_but_the_stated_exceptions():
    """docs/architecture.md, "Layers": each layer imports only from its own and the layers above
    it, but for the exceptions it names (``IMPORTS_UP``); every module has a layer."""
    assert [m for m in MODULES if layer_of(m) is None] == []
    up = sorted((m, t) for m in MODULES for t in imports_of(m) if layer_of(t) > layer_of(m)
                and not any(m == a and _under(t, b) for a, b in IMPORTS_UP))
    assert up == []


def imported_closure(names: list[str]) -> set[str]:
    """Every nvsim module ``names`` import, directly or through others (local and lazy imports too)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        for module in imports_of(todo.pop()):
            if module not in seen:
                seen.add(module)
                todo.append(module)
    return seen


FIO_READER = sorted(m for m in MODULES if (m == "nvsim.fio" or m.startswith("nvsim.fio.")) and m != "nvsim.fio.run")
WORKLOAD = sorted(m for m in MODULES if m == "nvsim.workload" or m.startswith("nvsim.workload."))


def _under(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_fios_reader_imports_nothing_of_the_simulator():
    """fio the format at the edge (docs/architecture.md): its reader, writer, tables, traces, JSON and
    logs import nothing of ``sim``, ``simulation`` or ``workload``, directly or through another module;
    only ``nvsim.fio.run``, the client that runs a job file, does."""
    assert {"nvsim.fio", "nvsim.fio.jobfile", "nvsim.fio.writer", "nvsim.fio.trace"} <= set(FIO_READER)
    found = sorted(m for m in imported_closure(FIO_READER) if _under(m, "nvsim.sim", "nvsim.simulation", "nvsim.workload"))
    assert found == []


def test_composite_workloads_import_neither_the_orchestrator_nor_fio():
    """``workload/`` is handed the closed-loop runner: it imports neither ``simulation`` nor ``fio``."""
    assert {"nvsim.workload.compose", "nvsim.workload.mix", "nvsim.workload.trim", "nvsim.workload.together"} <= set(WORKLOAD)
    found = sorted(m for m in imported_closure(WORKLOAD) if _under(m, "nvsim.simulation", "nvsim.fio"))
    assert found == []


def test_running_a_job_file_is_a_plain_client_of_the_orchestrator():
    """``nvsim.fio.run`` routes nothing itself: it reaches the solvers only through ``Simulation``
    (no ``nvsim.sim`` module, no composite solver but the runtime rule, the mix's parts for the budget)."""
    direct = imports_of("nvsim.fio.run")
    assert "nvsim.simulation" in direct
    assert not sorted(m for m in direct if _under(m, "nvsim.sim")), direct
    assert not {"nvsim.workload.together", "nvsim.workload.open_loop", "nvsim.workload.fresh"} & direct


def test_reading_a_job_file_loads_no_numba():
    """``import nvsim.fio`` stays below the simulator at run time too (a fresh interpreter)."""
    import subprocess
    import sys

    code = "import sys, nvsim.fio; assert 'numba' not in sys.modules, 'numba loaded'"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_no_function_longer_than_150_lines():
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert long == []


def test_every_public_name_resolves_to_what_it_names():
    """Every name of ``nvsim.__all__`` resolves, and none is shadowed by a submodule of the same
    name (importing a submodule sets the package's attribute: ``nvsim.capacity`` would become a
    module once anything imported ``nvsim/capacity.py``)."""
    import importlib
    import types

    import nvsim

    for name in MODULES:
        importlib.import_module(name)
    assert len(nvsim.__all__) == len(set(nvsim.__all__))
    for public in nvsim.__all__:
        value = getattr(nvsim, public)
        assert value is not None and not isinstance(value, types.ModuleType), public
    with pytest.raises(AttributeError):
        nvsim.no_such_name  # noqa: B018


SOLVERS = PACKAGE / "sim"
ENGINE_WORDS = ("linux-md", "xiraid", "xinnor", "supremeraid", "graid", "megaraid", "vroc", "lockless", "raid5d")
"""Brand and engine words no solver's code may spell (in any string but a docstring)."""


def engine_branches(source: str, names: set[str], classes: set[str]) -> list[str]:
    """Where code (not docstrings or comments) names an engine: a string naming an engine kind or
    catalog entry or holding an engine word, a concrete engine class, or a comparison or lookup
    on an engine's kind (``model.kind == ...``, ``spec.engine_kind in ...``)."""
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if node.value in names or any(word in node.value.lower() for word in ENGINE_WORDS):
                found.append(f"line {node.lineno}: string {node.value!r}")
        elif isinstance(node, ast.Name) and node.id in classes:
            found.append(f"line {node.lineno}: engine class {node.id}")
        elif isinstance(node, (ast.Compare, ast.Subscript, ast.Match)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Attribute) and inner.attr in ("engine_kind", "kind"):
                    found.append(f"line {node.lineno}: branch on .{inner.attr}")
    return sorted(found)


def test_the_engine_name_finder_finds_branches():
    names, classes = {"md", "linux-md"}, {"MdEngine"}
    assert engine_branches('"""md and linux-md in a docstring"""\nx = 1  # md\n', names, classes) == []
    assert engine_branches('if model.kind == "md":\n    pass\n', names, classes) == \
        ["line 1: branch on .kind", "line 1: string 'md'"]
    assert engine_branches('if spec.engine_kind in SLOW:\n    pass\n', names, classes) == ["line 1: branch on .engine_kind"]
    assert engine_branches("label = 'md stripe thread (raid5d)'\n", names, classes) == \
        ["line 1: string 'md stripe thread (raid5d)'"]
    assert engine_branches("ok = isinstance(e, MdEngine)\n", names, classes) == ["line 1: engine class MdEngine"]


def test_no_solver_names_an_engine():
    """The solvers (nvsim/sim/) ask the engine (docs/architecture.md, "Where a new thing goes"):
    none branches on an engine's kind or name, or names one of its classes."""
    import yaml

    from nvsim.engines import ENGINES, Engine
    from nvsim.engines.base import DirectDrives

    names = set(ENGINES) | {yaml.safe_load(p.read_text())["name"] for p in (ROOT / "models" / "engines").glob("*.yaml")}
    classes = {cls.__name__ for cls in ENGINES.values()} - {Engine.__name__, DirectDrives.__name__}
    assert {"md", "linux-md", "gpu", "hardware", "MdEngine"} <= names | classes
    found = [f"{path.relative_to(ROOT)} {where}" for path in sorted(SOLVERS.rglob("*.py"))
             for where in engine_branches(path.read_text(encoding="utf-8"), names, classes)]
    assert found == []


PROCESS_CACHES = {
    "nvsim.ftl.transient._curve", "nvsim.sim.fluid._fork_join_excess", "nvsim.catalog._cached",
    "nvsim.engines.base._values_type", "nvsim.isal._load", "nvsim.stripe.gpu._kernel", "nvsim.stripe.gpu._ready",
}
"""docs/architecture.md ("Build, then run"): the functions that remember their answers for the
process, beside the one Memo of a run."""


def _cached_functions(name: str) -> set[str]:
    """Functions of module ``name`` under a functools cache (``@cache``, ``@lru_cache(...)``)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")) in ("cache", "lru_cache"):
                    found.add(f"{name}.{node.name}")
    return found


def test_the_only_process_wide_caches_are_the_ones_the_doc_names():
    """The only remembered work of a run is the one Memo; a functools cache elsewhere is one of the
    few the doc names (it said there were none: seven were there, two of them remembered work,
    the FTL transient's curves and the fork-join excess)."""
    assert set().union(*(_cached_functions(m) for m in MODULES)) == PROCESS_CACHES


def test_the_command_line_loads_no_simulator_until_a_command_needs_it():
    """docs/architecture.md: ``import nvsim`` loads its modules on first use, and "the CLI reaches the
    heavier modules the same way": importing ``nvsim.cli`` (what `nvsim --version`, `nvsim catalog`
    or a refused option run first) loads neither Numba nor the simulator. It loaded both (85 of
    nvsim's modules) for the --precision bounds it imported from ``sim.event.compiled``."""
    import subprocess
    import sys

    code = ("import sys, nvsim.cli; heavy = sorted(m for m in sys.modules if m == 'numba' or m.startswith('nvsim.sim')); "
            "assert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-400:]
