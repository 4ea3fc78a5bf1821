"""What an exported chart shows: a figure that reads on its own, built from a snapshot.

A chart on screen leans on the window around it (the workspace's title, the legend beside the
plot, the status line); a PNG or SVG on a slide has none of that. A :class:`Figure` carries
everything it needs: a title and a subtitle with the numbers that matter, and per panel a title,
axis labels, tick labels, a legend, and the marks (bars, lines, min–max bands, dots) with their
colours. Pure Python: the builders read a snapshot (``LabSnapshot``, ``UpdateSnapshot``,
``TrainingSnapshot``) and a theme, compute nothing the snapshot does not hold beyond axis ticks,
and ``views/files/export_figures.py`` paints the result.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.training.training_config import METRICS

if TYPE_CHECKING:
    from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
    from grpo_desktop.core.training.training_snapshot import TrainingSnapshot
    from grpo_desktop.core.update.update_snapshot import UpdateSnapshot

__all__ = [
    "Figure",
    "LegendEntry",
    "Mark",
    "Panel",
    "advantage_figure",
    "nice_ticks",
    "push_figure",
    "training_figure",
]

MAX_BAR_TICKS = 16  # answer labels under the bars at most; more are thinned to every k-th
FRONTIER_LABEL_P = 0.15  # the frontier's curve labels sit here, where the curves are apart


@dataclass(frozen=True)
class Mark:
    """One drawn series of a panel.

    ``kind``: ``"bars"`` (one bar per x, ``width`` in x units, one colour per bar, optional value
    ``labels``, ``hatched`` for a second set), ``"line"`` (``style`` picks the dash pattern,
    ``width`` multiplies the theme's stroke), ``"band"`` (filled between ``low`` and ``y``),
    ``"dots"``. ``tag`` is written on a line at x = ``tag_x`` (the frontier's "G = 8").
    """

    kind: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    colours: tuple[str, ...]  # one for every point, or a single one for all
    low: tuple[float, ...] = ()
    style: int = 0
    width: float = 1.0
    hatched: bool = False
    labels: tuple[str, ...] = ()
    tag: str = ""
    tag_x: float = 0.0

    def colour(self, index: int = 0) -> str:
        return self.colours[index] if len(self.colours) > 1 else self.colours[0]


@dataclass(frozen=True)
class LegendEntry:
    """A legend line: a sample (``"bar"``, ``"hatched"``, ``"line"``, ``"band"``, ``"dot"``)."""

    text: str
    kind: str
    colour: str
    style: int = 0
    width: float = 1.0


@dataclass(frozen=True)
class Panel:
    title: str
    x_label: str
    y_label: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_ticks: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]
    marks: tuple[Mark, ...]
    legend: tuple[LegendEntry, ...] = ()
    reference: tuple[float, str] | None = None  # a horizontal line (0, or par) and its label
    marker_x: float | None = None  # a vertical line: the selected step
    note: str = ""  # one sentence under the plot


@dataclass(frozen=True)
class Figure:
    title: str
    subtitle: str
    panels: tuple[Panel, ...]
    legend: tuple[LegendEntry, ...] = ()  # shared by every panel (the training algorithms)
    note: str = ""

    def texts(self) -> list[str]:
        """Every text the figure writes, in reading order (for tests and accessibility)."""
        out = [self.title, self.subtitle, *(entry.text for entry in self.legend)]
        for panel in self.panels:
            out += [panel.title, *(entry.text for entry in panel.legend)]
            out += [text for _, text in panel.y_ticks] + [text for _, text in panel.x_ticks]
            out += [panel.y_label, panel.x_label]
            if panel.reference is not None:
                out.append(panel.reference[1])
            for mark in panel.marks:
                out += [*mark.labels, *([mark.tag] if mark.tag else [])]
            out.append(panel.note)
        out.append(self.note)
        return [text for text in out if text]


# --- ticks --------------------------------------------------------------------------------------


def _tick_step(span: float, count: int) -> float:
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if factor * power >= raw * (1 - 1e-9):
            return factor * power
    return 10.0 * power


def _tick_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    if step * 10**decimals % 1 > 1e-6:  # 2.5 × 10^k needs one more place
        decimals += 1
    text = f"{value:.{decimals}f}"
    if float(text) == 0.0:
        return "0"
    return text.replace("-", MINUS)


def nice_ticks(low: float, high: float, count: int = 5) -> tuple[tuple[float, str], ...]:
    """About ``count`` ticks at 1, 2, 2.5 or 5 × 10^k inside [low, high], labelled with just
    enough decimals and the real minus sign."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return ((low, number(low)),) if math.isfinite(low) else ()
    step = _tick_step(high - low, count)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = []
    for k in range(first, last + 1):
        value = k * step
        if abs(value) < step * 1e-9:
            value = 0.0
        ticks.append((value, _tick_text(value, step)))
    return tuple(ticks)


def _nice_ceiling(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^k at least ``value`` (1 for 0 or not finite)."""
    if not math.isfinite(value) or value <= 0:
        return 1.0
    return _tick_step(value, 1)


def _bar_ticks(count: int, texts: Sequence[str]) -> tuple[tuple[float, str], ...]:
    every = max(1, math.ceil(count / MAX_BAR_TICKS))
    chosen = [i for i in range(count) if i % every == 0 or i == count - 1]
    if len(chosen) > 1 and chosen[-1] - chosen[-2] < every:
        chosen.pop(-2)  # the last answer's label, not a crowded pair
    return tuple((float(i + 1), texts[i]) for i in chosen)


def _finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]


def _push_colour(theme: Theme, value: float) -> str:
    return theme.push_colour(value if math.isfinite(value) else 0.0)


def _push_legend(theme: Theme, values: Iterable[float], noun: str) -> tuple[LegendEntry, ...]:
    signs = {(v > 0) - (v < 0) for v in values if math.isfinite(v)}
    entries = []
    if 1 in signs:
        entries.append(LegendEntry(f"▲ pushed up ({noun} > 0)", "bar", theme.up))
    if -1 in signs:
        entries.append(LegendEntry(f"▼ pushed down ({noun} < 0)", "bar", theme.down))
    if 0 in signs:
        entries.append(LegendEntry(f"● no signal ({noun} = 0)", "bar", theme.neutral))
    return tuple(entries)


# --- the lab's advantage chart ------------------------------------------------------------------


def advantage_figure(
    snapshot: LabSnapshot, theme: Theme, view: str = "advantage", hidden: bool = False
) -> Figure:
    """The lab's bar chart: each answer's advantage (or reward), coloured by its push.

    ``hidden`` (predict, then reveal): the bars are grey and the advantages "?", as on screen.
    """
    cards = snapshot.cards
    count = len(cards)
    stats = snapshot.stats
    rewards = [float(card.reward) for card in cards]
    advantages = [float(card.advantage) for card in cards]
    colours = tuple(theme.neutral if hidden else _push_colour(theme, a) for a in advantages) or (
        theme.neutral,
    )
    if view == "reward":
        heights, labels = rewards, tuple(number(r) for r in rewards)
        reference = (float(stats.mean), f"par = {number(float(stats.mean), 4)}")
        y_label = "reward r"
        top = _nice_ceiling(max(_finite(rewards), default=1.0) * 1.15)
        bottom_value = min(_finite(rewards), default=0.0)
        bottom = 0.0 if bottom_value >= 0 else -_nice_ceiling(-bottom_value * 1.15)
        y_range = (bottom - 0.06 * (top - bottom), top)
        title = "Rewards of one group"
    else:
        if hidden:
            heights, labels = [0.0] * count, ("?",) * count
        else:
            heights, labels = advantages, tuple(signed(a, 2) for a in advantages)
        reference = (0.0, "0")
        y_label = "advantage A"
        extent = _nice_ceiling(max((abs(v) for v in _finite(heights)), default=0.0) * 1.2)
        y_range = (-extent, extent)
        title = "GRPO advantages of one group"
    ticks = _bar_ticks(count, [f"#{i + 1}" for i in range(count)])
    mark = Mark(
        "bars",
        tuple(float(i + 1) for i in range(count)),
        tuple(heights),
        colours,
        width=0.7,
        labels=labels,
    )
    legend = () if hidden else _push_legend(theme, advantages, "A")
    std_text = number(float(stats.std), 4)
    subtitle = (
        f"{snapshot.problem.title} · G = {count} · {snapshot.convention.label} · "
        f"mean (par) = {number(float(stats.mean), 4)}, std = {std_text}"
    )
    note = ""
    if hidden:
        note = "Advantages hidden: predict them, then reveal."
    elif stats.degenerate:
        note = "All rewards equal: every advantage is 0 and the group teaches nothing."
    else:
        note = f"▲ {stats.pushed_up} pushed up, ▼ {stats.pushed_down} pushed down."
    panel = Panel(
        title=f"{'Reward' if view == 'reward' else 'Advantage'} per answer",
        x_label="answer (card)",
        y_label=y_label,
        x_range=(0.4, count + 0.6),
        y_range=y_range,
        x_ticks=ticks,
        y_ticks=nice_ticks(*y_range),
        marks=(mark,),
        legend=legend,
        reference=reference,
        note=note,
    )
    return Figure(title, subtitle, (panel,))


# --- the Update step's push chart ---------------------------------------------------------------


def push_figure(snapshot: UpdateSnapshot, theme: Theme) -> Figure:
    """Each answer's total push under the two loss presets, side by side (comparison hatched)."""
    rows = snapshot.rows
    count = len(rows)

    def safe(value: float) -> float:
        return value if math.isfinite(value) else 0.0

    main = [safe(row.total_push) for row in rows]
    compare = [safe(row.compare_total_push) for row in rows]
    largest = max((abs(v) for v in main + compare), default=0.0)
    places = 2 if largest >= 1 else 3
    extent = _nice_ceiling(largest * 1.25)
    y_range = (-extent, extent)
    x = [float(i + 1) for i in range(count)]
    marks = (
        Mark(
            "bars",
            tuple(v - 0.2 for v in x),
            tuple(main),
            tuple(_push_colour(theme, v) for v in main) or (theme.neutral,),
            width=0.38,
            labels=tuple(signed(v, places) for v in main),
        ),
        Mark(
            "bars",
            tuple(v + 0.2 for v in x),
            tuple(compare),
            tuple(_push_colour(theme, v) for v in compare) or (theme.neutral,),
            width=0.38,
            hatched=True,
            labels=tuple(signed(v, places) for v in compare),
        ),
    )
    main_label, compare_label = snapshot.preset.label, snapshot.compare_preset.label
    legend = (
        LegendEntry(f"{main_label} (solid)", "bar", theme.neutral),
        LegendEntry(f"{compare_label} (hatched)", "hatched", theme.neutral),
        *_push_legend(theme, main + compare, "push"),
    )
    marks_text = {True: " ✓", False: " ✗", None: ""}
    ticks = _bar_ticks(count, [f"#{i + 1}{marks_text[row.correct]}" for i, row in enumerate(rows)])
    net = round(snapshot.net_push, places)
    compare_net = round(snapshot.compare_net_push, places)

    def words(value: float) -> str:
        if value > 0:
            return "likelihood pushed up"
        if value < 0:
            return "likelihood pushed down"
        return "no net change"

    settings = snapshot.settings
    eps = f"ε {number(settings.eps_low, 3)}/{number(settings.eps_high, 3)}"
    panel = Panel(
        title="Total push per answer (−∂loss/∂logp summed over its tokens)",
        x_label="answer (✓ right, ✗ wrong)",
        y_label="total push",
        x_range=(0.4, count + 0.6),
        y_range=y_range,
        x_ticks=ticks,
        y_ticks=nice_ticks(*y_range),
        marks=marks,
        legend=legend,
        reference=(0.0, "0"),
        note=(
            f"Net: {main_label} {signed(net, places)} ({words(net)}); "
            f"{compare_label} {signed(compare_net, places)} ({words(compare_net)})."
        ),
    )
    subtitle = (
        f"{count} answers · {eps} · inner steps {settings.inner_steps} · β {number(settings.beta)}"
    )
    return Figure(f"Update step: {main_label} vs {compare_label}", subtitle, (panel,))


# --- the training run ---------------------------------------------------------------------------


def _band_marks(theme: Theme, snapshot: TrainingSnapshot, metric: str, seeds: int) -> list[Mark]:
    bands: list[Mark] = []
    lines: list[Mark] = []
    for series in snapshot.series:
        band = series.bands.get(metric)
        if band is None:
            continue
        colour = theme.series[series.index % len(theme.series)]
        x, mean, low, high = [], [], [], []
        for step, values in enumerate(zip(band.mean, band.low, band.high)):
            if all(math.isfinite(float(v)) for v in values):
                x.append(float(step))
                mean.append(float(values[0]))
                low.append(float(values[1]))
                high.append(float(values[2]))
        if not x:
            continue
        if seeds > 1:
            bands.append(Mark("band", tuple(x), tuple(high), (colour,), low=tuple(low)))
        lines.append(Mark("line", tuple(x), tuple(mean), (colour,), style=series.index, width=1.4))
    return bands + lines  # every band under every line


def _metric_range(marks: Sequence[Mark]) -> tuple[float, float]:
    values = [v for mark in marks for v in (*mark.y, *mark.low)]
    if not values:
        return (0.0, 1.0)
    low, high = min(values), max(values)
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    pad = 0.05 * (high - low)
    return (low - pad, high + pad)


def training_figure(snapshot: TrainingSnapshot, theme: Theme) -> Figure:
    """The run's pass rate and chosen metric over the steps, and the learning frontier."""
    config = snapshot.config
    total = max(config.steps, 1)
    x_range = (0.0, float(total))
    x_ticks = nice_ticks(0.0, float(total), 5)
    seeds = config.seeds
    band_note = (
        f"Lines: mean over {seeds} seeds; shaded: lowest to highest seed." if seeds > 1 else ""
    )
    pass_marks = _band_marks(theme, snapshot, "pass_rate", seeds)
    pass_panel = Panel(
        title="Pass rate (exact)",
        x_label="step",
        y_label="pass rate",
        x_range=x_range,
        y_range=(-0.04, 1.04),
        x_ticks=x_ticks,
        y_ticks=nice_ticks(0.0, 1.0, 5),
        marks=tuple(pass_marks),
        marker_x=None if snapshot.selected_step is None else float(snapshot.selected_step),
    )
    metric_marks = _band_marks(theme, snapshot, snapshot.metric, seeds)
    metric_range = _metric_range(metric_marks)
    label = snapshot.metric_label
    unit = METRICS.get(snapshot.metric, ("", ""))[1]
    metric_title = label[:1].upper() + label[1:]
    metric_panel = Panel(
        title=f"{metric_title} ({unit})" if unit else metric_title,
        x_label="step",
        y_label=unit or label.split(" (")[0],
        x_range=x_range,
        y_range=metric_range,
        x_ticks=x_ticks,
        y_ticks=nice_ticks(*metric_range),
        marks=tuple(metric_marks),
        marker_x=pass_panel.marker_x,
    )
    frontier_marks = []
    p = [float(v) for v in snapshot.frontier_p]
    for size, values in snapshot.frontier_curves:
        own = size == config.group_size
        ys = [float(v) for v in values]
        frontier_marks.append(
            Mark(
                "line",
                tuple(p),
                tuple(ys),
                (theme.text if own else theme.muted,),
                width=1.7 if own else 0.8,
                tag=f"G = {size}",
                tag_x=FRONTIER_LABEL_P,
            )
        )
    focus_series = next((s for s in snapshot.series if s.name == snapshot.focus), None)
    focus_label = focus_series.label if focus_series is not None else snapshot.focus
    dot_colour = (
        theme.series[focus_series.index % len(theme.series)] if focus_series else theme.text
    )
    if snapshot.dots:
        frontier_marks.append(
            Mark(
                "dots",
                tuple(dot.pass_rate for dot in snapshot.dots),
                tuple(dot.informative for dot in snapshot.dots),
                (dot_colour,),
            )
        )
    quarter = tuple((v / 4, f"{v / 4:g}") for v in range(5))
    frontier_panel = Panel(
        title="The learning frontier: groups that teach",
        x_label="pass rate p",
        y_label="share of groups that teach",
        x_range=(-0.02, 1.02),
        y_range=(-0.03, 1.08),
        x_ticks=quarter,
        y_ticks=quarter,
        marks=tuple(frontier_marks),
        legend=(
            LegendEntry(f"a problem (pass rate under {focus_label})", "dot", dot_colour),
            LegendEntry("1 − pᴳ − (1 − p)ᴳ, one curve per G", "line", theme.muted, width=0.8),
            LegendEntry(f"this run's G = {config.group_size}", "line", theme.text, width=1.7),
        ),
    )
    legend: tuple[LegendEntry, ...] = tuple(
        LegendEntry(
            series.label,
            "line",
            theme.series[series.index % len(theme.series)],
            style=series.index,
            width=1.4,
        )
        for series in snapshot.series
    )
    if snapshot.selected_step is not None:
        legend += (
            LegendEntry(f"step {snapshot.selected_step} (selected)", "line", theme.focus, style=1),
        )
    algorithms = len(snapshot.series)
    subtitle = (
        f"{algorithms} algorithm{'s' if algorithms != 1 else ''} × {seeds} "
        f"seed{'s' if seeds != 1 else ''} · batch of {config.batch} groups of G = "
        f"{config.group_size} · step {snapshot.steps_done} of {config.steps}"
    )
    return Figure(
        "Training run: pass rate, " + label.split(" (")[0] + " and the learning frontier",
        subtitle,
        (pass_panel, metric_panel, frontier_panel),
        legend=legend,
        note=" ".join(text for text in (band_note, snapshot.divergence_note) if text),
    )
