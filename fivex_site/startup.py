"""What a long-lived process (a web worker, a Celery worker) does once it has started:
load what Django would otherwise load at the first request, then keep everything
start-up made out of the garbage collector's passes.

A full collection walks every tracked object: the ~100,000 that Django, the apps and the
rules engines create at start-up cost it ~1 s of CPU on a slow machine, a pause in the
middle of whichever request or resolution triggers it, and again at exit. Those objects
live as long as the process, so they are moved to the collector's permanent generation
(``gc.freeze()``); what requests and tasks create is collected as before.
"""

from __future__ import annotations

import gc


def warm_up() -> None:
    """Import what the first request or resolution would: the URLconf, every view it
    names and the rules engines."""
    from django.urls import get_resolver

    import engine

    get_resolver().url_patterns  # noqa: B018 (imports the URLconf's modules)
    engine.rulesets()


def freeze_start_up_objects() -> None:
    """Collect start-up's garbage, then keep what is left out of later collections."""
    gc.collect()
    gc.freeze()

