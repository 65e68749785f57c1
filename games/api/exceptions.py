"""The API's exception handler: every error is JSON ``{"error": code, "message": ...}``.

ApplicationError subclasses map to their 4xx (with ``Retry-After`` when the error knows
when to try again); DRF's own errors (bad JSON, validation,
authentication, throttling) keep their status with the same body shape; anything else is
a bug: logged with its traceback and answered with a generic JSON 500, never an HTML page.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.http import Http404
from django.utils import timezone
from rest_framework import exceptions as drf_exceptions
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games import errors

logger = logging.getLogger(__name__)

APPLICATION_STATUS: list[tuple[type[errors.ApplicationError], int]] = [
    (errors.NotFound, status.HTTP_404_NOT_FOUND),
    (errors.PermissionDenied, status.HTTP_403_FORBIDDEN),
    (errors.OrderRefused, status.HTTP_422_UNPROCESSABLE_ENTITY),
    (errors.KeyReused, status.HTTP_422_UNPROCESSABLE_ENTITY),
    (errors.NotPending, status.HTTP_409_CONFLICT),
    (errors.GameStateError, status.HTTP_409_CONFLICT),
    (errors.HandoverRefused, status.HTTP_409_CONFLICT),
    (errors.PingsCapped, status.HTTP_429_TOO_MANY_REQUESTS),
    (errors.OffersCapped, status.HTTP_429_TOO_MANY_REQUESTS),
    (errors.MessagesCapped, status.HTTP_429_TOO_MANY_REQUESTS),
]


def retry_after(exc: errors.ApplicationError) -> dict[str, str]:
    """``Retry-After`` (whole seconds, at least 1) for an error that knows when the
    action may be done again (its ``retry_at``); no header otherwise."""
    retry_at = getattr(exc, "retry_at", None)
    if retry_at is None:
        return {}
    seconds = math.ceil((retry_at - timezone.now()).total_seconds())
    return {"Retry-After": str(max(1, seconds))}


def status_for(exc: errors.ApplicationError) -> int:
    """The HTTP status of an application error (400 for a kind not listed)."""
    for kind, code in APPLICATION_STATUS:
        if isinstance(exc, kind):
            return code
    return status.HTTP_400_BAD_REQUEST


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        out: list[str] = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else f"{key}"
            out.extend(_flatten(value, f"{prefix}{name}: " if name else prefix))
        return out
    if isinstance(detail, list):
        out = []
        for item in detail:
            out.extend(_flatten(item, prefix))
        return out
    return [f"{prefix}{detail}"]


def _fields(detail: Any) -> dict[str, list[str]]:
    """A validation error's ``fields`` as the schema says it is, ``{field: [message]}``:
    a list's item refused (DRF nests it, ``{"players": {"0": [...]}}``) is named in its
    message, ``"0: ..."`` (a schemathesis find: the nested dict broke the ``Error``
    schema); a refusal of the whole body is ``non_field_errors``'."""
    if not isinstance(detail, dict):
        return {"non_field_errors": _flatten(detail)}
    return {str(key): _flatten(value) for key, value in detail.items()}


def _joined(messages: list[str]) -> str:
    """Several messages as one sentence: ``a; b.``, not ``a.; b.`` (each message is a
    sentence of its own, ending in a stop)."""
    return (
        "; ".join(m.removesuffix(".") for m in messages[:-1])
        + ("; " if len(messages) > 1 else "")
        + (messages[-1] if messages else "")
    )


#: A run of characters without a space longer than this, in an error's message or
#: fields, is shown by its first ``QUOTED_RUN_SHOWN`` characters and "…"; a message is
#: at most ``MESSAGE_CHARS`` long. A refusal quotes what it refuses, and a 100 KB
#: ruleset or option name came back whole, twice (message and fields: 200 KB).
QUOTED_RUN_CHARS, QUOTED_RUN_SHOWN, MESSAGE_CHARS = 80, 40, 4000
_LONG_RUN = re.compile(rf"\S{{{QUOTED_RUN_CHARS + 1},}}")


def _shortened(text: str) -> str:
    text = _LONG_RUN.sub(lambda run: run.group()[:QUOTED_RUN_SHOWN] + "…", text)
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + "…"


