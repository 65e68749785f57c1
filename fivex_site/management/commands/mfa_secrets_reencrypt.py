"""After a SECRET_KEY rotation (the old key in SECRET_KEY_FALLBACKS): write every stored
two-factor secret again under the new key, so that the old key can be dropped
(``fivex_site.two_factor.two_factor_secrets_reencrypt``). Safe to run twice, and while
players log in: a row a log-in wrote back under the old key meanwhile is counted at the
end, and the command then fails (exit status 1) asking to be run again."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Re-encrypt the two-factor secrets under the current SECRET_KEY (after a key rotation)."

    def handle(self, *args: object, **options: object) -> None:
        from fivex_site.deployment import refuse_for_a_command
        from fivex_site.two_factor import two_factor_secrets_reencrypt

        refuse_for_a_command("mfa_secrets_reencrypt")

        done = two_factor_secrets_reencrypt()
        self.stdout.write(f"{done.rewritten} two-factor secret row(s) written under the current SECRET_KEY.")
        if done.unreadable:
            self.stdout.write(
                f"{done.unreadable} row(s) could not be read with SECRET_KEY or SECRET_KEY_FALLBACKS "
                "and were left as they are: staff remove those authenticators (admin, "
                "Authenticators) and their players set two-factor authentication up again."
            )
        if done.still_old:
            raise CommandError(
                f"{done.still_old} row(s) are still under an old key (a player's log-in wrote "
                "its copy back meanwhile): run the command again before dropping the old key "
                "from SECRET_KEY_FALLBACKS."
            )
