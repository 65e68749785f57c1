"""Is the sender of an order mail who its ``From:`` says? Read from the
``Authentication-Results`` header (RFC 8601) that the site's own receiving mail server
wrote, never from one the sender could have written.

FiveX does not check DKIM signatures or SPF records itself (that takes DNS and the
message as it crossed the internet, which the receiving server has and the gateway may
not). The receiving server does and says so in a header that starts with its
*authserv-id*; a server must remove headers that claim its own id from arriving mail
(RFC 8601, section 5), so a header with that id is one it wrote. Only such headers are
read (``MAIL_AUTHSERV_ID``: the id, or several, comma-separated), the topmost one.

The ``From:`` address counts as authenticated when that header reports, for the
``From:`` domain (or a parent or subdomain of it, as DMARC's relaxed alignment):
``dmarc=pass`` with ``header.from``, or ``dkim=pass`` with ``header.d`` (or ``header.i``), or ``spf=pass``
with ``smtp.mailfrom`` (a pass for ``smtp.helo`` alone is not enough: it names a host,
not a sender).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# key=value, the value a run of quoted strings and plain characters (a quoted local part
# and its domain are one value: "x.example.com"@evil.example is at evil.example). No
# space around "=": an empty value must not take the next key=value for its own (servers
# write none; a header that does is not read, which refuses rather than accepts).
_PAIR_RE = re.compile(r'([A-Za-z0-9_.\-/]+)=((?:"(?:[^"\\]|\\.)*"|[^\s;"])+)')


@dataclass
class Result:
    """One method's result in an Authentication-Results header."""

    method: str
    result: str
    props: dict[str, str] = field(default_factory=dict)


def _split(value: str) -> list[str]:
    """The header's parts between the semicolons that separate them, with comments
    removed: a semicolon or parenthesis inside a quoted string (a local part such as
    ``smtp.mailfrom="x;dkim=pass"@evil.example``, which the sender chooses) or inside a
    comment separates nothing. Quoted strings are kept, quotes included."""
    parts, part = [], []
    depth, quoted, escaped = 0, False, False
    for ch in value:
        if escaped:
            if depth == 0:
                part.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
            if depth == 0:
                part.append(ch)
        elif quoted:
            part.append(ch)
            if ch == '"':
                quoted = False
        elif depth:
            depth += {"(": 1, ")": -1}.get(ch, 0)
        elif ch == "(":
            depth = 1
            part.append(" ")
        elif ch == '"':
            quoted = True
            part.append(ch)
        elif ch == ";":
            parts.append("".join(part))
            part = []
        else:
            part.append(ch)
    parts.append("".join(part))
    return parts


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse(value: str) -> tuple[str, list[Result]]:
    """``(authserv-id, results)`` of one header value; the id lowercased, ``""`` when
    the value has none. Unknown or malformed parts are skipped, never raised on."""
    parts = _split(value or "")
    head = parts[0].split()
    authserv = head[0].lower() if head else ""
    results = []
    for part in parts[1:]:
        pairs = _PAIR_RE.findall(part)
        if not pairs:
            continue
        method, result = pairs[0]
        if "." in method:  # a property without a method: not a result
            continue
        props = {
            key.lower(): _unquote(val).lower()
            for key, val in pairs[1:]
            if "." in key
        }
        results.append(Result(method.split("/")[0].lower(), _unquote(result).lower(), props))
    return authserv, results


def _domain(value: str) -> str:
    """The domain of an address or a domain (``ann@example.com`` -> ``example.com``),
    lowercased, without a trailing dot, internationalized names in their ASCII form."""
    domain = value.rpartition("@")[2].strip().strip(".").lower()
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment without the public suffix list: the same domain, or one a
    subdomain of the other; a bare top-level domain never aligns."""
    if not domain or not from_domain or "." not in domain or "." not in from_domain:
        return False
    return (
        domain == from_domain
        or from_domain.endswith("." + domain)
        or domain.endswith("." + from_domain)
    )


def trusted_header(values: list[str], authserv_ids: list[str]) -> list[Result] | None:
    """The results of the topmost header written by one of ``authserv_ids`` (None when
    there is none)."""
    wanted = {i.strip().lower() for i in authserv_ids if i.strip()}
    for value in values:
        authserv, results = parse(value)
        if authserv in wanted:
            return results
    return None


def verdict(values: list[str], sender: str, authserv_ids: list[str]) -> tuple[bool, str]:
    """Whether ``sender`` (the ``From:`` address) is authenticated by the site's
    receiving server's header among ``values`` (every Authentication-Results value,
    topmost first), and why, in words for the player."""
    from_domain = _domain(sender)
    results = trusted_header(values, authserv_ids)
    if results is None:
        return False, "the receiving mail server did not check it"
    for r in results:
        if r.result != "pass":
            continue
        # Each pass counts only for the domain the server names with it.
        if r.method == "dmarc" and aligned(_domain(r.props.get("header.from", "")), from_domain):
            return True, "DMARC pass"
        if r.method == "dkim":
            signer = _domain(r.props.get("header.d") or r.props.get("header.i", ""))
            if aligned(signer, from_domain):
                return True, f"DKIM pass ({signer})"
        if r.method == "spf" and aligned(_domain(r.props.get("smtp.mailfrom", "")), from_domain):
            return True, "SPF pass"
    seen = ", ".join(f"{r.method}={r.result}" for r in results) or "no result"
    return False, f"no DKIM, SPF or DMARC pass for {from_domain or 'its domain'} ({seen})"


def dmarc_failed(values: list[str], sender: str, authserv_ids: list[str]) -> bool:
    """Whether the site's receiving server's header among ``values`` (topmost first)
    reports a DMARC fail for the domain of ``sender`` (the ``From:`` address): its owner
    says such mail is not theirs, so a ``From:`` naming the player's own address proves
    nothing. Only an explicit fail counts (a domain publishing no DMARC policy, or a
    message not checked, is not flagged)."""
    from_domain = _domain(sender)
    results = trusted_header(values, authserv_ids) or []
    return any(
        r.method == "dmarc"
        and r.result == "fail"
        and aligned(_domain(r.props.get("header.from", "")), from_domain)
        for r in results
    )
