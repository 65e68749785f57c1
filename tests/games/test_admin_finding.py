"""Staff find a game's or a player's records in the admin (a staff-support audit: the
lists of prompts, sealed orders, log entries, emails and inbound mail could not be
narrowed to one game), without the lists' secrecy giving way: a list filters by its own
filters only, and nothing sealed is searchable."""

from __future__ import annotations

import pytest

from games.mail.models import InboundMail
from games.models import OutboxMessage, SealedOrder
from tests.games.core_support import start_fixed

pytestmark = pytest.mark.django_db

LISTS = ("games/prompt", "games/sealedorder", "games/logentry", "games/outboxmessage",
         "mail/inboundmail")  # fmt: skip


def _rows(answer) -> set[int]:  # noqa: ANN001
    assert answer.status_code == 200
    return {row.pk for row in answer.context["cl"].result_list}


def _games(capture):  # noqa: ANN001, ANN202
    """Two started games, each with an order, an email and an inbound message."""
    import engine
    from games.selectors import current_prompt, current_state
    from games.services.orders import order_submit

    out = []
    for names in (["ann", "bob", "cat"], ["dan", "eve", "fay"]):
        game, seats = start_fixed(names)
        prompt = current_prompt(game=game)
        name = next(n for n in prompt.pending if n not in prompt.forced)
        legal = engine.get(game.ruleset).legal_orders(current_state(game=game), name)
        with capture(execute=True):
            order_submit(seat=seats[name], text=legal[0], source="web")
        InboundMail.objects.create(
            raw=b"x", message_id=f"<{names[0]}@mail.example>", recipient_digest=names[0],
            sender=f"{names[0]}@example.com", seat=seats[names[0]],
        )  # fmt: skip
        out.append(game)
    return out


def test_the_lists_of_a_games_records_filter_by_the_game(admin_client, django_capture_on_commit_callbacks):
    one, two = _games(django_capture_on_commit_callbacks)
    models = {
        "games/prompt": lambda g: set(g.prompts.values_list("pk", flat=True)),
        "games/sealedorder": lambda g: set(
            SealedOrder.objects.filter(prompt__game=g).values_list("pk", flat=True)
        ),
        "games/logentry": lambda g: set(g.log.values_list("pk", flat=True)),
        "games/outboxmessage": lambda g: set(g.messages.values_list("pk", flat=True)),
        "mail/inboundmail": lambda g: set(
            InboundMail.objects.filter(seat__game=g).values_list("pk", flat=True)
        ),
    }
    for path, of in models.items():
        for game in (one, two):
            assert of(game), path
            shown = _rows(admin_client.get(f"/admin/{path}/?game={game.pk}&all="))
            assert shown == of(game), path
        assert _rows(admin_client.get(f"/admin/{path}/?game=999999")) == set(), path
        assert _rows(admin_client.get(f"/admin/{path}/?game=x")) == set(), path
        for odd in ("²", "9" * 30):  # a digit int() does not read; past the key (a 500)
            assert _rows(admin_client.get(f"/admin/{path}/", {"game": odd})) == set(), (path, odd)
        # The game's own fields are not reached through the filter.
        assert admin_client.get(f"/admin/{path}/?game={one.pk}&game__seed__gte=0").status_code == 400
    # The game's page links to its records.
    page = admin_client.get(f"/admin/games/game/{one.pk}/change/").content.decode()
    for path in LISTS:
        assert f'href="/admin/{path}/?game={one.pk}"' in page, path


def test_emails_and_inbound_mail_are_found_by_address_not_by_their_text(
    admin_client, django_capture_on_commit_callbacks
):
    one, _two = _games(django_capture_on_commit_callbacks)
    to_ann = set(OutboxMessage.objects.filter(to="ann@example.com").values_list("pk", flat=True))
    assert to_ann
    assert _rows(admin_client.get("/admin/games/outboxmessage/?q=ann@example.com")) == to_ann
    subject = OutboxMessage.objects.filter(game=one).first().subject
    assert _rows(admin_client.get("/admin/games/outboxmessage/", {"q": subject}))
    body_word = "orders+"  # in every game email's body (the reply address), never a subject
    assert _rows(admin_client.get("/admin/games/outboxmessage/", {"q": body_word})) == set()
    ann_mail = InboundMail.objects.get(sender="ann@example.com")
    assert _rows(admin_client.get("/admin/mail/inboundmail/?q=ann@example.com")) == {ann_mail.pk}
    assert _rows(admin_client.get("/admin/mail/inboundmail/", {"q": "<ann@mail.example>"})) == {
        ann_mail.pk
    }
    # Nothing sealed or secret is searched (a count of rows would tell it, as a filter did).
    secret = {"text", "salt", "parsed", "body", "html", "reply_to", "headers", "raw",
              "recipient_digest", "seed", "seed_salt", "setup", "invite_token", "mail_token",
              "payload", "events"}  # fmt: skip
    for path in (*LISTS, "games/game"):
        searched = admin_client.get(f"/admin/{path}/").context["cl"].search_fields
        assert not {field.split("__")[-1].lstrip("^=@") for field in searched} & secret, path
