"""The quick start, CI and the package metadata tell the truth.

- The README's quick start has exactly two commands, and ``.ci/run`` runs the second
  one verbatim.
- The version is written once (``allegra_rules.__version__``, read by hatchling) and
  every other place that names it agrees.
- A built wheel and sdist carry the license and the metadata a package index shows.
- The package imported is ``src/allegra_rules`` file for file (CI runs the module against
  the installed wheel too).
- With ``ALLEGRA_CHECK_INSTALL=1`` (CI sets it): a fresh virtual environment with
  only ``pip install -e .`` and the test runner (pytest, pytest-xdist, filelock,
  hypothesis) runs the whole suite green, the tests of optional parts skipping with a
  reason. The default run deselects that test (it installs packages and runs the
  suite a second time).
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

import allegra_rules

# CI runs this module against the installed wheel too (the `installed` marker).
pytestmark = pytest.mark.installed

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def quick_start_commands() -> list[str]:
    """The commands of the README's quick-start block (comments and blank lines dropped)."""
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has no sh block"
    lines = [line.strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_the_quick_start_has_one_demo_and_one_test_command() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    demo, tests = commands
    assert "allegra-rules demo" in demo
    assert tests.endswith("python -m pytest"), tests
    assert '".[dev]"' in tests


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = quick_start_commands()[1]
    ci_lines = [line.strip() for line in CI.splitlines()]
    assert test_command in ci_lines, "`.ci/run` must run the README's test command verbatim"


def test_the_dev_extra_holds_every_extra_the_suite_tests() -> None:
    by_extra: dict[str, set[str]] = {}
    for requirement in importlib.metadata.requires("allegra-rules") or []:
        found = re.search(r"^(.*?);\s*extra\s*==\s*['\"]([\w-]+)['\"]", requirement)
        if found:
            by_extra.setdefault(found.group(2), set()).add(found.group(1).strip())
    dev = by_extra.get("dev")
    assert dev, "the dev extra is missing"
    for extra in ("test", "docs", "cli", "pettingzoo", "openspiel"):
        assert by_extra[extra] <= dev, (extra, by_extra[extra] - dev)


def test_the_version_is_written_once_and_named_alike_everywhere() -> None:
    version = allegra_rules.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert importlib.metadata.version("allegra-rules") == version
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert not re.search(r"^version\s*=", pyproject, re.M), "the version is written twice"
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(version)}$", citation, re.M), "CITATION.cff"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    build = pytest.importorskip("hatchling.build", reason="hatchling (the test extra) is needed")
    out = tmp_path_factory.mktemp("dist")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        wheel = build.build_wheel(str(out))
        sdist = build.build_sdist(str(out))
    finally:
        os.chdir(here)
    return {"wheel": out / wheel, "sdist": out / sdist}


def _wheel_metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def test_the_wheel_ships_the_license_and_index_metadata(built: dict[str, Path]) -> None:
    meta = _wheel_metadata(built["wheel"])
    assert meta["Version"] == allegra_rules.__version__
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    urls = {value.split(",", 1)[0].strip() for value in meta.get_all("Project-URL") or []}
    assert {"Documentation", "Changelog", "Source", "Issues"} <= urls
    for url in meta.get_all("Project-URL") or []:
        assert url.split(",", 1)[1].strip().startswith("https://"), url
    classifiers = meta.get_all("Classifier") or []
    for python in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {python}" in classifiers
    assert "Operating System :: OS Independent" in classifiers
    assert meta["Requires-Python"] == ">=3.11"
    with zipfile.ZipFile(built["wheel"]) as archive:
        names = archive.namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "allegra_rules/py.typed" in names
    assert any(n.startswith("allegra_rules/schemas/") for n in names)
    for page in ("index.html", "app.js", "style.css"):  # the table server's page
        assert f"allegra_rules/server/static/{page}" in names


