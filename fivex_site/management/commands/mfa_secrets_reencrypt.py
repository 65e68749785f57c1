"""After a SECRET_KEY rotation (the old key in SECRET_KEY_FALLBACKS): write every stored
two-factor secret again under the new key, so that the old key can be dropped
(``fivex_site.two_factor.two_factor_secrets_reencrypt``). Safe to run twice."""

from __future__ import annotations

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Re-encrypt the two-factor secrets under the current SECRET_KEY (after a key rotation)."

    def handle(self, *args: object, **options: object) -> None:
        from fivex_site.deployment import refuse_for_a_command
        from fivex_site.two_factor import two_factor_secrets_reencrypt

        refuse_for_a_command("mfa_secrets_reencrypt")

        rewritten, unreadable = two_factor_secrets_reencrypt()
        self.stdout.write(f"{rewritten} two-factor secret row(s) written under the current SECRET_KEY.")
        if unreadable:
            self.stdout.write(
                f"{unreadable} row(s) could not be read with SECRET_KEY or SECRET_KEY_FALLBACKS "
                "and were left as they are: staff remove those authenticators (admin, "
                "Authenticators) and their players set two-factor authentication up again."
            )
