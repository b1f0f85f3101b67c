"""A small client for navkernel, standard library only (Python 3.9+).

Two ways to reach the kernel, one interface:

* ``Client``: the HTTP API of ``navkernel serve`` (``/v1``), with an optional bearer token;
* ``CoProcess``: a long-lived ``navkernel route`` child process speaking JSON lines on stdin/stdout.

Both return decisions as plain dicts (``schemas/decision.schema.json``) and raise ``NavkernelError`` with the
stable error ``code`` (``INVALID_REQUEST``, ``INVALID_FORENSICS``, ``UNKNOWN_RUN``, ...) when the kernel refuses a request.
A request-level error is ``INVALID_REQUEST``; versions before it answered ``INVALID_FORENSICS``, which stays
readable as ``NavkernelError.legacy_code``.
"""
from __future__ import annotations

import http.client
import json
import subprocess
import threading
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, TypedDict

__all__ = ["Client", "CoProcess", "NavkernelError", "Decision", "RouteRequest", "collect_forensics", "with_reports"]


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
        # The code earlier versions gave this error: INVALID_FORENSICS where the code is now INVALID_REQUEST.
        error = self.details.get("error")
        self.legacy_code: Optional[str] = self.details.get("legacy_code") or (error.get("legacy_code") if isinstance(error, dict) else None)


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
        """How a run was routed (``navkernel audit``); with ``why`` the decisions that touched that step."""
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

    def __init__(self, command: Sequence[str] = ("npx", "navkernel", "route"), cwd: Optional[str] = None) -> None:
        self._proc = subprocess.Popen(list(command), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
            raise NavkernelError(err.get("code", "INTERNAL"), err.get("message", ""), 0, answer)
        return answer

    def close(self) -> int:
        """Closes stdin and waits for the co-process; returns its exit code."""
        if self._proc.stdin and not self._proc.stdin.closed:
            self._proc.stdin.close()
        return self._proc.wait(timeout=30)

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
                      command: Sequence[str] = ("npx", "navkernel", "forensics"), cwd: Optional[str] = None,
                      timeout: float = 120.0) -> Dict[str, Any]:
    """The ``forensics`` of report files (and a git work tree), read by ``navkernel forensics`` in this process's
    stead: for a runner that routes through a kernel that cannot see its files. Raises ``NavkernelError``
    (``INVALID_REPORT``, ``USAGE``, ...) when a report cannot be read."""
    args = list(command) + list(files) + ["--json"]
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