def test_the_sdist_ships_the_license_and_the_tests(built: dict[str, Path]) -> None:
    with tarfile.open(built["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("LICENSE", "README.md", "CHANGELOG.md", "CITATION.cff", "SECURITY.md"):
        assert needed in names, needed
    assert "pyproject.toml" in names
    assert "tests/conftest.py" in names
    assert not any(name.startswith(".venv") for name in names)


def test_the_installed_package_is_the_source_tree_file_for_file() -> None:
    """The package imported holds exactly the files of ``src/allegra_rules``, byte for byte.

    Trivial for an editable install, which imports ``src/`` itself; against the wheel (CI
    runs the ``installed`` tests there) it shows that installing changed no module and
    left none out or added one, so the tests CI does not run again there would run the
    same code.
    """
    source = ROOT / "src" / "allegra_rules"
    package = Path(allegra_rules.__file__).resolve().parent

    def files(top: Path) -> dict[str, bytes]:
        return {
            path.relative_to(top).as_posix(): path.read_bytes()
            for path in sorted(top.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
        }

    installed, written = files(package), files(source)
    assert sorted(installed) == sorted(written)
    changed = [name for name in written if installed[name] != written[name]]
    assert not changed, f"installed unlike src/allegra_rules: {changed}"


def test_readme_links_are_absolute() -> None:
    """Links must work on the package index page, where relative paths break."""
    for target in re.findall(r"\]\(([^)]+)\)", README) + re.findall(r"<(https?://[^>]+)>", README):
        assert target.startswith("https://"), target


@pytest.mark.install_check
def test_a_bare_install_runs_green_with_skips(tmp_path: Path) -> None:
    """``pip install -e .`` plus pytest and hypothesis only: no error, optional parts skip."""
    env_dir = tmp_path / "bare"
    venv.create(env_dir, with_pip=True)
    python = env_dir / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # The test runner's own tools (the pytest settings run it in parallel workers).
    tools = ["pytest", "pytest-xdist", "filelock", "hypothesis"]
    subprocess.run([*pip, "-e", str(ROOT), *tools], check=True, timeout=600)
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    for extra_module in ("numpy", "mkdocs", "pettingzoo", "open-spiel", "rich", "jsonschema"):
        assert f"{extra_module}==" not in listed, f"{extra_module} is installed in the bare venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALLEGRA_")}
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    tail = done.stdout[-4000:]
    assert done.returncode == 0, tail + done.stderr[-2000:]
    assert " error" not in tail.lower(), tail
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skipped, "the optional parts must skip without their extras"
    for line in skipped:
        # Every skip says why in one line.
        assert re.search(r"SKIPPED \[\d+\] \S+: \S", line), line
    for module in ("test_adapters_pettingzoo.py", "test_adapters_openspiel.py"):
        assert any(module in line for line in skipped), module


def test_the_worker_groups_name_tests_that_exist() -> None:
    """A renamed or moved test would silently leave its group (``tests/conftest.py``)."""
    from conftest import GROUPS, TEST_GROUPS

    for module in GROUPS:
        assert (ROOT / module).is_file(), module
    for nodeid in TEST_GROUPS:
        module, name = nodeid.split("::")
        assert module in GROUPS, nodeid  # only a grouped module's tests are moved out
        source = (ROOT / module).read_text(encoding="utf-8")
        assert re.search(rf"^def {re.escape(name)}\(", source, re.MULTILINE), nodeid


def test_the_run_order_puts_first_units_first_and_keeps_each_waiting_module_in_a_row() -> None:
    """``in_run_order`` (``tests/conftest.py``): ``FIRST`` in its order, the ``WAITING``
    modules spread among the other units, each module's units in a row and in order."""
    from types import SimpleNamespace
    from typing import Any

    from conftest import FIRST, WAITING, in_run_order, work_unit

    waiting = [f"{WAITING[0]}_{m}.py::test_{t}" for m in "ab" for t in range(3)]
    others = [f"tests/test_other_{i}.py::test_it" for i in range(16)]
    first = [FIRST[4], "tests/test_train.py::test_x", "tests/test_jax_engine.py::test_y"]
    collected = others[:5] + waiting[:3] + others[5:] + waiting[3:] + first
    items: list[Any] = [SimpleNamespace(nodeid=nodeid) for nodeid in collected]
    order = [item.nodeid for item in in_run_order(items)]
    assert sorted(order) == sorted(collected)
    assert [work_unit(n) for n in order[:3]] == ["jax", "train", FIRST[4]]
    rest = order[3:]
    assert [n for n in rest if n in others] == others  # the others as collected
    for module in ("a", "b"):
        at = [i for i, n in enumerate(rest) if f"_{module}.py" in n]
        assert at == list(range(at[0], at[0] + 3)), rest  # in a row
        assert [rest[i] for i in at] == [n for n in waiting if f"_{module}.py" in n]
    # Spread: neither module at the start or the end, and not side by side.
    starts = sorted(rest.index(n) for n in (waiting[0], waiting[3]))
    assert starts[0] > 0 and starts[1] > starts[0] + 3 and starts[1] + 3 < len(rest)
