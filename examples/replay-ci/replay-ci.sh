#!/usr/bin/env bash
# Replay as a CI regression test of a flow change: "does my edit alter any decision of a past run?"
#
#   bash examples/replay-ci/replay-ci.sh [FLOWS_DIR]     (default: the sample flows in charters/)
#
# 1. records some runs (here with `navkernel demo`; in a real project, a copy of your ledger or a fixture of it),
# 2. replays every run with the flows as they are: identical, exit 0,
# 3. replays them with an edited copy of the flows (every microloop cut to one iteration): the first divergence
#    of each run is printed and the script exits 1, which is what fails the CI job.
# Replay uses the recorded tier-3 answers, never a model: it needs no key and no network.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flows="${1:-$here/../../charters}"
navkernel=${NAVKERNEL:-npx navkernel}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ledger="$work/ledger.sqlite"

$navkernel demo --quiet --flows "$flows" --ledger "$ledger" --run-prefix ci >/dev/null || exit 2
runs=$($navkernel runs --ledger "$ledger" --json | sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p')

replay_all() { # FLOWS: replays every run, prints one line per run, returns 1 when any diverged
  local status=0
  for run in $runs; do
    $navkernel runs replay "$run" --ledger "$ledger" --flows "$1" --max 1 || status=1
  done
  return $status
}

echo "== replay with the flows unchanged"
replay_all "$flows" || { echo "unexpected: the unchanged flows diverged"; exit 2; }

echo "== replay with the edited flows (microloops cut to one iteration)"
cp -R "$flows" "$work/edited"
for f in "$work/edited"/*.yaml; do sed -i.bak 's/max_iterations: [0-9]*/max_iterations: 1/' "$f" && rm -f "$f.bak"; done
if replay_all "$work/edited"; then
  echo "no recorded decision changed"
else
  echo "the flow change alters recorded decisions: failing the build"
  exit 1
fi
