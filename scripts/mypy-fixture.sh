#!/usr/bin/env bash
# Writes tests/fixtures/forensics/mypy.txt: real mypy output on a small project with seeded faults (a missing
# import, an argument of the wrong type, a wrong assignment), for the forensics tests. mypy comes from Debian
# (PyPI is not reachable on the build machine); it is installed here when missing. The fixture's first line
# records the mypy version that wrote it. Run: bash scripts/mypy-fixture.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v mypy >/dev/null 2>&1; then
  apt-get install -y mypy >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y mypy >/dev/null; }
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/m.py" <<'PY'
import not_a_module_anywhere


def double(x: int) -> int:
    return x * 2


double("one")
count: int = "many"
PY
out="$root/tests/fixtures/forensics/mypy.txt"
{
  echo "# written by scripts/mypy-fixture.sh with $(mypy --version)"
  (cd "$tmp" && mypy --no-error-summary --show-error-codes --no-color-output m.py || true)
  (cd "$tmp" && mypy --show-error-codes --no-color-output m.py | tail -1 || true)
} > "$out"
echo "wrote $out"
