"""After a SECRET_KEY rotation (the old key in SECRET_KEY_FALLBACKS): write every stored
two-factor secret again under the new key, so that the old key can be dropped
(``fivex_site.two_factor.two_factor_secrets_reencrypt``). Safe to run twice, and while
players log in: a row a log-in wrote back under the old key meanwhile is counted at the
end, and the command then fails (exit status 1) asking to be run again."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Re-encrypt the two-factor secrets under the current SECRET_KEY (after a key rotation)."

    def add_arguments(self, parser) -> None:  # noqa: ANN001
        parser.add_argument(
            "--encrypt-plain", action="store_true",
            help="also encrypt secrets stored unencrypted (refused at the log-in until then): "
            "only when you know they are yours, e.g. a copy of the database made by hand",
        )  # fmt: skip

    def handle(self, *args: object, **options: object) -> None:
        from fivex_site.deployment import refuse_for_a_command
        from fivex_site.two_factor import two_factor_secrets_reencrypt

        refuse_for_a_command("mfa_secrets_reencrypt")

        done = two_factor_secrets_reencrypt(encrypt_plain=bool(options["encrypt_plain"]))
        self.stdout.write(f"{done.rewritten} two-factor secret row(s) written under the current SECRET_KEY.")
        if done.unreadable:
            self.stdout.write(
                f"{done.unreadable} row(s) could not be read with SECRET_KEY or SECRET_KEY_FALLBACKS "
                "and were left as they are: staff remove those authenticators (admin, "
                "Authenticators) and their players set two-factor authentication up again."
            )
        if done.plain:
            self.stdout.write(
                f"{done.plain} row(s) hold a two-factor secret stored unencrypted, which the "
                "site never writes (put in the table by hand, or by someone planting an "
                "authenticator key of their own), refused at the log-in, left as they are: "
                "if they are yours, run this again with --encrypt-plain; else staff remove "
                "those authenticators (admin, Authenticators) and check who can write the "
                "database."
            )
        if done.still_old:
            raise CommandError(
                f"{done.still_old} row(s) are still under an old key (a player's log-in wrote "
                "its copy back meanwhile): run the command again before dropping the old key "
                "from SECRET_KEY_FALLBACKS."
            )
