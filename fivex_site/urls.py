"""Site URLs: home, health, accounts, admin, API schema/docs, and each app's own URLs."""

import functools
import logging

from django.conf import settings
from django.contrib import admin
from django.http import HttpResponseBadRequest
from django.urls import URLPattern, include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView

from fivex_site import (
    account_close_views,
    account_export_api,
    account_export_views,
    passkey_login,
    views,
)
from fivex_site.converters import RowIdConverter
from fivex_site.forms import AdminLoginForm
from fivex_site.views import ApiDocsView
from tournaments import views as tournament_views

logger = logging.getLogger("games.mail")

# Before the rooms' URLs are included: they use <id:...>.
register_converter(RowIdConverter, "id")


def _payload_errors_are_400(view):  # noqa: ANN001, ANN202 - a view function
    """A webhook post the provider's parser cannot read (an empty or malformed body) is
    a 400, not a 500; a failure to store it (the database down) stays a 500, so the
    provider tries again later."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        try:
            return view(request, *args, **kwargs)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            logger.warning("inbound webhook %s: unreadable payload", request.path, exc_info=True)
            return HttpResponseBadRequest("Unreadable webhook payload.")

    return wrapped


def webhook_urls() -> list:
    """Inbound order mail webhooks (games.mail): in production only with the secret the
    provider must send (ANYMAIL_WEBHOOK_SECRET); without it anyone could post mail in."""
    if not (settings.ANYMAIL.get("WEBHOOK_SECRET") or not settings.IS_PRODUCTION):
        return []
    import anymail.urls

    patterns = [
        URLPattern(p.pattern, _payload_errors_are_400(p.callback), p.default_args, p.name)
        for p in anymail.urls.urlpatterns
    ]
    return [path("anymail/", include((patterns, "anymail")))]


# The admin's login counts failed attempts as the site's login does (allauth's limits).
admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # allauth's passkey log-in, its start limited per address (fivex_site.passkey_login).
    path("accounts/2fa/webauthn/login/", passkey_login.login_webauthn, name="mfa_login_webauthn"),
    path("accounts/", include("allauth.urls")),
    path("account/close/", account_close_views.account_close_page, name="account_close"),
    path("account/closed/", account_close_views.account_closed_page, name="account_closed"),
    path("account/data/", account_export_views.account_data_page, name="account_data"),
    path("admin/", admin.site.urls),
    *webhook_urls(),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        # GET and HEAD only: an OPTIONS request rendered the page's template without its
        # context (a 500).
        ApiDocsView.as_view(
            url_name="api-schema", template_name="api_docs.html", http_method_names=["get", "head"]
        ),
        name="api-docs",
    ),
    path("", include("games.urls")),
    # A player's data: before the games' API (and served without its slash, as its routes are).
    path(
        "api/account/export/",
        account_export_api.AccountExportView.as_view(),
        name="api_account_export",
    ),
    path("api/account/export", account_export_api.AccountExportView.as_view()),
    path("api/", include("games.api.urls")),
    path("api/", include("tournaments.api_urls")),
    path("tournaments/", include("tournaments.urls")),
    path("ratings/", tournament_views.ratings, name="ratings"),
    path("players/", tournament_views.players, name="players"),
    path("players/<str:name>/", tournament_views.player_profile, name="player_profile"),
    # <path:>: a pool named before names were checked may hold a slash.
    path("ratings/<path:pool>/", tournament_views.rating_pool, name="rating_pool"),
    # Anything else under /api/ is a JSON 404, DEBUG on or off (handler404 is skipped
    # when DEBUG is on).
    re_path(r"^api/", views.api_not_found),
]

handler400 = "fivex_site.views.bad_request"
handler404 = "fivex_site.views.not_found"
handler500 = "fivex_site.views.server_error"
