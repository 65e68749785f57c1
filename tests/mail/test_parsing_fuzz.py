"""Property: no input makes the parser raise (hostile and broken mail is normal)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.mail.parsing import ParsedMail, parse_message
from games.mail.quotes import strip_reply
from tests.mail.conftest import FIXTURES, eml

TO = "orders+0123456789abcdef01234567@orders.example"
SAMPLES = [eml(p.name, to=TO) for p in sorted(FIXTURES.glob("*.eml"))]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_arbitrary_bytes_never_raise(raw: bytes) -> None:
    parsed = parse_message(raw)
    assert isinstance(parsed, ParsedMail)
    parse_message(raw, headers_only=True)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SAMPLES),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=20),
    st.integers(0, 10_000),
)
def test_damaged_recorded_messages_never_raise(raw: bytes, flips, cut: int) -> None:
    data = bytearray(raw)
    for position, value in flips:
        data[position % len(data)] = value
    parsed = parse_message(bytes(data[: max(cut, len(data) // 2)]))
    assert isinstance(parsed.order_text, str)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=2000))
def test_strip_reply_never_raises_and_never_adds_text(text: str) -> None:
    out = strip_reply(text)
    assert len(out) <= len(text)
