"""docs/play_site.py, the build of the play page's table: its wheel and its preloads."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("play_site", ROOT / "docs" / "play_site.py")
assert _spec is not None and _spec.loader is not None
play_site = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("play_site", play_site)
_spec.loader.exec_module(play_site)


def test_the_page_installs_the_wheel_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ALLEGRA_PLAY_WHEEL", raising=False)
    assert play_site.given_wheel(tmp_path / "out") is None
    wheel = tmp_path / "allegra_rules-9.9.9-py3-none-any.whl"
    wheel.write_bytes(b"a tested wheel")
    monkeypatch.setenv("ALLEGRA_PLAY_WHEEL", str(wheel))
    copied = play_site.given_wheel(tmp_path / "out")
    assert copied == tmp_path / "out" / wheel.name
    assert copied.read_bytes() == b"a tested wheel"
    other = tmp_path / "attrs-1.0-py3-none-any.whl"
    other.write_bytes(b"")
    for wrong in (other, tmp_path / "allegra_rules-missing.whl"):
        monkeypatch.setenv("ALLEGRA_PLAY_WHEEL", str(wrong))
        with pytest.raises(SystemExit, match="not a wheel of allegra_rules"):
            play_site.given_wheel(tmp_path / "out")


def test_the_page_names_the_wheels_and_preloads_nothing() -> None:
    """The worker fetches the game's files: a preload of the page's would download twice."""
    wheels = ["attrs-26.1.0-py3-none-any.whl", "allegra_rules-0.2.0-py3-none-any.whl"]
    html = play_site.page_html(wheels)
    assert f'data-wheels="{" ".join(wheels)}"' in html
    assert "preload" not in html
    assert "preload" not in play_site.page_html([])


def test_the_play_page_carries_its_worker() -> None:
    assert "play_worker.js" in play_site.PAGE_FILES
    for name in play_site.PAGE_FILES:
        assert (play_site.STATIC / name).is_file()
    worker = (play_site.STATIC / "play_worker.js").read_text(encoding="utf-8")
    app = (play_site.STATIC / "app.js").read_text(encoding="utf-8")
    assert 'new Worker(new URL("play_worker.js"' in app
    # Python runs in the worker only: the page never loads Pyodide itself.
    assert "loadPyodide" in worker and "loadPyodide" not in app
