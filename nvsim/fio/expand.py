"""fio's expansions of option values: ``${VAR}`` environment variables, the keywords ``$ncpus``,
``$mb_memory`` and ``$pagesize``, and arithmetic in numbers (``size=5*1024*$pagesize``).

fio replaces ``${VAR}`` with the environment variable in every option of a job file, and the
keywords with the machine's values when it parses an option; a number written as an expression is
evaluated (``evaluate_arithmetic_expression`` in fio's parse.c). nvsim does the same, with the
keywords taken from the *simulated* platform (``platform_keywords``): its logical CPUs, its
memory in MiB, and the 4 KiB page of x86-64 Linux. An unset variable or an unknown keyword is one
``InputError`` line naming the option.

Where the job file comes from someone else than the user running nvsim (the dashboard's uploads and
Plan view), ``NO_ENVIRONMENT`` stands for the environment: ``${VAR}`` is refused in one line that
reads the same whether or not the server has the variable, so nothing of the server's environment
reaches the client. An expression is bounded before it is parsed (``MAX_EXPRESSION_CHARS``,
``MAX_EXPRESSION_DEPTH``) and every value it reaches is bounded at fio's 64-bit numbers.
"""

from __future__ import annotations

import ast
import operator
import os
import re
from collections.abc import Mapping
from fractions import Fraction

from ..errors import InputError
from ..specs import PlatformSpec

PAGE_BYTES_X86_64 = 4096
"""``$pagesize``: the base page of x86-64 Linux, the platforms nvsim models."""

ARITHMETIC_OPTIONS = frozenset({
    "size", "io_size", "offset", "offset_increment", "iodepth", "numjobs", "rwmixread", "rwmixwrite", "bs",
    "rate_iops", "rate", "filesize", "nrfiles", "iodepth_batch_submit", "iodepth_batch_complete_min", "zonesize",
    "zoneskip", "zonerange", "runtime", "ramp_time", "thinktime",
})
"""Options fio reads as one number, where it evaluates an arithmetic expression."""

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KEYWORD = re.compile(r"\$([A-Za-z_]+)")
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_EXPRESSION = re.compile(r"^[0-9\s+\-*/%^().]+$")
MAX_EXPRESSION_CHARS = 256
"""Longest arithmetic expression read: fio's own examples are a few terms (``5*1024*$pagesize``);
256 characters hold a hundred terms, and bound the parse (50,000 terms ran out of recursion)."""
MAX_EXPRESSION_DEPTH = 16
"""Deepest nesting of parentheses and unary signs in an expression."""
MAX_NUMBER = 2**64
"""fio reads numbers into 64-bit integers: no value of an expression may go beyond this."""


class NoEnvironment(Mapping):
    """An environment with nothing in it, for job files a client sent: ``${VAR}`` is refused in the
    same words whether or not the server's process has the variable."""

    def __getitem__(self, key: str) -> str:
        raise KeyError(key)

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0


NO_ENVIRONMENT = NoEnvironment()
"""The environment of a job file that is not the user's own (the dashboard)."""


