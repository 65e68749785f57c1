"""The network side of the players' webhooks: which URLs may be called (a server-side
request forgery guard) and one signed POST to an address that was checked.

A URL must be ``https://`` to a host whose every address is public: a private,
loopback, link-local, shared, multicast, reserved or unspecified address (also inside
an IPv4-mapped, 6to4 or NAT64 IPv6 address) is refused, when the URL is saved and again
at each attempt, and the connection goes to the very address that was checked (a name
that resolves elsewhere by the time of the connection is not resolved again). Plain
``http://`` and loopback addresses are allowed only for ``localhost``, ``127.0.0.1`` and
``[::1]`` under ``settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST`` (development and tests).
Redirects are never followed; only a short excerpt of the answer is read. The host name
is looked up with a time bound (``RESOLVE_SECONDS``): the OS resolver has none of its own
that the site controls, and a name whose DNS never answers held the web request saving it,
or a mail worker at each attempt, for as long as the resolver liked.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from django.conf import settings

from games.errors import ValidationError

MAX_URL_LENGTH = 500
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
EXCERPT_BYTES = 200
# A POST takes at most this long, whatever the receiver does (it may trickle its answer a
# byte at a time: the per-read timeout alone let one hold a worker for as long as it liked).
TOTAL_SECONDS = 30
# A name with more addresses than this is tried on its first ones only.
MAX_ADDRESSES = 3
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# IPv6 is called in the global unicast range only (and NAT64's, for a public IPv4 inside):
# not on Python's tables alone, which before 3.12.4 took ::/96 (IPv4-compatible),
# ::ffff:0:0/96 (IPv4-translated) and 64:ff9b:1::/48 (local NAT64) for global.
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
# Seconds a host name lookup may take, when the URL is saved and at each attempt (where it
# counts within TOTAL_SECONDS).
RESOLVE_SECONDS = 5
# Lookups under way at once in one process. getaddrinfo cannot be interrupted: a lookup
# that outlives its bound goes on in its (daemon) thread until the OS resolver gives up,
# so past this many a new lookup waits for a free slot (within its own bound) instead of
# starting one more thread: hanging names cannot pile threads up.
MAX_LOOKUPS = 8
_lookup_slots = threading.BoundedSemaphore(MAX_LOOKUPS)
# Below 1024 only HTTPS's port: a webhook is no way to talk to a mail or SSH server.
LOW_PORTS = frozenset({443})

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeAddress(ValidationError):
    """The URL's host resolves to an address the site does not call (or not at all)."""


class ResolveLater(ValidationError):
    """The host name could not be looked up now, though it may be later: refused when the
    URL is saved, a network error (tried again) at an attempt."""


class ResolveTimeout(ResolveLater):
    """The host name did not resolve within its time bound."""


