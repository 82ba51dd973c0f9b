"""MkDocs hook: generate the traceability page (rule clause -> tests) at build time.

Registered in ``mkdocs.yml`` under ``hooks:``. It reads ``docs/rules.md`` and the
``@pytest.mark.rule`` markers of ``tests/test_*.py`` statically (nothing is imported or
run) through ``tests/rule_markers.py``, and adds ``traceability.md`` to the site as a
generated page; no file is written to ``docs/``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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
    """Add the generated traceability page to the site's files."""
    existing = files.get_file_from_path(PAGE)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, PAGE, content=traceability_page()))
    return files
