"""Query strings are as strict as bodies (a bad-input audit): an operation that takes no
query parameter refuses one, whatever its method."""

from __future__ import annotations

import re

import pytest

from games.models import SealedOrder
from tests.games.test_api_errors import assert_error, orders_url, table  # noqa: F401
from tests.games.web_support import make_user, token_client

pytestmark = pytest.mark.django_db

UNKNOWN = ["Unknown query parameter (this operation takes none)."]


def test_a_post_refuses_query_parameters_it_does_not_take(table):  # noqa: F811
    """Regression: a POST ignored its query string, a stale-prompt guard in it included
    (``orders/?prompt=2&bogus=1`` stored the order on prompt 1; ``extend/?extensions=0``
    extended again)."""
    game, clients = table
    answer = clients["ann"].post(
        orders_url(game) + "?prompt=2&bogus=1", {"text": "PASS GANDHI"}, format="json"
    )
    body = assert_error(answer, 400, "invalid", "unknown query parameter")
    assert body["fields"] == {"bogus": UNKNOWN, "prompt": UNKNOWN}
    assert not SealedOrder.objects.filter(prompt__game=game).exists()

    deadline = game.prompts.get(number=1).deadline
    extend = clients["ann"].post(
        f"/api/games/{game.pk}/extend/?prompt=1&extensions=0", {"hours": 1}, format="json"
    )
    assert_error(extend, 400, "invalid", "unknown query parameter")
    assert game.prompts.get(number=1).deadline == deadline
    # ?format=json is still taken, as on a GET.
    ordered = clients["ann"].post(orders_url(game) + "?format=json", {"text": "PASS GANDHI"}, format="json")
    assert ordered.status_code == 201, ordered.content


def test_every_operation_in_the_schema_refuses_an_unknown_query_parameter(table):  # noqa: F811
    """Regression: only the GETs checked their query string. Every operation, whatever its
    method, answers an unknown parameter with a 400 naming it, and the schema lists that
    400 for each."""
    game, clients = table
    client = clients["ann"]
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    values = {"game_id": game.pk, "position": 1, "offer_id": 1, "slug": "none", "pool": "none"}
    seen = 0
    for route, operations in paths.items():
        url = re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), route)
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            answer = getattr(client, method)(url + "?bogus=1", {}, format="json") if method != "get" \
                else client.get(url + "?bogus=1")  # fmt: skip
            assert answer.status_code == 400, (method, route, answer.status_code, answer.content)
            assert "bogus" in answer.json()["fields"], (method, route, answer.content)
            assert "400" in operation["responses"], (method, route)
            seen += 1
    assert seen >= 30
    # Anonymous callers of the public reads are refused alike.
    anonymous = token_client(make_user("anon"))
    anonymous.credentials()
    for url in ("/api/ping/", "/api/rulesets/", "/api/tournaments/none/"):
        assert anonymous.get(url + "?bogus=1").status_code == 400, url
