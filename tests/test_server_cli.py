"""``allegra-rules serve`` as a command: its help, bad arguments, and a missing extra."""

from __future__ import annotations

import sys

import pytest

from allegra_rules.cli import main


def test_serve_help_names_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--db", "--database", "--max-tables", "--proxy-headers"):
        assert option in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "0"], "--port must be 1..65535"),
        (["--max-tables", "0"], "--max-tables"),
        (["--database", "tables.db"], "--database must be a URL postgresql://"),
        (["--db", "t.db", "--database", "postgresql://a@b/c"], "not allowed with argument"),
    ],
)
def test_serve_refuses_bad_arguments(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *args]) == 2
    assert message in capsys.readouterr().err


def test_serve_without_the_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A None entry makes the import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, "allegra_rules.server", None)
    assert main(["serve", "--port", "8123"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("allegra-rules: error: the server needs the extra 'server'")
    assert 'pip install ".[server]"' in err
    assert err.count("\n") == 1


def test_serve_on_postgresql_without_psycopg_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("starlette", reason="the server extra is not installed")
    pytest.importorskip("uvicorn", reason="the server extra is not installed")
    monkeypatch.setitem(sys.modules, "psycopg", None)
    assert main(["serve", "--port", "8123", "--database", "postgresql://a@127.0.0.1/b"]) == 1
    err = capsys.readouterr().err
    assert "the server needs the extra 'server' (psycopg is missing)" in err
