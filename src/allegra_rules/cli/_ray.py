"""``--ray [ADDRESS]``: running a command's games as Ray tasks (the optional ``ray`` extra).

Ray is imported only here, and only when ``--ray`` is given. Without an address a local
Ray is started for the command and shut down after it; with one (``ray://host:10001`` or
``host:6379``) the command joins that cluster, whose nodes must have ``allegra-rules``
installed. The tasks' results are read back in order, so the output equals the local
run's for the same seeds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from allegra_rules.cli._common import CommandError, UsageError
from allegra_rules.simulate import Runner


@contextlib.contextmanager
def ray_runner(address: str | None) -> Iterator[tuple[Runner, int]]:
    """A context giving an ordered ``map`` over Ray tasks, and the cluster's CPU count.

    Args:
        address: a Ray cluster's address, or ``None`` (or ``""``) for a local Ray.

    Raises:
        UsageError: Ray is not installed.
        CommandError: Ray cannot start or reach the cluster.
    """
    try:
        import ray
    except ImportError:
        raise UsageError(
            "--ray needs Ray (in a clone of the repository: pip install '.[ray]')"
        ) from None
    started = False
    if not ray.is_initialized():
        try:
            ray.init(
                address=address or None,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        except Exception as exc:  # Ray raises many kinds (ConnectionError, RuntimeError, ...)
            detail = " ".join(str(exc).split())
            raise CommandError(f"Ray could not start or connect: {detail}") from None
        started = True
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    cpus = max(1, int(resources.get("CPU", 1)))

    def run(function: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterable[Any]:
        remote = ray.remote(function)
        refs = [remote.remote(task) for task in tasks]
        for ref in refs:
            yield ray.get(ref)

    try:
        yield run, cpus
    finally:
        if started:
            ray.shutdown()
