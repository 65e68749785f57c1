"""The Sessions page lists a log-in made at the admin's own login (/admin/login/, staff)
too, and "Log out the other sessions" ends it (review finding: allauth keeps only its own
log-ins, so a staff session opened at the admin's login was neither listed nor logged
out: a stolen one stayed, with the staff's tools)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

PASSWORD = "correct-horse-battery-7"


@pytest.mark.django_db
def test_an_admin_log_in_is_listed_and_logged_out_with_the_others() -> None:
    staff = get_user_model().objects.create_user("stella", "stella@example.com", PASSWORD)
    staff.is_staff = True
    staff.save()
    EmailAddress.objects.create(user=staff, email="stella@example.com", verified=True, primary=True)
    elsewhere = Client(HTTP_USER_AGENT="Stolen Chrome", REMOTE_ADDR="203.0.113.66")
    answer = elsewhere.post("/admin/login/", {"username": "stella", "password": PASSWORD})
    assert answer.status_code == 302
    assert elsewhere.get("/admin/").status_code == 200
    mine = Client(HTTP_USER_AGENT="Laptop Firefox", REMOTE_ADDR="198.51.100.1")
    answer = mine.post("/accounts/login/", {"login": "stella@example.com", "password": PASSWORD})
    assert answer.status_code == 302
    html = mine.get("/accounts/sessions/").content.decode()
    assert "Stolen Chrome" in html and "203.0.113.66" in html
    mine.post("/accounts/sessions/")
    assert elsewhere.get("/admin/").status_code == 302  # logged out: sent to the login
    assert mine.get("/accounts/sessions/").status_code == 200
