"""allauth's "trust this browser" (``MFA_TRUST_ENABLED``) through a ``SECRET_KEY`` rotation.

allauth keeps the trust as a signed note in the browser's cookie: the signature is checked
with ``SECRET_KEY`` and ``SECRET_KEY_FALLBACKS``, but the note's fingerprint of the
account's security setup (its id, password hash, authenticators and the recovery codes'
seed) is an HMAC under ``SECRET_KEY`` alone, over the seed as stored: here its ciphertext
(``fivex_site.mfa_secrets``). So a rotation asked every trusted browser for the code again,
and so did ``mfa_secrets_reencrypt`` (a new ciphertext of the same seed).

Here the fingerprint is made over the seed as decrypted, and a note is taken when its
fingerprint is the account's under ``SECRET_KEY`` or a key of ``SECRET_KEY_FALLBACKS``,
over the decrypted seed or the stored one (notes written before this module). Whatever
voided a note still does: a new password, an authenticator added or removed, new
recovery codes; and a key dropped from the fallbacks voids the notes it signed.

allauth offers no hook for this: ``install()`` replaces the two functions of
``allauth.mfa.internal.flows.trust`` that its stages and views call through the module
(allauth pinned below 66 in pyproject.toml; the tests in test_two_factor_trust.py fail
should a new version call them otherwise)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.crypto import salted_hmac

SALT = "allauth.mfa.trust"  # allauth's: notes written by allauth's own code stay valid


def _setups(user: Any) -> list[str]:
    """The account's security setup as allauth joins it: with the recovery codes' seed
    decrypted first, then (when it differs) as stored."""
    from allauth.mfa.models import Authenticator

    from fivex_site.mfa_secrets import SecretUnreadable, secret_decrypt

    decrypted, stored = [str(user.pk), user.password], [str(user.pk), user.password]
    for authenticator in Authenticator.objects.filter(user_id=user.pk).order_by("pk"):
        for parts in (decrypted, stored):
            parts.extend((str(authenticator.pk), str(authenticator.type)))
        seed = authenticator.data.get("seed")
        if seed is not None:
            stored.append(str(seed))
            try:
                decrypted.append(secret_decrypt(str(seed)))
            except SecretUnreadable:
                decrypted.append(str(seed))
    setups = ["|".join(decrypted)]
    if stored != decrypted:
        setups.append("|".join(stored))
    return setups


def config_fingerprint(user: Any) -> str:
    """The fingerprint a new note carries: under ``SECRET_KEY``, over the decrypted seed."""
    return salted_hmac(SALT, _setups(user)[0], algorithm="sha256").hexdigest()


def config_fingerprints(user: Any) -> set[str]:
    """Every fingerprint a note of ``user`` may carry and still be taken."""
    keys = (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))
    return {
        salted_hmac(SALT, setup, secret=key, algorithm="sha256").hexdigest()
        for setup in _setups(user)
        for key in keys
    }


def is_trusted_browser(request: Any, user: Any) -> bool:
    """allauth's ``is_trusted_browser``, taking any of ``config_fingerprints``."""
    from allauth.mfa import app_settings
    from allauth.mfa.internal.flows.trust import decode_trust_cookie

    if not app_settings._TRUST_STAGE_ENABLED:
        return False
    trusts = decode_trust_cookie(request)
    if not trusts:
        return False
    fingerprints = config_fingerprints(user)
    return any(trust.fingerprint in fingerprints for trust in trusts)


def install() -> None:
    """Put ``config_fingerprint`` and ``is_trusted_browser`` in allauth's place."""
    from allauth.mfa.internal.flows import trust

    for name in ("create_config_fingerprint", "is_trusted_browser", "decode_trust_cookie"):
        if not callable(getattr(trust, name, None)):  # allauth moved them: say so at start
            raise RuntimeError(f"allauth.mfa.internal.flows.trust.{name} is gone: see fivex_site/two_factor_trust.py")
    trust.create_config_fingerprint = config_fingerprint
    trust.is_trusted_browser = is_trusted_browser
