#!/usr/bin/env bash
# The README's test command: install what the tests need into the virtual environment .venv (scripts/venv.sh:
# made with python3 -m venv, so a distribution's Python works), then run pytest with the venv's Python.
# Needs Debian's chromium for the browser tests; installs it when missing (as root). Arguments go to pytest.
# The tests need nothing outside the repository (real papers: the sample in tests/fixtures/papers/).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
fi
bash scripts/venv.sh test
npm ci --no-audit --no-fund --silent
exec .venv/bin/python -m pytest "$@"
