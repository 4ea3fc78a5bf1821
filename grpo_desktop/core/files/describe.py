"""The lab, its charts and a toggle in words: for a screen reader and the "Describe" command.

Pure functions of the snapshots the views render (DESIGN §2: no Qt here). Every sentence is built
from numbers already in the snapshot and written with ``formatting`` (real minus sign, explicit
plus), so what a blind student hears matches what the class sees on the cards and the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from grpo_desktop.core.common.formatting import number, signed

if TYPE_CHECKING:
    from grpo_desktop.core.lab.lab_snapshot import CardState, LabSnapshot
    from grpo_desktop.core.training.training_snapshot import (
        FrontierDot,
        MetricBand,
        TrainingSnapshot,
    )
    from grpo_desktop.core.update.update_snapshot import UpdateSnapshot

__all__ = [
    "advantage_chart_text",
    "announce_toggle",
    "card_list",
    "describe_lab",
    "frontier_text",
    "push_chart_text",
    "training_charts_text",
    "verdict_word",
]

#: How many figures par and the std are read with (the stat tiles show as many).
_FIGURES = 3


def card_list(numbers: Sequence[int]) -> str:
    """``[1, 2, 3, 5]`` (1-based) as "cards 1–3 and 5"; one card is "card 5"; none is ""."""
    if not numbers:
        return ""
    runs: list[str] = []
    ordered = sorted(numbers)
    start = previous = ordered[0]
    for value in [*ordered[1:], None]:
        if value is not None and value == previous + 1:
            previous = value
            continue
        if previous == start:
            runs.append(str(start))
        elif previous == start + 1:
            runs.extend((str(start), str(previous)))
        else:
            runs.append(f"{start}\u2013{previous}")
        if value is not None:
            start = previous = value
    words = runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + f" and {runs[-1]}"
    return f"card {words}" if len(ordered) == 1 else f"cards {words}"


def verdict_word(card: CardState) -> str:
    """ "right" or "wrong" (the checker), or "reward 0.7" where there is no verdict."""
    if card.correct is None:
        return f"reward {number(card.reward, 4)}"
    return "right" if card.correct else "wrong"


def _advantages(cards: Sequence[CardState]) -> str:
    """ "advantage +1.00" when every card shares it, else the span "advantages +0.20 to +1.50"."""
    texts = sorted({signed(card.advantage, 2) for card in cards}, key=_as_float)
    if len(texts) == 1:
        return f"advantage {texts[0]}"
    return f"advantages {texts[0]} to {texts[-1]}"


def _as_float(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def _rewards(snapshot: LabSnapshot) -> str:
    rewards = [number(card.reward, 4) for card in snapshot.cards]
    if len(rewards) > 16:  # 64 numbers in a row are noise to a listener: say how they split
        counts: dict[str, int] = {}
        for reward in rewards:
            counts[reward] = counts.get(reward, 0) + 1
        parts = sorted(counts.items(), key=lambda item: _as_float(item[0]), reverse=True)
        listed = ", ".join(f"{count} × {reward}" for reward, count in parts)
    else:
        listed = ", ".join(rewards)
    return f"rewards set by hand: {listed}" if snapshot.by_hand else f"rewards {listed}"


def _source(snapshot: LabSnapshot) -> str:
    """Where the group comes from, for the paragraph's first sentence."""
    if snapshot.recorded is not None:
        return f"a run's group ({snapshot.recorded.title})"
    return f"“{snapshot.problem.title}”"


def par_and_std(snapshot: LabSnapshot) -> str:
    """ "Par 0.75, std 0.433": the group mean (the baseline) and the std the convention uses."""
    stats = snapshot.stats
    return f"Par {number(stats.mean, _FIGURES)}, std {number(stats.std, _FIGURES)}"


def describe_lab(snapshot: LabSnapshot) -> str:
    """The lab in one paragraph: the group, par, std, who is pushed up and down, and why."""
    stats = snapshot.stats
    cards = snapshot.cards
    size = len(cards)
    answers = "answer" if size == 1 else "answers"
    first = f"A group of {size} {answers} to {_source(snapshot)}: {_rewards(snapshot)}."
    right = [card.index + 1 for card in cards if card.correct]
    wrong = [card.index + 1 for card in cards if card.correct is False]
    verdicts = ""
    if (right or wrong) and size <= 16:  # a larger group hears it in who is pushed
        said = []
        if right:
            said.append(f"{card_list(right)} right")
        if wrong:
            said.append(f"{card_list(wrong)} wrong")
        verdicts = " The checker marks " + " and ".join(said) + "."
    baseline = (
        f" Par (the group's mean reward, the baseline) is {number(stats.mean, _FIGURES)} and the "
        f"std is {number(stats.std, _FIGURES)} under the {snapshot.convention.label} convention."
    )
    if stats.degenerate:
        same = number(cards[0].reward, 4) if cards else "0"
        why = (
            f" Nothing is pushed: every answer scored {same}, so each one equals par and its "
            "advantage is 0. A group that is all right or all wrong carries no learning signal."
            if size > 1
            else f" Nothing is pushed: a lone answer with reward {same} has no signal."
        )
        return first + verdicts + baseline + why
    up = [card for card in cards if card.advantage > 0]
    down = [card for card in cards if card.advantage < 0]
    level = [card for card in cards if card.advantage == 0]
    pushes = []
    if up:
        verb = "is" if len(up) == 1 else "are"
        pushes.append(
            f" {card_list([c.index + 1 for c in up]).capitalize()} {verb} pushed up "
            f"({_advantages(up)}): {'its reward is' if len(up) == 1 else 'their rewards are'} "
            "above par, so the update makes such answers more likely."
        )
    if down:
        verb = "is" if len(down) == 1 else "are"
        pushes.append(
            f" {card_list([c.index + 1 for c in down]).capitalize()} {verb} pushed down "
            f"({_advantages(down)}): {'its reward is' if len(down) == 1 else 'their rewards are'}"
            " below par, so the update makes such answers less likely."
        )
    if level:
        verb = "sits" if len(level) == 1 else "sit"
        pushes.append(
            f" {card_list([c.index + 1 for c in level]).capitalize()} {verb} exactly at par "
            "and get no push."
        )
    return first + verdicts + baseline + "".join(pushes)


