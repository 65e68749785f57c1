"""The order POST's hand-written parts answer exactly what the DRF code they replace
answers: the receipt (``payloads.submitted_receipt_data``) and the model instances of
hand-written reads (``games.sql.instance``, its per-column conversions cached per
process)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from rest_framework.renderers import JSONRenderer

from games.api import serializers as s
from games.api.payloads import receipt, submitted_receipt_data
from games.models import SealedOrder
from tests.games.core_support import start_fixed
from tests.games.web_support import token_client

NAMES = ["ann", "bob", "cat", "dan", "eve"]


def rendered(data) -> bytes:
    return JSONRenderer().render(data)


RECEIPTS = [
    {"commitment": "a" * 64, "prompt": 3, "submitted_at": datetime(2026, 11, 27, 9, 5, 1, 123456, UTC),
     "text": "PLAY ELIZABETH", "source": "api", "understood_as": ""},
    {"commitment": "b" * 64, "prompt": 12, "submitted_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
     "text": "allocate explore\nexpand", "source": SealedOrder.Source.WEB,
     "understood_as": "ALLOCATE EXPLORE EXPAND"},
    # Another zone (written in UTC as everywhere), a moment already as text, a default.
    {"commitment": "c" * 64, "prompt": 1,
     "submitted_at": datetime(2026, 6, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))),
     "text": "PASS", "source": SealedOrder.Source.DEFAULT, "understood_as": "Pass"},
    {"commitment": "d" * 64, "prompt": 7, "submitted_at": "2026-11-27T10:00:00+00:00",
     "text": "BID 3 ÉTÉ ✓", "source": "forced", "understood_as": None},
]  # fmt: skip


@pytest.mark.parametrize("payload", RECEIPTS)
def test_submitted_receipt_data_is_the_serializers_answer(payload) -> None:
    expected = s.SubmittedReceiptSerializer(payload).data
    mine = submitted_receipt_data(payload)
    assert list(mine.items()) == list(expected.items())  # keys in the same order too
    assert [type(v) for v in mine.values()] == [type(v) for v in expected.values()]
    assert rendered(mine) == rendered(expected)


def test_submitted_receipt_data_has_every_field_of_the_serializer() -> None:
    """A field added to the serializer (the schema) must be added by hand too."""
    assert list(submitted_receipt_data(RECEIPTS[0])) == list(s.SubmittedReceiptSerializer().fields)


@pytest.mark.django_db
def test_order_post_answers_the_serializers_receipt() -> None:
    """201 for a new order, 200 for the same again: each body as the serializer wrote it."""
    from games.order_presentation import order_reading
    from games.selectors import legal_orders

    game, seats = start_fixed(NAMES)
    seat = next(seat for seat in seats.values() if legal_orders(seat=seat))
    client = token_client(seat.user)
    legal = legal_orders(seat=seat)
    for text, code in ((legal[0].lower() + "  ", 201), (legal[0].lower(), 200)):
        answer = client.post(f"/api/games/{game.pk}/orders/", {"text": text}, format="json")
        assert answer.status_code == code, answer.content
        order = SealedOrder.objects.select_related("prompt", "seat__game").get(
            seat=seat, is_current=True
        )
        understood = order_reading(text=order.text, legal_orders=[], parsed=order.parsed,
                                   ruleset=game.ruleset)  # fmt: skip
        expected = s.SubmittedReceiptSerializer({**receipt(order), "understood_as": understood}).data
        assert answer.content == rendered(expected)
        assert json.loads(answer.content)["understood_as"] == legal[0]


def test_instance_converts_each_column_list_by_its_own_fields() -> None:
    """The conversions are cached per (model, columns): two reads of one model with
    different columns (a JSON column, then a datetime, at the same place) each get their
    own; keyed by the model alone, the second read would get the first's."""
    from games.sql import instance

    moment = "2026-11-27T10:00:00+00:00"
    for _ in range(2):  # the second time from the cache
        parsed = instance(SealedOrder, ("id", "parsed"), (1, json.dumps({"play": moment})))
        assert parsed.parsed == {"play": moment}
        when = instance(SealedOrder, ("id", "submitted_at"), (1, moment))
        assert when.submitted_at == datetime(2026, 11, 27, 10, tzinfo=UTC)
        flag = instance(SealedOrder, ("id", "is_current"), (1, 1))
        assert flag.is_current is True
        text = instance(SealedOrder, ("id", "text"), (1, "1"))
        assert text.text == "1"
        nothing = instance(SealedOrder, ("id", "parsed", "submitted_at"), (2, None, None))
        assert (nothing.pk, nothing.parsed, nothing.submitted_at) == (2, None, None)
    with pytest.raises(ValueError):  # a row of another length is a bug, not a guess
        instance(SealedOrder, ("id", "text"), (1,))


@pytest.mark.django_db
def test_instance_is_what_the_orm_reads() -> None:
    """Every column of a game and of a prompt read by hand equals the ORM's (JSON,
    datetimes, booleans among them)."""
    from django.db import connection

    from games.models import Game, Prompt
    from games.sql import field_order, instance

    game, _seats = start_fixed(NAMES)
    for model, pk in ((Game, game.pk), (Prompt, Prompt.objects.filter(game=game).first().pk)):
        names = field_order(model, {f.attname for f in model._meta.concrete_fields})
        with connection.cursor() as cursor:
            columns = ", ".join(f.column for f in model._meta.concrete_fields)
            cursor.execute(f"SELECT {columns} FROM {model._meta.db_table} WHERE id = %s", [pk])
            row = cursor.fetchone()
        mine, orm = instance(model, names, row), model.objects.get(pk=pk)
        for name in names:
            assert getattr(mine, name) == getattr(orm, name), name
