"""Request parsers of the API: DRF's, with JSON nested too deeply for the decoder a 400;
and its content negotiation: JSON when the Accept header asks for something else."""

from __future__ import annotations

import codecs
from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import NotAcceptable, ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import get_encoding
from rest_framework.utils import json


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object naming a key twice (``{"prompt": 1, "prompt": 2}``) is refused: which one
    the client meant is a guess, and an order must never be guessed onto a prompt."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser, with two more refusals, each a parse error (400) like any other
    malformed JSON: a body nested deeper than Python's recursion limit (``[[[[...``, a few
    kB; the decoder's RecursionError, which DRF does not catch) and a key given twice in
    one object."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        encoding = get_encoding(parser_context or {})
        try:
            decoded = codecs.getreader(encoding)(stream)
            parse_constant = json.strict_constant if self.strict else None
            return json.load(
                decoded, parse_constant=parse_constant, object_pairs_hook=_no_duplicate_keys
            )
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


class FormParser(parsers.FormParser):
    """DRF's FormParser with the JSON parser's refusals (each a 400): a field given twice
    (``prompt=7&prompt=1`` took the last: an order guessed onto a prompt), and a body that
    is not valid UTF-8 (a raw byte was read as Latin-1, a ``%FF`` as U+FFFD)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        from django.conf import settings
        from django.http import QueryDict

        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        body = stream.read() if stream is not None else b""
        try:
            body.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            raise ParseError(f"Form parse error - the body is not valid {encoding}") from None
        data = QueryDict(body, encoding=encoding)
        for key, values in data.lists():
            if "\ufffd" in key or any("\ufffd" in value for value in values):
                raise ParseError(
                    f"Form parse error - the field {key[:40]!r} is not valid {encoding}"
                )
            if len(values) > 1:
                raise ParseError(
                    f"Form parse error - the field {key[:40]!r} is given {len(values)} times"
                )
        return data


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, except that an Accept header no renderer satisfies (a browser's
    ``text/html``) gets the view's first representation (JSON for every API view)
    rather than a 406: a person who opened an API link in a browser learns more from
    the JSON answer."""

    def filter_renderers(self, renderers: list[Any], format: str) -> list[Any]:
        """``?format=xml``: DRF answers 404 "Not found.", which reads as if the endpoint
        did not exist; here it is a 406 that says the API speaks JSON only."""
        found = [r for r in renderers if r.format == format]
        if not found:
            raise NotAcceptable(f"format={format!r}: this API answers in JSON only (format=json).")
        return found

    def select_renderer(self, request: Any, renderers: list[Any], format_suffix: Any = None) -> Any:
        # ``?format=`` with no value: DRF reads it as no format at all, so a POST so sent
        # was carried out (a fuzzing find); the schema's ``format`` is ``json`` only.
        if request.query_params.get(self.settings.URL_FORMAT_OVERRIDE) == "":
            self.filter_renderers(renderers, "")
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            if request.query_params.get(self.settings.URL_FORMAT_OVERRIDE):
                raise  # an explicit ?format= stays DRF's answer
            return renderers[0], renderers[0].media_type
