"""nvsim.progress: bars on stderr only, only on a terminal, only once the work runs past its delay."""

import io

from rich.console import Console

from nvsim.progress import LateProgress


def _console() -> tuple[Console, io.StringIO]:
    text = io.StringIO()
    return Console(file=text, force_terminal=True, width=80), text


def test_a_bar_shows_once_the_work_runs_past_its_delay():
    console, text = _console()
    with LateProgress(after_s=0.0, enabled=True, console=console) as bar:
        bar.for_task("validate")(3, 10)
        bar.for_task("validate")(7, 10)
        assert bar.bar is not None and bar.bar.tasks[0].completed == 7 and bar.bar.tasks[0].total == 10
    assert "validate" in text.getvalue()


def test_quick_work_and_a_non_terminal_draw_nothing():
    console, text = _console()
    with LateProgress(after_s=3600.0, enabled=True, console=console) as quick:
        quick.update("sweep", 1, 2)
    with LateProgress(after_s=0.0, enabled=False, console=console) as piped:
        piped.update("sweep", 1, 2)
    assert quick.bar is None and piped.bar is None and text.getvalue() == ""


def test_stages_advance_their_own_bars():
    console, _ = _console()
    with LateProgress(after_s=0.0, enabled=True, console=console) as bar:
        stages = bar.for_stages()
        stages("fluid", 4, 10)
        stages("fluid", 3, 10)
        stages("event", 1, 2)
        done = {task.description: task.completed for task in bar.bar.tasks}
    assert done == {"fluid": 7, "event": 1}
