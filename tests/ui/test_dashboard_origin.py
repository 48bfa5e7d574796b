"""The dashboard against a hostile web page: a page on another site that rebinds its DNS name to
this machine (DNS rebinding) reaches the server with its own name in ``Host`` and is refused
before Flask or Dash run (Flask's test client sends the Host header a browser would)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("dash")
from dashboard import core  # noqa: E402
from dashboard.app import create_app  # noqa: E402
from dashboard.origin import AllowedHosts, check_host_name  # noqa: E402
from nvsim import InputError  # noqa: E402
from nvsim.catalog import default_catalog  # noqa: E402


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


@pytest.fixture(scope="module")
def served(catalog):
    """(the app's test client, the event runs a request started, the Simulate request's body)."""
    app = create_app(catalog, warm=False, allowed_hosts=AllowedHosts.served_on("127.0.0.1", ["dash.lab.example"]))
    started: list = []
    app.nvsim_runner.start = lambda *args, **kwargs: started.append(1) or "job-under-test"
    client = app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    simulate = next(d for d in deps if d["output"].startswith("..job.data."))
    record = core.compute(core.default_setup(catalog), catalog=catalog)
    outputs = [o.split("@")[0] for o in simulate["output"].strip(".").split("...")]
    body = {"output": simulate["output"], "outputs": [dict(zip(("id", "property"), o.rsplit(".", 1))) for o in outputs],
            "inputs": [dict(simulate["inputs"][0], value=1)],
            "state": [dict(s, value=v) for s, v in zip(simulate["state"], [record, None, None])], "changedPropIds": []}
    yield client, started, json.dumps(body)
    app.nvsim_runner.shutdown()
    app.nvsim_plans.shutdown()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8050", "localhost.evil.example", "127.0.0.1.evil.example:8050", "[::1"])
def test_a_rebound_name_is_refused_before_dash_runs(served, host):
    client, started, body = served
    page = client.get("/", headers={"Host": host})
    assert page.status_code == 400
    error = page.get_json()["error"]
    assert error.startswith("Host:") and "127.0.0.1" not in error and "dash.lab" not in error and "8050" not in error
    before = len(started)
    update = client.post("/_dash-update-component", data=body, content_type="application/json", headers={"Host": host})
    assert update.status_code == 400 and len(started) == before  # no event run started


@pytest.mark.parametrize("host", ["127.0.0.1:8050", "localhost:8050", "LOCALHOST:9000", "[::1]:8050", "127.0.0.1", "dash.lab.example:443"])
def test_the_names_the_dashboard_is_served_under_are_answered(served, host):
    client, started, body = served
    assert client.get("/", headers={"Host": host}).status_code == 200
    before = len(started)
    assert client.post("/_dash-update-component", data=body, content_type="application/json", headers={"Host": host}).status_code == 200
    assert len(started) == before + 1


def test_a_wildcard_bind_answers_any_address_and_only_the_names_given():
    wildcard = AllowedHosts.served_on("0.0.0.0", ["dash.lab.example"])
    assert wildcard.allows("192.168.1.5:8080") and wildcard.allows("[fd00::5]:8080") and wildcard.allows("Dash.Lab.Example")
    assert not wildcard.allows("evil.example:8080") and not wildcard.allows("192.168.1.5.nip.io:8080")
    lan = AllowedHosts.served_on("192.168.1.5")
    assert lan.allows("192.168.1.5:8050") and lan.allows("localhost:8050") and not lan.allows("192.168.1.6:8050")


@pytest.mark.parametrize("name", ["dash.lab.example:8050", "evil example", "http://dash.lab.example", "", "-dash", "a" * 64 + ".example"])
def test_a_bad_allow_host_is_one_line_naming_the_option(name):
    with pytest.raises(InputError) as refused:
        check_host_name(name)
    assert str(refused.value).startswith("--allow-host: must be a host name") and "\n" not in str(refused.value)


def test_cli_allow_host_refuses_a_port_in_one_line(cli):
    result = cli("dashboard", "--allow-host", "dash.lab.example:8050")
    assert result.returncode == 2 and "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("error: --allow-host: must be a host name")


def _report_frame(layout):
    """The Report tab's preview iframe in a layout."""
    from dash import html

    stack = [layout]
    while stack:
        item = stack.pop()
        if isinstance(item, html.Iframe) and item.id == "report-frame":
            return item
        children = getattr(item, "children", None)
        stack.extend(children if isinstance(children, list) else [children] if children is not None else [])
    raise AssertionError("no report-frame")


