"""What the API answers for a seat: the seat view's body (``seat_view_data``, built
by hand on the hottest read) and a sealed order's receipt (``submitted_receipt_data``,
by hand on the hottest write)."""

from __future__ import annotations

from typing import Any

from games import selectors
from games.api import serializers as s
from games.models import Game, SealedOrder, Seat
from games.views.common import engine_part, legal_orders_complete


def receipt(order: SealedOrder) -> dict[str, Any]:
    """The receipt of a sealed order."""
    return {
        "commitment": order.commitment,
        "prompt": order.prompt.number,
        "submitted_at": order.submitted_at,
        "text": order.text,
        "source": order.source,
    }


def view_payload(game: Game, view: dict[str, Any], seat: Seat | None) -> dict[str, Any]:
    """Reshape a selectors view into SeatViewSerializer's fields."""
    game_info = {
        "id": game.pk, "name": game.name, "ruleset": game.ruleset, "status": game.status,
        "ranking": game.ranking, "end_reason": game.end_reason, "finished_at": game.finished_at,
        "part_of": selectors.part_of(label=game.part_of_label, path=game.part_of_path),
    }  # fmt: skip
    return _payload(game_info, view, seat.name if seat is not None else None)


def _payload(game_info: dict[str, Any], view: dict[str, Any], seat: str | None) -> dict[str, Any]:
    prompt = view.get("prompt")
    my_order = view.get("my_order") if seat is not None else None
    if my_order is not None and "prompt" not in my_order and prompt:
        my_order = {**my_order, "prompt": prompt.get("number")}
    events = [
        {"kind": e.get("kind", ""), "text": e.get("text", ""), "data": e.get("data")}
        for e in view.get("events") or []
    ]
    legal = list(view.get("legal_orders") or []) if seat is not None else []
    return {
        "game": game_info,
        "seat": seat,
        "prompt": prompt,
        "my_order": my_order,
        "legal_orders": legal,
        "legal_orders_complete": legal_orders_complete(game_info.get("ruleset"), legal),
        "events": events,
        "view": engine_part(view),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


_WHEN = s.WhenField()


def _when(value: Any) -> str | None:
    return None if value is None else _WHEN.to_representation(value)


_SOURCE = s.ReceiptSerializer._declared_fields["source"]


def submitted_receipt_data(payload: dict[str, Any]) -> dict[str, Any]:
    """SubmittedReceiptSerializer(payload).data without the serializer machinery (the
    order POST's answer: building the serializer's fields cost about as much as the
    view's own Python work): the same keys in the same order, the same coercions."""
    source = payload["source"]
    return {
        "commitment": _text(payload["commitment"]),
        "prompt": _int(payload["prompt"]),
        "submitted_at": _when(payload["submitted_at"]),
        "text": _text(payload["text"]),
        "source": None if source is None else _SOURCE.to_representation(source),
        "understood_as": _text(payload["understood_as"]),
    }


def _texts(values: Any) -> list[str | None] | None:
    return None if values is None else [_text(x) for x in values]


def seat_view_data(payload: dict[str, Any]) -> dict[str, Any]:
    """SeatViewSerializer(payload).data without the serializer machinery (the API's
    hottest read): the same fields, the same coercions, the same keys left out."""
    game = payload["game"]
    prompt = payload["prompt"]
    if prompt is not None:
        prompt_out: dict[str, Any] | None = {"number": _int(prompt.get("number"))}
        if "round" in prompt:
            prompt_out["round"] = _int(prompt["round"])
        prompt_out["phase"] = _text(prompt.get("phase"))
        prompt_out["deadline"] = _when(prompt.get("deadline"))
        prompt_out["pending"] = _texts(prompt.get("pending"))
        if "ready" in prompt:
            prompt_out["ready"] = _texts(prompt["ready"])
    else:
        prompt_out = None
    order = payload["my_order"]
    order_out = (
        None
        if order is None
        else {
            "commitment": _text(order.get("commitment")),
            "prompt": _int(order.get("prompt")),
            "submitted_at": _when(order.get("submitted_at")),
            "text": _text(order.get("text")),
            "source": _text(order.get("source")),
        }
    )
    events = []
    for event in payload["events"]:
        item: dict[str, Any] = {"kind": _text(event.get("kind")), "text": _text(event.get("text"))}
        if "data" in event:
            item["data"] = event["data"]
        events.append(item)
    return {
        "game": {
            "id": _int(game["id"]),
            "name": _text(game["name"]),
            "ruleset": _text(game["ruleset"]),
            "status": _text(game["status"]),
            "ranking": (
                None if game["ranking"] is None
                else [[_text(name) for name in group] for group in game["ranking"]]
            ),
            "end_reason": _text(game["end_reason"]),
            "finished_at": _when(game["finished_at"]),
            "part_of": game["part_of"],
        },
        "seat": _text(payload["seat"]),
        "prompt": prompt_out,
        "my_order": order_out,
        "legal_orders": _texts(payload["legal_orders"]),
        "legal_orders_complete": bool(payload["legal_orders_complete"]),
        "events": events,
        "view": payload["view"],
    }
