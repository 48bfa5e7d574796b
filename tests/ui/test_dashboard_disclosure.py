"""Nothing of the server reaches a dashboard client (issue 34): a canary environment variable and a
canary file outside the tree, tried through every field that takes text or a file -- the fio upload,
the scenario upload, the Plan view's requirements, the share link, the datasheet form -- through
the app's own callbacks (Flask's test client, the guard in front of them), and found in no answer.

The positive controls show the canaries are visible where they should be: the command line's
opener and environment (fio's behaviour, docs/fio.md) quote them, so an answer without them is
the dashboard holding them back, not a canary nobody could see. Also here: the datasheet form's
and the link's physical bounds, and the dashboard serving from a read-only working directory.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlencode

import pytest

from dashboard import core, datasheet, guard, plan_view, share
from dashboard.client_files import ClientFiles
from dashboard.views import LINK_WAITING
from nvsim import InputError
from nvsim.fio import local_file, parse_fio_jobfile
from nvsim.plan.spec import load_plan, workload_specs
from nvsim.shipped import SOURCE_TREE

CANARY_VAR = "NVSIM_DISCLOSURE_CANARY"


@pytest.fixture(scope="module")
def canary(tmp_path_factory):
    """(variable name, its random value, the canary file, its random content, a job file beside it
    that replays it); the file lies outside the source tree."""
    value = "envcanary" + secrets.token_hex(12)
    content = "filecanary" + secrets.token_hex(12)
    folder = tmp_path_factory.mktemp("outside")
    assert SOURCE_TREE not in folder.resolve().parents
    secret = folder / "secret.txt"
    secret.write_text(content + "\n" + content + " more\n")
    job = folder / "reads-secret.fio"
    job.write_text(f"[{content}]\nrw=randread\nbs=4k\nread_iolog={secret}\n")
    old = os.environ.get(CANARY_VAR)
    os.environ[CANARY_VAR] = value
    yield {"var": CANARY_VAR, "value": value, "file": secret, "content": content, "job": job}
    if old is None:
        del os.environ[CANARY_VAR]
    else:
        os.environ[CANARY_VAR] = old


@pytest.fixture(scope="module")
def app_client(catalog):
    from dashboard.app import create_app

    app = create_app(catalog, warm=False)
    deps = {d["output"]: d for d in app.server.test_client().get("/_dash-dependencies").get_json()}
    yield app.server.test_client(), deps
    app.nvsim_runner.shutdown()


def callback(deps, first_output: str) -> dict:
    return next(d for out, d in deps.items() if out.startswith(f"..{first_output}.") or out == first_output)


def ask(client, dep: dict, inputs, state=()) -> tuple[int, str]:
    outputs = [o.split("@")[0] for o in dep["output"].strip(".").split("...")]
    body = {"output": dep["output"], "outputs": [{"id": o.rsplit(".", 1)[0], "property": o.rsplit(".", 1)[1]} for o in outputs],
            "inputs": [dict(i, value=v) for i, v in zip(dep["inputs"], inputs)],
            "state": [dict(s, value=v) for s, v in zip(dep["state"], state)], "changedPropIds": []}
    response = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    return response.status_code, response.get_data(as_text=True)


def data_url(text: str) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(text.encode()).decode()


def paths_to(target: Path) -> list[str]:
    """Names a hostile client would try for ``target``: absolute, climbing out of the tree and of
    the examples, and through /proc."""
    up = "../" * 24 + str(target).lstrip("/")
    return [str(target), up, "tests/data/fio/traces/" + up, "scenarios/../../../../../../../../" + str(target).lstrip("/")]


def hostile_names(canary) -> list[str]:
    return [*paths_to(canary["file"]), "/proc/self/environ", f"/proc/{os.getpid()}/environ", "/proc/self/cmdline",
            "/dev/stdin", f"${{{canary['var']}}}"]


def assert_nothing_of_the_server(answers: list[tuple[str, int, str]], canary) -> None:
    assert answers
    for what, status, text in answers:
        assert status != 500, f"{what}: {text[:300]}"
        assert canary["value"] not in text, f"{what} disclosed the environment: {text[:300]}"
        assert canary["content"] not in text, f"{what} disclosed the file: {text[:300]}"


# ---------------------------------------------------------------- the positive controls


def test_the_command_line_opener_and_environment_do_reach_the_canaries(canary, catalog):
    """fio's behaviour on the command line: the user's environment and files (so the canaries can be seen)."""
    text = f"[j]\nrw=randread\nbs=4k\nsize=${{{canary['var']}}}\n"
    with pytest.raises(InputError, match=canary["value"]):
        parse_fio_jobfile(text, "job.fio", catalog=catalog)
    with pytest.raises(InputError, match=canary["content"]):
        parse_fio_jobfile(f"[j]\nrw=randread\nbs=4k\nread_iolog={canary['file']}\n", "job.fio", catalog=catalog,
                          open_file=local_file)


# ---------------------------------------------------------------- every field, through the app


def test_fio_upload_discloses_neither_the_environment_nor_files(app_client, canary, catalog):
    client, deps = app_client
    upload = callback(deps, "custom.data")
    current = core.compute(core.default_setup(catalog), catalog=catalog)
    var = f"${{{canary['var']}}}"
    texts = [f"[j]\nrw=randread\nbs=4k\nsize={var}\n", f"[j]\nrw=randread\nbs={var}\n",
             f"[j]\nrw=randread\nbs=4k\ndescription={var}\nfilename={var}\nsize=1g\n",  # options nvsim does not read
             f"[j]\nrw=randread\nbs=4k\niodepth={var}*2\n", f"[{var}]\nrw=randread\nbs=4k\n"]
    texts += [f"[j]\nrw=randread\nbs=4k\nread_iolog={name}\n" for name in hostile_names(canary)]
    answers = []
    for i, text in enumerate(texts):
        status, answer = ask(client, upload, [data_url(text)], [f"job{i}.fio", current])
        answers.append((text, status, answer))
    assert_nothing_of_the_server(answers, canary)
    notes = {t: json.loads(a)["response"]["fio-note"]["children"] for t, _s, a in answers}
    for text, note in notes.items():
        if "read_iolog" in text and "${" not in text:
            assert "is not a shipped example" in note and "no other file of its server" in note, note
        elif "${" in text.split("\n", 1)[1].split("description")[0]:
            assert "environment variables are not expanded here" in note, note
    unset = "NVSIM_DISCLOSURE_UNSET_" + secrets.token_hex(4)
    _s, set_answer = ask(client, upload, [data_url(texts[0])], ["a.fio", current])
    _s, unset_answer = ask(client, upload, [data_url(texts[0].replace(canary["var"], unset))], ["a.fio", current])
    assert set_answer.replace(canary["var"], unset) == unset_answer  # the refusal does not tell whether it exists


def test_scenario_upload_discloses_nothing(app_client, canary):
    client, deps = app_client
    upload = callback(deps, "platform.value")
    var = f"${{{canary['var']}}}"
    texts = [f"name: {var}\nplatform: {var}\narray: {{level: 6, drive: {canary['file']}, drives: 8}}\n",
             f"name: x\nplatform: supermicro-as-2125hs-tnr\narray: {{level: 6, drive: kioxia-cm7-r-3.84tb, drives: 8, "
             f"strip_bytes: 64KiB, engine: linux-md}}\nworkloads: [{{name: w, rw: randread, bs: {var}, read_iolog: {canary['file']}}}]\n",
             f"!!python/object/apply:os.getenv [{canary['var']}]\n", f"name: !!python/object/apply:open [{canary['file']}]\n",
             f"include: {canary['file']}\n"]
    answers = [(text, *ask(client, upload, [data_url(text)], ["s.yaml", "randread-4k"])) for text in texts]
    assert_nothing_of_the_server(answers, canary)


def test_plan_requirements_disclose_nothing(app_client, canary):
    client, deps = app_client
    plan = callback(deps, "plan-job.data")  # Plan: the requirements are checked before a worker runs them
    names = [*hostile_names(canary), str(canary["job"]), *paths_to(canary["job"])]
    answers = []
    for name in names:
        text = plan_view.EXAMPLE.replace("{name: oltp, profile: randrw-8k-70, numjobs: 64, iodepth: 16,", f"{{name: oltp, fio: '{name}',")
        status, answer = ask(client, plan, [1], [text])
        answers.append((name, status, answer))
        assert "requirements.workloads[0].fio" in answer and "is not a shipped example" in answer, answer[:300]
    var_text = plan_view.EXAMPLE.replace("name: oltp", f"name: ${{{canary['var']}}}")
    answers.append(("${VAR} as a name", *ask(client, plan, [1], [var_text.replace("workloads:", "workloadz:")])))
    assert_nothing_of_the_server(answers, canary)


def test_share_link_discloses_nothing(app_client, canary):
    client, deps = app_client
    link = next(d for out, d in deps.items() if "url-note.children" in out)
    var = f"${{{canary['var']}}}"
    sheet = {"name": "datasheet-x", "ds-model": var, "ds-capacity": str(canary["file"]), "ds-dwpd": var}
    more = {"custom": {"label": var, "workloads": [{"name": "w", "rw": "randread", "bs": var, "read_iolog": str(canary["file"])}]},
            "extras": {"seed": 1, "layout": str(canary["file"])}, "sheets": [sheet]}
    encoded = base64.urlsafe_b64encode(json.dumps(more).encode()).decode().rstrip("=")
    searches = ["?" + urlencode({"platform": var, "drive": str(canary["file"]), "ns": "size", "ns_value": var}),
                "?" + urlencode({"drives": var}), "?" + urlencode({"more": encoded}),
                "?" + urlencode({"workload": "file", "more": base64.urlsafe_b64encode(json.dumps(
                    {"custom": more["custom"]}).encode()).decode()})]
    answers = [(search, *ask(client, link, [search], [LINK_WAITING])) for search in searches]
    assert_nothing_of_the_server(answers, canary)
    change = next(d for out, d in deps.items() if out.startswith("..platform-error."))
    setup = core.default_setup()
    values = [setup["platform"], str(canary["file"]), 24, "size", var, 6, 65536, "linux-md", "file", None, None,
              more["custom"], more["extras"], None]
    assert_nothing_of_the_server([("controls", *ask(client, change, values))], canary)


def test_datasheet_form_discloses_nothing(app_client, canary):
    client, deps = app_client
    add = next(d for d in deps.values() if [i["id"] for i in d["inputs"]] == ["ds-add"])
    var = f"${{{canary['var']}}}"
    good = {"ds-model": "PM1743", "ds-vendor": "", "ds-capacity": "7.68 TB", "ds-dwpd": 1, "ds-seq-read": "14 GB/s",
            "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K", "ds-raw": "", "ds-pcie": 5, "ds-nand": "TLC"}
    forms = [dict(good, **{key: value}) for key in ("ds-model", "ds-vendor", "ds-capacity", "ds-seq-read", "ds-raw", "ds-nand")
             for value in (var, str(canary["file"]), f"$({canary['var']})")]
    answers = []
    for form in forms:
        state = [form[k] for k in ("ds-model", "ds-vendor", "ds-capacity", "ds-dwpd", "ds-seq-read", "ds-seq-write",
                                   "ds-rand-read", "ds-rand-write", "ds-raw", "ds-pcie", "ds-nand")] + [None]
        answers.append((json.dumps(form), *ask(client, add, [1], state)))
    assert_nothing_of_the_server(answers, canary)


# ---------------------------------------------------------------- the resolver itself


def test_client_files_open_only_the_shipped_examples_and_no_link_out_of_them(tmp_path, canary):
    tree = tmp_path / "tree"
    (tree / "scenarios" / "a").mkdir(parents=True)
    (tree / "scenarios" / "a" / "job.fio").write_text("[j]\nrw=read\n")
    (tree / "scenarios" / "a" / "trace.log").write_text("fio version 2 iolog\n")
    (tree / "scenarios" / "a" / "escape.log").symlink_to(canary["file"])
    (tree / "private").mkdir()
    (tree / "private" / "key").write_text(canary["content"])
    files = ClientFiles({"mine.log": b"uploaded"}, root=tree, folders=("scenarios",))
    assert files("scenarios/a/job.fio", "plan.yaml") == ("scenarios/a/job.fio", b"[j]\nrw=read\n")
    assert files("trace.log", "scenarios/a/job.fio") == ("scenarios/a/trace.log", b"fio version 2 iolog\n")
    assert files("/anywhere/mine.log", "job.fio") == ("mine.log", b"uploaded")  # the client's own upload, by its name
    for name, naming in [("scenarios/a/escape.log", "x"), ("escape.log", "scenarios/a/job.fio"), ("private/key", "x"),
                         ("../private/key", "scenarios/a/job.fio"), ("scenarios/../private/key", "x"), (str(canary["file"]), "x"),
                         ("scenarios/a/missing.log", "x")]:
        with pytest.raises(InputError, match="is not a file uploaded with it or a shipped example") as refusal:
            files(name, naming)
        assert canary["content"] not in str(refusal.value) and str(tree) not in str(refusal.value)


def test_plan_fio_requirements_reach_a_shipped_job_file_and_its_trace(tmp_path, catalog):
    """The shipped examples work through the resolver; on the command line the plan's folder is the user's."""
    shutil.copy(SOURCE_TREE / "tests/data/fio/traces/fio-v3.iolog", tmp_path / "fio-v3.iolog")
    (tmp_path / "job.fio").write_text("[j]\nrw=read\nbs=1m\nread_iolog=fio-v3.iolog\n")
    (tmp_path / "plan.yaml").write_text(textwrap.dedent(plan_view.EXAMPLE).replace(
        "{name: oltp, profile: randrw-8k-70, numjobs: 64, iodepth: 16,", "{name: oltp, fio: job.fio,"))
    spec, here = load_plan(tmp_path / "plan.yaml")
    shipped = workload_specs(spec, here, catalog, open_file=ClientFiles(root=tmp_path, folders=(".",)))
    assert shipped["oltp"].rw == "randrw" and shipped["oltp"].size == 16_683_008  # the trace's mix and region
    with pytest.raises(InputError, match=r"requirements\.workloads\[0\]\.fio: 'job\.fio' is not a shipped example"):
        workload_specs(spec, here, catalog, open_file=ClientFiles())


# ---------------------------------------------------------------- bounds of the form and the link


DATASHEET_FORM = {"ds-model": "PM1743 7.68 TB", "ds-capacity": "7.68 TB", "ds-dwpd": "1", "ds-seq-read": "14 GB/s",
                  "ds-seq-write": "6 GB/s", "ds-rand-read": "2500K", "ds-rand-write": "300K", "ds-pcie": 5}


@pytest.mark.parametrize("field, value, words", [
    ("ds-capacity", "0", "allowed from 1.00 GB up to 1.00 PB"),
    ("ds-capacity", "-1 TB", "allowed from 1.00 GB up to 1.00 PB"),
    ("ds-capacity", "2 PB", "allowed from 1.00 GB up to 1.00 PB"),
    ("ds-raw", "3 PB", "up to 2.00 PB"),
    ("ds-rand-write", "1e12", "allowed from 1.00K up to 31.25M (4K random I/Os a second: a hard disk does 200"),
    ("ds-rand-read", "40M", "up to 31.25M"),
    ("ds-seq-read", "129 GB/s", "allowed from 1.00 MB/s up to 128.00 GB/s"),
    ("ds-seq-write", "0 GB/s", "allowed from 1.00 MB/s"),
    ("ds-dwpd", "101", "allowed above 0 up to 100"),
    ("ds-model", "m" * 200_000, "200,000 characters; at most 100"),
    ("ds-vendor", "v" * 101, "101 characters; at most 100"),
])
def test_a_datasheet_figure_out_of_physical_range_is_one_line_naming_field_and_range(field, value, words):
    with pytest.raises(InputError) as refused:
        datasheet.drive_spec(datasheet.drive_data(dict(DATASHEET_FORM, **{field: value})))
    assert refused.value.field == field and words in refused.value.message and len(str(refused.value)) < 200


def test_the_physical_ceilings_are_accepted_and_catalog_like_drives_pass():
    top = dict(DATASHEET_FORM, **{"ds-capacity": "1 PB", "ds-raw": "2 PB", "ds-seq-read": "128 GB/s", "ds-pcie": 6})  # Gen6: only the ceiling
    assert datasheet.drive_spec(datasheet.drive_data(top)).capacity_bytes.value == 10**15
    assert datasheet.drive_spec(datasheet.drive_data(DATASHEET_FORM)).rand_read_iops.value == 2_500_000


@pytest.mark.parametrize("sheet, words", [
    ({"ds-capacity": "0"}, "ds-capacity: Capacity: '0' is outside what a drive can have"),
    ({"ds-capacity": "-5 TB"}, "ds-capacity"),
    ({"ds-rand-write": "1e12"}, "ds-rand-write"),
    ({"ds-model": "m" * 5_000}, "ds-model: Model: 5,000 characters"),
    ({"name": "datasheet-other"}, "a drive's name is 'datasheet-pm1743-7.68-tb', from its model"),
])
def test_a_link_with_a_datasheet_drive_out_of_range_is_one_line(sheet, words):
    form = dict(DATASHEET_FORM, name="datasheet-pm1743-7.68-tb") | sheet
    encoded = base64.urlsafe_b64encode(json.dumps({"sheets": [form]}).encode()).decode().rstrip("=")
    with pytest.raises(InputError, match=None) as refused:
        share.from_query("?more=" + encoded)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_a_link_value_is_bounded():
    with pytest.raises(InputError, match=r"link platform: is 5,000 characters; at most 100"):
        share.from_query("?platform=" + "p" * 5000)


def _more(payload: str) -> str:
    return "?more=" + base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def test_a_link_nested_thousands_deep_or_with_engine_settings_of_the_wrong_shape_is_one_line():
    """A RecursionError was an HTTP 500 and a broken page for whoever opened the link; engine
    settings that were not a mapping reached the set-up and showed Python's exception text."""
    with pytest.raises(InputError, match=r"^link more: is not base64url JSON$"):
        share.from_query(_more('{"custom":' + '{"a":' * 5000 + "1" + "}" * 5001))
    with pytest.raises(InputError, match=r"^link more: extras\.data: .*engine_settings"):
        share.from_query(_more(json.dumps({"extras": {"engine_settings": "abc"}})))
    settings = {"engine": "linux-md", "values": {"kernel": "6.6", "group_thread_cnt": 4}}
    assert share._more(_more(json.dumps({"extras": {"engine_settings": settings}}))[6:])["extras"]["engine_settings"] == settings


