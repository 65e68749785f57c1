"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery
from celery.signals import (
    beat_init,
    celeryd_init,
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_ready,
)
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


@worker_ready.connect
@worker_process_init.connect
@beat_init.connect
def _start_up_objects_out_of_the_collector(**kwargs) -> None:  # noqa: ANN003
    """A worker that runs tasks itself (solo or threads pool: ``worker_ready``), each
    child of a prefork pool (``worker_process_init``) and the beat: see
    fivex_site/startup.py."""
    from fivex_site.startup import freeze_start_up_objects, warm_up

    warm_up()
    freeze_start_up_objects()


@celeryd_init.connect
def _worker_environment_named(**kwargs) -> None:  # noqa: ANN003
    """A worker given no FIVEX_ENV that would run on a development default refuses to
    start (fivex_site/deployment.py): before its banner, its pool, its broker."""
    from fivex_site.deployment import refuse_development_defaults

    refuse_development_defaults("worker")


@worker_ready.connect
def _worker_says_what_it_runs_on(**kwargs) -> None:  # noqa: ANN003
    from fivex_site.deployment import log_what_it_runs_on

    log_what_it_runs_on("worker")


@beat_init.connect
def _beat_environment_named(**kwargs) -> None:  # noqa: ANN003
    """The worker's check and line, for the beat."""
    from fivex_site.deployment import log_what_it_runs_on, refuse_development_defaults

    refuse_development_defaults("beat")
    log_what_it_runs_on("beat")
