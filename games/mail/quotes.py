"""The new part of a reply: quoted text, attribution lines ("On … wrote:" and their
translations), Outlook header blocks, forwarded messages, signatures and PGP clear-signing
taken away.

Pure text functions (no database), linear in the text.
"""

from __future__ import annotations

import bisect
import re

_SIG_LINES = {"-- ", "--"}

_ORIGINAL_RE = re.compile(
    r"^\s*-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|"
    r"message d'origine|mensaje original|messaggio originale|mensagem original|"
    r"oorspronkelijk bericht|originalmeddelande|original meddelelse|"
    r"alkuperäinen viesti|wiadomość oryginalna|исходное сообщение)\s*-{2,}\s*$",
    re.IGNORECASE,
)
# Apple Mail's forward line (and its translations): the forwarded message follows.
_FORWARDED_RE = re.compile(
    r"^\s*(begin forwarded message|anfang der weitergeleiteten nachricht|"
    r"début du message réexpédié|inicio del mensaje reenviado|inizio messaggio inoltrato|"
    r"begin doorgestuurd bericht|videresendt melding|videresendt besked|"
    r"vidarebefordrat mejl|начало переадресованного сообщения)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_END_RE = re.compile(
    r"(wrote|writes|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|"
    r"kirjoitti|napisał\(a\)|napisała|napisał|написал\(а\)|написала|написал|napsal|írta|"
    r"yazdı|έγραψε|пишет|пише|写道|寫道|が書きました)\s*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_VERB_RE = re.compile(
    r"\b(wrote|schrieb|escribió|escreveu|ha scritto|a écrit|schreef|skrev|kirjoitti|"
    r"napisał|написал|пишет|napsal|írta|yazdı)\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START_RE = re.compile(
    r"^\s*((on|le|am|el|il|em|no dia|op|den|på|dne|w dniu|в|el día)\b|在|於|于)", re.IGNORECASE
)
# Gmail's attribution in languages without a "wrote" (Russian, Japanese, ...): a date,
# the name and "<address>:". Taken for one only with a '>' quote below it.
# Any line naming "<address>" and ending in ":" above a '>' quote: the attributions of
# Gmail for Android ("Name <address> schrieb am Fr., 27. Nov. 2026, 09:00:"), mutt's
# ("* Name <address> [2026-11-27 09:00]:") and others with words of their own.
_ADDRESS_IN_RE = re.compile(r"<[^<>\s@]+@[^<>\s]+>")
_OUTLOOK_FROM_RE = re.compile(
    r"^\s*\**(from|de|von|da|van|från|fra|od|от|lähettäjä|差出人|发件人|寄件者|보낸 사람)"
    r"\s*\**\s*[:：]",
    re.IGNORECASE,
)
_OUTLOOK_NEXT_RE = re.compile(
    r"^\s*\**(sent|date|envoyé|gesendet|datum|dato|enviado|inviato|verzonden|skickat|sendt|"
    r"wysłano|отправлено|lähetetty|to|à|an|para|a|aan|till|til|do|кому|vastaanottaja|"
    r"subject|objet|betreff|asunto|oggetto|assunto|onderwerp|ämne|emne|temat|тема|aihe|"
    r"送信日時|宛先|件名|发送时间|发送日期|收件人|主题|寄件日期|收件者|主旨|보낸 날짜|받는 사람|제목)"
    r"\s*\**\s*[:：]",
    re.IGNORECASE,
)
# Phone and webmail programs' default signature lines, written without a "-- " above
# them: "Sent from my iPhone", "Sent from Yahoo Mail for iPhone", "Sent via the Samsung
# Galaxy …", "Sent with Proton Mail secure email.", "Get Outlook for Android". No order of
# any ruleset starts with "Sent", "Securely" or "Get"; a line with ": " is a lead-in
# ("Sent from the office: PLAY EXPAND"), no signature.
_MOBILE_RE = re.compile(
    r"^(?!.*:\s)\s*((securely )?sent (from|via|with|using) |sent wirelessly from |get outlook for |"
    r"envoyé de mon |von meinem .* gesendet|enviado desde mi |inviato da )",
    re.IGNORECASE,
)
_RULE_RE = re.compile(r"_{10,}|(\*\s*){3,}|-{3,}|={3,}")


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines the attribution starting at line ``i`` takes (0: none)."""
    line = lines[i].strip()
    if (
        len(line) < 300
        and _ATTRIBUTION_END_RE.search(line)
        and (_ATTRIBUTION_START_RE.match(line) or "@" in line or "<" in line)
    ):
        return 1
    # "Am <date> schrieb <name> <address>:" (German, Dutch, Scandinavian word order).
    if (
        len(line) < 300
        and line.endswith(":")
        and _ATTRIBUTION_START_RE.match(line)
        and _ATTRIBUTION_VERB_RE.search(line)
    ):
        return 1
    # "сб, 21 нояб. 2026 г. в 10:00, Name <address>:" above a '>' quote (Gmail), or any
    # line naming an address and ending in ":" there.
    if (
        len(line) < 300
        and line.endswith(":")
        and _ADDRESS_IN_RE.search(line)
        and _next_nonblank(lines, i + 1).lstrip().startswith(">")
    ):
        return 1
    # Mail clients wrap a long "On <date>, <name> <address> wrote:" over two or three lines.
    if _ATTRIBUTION_START_RE.match(line):
        joined = line
        for extra, nxt in enumerate(lines[i + 1 : i + 3], start=2):
            joined += " " + nxt.strip()
            if _ATTRIBUTION_END_RE.search(joined):
                return extra
    return 0


def _is_outlook_header(lines: list[str], i: int) -> bool:
    if not _OUTLOOK_FROM_RE.match(lines[i]):
        return False
    return any(_OUTLOOK_NEXT_RE.match(nxt) for nxt in lines[i + 1 : i + 4])


def _next_nonblank(lines: list[str], start: int) -> str:
    for j in range(start, len(lines)):
        if lines[j].strip():
            return lines[j]
    return ""


_PGP_BEGIN = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIG_BEGIN = "-----BEGIN PGP SIGNATURE-----"
_PGP_SIG_END = "-----END PGP SIGNATURE-----"
_PGP_ARMOR_HEADER_RE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: ?.*$")


def _first_at_or_after(positions: list[int], start: int) -> int | None:
    found = bisect.bisect_left(positions, start)
    return positions[found] if found < len(positions) else None


def strip_pgp_clearsign(text: str) -> str:
    """``text`` with each PGP clear-signed block (RFC 4880 section 7) reduced to the text
    that was signed: the ``BEGIN PGP SIGNED MESSAGE`` line and its armour headers
    ("Hash: SHA256") up to the blank line go, dash-escaped lines ("- -- ") lose their
    "- ", and the signature block goes. The signature is not checked (it proves nothing
    the gateway uses). A block without its signature is left as it is. Linear."""
    if _PGP_BEGIN not in text:
        return text
    lines = text.split("\n")
    sigs = [k for k, line in enumerate(lines) if line.strip() == _PGP_SIG_BEGIN]
    ends = [k for k, line in enumerate(lines) if line.strip() == _PGP_SIG_END]
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() != _PGP_BEGIN:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and _PGP_ARMOR_HEADER_RE.match(lines[j].strip()):
            j += 1
        if j >= len(lines) or lines[j].strip():
            out.append(lines[i])  # no blank line after the armour headers: not PGP
            i += 1
            continue
        start = j + 1
        sig = _first_at_or_after(sigs, start)
        end = _first_at_or_after(ends, sig) if sig is not None else None
        if sig is None or end is None:
            out.append(lines[i])  # unfinished: read as it is
            i += 1
            continue
        for line in lines[start:sig]:
            out.append(line[2:] if line.startswith("- ") else line)
        i = end + 1
    return "\n".join(out)


def strip_reply(text: str) -> str:
    """The new part of a reply: stops at a signature ("-- "), an "Original Message"
    separator, an Outlook header block, the "above this line" marker, or an attribution
    line ("On … wrote:" and its translations) followed by unquoted text; drops '>' lines
    (with their attribution: the answer may be below them) and mobile signatures."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    skip_to = 0
    for i, line in enumerate(lines):
        if i < skip_to:
            continue
        stripped = line.strip()
        if line.rstrip("\n") in _SIG_LINES or stripped == "--":
            break
        if (
            _ORIGINAL_RE.match(stripped)
            or _FORWARDED_RE.match(stripped)
            # Unquoted only: a bottom-poster's client quotes the marker ("> ####
            # Write your order above this line ####") above the order it then writes.
            or ("above this line" in stripped.lower() and not stripped.startswith(">"))
        ):
            break
        # A rule (Outlook's "____", html2text's "* * *") right above a "From:" header block.
        if _RULE_RE.fullmatch(stripped) and any(
            _OUTLOOK_FROM_RE.match(n) for n in lines[i + 1 : i + 4]
        ):
            break
        span = _attribution_span(lines, i)
        if span:
            # The next non-blank line only (linear: no copy of all the lines after it).
            following = _next_nonblank(lines, i + span)
            if following.lstrip().startswith(">"):
                # A '>' quote follows: drop the attribution and the quote, keep reading
                # (the answer may be below the quote: bottom posting, inline replies).
                skip_to = i + span
                continue
            break
        if _is_outlook_header(lines, i):
            break
        if stripped.startswith(">") or _MOBILE_RE.match(stripped):
            continue
        out.append(line.rstrip())
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)
