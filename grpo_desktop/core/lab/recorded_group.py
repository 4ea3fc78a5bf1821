"""One group from a real run's rollout file, as the lab shows it: the answers exactly as the model
wrote them and the rewards the run logged. A group the app's own tiny language model samples
(run format ``"tinylm"``, :mod:`grpo_desktop.core.tinylm.lab_group`) is shown the same way.

Pure Python. A recorded group is not a library problem: its texts have no "right" and "wrong"
versions and its rewards are whatever the run's reward functions returned, so the lab shows them
as they are (no toggling, no resizing) while the statistics, the chart, the worked math and the
Update workspace work on them like on any group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.lab.lab_limits import MAX_GROUP_SIZE, MAX_REWARD_MAGNITUDE, MIN_GROUP_SIZE
from grpo_desktop.core.lab.problems import Problem, Trace

if TYPE_CHECKING:  # the file readers load when a run is opened; a saved group needs none of them
    from grpo_desktop.core.runs.rollouts import RolloutAnswer, RolloutSource

#: The longest prompt kept for the problem panel; a real prompt can be a whole few-shot page.
MAX_PROMPT_CHARS = 4000
#: The longest completion kept per card (a real completion can be a whole book).
MAX_TEXT_CHARS = 20000
#: The longest answer key kept (verl's ``gts`` can be a whole solution; the panel shows a line).
MAX_ANSWER_KEY_CHARS = 200
TRUNCATED = " … [cut: {omitted} more characters]"
#: The run format of a group the app's tiny language model sampled (not read from a file).
TINYLM_FORMAT = "tinylm"
RUN_FORMATS = ("verl", "trl", TINYLM_FORMAT)
#: The checkpoint the app ships (``core.tinylm.model.DEFAULT_CHECKPOINT``; the lab cannot import
#: the tiny model's package): a group from it does not repeat its name.
SHIPPED_TINYLM_CHECKPOINT = "tinylm/add.npz"


def reward_magnitude_problem(rewards: Sequence[float]) -> str | None:
    """Why the lab cannot score these rewards under every convention, as a phrase that follows
    "group 3 …" or "field 'problem.recorded' …"; None when it can."""
    for position, reward in enumerate(rewards, start=1):
        if abs(reward) > MAX_REWARD_MAGNITUDE:
            return (
                f"has reward #{position} = {number(reward)}, beyond the "
                f"±{number(MAX_REWARD_MAGNITUDE)} the lab scores: no reward function gives more, "
                "and the squares of such rewards leave float64"
            )
    return None


@dataclass(frozen=True)
class RecordedGroup:
    """The answers to one prompt in one step of a run, and what the run logged for each."""

    #: "verl", "trl" or "tinylm" (sampled in the app: file_name is the checkpoint's path, so the
    #: Update workspace can step the very weights that wrote the group)
    run_format: str
    file_name: str
    step: int
    group_index: int  # 0-based, in file order
    group_count: int  # how many groups the step has
    prompt: str
    answer_key: str | None  # verl's ``gts``; None when the run logs none
    texts: tuple[str, ...]
    rewards: tuple[float, ...]
    components: tuple[tuple[str, tuple[float, ...]], ...]  # reward key -> one value per answer
    logged_advantages: tuple[float, ...] | None  # TRL's ``advantage`` column, when logged
    #: Answers no reward function scored (TRL >= 1.6 logs reward NaN, leaves them out of the
    #: group's mean and std and gives them advantage 0): not among ``texts``, counted here.
    unscored: int = 0
    #: A group the tiny model sampled: its seed, temperature and parameter count (else None).
    seed: int | None = None
    temperature: float | None = None
    parameters: int | None = None

    @property
    def group_size(self) -> int:
        return len(self.texts)

    @property
    def title(self) -> str:
        if self.run_format == TINYLM_FORMAT:
            return f"{self.group_size} answers to {visible(self.prompt)}"
        return f"Step {self.step} · group {self.group_index + 1} of {self.group_count}"

    @property
    def from_model(self) -> bool:
        """Sampled in the app from the tiny language model, not read from a run's file."""
        return self.run_format == TINYLM_FORMAT

    @property
    def kind(self) -> str:
        """What the group is, for the problem panel: a run's, or the tiny model's."""
        return "Sampled in the lab" if self.from_model else "A real run's group"

    @property
    def chooser_label(self) -> str:
        """The problem chooser's entry while this group shows."""
        return "(from the tiny model)" if self.from_model else "(from a run)"

    @property
    def rewards_told(self) -> tuple[str, str]:
        """Where the rewards come from: a title and one line, for the worked math."""
        if self.from_model:
            return (
                f"Rewards graded when the model wrote the answers ({self.origin})",
                "each reward is the lab's reward functions' weighted sum at that moment",
            )
        return (
            f"Rewards as the run logged them ({self.origin})",
            "each reward is the run's own reward functions' sum; the lab only scores it",
        )

    @property
    def origin(self) -> str:
        """Where the group comes from, for the problem panel and the window title."""
        if self.run_format == TINYLM_FORMAT:
            size = f" ({self.parameters:,} parameters)" if self.parameters else ""
            origin = f"the tiny language model{size}, seed {self.seed}"
            if self.temperature is not None and self.temperature != 1.0:
                origin += f", temperature {number(self.temperature)}"
            if self.file_name != SHIPPED_TINYLM_CHECKPOINT:  # a saved checkpoint's path
                origin += f", {visible(PurePath(self.file_name).name)}"
            return origin
        library = "verl" if self.run_format == "verl" else "TRL"
        origin = f"{library} rollouts, {visible(self.file_name)}"
        if self.unscored:
            answers = "answer" if self.unscored == 1 else "answers"
            origin += (
                f"; {self.unscored} {answers} no reward function scored left out, as TRL ≥ 1.6 "
                "leaves them out of the mean and std (advantage 0)"
            )
        return origin

    def problem(self) -> Problem:
        """The group as a problem: one trace per answer (both versions the same text).

        This is what the lab shows, so a control, bidi or zero-width character the model wrote
        (U+202E turns "evil.exe" into "exe.live") appears as an escape; the group itself keeps
        the text exactly as logged, and a scenario saves it so."""
        mean = sum(self.rewards) / len(self.rewards)
        return Problem(
            id=f"tinylm-seed-{self.seed}"
            if self.run_format == TINYLM_FORMAT
            else f"recorded-step-{self.step}-group-{self.group_index + 1}",
            title=self.title,
            prompt=visible(self.prompt, multiline=True),
            answer_key=visible(self.answer_key or ""),
            difficulty="medium",
            pass_rate=min(max(mean, 0.0), 1.0),
            group_size=self.group_size,
            default_rewards=tuple(int(r > 0) for r in self.rewards),
            traces=tuple(
                Trace(correct=shown, wrong=shown)
                for shown in (visible(text, multiline=True) for text in self.texts)
            ),
        )


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + TRUNCATED.format(omitted=f"{len(text) - limit:,}")


