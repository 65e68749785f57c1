"""The player's "your turn" webhook over the API, as on the API tokens page
(games.webhooks_views), through the same services (games.services.webhooks) with the same
checks: ``GET/PUT/DELETE /api/webhook/`` and ``POST /api/webhook/ping/``.

The signing secret is in an answer only when it was made by that call (the first PUT,
or one with ``"regenerate_secret": true``): the site never shows it again."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games import errors
from games.api import serializers as s
from games.api.base import BODY_ERRORS, ERRORS, BaseAPIView, UserThrottle
from games.api.input_serializers import (
    EmptyInputSerializer,
    StrictCharField,
    StrictInputSerializer,
)
from games.models_webhooks import PlayerWebhook, WebhookDelivery
from games.selectors_webhooks import deliveries_recent, webhook_of
from games.services import webhooks

NO_WEBHOOK = OpenApiResponse(s.ErrorSerializer, description="You have no webhook")


#: An http(s) URL, in the schema too (its pattern; not blank either): "0" or "ftp://..."
#: was valid by the schema and refused (a fuzzing find). The service checks the rest
#: (https but for localhost on a development site, a public host), in its own words.
WEBHOOK_URL = RegexValidator(
    r"^\s*[Hh][Tt][Tt][Pp][Ss]?://\S", message="The URL must start with https://."
)


class WebhookInputSerializer(StrictInputSerializer):
    """The webhook's URL (https, a public host), and whether to make a new secret."""

    url = StrictCharField(
        max_length=500, min_length=1, validators=[WEBHOOK_URL], trim_whitespace=True,
        help_text="Where the events are POSTed: https:// to a host whose every address is public.",
    )  # fmt: skip
    regenerate_secret = drf_serializers.BooleanField(
        default=False,
        help_text="Make a new signing secret (in the answer, once); the old one stops signing.",
    )


class DeliverySerializer(drf_serializers.Serializer):
    """One delivery of an event (the last ten are listed, newest first)."""

    delivery = drf_serializers.UUIDField(help_text="Its X-FiveX-Delivery header.")
    event = drf_serializers.ChoiceField(choices=[webhooks.EVENT_ORDER_NEEDED, webhooks.EVENT_PING])
    status = drf_serializers.ChoiceField(choices=WebhookDelivery.Status.choices)
    attempts = drf_serializers.IntegerField()
    response_code = drf_serializers.IntegerField(
        allow_null=True, help_text="The HTTP status answered."
    )
    last_error = drf_serializers.CharField(
        help_text="Why the last attempt failed; empty once sent."
    )
    created_at = drf_serializers.DateTimeField()
    sent_at = drf_serializers.DateTimeField(allow_null=True)


class WebhookSerializer(drf_serializers.Serializer):
    """Your webhook: its URL, whether it is on, and its last deliveries."""

    url = drf_serializers.CharField()
    active = drf_serializers.BooleanField(
        help_text="False once too many deliveries in a row failed; a PUT turns it back on."
    )
    failures_in_row = drf_serializers.IntegerField()
    disabled_at = drf_serializers.DateTimeField(allow_null=True)
    deliveries = DeliverySerializer(many=True)
    secret = drf_serializers.CharField(
        required=False,
        help_text="The signing secret: only in the answer of the call that made it.",
    )


def _data(hook: PlayerWebhook, secret: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "url": hook.url,
        "active": hook.active,
        "failures_in_row": hook.failures_in_row,
        "disabled_at": hook.disabled_at,
        "deliveries": [
            {
                "delivery": d.delivery_id,
                "event": d.event,
                "status": d.status,
                "attempts": d.attempts,
                "response_code": d.response_code,
                "last_error": d.last_error,
                "created_at": d.created_at,
                "sent_at": d.sent_at,
            }
            for d in deliveries_recent(webhook=hook)
        ],  # fmt: skip
    }
    if secret is not None:
        data["secret"] = secret
    return data


def _mine(request: Request) -> PlayerWebhook:
    hook = webhook_of(user=request.user)
    if hook is None:
        raise errors.NotFound("You have no webhook: PUT its URL first.")
    return hook


class WebhookThrottle(UserThrottle):
    """``API_WEBHOOK_RATE``: changes to a player's webhook and its test pings (each save
    looks the host up; each ping makes the site call it)."""

    scope = "webhook"
    methods = ("PUT", "DELETE", "POST")


THROTTLED = OpenApiResponse(s.ErrorSerializer, description="Too many webhook changes or pings")


class WebhookView(BaseAPIView):
    """Your "your turn" webhook: what it is (GET), set it (PUT), remove it (DELETE)."""

    throttle_classes = [WebhookThrottle]

    @extend_schema(
        responses={200: WebhookSerializer, **{k: ERRORS[k] for k in (400, 401)}, 404: NO_WEBHOOK}
    )
    def get(self, request: Request) -> Response:
        return Response(WebhookSerializer(_data(_mine(request))).data)

    @extend_schema(
        request=WebhookInputSerializer,
        responses={
            200: OpenApiResponse(
                WebhookSerializer, description="Changed (the secret only if regenerated)"
            ),
            201: OpenApiResponse(
                WebhookSerializer, description="Made: the answer holds its secret, once"
            ),
            400: OpenApiResponse(
                s.ErrorSerializer, description="The URL was refused (`fields.url` says why)"
            ),
            401: ERRORS[401],
            **BODY_ERRORS,
            429: THROTTLED,
        },
    )
    def put(self, request: Request) -> Response:
        given = WebhookInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            secret = webhooks.webhook_save(user=request.user, url=given.validated_data["url"])
        except errors.ValidationError as exc:
            raise drf_serializers.ValidationError({"url": [exc.message]}) from None
        created = secret is not None
        if not created and given.validated_data["regenerate_secret"]:
            secret = webhooks.webhook_secret_regenerate(user=request.user)
        return Response(
            WebhookSerializer(_data(_mine(request), secret)).data, status=201 if created else 200
        )

    @extend_schema(
        responses={204: None, **{k: ERRORS[k] for k in (400, 401)}, 404: NO_WEBHOOK, 429: THROTTLED}
    )
    def delete(self, request: Request) -> Response:
        if not webhooks.webhook_remove(user=request.user):
            raise errors.NotFound("You have no webhook to remove.")
        return Response(status=204)


class WebhookPingView(BaseAPIView):
    """Send a test ``ping`` event to your webhook (a few an hour); the answer is the
    queued delivery: GET /api/webhook/ shows how it went."""

    throttle_classes = [WebhookThrottle]

    @extend_schema(
        request=EmptyInputSerializer,
        responses={
            202: OpenApiResponse(DeliverySerializer, description="Queued"),
            **{k: ERRORS[k] for k in (400, 401)},
            404: NO_WEBHOOK,
            429: OpenApiResponse(
                s.ErrorSerializer,
                description="Too many test pings this hour (pings_capped), or too many calls",
            ),
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        self.no_input(request)
        d = webhooks.webhook_ping(user=request.user)
        data = {"delivery": d.delivery_id, "event": d.event, "status": d.status, "attempts": d.attempts,
                "response_code": d.response_code, "last_error": d.last_error,
                "created_at": d.created_at, "sent_at": d.sent_at}  # fmt: skip
        return Response(DeliverySerializer(data).data, status=202)
