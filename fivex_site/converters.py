"""Path converters shared by every room's URLs."""

from __future__ import annotations

import re

from django.urls.converters import IntConverter

#: The largest key the databases' 64-bit id columns hold.
MAX_ROW_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")


def row_id(text: object) -> int | None:
    """``text`` as a row id: None unless it is digits only; a number too large for the
    databases' 64-bit keys (however many digits: Python's ``int`` refuses more than
    4,300) is 0, which no row has."""
    if not isinstance(text, str) or not _DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_ROW_ID)) or int(digits) > MAX_ROW_ID:
        return 0
    return int(digits)


class RowIdConverter(IntConverter):
    """``<id:...>``: a row id, as ``<int:...>``. A number too large for the databases'
    64-bit keys is read as 0, which no row has: the page or API call answers as for any
    id that names nothing ("No such game."), where a query with it would overflow (500)
    and a converter refusing it made the path an unknown one ("No such API endpoint")."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        return row_id(value) or 0
