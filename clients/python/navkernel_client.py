"""A small client for navkernel, standard library only (Python 3.9+).

Two ways to reach the kernel, one interface:

* ``Client``: the HTTP API of ``navkernel serve`` (``/v1``), with an optional bearer token;
* ``CoProcess``: a long-lived ``navkernel route`` child process speaking JSON lines on stdin/stdout.

Both return decisions as plain dicts (``schemas/decision.schema.json``) and raise ``NavkernelError`` with the
stable error ``code`` (``INVALID_REQUEST``, ``INVALID_FORENSICS``, ``UNKNOWN_RUN``, ...) when the kernel refuses a request.

``start_serve`` starts ``navkernel serve`` as a process group of its own and stops the whole group, so no server
outlives the script. The command comes from ``find_navkernel``: ``$NAVKERNEL_BIN``, else ``node_modules/.bin/navkernel``
in the current folder or a folder above it, else ``navkernel`` on PATH; never a registry fetch (no ``npx``).
"""
from __future__ import annotations

import atexit
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, TypedDict

__all__ = ["Client", "CoProcess", "NavkernelError", "Decision", "RouteRequest", "Serve", "collect_forensics", "find_navkernel",
           "start_serve", "with_reports", "NAVKERNEL_BIN"]

#: The environment variable naming the navkernel command (split like a shell would: ``node /path/bin/navkernel.js``).
NAVKERNEL_BIN = "NAVKERNEL_BIN"


class RouteRequest(TypedDict, total=False):
    """What a runner reports after a step (``schemas/route-request.schema.json``)."""

    run_id: str
    flow: str
    step_completed: str
    status: str
    agent: str
    request_id: str
    forensics: Dict[str, Any]
    iteration: Dict[str, Any]
    envelope: Dict[str, Any]
    reports: Dict[str, Any]


class Decision(TypedDict, total=False):
    """The kernel's answer (``schemas/decision.schema.json``)."""

    decision: str
    next_step_id: Optional[str]
    next_flow: str
    tier: int
    rule: str
    reason: str
    confidence: float
    needs_human: bool
    warnings: List[str]
    rejected: List[Dict[str, Any]]
    escalation_id: str
    iteration: int
    seq: int
    ts: str


