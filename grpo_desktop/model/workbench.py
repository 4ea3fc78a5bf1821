"""The window-level model: every lab on screen, one convention, the view, the workspace, the file.

Napari's ``ViewerModel`` is the pattern (DESIGN §2): a plain object, no widget, that owns the
state and emits ``*_changed``; the window only lays out views and forwards what the user asked
for. Every edit is one undoable command on :attr:`Workbench.undo_stack`. Opening a scenario and
showing a lesson step replace the whole lab and start a fresh history, as a new document does.

The convention lives here and nowhere else: :meth:`apply_convention` sets it on every lab that
exists, a lab created later starts on it, and a lab's own undo history never records it, so no
sequence of edits, undos and redos can leave two groups on screen on different conventions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from grpo_desktop.core.formulas import advantages
from grpo_desktop.core.lab.lab_limits import (
    DEFAULT_VIEW,
    WORKSPACES,
    check_group_size,
    check_view,
    next_sample_seed,
)
from grpo_desktop.core.lab.lab_rewards import check_score
from grpo_desktop.core.lab.problems import Problem, get_problem
from grpo_desktop.core.lab.reward_patterns import (
    EASY_PROBLEM_ID,
    EASY_REWARDS,
    HARD_PROBLEM_ID,
    HARD_REWARDS,
    get_reward_pattern,
)
from grpo_desktop.model import commands
from grpo_desktop.model.lab_state import LabState

if TYPE_CHECKING:  # lessons, scenarios, the run and the update step load when first used
    from grpo_desktop.core.files.lessons import LessonStep
    from grpo_desktop.core.files.scenario import Scenario
    from grpo_desktop.core.lab.lab_rewards import RewardWeights
    from grpo_desktop.core.lab.recorded_group import RecordedGroup
    from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
    from grpo_desktop.core.training.policy_choice import PolicyChoice
    from grpo_desktop.core.training.run import SampledGroup
    from grpo_desktop.core.training.training_config import TrainingConfig
    from grpo_desktop.core.update.update_settings import UpdateSettings

LAB, UPDATE, TRAINING, COMPARE = WORKSPACES
LENGTH_BIAS_PROBLEM_ID = "length-bias-sum"
LENGTH_BIAS_CORRECT = (True, False)  # one short right answer, one long wrong one
# Undo steps kept: far more than a lesson uses, so a lecturer never meets it, yet the history
# (and the memory it holds) stays bounded however long the app runs. Past it the oldest steps go.
UNDO_LIMIT = 1000


class Workbench(QObject):
    """The labs, their shared convention, the chart view, the active workspace and document."""

    convention_changed = Signal(str)
    view_changed = Signal(str, bool)  # the view, and whether the change should animate
    workspace_changed = Signal(str)
    active_lab_changed = Signal(
        object
    )  # LabState: the lab that G, reward patterns and keys 1–9 act on
    comparison_created = Signal(object)  # (easy, hard) LabStates, the first time they are needed
    advantages_hidden_changed = Signal(bool)  # predict, then reveal
    document_changed = Signal()  # the file path or the saved/modified state
    update_settings_changed = Signal(object)  # UpdateSettings: the Update workspace's loss
    training_config_changed = Signal(object)  # TrainingConfig: the Training workspace's run
    policy_changed = Signal(object)  # PolicyChoice: the toy or the tiny language model
    lm_training_config_changed = Signal(object)  # LMTrainingConfig: the tiny model's run
    # (lab, card index, the snapshot before): a card was toggled, for the screen reader's line
    card_toggled = Signal(object, int, object)

    def __init__(self, lab: LabState | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = commands.UndoStack(self)
        # Set while the stack is still empty (Qt ignores a limit set on a non-empty stack);
        # clear() keeps it, so every fresh history is bounded too.
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.lab = lab or LabState(parent=self)
        self._convention = advantages.get_convention(self.lab.convention)
        self._comparison: tuple[LabState, LabState] | None = None
        self._prefixes: dict[LabState, str] = {self.lab: ""}
        self._view = DEFAULT_VIEW
        self._workspace = LAB
        self._active = self.lab
        self._advantages_hidden = False
        # The Update and Training workspaces' settings, made (and their modules imported) when
        # first read: the lab's first paint does not wait for them.
        self._update_settings: UpdateSettings | None = None
        self._training_config: TrainingConfig | None = None
        self._policy: PolicyChoice | None = None
        self._lm_training_config: LMTrainingConfig | None = None
        self.next_sample_seed = 1
        self._path: Path | None = None
        self._title = ""  # the scenario file's note for the class, kept when saved back
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)

    # --- reading ----------------------------------------------------------------------------

    @property
    def convention(self) -> str:
        return self._convention.name

    @property
    def view(self) -> str:
        return self._view

    @property
    def workspace(self) -> str:
        return self._workspace

    @property
    def active_lab(self) -> LabState:
        return self._active

    @property
    def update_settings(self) -> UpdateSettings:
        """The Update workspace's loss preset, clip range, β, inner steps and learning rate."""
        if self._update_settings is None:
            from grpo_desktop.core.update.update_settings import UpdateSettings

            self._update_settings = UpdateSettings()
        return self._update_settings

    @property
    def training_config(self) -> TrainingConfig:
        """The Training workspace's run: algorithms, steps, seeds, G, batch, learning rate...

        The run is given the workbench's one convention (GRPO's and DAPO's advantages) and the
        main lab's reward weights besides (:class:`~grpo_desktop.model.training_state.
        TrainingState`); neither is part of its config.
        """
        if self._training_config is None:
            from grpo_desktop.core.training.training_config import TrainingConfig

            self._training_config = TrainingConfig()
        return self._training_config

    @property
    def policy(self) -> PolicyChoice:
        """The policy the workspaces teach on: the toy, or the tiny language model."""
        if self._policy is None:
            from grpo_desktop.core.training.policy_choice import PolicyChoice

            self._policy = PolicyChoice()
        return self._policy

    @property
    def lm_training_config(self) -> LMTrainingConfig:
        """The tiny model's GRPO run: task, algorithm, steps, G, batch, learning rate, β, seed.

        Its ``convention`` and ``reward_weights`` fields are not read: the run is given the
        workbench's one convention and the main lab's reward weights, as the toy run is.
        """
        if self._lm_training_config is None:
            from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig

            self._lm_training_config = LMTrainingConfig()
        return self._lm_training_config

    @property
    def advantages_hidden(self) -> bool:
        return self._advantages_hidden

    @property
    def comparison(self) -> tuple[LabState, LabState]:
        """The easy and the hard lab, created (on the shared convention) the first time."""
        if self._comparison is None:
            easy = LabState(get_problem(EASY_PROBLEM_ID), self, self._convention)
            easy.set_correct_flags(EASY_REWARDS)
            hard = LabState(get_problem(HARD_PROBLEM_ID), self, self._convention)
            hard.set_correct_flags(HARD_REWARDS)
            self._comparison = (easy, hard)
            self._prefixes.update({easy: "Easy: ", hard: "Hard: "})
            self.comparison_created.emit(self._comparison)
        return self._comparison

    @property
    def labs(self) -> tuple[LabState, ...]:
        """Every lab that exists: the main one, and the comparison's two once they were made."""
        return (self.lab,) if self._comparison is None else (self.lab, *self._comparison)

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def title(self) -> str:
        """The open scenario's title ("" when it has none): shown in the title bar, saved back."""
        return self._title

    @property
    def modified(self) -> bool:
        """Something to undo since the last save: the undo stack's clean state is the file."""
        return not self.undo_stack.isClean()

    # --- edits: each one undoable command ---------------------------------------------------

    def toggle(self, index: int, lab: LabState | None = None) -> None:
        """Mark card ``index`` of ``lab`` (default: the active lab) right or wrong."""
        lab = self._acting_on(lab)
        if 0 <= index < lab.group_size and lab.recorded is None:  # a run's answers stay as written
            before = lab.snapshot
            self.undo_stack.push(commands.toggle_trace(lab, index, self._prefixes[lab]))
            self.card_toggled.emit(lab, index, before)

    def set_score(
        self, index: int, score: float, gesture: int = 0, lab: LabState | None = None
    ) -> None:
        """Set card ``index``'s reward by hand; one drag (one ``gesture``) is one undo step.

        A reward the lab cannot take is a ValueError before anything is pushed: a command whose
        redo raises would stay on the undo stack, its Python side freed."""
        lab = self._acting_on(lab)
        if 0 <= index < lab.group_size:
            score = check_score(score)
            self.undo_stack.push(
                commands.set_score(lab, index, score, gesture, self._prefixes[lab])
            )

    def set_reward_weight(self, name: str, weight: float, lab: LabState | None = None) -> None:
        """Weigh one reward function (TRL's ``reward_weights``); a readable error if invalid."""
        lab = self._acting_on(lab)
        weights = lab.weights.with_weight(name, weight)
        if weights != lab.weights:
            self.undo_stack.push(commands.set_weights(lab, weights, name, self._prefixes[lab]))

    def set_reward_weights(self, weights: RewardWeights, lab: LabState | None = None) -> None:
        """Every reward function's weight at once (a quick choice), as one undo step."""
        lab = self._acting_on(lab)
        if weights != lab.weights:
            self.undo_stack.push(commands.set_weights(lab, weights, "", self._prefixes[lab]))

    def set_by_hand(self, by_hand: bool, lab: LabState | None = None) -> None:
        """Continuous rewards on (drag each card's reward) or off (computed/logged again)."""
        lab = self._acting_on(lab)
        if by_hand != lab.by_hand:
            self.undo_stack.push(commands.set_by_hand(lab, by_hand, self._prefixes[lab]))

    def open_recorded_group(self, group: RecordedGroup) -> None:
        """Show a real run's group in the lab: its answers as cards, as one undo step."""
        self.set_workspace(LAB)
        self.undo_stack.push(commands.show_recorded(self.lab, group))
        self.activate(self.lab)

    def set_problem(self, problem: str | Problem, lab: LabState | None = None) -> None:
        """Switch ``lab`` to a shipped problem (by id) or to one the lecturer wrote."""
        lab = self._acting_on(lab)
        if isinstance(problem, str) and problem == lab.problem.id:
            return  # the lab's own problem chosen again: a custom one or a run's is not shipped
        chosen = get_problem(problem) if isinstance(problem, str) else problem
        if chosen == lab.problem:
            return
        verb = "Problem" if isinstance(problem, str) else "Edit problem"
        title = f"{self._prefixes[lab]}{verb} {chosen.title}"
        self.undo_stack.push(commands.set_problem(lab, chosen, title))

    def set_group_size(self, group_size: int) -> None:
        check_group_size(group_size)
        lab = self._active
        if group_size != lab.group_size and lab.recorded is None:  # a run's G is the run's
            self.undo_stack.push(commands.set_group_size(lab, group_size, self._prefixes[lab]))

    def apply_reward_pattern(self, key: str) -> None:
        pattern = get_reward_pattern(key)
        lab = self._active
        self.undo_stack.push(
            commands.apply_reward_pattern(lab, key, pattern.label, self._prefixes[lab])
        )

    def sample(self) -> int:
        """Draw the active group at its problem's pass rate; returns the (visible) seed."""
        seed = self.next_sample_seed
        self.next_sample_seed = next_sample_seed(seed)
        lab = self._active
        self.undo_stack.push(commands.sample_group(lab, seed, self._prefixes[lab]))
        return seed

    def reset(self) -> None:
        lab = self._active
        self.undo_stack.push(commands.reset_all(lab, self._prefixes[lab]))

    def set_convention(self, name: str) -> None:
        """One convention for every group on screen, as one undo step."""
        chosen = advantages.get_convention(name)  # resolved once: a readable error for a typo
        if chosen != self._convention:
            self.undo_stack.push(commands.ConventionCommand(self, self._convention, chosen))

    def set_update_settings(self, settings: UpdateSettings, text: str = "Update settings") -> None:
        """New settings for the Update workspace, as one undo step (checked first)."""
        from grpo_desktop.core.update.update_settings import check_update_settings

        check_update_settings(settings)
        if settings != self.update_settings:
            self.undo_stack.push(
                commands.SettingsCommand(
                    self.apply_update_settings, self.update_settings, settings, text
                )
            )

    def apply_update_settings(self, settings: UpdateSettings) -> None:
        """Put ``settings`` in force now (the settings command's redo and undo)."""
        if settings != self.update_settings:
            self._update_settings = settings
            self.update_settings_changed.emit(settings)

    def set_training_config(self, config: TrainingConfig, text: str = "Training settings") -> None:
        """A new run configuration, as one undo step (checked first; the run restarts)."""
        from grpo_desktop.core.training.training_config import check_training_config

        check_training_config(config)
        if config != self.training_config:
            self.undo_stack.push(
                commands.SettingsCommand(
                    self.apply_training_config, self.training_config, config, text
                )
            )

    def apply_training_config(self, config: TrainingConfig) -> None:
        """Put ``config`` in force now (the settings command's redo and undo); the run takes the
        one convention on screen (a lesson step puts its convention in force first)."""
        if config != self.training_config:
            self._training_config = config
            self.training_config_changed.emit(config)

    def set_policy(self, policy: PolicyChoice, text: str = "Policy") -> None:
        """The toy or the tiny language model (from a checkpoint), as one undo step."""
        if policy != self.policy:
            self.undo_stack.push(
                commands.SettingsCommand(self.apply_policy, self.policy, policy, text)
            )

    def apply_policy(self, policy: PolicyChoice) -> None:
        if policy != self.policy:
            self._policy = policy
            self.policy_changed.emit(policy)

    def set_lm_training_config(
        self, config: LMTrainingConfig, text: str = "Tiny model run settings"
    ) -> None:
        """New settings for the tiny model's run, as one undo step (checked first)."""
        from grpo_desktop.core.tinylm.grpo_config import check_lm_config

        check_lm_config(config)
        if config != self.lm_training_config:
            self.undo_stack.push(
                commands.SettingsCommand(
                    self.apply_lm_training_config, self.lm_training_config, config, text
                )
            )

    def apply_lm_training_config(self, config: LMTrainingConfig) -> None:
        if config != self.lm_training_config:
            self._lm_training_config = config
            self.lm_training_config_changed.emit(config)

    def open_training_group(self, group: SampledGroup, title: str) -> None:
        """Show a group a training run drew in the lab: its answers as cards, as one undo step."""
        problem = _group_problem(group, title)
        self.set_workspace(LAB)
        self.undo_stack.push(commands.set_problem(self.lab, problem, f"Open {title}"))
        self.activate(self.lab)

    def show_length_bias(self) -> None:
        """One short right answer against one long wrong one, token-mean vs seq-mean-token-mean:
        the main lab's group and the update settings change together, as one undo step."""
        from grpo_desktop.core.update.update_settings import LENGTH_BIAS_SETTINGS

        settings = replace(
            self.update_settings,
            **_loss_fields(LENGTH_BIAS_SETTINGS),
            compare_eps_high=None,  # both sides clip alike: only the aggregation differs
        )
        regroup = (
            self.lab.problem.id != LENGTH_BIAS_PROBLEM_ID or self.lab.correct != LENGTH_BIAS_CORRECT
        )
        if not regroup and settings == self.update_settings:
            return
        self.undo_stack.beginMacro("Length bias")
        if regroup:
            self.undo_stack.push(
                commands.LabCommand(
                    self.lab,
                    "Length bias group",
                    lambda lab: lab.set_problem(LENGTH_BIAS_PROBLEM_ID, LENGTH_BIAS_CORRECT),
                )
            )
        self.set_update_settings(settings, "Length bias")
        self.undo_stack.endMacro()
        self.activate(self.lab)

    def show_clip_higher(self) -> None:
        """DAPO's clip-higher against the symmetric clip: one preset, ε_high 0.28 (solid) vs 0.2
        (hatched), after inner steps, on a group where they part (23 × 47, two right, two
        wrong); the group and the settings change together, as one undo step."""
        from grpo_desktop.core.update.update_settings import (
            CLIP_HIGHER_CORRECT,
            CLIP_HIGHER_PROBLEM_ID,
            clip_higher_settings,
        )

        settings = clip_higher_settings(self.update_settings)
        regroup = (
            self.lab.problem.id != CLIP_HIGHER_PROBLEM_ID or self.lab.correct != CLIP_HIGHER_CORRECT
        )
        if not regroup and settings == self.update_settings:
            return
        self.undo_stack.beginMacro("Clip-higher")
        if regroup:
            self.undo_stack.push(
                commands.LabCommand(
                    self.lab,
                    "Clip-higher group",
                    lambda lab: lab.set_problem(CLIP_HIGHER_PROBLEM_ID, CLIP_HIGHER_CORRECT),
                )
            )
        self.set_update_settings(settings, "Clip-higher")
        self.undo_stack.endMacro()
        self.activate(self.lab)

    def apply_convention(self, convention: str | advantages.Convention) -> None:
        """Put every lab on ``convention`` now (the convention command's redo and undo)."""
        self._convention = advantages.get_convention(convention)
        for lab in self.labs:
            lab.set_convention(self._convention)
        self.convention_changed.emit(self._convention.name)

    # --- presentation state: not edits, so not on the undo stack ----------------------------

    def set_view(self, view: str, animate: bool = True) -> None:
        """Rewards or advantages on every chart."""
        check_view(view)
        if view != self._view:
            self._view = view
            self.view_changed.emit(view, animate)

    def set_workspace(self, workspace: str) -> None:
        if workspace not in WORKSPACES:
            raise ValueError(
                f"unknown workspace {workspace!r}; choose one of: {', '.join(WORKSPACES)}"
            )
        if workspace == self._workspace:
            return
        active = self.comparison[0] if workspace == COMPARE else self.lab  # Update: the lab's
        self._workspace = workspace
        self.workspace_changed.emit(workspace)
        self.activate(active)

    def activate(self, lab: LabState) -> None:
        """The lab that G, reward patterns, sampling and keys 1–9 act on (the last one the user
        touched)."""
        if lab not in self._prefixes:
            raise ValueError("that lab is not on this workbench")
        if lab is not self._active:
            self._active = lab
            self.active_lab_changed.emit(lab)

    def set_advantages_hidden(self, hidden: bool) -> None:
        if hidden != self._advantages_hidden:
            self._advantages_hidden = hidden
            self.advantages_hidden_changed.emit(hidden)

    # --- whole documents: a fresh history ---------------------------------------------------

    def open_scenario(self, scenario: Scenario, path: str | Path | None = None) -> None:
        """Show ``scenario`` in the lab as a saved document (nothing to undo, nothing modified).

        A group that cannot be computed raises before anything changes: the window keeps the
        document it had."""
        scenario.lab_memento().preview(advantages.get_convention(scenario.convention))
        self.set_workspace(LAB)
        self.apply_convention(scenario.convention)
        self.lab.restore(scenario.lab_memento())
        self.apply_update_settings(scenario.update)
        self.apply_training_config(scenario.training)
        self.apply_policy(scenario.policy)
        self.apply_lm_training_config(scenario.lm_training)
        self.set_view(scenario.view, animate=False)
        self.set_workspace(scenario.workspace)
        self._start_history()
        self._title = scenario.title
        self._path = Path(path) if path is not None else None
        self.document_changed.emit()

    def current_scenario(self) -> Scenario:
        from grpo_desktop.core.files.scenario import Scenario

        return Scenario.from_lab(
            self.lab.memento(),
            self._convention.name,
            self._view,
            title=self._title,
            workspace=self._workspace,
            update=self.update_settings,
            training=self.training_config,
            policy=self.policy,
            lm_training=self.lm_training_config,
        )

    def mark_saved(self, path: str | Path) -> None:
        self.undo_stack.setClean()
        self._set_path(Path(path))

    def start_fresh_history(self) -> None:
        """The lab as it is now is the starting point (the command line's lab, not an edit)."""
        self._start_history()

    def show_lesson_step(self, step: LessonStep) -> None:
        """Put a lesson step's group(s) and convention on screen; a step is not an edit to undo.

        An update step also puts its update settings in force and shows the Update workspace;
        a lab or compare step leaves the update settings as the lesson last set them. A training
        step puts its run's configuration in force and shows the Training workspace, leaving the
        labs as they were (the window's training state computes the run's first steps).
        """
        from grpo_desktop.core.lab.lab_memento import LabMemento
        from grpo_desktop.core.lab.lab_rewards import RewardWeights

        # A lesson's numbers are the plain verifiable reward's: whatever weights, hand-set
        # rewards or run's group the lecturer tried before, a step starts from the checker's 0/1.
        if step.is_training:
            assert step.training is not None  # LessonStep fills in the defaults
            self.lab.set_weights(RewardWeights())  # the run scores with the lab's reward
            # The convention the step names is the one its run uses and the window shows.
            self.apply_convention(step.convention)
            self.apply_training_config(step.training)
            self.set_workspace(TRAINING)
            self._start_history()
            return
        self.apply_convention(step.convention)
        if step.compare is None:
            assert step.lab is not None
            if step.workspace != UPDATE:
                self.set_workspace(LAB)
            pairs: Sequence[tuple[LabState, object]] = ((self.lab, step.lab),)
        else:
            easy, hard = self.comparison
            pairs = ((easy, step.compare[0]), (hard, step.compare[1]))
        for lab, lesson_lab in pairs:
            problem = get_problem(lesson_lab.problem_id)
            lab.restore(LabMemento(problem, tuple(lesson_lab.correct), None))
        if step.workspace == UPDATE:
            assert step.update is not None  # LessonStep fills in the defaults
            self.apply_update_settings(step.update)
            self.set_workspace(UPDATE)
        elif step.compare is not None:
            self.set_workspace(COMPARE)
        self._start_history()

    # --- internals --------------------------------------------------------------------------

    def _acting_on(self, lab: LabState | None) -> LabState:
        """The lab a request names becomes the active one (keys 1–9 follow the last touched)."""
        if lab is None:
            return self._active
        self.activate(lab)
        return lab

    def _on_clean_changed(self, _clean: bool) -> None:
        self.document_changed.emit()

    def _start_history(self) -> None:
        self.undo_stack.clear()
        self.undo_stack.setClean()

    def _set_path(self, path: Path | None) -> None:
        if path != self._path:
            self._path = path
            self.document_changed.emit()


def _loss_fields(settings: UpdateSettings) -> dict:
    """The fields a demonstration button sets: the two loss presets and the step count."""
    return {
        "preset": settings.preset,
        "compare_preset": settings.compare_preset,
        "inner_steps": settings.inner_steps,
    }


def _group_problem(group: SampledGroup, title: str) -> Problem:
    """A problem whose cards are the group's answers in order (traces repeat as sampled)."""
    base = get_problem(group.problem_id)
    traces = tuple(base.traces[index] for index in group.trace_indices)
    rest = tuple(trace for trace in base.traces if trace not in traces)
    padding = rest[: max(0, len(base.traces) - len(traces))]  # a saved problem needs its traces
    return replace(
        base,
        id=f"{base.id}-sampled"[:64],
        title=title[:80],
        group_size=len(traces),
        default_rewards=tuple(int(flag) for flag in group.correct_versions),
        traces=traces + padding,
    )
