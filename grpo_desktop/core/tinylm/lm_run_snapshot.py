"""What the Training workspace draws for a GRPO run on the tiny model, from the run's records.

Pure numpy (no Qt). The GUI never reads the run itself (a worker process steps it): it keeps the
records the worker hands over (:class:`StepMetrics` per step, :class:`EvalMetrics` at each
evaluation, the groups of each step) and builds from them, here, everything the views draw: the
curves over steps, the learning frontier with the held-out prompts as dots at their exact pass
rates, one status sentence, and the chosen step's groups as lines to open in the Lab.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.lab.recorded_group import TINYLM_FORMAT, RecordedGroup
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.model import DEFAULT_CHECKPOINT
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics
from grpo_desktop.core.training.frontier import informative_probability
from grpo_desktop.core.training.training_config import ALGORITHM_INFO

__all__ = [
    "EVAL_METRICS",
    "LM_METRICS",
    "STEP_METRICS",
    "TRANSFER_NOTE",
    "LMCurve",
    "LMGroupLine",
    "LMRunSnapshot",
    "ModelFacts",
    "build_lm_run_snapshot",
    "lm_group_as_recorded",
    "model_facts",
    "model_note",
    "rate_text",
]

#: Every metric the curves show, in the order the chooser lists them: (key, label).
LM_METRICS = (
    ("pass_rate", "Held-out exact pass rate"),
    ("greedy_accuracy", "Held-out greedy accuracy"),
    ("reward_mean", "Mean reward"),
    ("degenerate_fraction", "Degenerate groups (all rewards equal: no signal)"),
    ("kl", "KL to the starting checkpoint"),
    ("entropy", "Entropy (nats per answer token)"),
    ("completion_length", "Completion length (tokens)"),
)
EVAL_METRICS = ("pass_rate", "greedy_accuracy")  # measured on the held-out prompts
STEP_METRICS = tuple(key for key, _ in LM_METRICS if key not in EVAL_METRICS)
_LABELS = dict(LM_METRICS)
_FRONTIER_POINTS = 201

TRANSFER_NOTE = (
    "What carries over to large models: only groups with mixed rewards give a signal, so "
    "prompts the model always or never solves stop teaching (the frontier); clipping and the "
    "KL term behave the same way; and training on some prompts moves held-out ones it never "
    "saw. What does not: the scale, the character tokenizer, and long chains of reasoning."
)


@dataclass(frozen=True)
class ModelFacts:
    """What the page says about the model the run trains (the worker reads it off the model)."""

    parameters: int
    layers: int
    vocabulary: int
    checkpoint: str | None  # None: the shipped checkpoint
    pretraining: str = ""  # what the checkpoint's info says it learned, if anything


def model_facts(model, checkpoint: str | None) -> ModelFacts:
    """The facts of a loaded :class:`~grpo_desktop.core.tinylm.model.TinyLM`: its size, and
    what its checkpoint's info says it learned (pretraining, then GRPO steps)."""
    info = model.info if isinstance(model.info, dict) else {}
    trained = info.get("trained_on")
    grpo = info.get("grpo")
    pretraining = str(trained) if isinstance(trained, str) else ""
    if isinstance(grpo, dict) and isinstance(grpo.get("steps_done"), int):
        pretraining = ", then ".join(
            filter(None, [pretraining, f"GRPO {grpo['steps_done']} steps"])
        )
    return ModelFacts(
        parameters=model.n_params,
        layers=model.config.n_layers,
        vocabulary=model.config.vocab_size,
        checkpoint=checkpoint,
        pretraining=pretraining[:120],
    )


