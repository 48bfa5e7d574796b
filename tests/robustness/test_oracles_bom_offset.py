"""A bad byte's offset counts from the file's first byte, byte-order mark included (a hex editor's
offset, worked by hand): the BOM is dropped for decoding, not for the count."""

from __future__ import annotations

from pathlib import Path

import pytest

from nvsim.errors import InputError
from nvsim.loader import load_yaml


@pytest.mark.parametrize("body, offset", [(b"name: ok\nother: \xc3\x28\n", 16), (b"ab\xff", 2), (b"x" * 20000 + b"\xfe", 20000)])
def test_a_bad_bytes_offset_counts_the_byte_order_mark(tmp_path: Path, body: bytes, offset: int):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\xef\xbb\xbf" + body)
    byte = body[offset]
    with pytest.raises(InputError, match=rf"not UTF-8 text: byte 0x{byte:02x} at offset {offset + 3}\b"):
        load_yaml(bad)
