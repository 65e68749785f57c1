"""The caller's calendar feed address over the API (GET/POST/DELETE /api/calendar/), as
the Calendar page sets it: shown once, renewed, turned off."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

import pytest
from django.test import Client
from icalendar import Calendar
from rest_framework.test import APIClient

from games.models import PlayerSettings
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db


def _feed_status(url: str) -> int:
    return Client().get(urlsplit(url).path).status_code  # no login, as a calendar app


def test_an_address_made_renewed_and_turned_off_over_the_api():
    ann = make_user("ann")
    api = token_client(ann)
    assert api.get("/api/calendar/").json() == {"active": False}
    made = api.post("/api/calendar/")
    assert made.status_code == 201
    body = made.json()
    assert body["active"] is True
    assert made["Cache-Control"] == "private, no-store"  # it holds the secret
    assert urlsplit(body["url"]).scheme in ("http", "https")
    assert body["webcal_url"] == "webcal://" + body["url"].split("://", 1)[1]
    token = urlsplit(body["url"]).path.rsplit("/", 1)[1].removesuffix(".ics")
    # Only the address's SHA-256 is kept; GET never shows the address again.
    assert PlayerSettings.objects.get(user=ann).calendar_digest == hashlib.sha256(
        token.encode()
    ).hexdigest()
    assert api.get("/api/calendar/").json() == {"active": True}
    feed = Client().get(urlsplit(body["url"]).path)
    assert feed.status_code == 200 and Calendar.from_ical(feed.content)["prodid"]
    renewed = api.post("/api/calendar/", {}, format="json").json()
    assert renewed["url"] != body["url"]
    assert _feed_status(body["url"]) == 404 and _feed_status(renewed["url"]) == 200
    assert api.delete("/api/calendar/").status_code == 204
    assert _feed_status(renewed["url"]) == 404
    assert api.get("/api/calendar/").json() == {"active": False}
    gone = api.delete("/api/calendar/")
    assert gone.status_code == 404
    assert gone.json() == {"error": "not_found", "message": "You have no calendar address to turn off."}


def test_bad_calls_change_nothing():
    ann = make_user("ann")
    api = token_client(ann)
    assert APIClient().get("/api/calendar/").status_code == 401
    assert APIClient().post("/api/calendar/").status_code == 401
    refused = api.post("/api/calendar/", {"url": "mine"}, format="json")
    assert refused.status_code == 400 and "url" in refused.json()["fields"]
    assert api.post("/api/calendar/", "{", content_type="application/json").status_code == 400
    assert api.get("/api/calendar/?active=1").status_code == 400
    assert api.put("/api/calendar/", {}, format="json").status_code == 405
    assert api.get("/api/calendar/").json() == {"active": False}
    assert not PlayerSettings.objects.filter(user=ann).exclude(calendar_digest="").exists()


def test_the_schema_documents_the_calendar_operations():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = schema["paths"]["/api/calendar/"]
    assert set(operations) >= {"get", "post", "delete"}
    assert set(operations["post"]["responses"]) >= {"201", "400", "401"}
    assert "404" in operations["delete"]["responses"]
    fields = schema["components"]["schemas"]["Calendar"]["properties"]
    assert set(fields) == {"active", "url", "webcal_url"}
