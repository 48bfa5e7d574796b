"""``named_rng`` makes NumPy's generator of ``SeedSequence(seed, spawn_key=(crc32(stream), *index))``
bit for bit (its own seed hashing, compiled, replaces NumPy's for speed)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvsim.sim.workload import named_rng

WORDS = st.one_of(st.integers(0, 3), st.integers(0, 2**32 + 1), st.integers(0, 2**130))


def numpy_rng(seed: int, stream: str, *index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(stream.encode()), *index)))


@settings(max_examples=400, deadline=None)
@given(seed=WORDS, stream=st.text(max_size=12), index=st.lists(WORDS, max_size=4))
def test_same_generator_as_numpy_seed_sequence(seed, stream, index):
    ours, theirs = named_rng(seed, stream, *index), numpy_rng(seed, stream, *index)
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert np.array_equal(ours.integers(0, 2**40, 8), theirs.integers(0, 2**40, 8))
    assert np.array_equal(ours.gamma(4.0, 0.25, 8), theirs.gamma(4.0, 0.25, 8))


def test_the_event_modes_streams_keep_their_numbers():
    """The first draws of job 3's first batch of offsets, as NumPy 2.4's own seeding gave them."""
    assert named_rng(1, "random offsets", 3, 0).integers(0, 1 << 30, 3).tolist() == [25372154, 451607549, 142594800]


def test_generators_are_independent_objects():
    a, b = named_rng(5, "nand service times", 0, 1), named_rng(5, "nand service times", 0, 1)
    assert a.bit_generator is not b.bit_generator
    assert a.random() == b.random()


def test_a_negative_index_is_refused_as_numpy_refuses_it():
    with pytest.raises(ValueError):
        named_rng(1, "random offsets", -1)
