"""The suite's own check: every test asserts something.

A test function must contain an ``assert``, a ``pytest.raises``/``pytest.warns`` block,
or a call to a helper of the test tree that itself asserts (found transitively, by name:
``error_of``, ``assert_refused``, ``expect(...)`` of Playwright and the like). A test that
only runs code proves nothing when that code silently does nothing, so a new one without
any check fails here, naming itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: Calls that check by themselves, outside the test tree: Playwright's ``expect``,
#: Hypothesis-driven schema checks (``call_and_validate``), Django's ``assertNumQueries``.
CHECKING_CALLS = {"expect", "call_and_validate", "fail"}


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def _checks_directly(node: ast.AST) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Assert | ast.Raise):
            return True
        if isinstance(child, ast.With | ast.AsyncWith):
            for item in child.items:
                text = ast.unparse(item.context_expr)
                if "raises" in text or "warns" in text or "assertNum" in text:
                    return True
    return False


def _functions(root: Path) -> list[tuple[Path, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((path, node))
    return found


def unchecked_tests(root: Path = TESTS) -> list[str]:
    functions = _functions(root)
    checking = set(CHECKING_CALLS)
    checking |= {node.name for _, node in functions if _checks_directly(node)}
    # Helpers that call helpers that check also check: widen until nothing changes.
    while True:
        more = {node.name for _, node in functions
                if node.name not in checking and _called_names(node) & checking}
        if not more:
            break
        checking |= more
    return [f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"
            for path, node in functions
            if node.name.startswith("test_") and not _checks_directly(node)
            and not (_called_names(node) & checking)]


def test_every_test_checks_something():
    assert unchecked_tests() == []


def test_the_check_names_a_test_that_checks_nothing_and_spares_one_that_asks_a_helper(tmp_path):
    """The scan itself can fail: a test that only calls code is named; a test whose helper
    (in another file) asserts is not."""
    root = tmp_path / "tests"
    root.mkdir()
    (root / "helpers.py").write_text("def error_of(response, status):\n    assert response.status_code == status\n")
    (root / "test_a.py").write_text(
        "def test_nothing(client):\n    client.get('/')\n\n\n"
        "def test_refused(client):\n    error_of(client.get('/'), 404)\n"
    )
    assert unchecked_tests(root) == ["tests/test_a.py:1 test_nothing"]