def test_a_plan_form_box_and_a_fio_upload_are_bounded_in_one_line():
    """800 kB of drive counts took 9.5 s of a request thread; 20,000 fio jobs were stored and
    refused only at the next control change, in pydantic's words."""
    with pytest.raises(guard.PayloadError, match=r"^plan-counts\.value: at most 1,000 characters, got 800,000$"):
        guard.check_value("plan-counts", "value", "1 " * 400_000)
    guard.check_value("plan-counts", "value", "4 6 8 12")
    with pytest.raises(InputError, match=r"^many\.fio: jobs: 300 jobs; a set-up takes at most 256$"):
        core.import_fio("".join(f"[j{i}]\nrw=randread\n" for i in range(300)), "many.fio", None)


def test_a_fio_upload_of_too_many_jobs_is_refused_before_any_job_is_read(monkeypatch):
    """A 212 kB upload of 4,096 job sections had every job built and validated (8 s of a request
    thread on 2 cores) before the set-up's 256 refused it; the sections are counted first now, and
    no job is built (a count of ``_build_job``'s calls: the oracle, not a clock)."""
    import nvsim.fio.jobfile as jobfile

    built = []
    real = jobfile._build_job
    monkeypatch.setattr(jobfile, "_build_job", lambda *a, **k: built.append(1) or real(*a, **k))
    text = "".join(f"[j{i}]\nrw=randrw\nbssplit=4k/50:8k/50\nrate_iops=100\n" for i in range(4096))
    with pytest.raises(InputError, match=r"^many\.fio: jobs: 4,096 jobs; a set-up takes at most 256$"):
        core.import_fio(text, "many.fio", None)
    assert built == []
    core.import_fio("".join(f"[j{i}]\nrw=randread\n" for i in range(256)), "many.fio", None)  # the bound itself
    assert len(built) == 256


