"""The host names the table server answers to, and the origins whose writes it takes.

A browser sends the name it looked up in the ``Host`` header of every request, and the
page's own origin in the ``Origin`` header of a write and of a WebSocket. A page of
another site whose name was made to resolve to this server (DNS rebinding) sends its
own name in both, so the server answers only to the names it was told are its own:
[`AllowedHosts`][allegra_rules.server.hosts.AllowedHosts], by default the loopback
names ``LOOPBACK_HOSTS``. ``X-Forwarded-Host`` is never read: behind a reverse proxy,
the proxy must pass the browser's ``Host`` on.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

import attrs

__all__ = [
    "LOOPBACK_HOSTS",
    "WILDCARD_ADDRESSES",
    "AllowedHosts",
    "host_entry",
    "serving_hosts",
]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The names a server on this machine is reached by: always allowed."""

WILDCARD_ADDRESSES = ("0.0.0.0", "::", "[::]", "")
"""The listening addresses that mean every interface (they name no host)."""

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_PAGE_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def _ipv6(address: str, text: str) -> str:
    """``address`` as an IPv6 address is written (compressed, lower case).

    Raises:
        ValueError: not an IPv6 address (the message names ``text``).
    """
    try:
        return str(ipaddress.IPv6Address(address))
    except ValueError:
        raise ValueError(f"not a host name: {text[:80]!r}") from None


def _split(text: str) -> tuple[str, int | None]:
    """The name and port of ``host`` or ``host:port`` (IPv6 in brackets, ``[::1]:80``).

    Raises:
        ValueError: not a host: empty, a bad port, a bad IPv6 address, a path or a space.
    """
    text = text.strip().lower()
    if not text or any(c in text for c in "/\\@?#% \t") or not text.isascii():
        raise ValueError(f"not a host name: {text[:80]!r}")
    if text.startswith("["):
        name, close, rest = text.partition("]")
        name = f"[{_ipv6(name[1:], text)}]"
        if not close or (rest and not rest.startswith(":")):
            raise ValueError(f"not a host name: {text[:80]!r}")
        port_text = rest[1:] if rest else None
    elif text.count(":") > 1:  # a bare IPv6 address, no port
        return f"[{_ipv6(text, text)}]", None
    else:
        name, colon, port_text_or_empty = text.partition(":")
        port_text = port_text_or_empty if colon else None
    if not name:
        raise ValueError(f"not a host name: {text[:80]!r}")
    if port_text is None:
        return name, None
    if not (port_text.isascii() and port_text.isdigit() and 0 < int(port_text) < 65536):
        raise ValueError(f"not a port: {port_text[:10]!r}")
    return name, int(port_text)


def host_entry(text: str) -> str:
    """``text`` as an entry of allowed hosts: a name or address, with an optional port.

    Lower case; an IPv6 address in brackets (``::1`` becomes ``[::1]``).

    Raises:
        ValueError: ``text`` is no host name (empty, a path, a bad port or address).

    Examples:
        >>> host_entry("Tables.Example.org"), host_entry("::1"), host_entry("example.org:8443")
        ('tables.example.org', '[::1]', 'example.org:8443')
    """
    name, port = _split(text)
    return name if port is None else f"{name}:{port}"


@attrs.frozen
class AllowedHosts:
    """The host names (and addresses) a server answers to, the loopback ones always among them.

    An entry without a port allows its name on any port; ``name:port`` only on that
    port. Names are compared without regard to case; no wildcard is taken.

    Attributes:
        entries: the allowed entries, as ``host_entry`` writes them.
    """

    entries: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str] | None = None) -> AllowedHosts:
        """The loopback names and ``names`` (each as ``host_entry`` reads it).

        Raises:
            ValueError: a name that is no host name.
        """
        return cls(frozenset([*LOOPBACK_HOSTS, *(host_entry(n) for n in names or ())]))

    def allows(self, name: str, port: int | None) -> bool:
        """Whether the host ``name`` (lower case, IPv6 in brackets) on ``port`` is allowed."""
        return name in self.entries or (port is not None and f"{name}:{port}" in self.entries)

    def allows_host_header(self, header: str | None, scheme: str) -> bool:
        """Whether a request's ``Host`` header names an allowed host (none: no).

        Args:
            header: the header's value (``name`` or ``name:port``).
            scheme: the request's scheme (``http``, ``https``, ``ws``, ``wss``): the port
                of a header without one.
        """
        if header is None:
            return False
        try:
            name, port = _split(header)
        except ValueError:
            return False
        return self.allows(name, port if port is not None else _DEFAULT_PORTS.get(scheme))

    def allows_origin(self, origin: str, scheme: str, host_header: str | None) -> bool:
        """Whether a request's ``Origin`` is a page this server serves under an allowed name.

        The origin's host must be allowed, and the origin must be the one the request
        was sent to: its scheme (``ws``/``wss`` for ``http``/``https``), host and port
        those of the request (its scheme and its ``Host`` header).

        Args:
            origin: the ``Origin`` header (``null`` is no origin and is refused).
            scheme: the request's scheme, as the server sees it (behind a proxy with
                ``--proxy-headers``: the one of ``X-Forwarded-Proto``).
            host_header: the request's ``Host`` header.
        """
        try:
            given = urlsplit(origin.strip())
            if given.path or given.query or given.fragment or given.username:
                return False
            if given.scheme.lower() not in ("http", "https") or not given.netloc:
                return False
            name, port = _split(given.netloc)
            own_name, own_port = _split(host_header or "")
        except ValueError:  # a bad port or IPv6 address, no host
            return False
        own_scheme = _PAGE_SCHEMES.get(scheme.lower())
        port = port if port is not None else _DEFAULT_PORTS[given.scheme.lower()]
        own_port = own_port if own_port is not None else _DEFAULT_PORTS.get(scheme.lower())
        return (
            given.scheme.lower() == own_scheme
            and (name, port) == (own_name, own_port)
            and self.allows(name, port)
        )


def serving_hosts(host: str, allowed_hosts: Iterable[str] | None) -> list[str]:
    """The allowed hosts of a server listening on ``host`` (besides the loopback names).

    ``allowed_hosts`` (each checked with ``host_entry``) and, when ``host`` is a
    particular name or address that is not a loopback one, ``host`` itself: a server
    started with ``--host 192.168.1.5`` answers to that address.

    Raises:
        ValueError: an entry is no host name, or ``host`` is a wildcard address (every
            interface: ``0.0.0.0``, ``::``) and ``allowed_hosts`` is ``None``: such a
            server is reached by names it cannot guess, and answering to any would let
            every web page a visitor opens talk to it (DNS rebinding).
    """
    if allowed_hosts is None and host.strip() in WILDCARD_ADDRESSES:
        raise ValueError(
            f"--host {host.strip() or repr(host)} listens on every interface: name the hosts "
            "people reach the server by with --allowed-hosts (such as --allowed-hosts "
            "tables.example.org,192.168.1.5); only the loopback names are allowed by default"
        )
    entries = [host_entry(name) for name in allowed_hosts or ()]
    if host.strip() not in WILDCARD_ADDRESSES:
        own = host_entry(host)
        if own not in LOOPBACK_HOSTS and own not in entries:
            entries.append(own)
    return entries
