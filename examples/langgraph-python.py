#!/usr/bin/env python3
"""LangGraph for Python, routed by navkernel through ``navkernel serve`` and the Python client.

NOT TESTED HERE: the ``langgraph`` package for Python comes from PyPI, which the machine navkernel is built on cannot
reach, so this example has never run against a real LangGraph. The navkernel side it uses (``Client.route``,
``Client.resolve``) is the client's tested API (clients/python/tests); the LangGraph side follows LangGraph's
documented API (``StateGraph``, ``add_conditional_edges``, ``Send``, ``interrupt``, ``Command(resume=...)``,
``InMemorySaver``). The same design in TypeScript is ``navkernel/langgraph``, which is tested
(examples/langgraph/release-graph.ts).

    pip install langgraph ./clients/python          # (or node_modules/navkernel/clients/python)
    npx navkernel serve --flows examples/custom-flow &
    python3 examples/langgraph-python.py --serve http://127.0.0.1:8787

The graph is the release flow of examples/custom-flow: a node per step (your agents), and after each node a
conditional edge that reports the step to the kernel and goes where the decision says (LOOP, DETOUR land on nodes;
TERMINATE on END). ESCALATE goes to an escalation node that stops the graph with ``interrupt()``; resuming it with
``Command(resume={"decision", "next", "by", "reason"})`` records the person's answer as ``navkernel runs resolve`` does.
The routing is then in the ledger: ``navkernel runs audit RUN``, ``navkernel runs replay RUN`` and the web UI show it.
"""
from __future__ import annotations

import argparse
import operator
import os
import sys
from typing import Any, Annotated, Callable, Dict, List, Optional, TypedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
from navkernel_client import Client, Decision, NavkernelError  # noqa: E402

try:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send, interrupt
except ImportError:  # pragma: no cover - the point of the message
    sys.stderr.write("langgraph-python.py needs the langgraph package for Python: pip install langgraph\n")
    sys.exit(2)

FLOW = "release"
ESCALATION = "navkernel_escalation"


class State(TypedDict, total=False):
    """navkernel's part of the state, plus the example's own log."""

    run_id: str
    step: str          # the step now running
    routes: int        # routes made: the idempotency keys of the route requests
    report: Dict[str, Any]   # what the step measured: {"status", "forensics"?}
    decision: Decision       # the kernel's last decision
    log: Annotated[List[str], operator.add]


def build_graph(client: Client, nodes: Dict[str, Callable[[State], Dict[str, Any]]]) -> Any:
    """The release flow as a StateGraph: your node per step, kernel.route() as every conditional edge."""
    graph = StateGraph(State)

    def node(name: str, work: Callable[[State], Dict[str, Any]]) -> Callable[[State], Dict[str, Any]]:
        def run(state: State) -> Dict[str, Any]:
            out = work(state)
            if "report" not in out:
                raise NavkernelError("INVALID_REQUEST", f"node {name} returned no report")
            # Keep navkernel's part as the edge handed it over (a node reached by Send gets it as its input only).
            return {**out, "step": state.get("step", name), "routes": state.get("routes", 0), "run_id": state["run_id"]}
        return run

    def edge(name: str) -> Callable[[State], Any]:
        def route(state: State) -> Any:
            routes = state.get("routes", 0) + 1
            report = state["report"]
            request: Dict[str, Any] = {"run_id": state["run_id"], "flow": FLOW, "step_completed": state.get("step", name),
                                       "status": report["status"], "request_id": f"langgraph:{state['run_id']}:{routes}"}
            if "forensics" in report:
                request["forensics"] = report["forensics"]
            d = client.route(request)  # type: ignore[arg-type]
            if d["decision"] == "TERMINATE":
                return END
            target = ESCALATION if d["decision"] == "ESCALATE" else d["next_step_id"]
            return Send(target, {**state, "routes": routes, "decision": d, "step": d.get("next_step_id") or state.get("step", name)})
        return route

    for name, work in nodes.items():
        graph.add_node(name, node(name, work))
        graph.add_conditional_edges(name, edge(name), [*nodes, ESCALATION, END])

    def escalation(state: State) -> Command:
        d = state["decision"]
        answer = interrupt({"escalation_id": d["escalation_id"], "step": state["step"], "reason": d["reason"]})
        resolved = client.resolve(d["escalation_id"], answer["decision"], by=answer["by"], reason=answer["reason"],
                                  next=answer.get("next"))
        nxt = resolved["resolution"]["next_step_id"]
        if resolved["resolution"]["decision"] == "TERMINATE" or nxt is None:
            return Command(goto=END)
        return Command(goto=nxt, update={"step": nxt, "routes": state["routes"], "run_id": state["run_id"]})

    graph.add_node(ESCALATION, escalation, destinations=(*nodes, END))
    graph.add_edge(START, "package")
    return graph.compile(checkpointer=InMemorySaver())


def scripted(step: str, reports: List[Dict[str, Any]]) -> Callable[[State], Dict[str, Any]]:
    """A simulated agent: reports the next measurement of its script."""
    seen: List[int] = [0]

    def work(state: State) -> Dict[str, Any]:
        report = reports[min(seen[0], len(reports) - 1)]
        seen[0] += 1
        return {"report": report, "log": [f"{step}: {report['status']}"]}
    return work


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--serve", default="http://127.0.0.1:8787", help="base URL of navkernel serve (started with --flows examples/custom-flow)")
    ap.add_argument("--token", default=os.environ.get("NAVKERNEL_TOKEN"))
    ap.add_argument("--run-id", default="release-py-1")
    args = ap.parse_args(argv)
    lint = {"lint": {"errors": 3, "output": "eslint: 3 errors"}}
    nodes = {
        "package": scripted("package", [{"status": "VERIFIED"}, {"status": "FAILED"}]),
        "check": scripted("check", [{"status": "FAILED", "forensics": lint}, {"status": "FAILED", "forensics": lint}, {"status": "PASSED"}]),
        "fix-lint": scripted("fix-lint", [{"status": "DONE"}]),
        "review": scripted("review", [{"status": "CHANGES"}, {"status": "APPROVED"}]),
        "publish": scripted("publish", [{"status": "DONE"}]),
    }
    with Client(args.serve, token=args.token) as client:
        app = build_graph(client, nodes)
        config = {"configurable": {"thread_id": args.run_id}}
        result = app.invoke({"run_id": args.run_id, "log": []}, config)
        for line in result["log"]:
            print(line)
        for pending in result.get("__interrupt__", []):
            print(f"escalated at {pending.value['step']}: {pending.value['reason']}")
            answer = {"decision": "CONTINUE", "next": "review", "by": "ana", "reason": "packaging flake, checked by hand"}
            result = app.invoke(Command(resume=answer), config)
            for line in result["log"][-2:]:
                print(line)
    print(f"run {args.run_id} routed by navkernel: navkernel runs audit {args.run_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
