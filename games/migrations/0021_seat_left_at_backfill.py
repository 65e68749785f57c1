"""Seats whose player left before ``left_at`` was recorded (a resignation, a handover):
the time comes from what the game kept. A seat handed over left when its successor's row
was made (the same transaction); a resigned seat when its ``seat_resigned`` entry was
logged. Seats with neither keep an empty ``left_at``."""

from django.db import migrations


def backfill(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    LogEntry = apps.get_model("games", "LogEntry")
    left = Seat.objects.filter(left_at__isnull=True, status__in=("replaced", "resigned"))
    for seat in left.order_by("game_id", "joined_at", "id").iterator():
        successor = None
        if seat.status == "replaced":
            successor = (
                Seat.objects.filter(game_id=seat.game_id, name=seat.name, joined_at__gte=seat.joined_at)
                .exclude(pk=seat.pk).order_by("joined_at", "id").values_list("joined_at", flat=True).first()
            )  # fmt: skip
        # Its own resignation: after it joined, before its successor did (a later holder
        # of the same seat may resign too).
        resigned = LogEntry.objects.filter(
            game_id=seat.game_id, kind="seat_resigned", payload__seat=seat.name, created_at__gte=seat.joined_at
        )
        if successor is not None:
            resigned = resigned.filter(created_at__lte=successor)
        when = resigned.order_by("seq").values_list("created_at", flat=True).first() or successor
        if when is not None:
            Seat.objects.filter(pk=seat.pk).update(left_at=when)


class Migration(migrations.Migration):
    dependencies = [("games", "0020_player_webhook")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
