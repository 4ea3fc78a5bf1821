"""A lesson as a printable predict-and-observe worksheet: questions, blank tables and the key.

A class that watches a lesson learns more when each student commits to a guess first. So every
step of a lesson becomes a worksheet item: what is on screen (the given facts), the question to
answer *before* the reveal, what to read off the app afterwards, a table with blank cells for
both, room to write, and the answer key. The key's numbers are computed here by the app's own
core (``build_snapshot`` for a group, ``build_update_snapshot`` for an update step, the toy
``TrainingRun`` and the frontier formula for a training step), never typed by hand, so a printed
key always agrees with the screen.

Each step carries two figures built with ``chart_figure``: the student's shows the step as it
looks before the reveal (rewards and answer lengths, a run at step 0) and prints no number the
student is asked for; the key's shows the step revealed. ``window/worksheet_pdf.py`` paints a
:class:`Worksheet` onto paper. Pure Python, no Qt.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.theme import Theme, get_theme
from grpo_desktop.core.files.chart_figure import (
    Figure,
    Mark,
    Panel,
    advantage_figure,
    nice_ticks,
    push_figure,
    training_figure,
)
from grpo_desktop.core.files.lessons import Lesson, LessonLab, LessonStep, get_lesson
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.training.frontier import informative_probability
from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.training.training_config import ALGORITHM_INFO, METRICS, TrainingConfig
from grpo_desktop.core.training.training_snapshot import build_training_snapshot
from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.core.update.update_step import build_update_snapshot

__all__ = [
    "GROUP_SIZE_EXPERIMENT",
    "NOT_APPLICABLE",
    "PRINT_THEME",
    "Cell",
    "Worksheet",
    "WorksheetStep",
    "WorksheetTable",
    "build_worksheet",
    "lesson_worksheet",
    "plain_text",
]

#: Paper is white: the light theme's colours print as they look on screen.
PRINT_THEME = "light"
#: The classroom group-size experiment's columns (a step about G compares these).
GROUP_SIZE_EXPERIMENT = (4, 16, 32)
#: The pass rate the group-size table asks about: a problem the policy nearly always solves.
NEARLY_SOLVED_P = 0.9
#: A cell with nothing to write in: the quantity does not exist there (a metric at step 0).
NOT_APPLICABLE = "—"
_TAG_RE = re.compile(r"<[^<>]*>")
_QUESTION_RE = re.compile(r"[^.!?]*\?")


@dataclass(frozen=True)
class Cell:
    """One table cell: ``text`` prints on both versions; a cell with an ``answer`` is blank on
    the student's sheet and holds the app's number on the key; an ``own`` cell is the student's
    guess, blank on both."""

    text: str = ""
    answer: str = ""
    own: bool = False

    @property
    def is_blank(self) -> bool:
        """Written in by hand: printed white, not shaded as a given cell."""
        return self.own or bool(self.answer)

    def shown(self, answers: bool) -> str:
        return self.answer if answers and self.answer else self.text


@dataclass(frozen=True)
class WorksheetTable:
    """A ruled table: a caption, the column headings and the rows (first column: row names)."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def answers(self) -> list[str]:
        return [cell.answer for row in self.rows for cell in row if cell.answer]


@dataclass(frozen=True)
class WorksheetStep:
    """One lesson step on paper: predict, then observe."""

    number: int  # 1-based, as the lesson bar counts
    title: str
    context: str  # the given facts: the problem, G, rewards, convention or the run
    predict: tuple[str, ...]  # answered before the reveal
    observe: tuple[str, ...]  # read off the app after it
    student_figure: Figure  # the step before the reveal: no number the key holds
    answer_figure: Figure  # the step as the app shows it revealed
    tables: tuple[WorksheetTable, ...]
    writing_lines: int  # ruled lines for the student's reasoning
    key: tuple[str, ...]  # the key's sentences, numbers from the core
    explanation: str  # the step's own text (what the lecturer says), plain: key only

    @property
    def questions(self) -> tuple[str, ...]:
        return (*self.predict, *self.observe)

    def answers(self) -> list[str]:
        """Every number the key fills in (for the check that the student's sheet has none)."""
        return [answer for table in self.tables for answer in table.answers()]


