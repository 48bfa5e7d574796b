"""A compiled function built without its Python wrapper (``nvsim.numba_cache.INNER``) is called only
from other compiled functions: called from Python it would not raise but crash the interpreter. This
reads every module of nvsim, its tests and benchmarks, and finds each use of such a function outside
a compiled function: a call, or the function handed on as a value."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _compiled(node) -> bool:
    return any("njit" in ast.unparse(d) or "nb.jit" in ast.unparse(d) for d in node.decorator_list)


def _inner_functions() -> dict[str, set[str]]:
    """Module name -> its functions compiled with ``**INNER``."""
    out = {}
    for path in (ROOT / "nvsim").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                 and any("INNER" in ast.unparse(d) for d in n.decorator_list)}
        if names:
            out[".".join(path.relative_to(ROOT).with_suffix("").parts)] = names
    return out


def _uses_outside_compiled_code(path: Path, inner: dict[str, set[str]]) -> list[str]:
    tree = ast.parse(path.read_text())
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    names = set(inner.get(module, ()))  # the module's own, and those it imports by name
    modules = {}  # a local name bound to a module that has some
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            base = node.module if not node.level else ".".join(module.split(".")[:-node.level] + [node.module])
            for alias in node.names:
                if alias.name in inner.get(base, ()):
                    names.add(alias.asname or alias.name)
                if f"{base}.{alias.name}" in inner:
                    modules[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in inner and alias.asname:
                    modules[alias.asname] = alias.name
    found = []

    def walk(node, compiled):
        for child in ast.iter_child_nodes(node):
            inside = compiled or (isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and _compiled(child))
            if not inside:
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load) and child.id in names:
                    found.append(f"{path.relative_to(ROOT)}:{child.lineno} {child.id}")
                if (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name)
                        and child.attr in inner.get(modules.get(child.value.id, ""), ())):
                    found.append(f"{path.relative_to(ROOT)}:{child.lineno} {child.value.id}.{child.attr}")
            walk(child, inside)

    walk(tree, False)
    return found


def test_functions_without_a_python_wrapper_are_used_only_from_compiled_code():
    inner = _inner_functions()
    assert sum(len(v) for v in inner.values()) > 50  # the event kernel's, the planner's, the walks', the network's
    found = []
    for folder in ("nvsim", "tests", "benchmarks", "docs"):
        for path in (ROOT / folder).rglob("*.py"):
            found += _uses_outside_compiled_code(path, inner)
    assert not found, found


def test_the_check_finds_a_use_from_python(tmp_path, monkeypatch):
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    package = tmp_path / "nvsim"
    package.mkdir()
    (package / "m.py").write_text("from numba import njit\nfrom .numba_cache import INNER\n\n\n"
                                  "@njit(**INNER)\ndef inner(x):\n    return x\n\n\n"
                                  "@njit\ndef outer(x):\n    return inner(x)\n\n\n"
                                  "def from_python(f=inner):\n    return outer(1)\n")
    (tmp_path / "t.py").write_text("from nvsim import m\nfrom nvsim.m import inner\n\n\ndef test():\n"
                                   "    m.inner(1)\n    inner(2)\n")
    inner = _inner_functions()
    assert inner == {"nvsim.m": {"inner"}}
    assert _uses_outside_compiled_code(package / "m.py", inner) == ["nvsim/m.py:15 inner"]
    assert _uses_outside_compiled_code(tmp_path / "t.py", inner) == ["t.py:6 m.inner", "t.py:7 inner"]
