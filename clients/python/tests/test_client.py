"""The client against a real ``navkernel serve`` (started by conftest.py) and a real ``navkernel route`` co-process."""
from __future__ import annotations

from typing import List

import pytest

from conftest import Serve, navkernel_command
from navkernel_client import Client, CoProcess, Decision, NavkernelError, RouteRequest


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
        assert (e.value.code, e.value.status, e.value.legacy_code) == ("INVALID_REQUEST", 0, "INVALID_FORENSICS")
        assert co.route(step("co-1", "build-step-1", "VERIFIED"))["next_step_id"] == "build-step-2"
