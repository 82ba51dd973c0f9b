"""How long each part of the test suite takes: its tests' durations added up, from JUnit XML.

Run the suite with a JUnit report, then this script on it, from the repository root:

    python -m pytest --junitxml=/tmp/suite.xml
    python benchmarks/suite_parts.py /tmp/suite.xml

It prints, for each part of ``PARTS`` (the table of CONTRIBUTING.md, "How long the
suite takes"), the number of tests and the seconds its tests took, set-up and tear-down
included, added up over the workers. In a parallel run a test's duration counts the time
it shared the machine with the other workers, and a fixture that waited for another
worker's build counts the wait. The total against the run's wall-clock time shows how
well the workers were kept busy.
"""

from __future__ import annotations

import argparse
import fnmatch
import xml.etree.ElementTree as ET
from collections import Counter

PARTS = {
    "batched engine (JAX)": ["test_jax_engine"],
    "training (JAX, Flax, Optax)": ["test_train"],
    "docs site and browser": [
        "test_docs_site",
        "test_docs_browser",
        "test_play_page",
        "test_play_site",
    ],
    "docs sources and examples": ["test_docs", "test_translations", "test_traceability"],
    "table server (SQLite, PostgreSQL)": ["test_server*", "test_browser_table"],
    "command line": ["test_cli*"],
    "bots, search and policy": ["test_bots", "test_search", "test_policy", "test_tournament"],
    "adapters and Ray": ["test_adapters_*", "test_ray"],
    "install and metadata": ["test_install"],
}
"""Each part's test modules (shell patterns of module names); the rest is the rules core."""

CORE = "rules core (engine, saves, views, pictures, properties)"


def part_of(module: str) -> str:
    """The part a test module (``test_rules``, or a doctest's ``allegra_rules.x``) is in."""
    for part, patterns in PARTS.items():
        if any(fnmatch.fnmatch(module, pattern) for pattern in patterns):
            return part
    return CORE


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a JUnit XML report of pytest (--junitxml)")
    args = parser.parse_args()
    seconds: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    for case in ET.parse(args.report).iter("testcase"):
        part = part_of((case.get("classname") or "").split(".")[-1])
        seconds[part] += float(case.get("time") or 0)
        tests[part] += 1
    width = max(len(part) for part in seconds)
    print(f"{'part':<{width}}  tests  seconds")
    for part, spent in seconds.most_common():
        print(f"{part:<{width}}  {tests[part]:5d}  {spent:7.1f}")
    print(f"{'all':<{width}}  {sum(tests.values()):5d}  {sum(seconds.values()):7.1f}")


if __name__ == "__main__":
    main()
