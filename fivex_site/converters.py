"""Path converters shared by every room's URLs."""

from __future__ import annotations

from django.urls.converters import IntConverter


class RowIdConverter(IntConverter):
    """``<id:...>``: a row id, as ``<int:...>`` but at most 18 digits, so every value fits
    the databases' 64-bit keys: a longer number is an unknown page (404), not an integer
    overflow in the query (500)."""

    regex = "[0-9]{1,18}"
