"""A rating graph as inline SVG, drawn from the ledger (no JavaScript, no library)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


def rating_svg(
    ratings: Sequence[float], start: float | None = None, width: int = 560, height: int = 180
) -> SafeString:
    """A line chart of ratings after each game (``start`` is the rating before the
    first). Empty string when there is nothing to draw."""
    points = ([start] if start is not None else []) + list(ratings)
    if len(points) < 2:
        return mark_safe("")
    pad = 28
    low, high = min(points), max(points)
    if high - low < 20:
        low, high = low - 10, high + 10
    step = (width - 2 * pad) / (len(points) - 1)

    def y(value: float) -> float:
        return height - pad - (value - low) / (high - low) * (height - 2 * pad)

    coords = " ".join(f"{pad + i * step:.1f},{y(v):.1f}" for i, v in enumerate(points))
    dots = "".join(
        format_html('<circle cx="{}" cy="{}" r="3"><title>{}</title></circle>',
                    f"{pad + i * step:.1f}", f"{y(v):.1f}", f"{v:.1f}")
        for i, v in enumerate(points)
    )
    return format_html(
        '<svg class="rating-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="Rating after each game">'
        '<line x1="{p}" y1="{b}" x2="{r}" y2="{b}" stroke="#dfe3ea"/>'
        '<text x="2" y="{ty}" font-size="11" fill="#6b7384">{hi}</text>'
        '<text x="2" y="{by}" font-size="11" fill="#6b7384">{lo}</text>'
        '<polyline fill="none" stroke="#2f5bd3" stroke-width="2" points="{c}"/>'
        '<g fill="#2f5bd3">{d}</g></svg>',
        w=width, h=height, p=pad, r=width - pad, b=height - pad, ty=pad, by=height - pad,
        hi=f"{high:.0f}", lo=f"{low:.0f}", c=coords, d=mark_safe(dots),
    )
