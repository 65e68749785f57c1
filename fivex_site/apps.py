from django.apps import AppConfig


class FivexSiteConfig(AppConfig):
    name = "fivex_site"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from fivex_site.middleware import session_seen_at_login

        # A log-in is its session's first "last seen" (allauth writes the row then): the
        # session's first pages write nothing more.
        user_logged_in.connect(session_seen_at_login, dispatch_uid="fivex_session_seen_at_login")

        from django.db.models.signals import pre_migrate

        from fivex_site.deployment import say_which_database_is_migrated

        pre_migrate.connect(say_which_database_is_migrated, dispatch_uid="fivex_which_database")

        from fivex_site.two_factor_trust import install

        # "Trust this browser" through a SECRET_KEY rotation (fivex_site/two_factor_trust.py).
        install()
