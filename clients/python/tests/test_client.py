"""The client against a real ``navkernel serve`` (started by conftest.py) and a real ``navkernel route`` co-process."""
from __future__ import annotations

import os
import shlex
import stat
import time
from typing import List

import pytest

from conftest import Serve, navkernel_command
from navkernel_client import NAVKERNEL_BIN, Client, CoProcess, Decision, NavkernelError, RouteRequest, find_navkernel, start_serve


def step(run_id: str, step_completed: str, status: str, **extra: object) -> RouteRequest:
    request: RouteRequest = {"run_id": run_id, "flow": "build", "step_completed": step_completed, "status": status}
    request.update(extra)  # type: ignore[typeddict-item]
    return request


def test_health(serve: Serve) -> None:
    with Client(serve.base_url, token=serve.token) as c:
        assert c.health()["status"] == "ok"


def test_routes_a_run_loops_then_terminates_and_reads_it_back(serve: Serve) -> None:
    failing = {"tests": {"passed": 40, "failed": 2}}
    moves: List[Decision] = []
    with Client(serve.base_url, token=serve.token) as c:
        moves.append(c.route(step("py-1", "build-step-1", "VERIFIED", request_id="py-1:1")))
        moves.append(c.route(step("py-1", "build-step-2", "VERIFIED", request_id="py-1:2")))
        moves.append(c.route(step("py-1", "build-step-3", "UNVERIFIED", forensics=failing, request_id="py-1:3")))
        assert [(d["decision"], d["next_step_id"], d["tier"]) for d in moves] == [
            ("CONTINUE", "build-step-2", 1), ("CONTINUE", "build-step-3", 1), ("LOOP", "build-step-3", 2)]
        # The same request_id again: the recorded decision, nothing new recorded.
        again = c.route(step("py-1", "build-step-3", "UNVERIFIED", forensics=failing, request_id="py-1:3"))
        assert again["seq"] == moves[-1]["seq"] == 3
        assert c.run("py-1")["run"]["steps"] == 3
        assert [r["run_id"] for r in c.runs()] == ["py-1"]
        audit = c.audit("py-1")
        assert [o["decision"] for o in audit["offroad"]] == ["LOOP"]
        why = c.audit("py-1", why="build-step-3")
        assert [e["seq"] for e in why["entries"]] == [2, 3]


def test_resolves_an_escalation(serve: Serve) -> None:
    with Client(serve.base_url, token=serve.token) as c:
        # build-step-1 has no loop and no branch for FAILED: no tier can decide, so the kernel escalates.
        d = c.route(step("py-esc", "build-step-1", "FAILED"))
        assert (d["decision"], d["tier"], d["needs_human"]) == ("ESCALATE", 5, True)
        with pytest.raises(NavkernelError) as bad:
            c.resolve(d["escalation_id"], "CONTINUE", by="ana", reason="r", next="no-such-step")
        assert (bad.value.code, bad.value.status) == ("INVALID_RESOLUTION", 422)
        e = c.resolve(d["escalation_id"], "TERMINATE", by="ana", reason="done by hand")
        assert e["status"] == "resolved" and e["resolution"]["by"] == "ana"
        assert c.run("py-esc")["run"]["status"] == "terminated"


@pytest.mark.parametrize("call, code, status", [
    (lambda c: c.route({"run_id": "x", "flow": "nope", "step_completed": "s", "status": "VERIFIED"}), "INVALID_REQUEST", 400),
    (lambda c: c.run("no-such-run"), "UNKNOWN_RUN", 404),
    (lambda c: c.resolve("esc-nope", "CONTINUE", by="ana", reason="r"), "UNKNOWN_ESCALATION", 404),
])
def test_refusals_carry_the_stable_code(serve: Serve, call, code: str, status: int) -> None:  # type: ignore[no-untyped-def]
    with Client(serve.base_url, token=serve.token) as c:
        with pytest.raises(NavkernelError) as e:
            call(c)
        assert (e.value.code, e.value.status) == (code, status)
        # The connection still serves.
        assert c.health()["status"] == "ok"


def test_a_wrong_token_is_unauthorized(serve: Serve) -> None:
    with Client(serve.base_url, token="wrong") as c:
        with pytest.raises(NavkernelError) as e:
            next(iter(c.runs()))
        assert (e.value.code, e.value.status) == ("UNAUTHORIZED", 401)


def test_base_url_must_be_http(serve: Serve) -> None:
    with pytest.raises(ValueError):
        Client("ftp://127.0.0.1:1")


