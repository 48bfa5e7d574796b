"""`nvsim dashboard`'s server: Werkzeug's development server on a loopback address only; any other
address is served by waitress, and without waitress that is one line naming the extra."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import signal
import socket
import sys
import types

import pytest

pytest.importorskip("dash")
import dashboard.app as app_module  # noqa: E402
from nvsim.errors import InputError  # noqa: E402


class FakeApp:
    def __init__(self, calls: list):
        self.calls, self.server = calls, object()
        self.nvsim_runner = types.SimpleNamespace(shutdown=lambda: calls.append("shutdown"))
        self.nvsim_plans = types.SimpleNamespace(shutdown=lambda: calls.append("plans shut down"))

    def run(self, **kwargs):
        self.calls.append(("werkzeug", kwargs["host"]))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(monkeypatch):
    calls: list = []
    monkeypatch.setattr(app_module, "create_app", lambda **kwargs: FakeApp(calls))
    waitress = types.ModuleType("waitress")  # a stand-in: the test serves nothing
    waitress.__spec__ = importlib.machinery.ModuleSpec("waitress", None)
    waitress.serve = lambda app, host, port, threads: calls.append(("waitress", host))
    monkeypatch.setitem(sys.modules, "waitress", waitress)
    previous = signal.getsignal(signal.SIGTERM)
    yield calls
    signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize("host, server", [("127.0.0.1", "werkzeug"), ("localhost", "werkzeug"), ("0.0.0.0", "waitress")])
def test_loopback_keeps_the_development_server_and_any_other_host_gets_waitress(served, host, server):
    app_module.run(host=host, port=_free_port())
    assert served == [(server, host), "shutdown", "plans shut down"]  # both worker pools stopped


def test_without_waitress_a_public_host_is_one_line_naming_the_extra(served, monkeypatch):
    find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "waitress" else find(name, *a))
    with pytest.raises(InputError) as refused:
        app_module.run(host="0.0.0.0", port=_free_port())
    assert str(refused.value).startswith("--host: serving the dashboard on 0.0.0.0") and "pip install 'nvsim[dashboard]'" in str(refused.value)
    assert served == []  # refused before the app is made


def test_is_loopback():
    assert app_module.is_loopback("127.0.0.1") and app_module.is_loopback("::1") and app_module.is_loopback("LOCALHOST")
    assert not app_module.is_loopback("0.0.0.0") and not app_module.is_loopback("192.168.1.5") and not app_module.is_loopback("example.org")


def test_the_development_server_names_nvsim_only_not_werkzeug_or_the_python_build(monkeypatch):
    """`nvsim dashboard` on a loopback address, a real server on a free port: its `Server:` header (and that
    of a request refused before the app) says "nvsim" only; Werkzeug's own handler is left as it is."""
    import http.client
    import os
    import threading

    from werkzeug.serving import WSGIRequestHandler

    made = app_module.create_app
    monkeypatch.setattr(app_module, "create_app", lambda **kwargs: made(warm=False, **kwargs))
    port, answers = _free_port(), []

    def ask() -> None:
        try:
            for _ in range(600):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    threading.Event().wait(0.05)
            too_many = "".join(f"X-{n}: 1\r\n" for n in range(101))  # refused by http.server (431)
            for extra in ("", too_many):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                    conn.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
                    answer = http.client.HTTPResponse(conn)
                    answer.begin()
                    answers.append((answer.status, answer.getheader("Server")))
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # run's handler: leave serve_forever

    previous = signal.getsignal(signal.SIGTERM)
    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    try:
        with pytest.raises(SystemExit):
            app_module.run(host="127.0.0.1", port=port)
    finally:
        signal.signal(signal.SIGTERM, previous)
        asker.join(10)
    assert answers == [(200, "nvsim"), (431, "nvsim")]
    assert isinstance(vars(WSGIRequestHandler)["server_version"], property)  # Werkzeug's own is left as it is
