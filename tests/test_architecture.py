"""The package's shape, as ARCHITECTURE.md describes it: stages layered without import cycles (import-linter's
contracts in pyproject.toml), no module using another module's private names, and small functions."""

from __future__ import annotations

import ast
import os
import shutil
import statistics
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "site_builder"


@lru_cache(maxsize=1)
def _modules() -> dict[str, ast.Module]:
    """``{dotted module name: its syntax tree}`` of every module of the package."""
    trees = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        trees[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return trees


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute name of what ``node`` (in ``module``) imports from."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _private_uses(module: str, tree: ast.Module, is_package: bool) -> list[str]:
    """Where ``module`` takes a private name (``_x``) of another module of the package: ``from m import _x``,
    or ``m._x`` on a module ``m`` it imported."""
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, node, is_package)
            if not source.startswith("site_builder"):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{module}:{node.lineno}: from {source} import {alias.name}")
                aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("site_builder"):
                    aliases[alias.asname or alias.name] = alias.name
    modules = set(_modules())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")
                and aliases[node.value.id] in modules and aliases[node.value.id] != module):
            found.append(f"{module}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_import_contracts_are_kept():
    """``lint-imports`` (import-linter) checks the contracts of pyproject.toml: the stages are layered (each
    imports only those below it) and no modules or stages import each other in a circle."""
    program = Path(sys.executable).with_name("lint-imports")
    command = str(program) if program.exists() else shutil.which("lint-imports")
    assert command, "import-linter is not installed (pip install -e '.[test]')"
    done = subprocess.run([command, "--no-cache", "--config", str(ROOT / "pyproject.toml")],
                          check=False, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_no_module_uses_another_modules_private_names():
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    found = [use for name, tree in _modules().items() for use in _private_uses(name, tree, name in packages)]
    assert found == []


def test_functions_are_small():
    """No function over 60 lines; the median function at most 8 (the project's rule, DEVELOPERS' guide)."""
    lengths, long = [], []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                lengths.append(lines)
                if lines > 60:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert long == []
    assert statistics.median(lengths) <= 8


def test_no_browser_script_repeats_a_function_of_another():
    """A helper the page scripts share is written once (``el``, the element maker, was in search.js, typeahead.js
    and stars.js: now ``window.siteElement`` in words.js, which every page loads before them)."""
    import re
    from collections import defaultdict

    files = defaultdict(set)
    for path in sorted((ROOT / "assets").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"^( *)function (\w+)\(([^)]*)\) \{\n(.*?)\n\1\}", text, re.S | re.M):
            files[found.group(2, 3, 4)].add(path.name)
    assert {key[0]: sorted(names) for key, names in files.items() if len(names) > 1} == {}
