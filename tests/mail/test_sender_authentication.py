"""Orders only from the player's own address, verified: the receiving server's
Authentication-Results header (MAIL_AUTHSERV_ID) must show a DKIM, SPF or DMARC pass
for the From: domain; a header from anyone else counts for nothing."""

from __future__ import annotations

import pytest

from games.mail import authresults
from games.mail.processing import process_message
from games.models import OutboxMessage, SealedOrder
from tests.mail.conftest import eml, make_table

# The recorded message's own header (plain.eml): a DKIM pass for example.net and an SPF
# pass for example.net, written by mail.orders.example.
RECORDED = (
    b"Authentication-Results: mail.orders.example;\r\n"
    b"\tdkim=pass header.d=example.net header.s=s1 header.b=AbCdEf12;\r\n"
    b"\tspf=pass smtp.mailfrom=example.net\r\n"
)


def with_results(raw: bytes, *headers: str) -> bytes:
    """``raw`` with its Authentication-Results header replaced by headers with the
    values ``headers`` (topmost first)."""
    assert RECORDED in raw
    lines = "".join(f"Authentication-Results: {h}\r\n" for h in headers)
    return raw.replace(RECORDED, lines.encode())


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        ("mx.orders.example; dkim=pass header.d=example.com header.s=s1", True),
        ("mx.orders.example; dkim=pass header.i=@mail.example.com", True),  # subdomain
        ("mx.orders.example; spf=pass smtp.mailfrom=ann@example.com", True),
        ("mx.orders.example; dmarc=pass (p=reject) header.from=example.com", True),
        ("mx.orders.example; dmarc=pass", False),  # no domain named
        ("MX.Orders.Example 1; dkim=pass (good signature) header.d=\"example.com\"", True),
        ("mx.orders.example; dkim=pass header.d=example.net", False),  # another domain
        ("mx.orders.example; dkim=pass header.d=com", False),  # a top-level domain
        ("mx.orders.example; dkim=fail header.d=example.com; spf=softfail smtp.mailfrom=example.com", False),
        ("mx.orders.example; spf=pass smtp.helo=example.com", False),  # a host, not a sender
        ("mx.orders.example; dmarc=pass header.from=evil.example", False),
        ("mx.orders.example; none", False),
        ("evil.example; dkim=pass header.d=example.com", False),  # not our server
        ("", False),
        (";;;==(((", False),
    ],
)
def test_verdict(header: str, ok: bool) -> None:
    verified, why = authresults.verdict([header], "ann@example.com", ["mx.orders.example"])
    assert verified is ok, why


def test_only_the_topmost_header_of_our_server_counts() -> None:
    ours_fail = "mx.orders.example; dkim=fail header.d=example.com"
    forged_pass = "mx.orders.example; dkim=pass header.d=example.com"  # added by the sender
    assert authresults.verdict([ours_fail, forged_pass], "ann@example.com", ["mx.orders.example"]) == (
        False, "no DKIM, SPF or DMARC pass for example.com (dkim=fail)",
    )  # fmt: skip
    # Several receiving servers: either one's header is read.
    assert authresults.verdict(
        ["backup.orders.example; spf=pass smtp.mailfrom=example.com"],
        "ann@example.com",
        ["mx.orders.example", "backup.orders.example"],
    ) == (True, "SPF pass")
    assert authresults.verdict([], "ann@example.com", ["mx.orders.example"]) == (
        False, "the receiving mail server did not check it",
    )  # fmt: skip


@pytest.fixture
def verified_table(db, orders_settings):
    orders_settings.MAIL_AUTHSERV_ID = "mail.orders.example"
    return make_table(require_sender_match=True)


def test_a_forged_from_without_our_servers_pass_is_refused(verified_table) -> None:
    address = verified_table.address("ann")
    raw = with_results(
        eml("plain.eml", to=address, sender="ann@example.com"),
        "mail.orders.example; dkim=none; spf=fail smtp.mailfrom=evil.example",
        "evil.example; dkim=pass header.d=example.com",
    )
    row = process_message(raw, address)
    assert (row.status, row.outcome) == ("rejected", "sender_unverified")
    assert "dkim=none, spf=fail" in row.error
    assert SealedOrder.objects.count() == 0
    [warning] = OutboxMessage.objects.filter(kind="mail_reply")
    assert warning.to == "ann@example.com"
    assert "our mail server could not confirm that" in warning.body
    assert "send your order on the game's page" in warning.body


def test_the_recorded_signature_of_another_domain_is_not_the_players(verified_table) -> None:
    # plain.eml is signed by example.net; From: says example.com.
    address = verified_table.address("ann")
    row = process_message(eml("plain.eml", to=address, sender="ann@example.com"), address)
    assert row.outcome == "sender_unverified"
    assert SealedOrder.objects.count() == 0


def test_a_signed_message_from_the_account_address_is_taken(verified_table) -> None:
    address = verified_table.address("ann")
    raw = with_results(
        eml("plain.eml", to=address, sender="ann@example.com"),
        "mail.orders.example; dkim=pass header.d=example.com header.s=s1; spf=neutral",
    )
    row = process_message(raw, address)
    assert row.outcome == "order_accepted"
    assert SealedOrder.objects.filter(seat=verified_table.seats["ann"], is_current=True).count() == 1


def test_the_sender_check_comes_first(verified_table) -> None:
    # A signed message from another address is still someone else.
    address = verified_table.address("ann")
    raw = with_results(
        eml("plain.eml", to=address, sender="mallory@evil.example"),
        "mail.orders.example; dkim=pass header.d=evil.example",
    )
    assert process_message(raw, address).outcome == "sender_mismatch"


