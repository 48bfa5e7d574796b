"""`python -m nvsim.warm` (make setup): short runs that leave the kernels compiled in this
source's cache, and say where it is."""

from __future__ import annotations

import io

from nvsim import warm
from nvsim.numba_cache import cache_is_empty


def test_the_set_up_leaves_compiled_kernels_in_this_sources_cache(monkeypatch):
    monkeypatch.setattr(warm, "WORKLOADS", 1)
    said = io.StringIO()
    seconds = warm.warm(("latency-tails",), stream=said)
    directory = said.getvalue().split(" into ", 1)[1].split(" (", 1)[0]
    assert not cache_is_empty(directory)
    assert seconds > 0 and said.getvalue().rstrip().endswith(f"kernels ready ({seconds:.0f} s)")