def recorded_group(source: RolloutSource, step: int, group_index: int) -> RecordedGroup:
    """Read one group back from its file; a group the lab cannot hold raises ``RolloutError``."""
    from grpo_desktop.core.runs.rollouts import RolloutError

    summary = source.step(step)
    logged: list[RolloutAnswer] = source.group_answers(step, group_index)
    # An answer no reward function scored has reward NaN (TRL >= 1.6): the run left it out of
    # the group's statistics, so the lab shows the answers it scored and says how many it left.
    answers = [answer for answer in logged if not math.isnan(answer.reward)]
    unscored = len(logged) - len(answers)
    size = len(answers)
    if not MIN_GROUP_SIZE <= size <= MAX_GROUP_SIZE:
        scored = f" scored ({unscored} no reward function scored)" if unscored else ""
        raise RolloutError(
            f"{summary.source}: step {step}, group {group_index + 1} has {size} answers{scored}; "
            f"the lab shows groups of {MIN_GROUP_SIZE} to {MAX_GROUP_SIZE}"
        )
    rewards = tuple(answer.reward for answer in answers)
    if not all(math.isfinite(reward) for reward in rewards):
        raise RolloutError(
            f"{summary.source}: step {step}, group {group_index + 1} has a reward that is infinite"
        )
    names: list[str] = []
    for answer in answers:
        names.extend(name for name in answer.components if name not in names)
    components = tuple(
        (name, tuple(answer.components.get(name, math.nan) for answer in answers)) for name in names
    )
    logged_advantages = [answer.advantage for answer in answers]
    advantages = (
        None
        if any(a is None for a in logged_advantages)
        else tuple(float(a) for a in logged_advantages)  # type: ignore[arg-type]
    )
    first = answers[0]
    return RecordedGroup(
        run_format=source.format,
        file_name=summary.source,
        step=step,
        group_index=group_index,
        group_count=len(summary.groups),
        prompt=_clip(first.prompt, MAX_PROMPT_CHARS),
        answer_key=None
        if first.answer_key is None
        else _clip(first.answer_key, MAX_ANSWER_KEY_CHARS),
        texts=tuple(_clip(answer.text, MAX_TEXT_CHARS) for answer in answers),
        rewards=rewards,
        components=components,
        logged_advantages=advantages,
        unscored=unscored,
    )
