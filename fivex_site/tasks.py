"""Site-level Celery tasks (the game tasks live in games.tasks)."""

import os

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import connection


@shared_task(name="fivex_site.tasks.ping", ignore_result=False)
def ping(token: str) -> dict[str, object]:
    """Answer with what the worker sees, so a caller can prove a real round trip.

    Returns the token, the worker's process id, the database it is connected to (and on
    PostgreSQL the server process of its connection) and whether a user named ``token``
    exists there (which shows it shares the caller's database).
    """
    backend_pid = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend_pid = cursor.fetchone()[0]
    return {
        "pong": token,
        "pid": os.getpid(),
        "database_backend_pid": backend_pid,
        "database_vendor": connection.vendor,
        "database_name": str(connection.settings_dict["NAME"]),
        "user_exists": get_user_model().objects.filter(username=token).exists(),
    }
