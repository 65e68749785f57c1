"""Two-factor secrets at rest: the authenticator app's key and the recovery codes' seed
are kept encrypted in allauth's rows (``Authenticator.data``), through the MFA adapter's
``encrypt``/``decrypt`` hooks. Whoever reads a database dump, a backup or the admin's
rows cannot make a player's codes from them.

The cipher is cryptography's Fernet (AES-128-CBC with an HMAC-SHA256 tag), keyed from
``SECRET_KEY`` by HKDF-SHA256 with a label of its own (the same key signs sessions and
links: a label keeps the two uses apart). Values are read with ``SECRET_KEY`` and every
key of ``SECRET_KEY_FALLBACKS`` (MultiFernet), so a key rotation keeps the secrets
readable: move the old key into the fallbacks, then ``manage.py mfa_secrets_reencrypt``
writes them again under the new key, after which the old key may go.

A stored value is ``fernet:<token>``. A value without the prefix (written before
encryption: the data migration ``fivex_site.0001`` encrypted every one) is refused when
read, as one no key opens, and logged as an error: the site writes none, so it was put
there by hand, and taken as it was it let whoever could write the table, without knowing
``SECRET_KEY``, plant an authenticator app key of their own. ``manage.py
mfa_secrets_reencrypt`` counts such rows; ``--encrypt-plain`` encrypts them (the
operator's own), else staff remove those authenticators."""

from __future__ import annotations

import base64
import functools
import logging

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

PREFIX = "fernet:"
# The HKDF label: changing it makes every stored secret unreadable.
PURPOSE = b"fivex.mfa.secrets.v1"

logger = logging.getLogger(__name__)


class SecretUnreadable(Exception):
    """A stored two-factor secret that no key of ``SECRET_KEY`` or
    ``SECRET_KEY_FALLBACKS`` opens (the key it was written with is gone)."""


class SecretStoredPlain(SecretUnreadable):
    """A stored two-factor secret that is not encrypted: none the site wrote."""


def _fernet(secret_key: str) -> Fernet:
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=PURPOSE).derive(
        secret_key.encode("utf-8")
    )
    return Fernet(base64.urlsafe_b64encode(raw))


@functools.lru_cache(maxsize=4)
def _box(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([_fernet(key) for key in keys])


def _keys() -> tuple[str, ...]:
    return (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))


def is_encrypted(stored: str) -> bool:
    return stored.startswith(PREFIX)


def secret_encrypt(text: str) -> str:
    """``text`` encrypted under the current ``SECRET_KEY``, as it is stored."""
    return PREFIX + _box(_keys()).encrypt(text.encode("utf-8")).decode("ascii")


def secret_decrypt(stored: str, *, plain_ok: bool = False) -> str:
    """The secret ``stored`` holds. Raises ``SecretUnreadable`` when no key opens it, and
    ``SecretStoredPlain`` when it is not encrypted, unless ``plain_ok`` (the migration
    going back)."""
    if not is_encrypted(stored):
        if plain_ok:
            return stored
        logger.error(
            "A two-factor secret is stored unencrypted (none the site writes: put in the "
            "table by hand, or by someone planting an authenticator key of their own): "
            "refused, the player is told to ask staff. `manage.py mfa_secrets_reencrypt` "
            "counts such rows; if they are yours (a copy made by hand), `manage.py "
            "mfa_secrets_reencrypt --encrypt-plain` encrypts them; else remove those "
            "authenticators (admin, Authenticators) and check who can write the database."
        )
        raise SecretStoredPlain
    try:
        return _box(_keys()).decrypt(stored.removeprefix(PREFIX).encode("ascii")).decode("utf-8")
    except (InvalidToken, ValueError, UnicodeError) as exc:
        logger.warning(
            "A two-factor secret cannot be decrypted with SECRET_KEY or SECRET_KEY_FALLBACKS."
        )
        raise SecretUnreadable from exc


def secret_reencrypt(stored: str) -> str:
    """``stored`` written again under the current ``SECRET_KEY``. Raises
    ``SecretUnreadable`` when no key opens it (``SecretStoredPlain``: not encrypted)."""
    return secret_encrypt(secret_decrypt(stored))


def secret_is_current(stored: str) -> bool:
    """Whether ``stored`` is encrypted under the current ``SECRET_KEY`` (not under a key of
    ``SECRET_KEY_FALLBACKS``, nor written before encryption)."""
    if not is_encrypted(stored):
        return False
    try:
        _box((settings.SECRET_KEY,)).decrypt(stored.removeprefix(PREFIX).encode("ascii"))
    except (InvalidToken, ValueError, UnicodeError):
        return False
    return True


def data_current(data: dict) -> bool:
    """Whether every secret of ``Authenticator.data`` is under the current ``SECRET_KEY``."""
    current = True

    def check(stored: str) -> str:
        nonlocal current
        current &= secret_is_current(stored)
        return stored

    data_encrypted(data, convert=check)
    return current


def data_encrypted(data: dict, *, convert) -> tuple[dict, bool]:  # noqa: ANN001
    """``Authenticator.data`` with its secrets (``secret``, ``seed``, ``migrated_codes``)
    passed through ``convert``; and whether anything changed."""
    out = dict(data)
    changed = False
    for name in ("secret", "seed"):
        if isinstance(out.get(name), str):
            new = convert(out[name])
            changed |= new != out[name]
            out[name] = new
    if isinstance(out.get("migrated_codes"), list):
        new_codes = [convert(code) for code in out["migrated_codes"]]
        changed |= new_codes != out["migrated_codes"]
        out["migrated_codes"] = new_codes
    return out, changed
