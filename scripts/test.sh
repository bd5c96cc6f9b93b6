#!/usr/bin/env bash
# The README's test command: install what the tests need, then run pytest.
# Needs Debian's chromium for the browser tests; installs it when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
fi
python3 -m pip install -q -e '.[test]'
npm ci --no-audit --no-fund --silent
python3 -m pytest "$@"
