"""Progress bars of the command line's long work: ``nvsim validate``, ``plan``, ``sweep`` and
event-mode runs.

One helper, :class:`LateProgress`, for all of them. Its bars go to stderr, only when stderr is a
terminal, and only once the work has gone on for ``PROGRESS_AFTER_S``: a quick command draws
nothing, and what a command writes to stdout or to its files (tables, JSON, CSV) never changes.
The bars are transient: they are wiped when the work ends.
"""

from __future__ import annotations

import sys
import time
from typing import Callable

PROGRESS_AFTER_S = 2.0
"""Work shorter than this draws no bar."""


class LateProgress:
    """Named bars on stderr that appear once the work has run ``after_s`` seconds.

    ``update(name, done, total)`` sets a bar, ``advance(name, k, total)`` adds to it (``total``
    None: not known yet); ``for_task(name)`` and ``for_stages()`` give callbacks of the forms the
    library's ``progress`` arguments take. ``enabled`` None: whether stderr is a terminal;
    ``console``: where to draw (tests pass one; default a rich console on stderr)."""

    def __init__(self, after_s: float = PROGRESS_AFTER_S, enabled: bool | None = None, console=None):
        self.after_s, self.started = after_s, time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.console, self.bar = console, None
        self.state: dict[str, list] = {}  # name -> [done, total]
        self.tasks: dict[str, int] = {}

    def __enter__(self) -> "LateProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, name: str, done: float, total: float | None) -> None:
        self.state[name] = [done, total]
        self._draw(name)

    def advance(self, name: str, k: float, total: float | None) -> None:
        done = self.state.get(name, [0, total])[0] + k
        self.update(name, done, total)

    def for_task(self, name: str) -> Callable[[float, float], None]:
        """``progress(done, total)``: event runs (seconds simulated), sweeps and validate (tasks)."""
        return lambda done, total: self.update(name, done, total)

    def for_stages(self) -> Callable[[str, int, int | None], None]:
        """``progress(stage, advance, total)``: the plan's stages, one bar each."""
        return self.advance

    def _draw(self, name: str) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < self.after_s:
                return
            self.bar = _rich_progress(self.console)
            self.bar.start()
        done, total = self.state[name]
        if name not in self.tasks:
            self.tasks[name] = self.bar.add_task(name, total=total)
        self.bar.update(self.tasks[name], completed=min(done, total) if total else done, total=total)


def _rich_progress(console=None):
    """A transient rich progress display on ``console`` (default: stderr)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}", markup=False), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
                    console=console or Console(stderr=True), transient=True)


__all__ = ["LateProgress", "PROGRESS_AFTER_S"]
