#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests when it is missing (playwright's own browser downloads do
# not work offline). Installs only when /usr/bin/chromium is absent, so an existing machine is left as it is.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing and this user cannot apt-get install it (run as root: apt-get install -y chromium)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
test -x /usr/bin/chromium
