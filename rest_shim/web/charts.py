"""Charts drawn on the server as SVG: deployments per day and lead times, no chart service and
no script. Every text placed in a chart is escaped."""

from __future__ import annotations

import datetime
import math
from collections import Counter
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 16, 36
DAY = 86400.0


def _day(stamp: float) -> datetime.date:
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).date()


def _nice_top(value: float) -> float:
    """A round upper bound of the axis: 1, 2 or 5 times a power of ten."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return float(step * power)
    return float(10 * power)


def _frame(title: str, top: float, unit: str, body: str, labels: Sequence[tuple[float, str]],
           steps: int = 4) -> str:
    plot_h = HEIGHT - TOP - BOTTOM
    ticks = []
    for i in range(steps + 1):
        value = top * i / steps
        y = TOP + plot_h - plot_h * i / steps
        ticks.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#e3e6ee"/><text x="{LEFT - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{escape(_number(value))}</text>')
    bottom = "".join(
        f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" '
        f'text-anchor="{"end" if i == len(labels) - 1 and len(labels) > 1 else "middle"}">'
        f"{escape(text)}</text>" for i, (x, text) in enumerate(labels))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}" '
            f'font-family="system-ui,sans-serif" font-size="11" fill="#1d2330">'
            f"<title>{escape(title)}</title>{''.join(ticks)}{body}{bottom}"
            f'<text x="{LEFT}" y="{HEIGHT - 4}" fill="#555">{escape(unit)}</text></svg>')


def _number(value: float) -> str:
    return f"{value:.3g}"


def deployments_per_day(times: Sequence[float], start: float, end: float, title: str) -> str:
    """A bar per day from `start` to `end` (UTC days): how many deployments it had."""
    first, last = _day(start), _day(max(end, start))
    days = min((last - first).days + 1, 366)
    first = last - datetime.timedelta(days=days - 1)
    counts = Counter(_day(t) for t in times)
    values = [counts.get(first + datetime.timedelta(days=i), 0) for i in range(days)]
    top = _nice_top(max(values, default=0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / days
    bars = []
    for i, value in enumerate(values):
        if not value:
            continue
        h = plot_h * value / top
        day = first + datetime.timedelta(days=i)
        bars.append(f'<rect x="{LEFT + i * step + step * 0.1:.1f}" y="{TOP + plot_h - h:.1f}" '
                    f'width="{max(step * 0.8, 1):.1f}" height="{h:.1f}" fill="#3d6fd6">'
                    f"<title>{day.isoformat()}: {value}</title></rect>")
    labels = [(LEFT + (i + 0.5) * step, (first + datetime.timedelta(days=i)).strftime("%b %d"))
              for i in range(0, days, max(days // 6, 1))]
    # Whole deployments: a tick per deployment while there are few.
    return _frame(title, top, "deployments per day", "".join(bars), labels,
                  steps=int(top) if top < 4 else 4)


_UNITS = ((86400.0, "days"), (3600.0, "hours"), (60.0, "minutes"), (1.0, "seconds"))


def lead_times(times: Sequence[float], seconds: Sequence[float], title: str) -> str:
    """A point per deployment: when (x) and how long from its commit (y, in the largest unit
    the longest lead time fills)."""
    pairs = [(t, s) for t, s in zip(times, seconds, strict=False) if s >= 0]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    if not pairs:
        return _frame(title, 1.0, "lead time from commit to deployment", "", [])
    longest = max(s for _, s in pairs)
    size, unit = next(((size, unit) for size, unit in _UNITS if longest >= size), _UNITS[-1])
    low, high = min(t for t, _ in pairs), max(t for t, _ in pairs)
    span = max(high - low, DAY)
    top = _nice_top(longest / size)
    points = "".join(
        f'<circle cx="{LEFT + plot_w * (t - low) / span:.1f}" '
        f'cy="{TOP + plot_h - plot_h * (s / size) / top:.1f}" r="3" fill="#d2691e">'
        f"<title>{_day(t).isoformat()}: {s / size:.3g} {unit}</title></circle>"
        for t, s in pairs)
    labels = [(LEFT + plot_w * i / 4, _day(low + span * i / 4).strftime("%b %d")) for i in range(5)]
    return _frame(title, top, f"lead time ({unit}) from commit to deployment", points, labels)
