"""Inline SVG charts of an experiment's ``report.html``: each titled, with labelled axes and ticks, and
intervals drawn as whiskers. Self-contained (no script, no external file)."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

WIDTH = 720
LEFT = 200
"""x of the vertical axis: the category labels and the vertical axis title sit left of it."""
RIGHT = 70
TOP = 56
"""y of the plotting area: the title and the legend sit above it."""
BOTTOM = 48
ROW = 18


@dataclass(frozen=True)
class Mark:
    """One value of a category: a bar from 0 (or a dot), its interval (a whisker) when known; None: n/a."""

    series: str
    value: float | None
    low: float | None = None
    high: float | None = None
    tooltip: str = ""


def ticks(low: float, high: float, target: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]``, about ``target`` of them."""
    raw = max(high - low, 1e-9) / target
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(i * step, 10) for i in range(first, math.floor(high / step + 1e-9) + 1)]


def _tick_text(value: float, values: Sequence[float]) -> str:
    step = min((b - a for a, b in zip(values, values[1:])), default=1.0)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{value:.{decimals}f}"


def frame(title: str, x_label: str, y_label: str, domain: tuple[float, float], height: int,
          legend: Sequence[tuple[str, str]] = ()) -> tuple[list[str], Callable[[float], float]]:
    """The opening of a chart of plotting height ``height``: title, legend, x ticks with grid lines, both axes
    and their titles. Returns the SVG parts (to be closed with ``</svg>``) and the x scale."""
    low, high = domain
    plot_width = WIDTH - LEFT - RIGHT

    def x(value: float) -> float:
        return LEFT + plot_width * (value - low) / max(high - low, 1e-9)

    total = TOP + height + BOTTOM
    esc = html.escape
    parts = [f'<svg class="chart" width="{WIDTH}" height="{total}" viewBox="0 0 {WIDTH} {total}" role="img" '
             f'aria-label="{esc(title)}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif">',
             f"<title>{esc(title)}</title>",
             f'<text class="chart-title" x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" font-size="14" '
             f'font-weight="bold">{esc(title)}</text>']
    for i, (name, colour) in enumerate(legend):
        lx = LEFT + 130 * i
        parts.append(f'<g class="legend"><rect x="{lx}" y="30" width="12" height="12" fill="{colour}"/>'
                     f'<text x="{lx + 16}" y="40" font-size="12">{esc(name)}</text></g>')
    bottom = TOP + height
    values = ticks(low, high)
    for value in values:
        tx = x(value)
        parts.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{TOP}" y2="{bottom}" stroke="#e4e4e4"/>'
                     f'<text class="tick" x="{tx:.1f}" y="{bottom + 15}" text-anchor="middle" font-size="11">'
                     f"{_tick_text(value, values)}</text>")
    parts += [f'<line class="axis x" x1="{LEFT}" x2="{LEFT + plot_width}" y1="{bottom}" y2="{bottom}" stroke="#333"/>',
              f'<line class="axis y" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}" stroke="#333"/>',
              f'<text class="axis-label x" x="{LEFT + plot_width / 2:.0f}" y="{bottom + 36}" text-anchor="middle" '
              f'font-size="12">{esc(x_label)}</text>',
              f'<text class="axis-label y" transform="translate(12 {TOP + height / 2:.0f}) rotate(-90)" '
              f'text-anchor="middle" font-size="12">{esc(y_label)}</text>']
    return parts, x


def bar_chart(title: str, x_label: str, y_label: str, groups: Sequence[tuple[str, Sequence[Mark]]],
              colours: dict[str, str]) -> str:
    """Horizontal bars on ``[0, 1]``, one per mark, grouped by category (labelled on the vertical axis),
    each interval a whisker with caps; a mark without a value is written n/a."""
    height = sum(ROW * len(marks) + 8 for _, marks in groups)
    legend = [(name, colour) for name, colour in colours.items() if len(colours) > 1]
    parts, x = frame(title, x_label, y_label, (0.0, 1.0), height, legend)
    esc = html.escape
    y = TOP + 4
    for label, marks in groups:
        parts.append(f'<text class="category" x="{LEFT - 8}" y="{y + ROW * len(marks) / 2 + 4:.0f}" '
                     f'text-anchor="end" font-size="12">{esc(label)}</text>')
        for mark in marks:
            tip = f"<title>{esc(mark.tooltip)}</title>" if mark.tooltip else ""
            if mark.value is None:
                parts.append(f'<text class="na" x="{LEFT + 4}" y="{y + 12}" font-size="11" fill="#777">'
                             f"{esc(mark.series)}: n/a{tip}</text>")
            else:
                parts.append(f'<rect class="bar" x="{LEFT}" y="{y + 3}" width="{x(mark.value) - LEFT:.1f}" '
                             f'height="{ROW - 6}" fill="{colours[mark.series]}">{tip}</rect>')
                end = x(mark.value)
                if mark.low is not None and mark.high is not None:
                    x1, x2, mid = x(mark.low), x(mark.high), y + ROW / 2
                    parts.append(f'<g class="whisker" stroke="#222" stroke-width="1.5">{tip}'
                                 f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{mid}" y2="{mid}"/>'
                                 f'<line x1="{x1:.1f}" x2="{x1:.1f}" y1="{mid - 5}" y2="{mid + 5}"/>'
                                 f'<line x1="{x2:.1f}" x2="{x2:.1f}" y1="{mid - 5}" y2="{mid + 5}"/></g>')
                    end = x2
                parts.append(f'<text class="value" x="{end + 4:.1f}" y="{y + 13}" font-size="11">'
                             f"{mark.value:.4f}</text>")
            y += ROW
        y += 8
    return "".join(parts) + "</svg>"
