"""The source layout that the rest of the project relies on (see shared DESIGN.md)."""

from __future__ import annotations

import importlib
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_platform_folder_is_never_a_package():
    """platform/ is a source root: an __init__.py there would shadow the standard
    library's ``platform`` module, which Celery, uvicorn, redis-py and pytest import."""
    assert not (ROOT / "platform" / "__init__.py").exists(), "delete platform/__init__.py: platform/ is a source root"


def test_import_platform_is_the_standard_library():
    import platform

    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    assert Path(platform.__file__).resolve().parent == stdlib
    assert platform.python_version() == ".".join(map(str, sys.version_info[:3]))


def test_apps_in_platform_import_by_their_own_names():
    """Each package inside platform/ is importable as a top-level package."""
    packages = sorted(p.parent.name for p in (ROOT / "platform").glob("*/__init__.py"))
    assert {"config", "web"} <= set(packages)
    for name in packages:
        module = importlib.import_module(name)
        assert Path(module.__file__).resolve().parent == (ROOT / "platform" / name).resolve()


def test_tournament_formats_are_pure_python():
    """tournaments/formats/ is pure Python (see docs/tournaments.md): no Django, no Celery,
    no platform app, checked in the source and in a fresh interpreter."""
    import ast
    import subprocess

    forbidden = {"django", "rest_framework", "channels", "celery", "redis", "config", "accounts", "decks",
                 "matches", "ladder", "live", "web"}
    for path in sorted((ROOT / "tournaments" / "formats").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{path.relative_to(ROOT)} imports {name}"
    code = "import sys, tournaments.formats; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