def push_counts(snapshot: LabSnapshot) -> str:
    """ "3 pushed up, 1 down", or "nothing pushed" for a group with no signal."""
    stats = snapshot.stats
    if stats.pushed_up == 0 and stats.pushed_down == 0:
        return "nothing pushed"
    return f"{stats.pushed_up} pushed up, {stats.pushed_down} down"


def announce_toggle(before: LabSnapshot, after: LabSnapshot, card_index: int) -> str:
    """What to announce after card ``card_index`` (0-based) was toggled: e.g. "Card 3 now
    right. Par 0.75, std 0.433; 3 pushed up, 1 down". ``before`` says whether anything moved."""
    card = after.cards[card_index]
    changed = before.cards[card_index] != card if card_index < len(before.cards) else True
    now = "now" if changed else "still"
    counts = push_counts(after)
    return f"Card {card_index + 1} {now} {verdict_word(card)}. {par_and_std(after)}; {counts}"


def _sign_word(value: float) -> str:
    return "above zero" if value > 0 else "below zero" if value < 0 else "zero"


def _par_word(reward: float, mean: float) -> str:
    return "above par" if reward > mean else "below par" if reward < mean else "at par"


def advantage_chart_text(snapshot: LabSnapshot, view: str = "advantage") -> str:
    """Every bar of the advantage chart in words, for the view shown (``"advantage"`` or
    ``"reward"``): card, value and sign; the reward view says where par is."""
    if view == "reward":
        mean = snapshot.stats.mean
        bars = "; ".join(
            f"card {card.index + 1} {number(card.reward, 4)} {_par_word(card.reward, mean)}"
            for card in snapshot.cards
        )
        return f"Reward per card, par {number(mean, _FIGURES)}: {bars}."
    bars = "; ".join(
        f"card {card.index + 1} {signed(card.advantage, 2)} {_sign_word(card.advantage)}"
        for card in snapshot.cards
    )
    return f"Advantage per card ({push_counts(snapshot)}): {bars}."


def push_chart_text(snapshot: UpdateSnapshot, decimals: int = 3) -> str:
    """Each answer's total push under both presets (the push chart's bars), one per line."""
    main, compare = snapshot.side_labels
    lines = [f"Total push per answer, {main} then {compare}:"]
    for row in snapshot.rows:
        lines.append(
            f"answer {row.index + 1}: {signed(row.total_push, decimals)} and "
            f"{signed(row.compare_total_push, decimals)}"
        )
    return "\n".join(lines)


def frontier_text(dots: Sequence[FrontierDot], group_size: int) -> str:
    """Each problem's pass rate on the frontier and whether its groups of ``group_size`` still
    teach (are neither all right nor all wrong), one problem per line."""
    lines = []
    for dot in dots:
        share = round(100 * dot.informative)
        if dot.informative <= 0:
            teach = "its groups teach nothing (all right or all wrong)"
        elif share == 0:
            teach = "its groups almost never teach (under 1% mixed)"
        else:
            teach = f"its groups still teach ({share}% of groups of {group_size} are mixed)"
        lines.append(f"{dot.title}: pass rate {round(100 * dot.pass_rate)}%, {teach}")
    return "\n".join(lines)


#: How many recorded steps back a trend looks: long enough to rise above one step's noise.
TREND_STEPS = 10
#: A change smaller than this over the trend's steps reads as "level".
TREND_FLAT = 0.01


def _latest_and_trend(band: MetricBand) -> str | None:
    """ "0.62, rising (0.48 ten steps before)" from the seeds' mean; None before any value."""
    measured = np.flatnonzero(np.isfinite(band.mean))  # a run's frames: no Python loop
    if measured.size == 0:
        return None
    last_index = int(measured[-1])
    last = float(band.mean[last_index])
    earlier = measured[measured <= last_index - TREND_STEPS]
    if earlier.size == 0:
        return number(last, 3)
    step = int(earlier[-1])
    before = float(band.mean[step])
    change = last - before
    word = "level" if abs(change) < TREND_FLAT else ("rising" if change > 0 else "falling")
    return f"{number(last, 3)}, {word} ({number(before, 3)} {last_index - step} steps before)"


def training_charts_text(snapshot: TrainingSnapshot) -> str:
    """The training charts' text alternative: for each chart, every algorithm's latest value
    (the seeds' mean) and its trend over the last recorded steps."""
    if snapshot.steps_done == 0:
        return (
            f"Training run of {snapshot.total_steps} steps, not started: press Play or Step "
            "to draw its pass rate and its chosen metric per algorithm."
        )
    lines = [f"Training run at step {snapshot.steps_done} of {snapshot.total_steps}."]
    charts = (("pass_rate", "Pass rate (exact)"), (snapshot.metric, snapshot.metric_label))
    for key, title in charts:
        told = []
        for series in snapshot.series:
            band = series.bands.get(key)
            value = None if band is None else _latest_and_trend(band)
            if value is not None:
                told.append(f"{series.label} {value}")
        if told:
            title = title[:1].upper() + title[1:]
            lines.append(f"{title}, the seeds' mean: " + "; ".join(told) + ".")
    return "\n".join(lines)
