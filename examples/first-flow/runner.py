#!/usr/bin/env python3
"""Your first flow, driven from Python over both transports (docs/first-flow.md).

    python3 examples/first-flow/runner.py

The navkernel command is the project's own (clients/python: $NAVKERNEL_BIN, else node_modules/.bin/navkernel in
this folder or one above, else navkernel on PATH), else the checkout's bin/navkernel.js this file sits in.

It starts `navkernel route` (the co-process) and `navkernel serve` (HTTP, on a free port, with a ledger in a
temporary folder), runs the same fix-a-bug run through each and checks that they decide alike, sends the mistakes
a runner makes (a misspelt step, a misspelt field, a number as a string, text with a lone surrogate, bytes that are
not UTF-8, a body over the size limit) to both and checks that both answer with the same code, runs a loop out
of iterations with a HIGH concern still open (an escalation a person resolves), then audits the HTTP run.
Standard library only, plus the client in clients/python. Exit 0 when every check held.
"""
from __future__ import annotations

import http.client
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from typing import Any, Dict, List, Tuple, Union

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
from navkernel_client import Client, CoProcess, NavkernelError, find_navkernel, start_serve  # noqa: E402


def navkernel_command() -> List[str]:
    if os.environ.get("NAVKERNEL"):  # the name this example read before NAVKERNEL_BIN
        return shlex.split(os.environ["NAVKERNEL"])
    try:
        return find_navkernel()
    except NavkernelError:
        checkout = os.path.join(HERE, "..", "..", "bin", "navkernel.js")
        if os.path.isfile(checkout):
            return [shutil.which("node") or "node", os.path.abspath(checkout)]
        raise


NAVKERNEL = navkernel_command()
MAX_BYTES = "65536"  # the same limit for both transports: --max-bytes

Kernel = Union[Client, CoProcess]

# One run of the fix-a-bug flow: (step, what the agent reported). The lint failure at `implement` is seen twice,
# so the second time the kernel detours to `fix-lint`; the reviewer bounces the first fix.
LINT = {"lint": {"errors": 3, "output": "eslint: 3 errors (no-unused-vars)"}}
SCRIPT: List[Tuple[str, str, Dict[str, Any]]] = [
    ("reproduce", "REPRODUCED", {}),
    ("implement", "FAILED", {"forensics": LINT}),
    ("implement", "FAILED", {"forensics": LINT}),
    ("fix-lint", "DONE", {}),
    ("implement", "VERIFIED", {"forensics": {"tests": {"passed": 12, "failed": 0}}}),
    ("review", "BOUNCE", {}),
    ("implement", "VERIFIED", {}),
    ("review", "APPROVED", {}),
    ("done", "DONE", {}),
]

failures: List[str] = []


def check(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)
        print(f"CHECK FAILED: {what}")


def drive(kernel: Kernel, run_id: str) -> List[Dict[str, Any]]:
    decisions = []
    for step, status, extra in SCRIPT:
        d = kernel.route({"run_id": run_id, "flow": "fixbug", "step_completed": step, "status": status, **extra})
        decisions.append(d)
    return decisions


def refusal(call: Any) -> NavkernelError:
    try:
        call()
    except NavkernelError as e:
        return e
    raise AssertionError("expected a refusal")


def raw_http(base: str, body: bytes) -> Dict[str, Any]:
    """POST raw bytes (the client only sends what json.dumps makes, which is always UTF-8)."""
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    conn.request("POST", "/v1/route", body=body, headers={"content-type": "application/json"})
    answer = json.loads(conn.getresponse().read())
    conn.close()
    return answer


def raw_coprocess(line: bytes) -> Dict[str, Any]:
    out = subprocess.run(NAVKERNEL + ["route", "--flows", HERE, "--no-ledger"], input=line + b"\n", capture_output=True, timeout=60)
    return json.loads(out.stdout.decode("utf-8").splitlines()[0])


