"""Path converters shared by every room's URLs."""

from __future__ import annotations

from django.urls.converters import IntConverter

#: The largest key the databases' 64-bit id columns hold.
MAX_ROW_ID = 2**63 - 1


class RowIdConverter(IntConverter):
    """``<id:...>``: a row id, as ``<int:...>``. A number too large for the databases'
    64-bit keys is read as 0, which no row has: the page or API call answers as for any
    id that names nothing ("No such game."), where a query with it would overflow (500)
    and a converter refusing it made the path an unknown one ("No such API endpoint")."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        if len(value.lstrip("0")) > len(str(MAX_ROW_ID)) or int(value) > MAX_ROW_ID:
            return 0
        return int(value)
