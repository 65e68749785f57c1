"""The page *Account -> Your data* (``/account/data/``): what the download holds, and a
button that downloads it (``fivex_site.account_export``) as a JSON file."""

from __future__ import annotations

import json
import math

from django.contrib.auth.views import redirect_to_login
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from fivex_site.account_export import account_export
from fivex_site.account_export_api import AccountExportThrottle


def export_filename(*, user: object, day: str) -> str:
    """The downloaded file's name: ``fivex-data-<player>-<YYYY-MM-DD>.json`` (the player
    name in ASCII letters, the account's id when none are left)."""
    name = slugify(getattr(user, "username", "")) or f"account-{getattr(user, 'pk', '')}"
    return f"fivex-data-{name}-{day}.json"


def _over_rate(request: HttpRequest) -> str:
    """"" while under ``API_ACCOUNT_EXPORT_RATE`` (this download counted, the API's too),
    else what to tell the player."""
    throttle = AccountExportThrottle()
    if throttle.allow_request(request, None):
        return ""
    minutes = max(1, math.ceil((throttle.wait() or 60) / 60))
    return (
        f"You downloaded your data {throttle.num_requests} times lately, the most allowed: "
        f"try again in {minutes} minute{'s' if minutes != 1 else ''}."
    )


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def account_data_page(request: HttpRequest) -> HttpResponse:
    """GET: what the download holds and what it leaves out. POST: the download itself,
    one JSON file (``Content-Disposition: attachment``, never cached)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    error, status = "", 200
    if request.method == "POST":
        error = _over_rate(request)
        if not error:
            data = account_export(user=request.user)
            response = HttpResponse(
                json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
                content_type="application/json; charset=utf-8",
            )
            day = timezone.now().date().isoformat()
            response["Content-Disposition"] = (
                f'attachment; filename="{export_filename(user=request.user, day=day)}"'
            )
            return response
        status = 429
    return render(request, "account/data.html", {"error": error}, status=status)
