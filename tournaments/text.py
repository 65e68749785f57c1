"""Words the tournament pages and services share, with no Django in them: how a refusal
repeats what was typed (the services must not import the web layer's forms)."""

from __future__ import annotations

#: How much of a name (or any piece of input) a refusal repeats.
SHOWN_NAME_CHARS = 40


def name_shown(name: str) -> str:
    """What was typed, as a refusal repeats it: quoted, its first 40 characters and "…"
    when longer (an audit: an unknown name of 100 KB came back whole in the message). The
    pairing, result and new-tournament forms, the panel's "register" and the tournament
    services' refusals (an unknown game or tie-break) use it."""
    return repr(name if len(name) <= SHOWN_NAME_CHARS else name[:SHOWN_NAME_CHARS] + "…")
