"""Tournament tables' games were created private (unlisted, invitation only); they are
watched from the tournament's pages, and private games are now shown only to their
players and organizer, so the existing ones become public."""

from django.db import migrations


def forwards(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    Game = apps.get_model("games", "Game")
    ids = Table.objects.exclude(game=None).values_list("game_id", flat=True)
    Game.objects.filter(pk__in=list(ids), is_private=True).update(is_private=False)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
        ("games", "0003_prompt_forced"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