def test_coprocess_routes_and_reports_error_lines(serve: Serve) -> None:
    with CoProcess(navkernel_command() + ["route", "--no-ledger", "--flows", serve.flows]) as co:
        with pytest.raises(NavkernelError) as e:
            co.route({"run_id": "x", "flow": "nope", "step_completed": "s", "status": "VERIFIED"})
        assert (e.value.code, e.value.status) == ("INVALID_REQUEST", 0)
        assert "legacy_code" not in e.value.details["error"]
        assert co.route(step("co-1", "build-step-1", "VERIFIED"))["next_step_id"] == "build-step-2"


# -- the CLI of the project the client runs in, and serve as a process group (issue 37)


def _executable(path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def test_find_navkernel_prefers_the_env_variable_then_node_modules_upward_then_path(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    deep = project / "src" / "deep"
    deep.mkdir(parents=True)
    installed = str(project / "node_modules" / ".bin" / "navkernel")
    _executable(installed)
    on_path = str(tmp_path / "bin" / "navkernel")
    _executable(on_path)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv(NAVKERNEL_BIN, "node '/opt/my navkernel/bin/navkernel.js'")
    assert find_navkernel(str(deep)) == ["node", "/opt/my navkernel/bin/navkernel.js"]
    monkeypatch.delenv(NAVKERNEL_BIN)
    assert find_navkernel(str(deep)) == [installed]
    monkeypatch.chdir(deep)
    assert find_navkernel() == [installed]
    assert find_navkernel(str(tmp_path)) == [on_path]


def test_find_navkernel_fails_at_once_naming_what_it_tried(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(NAVKERNEL_BIN, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    start = time.monotonic()
    with pytest.raises(NavkernelError) as e:
        find_navkernel(str(tmp_path))
    assert time.monotonic() - start < 5  # no registry asked (npx retried for ~70 s); a safety net, not a measure
    assert e.value.code == "MISSING_PACKAGE"
    assert "$NAVKERNEL_BIN" in e.value.message
    assert str(tmp_path / "node_modules" / ".bin" / "navkernel") in e.value.message
    assert "navkernel on PATH" in e.value.message
    with pytest.raises(NavkernelError) as co:
        CoProcess(cwd=str(tmp_path))
    assert co.value.code == "MISSING_PACKAGE"


def test_the_default_commands_use_the_project_cli(serve: Serve, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(NAVKERNEL_BIN, shlex.join(navkernel_command()))
    with CoProcess(find_navkernel() + ["route", "--no-ledger", "--flows", serve.flows]) as co:
        assert co.route(step("find-1", "build-step-1", "VERIFIED"))["next_step_id"] == "build-step-2"


def test_a_size_refusal_does_not_speak_of_input_lines(serve: Serve) -> None:
    with CoProcess(navkernel_command() + ["route", "--no-ledger", "--flows", serve.flows, "--max-bytes", "2000"]) as co:
        co.route(step("size-0", "build-step-1", "VERIFIED"))
        with pytest.raises(NavkernelError) as e:
            co.route(step("size-1", "build-step-1", "FAILED", forensics={"error_output": "x" * 5000}))
        assert e.value.code == "INPUT_TOO_LARGE"
        assert not e.value.message.startswith("line "), e.value.message
        assert "--max-bytes" in e.value.message


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose (its parent has not reaped it yet).
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def _running_in_group(pgid: int) -> List[int]:
    """Processes of the group that still run (a zombie an init that never reaps keeps around does not run)."""
    out: List[int] = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry))
    return out


def _children(pid: int) -> List[int]:
    out: List[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out += [int(c) for c in f.read().split()]
    return out


def test_start_serve_stops_the_whole_process_group(serve: Serve, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A wrapper that runs serve as its child, as npx does: stopping only the wrapper would orphan serve.
    wrapper = ["bash", "-c", '"$@"; exit $?', "wrapper"] + navkernel_command()
    with start_serve(flows=serve.flows, ledger=str(tmp_path / "ledger.sqlite"), command=wrapper) as s:
        with Client(s.base_url) as c:
            assert c.health()["status"] == "ok"
        inner = _children(s.pid)
        assert len(inner) == 1 and _alive(inner[0])
        assert any("navkernel serve: ledger " in line for line in s.stderr_lines)
    assert s.proc.returncode is not None
    assert _running_in_group(s.pid) == []
    assert not _alive(inner[0])


def test_start_serve_says_why_when_serve_cannot_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NavkernelError) as e:
        start_serve(flows=str(tmp_path / "no-such-flows"), command=navkernel_command())
    assert e.value.code == "INTERNAL"
    assert "did not start" in e.value.message and "no-such-flows" in e.value.message
