"""nvsim.numba_args: a member I/O's direction and phase passed as NumPy scalars compile a compiled
callee once, where the literals compile it once per value."""

import numba as nb

from nvsim.numba_args import FALSE, PHASE0, PHASE1, TRUE


def _callee_and_callers():
    @nb.njit
    def callee(write, phase):
        return phase + 1 if write else phase

    @nb.njit
    def with_scalars():
        return callee(FALSE, PHASE0) + callee(TRUE, PHASE1)

    @nb.njit
    def with_literals():
        return callee(False, 0) + callee(True, 1)

    return callee, with_scalars, with_literals


def test_the_scalars_compile_a_callee_once():
    callee, with_scalars, _ = _callee_and_callers()
    assert with_scalars() == 2
    assert len(callee.signatures) == 1


def test_literals_would_compile_it_once_per_value():
    # what the scalars are for: the same calls with literals type each value on its own
    callee, _, with_literals = _callee_and_callers()
    assert with_literals() == 2
    assert len(callee.signatures) == 2


def test_the_values_are_those_of_the_literals():
    assert (bool(FALSE), bool(TRUE), int(PHASE0), int(PHASE1)) == (False, True, 0, 1)
