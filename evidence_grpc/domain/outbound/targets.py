"""Outbound requests that cannot be turned against the server's own network (SSRF).

A target URL is checked when it is saved and its host resolved again right before each POST;
the POST goes to the address that was vetted (no second lookup, so DNS rebinding cannot swap
it), follows no redirect, and reads a bounded answer within a time limit. Refused: every
address that is not globally reachable (loopback, private, link-local with cloud metadata,
unique-local, site-local, multicast, unspecified, reserved, shared, documentation, benchmarking,
the 6to4 relay anycast and the other special-purpose ranges of the IANA registries that are not
globally reachable, whatever this Python's `ipaddress` thinks of them: `NOT_GLOBAL`), IPv4
embedded in IPv6 (mapped, NAT64, 6to4) when the IPv4 is refused, and the operator's own ranges.
Numeric host forms (decimal, octal, hex) are resolved the way the C
library resolves them, so `2130706433` and `0177.0.0.1` are loopback too. Loopback may be
allowed explicitly (tests and local receivers); nothing else can be."""

from __future__ import annotations

import dataclasses
import http.client
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable
from typing import Any

from ..kernel import limits
from ..kernel.errors import validation_error
from ..kernel.urls import not_a_url, parsed_url

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
MAX_ANSWER_BYTES = 64 * 1024
METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254"),
            ipaddress.ip_address("100.100.100.200")}
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# The IANA IPv4 and IPv6 special-purpose address registries' ranges that are not globally
# reachable, and the deprecated or relay ranges a receiver has no business in; checked besides
# `is_global`, which depends on the Python version (3.11 deems fec0::/10, 192.88.99.0/24,
# 64:ff9b:1::/48 and 3fff::/20 global, and newer versions some of 2001::/23). Embedded IPv4
# (mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) is unwrapped first and judged on its own.
NOT_GLOBAL = tuple(ipaddress.ip_network(cidr) for cidr in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
    "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "::/8", "64:ff9b:1::/48", "100::/8", "2001::/23", "2001:db8::/32", "3fff::/20",
    "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8"))


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the C library resolves `host` to (numeric forms without DNS)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


@dataclasses.dataclass(frozen=True)
class Policy:
    allow_loopback: bool = False
    deny: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    timeout_seconds: float = 5.0
    resolver: Resolver = system_resolver


_policy = Policy()


def configure(policy: Policy) -> None:
    global _policy
    _policy = policy


def current_policy() -> Policy:
    return _policy


def parse_cidrs(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Comma-separated CIDR ranges (EVIDENCE_OUTBOUND_DENY_CIDRS)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in text.split(",") if part.strip())


def _embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: Address, policy: Policy) -> str | None:
    """Why `address` may not be POSTed to, or None when it may."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        why = refusal(embedded, policy)
        return f"embeds {embedded}, which {why}" if why else None
    if any(address in network for network in policy.deny):
        return "is in a range the operator refuses"
    if address.is_loopback:
        return None if policy.allow_loopback else "is a loopback address"
    if address in METADATA:
        return "is a cloud metadata address"
    for check, what in ((address.is_unspecified, "unspecified"), (address.is_multicast, "multicast"),
                        (address.is_link_local, "link-local"), (address.is_private, "private"),
                        (address.is_reserved, "reserved"),
                        (getattr(address, "is_site_local", False), "site-local")):
        if check:
            return f"is a {what} address"
    special = next((network for network in NOT_GLOBAL if address in network), None)
    if special is not None:
        return f"is in {special}, a special-purpose range that is not globally reachable"
    if not address.is_global:
        return "is not a public address"
    return None


@dataclasses.dataclass(frozen=True)
class Destination:
    scheme: str
    host: str
    port: int
    path: str


def destination(url: str, field: str = "webhook") -> Destination:
    """The parts of an http(s) URL, or a 400 naming `field`."""
    if isinstance(url, str) and len(url) > limits.URL.most:
        raise validation_error(field, f"Must be at most {limits.URL.most} characters long; this "
                                      f"URL has {len(url)}")
    if not isinstance(url, str) or any(ord(c) < 33 for c in url):
        raise validation_error(field, "Must be an http or https URL without spaces")
    parts = parsed_url(url)
    if parts is None:
        raise validation_error(field, not_a_url(url))
    port = parts.port
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise validation_error(field, "Must be an http or https URL with a host")
    if parts.username or parts.password:
        raise validation_error(field, "Must not carry credentials before the host")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Destination(parts.scheme, parts.hostname,
                       port or (443 if parts.scheme == "https" else 80), path)


def vet(url: str, policy: Policy | None = None) -> tuple[Destination, str]:
    """The destination of `url` and the one address to connect to; raises OutboundRefused
    when the host does not resolve or any address it resolves to is refused."""
    policy = policy or _policy
    target = destination(url)
    try:
        addresses = policy.resolver(target.host, target.port)
    except (OSError, UnicodeError) as exc:
        raise OutboundRefused(f"{target.host} does not resolve: {exc}") from None
    if not addresses:
        raise OutboundRefused(f"{target.host} does not resolve")
    for text in addresses:
        why = refusal(ipaddress.ip_address(text.split("%")[0]), policy)
        if why:
            raise OutboundRefused(f"{target.host} resolves to {text}, which {why}")
    return target, addresses[0]


def check_when_saved(url: str, field: str) -> None:
    """Refuse a target whose host is, or resolves now to, a refused address. A name that does
    not resolve yet is accepted: it is resolved again before every POST."""
    target = destination(url, field)
    try:
        vet(url)
    except OutboundRefused as refused:
        if "does not resolve" not in str(refused) or _is_numeric(target.host):
            raise validation_error(field, f"Refused: {refused}") from None


def _is_numeric(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host.replace(".", "").isdigit()


class OutboundRefused(Exception):
    """A POST that was not made (refused address) or failed (network, status, time)."""


class DeadlineSocket(socket.socket):
    """A socket that gives up at a deadline (time.monotonic()) however its peer trickles:
    before every read and write its timeout becomes the time left, so a receiver answering a
    byte at a time cannot hold a delivery longer than the whole request may take (a plain
    socket timeout bounds each read, not the request)."""

    deadline = 0.0  # set right after creation; until then every read and write fails

    def arm(self) -> None:
        """Set the timeout to the time left; TimeoutError when none is."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out: the delivery deadline passed")
        self.settimeout(left)

    def recv_into(self, *args: Any, **kwargs: Any) -> int:
        self.arm()
        return super().recv_into(*args, **kwargs)

    def send(self, *args: Any, **kwargs: Any) -> int:  # TLS's sendall loops over send
        self.arm()
        return super().send(*args, **kwargs)

    def sendall(self, *args: Any, **kwargs: Any) -> None:
        self.arm()
        super().sendall(*args, **kwargs)