def _resolve(host: str, port: int, seconds: float) -> list[tuple]:
    """``socket.getaddrinfo(host, port)`` (TCP), given at most ``seconds`` (waiting for a
    free lookup slot included): ResolveTimeout past it, OSError if the name fails. The
    lookup runs in a daemon thread holding one of ``MAX_LOOKUPS`` slots until it ends."""
    deadline = time.monotonic() + seconds
    late = ResolveTimeout(f"The host name {host} did not resolve within {seconds:g} seconds.")
    if not _lookup_slots.acquire(timeout=seconds):
        raise late
    done = threading.Event()
    result: dict[str, Any] = {}

    def lookup() -> None:
        try:
            result["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            result["error"] = exc
        finally:
            _lookup_slots.release()
            done.set()

    try:
        threading.Thread(target=lookup, name=f"webhook-lookup-{host}"[:60], daemon=True).start()
    except BaseException:
        _lookup_slots.release()
        raise
    if not done.wait(max(0.0, deadline - time.monotonic())):
        raise late
    if "error" in result:
        raise result["error"]
    return result["infos"]


@dataclass(frozen=True)
class Target:
    """A checked URL: its scheme, host (IDNA), port, path with query, and addresses."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """What the receiver answered: the HTTP status and the start of the body."""

    status: int
    excerpt: str


def _allow_local() -> bool:
    return bool(getattr(settings, "WEBHOOKS_ALLOW_HTTP_LOCALHOST", False))


def _embedded_v4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, NAT64), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_public(address: Address) -> bool:
    """Whether the site may call ``address``: globally routed, not multicast (nor an
    IPv6 address standing for an IPv4 one that is not)."""
    inner = _embedded_v4(address)
    if inner is not None and not address_public(inner):
        return False
    if isinstance(address, ipaddress.IPv6Address) and not (
        address in _GLOBAL_UNICAST or address in _NAT64
    ):
        return False
    return address.is_global and not address.is_multicast


def url_parts(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path)`` of a webhook URL, or ValidationError saying what is
    wrong with it (before any name is resolved)."""
    if not isinstance(url, str) or not url.strip():
        raise ValidationError("Enter the webhook's URL (https://…).")
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise ValidationError(f"The URL is too long: at most {MAX_URL_LENGTH} characters.")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise ValidationError("The URL must not contain spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValidationError(f"The URL cannot be read: {exc}.") from None
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise ValidationError("The URL must start with https://.")
    if not parts.hostname:
        raise ValidationError("The URL names no host.")
    if parts.username is not None or parts.password is not None:
        raise ValidationError("The URL must not hold a user name or password (user@host).")
    if parts.fragment:
        raise ValidationError("The URL must not end with a #fragment: a webhook never sees it.")
    try:
        host = parts.hostname.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise ValidationError(f"The host name {parts.hostname!r} is not a valid name.") from None
    if scheme == "http" and not (_allow_local() and host in LOCAL_HOSTS):
        raise ValidationError(
            "The URL must start with https:// (plain http:// is only for localhost on a "
            "development site)."
        )
    port = port or (443 if scheme == "https" else 80)
    if port < 1024 and port not in LOW_PORTS and not (_allow_local() and host in LOCAL_HOSTS):
        raise ValidationError(
            f"The URL's port {port} is refused: a webhook is called on port 443 or on a port "
            "from 1024 up."
        )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    # Non-ASCII characters are sent percent-encoded (http.client refuses them raw: every
    # attempt failed); what is encoded already stays as it is.
    path = quote(path, safe="/?&=%:@!$'()*+,;~-._")
    return scheme, host, port, path


def url_check(url: str, *, resolve_seconds: float | None = None) -> Target:
    """The URL checked as it will be called: its parts and the host's addresses, every
    one of them public (or loopback, for a local host under the development exception),
    looked up within ``resolve_seconds`` (``RESOLVE_SECONDS`` by default). Raises
    ValidationError with the reason: UnsafeAddress for the addresses (or a name that does
    not exist), ResolveLater when the lookup failed for now (ResolveTimeout: in time)."""
    scheme, host, port, path = url_parts(url)
    seconds = RESOLVE_SECONDS if resolve_seconds is None else resolve_seconds
    try:
        infos = _resolve(host, port, seconds)
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_AGAIN:  # the resolver's own "try again"
            raise ResolveLater(
                f"The host name {host} could not be looked up just now (a temporary DNS "
                "failure): try again in a moment."
            ) from None
        raise UnsafeAddress(f"The host name {host} does not resolve to an address.") from None
    except (OSError, UnicodeError):
        raise UnsafeAddress(f"The host name {host} does not resolve to an address.") from None
    addresses = tuple(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise UnsafeAddress(f"The host name {host} does not resolve to an address.")
    local = _allow_local() and host in LOCAL_HOSTS
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        allowed = address.is_loopback if local else address_public(address)
        if not allowed:
            raise UnsafeAddress(
                f"{host} resolves to {address}, a private, loopback, link-local, multicast "
                "or reserved address: webhooks only call public addresses."
            )
    return Target(scheme=scheme, host=host, port=port, path=path, addresses=addresses)


def _step_timeout(*, timeout: float, deadline: float) -> float:
    """The socket timeout of the next step of a POST (the TCP connection, the TLS
    handshake, the request): ``timeout``, or the time left before ``deadline`` if that is
    shorter; TimeoutError when none is left. Each step is timed from its own start, so
    the connection and the handshake share the POST's limit instead of each having it."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError(f"no whole answer within {TOTAL_SECONDS} s")
    return min(timeout, left)


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a checked address (the Host header keeps the name), made
    before ``deadline`` (``time.monotonic``)."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float, deadline: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self._deadline = deadline

    def connect(self) -> None:
        self.sock = socket.create_connection(
            (self._address, self.port), _step_timeout(timeout=self.timeout, deadline=self._deadline)
        )


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to a checked address, made before ``deadline``; the
    certificate is verified for the URL's host name (SNI too), not for the address."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float, deadline: float) -> None:
        context = ssl.create_default_context()
        # The name must be in the certificate's subjectAltName, as browsers and the CA/B
        # Forum's rules require; Python's default also took a subject's common name alone.
        context.hostname_checks_common_name = False
        super().__init__(host, port, timeout=timeout, context=context)
        self._address = address
        self._deadline = deadline

    def connect(self) -> None:
        sock = socket.create_connection(
            (self._address, self.port), _step_timeout(timeout=self.timeout, deadline=self._deadline)
        )
        try:
            # The handshake gets what the connection left, not a timeout of its own.
            sock.settimeout(_step_timeout(timeout=self.timeout, deadline=self._deadline))
            self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def _cut(connection: http.client.HTTPConnection) -> None:
    """Shut the connection's socket down (from the watchdog's thread): a read blocked on
    it returns at once, with an error."""
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def post(*, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Answer:
    """POST ``body`` to ``url``, checked now (``url_check``: UnsafeAddress if it resolves
    to an address the site does not call; ResolveTimeout if the name does not resolve
    within ``RESOLVE_SECONDS``), to the first of its first ``MAX_ADDRESSES`` addresses
    that takes the connection. ``timeout``: seconds to connect and for each read; the
    whole POST, the lookup included, takes at most ``TOTAL_SECONDS`` (then TimeoutError):
    the connection, the TLS handshake and the request each get at most the time left.
    A redirect is an answer like any other (never followed). Network errors raise OSError
    or http.client.HTTPException."""
    deadline = time.monotonic() + TOTAL_SECONDS
    target = url_check(url, resolve_seconds=min(RESOLVE_SECONDS, TOTAL_SECONDS))
    cls = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    error: OSError = TimeoutError(f"no answer within {TOTAL_SECONDS} s")
    for address in target.addresses[:MAX_ADDRESSES]:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        connection = cls(target.host, target.port, address=address, timeout=timeout, deadline=deadline)
        watchdog: threading.Timer | None = None
        try:
            try:
                connection.connect()
            except OSError as exc:  # the next address, if the name has several
                error = exc
                continue
            # Timed from now, not from before the connection: its TCP connect and TLS
            # handshake already used some of it. Each read waits at most the time left
            # too; the watchdog ends a receiver that trickles its answer at the deadline.
            connection.sock.settimeout(_step_timeout(timeout=timeout, deadline=deadline))
            left = deadline - time.monotonic()
            watchdog = threading.Timer(max(left, 0.0), _cut, (connection,))
            watchdog.daemon = True
            watchdog.start()
            connection.request("POST", target.path, body=body, headers=headers)
            response = connection.getresponse()
            excerpt = response.read(EXCERPT_BYTES).decode("utf-8", "replace")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no whole answer within {TOTAL_SECONDS} s")
            return Answer(status=response.status, excerpt=excerpt)
        except (OSError, http.client.HTTPException):
            if time.monotonic() > deadline:  # the watchdog cut it
                raise TimeoutError(f"no whole answer within {TOTAL_SECONDS} s") from None
            raise
        finally:
            if watchdog is not None:
                watchdog.cancel()
            connection.close()
    raise error
