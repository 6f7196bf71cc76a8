"""Charts drawn on the server as SVG: read without JavaScript, without a network and under
the Content Security Policy (no script, no inline style: classes of ``style.css`` and SVG's
own attributes). Every number a chart shows is also in the table beside it.

- :func:`board_chart`: a leaderboard's scores, one bar per row in rank order (beyond
  :data:`MAX_BARS` rows, one per run of neighbouring ranks), the current record marked;
- :func:`model_chart`: one model's results, one line per result: where its value falls
  between the lowest and the highest value of that benchmark's board.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from markupsafe import Markup, escape

from ..store.index.ranking import Ranked

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 12, 22, 44
#: Up to this many bars, each is a link to its record (keyboard reachable); a larger board
#: would make a reader tab through thousands of marks, and its table has the links.
LINKED_MARKS = 100


@dataclass(frozen=True)
class Bars:
    """What a leaderboard's chart draws: every ranked value, best first; the ranked rows
    themselves where there are few enough for a bar each (else none); and the place among
    the values of the record to mark (None: none)."""

    values: Sequence[float]
    entries: Sequence[Ranked] = ()
    current: int | None = None


#: At most this many bars: a longer board's bars each stand for a run of neighbouring ranks.
MAX_BARS = 360


def ranks_per_bar(values: int) -> int:
    """How many neighbouring ranks one bar of a board's chart stands for.

    >>> ranks_per_bar(360), ranks_per_bar(4574)
    (1, 13)
    """
    return max(1, math.ceil(values / MAX_BARS))


def board_chart(
    bars: Bars, metric: str, lower_is_better: bool, record_href=lambda row: ""
) -> Markup:
    """One bar per ranked value, best first, the current record's marked; its y axis names
    ``metric``. Beyond :data:`MAX_BARS` values, each bar stands for a run of neighbouring
    ranks and is drawn at the best value of its run (the title says how many), so that the
    chart weighs the same for a board of any length."""
    values = bars.values
    if not values:
        return Markup("")
    per_bar = ranks_per_bar(len(values))
    heights = [float(v) for v in values[::per_bar]]
    low, high = _range([min(values), max(values)])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / len(heights)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - (v - low) / (high - low))

    base_y = y(max(low, min(0.0, high)))
    direction = "lower is better" if lower_is_better else "higher is better"
    title = f"{metric}: {len(values)} results, best first ({direction})"
    if per_bar > 1:
        title += f"; each bar stands for {per_bar} neighbouring ranks, drawn at the best of them"
    out = [
        f'<svg class="chart board-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="group" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    out += _y_axis(low, high, y, metric)
    out.append(
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" '
        f'y2="{TOP + plot_h}"/>'
    )
    out.append(
        f'<text class="axis-title" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" '
        f'text-anchor="middle">rank (1 = best; {escape(direction)})</text>'
    )
    rank_step = plot_w / len(values)
    out += _rank_ticks(len(values), lambda i: LEFT + rank_step * (i - 0.5), TOP + plot_h)
    linked = len(bars.entries) == len(values) and len(values) <= LINKED_MARKS
    marked = None if bars.current is None else bars.current // per_bar
    width = max(step * 0.8, 0.6)
    for i, value in enumerate(heights):
        top = y(value)
        ys = sorted((top, base_y))
        is_current = i == marked
        bar = (
            f'<rect class="mark{" current" if is_current else ""}" '
            f'x="{LEFT + step * i + (step - width) / 2:.2f}" '
            f'y="{ys[0]:.2f}" width="{width:.2f}" height="{max(ys[1] - ys[0], 0.5):.2f}"'
        )
        entry = bars.entries[i] if len(bars.entries) == len(values) else None
        if entry is not None:
            bar += f' data-record="{escape(entry.row.id)}"'
        if entry is not None and (linked or is_current):  # a bar one can point at
            row = entry.row
            label = escape(f"{entry.rank}. {row.model}: {row.printed} ({row.source_title})")
            bar = (
                f'<a href="{escape(record_href(row))}" aria-label="{label}">{bar}>'
                f"<title>{label}</title></rect></a>"
            )
        else:  # one of hundreds, a pixel or two wide: the table names it
            bar += "/>"
        out.append(bar)
        if is_current:  # a pointer above the bar, wide enough to see among hundreds
            x = LEFT + step * (i + 0.5)
            out.append(
                f'<path class="current-pointer" d="M{x - 5:.1f},{TOP - 12} '
                f'L{x + 5:.1f},{TOP - 12} L{x:.1f},{TOP - 3} Z"/>'
            )
    out.append("</svg>")
    return Markup("".join(out))


@dataclass
class ModelPoint:
    """One result of a model: its benchmark's label, its value, and the board's range."""

    label: str
    href: str
    value: Decimal
    printed: str
    low: Decimal
    high: Decimal
    rank: int | None
    of: int
    lower_is_better: bool


def model_chart(points: Sequence[ModelPoint], model: str) -> Markup:
    """One line per result: the benchmark's lowest to highest value on its board, the
    model's value a dot on it (the better end on the right, whatever the direction)."""
    if not points:
        return Markup("")
    row_h, label_w, value_w = 20, 250, 150
    height = TOP + row_h * len(points) + BOTTOM
    track = WIDTH - label_w - value_w - RIGHT
    title = f"{model}: {len(points)} results, each between its benchmark's lowest and highest"
    out = [
        f'<svg class="chart model-chart" viewBox="0 0 {WIDTH} {height}" role="group" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for i, p in enumerate(points):
        cy = TOP + row_h * i + row_h / 2
        span = float(p.high - p.low)
        share = 0.5 if span == 0 else float(p.value - p.low) / span
        if p.lower_is_better:
            share = 1 - share
        cx = label_w + track * share
        rank = f"rank {p.rank} of {p.of}" if p.rank is not None else f"unranked, of {p.of}"
        out.append(
            f'<text class="tick-label" x="{label_w - 8}" y="{cy + 4:.1f}" '
            f'text-anchor="end">{escape(_short(p.label, 34))}</text>'
        )
        out.append(
            f'<line class="track" x1="{label_w}" y1="{cy:.1f}" '
            f'x2="{label_w + track}" y2="{cy:.1f}"/>'
        )
        said = escape(f"{p.label}: {p.printed}, {rank}")
        out.append(
            f'<a href="{escape(p.href)}" aria-label="{said}"><circle class="mark" '
            f'cx="{cx:.1f}" cy="{cy:.1f}" r="5"><title>{said}</title></circle></a>'
        )
        out.append(
            f'<text class="tick-label" x="{label_w + track + 10}" y="{cy + 4:.1f}">'
            f"{escape(p.printed)} · {rank}</text>"
        )
    bottom = TOP + row_h * len(points)
    out.append(
        f'<text class="axis-title" x="{label_w + track / 2:.1f}" y="{bottom + 26}" '
        'text-anchor="middle">the benchmark\'s worst value → its best</text>'
    )
    out.append("</svg>")
    return Markup("".join(out))


def _range(values: list[float]) -> tuple[float, float]:
    low, high = min(min(values), 0.0), max(values)
    if high <= low:
        high = low + 1
    step = _nice_step((high - low) / 5)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def _nice_step(raw: float) -> float:
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _y_axis(low: float, high: float, y, metric: str) -> list[str]:
    step = _nice_step((high - low) / 5)
    out = [f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y(low):.1f}"/>']
    tick = low
    while tick <= high + step / 1000:
        out.append(
            f'<line class="grid" x1="{LEFT}" y1="{y(tick):.1f}" x2="{WIDTH - RIGHT}" '
            f'y2="{y(tick):.1f}"/>'
        )
        out.append(
            f'<text class="tick-label" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{_number(tick)}</text>'
        )
        tick += step
    middle = (TOP + y(low)) / 2
    out.append(
        f'<text class="axis-title" x="14" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {middle:.1f})">{escape(_short(metric, 40))}</text>'
    )
    return out


def _rank_ticks(count: int, x, axis_y: float) -> list[str]:
    ticks = sorted({1, count, *(round(count * k / 4) for k in (1, 2, 3))} - {0})
    return [
        f'<text class="tick-label" x="{x(t):.1f}" y="{axis_y + 16}" text-anchor="middle">{t}</text>'
        for t in ticks
    ]


def _number(value: float) -> str:
    return f"{value:.6g}"


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
