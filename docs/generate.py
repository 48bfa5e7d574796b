"""Regenerate the tables in docs/ that the models compute (never typed in).

    python docs/generate.py               # rewrite the marked blocks in place
    python docs/generate.py --check       # exit 1 if a block is stale (the test suite runs this)
    python docs/generate.py --validation  # also re-run `nvsim validate` for docs/validation.md
                                          # (minutes; tests/validation/test_validation.py checks that block)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent


def blocks() -> dict[str, str]:
    from nvsim.catalog import default_catalog
    from nvsim.pcie import bandwidth_table_markdown, small_transfer_table_markdown

    catalog = default_catalog()
    return {"pcie-bandwidth": bandwidth_table_markdown(catalog), "pcie-small-transfer": small_transfer_table_markdown(catalog)}


def render(text: str, generated: dict[str, str]) -> str:
    for name, body in generated.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.S)
        text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    return text


def main(argv: list[str]) -> int:
    generated = blocks()
    if "--validation" in argv:
        import os

        from nvsim.validation import compare_all, markdown_table
        generated["validation-table"] = markdown_table(compare_all(workers=os.cpu_count() or 1))
    stale = []
    for path in DOCS.rglob("*.md"):
        text = path.read_text()
        new = render(text, generated)
        if new != text:
            stale.append(path)
            if "--check" not in argv:
                path.write_text(new)
    if "--check" in argv and stale:
        print("stale generated blocks in: " + ", ".join(str(p) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
