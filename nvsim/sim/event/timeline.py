"""SimPy as the compiled event mode's timeline: a SimPy process walks the run's phases -- the
ramp (warm-up) up to the measured window, the window's batches, then any extension a precision
asks for -- and at each boundary moves the compiled kernel on to it (``stepper.advance``).

Only SimPy's public API (``Environment``, ``process``, ``timeout``, ``run``). The kernel
processes every event before a boundary and none at or after it, and the next window goes on from
there, so a run cut into windows gives the same bits as one run to the end.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Protocol

import simpy


class Stepper(Protocol):
    """What the timeline drives: ``advance(to_s)`` runs the kernel up to ``to_s`` (a whole
    rebuild may end it sooner: ``ended`` then); ``extension()``: the window's new end if the
    precision asks for more, else None."""

    ended: bool

    def advance(self, to_s: float) -> None: ...

    def extension(self) -> float | None: ...


def window_ends(warm_s: float, end_s: float, windows: int) -> list[float]:
    """The boundaries: the ramp's end, then the measured window cut into ``windows`` equal parts
    (the last exactly ``end_s``)."""
    step = (end_s - warm_s) / max(windows, 1)
    return [warm_s] + [warm_s + step * i for i in range(1, max(windows, 1))] + [end_s]


def drive(stepper: Stepper, warm_s: float, end_s: float, windows: int) -> None:
    """Run the timeline to its end (``end_s``, or later if the stepper's precision extends it;
    infinite: until the stepper ends, as a run to a rebuild's end does)."""
    env = simpy.Environment()
    env.process(_timeline(env, stepper, warm_s, end_s, windows))
    env.run()


def _timeline(env: simpy.Environment, stepper: Stepper, warm_s: float, end_s: float,
              windows: int) -> Generator[simpy.Event, None, None]:
    """The SimPy process: each boundary in turn, then the precision's extensions."""
    bounds = [end_s] if math.isinf(end_s) else window_ends(warm_s, end_s, windows)
    for bound in bounds:
        if not math.isinf(bound):
            yield env.timeout(max(0.0, bound - env.now))
        stepper.advance(bound)
        if stepper.ended:
            return
    more = stepper.extension()
    while more is not None:
        yield env.timeout(max(0.0, more - env.now))
        stepper.advance(more)
        more = stepper.extension()
