"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    """Names every layout needs: the environment and the public base URL."""
    return {"FIVEX_ENV": settings.FIVEX_ENV, "FIVEX_BASE_URL": settings.FIVEX_BASE_URL}
