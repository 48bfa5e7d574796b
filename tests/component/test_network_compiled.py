"""The compiled Schweitzer loop (``nvsim.sim.loops._mva``) and its NumPy form
(``_schweitzer_numpy``, the loop it was compiled from) give the same bits: random networks of one
to three classes, with and without visits, open work, wait scales, warm starts and classes bound
to a station of threads, many near
saturation. And which one a solve runs: NumPy until the compiled one is at hand or has paid."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nvsim.sim.network as loops
from nvsim.sim.network import STACK, ThreadQueue, _pairwise_sum, solve_network


def solved(compiled: bool, **kwargs):
    """``solve_network(**kwargs)`` with the compiled loop or the NumPy one (set by hand and put
    back: hypothesis runs the examples of one test call, where a fixture would not be reset)."""
    chooser = loops._compiled_pays
    loops._compiled_pays = lambda: compiled
    try:
        return solve_network(**kwargs)
    finally:
        loops._compiled_pays = chooser


def same_bits(a, b) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def network(rng: np.random.Generator, classes: int, k: int, sparse: float) -> dict:
    """A random network: demands from microseconds to milliseconds, some stations unvisited."""
    demand = rng.lognormal(-9.0, 2.0, (classes, k)) * (rng.random((classes, k)) > sparse)
    return {"demand_s": demand, "servers": rng.choice([1.0, 2.0, 8.0, 64.0], k),
            "population": rng.choice([0.0, 0.5, 1.0, 4.0, 64.0, 2048.0], classes),
            "base_s": demand.sum(axis=1) + rng.lognormal(-9.0, 2.0, classes)}


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), classes=st.integers(1, 3), k=st.integers(1, 300),
       sparse=st.sampled_from([0.0, 0.3, 0.8]),
       extras=st.sets(st.sampled_from(["open", "scale", "visits", "start", "threads"])),
       iterations=st.sampled_from([1, 3, 400]))
def test_compiled_loop_gives_the_numpy_loops_bits(seed, classes, k, sparse, extras, iterations):
    rng = np.random.default_rng(seed)
    args = network(rng, classes, k, sparse)
    kwargs = {"iterations": iterations}
    if "open" in extras:
        kwargs["open_utilisation"] = rng.random(k) * rng.choice([0.5, 1.2])
    if "scale" in extras:
        kwargs["wait_scale"] = rng.choice([0.0, 1.0 / 23, 0.5, 1.0], (classes, k))
    if "visits" in extras:
        kwargs["visits"] = rng.choice([0.0, 1.0, 2.0, 40.0], (classes, k))
    if "start" in extras:
        kwargs["start"] = rng.random((classes, k)) * 10.0
    if "threads" in extras:  # a station of threads, some classes bound to them (a fio job's cores)
        kwargs["threads"] = ThreadQueue(int(rng.integers(k)), rng.choice([0.0, 1.0, 2.5, 8.0], classes),
                                        rng.choice([0.5, 0.73, 1.0], classes))
    want = solved(False, **args, **kwargs)
    got = solved(True, **args, **kwargs)
    for field in ("throughput", "cycle_s", "utilisation", "waiting_s", "queue"):
        assert same_bits(getattr(got, field), getattr(want, field)), field


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 300, 1000, 4099, 100_003])
def test_pairwise_sum_is_numpys(n):
    values = np.random.default_rng(n).lognormal(0.0, 6.0, n)
    assert _pairwise_sum(values, 0, n, np.zeros((STACK, 3), np.int64), np.zeros(STACK)) == values.sum()


def test_a_few_solves_run_in_numpy_until_they_have_cost_what_compiling_would(monkeypatch):
    """No compiled loop at hand: solves run in NumPy (nothing compiles for a run's few networks)
    until they have taken ``COMPILE_AFTER_NUMPY_S``; then the compiled loop runs. At hand (compiled
    here or in the cache), it always runs."""
    calls = []
    monkeypatch.setattr(loops, "_mva", _Recorder(loops._mva, calls))
    monkeypatch.setattr(loops, "_at_hand", False)
    monkeypatch.setattr(loops, "compiled_in_cache", lambda dispatcher: False)
    args = {"demand_s": np.array([[1e-4, 2e-4]]), "servers": np.ones(2), "population": np.array([8.0]),
            "base_s": np.array([1e-3])}
    monkeypatch.setattr(loops, "_numpy_s", 0.0)
    numpy_answer = solve_network(**args)
    assert not calls and loops._numpy_s > 0.0
    monkeypatch.setattr(loops, "_numpy_s", loops.COMPILE_AFTER_NUMPY_S)
    compiled_answer = solve_network(**args)
    assert len(calls) == 1
    assert same_bits(numpy_answer.throughput, compiled_answer.throughput)
    monkeypatch.setattr(loops, "_numpy_s", 0.0)
    monkeypatch.setattr(loops, "compiled_in_cache", lambda dispatcher: True)
    solve_network(**args)
    assert len(calls) == 2


class _Recorder:
    """``_mva`` with its calls counted (``signatures`` empty: not compiled here)."""

    signatures = ()

    def __init__(self, function, calls):
        self.function, self.calls = function, calls

    def __call__(self, *args):
        self.calls.append(len(args))
        return self.function(*args)
