"""What the Training workspace's views render: one immutable picture of a run after each change.

Pure Python + numpy. ``build_training_snapshot`` turns a :class:`TrainingRun` and what the user
chose to look at into bands (mean over seeds, min and max) per algorithm and metric, and the
learning frontier with each problem's dot, so the views only draw.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field, replace

import numpy as np

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import (
    ALGORITHM_INFO,
    ALGORITHMS,
    FRONTIER_GROUP_SIZES,
    METRICS,
    Divergence,
    TrainingConfig,
    TrainingRun,
    informative_probability,
)

__all__ = [
    "BANDS_FOR_ALL",
    "STANDIN_NOTE",
    "AlgorithmSeries",
    "FrontierDot",
    "GroupSummary",
    "MetricBand",
    "TrainingSnapshot",
    "build_training_snapshot",
    "rechoose_training_snapshot",
    "shown_focus",
]

STANDIN_NOTE = (
    "Toy run: for each shipped problem the policy is a softmax over its written answers (each "
    "trace's right and wrong version), graded by the real checker and updated with the real "
    "loss. It is not a language model: it cannot write new answers or generalise between "
    "problems. Which groups carry signal, and why runs stall, carries over."
)
_FRONTIER_POINTS = 201
#: Up to this many algorithms each shade their band; with more only the focus algorithm does.
BANDS_FOR_ALL = 2


@dataclass(frozen=True)
class MetricBand:
    """One metric of one algorithm over the steps recorded: the seeds' mean, min and max."""

    mean: np.ndarray  # (n,), NaN where nothing was measured (e.g. step 0's sampling)
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class AlgorithmSeries:
    """One algorithm's run: its name, label, colour index and every metric's band."""

    name: str
    label: str
    advantage: str  # its advantage formula, for legends and tooltips
    index: int  # position in ALGORITHMS: picks its colour and line style
    bands: dict[str, MetricBand]  # "pass_rate" and the snapshot's second metric
    diverged_at: int | None = None  # the first step a seed's logits overflowed at, if any
    #: Whether the charts shade its seeds' min–max band: every algorithm's when at most
    #: BANDS_FOR_ALL run, else only the focus algorithm's (six overlapping bands are a blur).
    band: bool = True


@dataclass(frozen=True)
class FrontierDot:
    """One problem where it sits on the frontier: its pass rate now, and the share of informative
    groups at the run's G."""

    problem_id: str
    title: str
    pass_rate: float  # mean over seeds of the exact pass rate, focus algorithm
    informative: float  # 1 − p^G − (1 − p)^G at that pass rate


@dataclass(frozen=True)
class GroupSummary:
    """One group of the selected step, as the list offering to open it in the Lab shows it."""

    index: int
    title: str  # the problem's title
    rewards: str  # e.g. "1 0 0 1 1 0 1 1"
    advantages: str  # e.g. "+0.77 −1.29 …", the algorithm's own
    verdict: str  # "informative", "all right: no signal", "all equal: no signal", "dropped"…


@dataclass(frozen=True)
class TrainingSnapshot:
    config: TrainingConfig
    steps_done: int
    playing: bool
    series: tuple[AlgorithmSeries, ...]
    metric: str  # the second chart's metric (a key of METRICS)
    metric_label: str
    focus: str  # the algorithm whose problems the frontier's dots show
    frontier_p: np.ndarray  # (K,) pass rates from 0 to 1
    frontier_curves: tuple[tuple[int, np.ndarray], ...]  # (G, informative probability at p)
    dots: tuple[FrontierDot, ...]
    selected_step: int | None  # the step whose groups the Lab shows, if any
    status: str  # one plain sentence
    #: The step the frontier's dots stand at: the selected step if any, else the last one.
    dots_step: int = 0
    groups: tuple[GroupSummary, ...] = ()  # the selected step's groups (focus algorithm, seed 1)
    note: str = STANDIN_NOTE
    #: One sentence per algorithm that diverged (which, from which step, in how many seeds);
    #: "" when none did. A line that ends or thins out must say why.
    divergence_note: str = ""
    #: Why the selected step lists no groups (its seed had diverged); "" when it lists them.
    groups_note: str = ""
    #: Why the last settings edit was not applied and what stays in force ("" when it was).
    refusal: str = ""
    #: What the run was given beside its config: GRPO's and DAPO's convention, the reward.
    convention: str = "textbook"
    reward_weights: RewardWeights = field(default_factory=RewardWeights)

    @property
    def total_steps(self) -> int:
        return self.config.steps

    @property
    def progress(self) -> float:
        return self.steps_done / self.config.steps


