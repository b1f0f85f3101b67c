#!/usr/bin/env bash
# Routes one release run through the custom flow from a shell: one JSON request per line on stdin, one decision per
# line on stdout (the co-process protocol; no ledger, so nothing is written).
#   bash examples/custom-flow/route.sh        (NAVKERNEL="node bin/navkernel.js" to use a checkout's build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
navkernel=${NAVKERNEL:-npx navkernel}
lint='"forensics":{"lint":{"errors":3,"output":"eslint: 3 errors"}}'
$navkernel route --flows "$here" --no-ledger <<JSONL
{"run_id":"rel-1","flow":"release","step_completed":"package","status":"VERIFIED"}
{"run_id":"rel-1","flow":"release","step_completed":"check","status":"FAILED",$lint}
{"run_id":"rel-1","flow":"release","step_completed":"check","status":"FAILED",$lint}
{"run_id":"rel-1","flow":"release","step_completed":"fix-lint","status":"DONE"}
{"run_id":"rel-1","flow":"release","step_completed":"check","status":"PASSED"}
{"run_id":"rel-1","flow":"release","step_completed":"review","status":"CHANGES"}
{"run_id":"rel-1","flow":"release","step_completed":"package","status":"VERIFIED"}
{"run_id":"rel-1","flow":"release","step_completed":"check","status":"PASSED"}
{"run_id":"rel-1","flow":"release","step_completed":"review","status":"APPROVED"}
{"run_id":"rel-1","flow":"release","step_completed":"publish","status":"DONE"}
JSONL