class NavkernelError(Exception):
    """A request the kernel refused: ``code`` is stable, ``status`` is the HTTP status (0 for the co-process)."""

    def __init__(self, code: str, message: str, status: int = 0, details: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.details: Dict[str, Any] = details or {}


def find_navkernel(cwd: Optional[str] = None) -> List[str]:
    """The navkernel command of the project this runs in: ``$NAVKERNEL_BIN`` (split like a shell would), else
    ``node_modules/.bin/navkernel`` in ``cwd`` (default: the current folder) or the nearest folder above it that has
    one, else ``navkernel`` on PATH. Never asks a registry (``npx navkernel`` would, and fails outside a clone).
    Raises ``NavkernelError`` with code ``MISSING_PACKAGE``, naming every place it looked, when there is none."""
    tried: List[str] = []
    named = os.environ.get(NAVKERNEL_BIN, "").strip()
    if named:
        return shlex.split(named)
    tried.append(f"${NAVKERNEL_BIN} (not set)")
    folder = os.path.abspath(cwd or os.getcwd())
    while True:
        candidate = os.path.join(folder, "node_modules", ".bin", "navkernel")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return [candidate]
        tried.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    on_path = shutil.which("navkernel")
    if on_path:
        return [on_path]
    tried.append("navkernel on PATH")
    raise NavkernelError(
        "MISSING_PACKAGE",
        "no navkernel command found; looked at " + ", ".join(tried)
        + f". Install navkernel in this project (docs/install.md: npm install /path/to/navkernel-<version>.tgz) or set {NAVKERNEL_BIN}",
    )


def _start_group(command: Sequence[str], **popen: Any) -> "subprocess.Popen[str]":
    """Starts ``command`` as the leader of a new process group (session), so that stopping it stops everything it
    started (a wrapper such as npx runs the real server as its child)."""
    return subprocess.Popen(list(command), start_new_session=True, **popen)


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (zombies waiting to be reaped do not count)."""
    if os.path.isdir("/proc/self"):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop_group(proc: "subprocess.Popen[str]", timeout: float = 30.0) -> int:
    """SIGTERM to the process group (serve finishes in-flight requests), SIGKILL to what is left of it after
    ``timeout``; returns once the leader is reaped and no process of the group runs."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + timeout
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; a child it started (a wrapper's real server) may still be finishing.
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _group_alive(proc.pid):
            return proc.returncode
    return proc.wait()


class Client:
    """The HTTP API of ``navkernel serve``. One keep-alive connection; not shared between threads."""

    def __init__(self, base_url: str = "http://127.0.0.1:8787", token: Optional[str] = None, timeout: float = 30.0) -> None:
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https"):
            raise ValueError(f"base_url must be http(s)://host:port, got {base_url!r}")
        self._https = url.scheme == "https"
        self._host = url.hostname or "127.0.0.1"
        self._port = url.port or (443 if self._https else 80)
        self._prefix = url.path.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._conn: Optional[http.client.HTTPConnection] = None

    # -- the API

    def route(self, request: RouteRequest) -> Decision:
        """Routes the step a runner just finished; the same request_id twice returns the recorded decision."""
        return self._call("POST", "/v1/route", request)

    def resolve(self, escalation_id: str, decision: str, by: str, reason: str, next: Optional[str] = None) -> Dict[str, Any]:
        """Records a person's decision on an open escalation (checked against the flow graph)."""
        body: Dict[str, Any] = {"decision": decision, "by": by, "reason": reason}
        if next is not None:
            body["next"] = next
        return self._call("POST", f"/v1/escalations/{urllib.parse.quote(escalation_id, safe='')}/resolve", body)

    def runs(self, status: Optional[str] = None, flow: Optional[str] = None, has_open_escalation: Optional[bool] = None,
             limit: int = 100) -> Iterator[Dict[str, Any]]:
        """Every run summary matching the filters, oldest first (follows the pages)."""
        cursor: Optional[str] = None
        while True:
            query: Dict[str, str] = {"limit": str(limit)}
            if status is not None:
                query["status"] = status
            if flow is not None:
                query["flow"] = flow
            if has_open_escalation is not None:
                query["has_open_escalation"] = "true" if has_open_escalation else "false"
            if cursor is not None:
                query["cursor"] = cursor
            page = self._call("GET", "/v1/runs?" + urllib.parse.urlencode(query))
            yield from page["runs"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def run(self, run_id: str) -> Dict[str, Any]:
        """A run's summary, state, decisions and escalations."""
        return self._call("GET", f"/v1/runs/{urllib.parse.quote(run_id, safe='')}")

    def audit(self, run_id: str, why: Optional[str] = None) -> Dict[str, Any]:
        """How a run was routed (``navkernel runs audit``); with ``why`` the decisions that touched that step."""
        path = f"/v1/runs/{urllib.parse.quote(run_id, safe='')}/audit"
        if why is not None:
            path += "?" + urllib.parse.urlencode({"why": why})
        return self._call("GET", path)

    def health(self) -> Dict[str, Any]:
        return self._call("GET", "/v1/healthz")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self._timeout)
        return self._conn

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"accept": "application/json"}
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                try:
                    conn.request(method, self._prefix + path, body=data, headers=headers)
                except (ConnectionResetError, BrokenPipeError):
                    # The server may have answered before reading the whole body (a 413 for a body over its
                    # --max-bytes) and closed: that answer is still there to read.
                    answer = self._answer_after_broken_send(conn)
                    if answer is None:
                        raise
                    res, raw = answer
                    break
                res = conn.getresponse()
                raw = res.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection: reconnect once. Only safe because a route
                # with a request_id is idempotent; without one, a retried POST could be routed twice.
                self.close()
                if attempt == 2 or (method == "POST" and not (isinstance(body, dict) and body.get("request_id"))):
                    raise
        text = raw.decode("utf-8", "replace")
        if res.status >= 400:
            try:
                problem = json.loads(text)
            except ValueError:
                problem = {"code": "INTERNAL", "detail": text}
            raise NavkernelError(problem.get("code", "INTERNAL"), problem.get("detail", text), res.status, problem)
        if res.headers.get("content-type", "").startswith("application/json"):
            return json.loads(text)
        return text


    def _answer_after_broken_send(self, conn: http.client.HTTPConnection) -> Optional[Tuple[http.client.HTTPResponse, bytes]]:
        """The response a server sent before it stopped reading the request, if any (then the connection is closed)."""
        try:
            res = conn.getresponse()
            raw = res.read()
        except (OSError, http.client.HTTPException):
            return None
        finally:
            self.close()
        return res, raw


class CoProcess:
    """``navkernel route`` as a child process: one JSON line in, one JSON line out, in order."""

    def __init__(self, command: Optional[Sequence[str]] = None, cwd: Optional[str] = None) -> None:
        """``command``: the whole command line; default ``find_navkernel(cwd) + ["route"]``. It runs as a process
        group of its own, stopped as a whole by ``close()``."""
        command = list(command) if command is not None else find_navkernel(cwd) + ["route"]
        self._proc = _start_group(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self._lock = threading.Lock()
        # Drain stderr so the child never blocks on a full pipe; keep the last lines for error messages.
        self.stderr_tail: List[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self.stderr_tail = (self.stderr_tail + [line.rstrip("\n")])[-20:]

    def route(self, request: RouteRequest) -> Decision:
        """Routes one request; raises NavkernelError with the error line's code when the kernel refuses it."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        with self._lock:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        if not line:
            raise NavkernelError("INTERNAL", "the co-process exited: " + " | ".join(self.stderr_tail))
        answer = json.loads(line)
        if "error" in answer:
            err = answer["error"]
            # The co-process numbers its input lines ("line 12: ..."); to a caller of route() that number means
            # nothing, so the message drops it (it stays in details["error"]["line"]).
            message = re.sub(r"^line \d+: ", "", err.get("message", ""))
            raise NavkernelError(err.get("code", "INTERNAL"), message, 0, answer)
        return answer

    def close(self, timeout: float = 30.0) -> int:
        """Closes stdin and waits for the co-process (it answers what it read, then exits); returns its exit code.
        A co-process still running after ``timeout`` is stopped with its whole process group."""
        if self._proc.stdin and not self._proc.stdin.closed:
            self._proc.stdin.close()
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return _stop_group(self._proc)

    def __enter__(self) -> "CoProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- forensics from real tools' reports (docs/forensics.md)


def with_reports(request: RouteRequest, files: Sequence[str] = (), git: Optional[str] = None,
                 as_format: Optional[str] = None) -> RouteRequest:
    """``request`` naming report files for the co-process or ``serve`` to read into its forensics.

    They read them only when started with ``--reports-root DIR``, and only under that folder (paths relative to
    it); a report they cannot read is a ``NavkernelError`` with code ``INVALID_REPORT``. No extra process per step.
    """
    reports: Dict[str, Any] = {}
    if files:
        reports["files"] = list(files)
    if git is not None:
        reports["git"] = git
    if as_format is not None:
        reports["as"] = as_format
    out: RouteRequest = dict(request)  # type: ignore[assignment]
    out["reports"] = reports
    return out


def collect_forensics(files: Sequence[str] = (), git: Optional[str] = None, as_format: Optional[str] = None,
                      command: Optional[Sequence[str]] = None, cwd: Optional[str] = None,
                      timeout: float = 120.0) -> Dict[str, Any]:
    """The ``forensics`` of report files (and a git work tree), read by ``navkernel forensics`` in this process's
    stead: for a runner that routes through a kernel that cannot see its files. ``command`` defaults to
    ``find_navkernel(cwd) + ["forensics"]``. Raises ``NavkernelError``
    (``INVALID_REPORT``, ``USAGE``, ...) when a report cannot be read."""
    args = (list(command) if command is not None else find_navkernel(cwd) + ["forensics"]) + list(files) + ["--json"]
    if git is not None:
        args += ["--git", git]
    if as_format is not None:
        args += ["--as", as_format]
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, encoding="utf-8", timeout=timeout)
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    try:
        answer = json.loads(line) if line else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise NavkernelError("INTERNAL", f"navkernel forensics exited {done.returncode}: {done.stderr.strip()[-500:]}")
    if "error" in answer and done.returncode != 0:
        err = answer["error"]
        raise NavkernelError(err.get("code", "INTERNAL"), err.get("message", ""), 0, answer)
    return answer


# -- navkernel serve as a process group


class Serve:
    """A running ``navkernel serve`` started by ``start_serve``: ``base_url``, ``ledger``, ``flows``; ``close()`` (or
    leaving the ``with`` block, or the script's exit) stops it and every process it started."""

    def __init__(self, proc: "subprocess.Popen[str]", base_url: str, lines: List[str]) -> None:
        self.proc = proc
        self.base_url = base_url
        #: What serve printed on stderr so far (its start-up lines: where its ledger and flows are).
        self.stderr_lines = lines
        self.pid = proc.pid

    def close(self, timeout: float = 30.0) -> int:
        """Stops the server's process group (SIGTERM, then SIGKILL after ``timeout``); returns the exit code."""
        _LIVE.discard(self)
        if self.proc.poll() is not None:
            return self.proc.returncode
        return _stop_group(self.proc, timeout)

    def client(self, token: Optional[str] = None, timeout: float = 30.0) -> Client:
        return Client(self.base_url, token=token, timeout=timeout)

    def __enter__(self) -> "Serve":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_LIVE: "set[Serve]" = set()


@atexit.register
def _stop_live_servers() -> None:
    for serve in list(_LIVE):
        serve.close(timeout=10)


def start_serve(flows: Optional[str] = None, ledger: Optional[str] = None, port: int = 0, host: str = "127.0.0.1",
                args: Sequence[str] = (), command: Optional[Sequence[str]] = None, cwd: Optional[str] = None,
                env: Optional[Dict[str, str]] = None, timeout: float = 60.0) -> Serve:
    """Starts ``navkernel serve`` (default: on a free port) as a process group of its own and waits until it listens.

    ``command``: the navkernel command (default ``find_navkernel(cwd)``); ``args``: more ``serve`` flags
    (``["--token", t]``). Use it as a context manager, or call ``close()``: the whole group stops, so nothing outlives
    the script (also stopped at interpreter exit). Raises ``NavkernelError`` (``INTERNAL``) with serve's own words
    when it exits before listening."""
    argv = (list(command) if command is not None else find_navkernel(cwd)) + ["serve", "--host", host, "--port", str(port)]
    if flows is not None:
        argv += ["--flows", flows]
    if ledger is not None:
        argv += ["--ledger", ledger]
    argv += list(args)
    proc = _start_group(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True, encoding="utf-8")
    lines: List[str] = []
    found: List[str] = []
    ready = threading.Event()

    def drain() -> None:
        # Keeps reading after start-up, so the server never blocks on a full stderr pipe.
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            del lines[:-50]
            m = re.search(r"listening on (https?://\S+)", line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(timeout) or not found:
        _stop_group(proc, 5)
        raise NavkernelError("INTERNAL", f"navkernel serve did not start ({' '.join(argv)}): " + " | ".join(lines[-10:]))
    serve = Serve(proc, found[0], lines)
    _LIVE.add(serve)
    return serve