def test_without_an_authserv_id_from_is_compared_only(db, orders_settings) -> None:
    table = make_table(require_sender_match=True)
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address, sender="ann@example.com"), address)
    assert row.outcome == "order_accepted"


def test_games_without_the_sender_check_ignore_the_header(db, orders_settings) -> None:
    orders_settings.MAIL_AUTHSERV_ID = "mail.orders.example"
    table = make_table()
    address = table.address("ann")
    row = process_message(eml("plain.eml", to=address, sender="ann.other@example.org"), address)
    assert row.outcome == "order_accepted"


@pytest.mark.parametrize(
    "header",
    [
        # A sender-chosen quoted local part smuggling a result past a naive split.
        'mx.orders.example; spf=pass smtp.mailfrom="x;dkim=pass header.d=example.com;"@evil.example',
        'mx.orders.example; spf=pass smtp.mailfrom="x;dmarc=pass;"@evil.example',
        'mx.orders.example; spf=pass smtp.mailfrom="x.example.com"@evil.example',
        'mx.orders.example; spf=pass smtp.mailfrom="a@example.com"@evil.example',
        'mx.orders.example; dkim=fail reason="bad; dkim=pass header.d=example.com" header.d=example.com',
        'mx.orders.example; dkim=none (comment; dkim=pass header.d=example.com)',
        'mx.orders.example; dkim=none (nested (comment) ; dkim=pass header.d=example.com)',
        # A DMARC pass that names no domain says nothing about this one.
        "mx.orders.example; dmarc=pass",
        # An empty value does not take the next property for its own.
        "mx.orders.example; spf=pass smtp.mailfrom= smtp.helo=mx1.example.com",
    ],
)
def test_what_the_sender_wrote_never_counts_as_a_pass(header: str) -> None:
    verified, why = authresults.verdict([header], "ann@example.com", ["mx.orders.example"])
    assert verified is False, why


@pytest.mark.parametrize(
    "header",
    [
        "mx.orders.example; dkim=pass header.d=example.com. header.s=s1",  # trailing dot
        "mx.orders.example; dkim=pass header.d=EXAMPLE.COM",
        'mx.orders.example; spf=pass smtp.mailfrom="ann;x"@example.com',
        "mx.orders.example; dkim=pass (good; signature) header.d=example.com",
    ],
)
def test_real_passes_in_their_odd_forms(header: str) -> None:
    verified, why = authresults.verdict([header], "ann@example.com", ["mx.orders.example"])
    assert verified is True, why


def test_international_domains_compare_in_their_ascii_form() -> None:
    header = "mx.orders.example; dkim=pass header.d=xn--bcher-kva.de"
    assert authresults.verdict([header], "ann@bücher.de", ["mx.orders.example"])[0] is True
    header = "mx.orders.example; dkim=pass header.d=bücher.de"
    assert authresults.verdict([header], "ann@xn--bcher-kva.de", ["mx.orders.example"])[0] is True


def test_a_forged_own_address_in_a_game_without_the_check_is_flagged_to_the_player(
    db, orders_settings
) -> None:
    # Guards against a forged From: naming the player's own address hiding the "not your
    # address" note, while our own server reported the forgery (DMARC fail).
    orders_settings.MAIL_AUTHSERV_ID = "mail.orders.example"
    table = make_table()
    address = table.address("ann")
    forged = with_results(
        eml("plain.eml", to=address, sender="ann@example.com"),
        "mail.orders.example; dmarc=fail (p=reject) header.from=example.com; spf=fail smtp.mailfrom=evil.example",
    )
    row = process_message(forged, address)
    assert row.outcome == "order_accepted"  # the address is the credential here
    answer = " ".join(OutboxMessage.objects.get(kind="mail_reply").body.split())
    assert "dmarc=fail" in answer and "New private address" in answer, answer
    # The same message with a pass, or checked by no server of ours: no note.
    for header in (
        "mail.orders.example; dmarc=pass header.from=example.com",
        "evil.example; dmarc=fail header.from=example.com",
    ):
        raw = with_results(eml("plain.eml", to=address, sender="ann@example.com"), header)
        assert process_message(raw, address).outcome == "order_accepted"
        newest = OutboxMessage.objects.filter(kind="mail_reply").order_by("-id").first()
        assert "New private address" not in newest.body, header


def test_a_forged_own_address_does_not_end_the_players_absence(db, orders_settings) -> None:
    # Guards against BACK (every game of the player's) taken on a From: our server found forged.
    from django.utils import timezone

    from games.models import PlayerSettings
    from games.services.away import player_away_set

    orders_settings.MAIL_AUTHSERV_ID = "mail.orders.example"
    table = make_table()
    user = table.seats["ann"].user
    player_away_set(user=user, until=timezone.localdate() + timezone.timedelta(days=3))
    address = table.address("ann")
    forged = (
        b"Authentication-Results: mail.orders.example; dmarc=fail header.from=example.com\r\n"
        b"From: Ann <ann@example.com>\r\nSubject: x\r\nMessage-ID: <forged-back@x>\r\n\r\nBACK\r\n"
    )
    process_message(forged, address)
    assert PlayerSettings.objects.get(user=user).away_until is not None
    answer = " ".join(OutboxMessage.objects.get(kind="mail_reply").body.split())
    assert "Nothing was changed" in answer and "dmarc=fail" in answer, answer
