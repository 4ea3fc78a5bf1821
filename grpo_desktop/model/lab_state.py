"""The lab state: one QObject that holds what the lecturer set up and scores it.

It is the only caller of ``core`` and of the checker (DESIGN §2). Every change rebuilds one
``LabSnapshot`` and emits ``snapshot_changed`` once; the views render that object and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, Signal

from grpo_desktop import core
from grpo_desktop.core.lab.checker import Verdict, grade
from grpo_desktop.core.lab.lab_limits import check_group_size
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.lab_rewards import RewardWeights, check_score
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, Problem, get_problem, verify_answers
from grpo_desktop.core.lab.reward_patterns import get_reward_pattern

if TYPE_CHECKING:
    from grpo_desktop.core.lab.recorded_group import RecordedGroup


class LabState(QObject):
    """The problem, each card's right/wrong state, how rewards are made and the convention;
    scores them on change.

    Rewards come from the reward functions' weighted sum, or, in continuous mode, from a
    hand-set score per card (``scores``); a real run's group (``recorded``) shows the rewards
    the run logged until a card's reward is dragged.
    """

    snapshot_changed = Signal(object)  # LabSnapshot
    problem_changed = Signal(object)  # Problem; emitted before snapshot_changed

    def __init__(
        self,
        problem: Problem | None = None,
        parent: QObject | None = None,
        convention: str = core.DEFAULT_CONVENTION,
    ) -> None:
        super().__init__(parent)
        self._problem = problem or get_problem(DEFAULT_PROBLEM_ID)
        verify_answers(self._problem)
        self._correct: tuple[bool, ...] = self._problem.default_group(self._problem.group_size)
        self._convention = core.get_convention(convention)
        self._sample_seed: int | None = None
        self._weights = RewardWeights()
        self._scores: tuple[float, ...] | None = None
        self._recorded: RecordedGroup | None = None
        self._verdicts: dict[tuple[int, bool], Verdict] = {}
        # Snapshots one toggle away, built ahead (toggled_snapshot), per right/wrong flags;
        # emptied whenever the lab changes.
        self._ahead: dict[tuple[bool, ...], LabSnapshot] = {}
        self._snapshot = self._build()

    # --- reading ----------------------------------------------------------------------------

    @property
    def snapshot(self) -> LabSnapshot:
        return self._snapshot

    @property
    def problem(self) -> Problem:
        return self._problem

    @property
    def group_size(self) -> int:
        return len(self._correct)

    @property
    def correct(self) -> tuple[bool, ...]:
        return self._correct

    @property
    def convention(self) -> str:
        return self._convention.name

    @property
    def weights(self) -> RewardWeights:
        return self._weights

    @property
    def by_hand(self) -> bool:
        """Continuous mode: each card's reward is a hand-set score."""
        return self._scores is not None

    @property
    def recorded(self) -> RecordedGroup | None:
        return self._recorded

    def toggled_snapshot(self, index: int) -> LabSnapshot | None:
        """The snapshot card ``index``'s toggle would bring, without changing the lab: what the
        views draw ahead in idle time (every other card's numbers are those of any toggle in
        the same direction). Kept until the lab changes: that toggle then shows it instead of
        building it again. None for a run's group or hand-set rewards, where a toggle does not
        simply flip a verdict."""
        self._check_index(index)
        if self._recorded is not None or self._scores is not None:
            return None
        flags = list(self._correct)
        flags[index] = not flags[index]
        correct = tuple(flags)
        kept = self._ahead.get(correct)
        if kept is None:
            # As a toggle builds it (_regroup, then _apply): a toggled group is no longer the
            # sampled one, so its seed is None.
            kept = self._ahead[correct] = build_snapshot(
                self._problem,
                correct,
                self._convention,
                None,
                self._verdict,
                weights=self._weights,
                scores=None,
                recorded=None,
            )
        return kept

    def memento(self) -> LabMemento:
        return LabMemento(
            self._problem,
            self._correct,
            self._sample_seed,
            self._weights,
            self._scores,
            self._recorded,
        )

    # --- changing ---------------------------------------------------------------------------

    def restore(self, memento: LabMemento) -> None:
        """Put the lab back exactly as ``memento`` describes (undo/redo, reset, scenarios)."""
        self._apply(
            memento.problem,
            memento.correct,
            self._convention,
            memento.sample_seed,
            memento.weights,
            memento.scores,
            memento.recorded,
        )

    def set_problem(self, problem: Problem | str, correct: Sequence[bool] | None = None) -> None:
        """Switch problem; its own default group unless ``correct`` says otherwise."""
        chosen = get_problem(problem) if isinstance(problem, str) else problem
        flags = tuple(correct) if correct is not None else chosen.default_group(chosen.group_size)
        self._regroup(chosen, flags, None)

    def show_recorded(self, group: RecordedGroup) -> None:
        """Show one group of a real run: its answers as written, its rewards as logged."""
        check_group_size(group.group_size)
        flags = tuple(reward > 0 for reward in group.rewards)
        self._apply(group.problem(), flags, self._convention, None, self._weights, None, group)

    def set_group_size(self, group_size: int) -> None:
        """Resize the group; cards that remain keep their state, new ones follow its default
        group."""
        self._refuse_recorded("has the size the run sampled")
        check_group_size(group_size)
        fresh = self._problem.default_group(group_size)
        flags = self._correct[:group_size] + fresh[len(self._correct) :]
        self._regroup(self._problem, flags, None)

    def set_correct(self, index: int, correct: bool) -> None:
        self._check_index(index)
        self._refuse_recorded("is as the model wrote it; drag its reward instead")
        flags = list(self._correct)
        flags[index] = bool(correct)
        self._regroup(self._problem, tuple(flags), None)

    def set_weights(self, weights: RewardWeights) -> None:
        """Weigh the reward functions (TRL's ``reward_weights``) for every card."""
        self._change(weights=weights)

    def set_by_hand(self, by_hand: bool) -> None:
        """Continuous mode on: each card keeps its reward as a score to drag; off: computed."""
        scores = self._snapshot.rewards if by_hand else None
        if by_hand and self._scores is not None:
            scores = self._scores
        self._change(scores=scores)

    def set_score(self, index: int, score: float) -> None:
        """Set one card's reward by hand (continuous mode starts if it was off)."""
        self._check_index(index)
        value = check_score(score)
        scores = list(self._scores if self._scores is not None else self._snapshot.rewards)
        scores[index] = value
        self._change(scores=tuple(scores))

    def toggle(self, index: int) -> None:
        self.set_correct(index, not self._correct[index])

    def set_correct_flags(self, correct: Sequence[bool]) -> None:
        """Set every card at once; the group size becomes ``len(correct)``."""
        flags = tuple(bool(flag) for flag in correct)
        check_group_size(len(flags))
        self._regroup(self._problem_to_regroup(), flags, None)

    def set_convention(self, convention: str | core.Convention) -> None:
        """Only the workbench calls this, for every lab at once: one convention on screen."""
        chosen = core.get_convention(convention)  # a readable ValueError for a bad name
        self._change(convention=chosen)

    def apply_reward_pattern(self, key: str) -> None:
        pattern = get_reward_pattern(key)
        if pattern.problem_id:
            problem = get_problem(pattern.problem_id)
        else:
            problem = self._problem_to_regroup()
        size = self.group_size
        flags = pattern.correct if pattern.correct is not None else (pattern.fill,) * size
        self._regroup(problem, flags, None)

    def reset(self) -> None:
        """Back to the current problem's default group (Reset all); a run's group goes back
        to the rewards the run logged."""
        if self._recorded is not None:
            self.show_recorded(self._recorded)
        else:
            self.set_problem(self._problem)

    def sample(self, seed: int) -> None:
        """Draw each card right with the problem's pass rate; the same seed gives the same group."""
        problem = self._problem_to_regroup()
        draws = np.random.default_rng(seed).random(self.group_size) < problem.pass_rate
        self._regroup(problem, tuple(bool(d) for d in draws), seed)

    # --- internals --------------------------------------------------------------------------

    def _check_index(self, index: int) -> None:
        if not 0 <= index < self.group_size:
            raise ValueError(f"card {index + 1} does not exist; the group has {self.group_size}")

    def _refuse_recorded(self, reason: str) -> None:
        if self._recorded is not None:
            raise ValueError(f"a run's group {reason}")

    def _problem_to_regroup(self) -> Problem:
        """The problem a reward pattern or a sample draws from: a run's group goes back to the
        library's
        default problem (its answers have no right and wrong versions to draw)."""
        return get_problem(DEFAULT_PROBLEM_ID) if self._recorded is not None else self._problem

    def _regroup(self, problem: Problem, correct: tuple[bool, ...], seed: int | None) -> None:
        """New right/wrong flags (and maybe problem): in continuous mode, a card whose text is
        unchanged keeps its hand-set reward and any other takes its computed one."""
        scores = None
        if self._scores is not None and self._recorded is None:
            computed = self._build_for(problem, correct, None).rewards
            same = problem == self._problem
            scores = tuple(
                self._scores[i]
                if same and i < len(self._correct) and self._correct[i] == flag
                else computed[i]
                for i, flag in enumerate(correct)
            )
        self._apply(problem, correct, self._convention, seed, self._weights, scores, None)

    def _change(self, **changes: Any) -> None:
        """:meth:`_apply` with everything not named in ``changes`` as it is now."""
        current: dict[str, Any] = {
            "problem": self._problem,
            "correct": self._correct,
            "convention": self._convention,
            "seed": self._sample_seed,
            "weights": self._weights,
            "scores": self._scores,
            "recorded": self._recorded,
        }
        current.update(changes)
        self._apply(**current)

    def _apply(
        self,
        problem: Problem,
        correct: tuple[bool, ...],
        convention: core.Convention,
        seed: int | None,
        weights: RewardWeights,
        scores: tuple[float, ...] | None,
        recorded: RecordedGroup | None,
    ) -> None:
        check_group_size(len(correct))
        if scores is not None and len(scores) != len(correct):
            raise ValueError(f"{len(scores)} rewards for a group of {len(correct)}")
        problem_changed = problem != self._problem
        if problem_changed and recorded is None:
            verify_answers(problem)  # a card must never show reward 1 beside a wrong answer
        unchanged = (
            not problem_changed
            and correct == self._correct
            and convention == self._convention
            and seed == self._sample_seed
            and weights == self._weights
            and scores == self._scores
            and recorded == self._recorded
        )
        if unchanged:
            return
        # The snapshot first: if the group cannot be computed, the lab stays exactly as it was
        # (never a new problem beside the old numbers). A toggle built ahead is taken as is: the
        # snapshots ahead were built from the lab as it is (they go whenever it changes), and
        # only for a group whose toggle flips a verdict (no run's group, no hand-set rewards).
        ahead = None
        if (
            not problem_changed
            and convention == self._convention
            and weights == self._weights
            and seed is None
            and scores is None
            and recorded is None
        ):
            ahead = self._ahead.get(correct)
        if ahead is not None:
            snapshot = ahead
        else:
            snapshot = build_snapshot(
                problem,
                correct,
                convention,
                seed,
                None if problem_changed else self._verdict,
                weights=weights,
                scores=scores,
                recorded=recorded,
            )
        self._ahead.clear()
        if problem_changed:
            self._verdicts.clear()
        self._problem, self._correct = problem, correct
        self._convention, self._sample_seed = convention, seed
        self._weights, self._scores, self._recorded = weights, scores, recorded
        self._snapshot = snapshot
        if problem_changed:
            self.problem_changed.emit(problem)
        self.snapshot_changed.emit(self._snapshot)

    def _verdict(self, index: int, correct: bool) -> Verdict:
        """The checker's verdict on card ``index``'s text; traces repeat, so cache by trace."""
        key = (index % len(self._problem.traces), correct)
        verdict = self._verdicts.get(key)
        if verdict is None:
            text = self._problem.trace_for(index).text(correct)
            verdict = self._verdicts[key] = grade(text, self._problem.answer_key)
        return verdict

    def _build(self) -> LabSnapshot:
        return self._build_for(self._problem, self._correct, self._scores, self._recorded)

    def _build_for(
        self,
        problem: Problem,
        correct: tuple[bool, ...],
        scores: tuple[float, ...] | None,
        recorded: RecordedGroup | None = None,
    ) -> LabSnapshot:
        verdict = self._verdict if problem == self._problem else None
        return build_snapshot(
            problem,
            correct,
            self._convention,
            self._sample_seed,
            verdict,
            weights=self._weights,
            scores=scores,
            recorded=recorded,
        )
