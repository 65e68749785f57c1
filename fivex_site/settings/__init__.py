"""FiveX settings: one module per integration, each driven by environment variables.

Nothing set -> a development site on SQLite (var/db.sqlite3), an embedded filesystem
Celery broker (var/celery/) and console email. See README.md for every variable.
Each module imports what it needs from .base, so their order does not matter.
"""

from .accounts import *  # noqa: F401,F403
from .api import *  # noqa: F401,F403
from .base import *  # noqa: F401,F403
from .celery import *  # noqa: F401,F403
from .database import *  # noqa: F401,F403
from .email import *  # noqa: F401,F403
from .mail import *  # noqa: F401,F403
from .security import *  # noqa: F401,F403
from .webhooks import *  # noqa: F401,F403
