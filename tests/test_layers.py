"""The layers of the packages, as import-linter checks them (pyproject.toml's
``[tool.importlinter]``; docs/architecture.md, "Layers").

The first test runs the project's contracts on the project: the engine and the tournament
formats import nothing of the site, and the apps import only the layers below them. The
others run the same contracts on a tree of empty modules with the project's package and
module names, once as it is (the contracts hold) and once with one deliberate forbidden
import: the contract breaks and names the import.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def lint_imports(cwd: Path, pythonpath: list[Path]) -> subprocess.CompletedProcess:
    """``lint-imports`` in ``cwd`` (its pyproject.toml), without a cache, with only
    ``pythonpath`` ahead of the installed packages."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath)), "NO_COLOR": "1", "COLUMNS": "200"}
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_project_keeps_its_layers():
    out = lint_imports(ROOT, [ROOT, ROOT / "platform"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout, out.stdout


def _config_text() -> str:
    """The ``[tool.importlinter]`` part of pyproject.toml, as written."""
    text = PYPROJECT.read_text()
    start = text.index("\n[tool.importlinter]\n") + 1
    end = re.search(r"^\[(?!\[?tool\.importlinter)", text[start + 1:], re.M)
    return text[start:start + 1 + end.start()] if end else text[start:]


def _stub_tree(tmp_path: Path) -> Path:
    """Empty packages and modules under the names the contracts use, each excepted import
    (``ignore_imports``) written as a real import, and the contracts in pyproject.toml."""
    config = tomllib.loads(_config_text())["tool"]["importlinter"]
    roots = set(config["root_packages"])
    modules = set(roots)
    imports: dict[str, list[str]] = {}
    for contract in config["contracts"]:
        for layer in contract.get("layers", []):
            modules.update(name.strip() for name in re.split(r"[|:]", layer))
        modules.update(contract.get("source_modules", []))
        modules.update(name for name in contract.get("forbidden_modules", []) if name.split(".")[0] in roots)
        for rule in contract.get("ignore_imports", []):
            importer, imported = (name.strip() for name in rule.split("->"))
            modules.update((importer, imported))
            imports.setdefault(importer, []).append(imported)
    for name in sorted(modules):
        parts = name.split(".")
        for depth in range(1, len(parts)):
            package = tmp_path.joinpath(*parts[:depth])
            package.mkdir(exist_ok=True)
            (package / "__init__.py").touch()
        path = tmp_path.joinpath(*parts)
        if path.is_dir() or name in roots or any(m.startswith(name + ".") for m in modules):
            path.mkdir(exist_ok=True)
            path = path / "__init__.py"
        else:
            path = path.with_suffix(".py")
        path.write_text("".join(f"import {imported}\n" for imported in imports.get(name, [])))
    (tmp_path / "pyproject.toml").write_text(_config_text())
    return tmp_path


def test_the_stub_tree_keeps_the_layers(tmp_path):
    """The tree the next test breaks passes as it is: its failures come from the one
    import each case adds."""
    tree = _stub_tree(tmp_path)
    out = lint_imports(tree, [tree])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def _add_module(tree: Path, name: str, text: str) -> None:
    """Write module ``name`` into the stub tree, turning its parent module into a package
    if it is a single file."""
    *parents, leaf = name.split(".")
    folder = tree.joinpath(*parents)
    if not folder.is_dir():
        single = folder.with_suffix(".py")
        folder.mkdir()
        (folder / "__init__.py").write_text(single.read_text())
        single.unlink()
    (folder / f"{leaf}.py").write_text(text)


@pytest.mark.parametrize(
    ("module", "statement", "contract", "shown"),
    [
        # An app importing a layer above it: decks is below tournaments.
        ("decks.upward", "import tournaments.services\n", "The apps in one order",
         "decks.upward -> tournaments.services"),
        # An import inside a function counts as well: web is below live.
        ("web.upward", "def later():\n    import live\n", "The apps in one order", "web.upward -> live"),
        ("engine.upward", "import matches\n", "The engine imports nothing of the site", "engine.upward -> matches"),
        # Outside packages are shown by their top-level name.
        ("engine.upward", "import django.db\n", "The engine imports nothing of the site", "engine.upward -> django"),
        ("tournaments.formats.upward", "from tournaments import models\n", "Tournament formats are pure Python",
         "tournaments.formats.upward -> tournaments.models"),
    ],
)
def test_a_forbidden_import_breaks_a_contract(tmp_path, module, statement, contract, shown):
    tree = _stub_tree(tmp_path)
    _add_module(tree, module, statement)
    out = lint_imports(tree, [tree])
    assert out.returncode == 1, out.stdout + out.stderr
    summary = [line for line in out.stdout.splitlines() if line.startswith(contract)]
    assert summary and "BROKEN" in summary[0], out.stdout
    broken = out.stdout[out.stdout.index("Broken contracts"):]
    assert re.search(rf"^-\s+{re.escape(shown)} \(l\.\d+\)$", broken, re.M), out.stdout
