"""A new visitor signs up in real Chromium and lands on their (empty) home page."""

import pytest
from django.contrib.auth import get_user_model


@pytest.mark.browser
def test_sign_up_in_the_browser(live_server, browser_page) -> None:
    page = browser_page
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Create an account").click()
    page.wait_for_url("**/accounts/signup/")
    page.fill("input[name=email]", "mia@example.com")
    page.fill("input[name=username]", "mia")
    page.fill("input[name=password1]", "correct-horse-battery-7")
    page.fill("input[name=password2]", "correct-horse-battery-7")
    page.locator(".account-card button[type=submit]").click()
    page.wait_for_url(live_server.url + "/")
    assert page.locator(".nav-account .who").inner_text() == "Signed in as mia"
    assert page.locator("h1").inner_text() == "Your games"
    assert get_user_model().objects.filter(email="mia@example.com", username="mia").exists()
    # The site stylesheet really loaded (the header is dark, not the browser default).
    background = page.evaluate(
        "getComputedStyle(document.querySelector('.site-header')).backgroundColor"
    )
    assert background == "rgb(21, 26, 38)"
