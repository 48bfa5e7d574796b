"""The array simulator: per-I/O demands of every resource (``system``), run as SimPy events
(``event``) or as rates (``fluid``); fio-like host streams (``workload``); the result (``result``).
docs/models/simulator.md describes both fidelities."""

from .event import simulate_event
from .fluid import simulate_fluid
from .result import SimResult, Utilisation
from .system import ArraySystem

__all__ = ["ArraySystem", "SimResult", "Utilisation", "simulate_event", "simulate_fluid"]