# ---------------------------------------------------------------- a read-only working directory

READ_ONLY_RUN = """
import json, os, sys
from dashboard.app import create_app
from dashboard import core, plan_view
assert not os.access(".", os.W_OK) or os.geteuid() == 0
try:
    open("probe", "w")
    sys.exit("the working directory is writable")
except OSError:
    pass
app = create_app(warm=True)
client = app.server.test_client()
assert client.get("/").status_code == 200
record = core.compute(core.default_setup())
assert record["errors"] == {}, record["errors"]
fio = core.import_fio("[j]\\nrw=randread\\nbs=4k\\nread_iolog=tests/data/fio/traces/fio-v2.iolog\\n", "j.fio", record["scenario"])
out = plan_view.plan_from_text(plan_view.EXAMPLE.replace("confirm: 1", "confirm: 0").replace(", max_latency_us: {p99: 2000}", ""))
assert "result" in out, out
app.nvsim_runner.shutdown()
app.nvsim_plans.shutdown()
print("served", len(fio["workloads"]), len(out["result"]["ranked"]), sorted(os.listdir(".")))
"""


def read_only_command(folder: Path) -> list[str] | None:
    """The command that runs Python in ``folder`` made read-only, or None where this machine cannot."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return [sys.executable, "-c", READ_ONLY_RUN]
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        return None
    return ["unshare", "-m", "sh", "-c", f'mount --bind -o ro "{folder}" "{folder}" && cd "{folder}" && exec "$0" -c "$1"',
            sys.executable, READ_ONLY_RUN]


@pytest.mark.slow
def test_the_dashboard_serves_from_a_read_only_working_directory(tmp_path):
    folder = tmp_path / "cwd"
    folder.mkdir()
    command = read_only_command(folder)
    if command is None:
        pytest.skip("no way to make a read-only directory here (root without unshare)")
    env = dict(os.environ, PYTHONPATH=str(SOURCE_TREE))
    try:
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "served 1 " in done.stdout and done.stdout.strip().endswith("[]")


# ---------------------------------------------------------------- the work budget, served


@pytest.mark.parametrize("variable", ["NVSIM_MAX_EVENT_SLOTS", "NVSIM_MAX_PLANNED_PAGES", "NVSIM_MAX_EVENT_PAGES"])
def test_a_plans_work_limits_neither_read_nor_name_the_servers_environment(monkeypatch, variable):
    """The Plan view's refusal of an over-budget workload: the default limits, whatever the server's
    environment sets (a value set badly there was echoed back, a good one quoted with its name)."""
    secret = "envcanary" + secrets.token_hex(8)
    monkeypatch.setenv(variable, secret)
    big = plan_view.EXAMPLE.replace("numjobs: 64, iodepth: 16", "numjobs: 4096, iodepth: 4096")
    refusal = plan_view.check_text(big)
    assert refusal is not None and "262,144 slots" in refusal  # the default limit, not the environment's
    assert secret not in refusal and "NVSIM_" not in refusal
    monkeypatch.setenv(variable, "31337")
    refusal = plan_view.check_text(big)
    assert "31,337" not in refusal and "NVSIM_" not in refusal
    assert plan_view.check_text(plan_view.EXAMPLE) is None


INPUT_BOUNDS = ("NVSIM_MAX_FIO_JOB_ENTRIES", "NVSIM_MAX_TRACE_RECORDS", "NVSIM_MAX_INPUT_BYTES")
"""The input bounds an environment variable sets (``nvsim.errors.limit_from_env``)."""


@pytest.mark.parametrize("variable", INPUT_BOUNDS)
def test_a_clients_input_bounds_neither_read_nor_name_the_servers_environment(app_client, catalog, monkeypatch, variable):
    """A fio upload, a scenario upload and the Plan text are held to the default input bounds whatever
    the server's environment sets: a bad value there was echoed back whole to any client
    (``NVSIM_MAX_FIO_JOB_ENTRIES: must be a whole number ..., got 'envcanary...'``), a good one
    quoted with the variable's name (``at most 31,337 (set NVSIM_MAX_FIO_JOB_ENTRIES to raise it)``)."""
    client, deps = app_client
    fio, scenario = callback(deps, "custom.data"), callback(deps, "platform.value")
    current = core.compute(core.default_setup(catalog), catalog=catalog)
    traced = "[j]\nrw=randread\nbs=4k\nread_iolog=tests/data/fio/traces/fio-v2.iolog\n"
    too_many = "".join(f"[j{i}]\nrw=randread\n" for i in range(4097))  # past the default 4,096 sections
    plan = plan_view.EXAMPLE.replace("profile: randrw-8k-70, numjobs: 64, iodepth: 16",
                                     "fio: scenarios/graid-gen5-raid6/job.fio, job: read-b1m-j192-d16")
    for value in ("envcanary" + secrets.token_hex(8), "31337", "3"):
        monkeypatch.setenv(variable, value)
        answers = [(text, *ask(client, fio, [data_url(text)], ["job.fio", current])) for text in (traced, too_many)]
        answers.append(("scenario", *ask(client, scenario, [data_url((SOURCE_TREE / "scenarios/graid-gen5-raid6/scenario.yaml")
                                                                     .read_text())], ["s.yaml", "randread-4k"])))
        answers.append(("plan", 200, plan_view.check_text(plan) or ""))
        for what, status, text in answers:
            assert status == 200, f"{what}: {text[:300]}"
            assert not value.startswith("envcanary") or value not in text, f"{what[:40]!r} echoed the server's value"
            assert "31,337" not in text and "31337" not in text, text[:300]
            assert "NVSIM_" not in text, f"{variable}={value}: {what[:40]!r} named the environment: {text[:300]}"
        notes = [json.loads(a)["response"]["fio-note"] for _t, _s, a in answers[:2]]
        assert notes[0]["className"] != "field-error", notes[0]  # the trace's 9 lines: within the default bound
        assert notes[1]["children"] == "job.fio: jobs: 4,097 jobs; a set-up takes at most 256", notes[1]
        assert "loaded s.yaml" in answers[2][2] and answers[3][2] == "", answers[3][2]


