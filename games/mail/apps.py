from django.apps import AppConfig


class MailConfig(AppConfig):
    """The email gateway of the games room (inbound orders, replies)."""

    name = "games.mail"
    label = "mail"
    verbose_name = "Orders by email"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connect the anymail inbound signal receiver (webhook entry point).
        from games.mail import webhook  # noqa: F401
