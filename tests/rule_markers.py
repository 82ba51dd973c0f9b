"""Rule clauses and the tests that check them, read statically (no test is imported).

``docs/rules.md`` numbers the rules as clauses: a heading ``### R4.2 Title {#r4-2}``.
Tests name the clauses they check with ``@pytest.mark.rule("R4.2", ...)``. This module
parses both, with :mod:`ast` for the tests, so that the test suite
(``tests/test_traceability.py``), the marker check in ``tests/conftest.py`` and the
docs generator (``docs/generate.py``, which writes the traceability table) share one
reading.

Run ``python tests/rule_markers.py`` to print the clause -> tests mapping.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = ROOT / "docs" / "rules.md"
TESTS_DIR = ROOT / "tests"

CLAUSE_ID = re.compile(r"^R\d+(?:\.\d+)*$")
_HEADING = re.compile(r"^#{2,6}\s+(R\d+(?:\.\d+)*)\s+(.*?)\s*(?:\{#([\w.-]+)\})?\s*$")


@dataclass(frozen=True)
class Clause:
    """A numbered rule clause of ``docs/rules.md``."""

    id: str
    title: str
    anchor: str


@dataclass
class Markers:
    """Every ``rule`` marker of the test files.

    ``tests[clause_id]`` lists the tests (``"tests/test_x.py::test_name"``) that name
    the clause; ``by_test[test]`` the clauses a test names; ``errors`` describes every
    marker that could not be read statically or that stands outside a test.
    """

    tests: dict[str, list[str]] = field(default_factory=dict)
    by_test: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def parse_clauses(text: str | None = None) -> dict[str, Clause]:
    """The clauses of ``docs/rules.md`` (or of ``text``), in document order."""
    if text is None:
        text = RULES_MD.read_text(encoding="utf-8")
    clauses: dict[str, Clause] = {}
    for line in text.splitlines():
        match = _HEADING.match(line)
        if not match:
            continue
        clause_id, title, anchor = match.groups()
        if clause_id in clauses:
            raise ValueError(f"clause {clause_id} is defined twice in rules.md")
        clauses[clause_id] = Clause(clause_id, title, anchor or clause_id.lower())
    return clauses


def _is_rule_mark(node: ast.AST) -> bool:
    """``<anything>.mark.rule(...)``: a call of the ``rule`` marker."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "rule"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "mark"
    )


def _rule_calls(nodes: list[ast.expr]) -> list[ast.Call]:
    found: list[ast.Call] = []
    for node in nodes:
        found.extend(n for n in ast.walk(node) if _is_rule_mark(n))  # type: ignore[misc]
    return found


def _ids_of(call: ast.Call, where: str, errors: list[str]) -> list[str]:
    ids: list[str] = []
    if call.keywords or not call.args:
        errors.append(f"{where}: rule marker needs clause ids as positional string literals")
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            if CLAUSE_ID.match(arg.value):
                ids.append(arg.value)
            else:
                errors.append(f"{where}: {arg.value!r} is not a clause id like 'R4.2'")
        else:
            errors.append(f"{where}: rule marker arguments must be string literals")
    return ids


def _module_marks(tree: ast.Module) -> list[ast.expr]:
    values: list[ast.expr] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            values.append(node.value)
    return values


def _tests_in(
    body: list[ast.stmt], prefix: str
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, list[ast.expr]]]:
    """``(name, function, inherited mark expressions)`` of every test in ``body``."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, list[ast.expr]]] = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            out.append((prefix + node.name, node, []))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            inherited = list(node.decorator_list)
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
                ):
                    inherited.append(stmt.value)
            for name, fn, marks in _tests_in(node.body, f"{prefix}{node.name}::"):
                out.append((name, fn, inherited + marks))
    return out


def collect_markers(tests_dir: Path | None = None) -> Markers:
    """Read every ``rule`` marker of ``tests_dir/test_*.py`` without importing them."""
    tests_dir = tests_dir or TESTS_DIR
    result = Markers()
    for path in sorted(tests_dir.glob("test_*.py")):
        rel = f"{tests_dir.name}/{path.name}"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module_marks = _module_marks(tree)
        attributed: set[int] = set()
        for call in _rule_calls(module_marks):
            attributed.add(id(call))
        for name, fn, inherited in _tests_in(tree.body, f"{rel}::"):
            calls = _rule_calls(module_marks + inherited + list(fn.decorator_list))
            attributed.update(id(c) for c in calls)
            ids: list[str] = []
            for call in calls:
                for clause_id in _ids_of(call, name, result.errors):
                    if clause_id not in ids:
                        ids.append(clause_id)
            if ids:
                result.by_test[name] = ids
                for clause_id in ids:
                    result.tests.setdefault(clause_id, []).append(name)
        for node in ast.walk(tree):
            if _is_rule_mark(node) and id(node) not in attributed:
                result.errors.append(
                    f"{rel}:{node.lineno}: a rule marker outside a test's decorators "
                    "(or module pytestmark) cannot be read statically"
                )
    return result


def traceability_markdown(
    clauses: dict[str, Clause] | None = None, markers: Markers | None = None
) -> str:
    """The traceability table: every clause with the tests that check it.

    ``docs/generate.py`` writes it to ``docs/_generated/snippets/traceability.md``,
    which ``docs/traceability.md`` includes.
    """
    clauses = clauses if clauses is not None else parse_clauses()
    markers = markers if markers is not None else collect_markers()
    covered = sum(1 for c in clauses if markers.tests.get(c))
    lines = [
        f"**{covered} of {len(clauses)} clauses** are checked by "
        f"**{len(markers.by_test)} marked tests**.",
        "",
        "| Clause | Rule | Tests |",
        "|---|---|---|",
    ]
    for clause in clauses.values():
        tests = markers.tests.get(clause.id, [])
        cell = "<br>".join(f"`{t}`" for t in tests) if tests else "**no test**"
        link = f"[{clause.id}](rules.md#{clause.anchor})"
        lines.append(f"| {link} | {clause.title} | {cell} |")
    unknown = sorted(set(markers.tests) - set(clauses))
    if unknown:
        lines += ["", "**Markers naming unknown clauses:** " + ", ".join(unknown)]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    found = collect_markers()
    for clause in parse_clauses().values():
        print(clause.id, clause.title)
        for test in found.tests.get(clause.id, []):
            print("   ", test)
    for error in found.errors:
        print("ERROR", error)
