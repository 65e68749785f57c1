"""Two-factor secrets at rest (fivex_site.mfa_secrets through allauth's MFA adapter): the
authenticator app's key and the recovery codes' seed are stored encrypted under a key
derived from SECRET_KEY; the log-in still takes the app's codes, also after a key rotation
(the old key in SECRET_KEY_FALLBACKS, then the secrets re-encrypted under the new one); a
secret no key opens is said at the log-in (never a server error) and staff remove it; the
data migration encrypts the secrets written before, and decrypts them going back."""

from __future__ import annotations

import io
import json
import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.site.test_two_factor import (
    PASSWORD,
    WRONG_CODE,
    app_code,
    enter_code,
    log_in,
    player,
    signed_in,
    with_two_factor,
)

pytestmark = pytest.mark.django_db

OLD_KEY = "old-secret-key-" + "o" * 40
NEW_KEY = "new-secret-key-" + "n" * 40
UNREADABLE = "Your two-factor authentication cannot be checked"


@pytest.fixture
def old_key(settings):  # noqa: ANN201
    settings.SECRET_KEY = OLD_KEY
    settings.SECRET_KEY_FALLBACKS = []
    return settings


def _log_in_with_code(client, user, code: str):  # noqa: ANN001, ANN201
    first = log_in(client, user)
    assert first.status_code == 302 and first["Location"] == "/accounts/2fa/authenticate/"
    return enter_code(client, code)


def test_the_stored_secrets_are_not_the_plain_ones(client, old_key) -> None:
    ann = player()
    secret, codes = with_two_factor(ann)
    app = Authenticator.objects.get(user=ann, type="totp")
    stored = json.dumps(app.data)
    assert secret not in stored and secret.lower() not in stored
    assert app.data["secret"].startswith("fernet:")
    seed = Authenticator.objects.get(user=ann, type="recovery_codes").data["seed"]
    assert seed.startswith("fernet:") and len(seed) > 100  # not the 80 hex digits
    # Nothing in the database holds the key in clear (the column as PostgreSQL keeps it).
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM mfa_authenticator WHERE data::text LIKE %s", [f"%{secret}%"])
        assert cursor.fetchone()[0] == 0
    # Two players with the same kind of key get different ciphertexts (Fernet's IV).
    bob = player("bob")
    with_two_factor(bob)
    assert Authenticator.objects.get(user=bob, type="totp").data["secret"] != app.data["secret"]

    done = _log_in_with_code(client, ann, app_code(secret))
    assert done.status_code == 302 and signed_in(client)


def test_a_recovery_code_works_from_the_encrypted_seed(client, old_key) -> None:
    ann = player()
    _, codes = with_two_factor(ann)
    assert _log_in_with_code(client, ann, codes[0]).status_code == 302 and signed_in(client)


def test_after_a_key_rotation_the_codes_still_log_in(client, old_key) -> None:
    ann = player()
    secret, codes = with_two_factor(ann)
    before = Authenticator.objects.get(user=ann, type="totp").data["secret"]
    old_key.SECRET_KEY = NEW_KEY
    old_key.SECRET_KEY_FALLBACKS = [OLD_KEY]
    done = _log_in_with_code(client, ann, app_code(secret))
    assert done.status_code == 302 and signed_in(client)
    client.post("/accounts/logout/")

    # Re-encrypted under the new key, the old one can go.
    call_command("mfa_secrets_reencrypt", stdout=open("/dev/null", "w"))  # noqa: SIM115
    after = Authenticator.objects.get(user=ann, type="totp").data["secret"]
    assert after != before and after.startswith("fernet:")
    old_key.SECRET_KEY_FALLBACKS = []
    other = client.__class__()
    assert _log_in_with_code(other, ann, codes[1]).status_code == 302 and signed_in(other)
    # The app's code too: a later 30-second step's (the first one's was taken once).
    time.sleep(30 - time.time() % 30 + 0.2)
    third = client.__class__()
    done = _log_in_with_code(third, ann, app_code(secret))
    assert done.status_code == 302 and signed_in(third)