@functools.lru_cache(maxsize=8)
def _frontier_curves(group_size: int) -> tuple[np.ndarray, tuple[tuple[int, np.ndarray], ...]]:
    """The frontier's curves (the usual G's and the run's own): computed once per G, not in
    every frame of a run."""
    p = np.linspace(0.0, 1.0, _FRONTIER_POINTS)
    p.flags.writeable = False
    curves = []
    for size in sorted({*FRONTIER_GROUP_SIZES, group_size}):
        curve = informative_probability(p, size)
        curve.flags.writeable = False
        curves.append((size, curve))
    return p, tuple(curves)


def shown_focus(config: TrainingConfig, focus: str | None) -> str:
    """The algorithm a snapshot focuses on: ``focus`` when it runs, else GRPO (or the first)."""
    if focus in config.algorithms:
        return focus
    return "grpo" if "grpo" in config.algorithms else config.algorithms[0]


def _band_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max over seeds (axis 1) without warnings where a step has no value."""
    finite = np.isfinite(values)
    any_value = finite.any(axis=1)
    safe = np.where(finite, values, 0.0)
    counts = np.maximum(finite.sum(axis=1), 1)
    mean = np.where(any_value, safe.sum(axis=1) / counts, np.nan)
    low = np.where(any_value, np.where(finite, values, np.inf).min(axis=1), np.nan)
    high = np.where(any_value, np.where(finite, values, -np.inf).max(axis=1), np.nan)
    return mean, low, high


def _band(values: np.ndarray) -> MetricBand:
    return MetricBand(*_band_rows(values))


class _RunBands:
    """A run's bands as far as they were computed, per algorithm and metric, and the chosen
    steps' parts: a snapshot is built every frame of a playing run, and a run writes each
    step's row once (a later step never changes an earlier one), so only the new rows are
    computed, and a chosen step's dots and groups, once."""

    def __init__(self) -> None:
        # (algorithm, metric) → (mean, low, high) buffers of the run's rows, and rows filled
        self.rows: dict[tuple[str, str], tuple[tuple[np.ndarray, ...], int]] = {}
        self.chosen: dict[tuple[str, int], dict[str, object]] = {}  # (focus, step) → parts

    def band(self, run: TrainingRun, algorithm: str, metric: str) -> MetricBand:
        history = run.history(algorithm)[metric]  # (step_count + 1, S), read-only
        done = history.shape[0]
        key = (algorithm, metric)
        buffers, filled = self.rows.get(key, ((), 0))
        if not buffers:
            rows = run.config.steps + 1
            buffers = tuple(np.full(rows, np.nan) for _ in range(3))
        if filled < done:
            for buffer, new in zip(buffers, _band_rows(history[filled:done])):
                buffer[filled:done] = new
            filled = done
            self.rows[key] = (buffers, filled)
        views = []
        for buffer in buffers:
            view = buffer[:done]
            view.flags.writeable = False  # rows a snapshot shows are never written again
            views.append(view)
        return MetricBand(*views)


_RUN_BANDS: weakref.WeakKeyDictionary[TrainingRun, _RunBands] = weakref.WeakKeyDictionary()
_KEPT_CHOICES = 16  # chosen steps' parts kept per run (a lecturer clicks a few steps)


def _bands_of(run: TrainingRun) -> _RunBands:
    found = _RUN_BANDS.get(run)
    if found is None:
        found = _RUN_BANDS[run] = _RunBands()
    return found


