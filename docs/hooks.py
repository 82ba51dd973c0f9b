"""MkDocs hook: generate the traceability page (rule clause -> tests) at build time.

It also replaces the markers ``<!-- options-table -->``, ``<!-- presets-table -->``
and ``<!-- ambiguity-options: A6 -->`` in any page by tables built from
``attrs.fields(RuleConfig)`` and ``PRESETS`` (so options are never written twice), and
adds the pictures of ``allegra_rules.svg.docs_pictures()`` to the site as ``img/*.svg``.

Registered in ``mkdocs.yml`` under ``hooks:``. It reads ``docs/rules.md`` and the
``@pytest.mark.rule`` markers of ``tests/test_*.py`` statically (nothing is imported or
run) through ``tests/rule_markers.py``, and adds ``traceability.md`` to the site as a
generated page; no file is written to ``docs/``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
PAGE = "traceability.md"


def _rule_markers() -> ModuleType:
    path = ROOT / "tests" / "rule_markers.py"
    spec = importlib.util.spec_from_file_location("_allegra_rule_markers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


def traceability_page() -> str:
    """The Markdown of the traceability page."""
    markdown: str = _rule_markers().traceability_markdown()
    return markdown


def on_files(files: Files, config: Any) -> Files:
    """Add the generated traceability page and the pictures (``img/*.svg``)."""
    existing = files.get_file_from_path(PAGE)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, PAGE, content=traceability_page()))
    for name, svg in pictures().items():
        path = f"img/{name}"
        old = files.get_file_from_path(path)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, path, content=svg))
    return files


def _engine() -> tuple[Any, Any]:
    src = str(ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    from allegra_rules.config import RuleConfig
    from allegra_rules.presets import PRESETS

    return RuleConfig, PRESETS


def _cell(value: object) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        value = " ".join(f"{v}:{c}" for v, c in value)
    return f"`{value}`".replace("|", "\\|")


def options_table() -> str:
    """Markdown table of every RuleConfig field: name, ambiguity, default, choices, doc."""
    rule_config, _ = _engine()
    rows = [
        "| option | settles | default (`seeds`) | allowed values | meaning |",
        "|---|---|---|---|---|",
    ]
    for field in attrs.fields(rule_config):
        meta = field.metadata
        amb = meta.get("ambiguity", "")
        link = f"[{amb}](ambiguities.md#{amb.lower()})" if amb else ""
        choices = meta.get("choices")
        allowed = ", ".join(f"`{c}`" for c in choices) if choices else type(field.default).__name__
        doc = meta.get("doc", "")
        rows.append(f"| `{field.name}` | {link} | {_cell(field.default)} | {allowed} | {doc} |")
    return "\n".join(rows) + "\n"


def presets_table() -> str:
    """Markdown table of every released preset version: id, fingerprint, differences."""
    rule_config, presets = _engine()
    seeds = rule_config()
    rows = [
        "| preset id | fingerprint (prefix) | options differing from `seeds` |",
        "|---|---|---|",
    ]
    for name, versions in presets.items():
        for number, config in enumerate(versions, start=1):
            diff = config.options_differing_from(seeds)
            shown = ", ".join(f"`{k}` = {_cell(v[0])}" for k, v in diff.items()) or "none"
            rows.append(f"| `{name}@{number}` | `{config.fingerprint[:12]}` | {shown} |")
    return "\n".join(rows) + "\n"


def ambiguity_options(ambiguity: str) -> str:
    """Markdown table of the options settling one ambiguity, with every preset's value."""
    rule_config, presets = _engine()
    fields = [f for f in attrs.fields(rule_config) if f.metadata.get("ambiguity") == ambiguity]
    if not fields:
        return "Option: none, a fixed reading (the same in every preset).\n"
    ids = [(f"{n}@{i}", c) for n, vs in presets.items() for i, c in enumerate(vs, start=1)]
    rows = [
        "| option | default | " + " | ".join(f"`{pid}`" for pid, _ in ids) + " |",
        "|---|---|" + "---|" * len(ids),
    ]
    for field in fields:
        values = " | ".join(_cell(getattr(c, field.name)) for _, c in ids)
        rows.append(f"| `{field.name}` | {_cell(field.default)} | {values} |")
    return "\n".join(rows) + "\n"


_AMBIGUITY_MARKER = re.compile(r"<!-- ambiguity-options: (A\d+) -->")


def render_markers(markdown: str) -> str:
    """Replace the table markers of a page's Markdown by the generated tables."""
    if "<!-- options-table -->" in markdown:
        markdown = markdown.replace("<!-- options-table -->", options_table())
    if "<!-- presets-table -->" in markdown:
        markdown = markdown.replace("<!-- presets-table -->", presets_table())
    return _AMBIGUITY_MARKER.sub(lambda m: ambiguity_options(m.group(1)), markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Fill in the generated tables."""
    return render_markers(markdown)


def pictures() -> dict[str, str]:
    """The documentation's SVG pictures, by file name."""
    _engine()
    from allegra_rules.svg import docs_pictures

    result: dict[str, str] = docs_pictures()
    return result