def test_the_report_preview_runs_sandboxed_with_nothing_allowed():
    """The preview is the report's HTML (inline CSS and SVG, no script: dashboard/report.py) in
    ``srcdoc``: an empty ``sandbox`` shows it in an origin of its own, with no script, form,
    pop-up, top navigation or plug-in."""
    from dashboard import views

    assert _report_frame(views.report_view()).sandbox == ""


SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
                    "Content-Security-Policy": "frame-ancestors 'none'", "Referrer-Policy": "no-referrer"}


def test_every_answer_forbids_framing_sniffing_and_referrers_and_the_page_s_files_keep_their_types(served):
    """No other site frames the dashboard (clickjacking), no answer is read as another type than it
    says, no address leaves in a Referer; every script and stylesheet the page loads is served as
    one, so ``nosniff`` stops none of them."""
    import re

    client, _, body = served
    page = client.get("/", headers={"Host": "127.0.0.1:8050"})
    files = re.findall(r'<script[^>]*src="([^"]+)"', page.get_data(as_text=True))
    styles = re.findall(r'<link[^>]*href="([^"]+\.css[^"]*)"', page.get_data(as_text=True))
    assert files and styles
    answers = [page, client.get("/", headers={"Host": "evil.example"}), client.get("/_dash-layout"),
               client.post("/_dash-update-component", data=body, content_type="application/json"),
               client.post("/_dash-update-component", data=b"{", content_type="application/json"), client.get("/no/such/page.js"),
               *(client.get(f) for f in files), *(client.get(f) for f in styles)]
    for answer in answers:
        assert {k: answer.headers.get(k) for k in SECURITY_HEADERS} == SECURITY_HEADERS, (answer.request.path, answer.status)
        assert len(answer.headers.getlist("X-Frame-Options")) == 1
    assert all(client.get(f).mimetype in ("application/javascript", "text/javascript") for f in files)
    assert all(client.get(f).mimetype == "text/css" for f in styles)


@pytest.mark.parametrize("host, headers", [
    ("127.0.0.1:8050", {"Origin": "http://evil.example"}),
    ("localhost:8050", {"Origin": "http://localhost:9999"}),  # another server's page on this machine
    ("127.0.0.1:8050", {"Origin": "null"}),  # a sandboxed frame, a file
    ("127.0.0.1:8050", {"Sec-Fetch-Site": "cross-site"}),
    ("127.0.0.1:8050", {"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"}),
])
@pytest.mark.parametrize("content_type", ["application/json", "text/plain;charset=UTF-8"])
def test_a_post_from_another_site_is_refused_before_its_body_is_read(served, monkeypatch, host, headers, content_type):
    """A page on another site can send a "simple" POST (text/plain: no CORS preflight): the guard
    read and checked its whole body (a 0.94 MB one took 0.65 s) before Dash refused it 415."""
    from dashboard import guard

    client, started, body = served
    read: list = []
    monkeypatch.setattr(guard, "check_update_request", lambda *args: read.append(1))
    before = len(started)
    answer = client.post("/_dash-update-component", data=body, content_type=content_type, headers={"Host": host, **headers})
    assert answer.status_code == 403 and answer.get_json()["error"].startswith("Origin:")
    assert read == [] and len(started) == before


@pytest.mark.parametrize("host, headers", [
    ("127.0.0.1:8050", {"Origin": "http://127.0.0.1:8050", "Sec-Fetch-Site": "same-origin"}),
    ("localhost:9000", {"Origin": "http://localhost:9000"}),  # through ssh -L 9000:localhost:8050
    ("dash.lab.example", {"Origin": "https://dash.lab.example"}),  # a TLS proxy that passes the Host on
    ("127.0.0.1:8050", {"Sec-Fetch-Site": "same-origin"}),
    ("127.0.0.1:8050", {}),  # not a browser
])
def test_a_post_from_the_dashboard_s_own_page_is_answered(served, host, headers):
    client, started, body = served
    before = len(started)
    answer = client.post("/_dash-update-component", data=body, content_type="application/json", headers={"Host": host, **headers})
    assert answer.status_code == 200 and len(started) == before + 1