def _without_bidi(value: Any) -> Any:
    """``value`` (a message, or ``fields``: keys and messages, nested) without bidi
    controls: a refusal quotes the client's keys and values, and a raw override would
    display the rest of the line reversed (as ApplicationError's messages are cleaned);
    and with what it quotes shortened (``_shortened``)."""
    if isinstance(value, str):
        return _shortened(errors.without_bidi(value))
    if isinstance(value, dict):
        return {_without_bidi(k): _without_bidi(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_bidi(v) for v in value]
    return value


NOT_A_TOKEN = (
    "The Authorization header holds no token as this API takes it: send "
    "'Authorization: Token <key>', with a key from /account/api-tokens/."
)


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of every API error (no bidi control in what it quotes)."""
    body: dict[str, Any] = {"error": code, "message": _without_bidi(message)}
    body.update({key: _without_bidi(value) for key, value in extra.items()})
    return body


def handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF ``EXCEPTION_HANDLER``: see the module docstring."""
    set_rollback()
    if isinstance(exc, errors.ApplicationError):
        code = getattr(exc, "code", "") or "error"
        extra: dict[str, Any] = {}
        if exc.field and status_for(exc) == status.HTTP_400_BAD_REQUEST:
            # The field refused, named in ``fields`` as a serializer's refusal is.
            extra["fields"] = {exc.field: [exc.message.removeprefix(f"{exc.field}: ")]}
        return Response(
            error_body(code, exc.message, **extra), status=status_for(exc), headers=retry_after(exc)
        )
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, RequestDataTooBig):  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        message = f"The request body is too large (the limit is {limit} bytes)."
        return Response(error_body("too_large", message), status=413)
    if isinstance(exc, TooManyFieldsSent):  # Django's DATA_UPLOAD_MAX_NUMBER_FIELDS
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        message = f"The request has too many fields (the limit is {limit})."
        return Response(error_body("bad_request", message), status=400)
    if isinstance(exc, SuspiciousOperation):  # what Django's own handler answers with 400
        return Response(error_body("bad_request", "Bad request."), status=400)
    if isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    if isinstance(exc, drf_exceptions.APIException):
        headers: dict[str, str] = {}
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        wait = getattr(exc, "wait", None)
        if wait:
            headers["Retry-After"] = str(int(wait))
        request = context.get("request")
        if (
            isinstance(exc, drf_exceptions.NotAuthenticated)
            and request is not None
            and (request.META.get("HTTP_AUTHORIZATION", "").strip())
        ):
            # A header of another scheme (``Bearer <key>``, most APIs' way) is not "no
            # credentials": say which the API takes (a fuzzing find).
            told = drf_exceptions.NotAuthenticated(NOT_A_TOKEN)
            told.auth_header, told.status_code = getattr(exc, "auth_header", None), exc.status_code
            exc = told
        if isinstance(exc, drf_exceptions.ValidationError):
            message = _joined(_flatten(exc.detail)) or "Invalid input."
            body = error_body("invalid", message, fields=_fields(exc.detail))
        else:
            codes = exc.get_codes()
            code = codes if isinstance(codes, str) else exc.default_code
            # DRF's own 403 (a session without its CSRF token, a permission class) has the
            # code the schema documents for every 403.
            code = "forbidden" if code == "permission_denied" else code
            body = error_body(str(code), _joined(_flatten(exc.detail)))
        return Response(body, status=exc.status_code, headers=headers)
    view = context.get("view")
    from fivex_site.views import (
        RETRY_AFTER_SECONDS,
        UNAVAILABLE_MESSAGE,
        database_away,
        log_unavailable,
    )

    if database_away(exc):  # a restart, a fail-over: try again, not a bug
        set_rollback()
        response = Response(
            error_body("unavailable", UNAVAILABLE_MESSAGE),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
        where = f"API view {type(view).__name__ if view else '?'}"
        log_unavailable(context.get("request"), response, exc, where)
        return response
    logger.exception("unexpected error in API view %s", type(view).__name__ if view else "?")
    return Response(
        error_body("server_error", "An unexpected error occurred. It has been logged."),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
