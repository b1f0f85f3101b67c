#!/usr/bin/env python3
"""An example flow runner in Python: it runs the sample `build` flow with simulated agents and lets navkernel
decide every move, through `navkernel serve` (HTTP) or the `navkernel route` co-process.

    npx navkernel serve &                                   # then:
    python3 examples/python-runner.py --serve http://127.0.0.1:8787
    python3 examples/python-runner.py --coprocess "npx navkernel route"

The simulated implementer fails its tests twice before they pass, so the kernel loops it (tier 2 `microloop`)
and then moves on; the reviewer approves; the run ends at `build-done`. A step that escalates is resolved
through the API when --resolve-as NAME is given (HTTP only).
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Dict, Union

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
from navkernel_client import Client, CoProcess, Decision, NavkernelError, RouteRequest  # noqa: E402


def run_agent(step: str, attempt: int) -> RouteRequest:
    """Pretends to run the agent of `step`; returns what a runner would report (measurements, not prose)."""
    if step == "build-step-3":
        failed = max(0, 2 - (attempt - 1))
        return {"status": "VERIFIED" if failed == 0 else "UNVERIFIED",
                "forensics": {"tests": {"passed": 40 + (2 - failed), "failed": failed}},
                "iteration": {"current": attempt, "max": 3}}
    if step == "build-review":
        return {"status": "APPROVED"}
    return {"status": "VERIFIED"}


def drive(kernel: Union[Client, CoProcess], run_id: str, resolve_as: str = "", max_steps: int = 50) -> Decision:
    flow, step = "build", "build-step-1"
    attempts: Dict[str, int] = {}
    decision: Decision = {}
    for n in range(1, max_steps + 1):
        attempts[step] = attempts.get(step, 0) + 1
        request: RouteRequest = {"run_id": run_id, "flow": flow, "step_completed": step,
                                 "request_id": f"{run_id}-{n}", **run_agent(step, attempts[step])}
        decision = kernel.route(request)
        print(f"#{decision.get('seq', n):<3} {flow}/{step:<14} {request['status']:<11} -> {decision['decision']:<9} "
              f"{decision.get('next_step_id') or '':<14} tier {decision['tier']} {decision['rule']}")
        if decision["decision"] == "TERMINATE":
            return decision
        if decision["decision"] == "ESCALATE":
            if resolve_as and isinstance(kernel, Client):
                kernel.resolve(decision["escalation_id"], "TERMINATE", by=resolve_as, reason="stopped by the example runner")
                print(f"     escalation {decision['escalation_id']} resolved by {resolve_as}: TERMINATE")
            return decision
        flow = decision.get("next_flow") or flow
        step = decision["next_step_id"] or step
    raise RuntimeError(f"run {run_id} did not end within {max_steps} steps")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--serve", metavar="URL", help="base URL of navkernel serve")
    how.add_argument("--coprocess", metavar="COMMAND", help="command line of the navkernel route co-process")
    p.add_argument("--token", default=os.environ.get("NAVKERNEL_TOKEN"), help="bearer token (env NAVKERNEL_TOKEN)")
    p.add_argument("--run-id", default="py-example-1")
    p.add_argument("--resolve-as", default="", help="resolve an escalation through the API as this person")
    args = p.parse_args()
    try:
        if args.serve:
            with Client(args.serve, token=args.token) as client:
                last = drive(client, args.run_id, args.resolve_as)
                audit = client.audit(args.run_id)
                run = audit["run"]
                print(f"run {args.run_id}: {run['status']}, {run['steps']} routes, {run['offroad']} off-road, "
                      f"loops at build-step-3: {next(s['loops'] for s in audit['steps'] if s['step'] == 'build-step-3')}")
        else:
            with CoProcess(shlex.split(args.coprocess)) as co:
                last = drive(co, args.run_id)
    except NavkernelError as e:
        print(f"navkernel refused a request: {e.code} ({e.status or 'co-process'}): {e.message}", file=sys.stderr)
        return 2
    return 0 if last["decision"] == "TERMINATE" else 1


if __name__ == "__main__":
    sys.exit(main())