def build_training_snapshot(
    run: TrainingRun,
    *,
    playing: bool = False,
    metric: str = "degenerate_fraction",
    focus: str | None = None,
    selected_step: int | None = None,
    refusal: str = "",
) -> TrainingSnapshot:
    """Everything the Training workspace shows for ``run`` now."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from: {', '.join(METRICS)}")
    config = run.config
    focus = shown_focus(config, focus)
    series = []
    divergences = {name: run.divergence(name) for name in config.algorithms}
    computed = _bands_of(run)
    for name in config.algorithms:
        info = ALGORITHM_INFO[name]
        series.append(
            AlgorithmSeries(
                name=name,
                label=info.label,
                advantage=info.advantage,
                index=ALGORITHMS.index(name),
                # The two charts' metrics only: a snapshot is built every frame of a run.
                bands={
                    key: computed.band(run, name, key)
                    for key in dict.fromkeys(("pass_rate", metric))
                },
                diverged_at=divergences[name].first_step,
                band=len(config.algorithms) <= BANDS_FOR_ALL or name == focus,
            )
        )
    p, curves = _frontier_curves(config.group_size)
    chosen = _chosen_parts(run, focus, selected_step, divergences)
    return TrainingSnapshot(
        config=config,
        steps_done=run.step_count,
        playing=playing,
        series=tuple(series),
        metric=metric,
        metric_label=METRICS[metric][0],
        focus=focus,
        frontier_p=p,
        frontier_curves=curves,
        status=_status(run, playing, focus),
        divergence_note=" ".join(
            divergence.sentence() for divergence in divergences.values() if divergence.diverged
        ),
        refusal=refusal,
        convention=run.convention,
        reward_weights=run.reward_weights,
        **chosen,
    )


def rechoose_training_snapshot(
    snapshot: TrainingSnapshot,
    run: TrainingRun,
    *,
    focus: str | None,
    selected_step: int | None,
) -> TrainingSnapshot:
    """``snapshot`` (built for ``run``) with another chosen step or focus: what a click changes
    (the dots, the step's groups, which band shades, the status' algorithm) is worked out as
    ``build_training_snapshot`` would have for the run at the snapshot's step; the bands are the
    very same objects, not computed again, so the views can tell the curves did not change.

    The run may have gone on since (steps taken that a draw is about to show): a chosen step is
    one the snapshot shows, and what it changes was written at that step, so it is the same
    then as now. A new focus changes the status sentence, about the run's last step: it needs
    the snapshot of the run as it is now."""
    config = run.config
    if snapshot.config != config or snapshot.steps_done > run.step_count:
        raise ValueError("the snapshot does not show this run")
    focus = shown_focus(config, focus)
    series = snapshot.series
    status = snapshot.status
    if focus != snapshot.focus:
        if snapshot.steps_done != run.step_count:
            raise ValueError("a new focus needs the snapshot of the run as it is now")
        many = len(config.algorithms) > BANDS_FOR_ALL
        series = tuple(
            replace(item, band=not many or item.name == focus) for item in snapshot.series
        )
        status = _status(run, snapshot.playing, focus)
    divergences = {focus: run.divergence(focus)}
    return replace(
        snapshot,
        series=series,
        focus=focus,
        status=status,
        **_chosen_parts(run, focus, selected_step, divergences, snapshot.steps_done),
    )


def _chosen_parts(
    run: TrainingRun,
    focus: str,
    selected_step: int | None,
    divergences: dict[str, Divergence],
    steps_done: int | None = None,
) -> dict[str, object]:
    """What depends on the chosen step: the frontier's dots (at the chosen step, else the
    last of the ``steps_done`` shown, by default the run's), the step's groups and why it lists
    none."""
    shown = run.step_count if steps_done is None else steps_done
    if selected_step is not None and not 1 <= selected_step <= shown:
        selected_step = None
    if selected_step is None:
        return _parts_at(run, focus, None, shown, divergences)
    # A chosen step's parts were written at that step: worked out once per run.
    kept = _bands_of(run).chosen
    key = (focus, selected_step)
    parts = kept.pop(key, None)
    if parts is None:
        parts = _parts_at(run, focus, selected_step, selected_step, divergences)
    kept[key] = parts  # the most recent last
    while len(kept) > _KEPT_CHOICES:
        kept.pop(next(iter(kept)))
    return parts


def _parts_at(
    run: TrainingRun,
    focus: str,
    selected_step: int | None,
    dots_step: int,
    divergences: dict[str, Divergence],
) -> dict[str, object]:
    config = run.config
    # (P,): mean over the seeds that have a pass rate at the dots' step (a diverged seed has
    # none): the step clicked on the charts, whose groups are listed, or else the last one.
    latest = _band(run.pass_rates(focus)[dots_step].T).mean
    placed = np.isfinite(latest)
    informative = informative_probability(latest[placed], config.group_size)
    dots = tuple(
        FrontierDot(problem.id, problem.title, float(rate), float(share))
        for problem, rate, share in zip(
            (problem for problem, ok in zip(run.library.problems, placed) if ok),
            latest[placed],
            informative,
        )
    )
    groups = () if selected_step is None else _group_summaries(run, focus, selected_step)
    groups_note = ""
    if selected_step is not None and not groups:
        seed_diverged_at = divergences[focus].steps[0] if focus in divergences else None
        if seed_diverged_at is not None:
            groups_note = (
                f"Seed 1 diverged at step {seed_diverged_at}: its policy is not a number from "
                "then on, so it drew no groups to open."
            )
    return {
        "dots": dots,
        "selected_step": selected_step,
        "dots_step": dots_step,
        "groups": groups,
        "groups_note": groups_note,
    }


def _group_summaries(run: TrainingRun, focus: str, step: int) -> tuple[GroupSummary, ...]:
    titles = {problem.id: problem.title for problem in run.library.problems}
    summaries = []
    for index, group in enumerate(run.groups(focus, step, 0)):
        rewards = group.rewards
        if not group.used:
            verdict = "dropped (no signal)"
        elif all(r == rewards[0] for r in rewards):
            verdict = _no_signal(group.correct_versions)
        else:
            verdict = "informative"
        summaries.append(
            GroupSummary(
                index=index,
                title=titles[group.problem_id],
                rewards=" ".join(f"{r:g}" for r in rewards),
                advantages=" ".join(signed(a, 2) for a in group.advantages),
                verdict=verdict,
            )
        )
    return tuple(summaries)


def _no_signal(correct: tuple[bool, ...]) -> str:
    """An all-equal group, named by the checker's verdicts when they agree (weighted rewards can
    tie right and wrong answers too)."""
    if all(correct):
        return "all right: no signal"
    if not any(correct):
        return "all wrong: no signal"
    return "all rewards equal: no signal"


def _status(run: TrainingRun, playing: bool, focus: str) -> str:
    config = run.config
    if run.step_count == 0:
        algorithms = len(config.algorithms)
        return (
            f"Ready: {algorithms} algorithm{'s' if algorithms != 1 else ''} × "
            f"{config.seeds} seed{'s' if config.seeds != 1 else ''}, {config.steps} steps of "
            f"{config.batch} group{'s' if config.batch != 1 else ''} of G = {config.group_size}."
        )
    state = "playing" if playing else "finished" if run.finished else "paused"
    divergence = run.divergence(focus)
    if divergence.all_seeds:
        return (
            f"Step {run.step_count} of {config.steps} ({state}): "
            f"{ALGORITHM_INFO[focus].label} diverged at step {divergence.first_step}."
        )
    degenerate = run.history(focus)["degenerate_fraction"][-1]
    share = float(np.nanmean(degenerate)) if np.isfinite(degenerate).any() else 0.0
    return (
        f"Step {run.step_count} of {config.steps} ({state}): "
        f"{share:.0%} of {ALGORITHM_INFO[focus].label}'s groups this step had all-equal rewards "
        "and taught nothing."
    )
