#!/usr/bin/env python3
"""What a Python flow runner sees of `navkernel route` (the co-process), measured with the standard library only.

    python3 bench/coprocess_client.py [--node node] [--bin bin/navkernel.js] [--n 5000] [--runs 16] [--routes 20000]

Two measurements, printed as one JSON object on stdout:

- one_at_a_time: in memory (--no-ledger), write one line, wait for its answer, repeat: latency p50/p99 in ms;
- pipelined: with a SQLite ledger in a temp folder, a writer thread streams lines round-robin over --runs runs while
  the main thread reads the answers; routes/s from the first line written to the last answer read. Every answer
  is checked (a decision, in order, for the right run).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# A cycle of steps of the build flow: a pass, a failing microloop step (LOOP: an off-road line in decisions.jsonl),
# a review bounce and an approval, so the ledger writes both rows and jsonl lines.
CYCLE = [
    ("build-step-1", "VERIFIED", {"tests": {"passed": 3, "failed": 0}}),
    ("build-step-3", "UNVERIFIED", {"tests": {"passed": 40, "failed": 2}, "error_output": "AssertionError: expected 3 to equal 4"}),
    ("build-step-3", "VERIFIED", {"tests": {"passed": 42, "failed": 0}}),
    ("build-review", "APPROVED", {"concerns": []}),
]


# A run goes round the cycle 5 times at most (build-review's max_visits is 5: a 6th review would escalate and the
# run's reports be refused); each report says the runner restarts from its step, since the cycle skips steps.
ROUTES_PER_RUN = 5 * len(CYCLE)


def request(run_id, i):
    step, status, forensics = CYCLE[i % len(CYCLE)]
    run = "%s-%d" % (run_id, i // ROUTES_PER_RUN)
    return {"run_id": run, "flow": "build", "step_completed": step, "status": status,
            "request_id": "%s-%d" % (run, i), "forensics": forensics, "restart": {"reason": "bench"}}


def start(cmd, cwd):
    return subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1 << 16)


def percentile(samples, p):
    s = sorted(samples)
    rank = min(len(s) - 1, max(0, -(-p * len(s) // 100) - 1))
    return s[int(rank)]


def one_at_a_time(args, root):
    proc = start([args.node, args.bin, "route", "--no-ledger", "--flows", "charters"], root)
    out = proc.stdout
    lat = []
    warm = min(500, args.n // 5)
    for i in range(args.n + warm):
        line = (json.dumps(request("solo-%d" % (i % 64), i // 64)) + "\n").encode()
        t0 = time.perf_counter()
        proc.stdin.write(line)
        proc.stdin.flush()
        answer = out.readline()
        dt = time.perf_counter() - t0
        if not answer or "decision" not in json.loads(answer):
            raise SystemExit("unexpected answer: %r" % answer)
        if i >= warm:
            lat.append(dt * 1000)
    proc.stdin.close()
    proc.wait(timeout=60)
    return {"requests": len(lat), "p50_ms": round(percentile(lat, 50), 3), "p99_ms": round(percentile(lat, 99), 3),
            "mean_ms": round(sum(lat) / len(lat), 3)}


def pipelined(args, root):
    folder = tempfile.mkdtemp(prefix="navkernel-pybench-")
    try:
        ledger = os.path.join(folder, "ledger.sqlite")
        proc = start([args.node, args.bin, "route", "--flows", "charters", "--ledger", ledger], root)
        runs = ["pipe-%d" % r for r in range(args.runs)]
        sent = [request(runs[i % args.runs], i // args.runs) for i in range(args.routes)]
        lines = [json.dumps(r) + "\n" for r in sent]
        payload = [("".join(lines[k:k + 256])).encode() for k in range(0, len(lines), 256)]

        def writer():
            for chunk in payload:
                proc.stdin.write(chunk)
                proc.stdin.flush()
            proc.stdin.close()

        # Start-up is not routing: wait for the co-process to answer a first line before the clock starts.
        proc.stdin.write((json.dumps(request("warm-up", 0)) + "\n").encode())
        proc.stdin.flush()
        if "decision" not in json.loads(proc.stdout.readline()):
            raise SystemExit("the warm-up line got no decision")
        t0 = time.perf_counter()
        threading.Thread(target=writer, daemon=True).start()
        for i in range(args.routes):
            answer = proc.stdout.readline()
            if not answer:
                raise SystemExit("the co-process ended after %d answers" % i)
            a = json.loads(answer)
            if "decision" not in a or a.get("run_id") != sent[i]["run_id"]:
                raise SystemExit("answer %d out of order or an error: %r" % (i, answer))
        elapsed = time.perf_counter() - t0
        proc.wait(timeout=120)
        return {"routes": args.routes, "runs": args.runs, "seconds": round(elapsed, 3),
                "routes_per_s": round(args.routes / elapsed), "exit": proc.returncode}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--node", default=shutil.which("node") or "node")
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("--bin", default="bin/navkernel.js")
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--runs", type=int, default=16)
    p.add_argument("--routes", type=int, default=20000)
    args = p.parse_args()
    result = {"python": sys.version.split()[0], "one_at_a_time": one_at_a_time(args, args.root), "pipelined": pipelined(args, args.root)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
