"""Request parsers of the API: DRF's, with JSON nested too deeply for the decoder a 400."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser; a body nested deeper than Python's recursion limit (``[[[[...``,
    a few kB) raises RecursionError in the decoder, which DRF does not catch: here it is
    a parse error like any other malformed JSON."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
