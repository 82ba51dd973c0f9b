"""The play page's Python, compiled ahead: run in Pyodide under Node.js by the docs build.

``docs/play_site.py`` runs ``node docs/play_bytecode.mjs``, which starts the Pyodide
of ``node_modules/`` (the very one the page loads), unpacks the page's wheels and runs
this file as ``__main__`` with two names set: ``FINDER_SOURCE`` (the text of
``docs/play_stdlib_rest.py``) and ``OUT`` (a folder of Pyodide's file system). Pyodide
ships its standard library as source only, so the page compiled every module it
imported at every load (about 1.4 s of a 2 s warm start). This file plays a short game
of every bot the way the page does, notes every module that imported, and writes:

- ``python_stdlib.zip``: the standard library the page loads at start. Every module
  the game imported is compiled (sourceless ``.pyc``, unchecked hash-based: it is built
  from the same archive, by the same Python), but those Python carries frozen in (their
  sources stay, for tracebacks); the folders and data files of the packages it
  imported stay; the other modules' sources, folders and files move to the rest. Plus
  ``_allegra_stdlib_rest``, the finder of ``docs/play_stdlib_rest.py`` with the list
  of the rest's modules.
- ``python_stdlib_rest.zip``: the sources of every module the game did not import,
  fetched only when one of them is imported (see ``docs/play_stdlib_rest.py``).
- ``bytecode.zip``: the ``__pycache__`` files of every module of the wheels that the
  game imported, checked hash-based: Python compares each with its source's hash, so
  a stale one is compiled again from the wheel's source, never run.

Each archive lists its files in a fixed order with a fixed date. ``OUT/summary.json``
counts what went where.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import py_compile
import sys
import tempfile
import zipfile
from types import ModuleType

STDLIB = os.path.dirname(os.__file__)
"""Where Pyodide mounts its standard library archive (``/lib/python3XX.zip``)."""

FINDER = "_allegra_stdlib_rest"
"""The finder's module name in the page's standard library."""

DATE = (1980, 1, 1, 0, 0, 0)


def exercise() -> None:
    """Play as the page does: offers, a short game of each bot, the record and its check."""
    from allegra_rules import legal_actions
    from allegra_rules.action_codec import action_to_dict
    from allegra_rules.browser_table import BrowserTable, bot_choices, bot_offers
    from allegra_rules.records import verify_record_text

    json.dumps({"bots": bot_choices(), "offers": bot_offers(bot_choices())})
    for seed, bot in enumerate(bot_choices()):
        request = {"players": 2, "preset": "seeds", "bots": {"1": bot}, "seed": seed}
        table = BrowserTable.create(json.dumps({**request, "max_turns": 2}))
        table.info_json()
        for lang in ("en", "de", "pl", "fr"):
            table.view_json(lang)
        while not table.state.is_terminal:
            if not table.bot_move():
                action = legal_actions(table.state)[0]
                table.move_json(json.dumps(action_to_dict(action)), table.version)
        with contextlib.suppress(ValueError):  # this record carries no deal commitment
            verify_record_text(table.record_json())


def module_file(module: ModuleType) -> str | None:
    """The file a module was imported from, or ``None`` (built in, frozen, namespace)."""
    file = getattr(module, "__file__", None)
    return file if isinstance(file, str) else None


def zip_entry(name: str) -> zipfile.ZipInfo:
    """A file's entry with the archives' fixed date and ordinary permissions."""
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def compiled(source: bytes, shown_as: str, mode: py_compile.PycInvalidationMode) -> bytes:
    """``source`` compiled to a ``.pyc`` file's bytes; tracebacks name it ``shown_as``."""
    with tempfile.TemporaryDirectory() as tmp:
        path, pyc = os.path.join(tmp, "m.py"), os.path.join(tmp, "m.pyc")
        with open(path, "wb") as file:
            file.write(source)
        py_compile.compile(path, pyc, dfile=shown_as, doraise=True, invalidation_mode=mode)
        with open(pyc, "rb") as file:
            return file.read()


