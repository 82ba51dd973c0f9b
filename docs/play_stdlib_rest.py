"""The play page's standard library beyond what the game imports, fetched on first use.

This module runs in the play page's Web Worker, in Pyodide; the docs build
(``docs/play_bytecode.py``) compiles it into the page's ``python_stdlib.zip`` as
``_allegra_stdlib_rest`` with ``MODULES`` filled in. That build splits Pyodide's
standard library in two: the modules the page imports, compiled to bytecode, in
``python_stdlib.zip`` (which ``loadPyodide`` mounts), and every other module, as
source, in ``python_stdlib_rest.zip``, which a game never needs.

:func:`install` puts :class:`RestFinder` last on ``sys.meta_path``. The first import
of a module of the rest (only ``MODULES`` counts, so a failed probe such as
``import numpy`` fetches nothing) downloads ``python_stdlib_rest.zip`` once, with a
synchronous request (a Web Worker may make one), and imports from it.
"""

from __future__ import annotations

import sys
import zipimport
from importlib.machinery import ModuleSpec
from types import ModuleType

MODULES: frozenset[str] = frozenset()
"""The dotted names of the modules in ``python_stdlib_rest.zip`` (the build fills it in)."""

ARCHIVE = "/lib/python_stdlib_rest.zip"
"""Where the fetched archive is written in Pyodide's file system."""


class RestFinder:
    """Finds the modules of ``MODULES`` in ``python_stdlib_rest.zip``, fetched on first use."""

    def __init__(self, url: str) -> None:
        """A finder that fetches the archive from ``url`` (the page's own site)."""
        self.url = url
        self.fetched = False

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of ``fullname`` in the archive; ``None`` for a module it does not hold."""
        if fullname not in MODULES:
            return None
        if not self.fetched:
            self._fetch()
        package = fullname.rpartition(".")[0]
        where = f"{ARCHIVE}/{package.replace('.', '/')}/" if package else ARCHIVE
        return zipimport.zipimporter(where).find_spec(fullname)

    def _fetch(self) -> None:
        from js import XMLHttpRequest  # type: ignore[import-not-found]

        request = XMLHttpRequest.new()
        request.open("GET", self.url, False)
        request.responseType = "arraybuffer"
        request.send(None)
        if request.status != 200:
            raise ImportError(f"{self.url}: HTTP {request.status}")
        with open(ARCHIVE, "wb") as file:
            file.write(request.response.to_bytes())
        self.fetched = True


def install(url: str) -> RestFinder:
    """Put a :class:`RestFinder` fetching ``url`` last on ``sys.meta_path``; it is returned."""
    finder = RestFinder(url)
    sys.meta_path.append(finder)
    return finder
