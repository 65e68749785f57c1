"""Players' webhooks over real HTTPS: a test CA and server certificates made with the
``openssl`` command, a TLS server on 127.0.0.1 (``http.server`` and ``ssl`` in a thread),
and a host name that resolves to 127.0.0.1 in these tests only (``socket.getaddrinfo``
answers for it, and the development exception lets a loopback address through for it, as
tests/games/test_webhooks.py does for its names). The sender trusts the test CA through
``SSL_CERT_FILE``, which OpenSSL reads when the default trust store is loaded: only the
trust store is changed, none of the site's own code.

A certificate valid for the host name is accepted, with that name sent as SNI and checked
while the connection goes to the pinned address; a certificate for another name, a
self-signed one and an expired one are refused
before anything is sent, recorded as a network error that is tried again (README,
"## Webhooks")."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from games.models import PlayerWebhook, WebhookDelivery
from games.services import webhook_http, webhooks
from tests.games.web_support import make_user

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command"),
]

HOST = "hooks.fivex.test"


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _key_and_request(cwd: Path, name: str, common_name: str) -> None:
    _openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={common_name}", cwd=cwd,
    )  # fmt: skip


_CA_CONFIG = """\
[ca]
default_ca = test_ca
[test_ca]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
"""


def _signed(cwd: Path, name: str, *, common_name: str, san: str | None, dates: tuple[str, ...]) -> None:
    """``name``.pem (and .key), signed by the test CA: a server certificate for
    ``common_name`` with ``san`` as its subjectAltName (None: none)."""
    _key_and_request(cwd, name, common_name)
    lines = [
        "basicConstraints = critical, CA:FALSE",
        "keyUsage = critical, digitalSignature",
        "extendedKeyUsage = serverAuth",
        "subjectKeyIdentifier = hash",
        "authorityKeyIdentifier = keyid",
        *([f"subjectAltName = {san}"] if san else []),
    ]
    (cwd / f"{name}.ext").write_text("\n".join(lines) + "\n")
    _openssl(
        "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-notext",
        "-in", f"{name}.csr", "-out", f"{name}.pem", "-extfile", f"{name}.ext", *dates, cwd=cwd,
    )  # fmt: skip


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A test CA (ca.pem) and server certificates: ``good`` (for HOST), ``other`` (for
    another name), ``expired`` (for HOST, valid for a day in 2020), ``ip`` (for the address
    127.0.0.1), ``cn-only`` (HOST in its subject, no subjectAltName) signed by it; ``self``
    (self-signed, for HOST)."""
    cwd = tmp_path_factory.mktemp("webhook-tls")
    (cwd / "ca.cnf").write_text(_CA_CONFIG)
    (cwd / "index.txt").write_text("")
    (cwd / "serial").write_text("1000\n")
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=FiveX webhook test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=cwd,
    )  # fmt: skip
    days = ("-days", "30")
    _signed(cwd, "good", common_name=HOST, san=f"DNS:{HOST}", dates=days)
    _signed(cwd, "other", common_name="elsewhere.fivex.test", san="DNS:elsewhere.fivex.test", dates=days)
    _signed(
        cwd, "expired", common_name=HOST, san=f"DNS:{HOST}",
        dates=("-startdate", "20200101000000Z", "-enddate", "20200102000000Z"),
    )  # fmt: skip
    _signed(cwd, "ip", common_name="127.0.0.1", san="IP:127.0.0.1", dates=days)
    _signed(cwd, "cn-only", common_name=HOST, san=None, dates=days)
    _key_and_request(cwd, "self", HOST)
    _openssl(
        "x509", "-req", "-in", "self.csr", "-key", "self.key", "-out", "self.pem", "-days", "30",
        "-extfile", "good.ext", cwd=cwd,
    )  # fmt: skip
    return cwd


