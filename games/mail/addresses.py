"""Seat reply addresses: splitting ``<prefix>+<token>@<domain>`` and redacting for logs.

The token inside the address is the credential (never the ``From:`` header), so it must
never appear in full in a log line, an error shown to anyone, or the admin list: use
:func:`redact_address` whenever an address is displayed or logged.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class OrdersAddress:
    """A recipient split into its parts; ``token`` is the seat's secret."""

    prefix: str
    token: str
    domain: str


def _clean(address: str | None) -> str:
    address = (address or "").strip()
    if address.startswith("<") and address.endswith(">"):
        address = address[1:-1].strip()
    return address


def orders_domain() -> str:
    """The domain of seat reply addresses (setting ``ORDERS_DOMAIN``), lower case."""
    return str(getattr(settings, "ORDERS_DOMAIN", "orders.localhost")).lower()


def orders_prefix() -> str:
    """The local-part prefix of seat reply addresses (setting ``ORDERS_ADDRESS_PREFIX``)."""
    return str(getattr(settings, "ORDERS_ADDRESS_PREFIX", "orders"))


def split_orders_address(address: str | None) -> OrdersAddress | None:
    """Split a seat reply address, or return None when it is not one of ours (wrong
    domain, wrong prefix, no token). The domain and prefix compare case-insensitively;
    the token is returned as written."""
    address = _clean(address)
    local, sep, domain = address.rpartition("@")
    if not sep or not local or domain.lower().rstrip(".") != orders_domain():
        return None
    prefix, plus, token = local.partition("+")
    if not plus or prefix.lower() != orders_prefix().lower() or not token:
        return None
    # A token is url-safe random text: anything else cannot be a token of ours.
    if len(token) > 128 or not all(c.isalnum() or c in "-_" for c in token):
        return None
    return OrdersAddress(prefix=prefix, token=token, domain=domain.lower())


def token_from_address(address: str | None) -> str | None:
    """The seat token inside a reply address, or None when it is not one of ours."""
    parts = split_orders_address(address)
    return parts.token if parts else None


def redact_address(address: str | None) -> str:
    """A form of ``address`` that is safe to log or display.

    ``orders+abcdef123@orders.example`` -> ``o***+abcd…@orders.example``;
    ``ann@example.com`` -> ``a***@example.com``. The domain is kept (it helps to see a
    wrong domain); the local part keeps its first character and at most four characters
    of a token, never the whole token."""
    address = _clean(address)
    if not address:
        return "<>"
    local, sep, domain = address.rpartition("@")
    if not sep:
        local, domain = address, ""
    head, plus, tail = local.partition("+")
    out = (head[:1] or "?") + "***"
    if plus:
        out += "+" + tail[:4] + "…"
    return out + ("@" + domain if sep else "")


def address_digest(address: str | None) -> str:
    """A stable SHA-256 digest of an address (lower-cased, without a trailing dot on the
    domain: ``x@orders.example.`` is ``x@orders.example``), used to de-duplicate
    deliveries without storing the secret address itself."""
    local, sep, domain = _clean(address).lower().rpartition("@")
    normal = f"{local}@{domain.rstrip('.')}" if sep else domain
    return hashlib.sha256(normal.encode("utf-8", "replace")).hexdigest()


_PLAIN_ADDRESS_RE = re.compile(r"[\w.+-]{1,64}@[\w-]+(\.[\w-]+)+")
_URL_LIKE_RE = re.compile(r"https?|www\.|//", re.IGNORECASE)


def shown_address(address: str | None) -> str:
    """An address a sender chose, as FiveX's own mail may quote it: as written when it
    is a plain address (letters, digits, ``.+-_`` before the ``@``, no quotes, spaces or
    URL-like text), else only its domain ("an address at evil.example") or, when even
    that is not plain, "an address that cannot be shown"."""
    address = _clean(address)
    if not address:
        return ""
    if len(address) <= 254 and _PLAIN_ADDRESS_RE.fullmatch(address):
        if not _URL_LIKE_RE.search(address.rpartition("@")[0]):
            return address
    domain = address.rpartition("@")[2]
    if "@" in address and len(domain) <= 253 and re.fullmatch(r"[\w-]+(\.[\w-]+)+", domain):
        return "an address at " + domain
    return "an address that cannot be shown"


_ADDRESS_IN_TEXT = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w.-]+")


def redact_text(text: str) -> str:
    """``text`` with every email address in it redacted (see :func:`redact_address`)."""
    return _ADDRESS_IN_TEXT.sub(lambda m: redact_address(m.group(0)), text)


class RedactAddressesFilter(logging.Filter):
    """A logging filter that redacts every address in a record's message: attached to
    aiosmtpd's ``mail.log`` logger, which logs each RCPT TO (with its token) verbatim."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is left to logging to report
            return True
        record.msg = redact_text(message)
        record.args = None
        return True