def model_note(facts: ModelFacts | None, checkpoint: str | None) -> str:
    """The page's plain sentence on what the model is, and what carries over."""
    if facts is None:
        source = "the shipped checkpoint" if checkpoint is None else f"the file {checkpoint}"
        return f"A real tiny language model from {source}. {TRANSFER_NOTE}"
    shape = (
        f"A real {facts.parameters:,}-parameter {facts.layers}-layer character transformer "
        f"with a {facts.vocabulary}-token vocabulary"
    )
    if facts.checkpoint is None:
        origin = (
            ", pretrained for 400 steps on addition and digit sorting (the shipped "
            f"{DEFAULT_CHECKPOINT})"
        )
    else:
        origin = f", from the checkpoint {facts.checkpoint}"
        if facts.pretraining:
            origin += f" ({facts.pretraining})"
    return f"{shape}{origin}, trained here by GRPO. {TRANSFER_NOTE}"


@dataclass(frozen=True)
class LMCurve:
    """One metric over steps (``steps`` and ``values`` of equal length)."""

    key: str
    label: str
    steps: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class LMGroupLine:
    """One group of the chosen step, as its line in the list."""

    index: int
    text: str
    used: bool


@dataclass(frozen=True)
class LMRunSnapshot:
    """Everything the Training workspace shows of a tiny-model run, at one moment."""

    config: LMTrainingConfig  # the workbench's settings (what the controls show)
    ready: bool  # the model is loaded and measured at step 0
    error: str  # one sentence when the checkpoint could not be loaded; "" otherwise
    playing: bool
    step: int
    curves: dict[str, LMCurve]
    metric: str  # the second chart's metric
    frontier_p: np.ndarray
    frontier_y: np.ndarray
    dots_p: np.ndarray  # each held-out prompt's exact pass rate at the latest evaluation
    dots_y: np.ndarray
    dots_step: int | None  # the step of that evaluation (None before the first)
    status: str
    selected_step: int | None  # the step whose groups are listed
    groups: tuple[LMGroupLine, ...]
    note: str
    refusal: str = ""  # why the last settings edit was not applied

    @property
    def total_steps(self) -> int:
        return self.config.steps

    @property
    def finished(self) -> bool:
        return self.step >= self.config.steps


def rate_text(value: float) -> str:
    """A pass rate or accuracy as the page writes it: two decimals (0.31)."""
    return f"{value:.2f}"


def _curve(key: str, steps: Sequence[int], values: Sequence[float]) -> LMCurve:
    return LMCurve(
        key, _LABELS[key], np.asarray(steps, dtype=float), np.asarray(values, dtype=float)
    )


def build_lm_run_snapshot(
    config: LMTrainingConfig,
    metrics: Sequence[StepMetrics],
    evals: Sequence[EvalMetrics],
    groups: Sequence[tuple[LMGroup, ...]],
    *,
    playing: bool = False,
    metric: str = "reward_mean",
    selected_step: int | None = None,
    error: str = "",
    facts: ModelFacts | None = None,
    checkpoint: str | None = None,
    refusal: str = "",
) -> LMRunSnapshot:
    """The snapshot of a run with these records (``groups[i]`` are step i + 1's groups)."""
    curves = {
        key: _curve(key, [e.step for e in evals], [getattr(e, key) for e in evals])
        for key in EVAL_METRICS
    }
    step_numbers = [m.step for m in metrics]
    for key in STEP_METRICS:
        curves[key] = _curve(key, step_numbers, [getattr(m, key) for m in metrics])
    size = config.group_size
    frontier_p = np.linspace(0.0, 1.0, _FRONTIER_POINTS)
    frontier_y = np.asarray(informative_probability(frontier_p, size))
    if evals:
        dots_p = np.clip(np.asarray(evals[-1].pass_rates, dtype=float), 0.0, 1.0)
        dots_y = np.asarray(informative_probability(dots_p, size), dtype=float)
        dots_step: int | None = evals[-1].step
    else:
        dots_p = dots_y = np.zeros(0)
        dots_step = None
    step = metrics[-1].step if metrics else 0
    if metric not in _LABELS:
        metric = "reward_mean"
    chosen = selected_step if selected_step is not None and 1 <= selected_step <= step else None
    shown_step = chosen if chosen is not None else (step or None)
    lines = () if shown_step is None else _group_lines(groups[shown_step - 1])
    return LMRunSnapshot(
        config=config,
        ready=bool(evals) and not error,
        error=error,
        playing=playing and not error,
        step=step,
        curves=curves,
        metric=metric,
        frontier_p=frontier_p,
        frontier_y=frontier_y,
        dots_p=dots_p,
        dots_y=dots_y,
        dots_step=dots_step,
        status=_status(config, metrics, evals, playing, error),
        selected_step=shown_step,
        groups=lines,
        note=model_note(facts, checkpoint),
        refusal=refusal,
    )


