"""Starts a real ``navkernel serve`` (on a free port, a fresh SQLite ledger, a bearer token) for the client's tests.

The command is ``$NAVKERNEL`` (default ``node <checkout>/bin/navkernel.js``, which needs ``npm run build``); the
flows are ``$NAVKERNEL_TEST_FLOWS`` (default the checkout's ``charters/``).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
from typing import Iterator, List

import pytest

CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TOKEN = "pytest-token"


def navkernel_command() -> List[str]:
    cmd = os.environ.get("NAVKERNEL")
    return shlex.split(cmd) if cmd else ["node", os.path.join(CHECKOUT, "bin", "navkernel.js")]


class Serve:
    def __init__(self, base_url: str, ledger: str, flows: str) -> None:
        self.base_url = base_url
        self.ledger = ledger
        self.flows = flows
        self.token = TOKEN


@pytest.fixture(scope="session")
def serve() -> Iterator[Serve]:
    folder = tempfile.mkdtemp(prefix="navkernel-pytest-")
    ledger = os.path.join(folder, "ledger.sqlite")
    flows = os.environ.get("NAVKERNEL_TEST_FLOWS", os.path.join(CHECKOUT, "charters"))
    proc = subprocess.Popen(navkernel_command() + ["serve", "--port", "0", "--flows", flows, "--ledger", ledger, "--token", TOKEN],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = threading.Event()
    lines: List[str] = []
    base: List[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if m and not base:
                base.append(m.group(1))
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not found.wait(60) or not base:
            raise RuntimeError("navkernel serve did not start: " + "".join(lines))
        yield Serve(base[0], ledger, flows)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
