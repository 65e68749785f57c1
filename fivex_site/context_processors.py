"""Template context shared by every page."""

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse


def site(request: HttpRequest) -> dict[str, object]:
    """Names every layout needs: the environment, the public base URL and the address
    of the log-in and sign-up pages that come back to this page (a player opening a game's
    link from an email while signed out lands on the game, not the home page; a visitor
    signing up from a game's invitation page comes back to it)."""
    login = reverse("account_login")
    signup = reverse("account_signup")
    path = request.get_full_path() if request.method in ("GET", "HEAD") else ""
    if path and request.path_info not in ("/", "/404") and not request.path_info.startswith(
        "/accounts/"
    ):
        back = "?" + urlencode({"next": path})
        login += back
        signup += back
    return {
        "FIVEX_ENV": settings.FIVEX_ENV,
        "FIVEX_BASE_URL": settings.FIVEX_BASE_URL,
        "login_url": login,
        "signup_url": signup,
    }
