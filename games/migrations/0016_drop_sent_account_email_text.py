"""Account emails already sent (before they were queued in the outbox, the ones the mail
server refused first) keep no text: it held one-time links (confirmation, password reset)."""

from django.db import migrations

DROPPED = "(An account email: its text, which held a one-time link, is not kept once it is sent.)"


def drop_texts(apps, schema_editor):  # noqa: ANN001, ANN201
    OutboxMessage = apps.get_model("games", "OutboxMessage")
    OutboxMessage.objects.filter(kind="account", status="sent").exclude(body=DROPPED).update(
        body=DROPPED, html=""
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0015_fk_indexes_covered")]

    operations = [migrations.RunPython(drop_texts, migrations.RunPython.noop)]
