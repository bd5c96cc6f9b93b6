"""scripts/venv.sh, which the README's commands, scripts/test.sh and .ci/run use: it makes ``.venv`` with
``python3 -m venv`` and installs the project with the venv's pip; where ``venv`` cannot work for want of Debian's
``python3-venv`` (no ``ensurepip``) it installs that with apt-get as root, and says what to install otherwise.

Run with stand-ins for ``python3``, ``apt-get`` and ``id`` (small shell scripts logging their arguments), so that
nothing is installed: the real runs are the clean-clone runs of the README's commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

# A python3 whose ensurepip is there once $FAKE/ensurepip exists (apt-get made it, or it was there from the start):
# `-m venv DIR` makes DIR/bin/python, itself a stand-in whose pip logs its arguments; `-c` runs the real Python.
PYTHON3 = """#!/bin/sh
echo "python3 $*" >> "$FAKE/log"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  [ -e "$FAKE/ensurepip" ] || { echo "ensurepip is not available" >&2; mkdir -p "$3/bin"; exit 1; }
  mkdir -p "$3/bin"
  cat > "$3/bin/python" <<'EOF'
#!/bin/sh
echo "venv-python $*" >> "$FAKE/log"
if [ "$1" = "-c" ]; then exec "$REAL_PYTHON" "$@"; fi
exit 0
EOF
  chmod +x "$3/bin/python"
  exit 0
fi
if [ "$1" = "-c" ] && [ "$2" = "import ensurepip, venv" ]; then [ -e "$FAKE/ensurepip" ]; exit; fi
if [ "$1" = "-c" ] && [ "$2" = "import ensurepip" ]; then [ -e "$FAKE/ensurepip" ]; exit; fi
exec "$REAL_PYTHON" "$@"
"""
APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$FAKE/log"
case "$*" in *python3-venv*) touch "$FAKE/ensurepip";; esac
"""
ID = """#!/bin/sh
echo "$FAKE_UID"
"""


def set_up(tmp_path: Path) -> None:
    """``tmp_path/repo``: the script and pyproject.toml; ``tmp_path/fake/bin``: the stand-ins."""
    repo, fake = tmp_path / "repo", tmp_path / "fake"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "venv.sh", repo / "scripts")
    shutil.copy(ROOT / "pyproject.toml", repo)
    (fake / "bin").mkdir(parents=True)
    for name, text in (("python3", PYTHON3), ("apt-get", APT_GET), ("id", ID)):
        (fake / "bin" / name).write_text(text, encoding="utf-8")
        (fake / "bin" / name).chmod(0o755)


def run_venv(tmp_path: Path, *args: str, uid: int = 0, ensurepip: bool = False) -> tuple[subprocess.CompletedProcess,
                                                                                          list[str]]:
    """``bash scripts/venv.sh ARGS`` in a folder holding the script and pyproject.toml, with the stand-ins first
    on PATH; returns the run and the stand-ins' log (emptied for the next run)."""
    repo, fake = tmp_path / "repo", tmp_path / "fake"
    if not repo.exists():
        set_up(tmp_path)
    if ensurepip:
        (fake / "ensurepip").touch()
    env = {"PATH": f"{fake / 'bin'}:/usr/bin:/bin", "FAKE": str(fake), "FAKE_UID": str(uid),
           "REAL_PYTHON": sys.executable, "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(repo / "scripts" / "venv.sh"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    log = fake / "log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return done, lines


def pip_installs(log: list[str]) -> list[str]:
    return [line.removeprefix("venv-python -m pip install ") for line in log if " -m pip install " in line]


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_a_distribution_python_without_venv_gets_python3_venv_from_apt_as_root(tmp_path):
    done, log = run_venv(tmp_path, "test")
    assert done.returncode == 0, done.stderr
    assert "apt-get install -y -qq python3-venv" in log and "python3 -m venv .venv" in log
    assert pip_installs(log) == ["-q --disable-pip-version-check -e .[test]"]
    assert "installing python3-venv" in done.stderr
    # again: the venv works and nothing changed, so nothing is installed; another extra is
    assert pip_installs(run_venv(tmp_path, "test")[1]) == []
    assert pip_installs(run_venv(tmp_path)[1]) == []  # the project alone: in every install
    assert pip_installs(run_venv(tmp_path, "bench")[1]) == ["-q --disable-pip-version-check -e .[bench]"]
    assert pip_installs(run_venv(tmp_path, "test")[1]) == []


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_without_root_it_says_what_to_install_and_installs_nothing(tmp_path):
    done, log = run_venv(tmp_path, uid=1000)
    assert done.returncode == 1
    assert "install python3-venv" in done.stderr and "apt-get install python3-venv" in done.stderr
    assert not [line for line in log if line.startswith("apt-get")] and pip_installs(log) == []
    assert not (tmp_path / "repo" / ".venv").exists()


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_a_python_with_ensurepip_pyenv_or_homebrew_needs_no_apt(tmp_path):
    done, log = run_venv(tmp_path, uid=1000, ensurepip=True)
    assert done.returncode == 0, done.stderr
    assert not [line for line in log if line.startswith("apt-get")]
    assert "python3 -m venv .venv" in log and pip_installs(log) == ["-q --disable-pip-version-check -e ."]


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_a_venv_left_without_pip_is_made_again(tmp_path):
    set_up(tmp_path)
    broken = tmp_path / "repo" / ".venv" / "bin" / "python"  # as `python3 -m venv` leaves it without ensurepip
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)
    done, log = run_venv(tmp_path, ensurepip=True)
    assert done.returncode == 0, done.stderr
    assert "python3 -m venv .venv" in log and pip_installs(log) == ["-q --disable-pip-version-check -e ."]
