"""The embedded broker: kombu's filesystem transport, with messages that appear whole.

kombu writes a message file in place, so a worker polling the folder can pick it up while it
is still empty and die on a JSONDecodeError. Here a message is written under a name no queue
matches and then renamed into place (atomic within one folder). ``fivex_site.celery`` makes
this the transport behind ``filesystem://`` URLs.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    """A filesystem channel whose ``_put`` never exposes a half-written message."""

    def _put(self, queue: str, payload: dict, **kwargs: object) -> None:
        # Same naming as kombu (time-ordered, then "<queue>.msg") so its reader finds it.
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f"partial-{uuid.uuid4().hex}.tmp")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    """kombu's filesystem transport with the atomic channel above."""

    Channel = Channel
