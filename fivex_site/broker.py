"""The embedded broker: kombu's filesystem transport, with messages that appear whole.

kombu writes a message file in place, so a worker polling the folder can pick it up while it
is still empty and die on a JSONDecodeError. Here a message is written under a name no queue
matches and then renamed into place (atomic within one folder). ``fivex_site.celery`` makes
this the transport behind ``filesystem://`` URLs.
"""

import itertools
import logging
import os
import sys
import uuid
from time import monotonic, monotonic_ns

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

# Within one process, messages written in the same nanosecond still keep their order.
_sequence = itertools.count()


class Channel(filesystem.Channel):
    """A filesystem channel whose ``_put`` never exposes a half-written message."""

    def _put(self, queue: str, payload: dict, **kwargs: object) -> None:
        # kombu's reader takes files in sorted order and matches "<anything>.<queue>.msg".
        # Its own names use whole milliseconds, so two messages of one millisecond came
        # out in random (uuid) order; nanoseconds plus a per-process sequence keep FIFO.
        name = f"{monotonic_ns():020d}_{next(_sequence):010d}_{uuid.uuid4().hex}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f"partial-{uuid.uuid4().hex}.tmp")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


#: How often the folder is read for messages (kombu's default is once a second).
POLL_SECONDS = 0.2


def _worker_stopping() -> bool:
    """Whether this process is a Celery worker asked to stop (Ctrl-C, SIGTERM): the flags
    ``celery.worker.state.maybe_shutdown`` reads, checked the same way."""
    state = sys.modules.get("celery.worker.state")
    if state is None:
        return False
    return any(flag is not None and flag is not False
               for flag in (state.should_stop, state.should_terminate))  # fmt: skip


class Transport(filesystem.Transport):
    """kombu's filesystem transport with the atomic channel above, read every
    ``POLL_SECONDS``: a task is picked up within that, not a second later. A wait for
    messages ends early, as at its timeout, once the worker is asked to stop: Celery's
    loop for such transports waits 2 s at a time and looks for a shutdown only between
    waits, so Ctrl-C on ``make run`` took 2-3 s more (a task being run still finishes)."""

    Channel = Channel
    polling_interval = POLL_SECONDS

    def drain_events(self, connection: object, timeout: float | None = None) -> None:
        if timeout is None:
            return super().drain_events(connection, timeout=None)
        end = monotonic() + timeout
        while True:
            try:
                return super().drain_events(
                    connection, timeout=max(0.0, min(POLL_SECONDS, end - monotonic()))
                )
            except TimeoutError:  # socket.timeout
                if monotonic() >= end or _worker_stopping():
                    raise


class NoHostnameNoise(logging.Filter):
    """Drop kombu's "No hostname was supplied" warning for the embedded broker, whose
    ``filesystem://`` URL has no host by design (it was printed six times at every
    ``make run``). Any other broker URL keeps the warning. It reads the broker the settings
    chose (CELERY_BROKER_URL set but empty is the embedded broker there), not the variable."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith("No hostname was supplied"):
            return True
        from django.conf import settings

        return not settings.CELERY_BROKER_URL.startswith("filesystem:")
