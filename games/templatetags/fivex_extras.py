"""Display helpers for the 5X page: card tiles and the Wonder track, from the
ruleset's public card data (names, action numbers, Wonder names)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from engine.fivex import data as D
from games.rules_text import CARD_ACTIONS, LEADER_POWERS

register = template.Library()

_CARDS = {c.id: c for c in D.CARDS}
_ACTION_NAMES = {1: "Exploit", 2: "Exterminate", 3: "Expand", 4: "Explore", 5: "Excavate"}


@register.simple_tag
def fivex_power(card_id: Any) -> str:
    """What a card does, in one sentence (a leader's power, an action card's action)."""
    return LEADER_POWERS.get(str(card_id)) or CARD_ACTIONS.get(str(card_id), "")


def _tip(card: Any) -> str:
    """A card's tooltip: its name and what it does."""
    power = fivex_power(card.id)
    return f"{card.name}: {power}" if power else card.name


@register.simple_tag
def fivex_card(card_id: str) -> SafeString:
    """A card tile: the card's name and the action it counts as."""
    card = _CARDS.get(str(card_id))
    if card is None:
        return format_html('<div class="card">{}</div>', card_id)
    kind = "leader" if card.leader else "action"
    sub = f"{card.action} · {_ACTION_NAMES[card.action]}" if card.leader else f"action {card.action}"
    return format_html(
        '<div class="card a{} {}" title="{}"><span class="num">{}</span><span class="nm">{}</span></div>',
        card.action,
        kind,
        _tip(card),
        sub,
        card.name,
    )


@register.simple_tag
def fivex_pip(card_id: Any) -> SafeString:
    """A small coloured label for a card id (played cards, discard piles)."""
    if card_id is None:
        return format_html('<span class="muted">{}</span>', "—")
    card = _CARDS.get(str(card_id))
    if card is None:
        return format_html('<span class="pip">{}</span>', card_id)
    if card.leader:  # the colour says which action a leader counts as; so do the words
        return format_html(
            '<span class="pip a{}" title="{}">{}<span class="visually-hidden"> ({})</span></span>',
            card.action, _tip(card), card.name, _ACTION_NAMES[card.action],
        )  # fmt: skip
    return format_html('<span class="pip a{}" title="{}">{}</span>', card.action, _tip(card), card.name)


@register.simple_tag
def fivex_tiebreak(view: Any) -> str:
    """``presentation.fivex_tiebreak_note`` of a 5X view that is over."""
    from games.presentation import fivex_tiebreak_note

    return fivex_tiebreak_note(view) if isinstance(view, dict) else ""


@register.simple_tag
def fivex_wonders(wonders: Any) -> list[dict[str, Any]]:
    """The seven Wonders in reveal order with their state for this view:
    built (by whom), current, removed, or still to come."""
    wonders = wonders if isinstance(wonders, dict) else {}
    built = wonders.get("built") or {}
    removed = set(wonders.get("removed") or [])
    current = wonders.get("current")
    out = []
    for w in D.WONDERS:
        vp = w.vp_halves / 2
        state = "upcoming"
        if w.letter in built:
            state = "built"
        elif w.letter in removed:
            state = "removed"
        elif w.letter == current:
            state = "current"
        out.append(
            {
                "letter": w.letter,
                "name": w.name,
                "vp": int(vp) if vp.is_integer() else vp,
                "bonus": w.bonus,
                "state": state,
                "owner": built.get(w.letter),
            }
        )
    return out