def _status(
    config: LMTrainingConfig,
    metrics: Sequence[StepMetrics],
    evals: Sequence[EvalMetrics],
    playing: bool,
    error: str,
) -> str:
    """One sentence: where the run is and what it has done to the held-out prompts."""
    if error:
        return error
    if not evals:
        return "Loading the model and measuring it on the held-out prompts…"
    algorithm = ALGORITHM_INFO[config.algorithm].label
    start, latest = evals[0], evals[-1]
    step = metrics[-1].step if metrics else 0
    if step == 0:
        return (
            f"Step 0 of {config.steps} ({algorithm}): the model solves the held-out prompts "
            f"with exact pass rate {rate_text(start.pass_rate)} and greedy accuracy "
            f"{rate_text(start.greedy_accuracy)}. Press Play or Step."
        )
    change = latest.pass_rate - start.pass_rate
    if latest.step == 0:
        every = config.eval_every
        moved = f" (measured again at step {every})" if every else " (measured again at the end)"
    elif rate_text(abs(change)) == rate_text(0.0):
        moved = " (as at step 0)"
    else:
        direction = "up" if change > 0 else "down"
        moved = f" ({direction} {rate_text(abs(change))} from {rate_text(start.pass_rate)})"
    state = "finished" if step >= config.steps else "playing" if playing else "paused"
    last = metrics[-1]
    return (
        f"Step {step} of {config.steps} ({algorithm}, {state}): held-out exact pass rate "
        f"{rate_text(latest.pass_rate)} at step {latest.step}{moved}, greedy accuracy "
        f"{rate_text(latest.greedy_accuracy)}; {round(100 * last.degenerate_fraction)}% of this "
        "step's groups gave no signal."
    )


@functools.lru_cache(maxsize=4)
def _group_lines(groups: tuple[LMGroup, ...]) -> tuple[LMGroupLine, ...]:
    """The listed step's groups as lines (cached: a step that lists the same step's groups
    formats none of its 512 rewards again)."""
    lines = []
    for index, group in enumerate(groups):
        answer = group.answer.rstrip(".")
        right = sum(reward >= 1.0 for reward in group.rewards)
        rewards = " ".join(number(reward) for reward in group.rewards)
        taught = "taught" if group.used and len(set(group.rewards)) > 1 else "no signal"
        if not group.used:
            taught = "left out"
        lines.append(
            LMGroupLine(
                index,
                f"#{index + 1}  {group.prompt}{answer}  ·  {right} of {len(group.rewards)} "
                f"right  ·  rewards {rewards}  ·  {taught}",
                group.used,
            )
        )
    return tuple(lines)


def lm_group_as_recorded(
    group: LMGroup,
    step: int,
    index: int,
    count: int,
    checkpoint: str | None,
    parameters: int | None,
    temperature: float,
) -> RecordedGroup:
    """A step's group as the Lab shows a real run's group: the model's own completions with the
    rewards the run gave them (the Lab recomputes advantages under its convention)."""
    return RecordedGroup(
        run_format=TINYLM_FORMAT,
        file_name=checkpoint or DEFAULT_CHECKPOINT,
        step=step,
        group_index=index,
        group_count=count,
        prompt=group.prompt,
        answer_key=group.answer,
        texts=group.completions,
        rewards=group.rewards,
        components=(),
        logged_advantages=group.advantages,
        temperature=float(temperature),
        parameters=parameters,
    )
