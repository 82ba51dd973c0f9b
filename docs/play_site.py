"""The play page's table: the server's page with the game running in the browser.

``python docs/generate.py`` calls :func:`build_play` (``python docs/play_site.py`` runs
it alone). It writes ``docs/_generated/play/``, which the site serves at
``/_generated/play/`` and the "Play now" pages (``docs/play.md`` and its translations)
show:

- ``index.html``, ``app.js``, ``style.css``: the table server's own page
  (``src/allegra_rules/server/static/``), marked ``data-backend="browser"`` so that it
  plays through ``allegra_rules.browser_table`` instead of the server's API, with a
  Content-Security-Policy that lets it load nothing from any other host;
- ``play_worker.js``: the Web Worker that runs Pyodide and the game beside the page
  (``app.js`` starts it as soon as it runs; the page's own thread never runs Python).
  The worker fetches Pyodide's files and the wheels itself: the page preloads nothing,
  since a download started by the page is not one the worker could use;
- ``pyodide/``: CPython for the browser, from the npm package ``pyodide`` pinned in
  ``package.json`` and ``package-lock.json`` at the repository root (``npm ci``
  installs it into ``node_modules/``), with its standard library split in two and the
  part the game imports compiled (``python_stdlib.zip`` and ``python_stdlib_rest.zip``,
  see ``docs/play_bytecode.py``);
- ``wheels/``: the wheel of this repository, built now (or the wheel file that
  ``ALLEGRA_PLAY_WHEEL`` names: CI gives the very wheel it tested) less the learned
  policy's weights files (their index stays in it), the pure wheel
  of its one dependency, attrs (the npm package carries no Python packages), at the
  version installed here, downloaded once by pip into ``build/play-wheels/``, and
  ``bytecode.zip``, the compiled modules of both that the game imports;
- ``weights/``: those weights files, one network each (``policy-<n>.npz`` and
  ``policy-<n>-seeds.npz``). The page starts without them; a table that seats the policy
  fetches the file of the network that plays it
  (``allegra_rules.browser_table.fetch_weights_from``), so a table loads one network.

The compiling runs the page's own Pyodide under Node.js (``docs/play_bytecode.mjs``):
Pyodide ships its standard library as source, and compiling what a game imports took
most of the page's start.

Without ``node_modules/pyodide`` the page is written with no game in it (it says so);
``ALLEGRA_REQUIRE_PLAY=1`` (set by CI) makes that an error instead.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
STATIC = ROOT / "src" / "allegra_rules" / "server" / "static"
PYODIDE = ROOT / "node_modules" / "pyodide"
WHEEL_CACHE = ROOT / "build" / "play-wheels"

PAGE_FILES = ("app.js", "play_worker.js", "style.css")
"""The server's static files the play page serves (``play_worker.js`` runs the game)."""

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "pyodide-lock.json",
)
"""What ``loadPyodide`` fetches for a page that loads no package of Pyodide's own, but
``python_stdlib.zip``, which :func:`compile_ahead` writes."""

STDLIB_FILES = ("python_stdlib.zip", "python_stdlib_rest.zip")
"""The page's standard library: what the game imports, compiled; the rest, as source."""

BYTECODE = "bytecode.zip"
"""The compiled modules of the wheels that the game imports (in ``wheels/``)."""

CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'none'"
)
"""The play page's Content-Security-Policy: everything from the site itself.

WebAssembly needs ``'wasm-unsafe-eval'``; the table picture's SVG carries ``style``
attributes (``'unsafe-inline'`` for styles only); the record is downloaded from a
``blob:`` address.
"""


def pyodide_version() -> str | None:
    """The installed npm package's version, or ``None`` when ``npm ci`` has not run."""
    manifest = PYODIDE / "package.json"
    if not manifest.is_file():
        return None
    return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])


def pinned_pyodide() -> str:
    """The version of ``pyodide`` that ``package.json`` pins."""
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    return str(manifest["dependencies"]["pyodide"])


