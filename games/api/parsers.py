"""Request parsers of the API: DRF's, with JSON nested too deeply for the decoder a 400;
and its content negotiation: JSON when the Accept header asks for something else."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import NotAcceptable, ParseError
from rest_framework.negotiation import DefaultContentNegotiation


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser; a body nested deeper than Python's recursion limit (``[[[[...``,
    a few kB) raises RecursionError in the decoder, which DRF does not catch: here it is
    a parse error like any other malformed JSON."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, except that an Accept header no renderer satisfies (a browser's
    ``text/html``) gets the view's first representation (JSON for every API view)
    rather than a 406: a person who opened an API link in a browser learns more from
    the JSON answer."""

    def select_renderer(self, request: Any, renderers: list[Any], format_suffix: Any = None) -> Any:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            if request.query_params.get(self.settings.URL_FORMAT_OVERRIDE):
                raise  # an explicit ?format= stays DRF's answer
            return renderers[0], renderers[0].media_type