def test_a_secret_no_key_opens_is_said_at_the_log_in_and_staff_remove_it(client, admin_user, old_key) -> None:
    ann = player()
    secret, _ = with_two_factor(ann)
    old_key.SECRET_KEY = NEW_KEY  # the old key dropped without a fallback
    answer = _log_in_with_code(client, ann, app_code(secret))
    assert answer.status_code == 200
    html = answer.content.decode()
    assert UNREADABLE in html and "Ask the site&#x27;s staff to remove your authenticator" in html
    assert WRONG_CODE not in html
    assert not signed_in(client)

    # Signed in from before: the pages say it, no server error.
    mine = client.__class__()
    mine.force_login(ann)
    index = mine.get("/accounts/2fa/")
    assert index.status_code == 200
    assert "Its key can no longer be read on the site" in index.content.decode()
    assert "Your recovery codes can no longer be read" in index.content.decode()
    mine.post("/accounts/reauthenticate/", {"password": PASSWORD})
    codes_page = mine.get("/accounts/2fa/recovery-codes/")
    assert codes_page.status_code == 409
    assert "Two-factor authentication cannot be read" in codes_page.content.decode()
    # The data download says it is on, the count of unused codes unknown.
    from fivex_site.two_factor import two_factor_state

    state = two_factor_state(user=ann)
    assert state["enabled"] is True and state["recovery_codes"]["unused"] is None

    # Staff remove it (admin, Authenticators): the password alone logs in again.
    app = Authenticator.objects.get(user=ann, type="totp")
    admin_client = client.__class__()
    admin_client.force_login(admin_user)  # (signed in under the new key)
    assert admin_client.post(f"/admin/mfa/authenticator/{app.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not Authenticator.objects.filter(user=ann).exists()
    fresh = client.__class__()
    answer = fresh.post("/accounts/login/", {"login": ann.email, "password": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == "/" and signed_in(fresh)


@pytest.mark.django_db(transaction=True)
def test_the_migration_encrypts_plain_secrets_and_going_back_decrypts_them(old_key) -> None:
    from allauth.mfa.totp.internal.auth import generate_totp_secret
    from django.contrib.auth import get_user_model

    from fivex_site.mfa_secrets import secret_decrypt

    before, after = ("fivex_site", None), ("fivex_site", "0001_mfa_secrets_encrypted")
    user = get_user_model().objects.create_user(username="ann", email="ann@example.test", password="x")
    secret, seed = generate_totp_secret(), "ab" * 40
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([before])
        old = executor.loader.project_state([("mfa", "0003_authenticator_type_uniq")]).apps.get_model(
            "mfa", "Authenticator"
        )
        app = old.objects.create(user_id=user.pk, type="totp", data={"secret": secret})
        codes = old.objects.create(
            user_id=user.pk, type="recovery_codes",
            data={"seed": seed, "used_mask": 5, "migrated_codes": ["12345678"]},
        )  # fmt: skip
        executor = MigrationExecutor(connection)
        executor.migrate([after])
        new = executor.loader.project_state([after]).apps.get_model("mfa", "Authenticator")
        app_data, codes_data = new.objects.get(pk=app.pk).data, new.objects.get(pk=codes.pk).data
        assert app_data["secret"].startswith("fernet:") and secret not in json.dumps(app_data)
        assert secret_decrypt(app_data["secret"]) == secret
        assert secret_decrypt(codes_data["seed"]) == seed and codes_data["used_mask"] == 5
        assert [secret_decrypt(c) for c in codes_data["migrated_codes"]] == ["12345678"]
        executor = MigrationExecutor(connection)
        executor.migrate([before])
        assert old.objects.get(pk=app.pk).data == {"secret": secret}  # going back: plain again
        assert old.objects.get(pk=codes.pk).data["migrated_codes"] == ["12345678"]
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert secret_decrypt(Authenticator.objects.get(pk=app.pk).data["secret"]) == secret


def _under_key(stored: str, key: str) -> bool:
    """Whether ``stored`` opens with ``key`` alone (the cipher as the module documents it:
    Fernet keyed by HKDF-SHA256 of the key)."""
    from cryptography.fernet import InvalidToken

    from fivex_site.mfa_secrets import PREFIX, _fernet

    try:
        _fernet(key).decrypt(stored.removeprefix(PREFIX).encode("ascii"))
    except InvalidToken:
        return False
    return True


def _rotated(settings) -> None:  # noqa: ANN001
    settings.SECRET_KEY = NEW_KEY
    settings.SECRET_KEY_FALLBACKS = [OLD_KEY]


def test_a_row_written_back_under_the_old_key_while_the_rewrite_runs_is_reported(old_key) -> None:
    """allauth read the recovery codes' row before the command rewrote it and writes its
    copy back after (the codes' page seen for the first time: ``mark_as_viewed`` saves
    ``data`` as it read it, the seed still under the old key): the command must not end
    saying every row is under the new key; run again, it is."""
    from django.core.management.base import CommandError

    from fivex_site import two_factor

    ann, bob = player(), player("bob")
    _, codes = with_two_factor(ann)
    with_two_factor(bob)
    _rotated(old_key)
    ann_codes = Authenticator.objects.get(user=ann, type="recovery_codes")
    in_allauth = Authenticator.objects.get(pk=ann_codes.pk)  # read by the codes' page, before
    convert = two_factor.secret_reencrypt
    written_back = []

    def while_running(stored: str) -> str:
        now = Authenticator.objects.get(pk=ann_codes.pk).data["seed"]
        if not written_back and _under_key(now, NEW_KEY):  # ann's row done, others to go
            RecoveryCodes(in_allauth).mark_as_viewed()  # saves its old copy
            written_back.append(True)
        return convert(stored)

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(two_factor, "secret_reencrypt", while_running)
        with pytest.raises(CommandError) as failed:
            call_command("mfa_secrets_reencrypt", stdout=out)
    assert written_back
    said = out.getvalue() + str(failed.value)
    assert "1 row(s)" in said and "old key" in said and "run" in said and "again" in said
    assert not _under_key(Authenticator.objects.get(pk=ann_codes.pk).data["seed"], NEW_KEY)

    call_command("mfa_secrets_reencrypt", stdout=io.StringIO())  # again: no error now
    for row in Authenticator.objects.filter(user__in=[ann, bob]):
        for name in ("secret", "seed"):
            if name in row.data:
                assert _under_key(row.data[name], NEW_KEY), (row.type, name)
    rows = RecoveryCodes(Authenticator.objects.get(pk=ann_codes.pk))
    assert rows.did_view  # the page's change kept
    assert rows.validate_code(codes[0])


def test_the_rewrite_never_writes_over_a_row_changed_since_it_read_it(old_key) -> None:
    """A recovery code used between the command's read of the row and its write: the
    command writes only the row as it read it (compare and set), so the code stays used."""
    from fivex_site import two_factor

    ann = player()
    _, codes = with_two_factor(ann)
    _rotated(old_key)
    pk = Authenticator.objects.get(user=ann, type="recovery_codes").pk
    convert = two_factor.secret_reencrypt
    used = []

    def while_running(stored: str) -> str:
        if not used and stored == Authenticator.objects.get(pk=pk).data["seed"]:
            assert RecoveryCodes(Authenticator.objects.get(pk=pk)).validate_code(codes[0])
            used.append(True)
        return convert(stored)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(two_factor, "secret_reencrypt", while_running)
        call_command("mfa_secrets_reencrypt", stdout=io.StringIO())
    assert used
    row = Authenticator.objects.get(pk=pk)
    assert _under_key(row.data["seed"], NEW_KEY)
    assert not RecoveryCodes(row).validate_code(codes[0])  # still used


def test_a_secret_stored_unencrypted_is_refused_at_the_log_in_and_said_to_the_operator(
    client, old_key, caplog
) -> None:
    """Every secret is encrypted (the migration fivex_site 0001 did the old ones): one stored
    in clear is none the site wrote. Taken as it was, whoever could write the table (not
    knowing SECRET_KEY) planted an app key of their own and logged in with its codes.
    Refused as unreadable, logged as an error saying what to do;
    ``mfa_secrets_reencrypt`` counts it, and encrypts it only when told to."""
    import logging

    ann = player()
    _, codes = with_two_factor(ann)
    planted = "JBSWY3DPEHPK3PXP"  # the key of the writer's own authenticator app
    app = Authenticator.objects.get(user=ann, type="totp")
    app.data = {**app.data, "secret": planted}
    app.save(update_fields=["data"])
    with caplog.at_level(logging.ERROR, logger="fivex_site.mfa_secrets"):
        answer = _log_in_with_code(client, ann, app_code(planted))
    assert answer.status_code == 200 and UNREADABLE in answer.content.decode()
    assert not signed_in(client)
    [said] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "stored unencrypted" in said.getMessage()
    assert "mfa_secrets_reencrypt" in said.getMessage()
    assert planted not in said.getMessage()

    out = io.StringIO()
    call_command("mfa_secrets_reencrypt", stdout=out)
    assert "1 row(s) hold a two-factor secret stored unencrypted" in out.getvalue()
    assert Authenticator.objects.get(pk=app.pk).data["secret"] == planted  # left as it is
    # The operator's own (a copy of the database made by hand): encrypted when told so.
    call_command("mfa_secrets_reencrypt", "--encrypt-plain", stdout=io.StringIO())
    assert Authenticator.objects.get(pk=app.pk).data["secret"].startswith("fernet:")
    done = _log_in_with_code(client.__class__(), ann, app_code(planted))
    assert done.status_code == 302
