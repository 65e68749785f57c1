"""The site's public addresses: what emails, feeds, API answers and the account emails link
to. ``FIVEX_BASE_URL`` is the address of the site's root as players reach it (a path
included when the site is served under one, e.g. ``https://example.org/fivex``), whatever
Host header or script prefix the request or worker that writes the link has."""

from typing import Any

from django.conf import settings
from django.urls import get_script_prefix, reverse


def public_url(path: str) -> str:
    """``path`` (from the site's root, e.g. ``/games/3/``) at ``FIVEX_BASE_URL``."""
    return settings.FIVEX_BASE_URL.rstrip("/") + "/" + path.lstrip("/")


def site_path(path: str) -> str:
    """A path as ``reverse`` or ``request.path`` give it (the script prefix the site is
    served under first) made a path from the site's root: the prefix is part of
    ``FIVEX_BASE_URL`` already."""
    prefix = get_script_prefix()
    if prefix != "/" and path.startswith(prefix):
        return "/" + path[len(prefix) :]
    return path


def public_reverse(name: str, *args: Any, **kwargs: Any) -> str:
    """The public address of the named URL (``reverse(name, args=args, kwargs=kwargs)``)."""
    return public_url(site_path(reverse(name, args=args or None, kwargs=kwargs or None)))
