"""Receipts and recalls that Outlook and Exchange send as ordinary text mail: "Read:",
"Not read:", "Delivered:", "Recall:" and their German, French and Spanish forms
("Gelesen:", "Lu :", "Leído:", ...). They carry no header that marks them automatic
(the ``multipart/report`` read receipts of other programs are known by
``headers.auto_reply_reason``), so each was refused as an order and answered.

A message is one only when both its Subject and its whole text say so: the Subject
starts with the prefix, and the text, once the ``To:``/``Subject:``/``Sent:`` lines the
receipt quotes are set aside, is nothing but the receipt's sentence. A player's order
under the Subject "Read: my orders" is still an order.

Pure functions over text (no database, no ``email`` objects), like ``games.mail.headers``.
"""

from __future__ import annotations

import re

#: The Subject's prefix, per kind, in the languages read here (English, German, French,
#: Spanish). Longer prefixes first ("Not read" before "Read" is moot at the start, but
#: "Non lu" and "No leído" must not be read as a name).
_SUBJECT_RE = re.compile(
    r"^\s*(?:"
    r"(?P<not_read>not read|nicht gelesen|ungelesen|non lu|no leído)"
    r"|(?P<read>read|gelesen|lu|leído)"
    r"|(?P<delivered>delivered|übermittelt|zugestellt|remis|distribué|entregado)"
    r"|(?P<recall>recall|rückruf|rappel|recuperar|recuperación|recuperación de mensaje)"
    r")\s*:",
    re.IGNORECASE,
)

# The receipt's own sentences, as the text reads once its quoted header lines are set
# aside and its spaces collapsed ("Your message was read on Tuesday, ..."). A date is
# a digit somewhere in what follows.
_DATED = r"(?=.*\d).{1,300}"
_BODY_RES = {
    "read": (
        rf"your message was read on {_DATED}",
        rf"ihre nachricht wurde am {_DATED} gelesen\.?",
        rf"votre message a été lu le {_DATED}",
        rf"su mensaje (?:se leyó|ha sido leído|fue leído) el {_DATED}",
    ),
    "not_read": (
        rf"your message was deleted without being read on {_DATED}",
        rf"ihre nachricht wurde am {_DATED} (?:ungelesen|ohne gelesen zu werden) gelöscht\.?",
        rf"votre message a été supprimé sans avoir été lu le {_DATED}",
        rf"su mensaje (?:se eliminó|ha sido eliminado|fue eliminado) sin (?:haberse leído|haber sido leído|ser leído|leerse) el {_DATED}",
    ),
    "delivered": (
        r"your message has been delivered to the following recipients ?:.{0,600}",
        r"delivery to these recipients or groups is complete.{0,600}",
        r"ihre nachricht wurde an (?:die )?folgenden? empfänger (?:übermittelt|zugestellt) ?:.{0,600}",
        r"votre message a été (?:remis|distribué) aux destinataires suivants ?:.{0,600}",
        r"(?:su|el) mensaje (?:se entregó|se ha entregado|ha sido entregado) a los siguientes destinatarios ?:.{0,600}",
    ),
    "recall": (
        r".{1,160} would like to recall the message,? .{1,400}",
        r".{1,160} möchte die nachricht .{1,400} zurückrufen\.?",
        r".{1,160} (?:souhaite|voudrait) rappeler le message .{1,400}",
        r".{1,160} (?:desea|quiere|quisiera|querría) (?:recuperar|retirar) el mensaje .{1,400}",
    ),
}
_BODY = {kind: re.compile("|".join(f"(?:{p})" for p in ps)) for kind, ps in _BODY_RES.items()}

#: A header line a receipt quotes from the message it is about ("  To: Ann", "Objet :
#: [League 7]", "Enviado: martes, ..."): a label of a few words and a colon.
_QUOTED_HEADER_RE = re.compile(r"^\s*[^\W\d_][^\W\d_ .-]*(?: [^\W\d_]+){0,2} ?: .*$")

#: Longer is no receipt (they are a few lines).
MAX_CHARS = 3000
MAX_LINES = 30


def receipt_kind(subject: str, text: str) -> str:
    """``"read"``, ``"not_read"``, ``"delivered"`` or ``"recall"`` when ``subject`` starts
    with that receipt's prefix and ``text`` (the message's whole text, not cut at quotes)
    is nothing but such a receipt's sentence, with the header lines it quotes; "" otherwise.
    The Subject's kind and the text's must agree."""
    found = _SUBJECT_RE.match(subject or "")
    if found is None or not text or len(text) > MAX_CHARS:
        return ""
    kind = found.lastgroup or ""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or len(lines) > MAX_LINES:
        return ""
    kept = [line for line in lines if not _QUOTED_HEADER_RE.match(line)]
    said = " ".join(" ".join(kept).split()).lower()
    return kind if said and _BODY[kind].fullmatch(said) else ""


def receipt_reason(subject: str, text: str) -> str:
    """Why the message is never answered (for ``ParsedMail.auto_reason``), or ""."""
    kind = receipt_kind(subject, text)
    if not kind:
        return ""
    return f"{kind.replace('_', ' ')} receipt or notice (Subject: {subject.strip()[:80]})"