@dataclass(frozen=True)
class Worksheet:
    lesson_id: str
    title: str
    summary: str
    steps: tuple[WorksheetStep, ...]

    def answers(self) -> list[str]:
        return [answer for step in self.steps for answer in step.answers()]


# --- small helpers ------------------------------------------------------------------------------


def plain_text(markup: str) -> str:
    """A lesson text without its ``<b>``/``<i>`` tags, its spaces collapsed."""
    return " ".join(_TAG_RE.sub("", markup).split())


def _own_questions(text: str) -> list[str]:
    """The questions a step's text asks its class, in its own words."""
    found = []
    for match in _QUESTION_RE.finditer(plain_text(text)):
        question = match.group(0).strip()
        if question.lower().startswith("predict:"):
            question = question[len("predict:") :].strip()
        if question:
            found.append(question[0].upper() + question[1:])
    return found


def _fixed(value: float, places: int = 3) -> str:
    """A key's plain number with a fixed number of places (``0.500``): distinct from ticks."""
    text = f"{value:.{places}f}"
    return ("0." + "0" * places if float(text) == 0 else text).replace("-", "\u2212")


def _percent(value: float) -> str:
    return NOT_APPLICABLE if not math.isfinite(value) else f"{100 * value:.1f} %"


def _metric_value(metric: str, value: float) -> str:
    if not math.isfinite(value):
        return NOT_APPLICABLE
    if metric in ("pass_rate", "degenerate_fraction"):
        return _percent(value)
    if metric in ("groups_sampled", "groups_used"):
        return f"{value:.2f} groups"
    return f"{value:.3f}"


def _metric_heading(metric: str) -> str:
    label, unit = METRICS[metric]
    label = label.split(" (")[0]
    if metric in ("pass_rate", "degenerate_fraction"):
        return f"{label} (%)"
    return f"{label} ({unit})" if unit else label


def _rewards_text(rewards: Sequence[float]) -> str:
    return ", ".join(f"{r:g}" for r in rewards)


def _lab_snapshot(lab: LessonLab) -> LabSnapshot:
    return build_snapshot(get_problem(lab.problem_id), lab.correct, lab.convention)


def _algorithm_label(name: str) -> str:
    info = ALGORITHM_INFO.get(name)
    return info.label if info is not None else name


# --- a group of answers (a lab or compare step) -------------------------------------------------


def _student_group_figure(snapshot: LabSnapshot, theme: Theme) -> Figure:
    """The group's rewards as bars, without par or std: what the class sees before computing."""
    figure = advantage_figure(snapshot, theme, view="reward", hidden=True)
    panel = dataclasses.replace(figure.panels[0], reference=None, note="")
    subtitle = f"{snapshot.problem.title} · G = {snapshot.group_size} · {snapshot.convention.label}"
    return dataclasses.replace(figure, subtitle=subtitle, panels=(panel,))


def _side_by_side(figures: Sequence[Figure], names: Sequence[str], title: str) -> Figure:
    """Two groups' figures as one, a panel each, titled by which group it is."""
    panels = tuple(
        dataclasses.replace(figure.panels[0], title=f"{name}: {figure.panels[0].title.lower()}")
        for figure, name in zip(figures, names)
    )
    subtitle = " | ".join(figure.subtitle for figure in figures)
    return Figure(title, subtitle, panels)


