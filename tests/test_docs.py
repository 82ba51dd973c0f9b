"""The docs: generated option and preset tables, pictures, and runnable examples.

The tables come from ``docs/hooks.py`` (the mkdocs hook), so they are checked by
calling its table functions. Every ```python block of ``docs/*.md`` and ``README.md``
is executed; a block right after a ``<!-- no-test -->`` line is skipped.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from allegra_rules import PRESETS, RuleConfig
from allegra_rules.svg import docs_pictures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@functools.cache
def hooks() -> ModuleType:
    """``docs/hooks.py`` (it needs mkdocs: the tests that use it skip without the docs extra)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")
    path = DOCS / "hooks.py"
    spec = importlib.util.spec_from_file_location("_allegra_docs_hooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


FIELDS = [f.name for f in attrs.fields(RuleConfig)]
PRESET_IDS = [f"{name}@{v}" for name, vs in PRESETS.items() for v in range(1, len(vs) + 1)]


@pytest.mark.parametrize("name", FIELDS)
def test_options_table_lists_every_field(name: str) -> None:
    assert f"| `{name}` |" in hooks().options_table()


@pytest.mark.parametrize("pid", PRESET_IDS)
def test_presets_table_lists_every_preset(pid: str) -> None:
    base, _, version = pid.partition("@")
    config = PRESETS[base][int(version) - 1]
    row = next(r for r in hooks().presets_table().splitlines() if r.startswith(f"| `{pid}` |"))
    assert config.fingerprint[:12] in row
    for option in config.options_differing_from(RuleConfig()):
        assert f"`{option}`" in row


def test_every_field_settles_an_ambiguity_shown_on_the_ambiguities_page() -> None:
    text = hooks().render_markers((DOCS / "ambiguities.md").read_text(encoding="utf-8"))
    assert "<!--" not in text.replace("<!-- no-test -->", "")
    for field in attrs.fields(RuleConfig):
        amb = field.metadata["ambiguity"]
        table = hooks().ambiguity_options(amb)
        assert f"| `{field.name}` |" in table
        for pid in PRESET_IDS:
            assert f"`{pid}`" in table
        assert f"{{#{amb.lower()}}}" in text


def test_ambiguities_page_keeps_every_anchor_and_quotes_three_texts() -> None:
    text = (DOCS / "ambiguities.md").read_text(encoding="utf-8")
    for n in range(1, 39):
        section = text.split(f"{{#a{n}}}", 1)[1].split("\n## ", 1)[0]
        assert "| DE | PL | FR |" in section, n
        assert f"<!-- ambiguity-options: A{n} -->" in section, n


def test_variants_page_uses_the_generated_tables() -> None:
    text = (DOCS / "variants.md").read_text(encoding="utf-8")
    assert "<!-- options-table -->" in text
    assert "<!-- presets-table -->" in text


def test_pictures_are_used_in_the_pages() -> None:
    pages = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    used = "".join(pages.values())
    assert set(hooks().pictures()) == set(docs_pictures())
    for name in docs_pictures():
        assert f"(img/{name})" in used, name
    assert "(img/table-4p.svg)" in pages["index.md"]


OPTIONAL_MODULES = {
    "jsonschema",
    "pettingzoo",
    "gymnasium",
    "numpy",
    "pyspiel",
    "open_spiel",
    "ray",
    "torch",
    "supersuit",
}
"""Modules of optional extras: an example needing one is skipped when it is absent."""


def _python_blocks(path: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S):
        before = text[: m.start()].rstrip().splitlines()
        if before and before[-1].strip() == "<!-- no-test -->":
            continue
        line = text[: m.start()].count("\n") + 2
        out.append((f"{path.name}:{line}", m.group(1)))
    return out


PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]
PAGES_WITH_CODE = [p for p in PAGES if _python_blocks(p)]


def test_the_tutorial_and_variants_pages_have_examples() -> None:
    names = {p.name for p in PAGES_WITH_CODE}
    assert {"tutorial.md", "variants.md", "README.md"} <= names


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=[p.name for p in PAGES_WITH_CODE])
def test_python_blocks_run(page: Path) -> None:
    """The blocks of one page run in order in one namespace, like a reader would."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for where, code in _python_blocks(page):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, where, "exec"), namespace)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] in OPTIONAL_MODULES:
                pytest.skip(f"{where}: optional dependency {error.name} is not installed")
            raise
