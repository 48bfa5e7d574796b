"""Arguments that would otherwise be the literals False, True, 0 and 1 in compiled code.

Numba types a Python literal argument by its value and compiles a callee once per distinct one:
``f(x, 0)`` and ``f(x, 1)`` are two compilations, ``f(x, PHASE0)`` and ``f(x, PHASE1)`` one (each
of the planner's emitters was compiled three times in a first run, and the event kernel's
``member_phase`` and ``nand_pieces`` twice: docs/performance.md, sixteenth pass). The planner's
emitters take a member I/O's direction and phase as these NumPy scalars, the event kernel a phase
(``member_phase``) and whether a member I/O's NAND time is wanted to its start or its end
(``nand_pieces``). Phase 0 is the reads a write waits for (read-modify-write's old data and
parity); phase 1 is everything else (``stripe.planner.MemberIOPlan``).
"""

from __future__ import annotations

import numpy as np

FALSE, TRUE = np.bool_(False), np.bool_(True)
PHASE0, PHASE1 = np.int64(0), np.int64(1)

__all__ = ["FALSE", "TRUE", "PHASE0", "PHASE1"]
