"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fivex_site.settings")
# filesystem:// (the embedded broker) writes each message atomically: see fivex_site/broker.py.
TRANSPORT_ALIASES["filesystem"] = "fivex_site.broker:Transport"

app = Celery("fivex")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _database_connections_as_per_request(task=None, **kwargs) -> None:  # noqa: ANN001
    """Around each task do what Django does around each request: close the database
    connections that are broken or older than CONN_MAX_AGE (every one when it is 0), keep
    the others. (Celery's own Django fixup would close them all after every task, a new
    PostgreSQL connection per task; CELERY_DB_REUSE_MAX in the settings turns that off.)"""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()