def test_a_huge_block_is_refused_before_any_planning_in_every_served_path(catalog, monkeypatch):
    """A 1 TiB block planned 19 GB in the server from one request (the set-up's validation, and the
    curves and report of a record the browser sends back with a key it can compute itself): each
    now refused in one line by the planner's work budget, the server's environment not named."""
    monkeypatch.setenv("NVSIM_MAX_PLANNED_PAGES", str(2**62))  # the operator's own limit: not the client's
    setup = dict(core.default_setup(catalog), workload=core.FILE_WORKLOADS)
    workload = {"name": "a", "rw": "read", "bs": 2**40}
    _data, spec, errors = core.validate(setup, {"label": "x", "workloads": [workload]}, None, catalog)
    assert spec is None and list(errors) == ["workload"], errors
    assert "member pages" in errors["workload"] and "NVSIM_" not in errors["workload"]
    scenario = {"name": "x", "platform": "supermicro-as-2125hs-tnr",
                "array": {"level": 5, "drive": "kioxia-cm7-r-3.84tb", "drives": 8, "engine": "linux-md"},
                "workloads": [workload]}
    with pytest.raises(InputError) as refused:
        core.check_work(scenario)
    assert "member pages" in str(refused.value) and "NVSIM_" not in str(refused.value)
    from dashboard import views
    forged = {"scenario": scenario, "key": core.scenario_key(scenario), "workloads": []}
    with pytest.raises(guard.PayloadError) as payload:
        views.checked_scenario(forged)
    assert "member pages" in str(payload.value)
    small = dict(scenario, workloads=[dict(workload, bs=4096)])
    assert views.checked_scenario({"scenario": small, "key": core.scenario_key(small)}) == small


