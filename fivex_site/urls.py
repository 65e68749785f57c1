"""Site URLs: home, health, accounts, admin, API schema/docs, and each app's own URLs."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from fivex_site import views
from fivex_site.converters import RowIdConverter

# Before the rooms' URLs are included: they use <id:...>.
register_converter(RowIdConverter, "id")


def webhook_urls() -> list:
    """Inbound order mail webhooks (games.mail): in production only with the secret the
    provider must send (ANYMAIL_WEBHOOK_SECRET); without it anyone could post mail in."""
    if settings.ANYMAIL.get("WEBHOOK_SECRET") or not settings.IS_PRODUCTION:
        return [path("anymail/", include("anymail.urls"))]
    return []


urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    *webhook_urls(),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="api-schema", template_name="api_docs.html"),
        name="api-docs",
    ),
    path("", include("games.urls")),
    path("api/", include("games.api.urls")),
    path("tournaments/", include("tournaments.urls")),
    # Anything else under /api/ is a JSON 404, DEBUG on or off (handler404 is skipped
    # when DEBUG is on).
    re_path(r"^api/", views.api_not_found),
]

handler404 = "fivex_site.views.not_found"
handler500 = "fivex_site.views.server_error"