def _answers_table(snapshot: LabSnapshot, predicted: bool) -> WorksheetTable:
    """Each answer's reward (given) and its advantage: the class's guess, then the app's."""
    stats = snapshot.stats
    rows = []
    for index, card in enumerate(snapshot.cards):
        verdict = "right" if card.reward == 1 else "wrong" if card.reward == 0 else ""
        cells = [Cell(f"#{index + 1} {verdict}".strip()), Cell(f"{card.reward:g}")]
        if predicted:
            cells.append(Cell(own=True))
        cells.append(Cell(answer=signed(float(stats.advantages[index]), 3)))
        rows.append(tuple(cells))
    header = ["answer", "reward r"]
    if predicted:
        header.append("your prediction: A")
    header.append("the app shows: A")
    return WorksheetTable("Each answer's advantage A", tuple(header), tuple(rows))


def _stats_table(snapshot: LabSnapshot) -> WorksheetTable:
    stats = snapshot.stats
    return WorksheetTable(
        "The group's statistics",
        ("", "mean (par)", "std", "pushed up", "pushed down"),
        (
            (Cell("your prediction"), *(Cell(own=True) for _ in range(4))),
            (
                Cell("the app shows"),
                Cell(answer=_fixed(stats.mean)),
                Cell(answer=_fixed(stats.std)),
                Cell(answer=f"{stats.pushed_up} of {stats.group_size}"),
                Cell(answer=f"{stats.pushed_down} of {stats.group_size}"),
            ),
        ),
    )


def _group_key(snapshot: LabSnapshot) -> str:
    stats = snapshot.stats
    advantages = ", ".join(signed(float(a), 3) for a in stats.advantages)
    if stats.degenerate:
        verdict = "all rewards are equal, so every advantage is 0 and nothing is pushed"
    else:
        verdict = f"{stats.pushed_up} pushed up, {stats.pushed_down} pushed down"
    return (
        f"{snapshot.problem.title}, rewards {_rewards_text(snapshot.rewards)} "
        f"({snapshot.convention.label}, {snapshot.convention.formula}): mean "
        f"{_fixed(stats.mean)}, std {_fixed(stats.std)}; A = {advantages}: {verdict}."
    )


def _lab_step(step: LessonStep, number: int, theme: Theme) -> WorksheetStep:
    assert step.lab is not None
    snapshot = _lab_snapshot(step.lab)
    stats = snapshot.stats
    convention = snapshot.convention
    count = snapshot.group_size
    context = (
        f"On screen: {snapshot.problem.title}, G = {count} answers, rewards "
        f"{_rewards_text(snapshot.rewards)}. Convention: {convention.label}, "
        f"{convention.formula}."
    )
    predict = _own_questions(step.text)
    if step.highlight == "ppo":
        predict = predict or [
            "PPO keeps four networks in play. Name them, and say which one GRPO no longer needs "
            "and what stands in its place."
        ]
    elif stats.degenerate:
        kind = "right" if stats.mean > 0 else "wrong"
        predict = predict or [
            f"All {count} answers are {kind}. Predict every answer's advantage: does this group "
            "push any answer up or down?"
        ]
    elif step.highlight == "math":
        predict = predict or [
            "Work it out before you look: the group's mean and std, then each answer's "
            f"advantage with {convention.formula}."
        ]
    elif step.view == "reward" and step.hide_advantages:
        predict = predict or [
            "Predict the group's par (its mean reward) and its std, before the app shows them."
        ]
    else:
        predict = predict or [
            "Predict the advantage of each answer before the reveal: its sign and its size."
        ]
    if step.hide_advantages:
        observe = "Then reveal the advantages in the app and write what it shows in the table."
    else:
        observe = "Then read the app's numbers (the cards, the stats and the worked math) into "
        observe += "the table and compare them with your prediction."
    if step.highlight == "ppo":
        tables: tuple[WorksheetTable, ...] = ()
        lines = 5
    elif step.view == "reward" and step.hide_advantages:
        tables, lines = (_stats_table(snapshot),), 3
    else:
        tables = (_answers_table(snapshot, predicted=True), _stats_table(snapshot))
        lines = 3
    return WorksheetStep(
        number=number,
        title=step.title,
        context=context,
        predict=tuple(predict),
        observe=(observe,),
        student_figure=_student_group_figure(snapshot, theme),
        answer_figure=advantage_figure(snapshot, theme, view="advantage"),
        tables=tables,
        writing_lines=lines,
        key=(_group_key(snapshot),),
        explanation=plain_text(step.text),
    )