class TLSReceiver(ThreadingHTTPServer):
    """An HTTPS server on 127.0.0.1 presenting one certificate; it records the SNI name
    of each handshake, each handshake that failed, and each request that came through.
    ``slow``: it waits ``slow`` seconds before the handshake, then trickles its answer a
    byte every 50 ms."""

    daemon_threads = True
    slow = 0.0

    def __init__(self, cert: Path, key: Path) -> None:
        self.server_names: list[str | None] = []
        self.handshake_errors: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.context.sni_callback = lambda sock, name, context: self.server_names.append(name)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if receiver.slow:
                    for byte in b"HTTP/1.1 200 OK\r\n" * 200:
                        try:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                        except OSError:
                            return
                        threading.Event().wait(0.05)
                    return
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    def finish_request(self, request: Any, client_address: Any) -> None:
        # The handshake runs in the request's own thread, so a client that stalls it
        # cannot hold the accepting loop.
        request.settimeout(10)
        threading.Event().wait(self.slow)
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as exc:
            self.handshake_errors.append(str(exc))
            return
        self.RequestHandlerClass(tls, client_address, self)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def handshake_errors_after(self, count: int, seconds: float = 5.0) -> list[str]:
        """The failed handshakes once ``count`` have been recorded (or ``seconds`` have
        passed): the request's thread records one after the client has already given up
        and returned, so a check made at once could run before it (a loaded machine)."""
        until = time.monotonic() + seconds
        while len(self.handshake_errors) < count and time.monotonic() < until:
            time.sleep(0.02)
        return self.handshake_errors


