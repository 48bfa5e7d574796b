"""Constants of the machines every model shares, defined once.

``PAGE_BYTES``: the 4 KiB page. The host's memory page (an NVMe PRP entry maps one; fio's per-page
submit cost counts them), md's stripe-cache page (STRIPE_SIZE on x86: strips are whole pages), and
the unit drives map and program (the smallest indirection unit counted).
"""

from __future__ import annotations

PAGE_BYTES = 4096

__all__ = ["PAGE_BYTES"]
