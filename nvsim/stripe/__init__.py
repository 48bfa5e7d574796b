"""Stripe/parity core: md array layouts (``layout``) and the host-I/O -> member-I/O planner (``planner``)."""

from nvsim.stripe.layout import (
    ArrayGeometry,
    data_members,
    map_logical,
    map_logical_copies,
    parity_members,
    syndrome_members,
    unmap_member,
)

__all__ = [
    "ArrayGeometry",
    "data_members",
    "map_logical",
    "map_logical_copies",
    "parity_members",
    "syndrome_members",
    "unmap_member",
]
