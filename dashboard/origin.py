"""Who the dashboard's server answers (the Host names it is served under), and the headers every answer carries.

A page on another site cannot read the dashboard's answers (the browser's same-origin policy)
unless it rebinds its own DNS name to this machine's address (DNS rebinding): it is then
same-origin with the dashboard, and its requests carry its own name in ``Host``. ``Gate`` checks
every request's Host before Flask or Dash see it and answers any other name 400, naming nothing
of the server. A Host that is an IP address names the address the browser connected to, which no
DNS answer changes: the server's own is allowed (every address where it is bound to all of them).
A page on another site can still send a "simple" POST (``text/plain``: no CORS preflight) and
not read the answer; any request but GET, HEAD and OPTIONS from another origin's page (its
``Origin``, else ``Sec-Fetch-Site``) is answered 403 before its body is read.
Every answer, a refusal too, carries ``HEADERS``: no other site frames it (clickjacking), no
answer is read as another type than it says, no address leaves in a Referer.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from nvsim import InputError

log = logging.getLogger(__name__)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""The names a loopback dashboard is reached by on this machine (and through ``ssh -L``)."""
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_HOST_HEADER = re.compile(r"(?P<name>\[[^\]]*\]|[^:\[\]]*)(?::[0-9]*)?")
HEADERS = (("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
           ("Content-Security-Policy", "frame-ancestors 'none'"), ("Referrer-Policy", "no-referrer"))
"""Nothing frames the dashboard, even itself (the Report preview is a srcdoc, loaded from no address)."""
_OWN = {name.lower() for name, _ in HEADERS}
REFUSAL = "Host: not a name this dashboard is served under (nvsim dashboard --allow-host NAME adds one)"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
"""Requests that change nothing; every callback is a POST."""
CROSS_SITE = "Origin: the dashboard takes callback requests from its own page only, not from another site's"


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def _normal(name: str) -> str:
    """``name`` as the check compares it: lower case, an address in its short form without brackets."""
    address = _address(name)
    return str(address) if address is not None else name.lower()


def is_host_name(name: str) -> bool:
    """Whether ``name`` is a DNS host name (labels of letters, digits and inner hyphens) or an IP address."""
    return _address(name) is not None or (len(name) <= 253 and all(_LABEL.fullmatch(label) for label in name.lower().split(".")))


def check_host_name(name: str) -> str:
    """``name`` for ``--allow-host``, or an InputError naming the option."""
    if not is_host_name(name):
        raise InputError("--allow-host", f"must be a host name (dash.lab.example) or an IP address, without a port, got {name!r}")
    return name


@dataclass(frozen=True)
class AllowedHosts:
    """The names a dashboard answers to, at any port (a browser sends the port it connected to:
    an ``ssh -L 9000:localhost:8050`` tunnel's, a proxy's)."""

    names: frozenset[str]
    any_address: bool = False
    """Bound to every address (0.0.0.0, ::): any IP address is the server's own."""

    @classmethod
    def served_on(cls, bind: str, extra: Iterable[str] = ()) -> AllowedHosts:
        """This machine's loopback names, the bound address and ``extra`` (``--allow-host``)."""
        address = _address(bind)
        return cls(frozenset(_normal(n) for n in (*LOOPBACK_NAMES, bind, *extra)),
                   address is not None and address.is_unspecified)

    def allows(self, host: str) -> bool:
        """Whether a request's ``Host`` header (``name`` or ``name:port``) names this server."""
        match = _HOST_HEADER.fullmatch(host)
        if match is None or not is_host_name(match["name"].removeprefix("[").removesuffix("]")):
            return False
        name = _normal(match["name"])
        return name in self.names or self.any_address and _address(name) is not None


def from_another_site(environ: dict) -> bool:
    """Whether a request was sent by another origin's page: its ``Origin`` names another host and
    port than its ``Host`` (``null``: a sandboxed frame, a file), or, without an ``Origin``, its
    ``Sec-Fetch-Site`` says cross-site or same-site. A client that is no browser sends neither."""
    origin = environ.get("HTTP_ORIGIN")
    if origin is None:
        return environ.get("HTTP_SEC_FETCH_SITE") in ("cross-site", "same-site")
    netloc = urlsplit(origin).netloc.lower()
    return not netloc or netloc != environ.get("HTTP_HOST", "").lower()


def _refuse(start_response: Callable, status: str, message: str) -> list[bytes]:
    body = json.dumps({"error": message}).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


class Gate:
    """WSGI middleware in front of the Flask app: a request whose Host the dashboard is not served
    under is answered 400, a request other than GET, HEAD or OPTIONS from another site's page 403
    (one line each), before Flask reads its body or Dash runs; every answer gets ``HEADERS``."""

    def __init__(self, app: Callable, allowed: AllowedHosts):
        self.app, self.allowed = app, allowed

    def __call__(self, environ: dict, start: Callable):
        def start_response(status: str, headers: list, exc_info=None):
            return start(status, [h for h in headers if h[0].lower() not in _OWN] + list(HEADERS), exc_info)

        host = environ.get("HTTP_HOST")  # none from a browser; werkzeug then reads the bound address
        if host is not None and not self.allowed.allows(host):
            log.warning("refused a request for Host %r (not a name this dashboard is served under)", host[:200])
            return _refuse(start_response, "400 BAD REQUEST", REFUSAL)
        if environ.get("REQUEST_METHOD") not in SAFE_METHODS and from_another_site(environ):
            log.warning("refused a %s from another site's page (Origin %r)", environ.get("REQUEST_METHOD"),
                        environ.get("HTTP_ORIGIN", "")[:200])
            return _refuse(start_response, "403 FORBIDDEN", CROSS_SITE)
        return self.app(environ, start_response)