def build_wheel(out: Path) -> Path:
    """Build this repository's wheel into ``out`` (no build isolation: no download)."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
            + ["--no-build-isolation", "--wheel-dir", tmp, str(ROOT)],
            check=True,
        )
        (built,) = Path(tmp).glob("allegra_rules-*.whl")
        return Path(shutil.copy2(built, out / built.name))


def given_wheel(out: Path) -> Path | None:
    """The wheel ``ALLEGRA_PLAY_WHEEL`` names, copied into ``out``; None when it is unset.

    Raises:
        SystemExit: the variable names no wheel of allegra_rules.
    """
    given = os.environ.get("ALLEGRA_PLAY_WHEEL")
    if not given:
        return None
    path = Path(given)
    if not (path.is_file() and path.name.startswith("allegra_rules-") and path.suffix == ".whl"):
        raise SystemExit(f"ALLEGRA_PLAY_WHEEL={given}: not a wheel of allegra_rules")
    out.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(path, out / path.name))


def attrs_wheel(out: Path) -> Path:
    """The pure wheel of attrs, at the installed version, copied into ``out``."""
    version = importlib.metadata.version("attrs")
    cached = sorted(WHEEL_CACHE.glob(f"attrs-{version}-py3-none-any.whl"))
    if not cached:
        WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
            + ["--only-binary=:all:", "--dest", str(WHEEL_CACHE), f"attrs=={version}"],
            check=True,
        )
        cached = sorted(WHEEL_CACHE.glob(f"attrs-{version}-py3-none-any.whl"))
    out.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(cached[0], out / cached[0].name))


def compile_ahead(out: Path, wheels: list[Path]) -> dict[str, int]:
    """Write the page's compiled standard library and ``bytecode.zip`` into ``out``.

    Runs ``docs/play_bytecode.mjs`` with Node.js (which ``npm ci`` needed) on the
    Pyodide of ``node_modules/``; ``out`` gets ``pyodide/python_stdlib.zip``,
    ``pyodide/python_stdlib_rest.zip`` and ``wheels/bytecode.zip``.

    Returns:
        What ``docs/play_bytecode.py`` counted: the standard library's modules
        compiled and left as source, and the wheels' modules compiled.

    Raises:
        SystemExit: Node.js is not installed, or the compiling failed.
    """
    node = shutil.which("node")
    if node is None:
        raise SystemExit("the play page needs Node.js (it came with npm for `npm ci`)")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [node, str(DOCS / "play_bytecode.mjs"), str(PYODIDE), tmp, *map(str, wheels)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            # Node prints the whole minified Pyodide on a failure: keep the Python part.
            lines = [line for line in done.stderr.splitlines() if len(line) < 400]
            raise SystemExit("docs/play_bytecode.mjs failed:\n" + "\n".join(lines[-30:]))
        for name in STDLIB_FILES:
            shutil.copyfile(Path(tmp) / name, out / "pyodide" / name)
        shutil.copyfile(Path(tmp) / BYTECODE, out / "wheels" / BYTECODE)
        summary: dict[str, int] = json.loads((Path(tmp) / "summary.json").read_text())
    return summary


WEIGHTS_PREFIX = "allegra_rules/data/policy-"
"""The wheel's members that the page serves apart: the policy's weights files."""


def split_weights(wheel: Path, out: Path) -> list[str]:
    """Move the policy's weights files out of ``wheel`` (rewritten in place) into ``out``.

    The wheel keeps everything else, the weights' index included, with its ``RECORD``
    lines for the moved files dropped; the files keep their bytes, which the index's
    SHA-256 checks when a table fetches one. Returns the moved files' names.
    """
    out.mkdir(parents=True, exist_ok=True)
    moved: list[str] = []
    rewritten = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(rewritten, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.startswith(WEIGHTS_PREFIX):
                name = info.filename.rsplit("/", 1)[1]
                (out / name).write_bytes(data)
                moved.append(name)
                continue
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode("utf-8").splitlines(keepends=True)
                data = "".join(x for x in lines if not x.startswith(WEIGHTS_PREFIX)).encode()
            target.writestr(info, data)
    rewritten.replace(wheel)
    return sorted(moved)


def page_html(wheels: list[str]) -> str:
    """The server's ``index.html`` as the play page: relative paths, the CSP, the wheels.

    The wheels (and ``bytecode.zip``) are named in ``data-wheels``, in the order the
    worker unpacks them; the worker downloads them.
    """
    text = (STATIC / "index.html").read_text(encoding="utf-8")
    replacements = {
        '<html lang="en">': (
            f'<html lang="en" data-backend="browser" data-wheels="{" ".join(wheels)}">'
        ),
        '<meta charset="utf-8">': (
            f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        ),
        'href="/static/style.css"': 'href="style.css"',
        'src="/static/app.js"': 'src="app.js"',
        'href="/" id="home"': 'href="../../" id="home" target="_top"',
        "<title>Allegra</title>": ('<title>Allegra</title>\n<link rel="icon" href="data:,">'),
    }
    for old, new in replacements.items():
        if text.count(old) != 1:
            raise SystemExit(f"src/allegra_rules/server/static/index.html: no single {old!r}")
        text = text.replace(old, new)
    return text


def build_play(out: Path) -> bool:
    """Write the play page's table into ``out``; ``False`` when Pyodide is not installed.

    Raises:
        SystemExit: Pyodide is missing while ``ALLEGRA_REQUIRE_PLAY=1``, or is not the
            version ``package.json`` pins.
    """
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copy2(STATIC / name, out / name)
    version = pyodide_version()
    if version is None:
        if os.environ.get("ALLEGRA_REQUIRE_PLAY") == "1":
            raise SystemExit("node_modules/pyodide is missing: run `npm ci` first")
        (out / "index.html").write_text(
            page_html([]).replace(
                '<p id="error" role="alert" hidden>',
                '<p id="error" role="alert">This copy of the docs was built without the game '
                "(run npm ci, then python docs/generate.py).",
            ),
            encoding="utf-8",
        )
        return False
    if version != pinned_pyodide():
        raise SystemExit(
            f"node_modules has pyodide {version}, package.json pins {pinned_pyodide()}"
        )
    (out / "pyodide").mkdir()
    for name in PYODIDE_FILES:
        shutil.copy2(PYODIDE / name, out / "pyodide" / name)
    ours = given_wheel(out / "wheels") or build_wheel(out / "wheels")
    wheels = [attrs_wheel(out / "wheels"), ours]
    compile_ahead(out, wheels)  # its game seats the policy: before the weights move out
    split_weights(ours, out / "weights")
    names = [wheel.name for wheel in wheels] + [BYTECODE]
    (out / "index.html").write_text(page_html(names), encoding="utf-8")
    return True


def main() -> int:
    """Write ``docs/_generated/play/``."""
    out = DOCS / "_generated" / "play"
    built = build_play(out)
    print(f"{out.relative_to(ROOT)}: {'with' if built else 'without'} the game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