def test_a_compared_set_up_is_held_to_its_key_and_the_served_budget_before_its_curves(catalog, monkeypatch):
    """The Compare view's curves (and its charts HTML) rebuilt each entry's scenario from the
    ``compare`` store the browser sends, unchecked: a 1 TiB block, its key recomputed, went to the
    fluid solver under the server's own ``NVSIM_MAX_PLANNED_PAGES`` (raised by its operator: 19 GB
    planned, as the main curves did before ``check_work``), and a scenario that no longer matched
    its key was drawn. Each entry is now held as the main view's record is (``views.checked_scenario``)."""
    import copy

    from dashboard import compare, curves
    monkeypatch.setenv("NVSIM_MAX_PLANNED_PAGES", str(2**62))  # the operator's own limit: not the client's
    points = []
    monkeypatch.setattr(curves, "_point", lambda data, _catalog: points.append(data) or
                        {"iops": 1.0, "bytes_per_s": 1.0, "mean_us": 1.0, "bottleneck": "x"})  # nothing is planned here
    record = copy.deepcopy(core.compute(core.default_setup(catalog), catalog=catalog))
    record["scenario"]["workloads"][0]["bs"] = 2**40
    record["key"] = core.scenario_key(record["scenario"])
    with pytest.raises(guard.PayloadError) as refused:
        compare.curves_of([{"label": "A: forged", "record": record}], catalog)
    assert str(refused.value).startswith("compare.data: workloads[0].bs:") and "member pages" in str(refused.value)
    assert "NVSIM_" not in str(refused.value), str(refused.value)
    stale = copy.deepcopy(core.compute(core.default_setup(catalog), catalog=catalog))
    stale["scenario"]["array"]["drives"] = 12  # not the set-up its key names
    with pytest.raises(guard.PayloadError, match="does not match its key"):
        compare.curves_of([{"label": "A: stale", "record": stale}], catalog)
    assert points == []
    good = core.compute(core.default_setup(catalog), catalog=catalog)
    drawn, note = compare.curves_of([{"label": "A: good", "record": good}], catalog)
    assert [label for label, _curve in drawn] == ["A: good"] and note == "" and points


