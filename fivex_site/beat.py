"""Celery beat's scheduler: Celery's own (the schedule kept in a shelve file,
``CELERY_BEAT_SCHEDULE_FILENAME``), quieter during a broker outage.

Celery logs each scheduled task it could not send as an ERROR with the exception's
traceback and the whole stack besides: a minute of a Redis outage wrote 26 of them (a
resilience audit), burying what else the log said. A task not sent because the broker is
unreachable is one warning line here; the sweeps it stands for run at their next time
(and catch up: every one of them is a sweep). Any other failure is still an ERROR with its
traceback, as Celery logs it. A beat that cannot reach the broker to connect (started
while Redis is away, or reconnecting) says so in one warning, again every ten minutes the
outage lasts, and once when the broker answers (Celery logged an ERROR every retry)."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery.beat import PersistentScheduler
from kombu.exceptions import OperationalError as BrokerUnreachable

logger = logging.getLogger("celery.beat")


def broker_unreachable(exc: BaseException | None) -> BaseException | None:
    """The connection error behind ``exc`` (kombu's ``OperationalError``, which it raises
    for a broker it cannot reach, or a socket's ``ConnectionError``), None if there is
    none. Celery re-raises a failed send as ``SchedulingError``, the cause as its context."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (BrokerUnreachable, ConnectionError)):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


class Scheduler(PersistentScheduler):
    """``PersistentScheduler`` whose failed sends to a broker away are one warning each."""

    # kombu's own back-off (2, 4, ... 30 s between tries; the tests shorten it)
    connect_retry: dict[str, float] = {"interval_start": 2, "interval_step": 2, "interval_max": 30}
    still_away_every = 600.0  # seconds between the warnings of one outage

    def _ensure_connected(self) -> Any:
        # Celery's, with its "Connection error ... Trying again" ERROR each retry made one
        # warning an outage (repeated every ``still_away_every`` seconds while it lasts).
        since: list[float] = []  # when the outage was first seen, then when last said

        def still_away(exc: BaseException, interval: float) -> None:
            now = time.monotonic()
            reason = " ".join(str(exc).split())
            if not since:
                since.extend((now, now))
                logger.warning(
                    "beat: the broker is unreachable: %s; trying again until it answers "
                    "(no task is sent meanwhile)", reason,
                )  # fmt: skip
            elif now - since[1] >= self.still_away_every:
                since[1] = now
                logger.warning("beat: the broker is still unreachable after %d s: %s", now - since[0], reason)
            else:
                logger.debug("beat: the broker is unreachable: %s; next try in %s s", reason, interval)

        connection = self.connection.ensure_connection(
            still_away, self.app.conf.broker_connection_max_retries, **self.connect_retry
        )
        if since:
            logger.warning("beat: the broker answers again after %d s", time.monotonic() - since[0])
        return connection

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        # Celery's apply_entry, but for the broker-away case.
        logger.info("Scheduler: Sending due task %s (%s)", entry.name, entry.task)
        try:
            result = self.apply_async(entry, producer=producer, advance=False)
        except Exception as exc:  # as Celery: one entry's failure must not stop the beat
            cause = broker_unreachable(exc)
            if cause is None:
                logger.error("Message Error: %s", exc, exc_info=True)
                return
            reason = " ".join(str(cause).split())  # one line
            logger.warning(
                "beat: %s (%s) not sent, the broker is unreachable: %s; it runs again at "
                "its next time", entry.name, entry.task, reason,
            )  # fmt: skip
            return
        logger.debug("%s sent. id->%s", entry.task, getattr(result, "id", None))
