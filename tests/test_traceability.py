"""Every rule clause of docs/rules.md is tested, and every rule marker names a clause.

The clauses are the headings ``### R4.2 Title {#r4-2}`` of ``docs/rules.md``; tests
name them with ``@pytest.mark.rule("R4.2")``. Markers are read statically
(``tests/rule_markers.py``), the same way the docs generator writes the traceability
table (``docs/generate.py``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

import conftest
from allegra_rules import OPTION_CHOICES
from rule_markers import RULES_MD, collect_markers, parse_clauses, traceability_markdown

ROOT = Path(__file__).resolve().parent.parent
AMBIGUITIES_MD = ROOT / "docs" / "ambiguities.md"


def _sections(text: str) -> dict[str, str]:
    """The text of each clause, from its heading to the next heading."""
    out: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        heading = re.match(r"^#{2,6}\s+(R\d+(?:\.\d+)*)\s", line)
        if heading:
            current = heading.group(1)
            out[current] = ""
        elif line.startswith("#"):
            current = None
        elif current is not None:
            out[current] += line + "\n"
    return out


def test_rules_md_defines_numbered_clauses_with_stable_anchors() -> None:
    clauses = parse_clauses()
    assert len(clauses) >= 40
    for clause in clauses.values():
        assert re.fullmatch(r"R\d+\.\d+", clause.id), clause.id
        assert clause.anchor == clause.id.lower().replace(".", "-"), clause
        assert clause.title and not clause.title.endswith("."), clause
    with pytest.raises(ValueError, match="defined twice"):
        parse_clauses("### R1.1 A {#r1-1}\n### R1.1 B {#r1-1}\n")


def test_every_clause_names_its_option_and_every_option_has_a_clause() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    sections = _sections(text)
    assert set(sections) == set(parse_clauses())
    for clause_id, body in sections.items():
        assert "**Option" in body, f"{clause_id} does not say which option changes it"
    for option, values in OPTION_CHOICES.items():
        assert f"`{option}`" in text, option
        for value in values:
            assert f'`"{value}"`' in text, (option, value)
    for option in ("deck", "min_players", "max_players", "max_turns_per_round"):
        assert f"`{option}`" in text, option


def test_links_of_rules_md_resolve() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    anchors = {c.anchor for c in parse_clauses().values()}
    for target in re.findall(r"\]\(#([\w.-]+)\)", text):
        assert target in anchors, f"rules.md links to a missing clause anchor #{target}"
    ambiguity_anchors = set(re.findall(r"\{#(a\d+)\}", AMBIGUITIES_MD.read_text("utf-8")))
    assert ambiguity_anchors == {f"a{i}" for i in range(1, 39)}
    linked = set(re.findall(r"\]\(ambiguities\.md#(a\d+)\)", text))
    assert linked <= ambiguity_anchors
    assert linked == ambiguity_anchors, "every ambiguity entry is linked from a clause"


def test_every_clause_has_a_test() -> None:
    markers = collect_markers()
    untested = [c for c in parse_clauses() if not markers.tests.get(c)]
    assert not untested, f"clauses without a test: {untested}"


def test_every_marker_names_an_existing_clause() -> None:
    markers = collect_markers()
    assert not markers.errors, markers.errors
    unknown = sorted(set(markers.tests) - set(parse_clauses()))
    assert not unknown, f"markers name clauses that are not in docs/rules.md: {unknown}"


def test_static_collection_reads_decorators_params_classes_and_pytestmark(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        "pytestmark = pytest.mark.rule('R1.1')\n"
        "@pytest.mark.rule('R2.1', 'R2.2')\n"
        "def test_a():\n    pass\n"
        "@pytest.mark.parametrize('x', [pytest.param(1, marks=pytest.mark.rule('R3.1'))])\n"
        "def test_b(x):\n    pass\n"
        "@pytest.mark.rule('R4.1')\n"
        "class TestC:\n"
        "    @pytest.mark.rule('R4.2')\n"
        "    def test_d(self):\n        pass\n"
        "def helper():\n    return pytest.mark.rule('R9.9')\n"
        "@pytest.mark.rule(CLAUSE)\n"
        "def test_e():\n    pass\n"
        "@pytest.mark.rule('4.2')\n"
        "def test_f():\n    pass\n"
    )
    found = collect_markers(tmp_path)
    assert found.by_test == {
        f"{tmp_path.name}/test_sample.py::test_a": ["R1.1", "R2.1", "R2.2"],
        f"{tmp_path.name}/test_sample.py::test_b": ["R1.1", "R3.1"],
        f"{tmp_path.name}/test_sample.py::TestC::test_d": ["R1.1", "R4.1", "R4.2"],
        f"{tmp_path.name}/test_sample.py::test_e": ["R1.1"],
        f"{tmp_path.name}/test_sample.py::test_f": ["R1.1"],
    }
    assert len(found.errors) == 3
    assert any("outside a test" in e for e in found.errors)
    assert any("string literals" in e for e in found.errors)
    assert any("'4.2' is not a clause id" in e for e in found.errors)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


def test_generated_traceability_page_covers_every_clause() -> None:
    page = _generator().traceability_table()
    assert page == traceability_markdown()
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(
            r"^\| \[(R[\d.]+)\]\(rules\.md#[\w-]+\) \| .*? \| (.*) \|$", page, re.M
        )
    }
    clauses = parse_clauses()
    assert list(rows) == list(clauses), "one row per clause, in document order"
    for clause_id, tests in rows.items():
        assert "no test" not in tests and "tests/test_" in tests, clause_id
        assert f"(rules.md#{clauses[clause_id].anchor})" in page
    assert "unknown clauses" not in page


def _item(*marks: tuple[object, ...]) -> SimpleNamespace:
    return SimpleNamespace(
        iter_markers=lambda name: (
            [SimpleNamespace(args=args) for args in marks] if name == "rule" else []
        )
    )


def test_a_marker_naming_an_unknown_clause_fails_the_test() -> None:
    conftest.pytest_runtest_setup(_item(("R1.1", "R9.5")))  # type: ignore[arg-type]
    with pytest.raises(pytest.fail.Exception, match=r"R99\.1 is not in docs/rules\.md"):
        conftest.pytest_runtest_setup(_item(("R1.1",), ("R99.1",)))  # type: ignore[arg-type]
    with pytest.raises(pytest.fail.Exception, match="not a clause id"):
        conftest.pytest_runtest_setup(_item(("rule 4",)))  # type: ignore[arg-type]
    with pytest.raises(pytest.fail.Exception, match="at least one clause id"):
        conftest.pytest_runtest_setup(_item(()))  # type: ignore[arg-type]
