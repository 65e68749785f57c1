"""A game whose every seat was a no-show is a double forfeit (``Table.scoreless``), now
set when its result is recorded; this sets it on the tables recorded before, by the rule of
``tournaments.selectors.silent_seats`` (written out here on the historical models): every
active seat was asked in a prompt that resolved and sent no order of its own."""

from django.db import migrations

PLAYER_SOURCES = ("web", "api", "email")  # SealedOrder.PLAYER_SOURCES


def silent_count(apps, game_id):
    Seat = apps.get_model("games", "Seat")
    Prompt = apps.get_model("games", "Prompt")
    SealedOrder = apps.get_model("games", "SealedOrder")
    seats = set(Seat.objects.filter(game_id=game_id, status="active").values_list("name", flat=True))
    if not seats:
        return 0
    asked = {
        name
        for pending in Prompt.objects.filter(game_id=game_id, status="resolved").values_list(
            "pending", flat=True
        )
        for name in pending or []
    }
    spoke = set(
        SealedOrder.objects.filter(prompt__game_id=game_id, source__in=PLAYER_SOURCES)
        .values_list("seat_name", flat=True)
        .distinct()
    )
    return len([name for name in seats if name in asked and name not in spoke])


def backfill(apps, schema_editor):
    Table = apps.get_model("tournaments", "Table")
    # Only a game's unrated tables can be one (a no-show's table is not rated).
    for table in Table.objects.filter(
        result_source="game", rated=False, scoreless=False, game__isnull=False
    ).only("pk", "game_id", "players"):
        if silent_count(apps, table.game_id) == len(table.players):
            Table.objects.filter(pk=table.pk).update(scoreless=True)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_table_scoreless"),
        ("games", "0021_seat_left_at_backfill"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
