"""Two-factor secrets written before encryption (the authenticator app's key, the recovery
codes' seed, in ``mfa.Authenticator.data``) encrypted under ``SECRET_KEY``
(``fivex_site.mfa_secrets``). Reversible: going back decrypts them again (a value no key
of SECRET_KEY or SECRET_KEY_FALLBACKS opens is left as it is: nothing can read it either
way, and staff remove that authenticator)."""

from django.db import migrations

from fivex_site.mfa_secrets import SecretUnreadable, data_encrypted, is_encrypted, secret_decrypt, secret_encrypt

KINDS = ("totp", "recovery_codes")


def _convert(apps, convert) -> None:  # noqa: ANN001
    authenticator = apps.get_model("mfa", "Authenticator")
    for row in authenticator.objects.filter(type__in=KINDS).only("pk", "data").iterator():
        data, changed = data_encrypted(row.data, convert=convert)
        if changed:
            authenticator.objects.filter(pk=row.pk).update(data=data)


def encrypt_plain(apps, schema_editor) -> None:  # noqa: ANN001
    _convert(apps, lambda value: value if is_encrypted(value) else secret_encrypt(value))


def decrypt_back(apps, schema_editor) -> None:  # noqa: ANN001
    def plain(value: str) -> str:
        try:
            return secret_decrypt(value, plain_ok=True)
        except SecretUnreadable:
            return value

    _convert(apps, plain)


class Migration(migrations.Migration):
    dependencies = [("mfa", "0003_authenticator_type_uniq")]

    operations = [migrations.RunPython(encrypt_plain, decrypt_back, elidable=False)]
