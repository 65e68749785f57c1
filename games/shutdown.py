"""Work a SIGTERM must not cut in two: handing an email to the mail server and recording
that it was taken.

A Celery pool process answers SIGTERM by exiting at once, from wherever it is (billiard's
handler raises SystemExit), and a service manager that signals the whole process group
(systemd's default, ``KillMode=control-group``; a container's init; ``kill -- -PGID``)
reaches it in the middle of its task: an email the server had just taken stayed queued,
its row's transaction rolled back, and the next sweep sent it again. Inside
``sigterm_deferred()`` the signal is noted and handed to the process's own handling as
soon as the block is over, the email recorded: a pool process then exits, the rest of its
task left (the task comes back to the queue, the sweep sends what it had not); a worker's
main process (the solo pool) starts its warm shutdown a moment later than it would have.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_deferring = False


@contextmanager
def sigterm_deferred() -> Iterator[None]:
    """Hold a SIGTERM until the block is over, then raise it again for the handler (or
    the default action) it was meant for. Nested blocks: the outermost decides. Only in
    the main thread (where Python runs signal handlers); an ignored SIGTERM stays so."""
    global _deferring
    if _deferring or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous in (signal.SIG_IGN, None):
        yield
        return
    received: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    _deferring = True
    try:
        yield
    finally:
        _deferring = False
        signal.signal(signal.SIGTERM, previous)
        if received:
            signal.raise_signal(signal.SIGTERM)
