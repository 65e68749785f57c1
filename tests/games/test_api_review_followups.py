"""A review of the session's API changes: a form's blank optional number, OPTIONS with a
query string, and bidi controls in validation errors."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from games.models import SealedOrder
from tests.games.core_support import start_fixed
from tests.games.web_support import token_client

pytestmark = pytest.mark.django_db

RLO = "\u202e"


def test_a_blank_optional_number_in_a_form_is_not_given() -> None:
    """The whole-number check refused "" (an HTML form's blank field, a script's empty
    variable): an order with ``prompt=`` answered 400 where it had been stored unguarded,
    as a JSON body without ``prompt`` is."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)
    legal = client.get(f"/api/games/{game.pk}/").json()["legal_orders"]
    form = "application/x-www-form-urlencoded"
    url = f"/api/games/{game.pk}/orders/"
    answer = client.post(url, urlencode({"text": legal[0], "prompt": ""}), content_type=form)
    assert answer.status_code == 201, answer.content
    stored = SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True)
    assert (stored.prompt.number, stored.text) == (1, legal[0])  # stored, for the open prompt
    answer = client.post(url, urlencode({"text": legal[1], "prompt": "1.0"}), content_type=form)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["error"] == "invalid" and "prompt" in body["fields"], body
    # Nothing changed: the order stored first is still the one.
    assert SealedOrder.objects.get(prompt__game=game, seat_name="ann", is_current=True).pk == stored.pk


def test_options_takes_the_query_string_of_the_request_it_describes() -> None:
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)
    for url in ("/api/games/?limit=1", f"/api/games/{game.pk}/orders/?prompt=1"):
        answer = client.options(url)
        assert answer.status_code == 200, (url, answer.content)
        assert "application/json" in answer.json()["renders"], url  # a description of it
    assert client.get("/api/games/?bogus=1").status_code == 400  # a GET still refuses it


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", f"/api/games/?{RLO}timil=1", None),
        ("get", f"/api/games/?status={RLO}evitca", None),
        ("post", "/api/games/", {"ruleset": f"{RLO}x5", "seats_count": 3}),
        ("post", "/api/games/", {f"{RLO}tpmorp": 1, "ruleset": "5x", "seats_count": 3}),
    ],
)
def test_validation_errors_quote_no_bidi_control(method, path, body) -> None:
    """The refusal quotes the client's key or value: without the override that would
    display the rest of the line reversed."""
    game, seats = start_fixed(["ann", "bob", "cat"])
    client = token_client(seats["ann"].user)
    if body is None:
        answer = client.get(path)
    else:
        answer = client.post(path, body, content_type="application/json")
    assert answer.status_code == 400, answer.content
    text = answer.content.decode()
    assert RLO not in text and "\\u202e" not in text.lower(), text
    assert answer.json()["error"] == "invalid"
