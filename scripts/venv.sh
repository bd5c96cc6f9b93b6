#!/usr/bin/env bash
# The project's virtual environment: makes .venv with `python3 -m venv` when there is none (or none that works)
# and installs the project into it with its own pip, editable:
#   bash scripts/venv.sh            what the site builder runs (pyproject.toml's dependencies)
#   bash scripts/venv.sh test       and the test tools (the `test` extra); `bench` for the benchmarks
# Then run everything with .venv/bin/python. A distribution's Python (Debian, Ubuntu: PEP 668) refuses
# `pip install` outside a venv; its `venv` needs Debian's python3-venv (ensurepip), which is installed with
# apt-get when missing and this runs as root. pyenv and Homebrew Pythons have it already.
# PYTHON=/path/to/python3.12 bash scripts/venv.sh makes the venv with another Python (>= 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV=.venv
EXTRAS="${1:-}"

venv_works() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}

install_venv_package() {
  # Debian/Ubuntu's ensurepip comes with python3-venv (python3.X-venv for a Python that is not the default one).
  local versioned
  versioned="python$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv"
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/venv.sh: $PYTHON cannot make a virtual environment (no ensurepip): install python3-venv" \
         "(sudo apt-get install python3-venv $versioned) and run this again" >&2
    exit 1
  fi
  echo "scripts/venv.sh: installing python3-venv ($versioned) with apt-get for $PYTHON -m venv" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-venv >/dev/null
  if ! "$PYTHON" -c 'import ensurepip' >/dev/null 2>&1; then
    apt-get install -y -qq "$versioned" >/dev/null
  fi
}

if ! venv_works; then
  if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "scripts/venv.sh: no $PYTHON: install Python >= 3.11 (or set PYTHON=/path/to/python3)" >&2
    exit 1
  fi
  rm -rf "$VENV"  # none, or one left without pip (a venv that failed half-way)
  if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    install_venv_package
  fi
  "$PYTHON" -m venv "$VENV"
fi

# Install when pyproject.toml, the folder or the extras changed since the last install (pip would build the
# project again, seconds): the stamp holds a digest of pyproject.toml and the folder, then a line per install.
target="."
[ -n "$EXTRAS" ] && target=".[$EXTRAS]"
stamp="$VENV/.site-builder-installed"
digest="$("$VENV/bin/python" -c 'import hashlib, os
print(hashlib.sha256(open("pyproject.toml", "rb").read() + os.getcwd().encode()).hexdigest())')"
if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$digest" ] \
   && { [ -z "$EXTRAS" ] || grep -qxF "extra:$EXTRAS" "$stamp"; }; then
  exit 0  # installed (every install holds the project's own dependencies)
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$target"
if [ ! -f "$stamp" ] || [ "$(head -n 1 "$stamp")" != "$digest" ]; then
  printf '%s\n' "$digest" > "$stamp"
fi
printf '%s\n' "extra:$EXTRAS" >> "$stamp"
