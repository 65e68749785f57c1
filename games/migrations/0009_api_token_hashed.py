"""API tokens are kept as their SHA-256 only (games.ApiToken). The tokens DRF's authtoken
app stored in clear (table authtoken_token, the app is no longer installed) carry over, so
programs keep working, and are then deleted from that table."""

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


OLD_TABLE = "authtoken_token"


def carry_over(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("games", "ApiToken")
    quoted = connection.ops.quote_name(OLD_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {quoted}")
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        token = ApiToken.objects.create(
            user_id=user_id, digest=hashlib.sha256(key.encode()).hexdigest(), prefix=key[:8]
        )
        ApiToken.objects.filter(pk=token.pk).update(created=created)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {quoted}")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_game_part_of'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(max_length=64, unique=True)),
                ('prefix', models.CharField(max_length=8)),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='api_token', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.RunPython(carry_over, migrations.RunPython.noop),
    ]