def dotted(entry: str) -> str:
    """``email/mime/text.py`` -> ``email.mime.text``; ``email/__init__.py`` -> ``email``."""
    path = entry.removesuffix(".py").removesuffix("/__init__")
    return path.replace("/", ".")


def main(finder_source: str, out: str) -> dict[str, int]:
    """Trace the game's imports and write the three archives into ``out``."""
    finder = ModuleType(FINDER)
    exec(compile(finder_source, FINDER, "exec"), finder.__dict__)  # its imports count too
    exercise()
    imported = {
        file[len(STDLIB) + 1 :]: getattr(module.__spec__, "origin", None) == "frozen"
        for module in list(sys.modules.values())
        if (file := module_file(module)) and file.startswith(STDLIB + "/")
    }
    # Python carries a few modules frozen in (os, site, codecs...): their sources stay.
    used = {entry for entry, frozen in imported.items() if not frozen}
    frozen = {entry for entry, frozen in imported.items() if frozen}
    packages = {e.removesuffix("/__init__.py") for e in imported if e.endswith("/__init__.py")}
    packages.add("")  # the top level
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    os.makedirs(out, exist_ok=True)
    rest_modules: list[str] = []
    with (
        zipfile.ZipFile(STDLIB) as stdlib,
        zipfile.ZipFile(f"{out}/python_stdlib.zip", "w") as core,
        zipfile.ZipFile(f"{out}/python_stdlib_rest.zip", "w") as rest,
    ):
        for entry in stdlib.namelist():
            data = stdlib.read(entry)
            if entry in frozen:
                core.writestr(zip_entry(entry), data, compresslevel=9)
            elif not entry.endswith(".py"):
                # A folder or a data file goes with its package's module. A folder in
                # the start's archive without its package would import as a namespace
                # package there instead of the real one from the rest.
                folder = entry[:-1] if entry.endswith("/") else entry.rpartition("/")[0]
                if folder in packages:
                    core.writestr(zip_entry(entry), data, compresslevel=9)
                else:
                    rest.writestr(zip_entry(entry), data, compresslevel=9)
            elif entry in used:
                pyc = compiled(data, f"{STDLIB}/{entry}", unchecked)
                core.writestr(zip_entry(entry + "c"), pyc, compresslevel=9)
            else:
                rest.writestr(zip_entry(entry), data, compresslevel=9)
                rest_modules.append(dotted(entry))
        marker = "MODULES: frozenset[str] = frozenset()"
        if finder_source.count(marker) != 1:
            raise SystemExit(f"docs/play_stdlib_rest.py: no single {marker!r}")
        source = finder_source.replace(marker, f"MODULES = frozenset({sorted(rest_modules)!r})")
        pyc = compiled(source.encode(), f"{STDLIB}/{FINDER}.py", unchecked)
        core.writestr(zip_entry(f"{FINDER}.pyc"), pyc, compresslevel=9)
    import allegra_rules

    root = os.path.dirname(os.path.dirname(allegra_rules.__file__))
    checked = py_compile.PycInvalidationMode.CHECKED_HASH
    ours = sorted(
        file
        for module in list(sys.modules.values())
        if (file := module_file(module)) and file.startswith(root + "/") and file.endswith(".py")
    )
    with zipfile.ZipFile(f"{out}/bytecode.zip", "w") as bytecode:
        for file in ours:
            with open(file, "rb") as source_file:
                pyc = compiled(source_file.read(), file, checked)
            cached = importlib.util.cache_from_source(file)
            bytecode.writestr(zip_entry(cached[len(root) + 1 :]), pyc, compresslevel=9)
    return {"compiled": len(used), "rest": len(rest_modules), "wheel_modules": len(ours)}


if __name__ == "__main__":
    # docs/play_bytecode.mjs sets the two names before it runs this file.
    OUT = globals()["OUT"]
    summary = main(globals()["FINDER_SOURCE"], OUT)
    with open(f"{OUT}/summary.json", "w") as file:
        json.dump(summary, file)