def platform_keywords(platform: PlatformSpec) -> dict[str, int]:
    """fio's keywords for a simulated platform: ``ncpus`` (logical CPUs), ``mb_memory`` (MiB of
    memory), ``pagesize`` (bytes)."""
    cpus = platform.total_cores * platform.cpu.threads_per_core.value
    return {"ncpus": cpus, "mb_memory": int(platform.memory_bytes.value) // 2**20, "pagesize": PAGE_BYTES_X86_64}


def expand_value(key: str, value: str, keywords: Mapping[str, int] | None, environ: Mapping[str, str] | None = None,
                 label: str = "", source: str = "", strict: bool = True) -> str:
    """``value`` with ``${VAR}`` from the environment, fio's keywords and (for a numeric option) its
    arithmetic evaluated; one-line errors name ``label`` (the option as written) and ``source``.
    ``strict=False`` (an option nvsim does not read): an unset variable or keyword is left as written."""
    env = os.environ if environ is None else environ

    def variable(match: re.Match) -> str:
        name = match.group(1)
        if name not in env and not strict:
            return match.group(0)  # an option nvsim does not read keeps its text
        if isinstance(env, NoEnvironment):
            raise InputError(label or key, f"${{{name}}}: environment variables are not expanded here (the server's "
                                           f"environment is not the job file's); write the value itself", source=source)
        if name not in env:
            raise InputError(label or key, f"environment variable {name} is not set; fio expands ${{{name}}} from the "
                                           f"environment: set it (env {name}=... nvsim fio ...)", source=source)
        return env[name]

    expanded = _VAR.sub(variable, value)
    if "$" in expanded:
        expanded = _KEYWORD.sub(lambda m: _keyword(m, keywords, label or key, source, strict), expanded)
    percent = re.fullmatch(r"\s*[0-9]+\s*%\s*", expanded)  # 'N%' is a share, not an expression
    if key in ARITHMETIC_OPTIONS and not percent and _EXPRESSION.match(expanded) and re.search(r"[+*/%^()]|[0-9]\s*-", expanded):
        expanded = str(_evaluate(expanded, label or key, source))
    return expanded


def _keyword(match: re.Match, keywords: Mapping[str, int] | None, label: str, source: str, strict: bool) -> str:
    name = match.group(1)
    if not strict and (keywords is None or name not in keywords):
        return match.group(0)
    if keywords is None:
        raise InputError(label, f"${name} is the machine's value; give the simulated system to take it from", source=source)
    if name not in keywords:
        raise InputError(label, f"unknown keyword ${name}; fio's keywords: {', '.join('$' + k for k in keywords)}",
                         source=source)
    return str(keywords[name])


def _evaluate(text: str, label: str, source: str) -> int:
    """A whole number from + - * / % ^ and parentheses (fio's '^' is a power), rounded down as fio's
    conversion to an integer does; anything else, or a division by zero, is an error."""
    _check_size(text, label, source)
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
        number = _node(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError, TypeError) as exc:
        raise InputError(label, f"cannot evaluate {text!r} as fio's arithmetic ({_reason(exc)})", source=source) from None
    if number < 0:
        raise InputError(label, f"{text!r} is negative ({_plain(number)}); allowed: a value of 0 or more",
                         source=source)
    return int(number)


def _reason(exc: Exception) -> str:
    """Why an expression failed, in plain words: Python's own texts name its internals (Fraction(1, 0),
    '<unknown>, line 1')."""
    if isinstance(exc, ZeroDivisionError):
        return "a division by zero"
    if isinstance(exc, SyntaxError):
        return f"{exc.msg}; allowed: numbers, + - * / % ^ and parentheses"
    return str(exc)


def _plain(value: Fraction) -> str:
    """A number as the user writes one: 3, -0.5, or -1/3 where no short decimal is exact."""
    if value.denominator == 1:
        return str(value.numerator)
    decimal = f"{float(value):.6g}"
    return decimal if Fraction(decimal) == value else str(value)


def _check_size(text: str, label: str, source: str) -> None:
    """An expression's length and nesting within their bounds, before anything parses it."""
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    signs = max((len(re.sub(r"\s", "", m.group(0))) for m in re.finditer(r"[+-](?:\s*[+-])*", text)), default=0)
    if len(text) > MAX_EXPRESSION_CHARS or max(deepest, signs) > MAX_EXPRESSION_DEPTH:
        raise InputError(label, f"an expression of {len(text):,} characters nested {max(deepest, signs):,} deep; fio's "
                                f"arithmetic is read up to {MAX_EXPRESSION_CHARS} characters and {MAX_EXPRESSION_DEPTH} "
                                f"levels of parentheses or signs", source=source)


def _bounded(value: Fraction) -> Fraction:
    if abs(value.numerator) > MAX_NUMBER * value.denominator or value.denominator > MAX_NUMBER:
        raise ValueError("a value beyond fio's 64-bit numbers (2^64)")
    return value


def _node(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return _bounded(Fraction(node.value))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _node(node.left), _node(node.right)
        if isinstance(node.op, ast.Pow) and (right.denominator != 1 or abs(right) > 64):
            raise ValueError("a power must be a whole number up to 64")
        bits = max(left.numerator.bit_length(), left.denominator.bit_length())
        if isinstance(node.op, ast.Pow) and abs(left) > 1 and abs(int(right)) * bits > 2 * 64:
            raise ValueError("a value beyond fio's 64-bit numbers (2^64)")
        return _bounded(Fraction(_OPERATORS[type(node.op)](left, right)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _node(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    raise ValueError("only numbers, + - * / % ^ and parentheses")


__all__ = ["platform_keywords", "expand_value", "PAGE_BYTES_X86_64", "ARITHMETIC_OPTIONS", "NO_ENVIRONMENT", "NoEnvironment",
           "MAX_EXPRESSION_CHARS", "MAX_EXPRESSION_DEPTH"]
