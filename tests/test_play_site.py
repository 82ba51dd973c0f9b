"""docs/play_site.py, the build of the play page's table: its wheel and its preloads."""

from __future__ import annotations

import importlib.util
import re
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


def test_the_page_preloads_every_file_of_the_game_before_its_script() -> None:
    wheels = ["attrs-26.1.0-py3-none-any.whl", "allegra_rules-0.2.0-py3-none-any.whl"]
    html = play_site.page_html(wheels)
    preloaded = re.findall(r'<link rel="(?:module)?preload" href="([^"]+)"', html)
    expected = {f"pyodide/{name}" for name in play_site.PYODIDE_FILES}
    expected |= {f"wheels/{name}" for name in wheels}
    assert set(preloaded) == expected and len(preloaded) == len(expected)
    # Binary files as the loader fetches them (same-origin CORS), modules as modules.
    for path in preloaded:
        line = next(x for x in html.splitlines() if f'href="{path}"' in x)
        module = path.endswith(".mjs")
        assert ('rel="modulepreload"' in line) == module
        assert module or ('as="fetch"' in line and line.endswith("crossorigin>"))
    assert html.index("pyodide.asm.wasm") < html.index('src="app.js"')
    # A page without the game preloads nothing.
    assert "preload" not in play_site.page_html([])
