"""Celery: an embedded filesystem broker by default, Redis (or any kombu URL) from CELERY_BROKER_URL.

- Nothing set: kombu's filesystem transport in var/celery/ (override the folder with
  CELERY_FILESYSTEM_BROKER_DIR). A real worker process and beat use it; it needs no server but
  only works on one machine. Results go to files in var/celery/results.
- CELERY_BROKER_URL=redis://host:6379/0: Redis is the broker and, unless CELERY_RESULT_BACKEND
  says otherwise, the result backend too. Use this for several workers on several machines.
- amqp:// (RabbitMQ) also works; results then use the rpc:// backend.

Tasks are enqueued only after the surrounding transaction commits::

    transaction.on_commit(lambda: resolve_prompt.delay(game.id, prompt.number))

so a worker never looks for a row that is not committed yet (or was rolled back).
"""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .base import IS_PRODUCTION, VAR_DIR, env

_broker = env.str("CELERY_BROKER_URL", default="").strip()
if IS_PRODUCTION and not _broker:
    raise ImproperlyConfigured(
        "FIVEX_ENV=production needs CELERY_BROKER_URL (e.g. redis://redis:6379/0): without it "
        "each machine would queue its tasks in files of its own (var/celery). One machine "
        "with the embedded broker anyway: CELERY_BROKER_URL=filesystem://."
    )
if _broker and "://" not in _broker:
    # "redis//host:6379/0" passed `check`, and the worker then tried amqp://guest@redis%2F%2F...
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL {_broker!r} is not a URL: redis://host:6379/0, amqp://user:pw@host//, "
        "or filesystem:// (the embedded broker)."
    )
CELERY_BROKER_URL = _broker or "filesystem://"
# False: the embedded broker by default, not named (fivex_site/deployment.py).
FIVEX_BROKER_URL_SET = bool(_broker)
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}

if CELERY_BROKER_URL.startswith("filesystem:"):
    FIVEX_FILESYSTEM_BROKER_DIR = Path(
        env.str("CELERY_FILESYSTEM_BROKER_DIR", default=str(VAR_DIR / "celery"))
    )
    _queue_dir = FIVEX_FILESYSTEM_BROKER_DIR / "queue"
    _control_dir = FIVEX_FILESYSTEM_BROKER_DIR / "control"
    _results_dir = FIVEX_FILESYSTEM_BROKER_DIR / "results"
    for _folder in (_queue_dir, _control_dir, _results_dir):
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # One folder for both directions: publishers and the worker meet there.
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "control_folder": str(_control_dir),
        "polling_interval": 0.2,
    }
    _default_result_backend = f"file://{_results_dir}"
elif CELERY_BROKER_URL.startswith(("redis:", "rediss:")):
    _default_result_backend = CELERY_BROKER_URL
    # A Redis that takes the connection but never answers (a failover, a half-open
    # connection) held a request that queued a task for ever (an operations audit: an
    # order request gave up after 190 s): a command waits BROKER_SOCKET_TIMEOUT at most
    # (workers' BRPOP polls return within a second).
    _socket_timeout = env.float("BROKER_SOCKET_TIMEOUT", default=5.0)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_timeout": _socket_timeout,
        "socket_connect_timeout": _socket_timeout,
    }
elif CELERY_BROKER_URL.startswith(("amqp:", "pyamqp:")):
    _default_result_backend = "rpc://"
else:
    _default_result_backend = ""

CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=_default_result_backend) or None
# The same bound for a Redis result backend (the few tasks whose answer is read).
CELERY_REDIS_SOCKET_TIMEOUT = env.float("BROKER_SOCKET_TIMEOUT", default=5.0)
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = CELERY_REDIS_SOCKET_TIMEOUT
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
# Resolving a prompt never waits behind mail: it has a queue of its own, and so does mail.
# A worker must consume all of FIVEX_CELERY_QUEUES (``celery worker -Q celery,resolution,mail``;
# ``runall`` does). With a private default queue the other two are private too.
_derived = CELERY_TASK_DEFAULT_QUEUE != "celery"
FIVEX_RESOLUTION_QUEUE = env.str(
    "CELERY_RESOLUTION_QUEUE",
    default=f"{CELERY_TASK_DEFAULT_QUEUE}.resolution" if _derived else "resolution",
)
FIVEX_MAIL_QUEUE = env.str(
    "CELERY_MAIL_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}.mail" if _derived else "mail"
)
FIVEX_CELERY_QUEUES = [CELERY_TASK_DEFAULT_QUEUE, FIVEX_RESOLUTION_QUEUE, FIVEX_MAIL_QUEUE]
CELERY_TASK_ROUTES = {
    "games.tasks.resolve_prompt": {"queue": FIVEX_RESOLUTION_QUEUE},
    "games.tasks.resolve_overdue_prompt": {"queue": FIVEX_RESOLUTION_QUEUE},
    "games.tasks.send_outbox_message": {"queue": FIVEX_MAIL_QUEUE},
    "games.tasks.send_outbox_batch": {"queue": FIVEX_MAIL_QUEUE},
    "games.tasks.send_outbox": {"queue": FIVEX_MAIL_QUEUE},
    # Players' webhooks wait on other people's servers (5 s at most), as mail does.
    "games.tasks.send_webhook": {"queue": FIVEX_MAIL_QUEUE},
    "games.tasks.send_webhooks": {"queue": FIVEX_MAIL_QUEUE},
    # Reading an inbound message (up to MAIL_TASK_SOFT_TIME_LIMIT) never delays the
    # deadline sweep and the reminders on the default queue.
    "games.mail.tasks.process_inbound_mail": {"queue": FIVEX_MAIL_QUEUE},
}
CELERY_TASK_SERIALIZER = "json"
# Nothing reads the results of the game, mail and beat tasks: don't store them (a round
# trip to the result backend per task). Tasks whose answer is read ask for it
# (fivex_site.tasks.ping).
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# Every task is safe to run twice, so acknowledge after the work is done: a worker that dies
# mid-task leaves the message for another one.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Database connections in workers live as in the web server (CONN_MAX_AGE, health checks;
# see fivex_site/celery.py): Celery's fixup only recycles them every this many tasks.
CELERY_DB_REUSE_MAX = 1000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker is away keeps trying (2 s, 4 s, ... then every 30 s) however long
# the outage: Celery's default gave up after 100 tries (about 46 minutes, counted across
# the worker's life) and the worker then exited with status 0, which a supervisor
# restarting "on failure" does not restart (a resilience audit).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# What a task prints (the development email backend's messages) is logged at INFO, not as
# a warning.
CELERY_WORKER_REDIRECT_STDOUTS_LEVEL = "INFO"

# Celery beat: run exactly one beat process per installation. Celery's scheduler, logging a
# task it cannot send while the broker is away as one warning, not an ERROR with tracebacks.
CELERY_BEAT_SCHEDULER = "fivex_site.beat:Scheduler"
CELERY_BEAT_SCHEDULE_FILENAME = env.str(
    "CELERY_BEAT_SCHEDULE_FILENAME", default=str(VAR_DIR / "celerybeat-schedule")
)
# Queued as soon as a game ends (games.services.queueing.enqueue_game_over_tasks), so a
# tournament table's result, the ratings and the round's end follow within seconds rather
# than at the beat's next minute: tasks by dotted path (each also its Celery name).
FIVEX_GAME_OVER_TASKS = ["tournaments.tasks.collect_results"]
CELERY_BEAT_SCHEDULE = {
    "enforce-deadlines": {"task": "games.tasks.enforce_deadlines", "schedule": 60.0},
    "send-reminders": {"task": "games.tasks.send_reminders", "schedule": 300.0},
    # The players' daily summaries, each at the hour its player chose (in its time zone).
    "send-turn-summaries": {"task": "games.tasks.send_turn_summaries", "schedule": 300.0},
    "send-outbox": {"task": "games.tasks.send_outbox", "schedule": 60.0},
    "send-webhooks": {"task": "games.tasks.send_webhooks", "schedule": 60.0},
    "tournament-results": {"task": "tournaments.tasks.collect_results", "schedule": 60.0},
    "expire-seat-offers": {"task": "games.tasks.expire_seat_offers", "schedule": 3600.0},
    # Expired log-in sessions (Django keeps them until cleared) and their Sessions page rows.
    "sessions-prune": {"task": "games.tasks.prune_sessions", "schedule": 24 * 3600.0},
}