def _compare_step(step: LessonStep, number: int, theme: Theme) -> WorksheetStep:
    assert step.compare is not None
    snapshots = [_lab_snapshot(lab) for lab in step.compare]
    names = ("Easy", "Hard")
    convention = snapshots[0].convention
    context = "On screen, side by side: " + "; ".join(
        f"{name.lower()}: {s.problem.title}, rewards {_rewards_text(s.rewards)}"
        for name, s in zip(names, snapshots)
    )
    context += f". Convention: {convention.label}, {convention.formula}."
    predict = _own_questions(step.text) or [
        "In each group, which answer is the rare one, and which gets the largest advantage "
        "(by size)? Predict, then compare."
    ]
    rows = []
    for name, snapshot in zip(names, snapshots):
        stats = snapshot.stats

        def advantage_of(reward: float, snapshot: LabSnapshot = snapshot) -> Cell:
            values = [
                float(a)
                for a, card in zip(snapshot.stats.advantages, snapshot.cards)
                if card.reward == reward
            ]
            return Cell(answer=signed(values[0], 3)) if values else Cell(NOT_APPLICABLE)

        rows.append(
            (
                Cell(name.lower()),
                Cell(_rewards_text(snapshot.rewards)),
                Cell(answer=_fixed(stats.mean)),
                Cell(answer=_fixed(stats.std)),
                advantage_of(1.0),
                advantage_of(0.0),
            )
        )
    table = WorksheetTable(
        "The two groups under one formula",
        ("group", "rewards", "mean", "std", "A of a right answer", "A of a wrong answer"),
        tuple(rows),
    )
    student = _side_by_side(
        [_student_group_figure(s, theme) for s in snapshots], names, "Two groups' rewards"
    )
    answer = _side_by_side(
        [advantage_figure(s, theme) for s in snapshots], names, "Same formula, two groups"
    )
    return WorksheetStep(
        number=number,
        title=step.title,
        context=context,
        predict=tuple(predict),
        observe=("Then read both groups' numbers off the app into the table.",),
        student_figure=student,
        answer_figure=answer,
        tables=(table,),
        writing_lines=4,
        key=tuple(_group_key(s) for s in snapshots),
        explanation=plain_text(step.text),
    )


# --- the update step ----------------------------------------------------------------------------


def _lengths_figure(snapshot: UpdateSnapshot, lab: LabSnapshot, theme: Theme) -> Figure:
    """Each answer's length in tokens, marked right or wrong: what the class knows beforehand."""
    rows = snapshot.rows
    lengths = [float(len(row.tokens)) for row in rows]
    colours = tuple(theme.up if row.reward > 0 else theme.down for row in rows) or (theme.neutral,)
    top = max(lengths, default=1.0) * 1.25
    ticks = tuple(
        (float(i + 1), f"#{i + 1} {'right' if row.reward > 0 else 'wrong'}")
        for i, row in enumerate(rows)
    )
    panel = Panel(
        title="Tokens per answer",
        x_label="answer",
        y_label="tokens",
        x_range=(0.4, len(rows) + 0.6),
        y_range=(0.0, top),
        x_ticks=ticks,
        y_ticks=nice_ticks(0.0, top),
        marks=(
            Mark(
                "bars",
                tuple(float(i + 1) for i in range(len(rows))),
                tuple(lengths),
                colours,
                width=0.6,
                labels=tuple(f"{n:g}" for n in lengths),
            ),
        ),
    )
    subtitle = (
        f"{lab.problem.title} · {len(rows)} answers · {snapshot.preset.label} vs "
        f"{snapshot.compare_preset.label}"
    )
    return Figure("The answers the update step pushes", subtitle, (panel,))


def _direction(net: float) -> str:
    rounded = round(net, 3)
    return "up" if rounded > 0 else "down" if rounded < 0 else "neither up nor down"


