"""Where a remote agent named from outside (a run launched in the UI or over the API) may live.

A run names its agent's URL and a worker posts every observation there. Unfenced, a token could
make workers post to the platform's own services (loopback), the private network, or a cloud's
metadata address (link-local). So such an agent must be under an endpoint an admin allow-lists
(REMOTE_AGENT_ENDPOINTS), and every address its host resolves to must be public unless the admin
allows private ones (REMOTE_AGENT_PRIVATE). The check runs when the run is launched and again
before each request, so a name that later resolves elsewhere is caught too. Runs of the command
line (run_suite: the operator's own) are not fenced.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from .base import AgentError

DEFAULT_PORTS = {"http": 80, "https": 443}
# what makes an address unfit for an agent, in the words an error gives (the first that holds)
REFUSED_RANGES = (
    ("is_loopback", "loopback"),
    ("is_link_local", "link-local"),
    ("is_unspecified", "unspecified"),
    ("is_multicast", "multicast"),
    ("is_private", "private"),
    ("is_reserved", "reserved"),
)


def _place(url: str) -> tuple[tuple[str, str, int | None], str]:
    """((scheme, host, port), path) of a URL, ports made explicit, so prefixes compare by their parts, not their
    text.
    """
    parts = urlsplit(url)
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        raise AgentError(f"{url!r} has a bad port") from None
    return (parts.scheme, (parts.hostname or "").lower(), port), parts.path or "/"


def endpoint_allow_listed(url: str) -> bool:
    """Whether `url` is one of the allow-listed endpoints or under one (same scheme, host and port; the path below)."""
    origin, path = _place(url)
    for entry in settings.REMOTE_AGENT_ENDPOINTS:
        entry_origin, entry_path = _place(entry)
        if origin == entry_origin and (path == entry_path or path.startswith(entry_path.rstrip("/") + "/")):
            return True
    return False


def address_refusal(address: str) -> str:
    """Why an agent may not be at `address` ('loopback', 'private', ...), or '' for a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 link-local address may carry its %interface
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is loopback however it is written
    for attribute, name in REFUSED_RANGES:
        if getattr(ip, attribute):
            return name
    return "" if ip.is_global else "non-public"


def remote_endpoint_check(url: str) -> None:
    """AgentError unless an agent named from outside may be reached at `url` (see the module's docstring)."""
    if not endpoint_allow_listed(url):
        raise AgentError(
            f"{url} is not an allow-listed agent endpoint: an admin lists them in REPLICAGYM_REMOTE_AGENT_ENDPOINTS"
        )
    if settings.REMOTE_AGENT_PRIVATE:
        return
    (_scheme, host, port), _path = _place(url)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise AgentError(f"cannot resolve the agent's host {host}: {exc}") from None
    for *_, sockaddr in found:
        if why := address_refusal(sockaddr[0]):
            raise AgentError(
                f"the agent's host {host} resolves to {sockaddr[0]}, a {why} address: remote agents "
                "must be on public addresses (an admin may allow private ones: REPLICAGYM_REMOTE_AGENT_PRIVATE)"
            )