@pytest.fixture
def serve(certs, settings, monkeypatch) -> Iterator[Any]:
    """``serve(name)``: an HTTPS receiver presenting certificate ``name``; HOST resolves to
    127.0.0.1 and the test CA is the only one trusted."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host == HOST else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    settings.WEBHOOKS_ALLOW_HTTP_LOCALHOST = True  # the development exception...
    monkeypatch.setattr(webhook_http, "LOCAL_HOSTS", webhook_http.LOCAL_HOSTS | {HOST})  # ...for HOST
    monkeypatch.setenv("SSL_CERT_FILE", str(certs / "ca.pem"))
    (certs / "no-ca-dir").mkdir(exist_ok=True)  # and not the system's directory of CAs
    monkeypatch.setenv("SSL_CERT_DIR", str(certs / "no-ca-dir"))
    servers: list[TLSReceiver] = []

    def start(name: str) -> TLSReceiver:
        server = TLSReceiver(certs / f"{name}.pem", certs / f"{name}.key")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _ping(port: int) -> tuple[Any, str, WebhookDelivery]:
    user = make_user("ann")
    secret = webhooks.webhook_save(user=user, url=f"https://{HOST}:{port}/hook?bot=7")
    return user, secret, webhooks.webhook_ping(user=user)


def test_a_certificate_valid_for_the_host_name_is_accepted_and_the_post_is_signed(serve) -> None:
    server = serve("good")
    _, secret, delivery = _ping(server.port)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk) == ("sent", 0)
    # The connection went to the pinned 127.0.0.1, yet the name was sent (SNI) and checked.
    assert server.server_names == [HOST]
    assert server.handshake_errors == []
    [request] = server.requests
    assert request["path"] == "/hook?bot=7"
    assert request["headers"]["Host"] == f"{HOST}:{server.port}"
    assert request["headers"]["X-FiveX-Event"] == "ping"
    # Checked as the README tells a receiver to.
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request["headers"]["X-FiveX-Signature"], expected)
    body = json.loads(request["body"])
    assert body["event"] == "ping" and body["sent_at"].endswith("Z")
    delivery.refresh_from_db()
    assert (delivery.status, delivery.response_code, delivery.response_excerpt) == ("sent", 200, "ok")
    assert delivery.last_error == ""


@pytest.mark.parametrize(
    ("cert", "reason"),
    [
        ("other", f"Hostname mismatch, certificate is not valid for '{HOST}'"),
        ("self", "self-signed certificate"),
        ("expired", "certificate has expired"),
        # The name in the subject alone, no subjectAltName: refused as browsers refuse it
        # (Python's default fell back to the common name).
        ("cn-only", f"Hostname mismatch, certificate is not valid for '{HOST}'"),
    ],
)
def test_a_certificate_that_does_not_verify_is_refused_before_anything_is_sent(
    serve, cert, reason
) -> None:
    server = serve(cert)
    _, _, delivery = _ping(server.port)
    # A network error: tried again a minute later (the site's owner may mend it).
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk) == ("retrying", 60)
    assert server.requests == []  # the handshake failed: no header, no body left the site
    assert len(server.handshake_errors_after(1)) == 1  # the client broke it off
    delivery.refresh_from_db()
    assert delivery.status == "retrying" and delivery.attempts == 1
    assert delivery.response_code is None
    assert delivery.last_error.startswith("network error: SSLCertVerificationError:")
    assert "certificate verify failed" in delivery.last_error
    assert reason in delivery.last_error


@pytest.mark.parametrize(("cert", "sent"), [("ip", True), ("good", False)])
def test_a_url_naming_an_address_is_checked_against_the_certificates_address(serve, cert, sent) -> None:
    # No SNI for an address (RFC 6066); the certificate must name that very address.
    server = serve(cert)
    user = make_user("ann")
    webhooks.webhook_save(user=user, url=f"https://127.0.0.1:{server.port}/hook")
    delivery = webhooks.webhook_ping(user=user)
    status, _ = webhooks.webhook_delivery_send(delivery_id=delivery.pk)
    assert server.server_names == [None]
    assert (status, len(server.requests)) == (("sent", 1) if sent else ("retrying", 0))
    delivery.refresh_from_db()
    if not sent:
        assert "IP address mismatch, certificate is not valid for '127.0.0.1'" in delivery.last_error


def test_a_wrong_certificate_every_time_fails_the_delivery_and_counts_against_the_webhook(serve) -> None:
    server = serve("other")
    user, _, delivery = _ping(server.port)
    now = timezone.now()
    outcomes = []
    for _ in range(5):
        outcome = webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=now)
        outcomes.append(outcome)
        now += timedelta(seconds=outcome[1] + 1)
    # 1, 5, 15 and 40 minutes apart, then given up (README: five attempts in about an hour).
    assert outcomes == [("retrying", 60), ("retrying", 300), ("retrying", 900), ("retrying", 2400), ("failed", 0)]
    assert server.requests == []
    assert len(server.handshake_errors_after(5)) == 5
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 5
    assert "Hostname mismatch" in delivery.last_error
    assert PlayerWebhook.objects.get(user=user).failures_in_row == 1


def test_the_certificate_is_replaced_and_the_next_attempt_goes_through(serve) -> None:
    bad = serve("self")
    user, secret, delivery = _ping(bad.port)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "retrying"
    good = serve("good")  # the owner fixed the certificate (on another port here)
    PlayerWebhook.objects.filter(user=user).update(url=f"https://{HOST}:{good.port}/hook")
    later = timezone.now() + timedelta(seconds=61)
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk, now=later) == ("sent", 0)
    assert bad.requests == [] and len(good.requests) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("sent", 2, "")


def test_a_slow_handshake_counts_within_the_total_limit(serve, monkeypatch) -> None:
    # Regression: the watchdog bounding the whole POST was given the time left before
    # the connection and TLS handshake and started after them: a receiver that took
    # its time over the handshake, then trickled its answer, held the worker that much
    # longer than TOTAL_SECONDS.
    import time

    monkeypatch.setattr(webhook_http, "TOTAL_SECONDS", 3)
    server = serve("good")
    server.slow = 2.5  # within the connection's own timeout (min(5 s, the time left))
    _, _, delivery = _ping(server.port)
    started = time.monotonic()
    assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "retrying"
    assert time.monotonic() - started < 4.8  # 3 s, not 3 s after the 2.5 s handshake (5.5 s)
    assert len(server.requests) == 1
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("network error: TimeoutError")


def test_a_slow_connection_and_a_slow_handshake_share_the_total_limit(
    certs, serve, monkeypatch
) -> None:
    # Regression: the TCP connection and the TLS handshake were each given min(the
    # timeout, the time left before the connection): a slow connection and then a slow
    # handshake held the worker up to one timeout past TOTAL_SECONDS.
    import time

    class Queueing(TLSReceiver):
        request_queue_size = 0  # one connection waits to be accepted, a second is not taken

    monkeypatch.setattr(webhook_http, "TOTAL_SECONDS", 4)
    server = Queueing(certs / "good.pem", certs / "good.key")
    server.slow = 3.5  # within the handshake's own timeout (min(5 s, 4 s left))
    _, _, delivery = _ping(server.port)
    # A connection already waits: the POST's is not taken (its SYN is sent again, about
    # every second) until the receiver starts accepting, 1.5 s from now.
    waiting = socket.create_connection(("127.0.0.1", server.port))
    later = threading.Timer(1.5, lambda: threading.Thread(target=server.serve_forever, daemon=True).start())
    try:
        started = time.monotonic()
        later.start()
        assert webhooks.webhook_delivery_send(delivery_id=delivery.pk)[0] == "retrying"
        spent = time.monotonic() - started
    finally:
        later.cancel()
        waiting.close()
        server.shutdown()
        server.server_close()
    assert spent < 4.9, spent  # 4 s, not the handshake's end (~2 s + 3.5 s)
    assert server.requests == []  # nothing sent
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("network error: TimeoutError"), delivery.last_error