def _update_step(step: LessonStep, number: int, theme: Theme) -> WorksheetStep:
    assert step.lab is not None and step.update is not None
    lab = _lab_snapshot(step.lab)
    snapshot = build_update_snapshot(lab, step.update)
    main, other = snapshot.preset.label, snapshot.compare_preset.label
    rows = []
    for row in snapshot.rows:
        count = len(row.tokens)
        per_token = row.total_push / count if count else 0.0
        rows.append(
            (
                Cell(f"#{row.index + 1} {'right' if row.reward > 0 else 'wrong'}"),
                Cell(str(count)),
                Cell(answer=signed(row.advantage, 3)),
                Cell(answer=signed(per_token, 4)),
                Cell(answer=signed(row.total_push, 3)),
                Cell(answer=signed(row.compare_total_push, 3)),
            )
        )
    rows.append(
        (
            Cell("net (all answers)"),
            Cell(str(sum(len(row.tokens) for row in snapshot.rows))),
            Cell(""),
            Cell(""),
            Cell(answer=signed(snapshot.net_push, 3)),
            Cell(answer=signed(snapshot.compare_net_push, 3)),
        )
    )
    table = WorksheetTable(
        "Each answer's push (−∂loss/∂logp)",
        (
            "answer",
            "tokens",
            "advantage A",
            f"push per token, {main}",
            f"total push, {main}",
            f"total push, {other}",
        ),
        tuple(rows),
    )
    context = (
        f"On screen: the Update step for {lab.problem.title}, "
        + ", ".join(
            f"#{row.index + 1} {'right' if row.reward > 0 else 'wrong'} ({len(row.tokens)} tokens)"
            for row in snapshot.rows
        )
        + f". Loss: {main}, compared with {other}."
    )
    predict = _own_questions(step.text) or [
        f"Under {main}, is each token of the longest answer pushed harder or softer than each "
        "token of the shortest? Which way does the batch's likelihood go?"
    ]
    key = [
        f"Under {main}: "
        + "; ".join(
            f"#{row.index + 1} pushes each of its {len(row.tokens)} tokens "
            f"{signed(row.total_push / max(len(row.tokens), 1), 4)}, "
            f"{signed(row.total_push, 3)} in all"
            for row in snapshot.rows
        )
        + f". Net {signed(snapshot.net_push, 3)}: the batch's likelihood goes "
        f"{_direction(snapshot.net_push)}.",
        f"Under {other} the net is {signed(snapshot.compare_net_push, 3)}: it goes "
        f"{_direction(snapshot.compare_net_push)}.",
    ]
    return WorksheetStep(
        number=number,
        title=step.title,
        context=context,
        predict=tuple(predict),
        observe=(
            "Then read each answer's total push off the push chart, and one token's push off "
            "the token detail, into the table.",
        ),
        student_figure=_lengths_figure(snapshot, lab, theme),
        answer_figure=push_figure(snapshot, theme),
        tables=(table,),
        writing_lines=3,
        key=tuple(key),
        explanation=plain_text(step.text),
    )


# --- a training step ----------------------------------------------------------------------------


#: Runs already computed while one worksheet is built: steps of a lesson share their run.
_RunCache = dict[tuple[TrainingConfig, int, str], TrainingRun]


def _run(config: TrainingConfig, steps: int, convention: str, cache: _RunCache) -> TrainingRun:
    """The toy run of ``config`` computed to ``steps`` steps, as the Training workspace runs it."""
    key = (config, steps, convention)
    if key not in cache:
        run = TrainingRun(config, convention=convention)
        run.run(steps)
        cache[key] = run
    return cache[key]


def _mean_over_seeds(run: TrainingRun, algorithm: str, metric: str, step: int) -> float:
    values = np.asarray(run.history(algorithm)[metric][step], dtype=float)
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def _table_steps(config: TrainingConfig) -> tuple[int, ...]:
    """About five evenly spaced steps from 0 to the run's end, where the table reads the run."""
    steps = {round(value) for value, _ in nice_ticks(0.0, float(config.steps), 4)}
    return tuple(sorted(steps | {0, config.steps}))


