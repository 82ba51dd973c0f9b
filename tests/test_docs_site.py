"""The docs as a reader meets them: the rules page's order and sources, the built site.

The checks of the built site use the ``built_site`` fixture of ``tests/conftest.py``:
the site is generated and built once per run, shared with ``tests/test_docs_browser.py``.
They need the docs extra, not a browser.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from rule_markers import parse_clauses, traceability_markdown

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

SEED_FILE = re.compile(r"\d{3}_[0-9a-f]{16}(?:\.txt)?")
"""The shape of the rule texts' file names (a number and a hash): never shown to readers."""


def clause_key(clause_id: str) -> tuple[int, ...]:
    """``"R15.4"`` -> ``(15, 4)``: the numeric order of clause ids."""
    return tuple(int(part) for part in clause_id[1:].split("."))


def written_pages() -> list[Path]:
    """Every page written by hand, in every language (not the generated parts)."""
    skip = {DOCS / lang for lang in ("de", "pl", "fr", "_generated")}
    return sorted(
        p for p in DOCS.rglob("*.md") if not any(folder in p.parents for folder in skip)
    ) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]


# ---------------------------------------------------------------- the rules page


def test_the_rules_page_numbers_its_clauses_in_order() -> None:
    ids = list(parse_clauses())
    assert len(ids) > 50
    assert ids == sorted(ids, key=clause_key), "a clause stands out of numeric order"
    # Every clause of a section follows the one before it: 1, 2, 3 ...
    for before, after in itertools.pairwise(ids):
        b, a = clause_key(before), clause_key(after)
        assert a == (b[0], b[1] + 1) or a == (b[0] + 1, 1), f"{before} is followed by {after}"


def test_the_traceability_table_lists_the_clauses_in_order() -> None:
    table = traceability_markdown()
    listed = re.findall(r"^\| \[(R[\d.]+)\]", table, re.M)
    assert listed == sorted(listed, key=clause_key)
    assert len(listed) == len(parse_clauses())


def test_the_rule_texts_are_named_by_language_and_title_never_by_file_name() -> None:
    for page in written_pages():
        found = SEED_FILE.search(page.read_text(encoding="utf-8"))
        assert found is None, f"{page.relative_to(ROOT)} names {found.group(0)}"
    for page in ("rules.md", "ambiguities.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        for language in ("German", "Polish", "French"):
            assert language in text, f"{page} does not say which text is {language}"
        assert "*Allegra*" in text, f"{page} does not give the texts' title"


# ----------------------------------------------------------------- the built site


def site_files(built: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in built.rglob("*") if p.suffix in suffixes and p.is_file())


def test_no_rule_text_file_name_appears_on_the_site(built_site: Path) -> None:
    files = site_files(built_site, (".html", ".json", ".js", ".xml"))
    assert len(files) > 30
    for path in files:
        found = SEED_FILE.search(path.read_text(encoding="utf-8", errors="replace"))
        assert found is None, f"{path.relative_to(built_site)} shows {found.group(0)}"


NOTICE = re.compile(
    r"end of life|end-of-life|maintained successor|class=\"md-banner", re.IGNORECASE
)


def test_no_page_shows_a_notice_of_the_theme(built_site: Path) -> None:
    """Material for MkDocs prints its end-of-life notice at every build; none reaches a page
    (nor an announcement banner). The contributing and changelog pages, which explain the
    docs toolchain to contributors, may name it in their text."""
    pages = site_files(built_site, (".html",))
    assert len(pages) >= 30
    for path in pages:
        page = path.read_text(encoding="utf-8")
        assert 'data-md-component="announce"' in page  # the slot a banner would fill
        slot = page.split('data-md-component="announce"', 1)[1].split("</div>", 1)[0]
        assert slot.strip(" \n>") == "", f"{path.relative_to(built_site)}: {slot.strip()[:80]}"
        if path.parent.name in ("contributing", "changelog"):
            continue
        found = NOTICE.search(page)
        assert found is None, f"{path.relative_to(built_site)}: {found.group(0)}"


@pytest.mark.parametrize("page", ["rules", "traceability"])
def test_the_built_rules_pages_list_the_clauses_in_order(built_site: Path, page: str) -> None:
    html = (built_site / page / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'href="[^"]*#r(\d+)-(\d+)"', html) if page == "traceability" else []
    if page == "rules":
        ids = re.findall(r'<h3 id="r(\d+)-(\d+)"', html)
    keys = [(int(a), int(b)) for a, b in ids]
    assert len(keys) > 50
    assert keys == sorted(keys)