def main() -> int:
    tmp = tempfile.mkdtemp(prefix="nk-first-flow-")
    ledger = os.path.join(tmp, "ledger.sqlite")
    # A process group of its own: close() stops serve and anything it started, so nothing outlives this script.
    try:
        serve = start_serve(flows=HERE, ledger=ledger, args=["--max-bytes", MAX_BYTES], command=NAVKERNEL)
    except NavkernelError as e:
        print(f"serve did not start: {e.message}")
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    try:
        base = serve.base_url
        with Client(base) as http_kernel, CoProcess(NAVKERNEL + ["route", "--flows", HERE, "--no-ledger", "--max-bytes", MAX_BYTES]) as co:
            # 1. The same run over both transports: the same decisions.
            print("== the fix-a-bug run (co-process | serve)")
            via_co = drive(co, "fb-co")
            via_http = drive(http_kernel, "fb-http")
            for (step, status, _), a, b in zip(SCRIPT, via_co, via_http):
                print(f"{step:<10} {status:<11} -> {a['decision']:<9} {a.get('next_step_id') or '-':<10} {a['rule']:<17} | {b['decision']} {b.get('next_step_id') or '-'} {b['rule']}")
                check((a["decision"], a["next_step_id"], a["rule"]) == (b["decision"], b["next_step_id"], b["rule"]), f"{step} {status}: the transports decide alike")

            # 2. A failure that falls to the review's default: it goes on, flagged for a person.
            flagged = http_kernel.route({"run_id": "fb-fail", "flow": "fixbug", "step_completed": "review", "status": "FAILED"})
            print(f"review FAILED -> {flagged['decision']} {flagged['next_step_id']} needs_human={flagged['needs_human']}: {flagged['warnings'][0]}")
            check(flagged["needs_human"] is True and flagged["rule"] == "branch_default", "a failure falling to a branch default needs a person")

            # 3. The mistakes a runner makes: the same code (and, for the request's contents, the same words) on both.
            print("== bad inputs (code: co-process | serve)")
            good = {"run_id": "fb-bad", "flow": "fixbug", "step_completed": "implement", "status": "FAILED"}
            cases: List[Tuple[str, Dict[str, Any]]] = [
                ("a misspelt step", {**good, "step_completed": "implment"}),
                ("a misspelt field", {**good, "forensic": {}}),
                ("a number sent as a string", {**good, "iteration": {"current": "2"}}),
                ("a body over --max-bytes", {**good, "forensics": {"error_output": "x" * 100_000}}),
            ]
            for name, request in cases:
                a = refusal(lambda: co.route(request))
                b = refusal(lambda: http_kernel.route(request))
                print(f"{name}: {a.code} | {b.code}: {b.message}")
                check(a.code == b.code, f"{name}: the same code on both transports")
                if a.code != "INPUT_TOO_LARGE":
                    check(a.message == b.message, f"{name}: the same message on both transports")
                else:
                    check("--max-bytes" in a.message and "--max-bytes" in b.message, f"{name}: both name --max-bytes")
            # Python's surrogateescape turns undecodable log bytes into lone surrogates: repaired, with a warning.
            log = b"make: *** [test] Error 1 \xff".decode("utf-8", "surrogateescape")
            for kernel in (co, http_kernel):
                d = kernel.route({**good, "run_id": "fb-log", "forensics": {"error_output": log}})
                check(any("U+FFFD" in w for w in d["warnings"]), "a lone surrogate in error_output is repaired with a warning")
            print(f"a lone surrogate in error_output: routed ({d['decision']}), warning: {d['warnings'][0]}")
            line = b'{"run_id":"bad-1","flow":"fixbug","step_completed":"implement","status":"\xff\xfe"}'
            a, b = raw_coprocess(line), raw_http(base, line)
            print(f"bytes that are not UTF-8: {a['error']['code']} | {b['code']}; the co-process still echoes run_id {a.get('run_id')}")
            check(a["error"]["code"] == b["code"] == "INVALID_JSON", "invalid UTF-8 is refused with the same code on both")
            check(a.get("run_id") == "bad-1", "the run_id of an invalid-UTF-8 line is echoed")

            # 4. A loop out of iterations with a HIGH concern still open: an escalation, which a person resolves.
            print("== a loop out of iterations with a HIGH concern open")
            concern = {"concerns": [{"severity": "HIGH", "description": "the fix swallows the error"}]}
            http_kernel.route({"run_id": "fb-cap", "flow": "fixbug", "step_completed": "reproduce", "status": "REPRODUCED"})
            for i in range(1, 4):
                d = http_kernel.route({"run_id": "fb-cap", "flow": "fixbug", "step_completed": "implement", "status": "FAILED", "forensics": concern})
                print(f"implement FAILED (iteration {i}) -> {d['decision']} {d['rule']}")
            check(d["decision"] == "ESCALATE" and d["rule"] == "iteration_cap_open_concern", "the cap escalates an open HIGH concern")
            resolved = http_kernel.resolve(d["escalation_id"], "CONTINUE", by="ana", reason="the concern is a false alarm", next="review")
            print(f"escalation {d['escalation_id']} resolved by ana: {resolved['resolution']['decision']} -> {resolved['resolution']['next_step_id']}")

        # 5. Audit: what needed a person, and why a step was routed (a misspelt step gets a suggestion).
        print("== audit")
        audit = subprocess.run(NAVKERNEL + ["runs", "audit", "fb-cap", "--ledger", ledger, "--flows", HERE], capture_output=True, text=True)
        section = audit.stdout.split("Routes that need a person", 1)
        check(len(section) == 2 and "iteration_cap_open_concern" in section[1], "audit lists the routes that need a person")
        print("Routes that need a person" + section[1].split("\n\n", 1)[0] if len(section) == 2 else audit.stdout + audit.stderr)
        why = subprocess.run(NAVKERNEL + ["runs", "audit", "fb-http", "--ledger", ledger, "--flows", HERE, "--why", "implment"], capture_output=True, text=True)
        print(why.stderr.strip())
        check(why.returncode != 0 and 'did you mean "implement"' in why.stderr, "audit --why suggests the nearest step")
    finally:
        serve.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("first-flow: every check held" if not failures else f"first-flow: {len(failures)} check(s) failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
