"""Account emails in tests: queued in the outbox by the web request, sent as a worker
sends them."""

from django.core import mail


def sent_account_mail() -> list:
    """Every account email queued so far sent by ``outbox_send`` (the worker's task),
    then Django's test outbox (``mail.outbox``): what reached the mail server."""
    from games.models import OutboxMessage
    from games.services.outbox_sending import outbox_send

    queued = OutboxMessage.objects.filter(kind="account", status="queued").order_by("pk")
    for pk in queued.values_list("pk", flat=True):
        assert outbox_send(message_id=pk)[0] == "sent"
    return mail.outbox
