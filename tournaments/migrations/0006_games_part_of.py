"""Tournament games link back to their round's page (Game.part_of_*): the games that
already exist get the link their round would give them today."""

from django.db import migrations
from django.urls import reverse


def forwards(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    Game = apps.get_model("games", "Game")
    tables = Table.objects.exclude(game=None).select_related("round__tournament")
    for table in tables.iterator():
        tournament = table.round.tournament
        Game.objects.filter(pk=table.game_id, part_of_path="").update(
            part_of_label=f"{tournament.name}, round {table.round.number}"[:200],
            part_of_path=reverse("tournaments:round", args=[tournament.slug, table.round.number]),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_tiebreak_scale_size"),
        ("games", "0008_game_part_of"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
