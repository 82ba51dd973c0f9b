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


def _freeze_counts_while_serving(monkeypatch: pytest.MonkeyPatch, serve_app: bool) -> list[int]:
    """Runs the application's start-up and shutdown as uvicorn would; the freeze counts."""
    import asyncio
    import gc

    pytest.importorskip("starlette", reason="the server extra is not installed")
    uvicorn = pytest.importorskip("uvicorn", reason="the server extra is not installed")
    from allegra_rules.server import serve
    from allegra_rules.server.app import create_app

    counts: list[int] = []

    async def lifespan(app: object) -> None:
        counts.append(gc.get_freeze_count())
        async with app.router.lifespan_context(app):  # type: ignore[attr-defined]
            counts.append(gc.get_freeze_count())
        counts.append(gc.get_freeze_count())

    def run(app: object, **options: object) -> None:
        asyncio.run(lifespan(app))

    if serve_app:
        monkeypatch.setattr(uvicorn, "run", run)
        serve(db=":memory:")
    else:
        run(create_app())
    return counts


def test_serve_freezes_what_it_loaded_to_start_and_thaws_it_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before, serving, after = _freeze_counts_while_serving(monkeypatch, serve_app=True)
    assert before == 0
    assert serving > 10_000  # the imported modules at least
    assert after == 0


def test_an_embedded_application_leaves_the_collector_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _freeze_counts_while_serving(monkeypatch, serve_app=False) == [0, 0, 0]