def _training_table(run: TrainingRun, metric: str) -> WorksheetTable:
    config = run.config
    steps = _table_steps(config)
    metrics = ["pass_rate"] + ([metric] if metric != "pass_rate" else [])
    rows = []
    for algorithm in config.algorithms:
        for name in metrics:
            cells = [Cell(f"{_algorithm_label(algorithm)}: {_metric_heading(name)}")]
            for step in steps:
                value = _mean_over_seeds(run, algorithm, name, step)
                text = _metric_value(name, value)
                cells.append(Cell(NOT_APPLICABLE) if text == NOT_APPLICABLE else Cell(answer=text))
            rows.append(tuple(cells))
    header = ("mean over seeds", *(f"step {step}" for step in steps))
    return WorksheetTable("The run at a few steps", header, tuple(rows))


def _group_size_table(step: LessonStep, cache: _RunCache) -> WorksheetTable:
    """The classroom experiment: the same run with G = 4, 16 and 32, and the frontier at p."""
    assert step.training is not None
    config = step.training
    at = step.training_steps or config.steps
    runs = {
        size: _run(
            dataclasses.replace(config, group_size=size), config.steps, step.convention, cache
        )
        for size in GROUP_SIZE_EXPERIMENT
    }
    algorithm = step.focus or config.algorithms[0]
    label = _algorithm_label(algorithm)
    rows = (
        (
            Cell(f"groups that teach at p = {NEARLY_SOLVED_P:g} (%)"),
            *(
                Cell(answer=_percent(float(informative_probability(NEARLY_SOLVED_P, size))))
                for size in GROUP_SIZE_EXPERIMENT
            ),
        ),
        (
            Cell(f"{label}: {_metric_heading('degenerate_fraction')[:-4]} at step {at} (%)"),
            *(
                Cell(
                    answer=_percent(_mean_over_seeds(runs[s], algorithm, "degenerate_fraction", at))
                )
                for s in GROUP_SIZE_EXPERIMENT
            ),
        ),
        (
            Cell(f"{label}: pass rate at step {config.steps} (%)"),
            *(
                Cell(
                    answer=_percent(_mean_over_seeds(runs[s], algorithm, "pass_rate", config.steps))
                )
                for s in GROUP_SIZE_EXPERIMENT
            ),
        ),
        (
            Cell("answers sampled per step"),
            *(Cell(str(config.batch * s)) for s in GROUP_SIZE_EXPERIMENT),
        ),
    )
    return WorksheetTable(
        "The group-size experiment (set G in the Training workspace and run again)",
        ("", *(f"G = {size}" for size in GROUP_SIZE_EXPERIMENT)),
        rows,
    )


def _is_group_size_step(step: LessonStep) -> bool:
    """A training step whose point is G: its run's group size is not the default one."""
    return step.training is not None and step.training.group_size != TrainingConfig().group_size