def test_a_report_of_a_record_holding_what_the_dashboard_does_not_is_refused(catalog, monkeypatch):
    """A client's record with a field no set-up here makes (``array.unclean_shutdown``), its key
    recomputed: the report ran md's resync under this server's own limits, and named the server's
    NVSIM_MAX_PLANNED_PAGES and its value where the app was served without ``run()``. Refused
    (``views._reportable``) like any record the dashboard cannot hold."""
    import copy

    from dashboard import views
    monkeypatch.setenv("NVSIM_MAX_PLANNED_PAGES", "123456789")
    record = copy.deepcopy(core.compute(core.default_setup(catalog), catalog=catalog))
    assert views._reportable(record, None, catalog) is record
    record["scenario"]["array"].update(unclean_shutdown=True, engine="linux-md")
    record["key"] = core.scenario_key(record["scenario"])
    with pytest.raises(guard.PayloadError) as refused:
        views._reportable(record, None, catalog)
    assert "unclean_shutdown" in str(refused.value) and "123456789" not in str(refused.value)


def test_the_page_does_not_carry_the_servers_python_build(app_client):
    """Dash's page config carried ``sys.version`` ("3.11.7 (main, ...) [GCC 12.2.0]") to anyone who
    loads the page; it goes out without it, the config still valid JSON."""
    import re
    client, _deps = app_client
    page = client.get("/").get_data(as_text=True)
    assert sys.version not in page and sys.version.split()[0] not in page and "python_version" not in page
    config = re.search(r'<script id="_dash-config" type="application/json">(.*?)</script>', page, re.S)
    assert "requests_pathname_prefix" in json.loads(config.group(1))
    quoted = json.dumps({"a": 1, "python_version": '3.1 "x" \\ [GCC]', "b": 2}, separators=(",", ":"))
    assert guard.without_server_build(quoted) == '{"a":1,"b":2}'
