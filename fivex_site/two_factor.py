"""Two-factor authentication (allauth.mfa: an authenticator app, passkeys and security
keys, recovery codes) as the
rest of the site reads and removes it: whether a player has it on, for their data download
(never a secret: the app's key and the recovery codes' seed stay in allauth's rows), and
removing it, when the account closes or staff remove a player's lost authenticator. Turning
it on and off is allauth's own pages (/accounts/2fa/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from fivex_site.mfa_secrets import (
    SecretStoredPlain,
    SecretUnreadable,
    data_current,
    data_encrypted,
    is_encrypted,
    secret_encrypt,
    secret_reencrypt,
)


def two_factor_state(*, user: Any) -> dict[str, Any]:
    """Whether ``user`` has two-factor authentication on and which kinds, when the
    authenticator app was added and last used, the passkeys and security keys (name, kind,
    added, last used: never a credential), how many recovery codes are left unused, and how
    long a trusted browser stays trusted (one query). Nothing in it lets anyone make a
    code or use a key."""
    from allauth.mfa import app_settings
    from allauth.mfa.models import Authenticator

    from fivex_site.account_export import when

    all_rows = list(Authenticator.objects.filter(user_id=user.pk).order_by("pk"))
    rows = {row.type: row for row in all_rows}
    keys = [row for row in all_rows if row.type == Authenticator.Type.WEBAUTHN]
    app = rows.get(Authenticator.Type.TOTP)
    codes = rows.get(Authenticator.Type.RECOVERY_CODES)
    unused = None
    if codes is not None:
        try:
            unused = len(codes.wrap().get_unused_codes())
        except SecretUnreadable:  # the key it was written with is gone: said as unknown
            unused = None
    return {
        "enabled": app is not None or bool(keys),
        "kinds": [kind for kind in ("totp", "webauthn", "recovery_codes") if kind in rows],
        "authenticator_app": {
            "exists": app is not None,
            "created": when(app.created_at if app else None),
            "last_used": when(app.last_used_at if app else None),
        },
        "passkeys": [
            {
                "name": key.wrap().name,
                "kind": {True: "passkey", False: "security_key"}.get(
                    key.wrap().is_passwordless, "unknown"
                ),
                "created": when(key.created_at),
                "last_used": when(key.last_used_at),
            }
            for key in keys
        ],
        # A browser trusted at the log-in keeps a signed note in its own cookie (allauth's
        # MFA_TRUST_ENABLED): the site keeps no list of them.
        "trusted_browsers": {
            "kept_by_the_site": False,
            "days": app_settings.TRUST_COOKIE_AGE.days,
        },
        "recovery_codes": {
            "exists": codes is not None,
            "unused": unused,
            "last_used": when(codes.last_used_at if codes else None),
        },
    }


def two_factor_remove(*, user: Any) -> int:
    """Remove every authenticator of ``user`` (the app, the passkeys and security keys, the
    recovery codes): the log-in asks for the password only from now on, and every browser
    trusted at a log-in is trusted no more (allauth's trust covers the authenticators).
    Returns how many rows went."""
    from allauth.mfa.models import Authenticator

    deleted, _ = Authenticator.objects.filter(user_id=user.pk).delete()
    return deleted


def recovery_codes_drop_dangling(*, user_ids: Any) -> int:
    """The recovery codes of those of ``user_ids`` who have no authenticator app left, as
    allauth drops them when a player turns the app off: left alone they would still count
    as two-factor authentication being on (allauth then refuses to add an email address)
    though the log-in no longer asks for a code. Returns how many rows went."""
    from allauth.mfa.models import Authenticator

    with transaction.atomic():
        with_app = Authenticator.objects.filter(user_id__in=user_ids).exclude(
            type=Authenticator.Type.RECOVERY_CODES
        )
        deleted, _ = (
            Authenticator.objects.filter(
                user_id__in=user_ids, type=Authenticator.Type.RECOVERY_CODES
            )
            .exclude(user_id__in=with_app.values("user_id"))
            .delete()
        )
    return deleted


#: Tries of one row's rewrite when the row changed between its read and its write.
REENCRYPT_TRIES = 3


@dataclass
class Reencrypted:
    """What ``two_factor_secrets_reencrypt`` did: rows written under the current key, rows
    no key opens (left as they are), rows holding a secret stored unencrypted (left as they
    are unless told otherwise), and rows found still under an old key at the end (a
    player's log-in wrote its copy of the row back meanwhile: run it again)."""

    rewritten: int = 0
    unreadable: int = 0
    plain: int = 0
    still_old: int = 0


def two_factor_secrets_reencrypt(*, encrypt_plain: bool = False) -> Reencrypted:
    """Every stored two-factor secret written again under the current ``SECRET_KEY`` (after
    a rotation, read with a key of ``SECRET_KEY_FALLBACKS``), so that the old key can then
    be dropped. A secret no key opens is left as it is (staff remove that authenticator),
    and so is one stored unencrypted (none the site wrote: ``fivex_site.mfa_secrets``)
    unless ``encrypt_plain`` (the operator's own). Safe to run twice, and while players
    log in.

    Each row is written only as it was read (compare and set on the whole ``data``): a
    recovery code used meanwhile (allauth writes the row's ``used_mask``) is never undone;
    the row is read again and tried again. allauth may also have read a row before it was
    rewritten and write its copy back after, with the old key's ciphertext: so at the end
    the rows are checked again, and those still under an old key are counted."""
    from allauth.mfa.models import Authenticator

    done = Reencrypted()
    kinds = [Authenticator.Type.TOTP, Authenticator.Type.RECOVERY_CODES]
    rows = Authenticator.objects.filter(type__in=kinds)
    unreadable: set[int] = set()
    plain: set[int] = set()

    def reencrypt(stored: str) -> str:
        if not is_encrypted(stored):
            if not encrypt_plain:
                raise SecretStoredPlain  # counted, said by the command (not logged per row)
            return secret_encrypt(stored)
        return secret_reencrypt(stored)

    for pk in rows.order_by("pk").values_list("pk", flat=True):
        for _ in range(REENCRYPT_TRIES):
            old = Authenticator.objects.filter(pk=pk).values_list("data", flat=True).first()
            if old is None:
                break
            try:
                data, _ = data_encrypted(old, convert=reencrypt)
            except SecretStoredPlain:
                plain.add(pk)
                break
            except SecretUnreadable:
                unreadable.add(pk)
                break
            if Authenticator.objects.filter(pk=pk, data=old).update(data=data):
                done.rewritten += 1
                break
    done.unreadable, done.plain = len(unreadable), len(plain)
    for data in rows.exclude(pk__in=unreadable | plain).values_list("data", flat=True):
        done.still_old += not data_current(data)
    return done