def _training_step(step: LessonStep, number: int, theme: Theme, cache: _RunCache) -> WorksheetStep:
    assert step.training is not None and step.metric is not None
    config = step.training
    metric, focus = step.metric, step.focus
    full = _run(config, config.steps, step.convention, cache)
    start = _run(config, 0, step.convention, cache)
    shown_at = step.training_steps or config.steps
    shown = _run(config, shown_at, step.convention, cache)
    labels = ", ".join(_algorithm_label(name) for name in config.algorithms)
    context = (
        f"On screen: the toy training run ({labels}): batch of {config.batch} groups of "
        f"G = {config.group_size}, {config.seeds} seeds, {config.steps} steps; the app shows "
        f"step {step.training_steps}."
    )
    predict = _own_questions(step.text)
    if not predict and step.highlight == "frontier":
        predict = ["As the run learns, where do the dots (the problems) move on the frontier?"]
    elif not predict:
        predict = [
            f"As the run learns, how does the chart of {METRICS[metric][0]} change? Sketch "
            "your guess before the run plays."
        ]
    if _is_group_size_step(step):
        predict.append(
            "Fill in your prediction first: with G = 4, 16 and 32, what share of groups teaches "
            f"on a problem solved {round(100 * NEARLY_SOLVED_P)} % of the time?"
        )
        tables: tuple[WorksheetTable, ...] = (
            _group_size_table(step, cache),
            _training_table(full, metric),
        )
    else:
        tables = (_training_table(full, metric),)
    observe = (
        f"Then play the run to step {config.steps} and read the charts (mean over seeds) into "
        "the table.",
    )
    key = []
    for algorithm in config.algorithms:
        begin = _mean_over_seeds(full, algorithm, "pass_rate", 0)
        end = _mean_over_seeds(full, algorithm, "pass_rate", config.steps)
        sentence = (
            f"{_algorithm_label(algorithm)}: pass rate {_percent(begin)} at step 0, "
            f"{_percent(end)} at step {config.steps}"
        )
        if metric != "pass_rate":
            later = _mean_over_seeds(full, algorithm, metric, shown_at)
            sentence += (
                f"; {METRICS[metric][0].split(' (')[0]} {_metric_value(metric, later)} at step "
                f"{shown_at}"
            )
        key.append(sentence + ".")
    return WorksheetStep(
        number=number,
        title=step.title,
        context=context,
        predict=tuple(predict),
        observe=observe,
        student_figure=training_figure(
            build_training_snapshot(start, metric=metric, focus=focus), theme
        ),
        answer_figure=training_figure(
            build_training_snapshot(shown, metric=metric, focus=focus), theme
        ),
        tables=tables,
        writing_lines=3,
        key=tuple(key),
        explanation=plain_text(step.text),
    )


# --- the whole lesson ---------------------------------------------------------------------------


def build_worksheet(lesson: Lesson, theme: Theme | None = None) -> Worksheet:
    """Every step of ``lesson`` as a worksheet item, its key computed by the core."""
    theme = theme or get_theme(PRINT_THEME)
    steps = []
    runs: _RunCache = {}
    for index, step in enumerate(lesson.steps):
        number = index + 1
        if step.is_training:
            steps.append(_training_step(step, number, theme, runs))
        elif step.compare is not None:
            steps.append(_compare_step(step, number, theme))
        elif step.is_update:
            steps.append(_update_step(step, number, theme))
        else:
            steps.append(_lab_step(step, number, theme))
    return Worksheet(
        lesson.id, lesson.title, plain_text(lesson.summary), _without_repeated_tables(steps)
    )


def _without_repeated_tables(steps: Sequence[WorksheetStep]) -> tuple[WorksheetStep, ...]:
    """A table an earlier step already printed is not printed again: the step points to it,
    so a lesson that keeps one group on screen for three steps asks for its numbers once."""
    first_seen: dict[WorksheetTable, int] = {}
    out = []
    for step in steps:
        kept, earlier = [], []
        for table in step.tables:
            if table in first_seen:
                earlier.append(first_seen[table])
            else:
                first_seen[table] = step.number
                kept.append(table)
        observe = step.observe
        if earlier:
            numbers = " and ".join(str(n) for n in sorted(set(earlier)))
            numbers = ("steps " if len(set(earlier)) > 1 else "step ") + numbers
            noun = "table" if len(earlier) == 1 else "tables"
            observe += (
                f"Your {noun} from {numbers} hold{'s' if noun == 'table' else ''} this "
                "step's numbers: check them against the screen.",
            )
        out.append(dataclasses.replace(step, tables=tuple(kept), observe=observe))
    return tuple(out)


def lesson_worksheet(lesson_id: str) -> Worksheet:
    """The shipped lesson ``lesson_id`` as a worksheet (``UnknownLessonError`` lists the ids)."""
    return build_worksheet(get_lesson(lesson_id))
