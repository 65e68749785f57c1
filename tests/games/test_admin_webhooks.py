"""Staff see the players' webhooks and their deliveries in the admin, read-only (a
support audit: there was no page for them), and never the signing secret: not in a list,
a detail page or a search, nor through a lookup in the address."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import PlayerWebhook, WebhookDelivery
from tests.games.web_support import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def hooks():  # noqa: ANN201
    """ann's and bob's webhooks (saved directly: no lookup), with a failed delivery each."""
    made = {}
    for name in ("ann", "bob"):
        hook = PlayerWebhook.objects.create(
            user=make_user(name), url=f"https://{name}.example.org/hook", secret=f"whsec_{name}" + "5ec7e7" * 9,
            failures_in_row=3,
        )  # fmt: skip
        WebhookDelivery.objects.create(
            webhook=hook, event="ping", payload={"event": "ping"}, status="failed", attempts=5,
            response_code=502, response_excerpt=f"bad gateway at {name}", last_error="HTTP 502",
            sent_at=None, next_attempt_at=None,
        )  # fmt: skip
        made[name] = hook
    WebhookDelivery.objects.create(webhook=made["ann"], event="ping", status="sent", attempts=1,
                                   response_code=200, sent_at=timezone.now() - timedelta(minutes=1))  # fmt: skip
    return made


def _no_secret(answer, hooks) -> str:  # noqa: ANN001
    assert answer.status_code == 200
    text = answer.content.decode()
    for hook in hooks.values():
        assert hook.secret not in text and hook.secret[:12] not in text
    assert "secret" not in text.lower()
    return text


def test_the_webhook_pages_render_and_never_show_the_secret(admin_client, hooks) -> None:
    ann = hooks["ann"]
    text = _no_secret(admin_client.get("/admin/games/playerwebhook/"), hooks)
    assert "https://ann.example.org/hook" in text and "https://bob.example.org/hook" in text
    text = _no_secret(admin_client.get(f"/admin/games/playerwebhook/{ann.pk}/change/"), hooks)
    assert "https://ann.example.org/hook" in text and "failures in row" in text.lower()
    assert 'name="url"' not in text and 'name="_save"' not in text  # nothing to change
    delivery = ann.deliveries.get(status="failed")
    text = _no_secret(admin_client.get("/admin/games/webhookdelivery/"), hooks)
    assert "bad gateway at ann" in text and "HTTP 502" in text
    text = _no_secret(admin_client.get(f"/admin/games/webhookdelivery/{delivery.pk}/change/"), hooks)
    assert "bad gateway at ann" in text and str(delivery.delivery_id) in text
    # Filtered by status; searched by player name or URL.
    answer = admin_client.get("/admin/games/webhookdelivery/?status__exact=sent")
    assert [d.pk for d in answer.context["cl"].result_list] == [ann.deliveries.get(status="sent").pk]
    for q, found in (("bob", ["bob"]), ("ann.example.org", ["ann"])):
        answer = admin_client.get("/admin/games/playerwebhook/", {"q": q})
        assert [h.user.username for h in answer.context["cl"].result_list] == found
        answer = admin_client.get("/admin/games/webhookdelivery/", {"q": q})
        assert {d.webhook.user.username for d in answer.context["cl"].result_list} == set(found)


def test_the_secret_is_not_searchable_nor_a_lookup(admin_client, hooks) -> None:
    # Guards against finding the secret a character at a time by what a list answers.
    for path in ("playerwebhook", "webhookdelivery"):
        answer = admin_client.get(f"/admin/games/{path}/", {"q": hooks["ann"].secret})
        assert answer.status_code == 200 and list(answer.context["cl"].result_list) == []
    assert admin_client.get("/admin/games/playerwebhook/?secret__startswith=whsec_a").status_code == 400
    assert admin_client.get("/admin/games/webhookdelivery/?webhook__secret__startswith=whsec_a").status_code == 400


def test_webhooks_are_not_added_changed_or_deleted_in_the_admin(admin_client, hooks) -> None:
    ann = hooks["ann"]
    assert admin_client.get("/admin/games/playerwebhook/add/").status_code == 403
    assert admin_client.get("/admin/games/webhookdelivery/add/").status_code == 403
    before = PlayerWebhook.objects.get(pk=ann.pk)
    answer = admin_client.post(
        f"/admin/games/playerwebhook/{ann.pk}/change/",
        {"url": "https://evil.example/", "secret": "whsec_known", "active": "on", "failures_in_row": 0},
    )
    assert answer.status_code == 403
    after = PlayerWebhook.objects.get(pk=ann.pk)
    assert (after.url, after.secret, after.failures_in_row) == (before.url, before.secret, 3)
    assert admin_client.post(f"/admin/games/playerwebhook/{ann.pk}/delete/", {"post": "yes"}).status_code == 403
    assert PlayerWebhook.objects.filter(pk=ann.pk).exists()
