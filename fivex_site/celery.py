"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fivex_site.settings")
# filesystem:// (the embedded broker) writes each message atomically: see fivex_site/broker.py.
TRANSPORT_ALIASES["filesystem"] = "fivex_site.broker:Transport"

app = Celery("fivex")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