class _DeadlineTLSSocket(DeadlineSocket, ssl.SSLSocket):
    """The same over TLS: its reads and writes go through the methods above first."""


def open_connection(host: str, port: int, deadline: float) -> DeadlineSocket:
    """A TCP connection to `host` made, and then used, within `deadline` (time.monotonic())."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out: the delivery deadline passed")
    connected = socket.create_connection((host, port), timeout=left)
    sock = DeadlineSocket(fileno=connected.detach())
    sock.deadline = deadline
    return sock


class _VettedConnection(http.client.HTTPConnection):
    """HTTP to a vetted address within a deadline; over TLS when `server_name` is given,
    which SNI and the certificate check use."""

    def __init__(self, address: str, port: int, deadline: float, server_name: str | None) -> None:
        super().__init__(address, port)
        self._deadline = deadline
        self._server_name = server_name

    def connect(self) -> None:
        plain = open_connection(self.host, self.port, self._deadline)
        if self._server_name is None:
            self.sock = plain
            return
        context = ssl.create_default_context()
        context.sslsocket_class = _DeadlineTLSSocket
        plain.arm()  # the handshake is one call, bounded by the socket's timeout
        tls = context.wrap_socket(plain, server_hostname=self._server_name)
        assert isinstance(tls, _DeadlineTLSSocket)  # the context's sslsocket_class, set above
        tls.deadline = self._deadline
        self.sock = tls


def post_json(url: str, body: bytes, policy: Policy | None = None) -> int:
    """POST `body` (JSON) to `url` through the checks above; the status code on 2xx, else
    OutboundRefused. Redirects are failures (never followed). Resolving, connecting, TLS,
    sending and reading the answer together take at most the policy's timeout."""
    policy = policy or _policy
    deadline = time.monotonic() + policy.timeout_seconds
    target, address = vet(url, policy)
    connection = _VettedConnection(address, target.port, deadline,
                                   target.host if target.scheme == "https" else None)
    host_header = target.host if ":" not in target.host else f"[{target.host}]"
    default_port = 443 if target.scheme == "https" else 80
    if target.port != default_port:
        host_header += f":{target.port}"
    try:
        connection.request("POST", target.path, body=body, headers={
            "Host": host_header, "Content-Type": "application/json",
            "User-Agent": "evidence-server-actions/1.0"})
        answer = connection.getresponse()
        answer.read(MAX_ANSWER_BYTES)
    except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
        raise OutboundRefused(f"POST to {target.host} failed: {exc}") from None
    finally:
        connection.close()
    if not 200 <= answer.status < 300:
        raise OutboundRefused(f"POST to {target.host} answered {answer.status}")
    return answer.status
