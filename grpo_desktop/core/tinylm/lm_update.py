"""The Update step on the real tiny language model, and the spill-over a stand-in cannot show.

Pure numpy, never Qt. When the lab's group was written by the tiny model, the Update workspace
reads it with the model itself: each token is one of the model's characters (the end token shown
as :data:`END_CHIP`), each log-probability is the network's own teacher-forced one, and the inner
steps are real Adam steps on a copy of the weights, driven by :func:`policy_loss` exactly as
:class:`~grpo_desktop.core.tinylm.grpo.LMTrainingRun` drives them (loss → ∂loss/∂logp → the
network's backward → Adam). Each side of the comparison steps its own copy under its own preset.

Spill-over: after the main side's steps (one step when the inner steps are 0), the change of
log p(right answer | prompt) on a fixed set of held-out prompts of the same task, next to the
batch's own answers' change. That is what shared weights do and a per-token table cannot.

The optimiser: Adam, fresh for each side (as every GRPO trainer's), at
``lr = MODEL_LR_PER_UNIT × UpdateSettings.learning_rate`` (the default 0.5 gives 5e-5). Adam's
first step moves every weight by about lr whatever the loss's scale, which DESIGN §8 found wrecks
the checkpoint from 1e-3 up; at 5e-5 to 1e-4 one step raises the answers pushed up and lowers
the ones pushed down, as the loss asks.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.pieces import Pieces
from grpo_desktop.core.formulas.clipped_loss import (
    PolicyLossResult,
    get_loss_preset,
    policy_loss,
)
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import CompletionPass, completion_pass, teacher_batch
from grpo_desktop.core.tinylm.blas import use_one_blas_thread
from grpo_desktop.core.tinylm.lab_group import owning_task
from grpo_desktop.core.tinylm.model import TinyLM
from grpo_desktop.core.tinylm.tasks import DEFAULT_TASK, AdditionTask, Task, get_task
from grpo_desktop.core.tinylm.vocab import END, encode
from grpo_desktop.core.update import update_step
from grpo_desktop.core.update.update_settings import UpdateSettings, check_update_settings
from grpo_desktop.core.update.update_snapshot import (
    AnswerRow,
    ComputationRow,
    Spillover,
    TokenRow,
    UpdateSnapshot,
)

__all__ = [
    "END_CHIP",
    "MODEL_LR_PER_UNIT",
    "SPILLOVER_PROMPTS",
    "LMUpdateStart",
    "LMUpdateSteps",
    "build_lm_update_snapshot",
    "describe_model",
    "model_learning_rate",
]

#: How a chip shows the end token (the model writes it as ``END``, a plain ".").
END_CHIP = "·end"
#: Adam's learning rate per unit of the Update workspace's learning-rate setting.
MODEL_LR_PER_UNIT = 1e-4
#: Held-out prompts the spill-over measures: the first of the task's fixed held-out list.
SPILLOVER_PROMPTS = 32
#: Trajectories kept per group: a token click, or a card clicked back, recomputes nothing.
_CACHED_TRAJECTORIES = 16
_TASK_SKILLS = {"add": "addition", "add3": "addition", "sort": "digit sorting"}


def model_learning_rate(setting: float) -> float:
    """Adam's learning rate for the Update workspace's learning-rate ``setting``."""
    return setting * MODEL_LR_PER_UNIT


def describe_model(model: TinyLM) -> str:
    """The model in one plain sentence: its size, vocabulary and what it was trained on."""
    text = (
        f"Tiny language model: {model.n_params:,} parameters, a {model.config.vocab_size}-token "
        "character vocabulary"
    )
    pretrain = model.info.get("pretrain")
    if isinstance(pretrain, dict) and isinstance(pretrain.get("steps"), int):
        mixture = pretrain.get("mixture")
        names = list(mixture) if isinstance(mixture, dict) else []
        skills = list(dict.fromkeys(_TASK_SKILLS.get(str(name), str(name)) for name in names))
        what = f" on {' and '.join(skills)}" if skills else ""
        text += f", pretrained {pretrain['steps']} steps{what}"
    grpo = model.info.get("grpo")
    if isinstance(grpo, dict) and isinstance(grpo.get("steps_done"), int):
        text += f", then {grpo['steps_done']} steps of GRPO"
    return text + "."


def _policy_note(model: TinyLM, settings: UpdateSettings) -> str:
    rate = model_learning_rate(settings.learning_rate)
    return (
        f"{describe_model(model)} Each token's log-probability is the network's own; inner "
        f"steps are real Adam steps on a copy of its weights, at lr = {MODEL_LR_PER_UNIT:g} × "
        f"the learning rate ({settings.learning_rate:g} → {rate:.2g})."
    )


def _chip(character: str) -> str:
    return END_CHIP if character == END else character


@dataclass(frozen=True)
class _Logp:
    """A policy's log-probabilities, as a token's computation reads them."""

    logp: np.ndarray


@dataclass(frozen=True)
class _Moved:
    """Each batch answer's and each held-out right answer's Δ log p after ``steps`` steps."""

    steps: int
    batch: np.ndarray  # (G,)
    held_out: np.ndarray  # (H,)


@dataclass(frozen=True)
class LMTrajectory:
    """One side's inner steps on the network: the loss at the shown step, and what moved."""

    start: _Logp  # old_logp (and the reference when β > 0)
    current: _Logp  # after the shown number of steps
    result: PolicyLossResult
    steps: int
    moved: _Moved | None  # measured when asked for (the main side)


class LMUpdateStart:
    """A group read by the model once: its tokens, their log-probabilities at the start weights,
    and the held-out prompts' right answers at those weights.

    A card click changes the advantages, not the texts, so everything here is shared by every
    click and both sides; each side's trajectory is cached by (advantages, its settings).
    """

    def __init__(self, model: TinyLM, prompt: str, completions: Sequence[str]) -> None:
        use_one_blas_thread()  # the model's products are small: threads only fight
        self.model = model if model.dtype == np.float32 else model.astype(np.float32)
        self.prompt = prompt
        self.completions = tuple(completions)
        if not self.completions:
            raise ValueError("the group has no answers to update")
        prompt_ids = self.model.encode_prompt(prompt)
        completion_ids = [encode(text, "completion") for text in self.completions]
        if not any(completion_ids):
            raise ValueError("every answer is empty: there is no token to update")
        config = self.model.config
        params = self.model.parameters()
        count = len(completion_ids)
        self.batch = teacher_batch([prompt_ids] * count, completion_ids, config.n_ctx)
        self.start_pass: CompletionPass = completion_pass(params, config, self.batch)
        self.start_logp = self._read_only(self.start_pass.logp.astype(np.float64))
        self.task: Task = owning_task(prompt) or get_task(DEFAULT_TASK)
        held = [p for p in self.task.held_out_prompts() if p != prompt][:SPILLOVER_PROMPTS]
        self.held_out_prompts = tuple(held)
        self.held_out_answers = tuple(self.task.target(p) for p in held)
        self.held_out = teacher_batch(
            [encode(p) for p in held],
            [encode(a, "completion") for a in self.held_out_answers],
            config.n_ctx,
        )
        self._start_held_out = self._held_out_sums(params)
        self._layout: list[tuple[str, int, int, tuple[int, ...]]] = []
        end = 0
        for name, value in params.items():
            self._layout.append((name, end, end + value.size, value.shape))
            end += value.size
        self._flat_start = self._read_only(
            np.concatenate([value.ravel() for value in params.values()])
        )
        self._trajectories: OrderedDict[tuple, LMTrajectory] = OrderedDict()

    @staticmethod
    def _read_only(array: np.ndarray) -> np.ndarray:
        array.flags.writeable = False
        return array

    @property
    def mask(self) -> np.ndarray:
        return self.batch.mask

    def token_texts(self, row: int) -> tuple[str, ...]:
        """Answer ``row``'s tokens as chips show them: one character each, the end token named."""
        return tuple(_chip(character) for character in self.completions[row])

    def _held_out_sums(self, params: dict[str, np.ndarray]) -> np.ndarray:
        """(H,) Σ log p of each held-out prompt's right answer under ``params``."""
        pass_ = completion_pass(params, self.model.config, self.held_out)
        return pass_.logp.astype(np.float64).sum(axis=1)

    def trajectory(
        self, advantages: tuple[float, ...], settings: UpdateSettings, measure: bool
    ) -> LMTrajectory:
        """``settings.inner_steps`` Adam steps of ``settings``' loss on a copy of the weights;
        with ``measure``, at least one, and what moved after the last."""
        pieces = self.trajectory_pieces(advantages, settings, measure)
        while True:
            try:
                next(pieces)
            except StopIteration as finished:
                return finished.value

    def cached(
        self, advantages: tuple[float, ...], settings: UpdateSettings, measure: bool
    ) -> LMTrajectory | None:
        """The trajectory if it was computed before (kept: a click back recomputes nothing)."""
        # An unmeasured side may reuse the measured run of the same settings (equal sides).
        keys = [(advantages, settings, True)]
        if not measure:
            keys.insert(0, (advantages, settings, False))
        for key in keys:
            found = self._trajectories.get(key)
            if found is not None:
                self._trajectories.move_to_end(key)
                return found
        return None

    def trajectory_pieces(
        self, advantages: tuple[float, ...], settings: UpdateSettings, measure: bool
    ) -> Generator[None, None, LMTrajectory]:
        """:meth:`trajectory` in pieces of at most one pass of the network each (a backward
        pass and Adam's step, a forward pass and the loss, the held-out prompts): it yields
        after each piece and returns the trajectory, kept as :meth:`trajectory` keeps it. The
        same computation in the same order, so the numbers are the same to the last bit."""
        found = self.cached(advantages, settings, measure)
        if found is not None:
            return found
        found = yield from self._pieces(np.array(advantages, dtype=np.float64), settings, measure)
        self._trajectories[(advantages, settings, measure)] = found
        while len(self._trajectories) > _CACHED_TRAJECTORIES:
            self._trajectories.popitem(last=False)
        return found

    def _options(self, settings: UpdateSettings) -> dict:
        preset = get_loss_preset(settings.preset)
        return dict(
            preset=preset,
            ref_logp=self.start_logp if settings.beta > 0 else None,
            eps_low=settings.eps_low,
            eps_high=settings.eps_high,
            clip_ratio_c=settings.clip_ratio_c,
            beta=settings.beta,
            kl_estimator=(
                settings.kl_estimator if settings.kl_estimator in preset.kl_estimators else "k3"
            ),
        )

    def on_policy(self, advantages: tuple[float, ...], settings: UpdateSettings) -> LMTrajectory:
        """Step 0 under ``settings``' loss: the start weights, every ratio 1 (one loss, no pass
        of the network; not kept, it costs less than looking it up)."""
        old = self.start_logp
        result = policy_loss(
            old,
            old,
            np.array(advantages, dtype=np.float64),
            self.batch.mask,
            **self._options(settings),
        )
        return LMTrajectory(_Logp(old), _Logp(old), result, 0, None)

    def _pieces(
        self, advantages: np.ndarray, settings: UpdateSettings, measure: bool
    ) -> Generator[None, None, LMTrajectory]:
        old = self.start_logp
        options = self._options(settings)
        mask = self.batch.mask
        config = self.model.config
        shown_steps = settings.inner_steps
        total = max(shown_steps, 1) if measure else shown_steps
        logp = old
        result = policy_loss(logp, old, advantages, mask, **options)
        shown = (logp, result)
        if total == 0:
            return LMTrajectory(_Logp(old), _Logp(old), result, 0, None)
        # Every weight as a view into one flat copy: Adam then updates one array per step
        # (elementwise, so the same numbers as per-parameter Adam, in a sixth of the time).
        flat = self._flat_start.copy()
        params = {name: flat[begin:end].reshape(shape) for name, begin, end, shape in self._layout}
        weights = {"weights": flat}
        optimiser = Adam(weights, lr=model_learning_rate(settings.learning_rate))
        forward_pass = self.start_pass
        for step in range(1, total + 1):
            yield
            grads = forward_pass.gradients(result.grad_logp)
            flat_grad = np.concatenate([grads[name].ravel() for name, *_ in self._layout])
            optimiser.step(weights, {"weights": flat_grad})
            yield
            forward_pass = completion_pass(params, config, self.batch)
            logp = self._read_only(forward_pass.logp.astype(np.float64))
            if step < total or step == shown_steps:
                result = policy_loss(logp, old, advantages, mask, **options)
            if step == shown_steps:
                shown = (logp, result)
        moved = None
        if measure:
            yield
            moved = _Moved(
                total,
                logp.sum(axis=1) - old.sum(axis=1),
                self._held_out_sums(params) - self._start_held_out,
            )
        return LMTrajectory(_Logp(old), _Logp(shown[0]), shown[1], shown_steps, moved)


# --- the snapshot ------------------------------------------------------------------------------


def _prepared(
    start: LMUpdateStart, lab: LabSnapshot, settings: UpdateSettings
) -> tuple[tuple[float, ...], UpdateSettings, UpdateSettings]:
    """The group's advantages and each side's settings (the key its trajectory is kept by)."""
    check_update_settings(settings)
    if tuple(card.text for card in lab.cards) != start.completions:
        raise ValueError("the lab's answers are not the ones the model read")
    advantages = tuple(float(card.advantage) for card in lab.cards)
    main_key = replace(settings, compare_eps_high=None)
    other_key = settings.compare_side()
    if not other_key.inner_steps:  # no step taken: the learning rate changes nothing
        other_key = replace(other_key, learning_rate=UpdateSettings().learning_rate)
    return advantages, main_key, other_key


def build_lm_update_snapshot(
    start: LMUpdateStart,
    lab: LabSnapshot,
    settings: UpdateSettings,
    selected: tuple[int, int] | None = None,
) -> UpdateSnapshot:
    """Everything the Update workspace shows for the lab's group, stepped on the real model.

    ``start`` must have read the lab's own answers (a ValueError otherwise). The main side's
    steps are also measured for the spill-over; the comparison steps its own copy.
    """
    return LMUpdateSteps(start, lab, settings).snapshot(selected)


class LMUpdateSteps(Pieces):
    """The Update step on the model for one lab and settings, as pieces a GUI runs one per turn
    of its event loop (each at most one pass of the network), so a click's frame need not wait
    for the Adam steps: :meth:`pending_snapshot` is what can be shown at once, :meth:`advance`
    runs one piece, :meth:`snapshot` the finished step (the same numbers as computing it in one
    go: the pieces are that computation, in order). Trajectories computed before are reused."""

    def __init__(self, start: LMUpdateStart, lab: LabSnapshot, settings: UpdateSettings) -> None:
        self.start, self.lab, self.settings = start, lab, settings
        self.advantages, self._main_key, self._other_key = _prepared(start, lab, settings)
        self._pieces = self._all_pieces()
        self.done = self._finished()

    def _finished(self) -> bool:
        start, advantages = self.start, self.advantages
        if start.cached(advantages, self._main_key, True) is None:
            return False
        return self._other_key == self._main_key or (
            start.cached(advantages, self._other_key, False) is not None
        )

    def _all_pieces(self) -> Generator[None, None, None]:
        yield from self.start.trajectory_pieces(self.advantages, self._main_key, True)
        if self._other_key != self._main_key:
            yield from self.start.trajectory_pieces(self.advantages, self._other_key, False)

    def _sides(self, pending: bool) -> tuple[LMTrajectory, LMTrajectory]:
        start, advantages = self.start, self.advantages
        if pending:
            main = start.on_policy(advantages, self._main_key)
            if self._other_key == self._main_key:
                return main, main
            return main, start.on_policy(advantages, self._other_key)
        self.run()
        main = start.trajectory(advantages, self._main_key, measure=True)
        if self._other_key == self._main_key:
            return main, main
        return main, start.trajectory(advantages, self._other_key, False)

    def snapshot(self, selected: tuple[int, int] | None = None) -> UpdateSnapshot:
        """The finished step (its pieces run now if any are left)."""
        main, other = self._sides(pending=False)
        return _snapshot(self, main, other, selected, waiting=False, previous=None)

    def pending_snapshot(
        self, selected: tuple[int, int] | None = None, previous: Spillover | None = None
    ) -> UpdateSnapshot:
        """What a click shows at once while the steps run: the new advantages and step 0's
        pushes (on-policy: A × each token's weight, one loss per side), the status saying the
        model is stepping, and the spill-over marked as pending (``previous``'s bars, from
        before the click, when it was measured on this group; none otherwise)."""
        main, other = self._sides(pending=True)
        return _snapshot(self, main, other, selected, waiting=True, previous=previous)

    def with_selection(
        self, snapshot: UpdateSnapshot, selected: tuple[int, int] | None
    ) -> UpdateSnapshot:
        """``snapshot`` (this step's, pending or finished) with ``selected``'s computation:
        a token click computes its detail and nothing else."""
        rows = snapshot.rows
        if selected is None or not update_step.valid_selection(selected, rows):
            return replace(snapshot, selected=None)
        main = (
            self.start.on_policy(self.advantages, self._main_key)
            if snapshot.pending
            else self.start.trajectory(self.advantages, self._main_key, measure=True)
        )
        computation = _computation(selected, rows, main, self.settings, snapshot.pending)
        return replace(snapshot, selected=computation)


_PENDING = "Stepping the tiny model"


def _snapshot(
    steps: LMUpdateSteps,
    main: LMTrajectory,
    other: LMTrajectory,
    selected: tuple[int, int] | None,
    waiting: bool,
    previous: Spillover | None,
) -> UpdateSnapshot:
    """The snapshot of ``main`` and ``other``; ``waiting`` marks step-0 sides while the steps
    run, with the spill-over from before the click (``previous``) marked as pending."""
    start, lab, settings, advantages = steps.start, steps.lab, steps.settings, steps.advantages
    result, compare = main.result, other.result
    push = -result.grad_logp
    totals = push.sum(axis=1).tolist()
    compare_totals = (-compare.grad_logp).sum(axis=1).tolist()
    pushes, clipped, dual = push.tolist(), result.clipped.tolist(), result.dual_clipped.tolist()
    task_owns = owning_task(start.prompt) is not None
    right = start.task.target(start.prompt) if task_owns else None
    rows = []
    for index, card in enumerate(lab.cards):
        count = len(card.text)
        rows.append(
            AnswerRow(
                index=index,
                reward=float(card.reward),
                advantage=float(card.advantage),
                tokens=TokenRow(
                    start.token_texts(index),
                    pushes[index][:count],
                    clipped[index][:count],
                    dual[index][:count],
                    tuple(character.isdigit() for character in card.text),
                ),
                total_push=totals[index],
                compare_total_push=compare_totals[index],
                correct=None if right is None else card.text == right,
            )
        )
    if selected is not None and not update_step.valid_selection(selected, rows):
        selected = None
    if waiting:
        spillover = _pending_spillover(start, settings, previous)
        status = _pending_status(settings, result, advantages, compare)
    else:
        spillover = _spillover(start, main, advantages)
        status = _status(settings, result, advantages, compare)
    return UpdateSnapshot(
        settings=settings,
        preset=update_step.preset_info(get_loss_preset(settings.preset)),
        compare_preset=update_step.preset_info(get_loss_preset(settings.compare_preset)),
        rows=tuple(rows),
        loss=result.loss,
        compare_loss=compare.loss,
        clip_fraction=result.clip_fraction,
        kl_mean=_mean_kl(result),
        inner_step=main.steps,
        max_abs_push=float(np.abs(push).max()),
        status=status,
        selected=(
            None if selected is None else _computation(selected, rows, main, settings, waiting)
        ),
        clip_c_applies=result.preset.dual_clip,
        kl_estimators=result.preset.kl_estimators,
        presets=update_step.PRESET_INFOS,
        compare_clip_fraction=compare.clip_fraction,
        policy_note=_policy_note(start.model, settings),
        spillover=spillover,
        pending=waiting,
    )


def _steps_text(steps: int) -> str:
    return "one Adam step" if steps == 1 else f"{steps} Adam steps"


def _pending_status(
    settings: UpdateSettings,
    result: PolicyLossResult,
    advantages: tuple[float, ...],
    compare: PolicyLossResult,
) -> str:
    """While the steps run: the step-0 status when step 0 is what was asked for (only the
    spill-over's one step is left), else what is being computed and what shows meanwhile, in a
    line no longer than the finished status (so the page's layout does not move twice)."""
    steps = settings.inner_steps
    if steps == 0 or all(a == 0 for a in advantages):
        return _status(settings, result, advantages, compare)
    return f"Taking {_steps_text(steps)} per side on the tiny model… the pushes shown are step 0's."


def _pending_spillover(
    start: LMUpdateStart, settings: UpdateSettings, previous: Spillover | None
) -> Spillover:
    """The spill-over while its steps run: the last one measured on this group, marked as
    pending (its caption kept, so its height does not change), or no bars yet."""
    if (
        previous is not None
        and previous.prompt == start.prompt
        and len(previous.batch_deltas) == len(start.completions)
        and previous.held_out_prompts == start.held_out_prompts
    ):
        return replace(previous, pending=True)
    steps = _steps_text(max(settings.inner_steps, 1))
    return Spillover(
        steps=max(settings.inner_steps, 1),
        prompt=start.prompt,
        batch_deltas=(),
        batch_advantages=(),
        held_out_prompts=(),
        held_out_answers=(),
        held_out_deltas=(),
        held_out_noun=_held_out_noun(start.task),
        caption=f"{_PENDING} ({steps})… the bars show when the steps finish.",
        pending=True,
    )


def _mean_kl(result: PolicyLossResult) -> float | None:
    if result.kl is None:
        return None
    return float((result.kl * result.mask).sum() / result.mask.sum())


def _status(
    settings: UpdateSettings,
    result: PolicyLossResult,
    advantages: tuple[float, ...],
    compare: PolicyLossResult,
) -> str:
    rate = model_learning_rate(settings.learning_rate)
    if all(a == 0 for a in advantages):
        return (
            "Every advantage is 0: no token is pushed and an Adam step moves nothing. "
            "A group that is all right or all wrong teaches nothing."
        )
    if settings.inner_steps == 0:
        return (
            "Step 0 is on-policy: every ratio is 1 and nothing is clipped; each token's push is "
            f"A × its aggregation weight. The spill-over shows one Adam step (lr {rate:.2g})."
        )
    if settings.clips_differ:
        return update_step.clip_comparison(settings, result, compare, np.array(advantages))
    steps = settings.inner_steps
    unit = "answers" if result.preset.sequence_ratio else "tokens"
    text = (
        f"After {steps} Adam step{'s' if steps != 1 else ''} on the tiny model (lr {rate:.2g}): "
        f"{result.clip_fraction:.0%} of the {unit} are clipped"
    )
    kl = _mean_kl(result)
    if kl is not None:
        text += f"; mean KL to the start weights {kl:.4f}"
    return text + "."


def _computation(
    selected: tuple[int, int],
    rows: Sequence[AnswerRow],
    trajectory: LMTrajectory,
    settings: UpdateSettings,
    pending: bool = False,
):
    """The stand-in's worked computation for the token, with the model named as the policy
    (at step 0 while the steps run, and saying so)."""
    computation = update_step.token_computation(selected, rows, trajectory, settings)
    steps = trajectory.steps
    now = f"the tiny model after {steps} Adam step{'s' if steps != 1 else ''}"
    if pending:
        now = f"the tiny model at step 0 (taking {_steps_text(settings.inner_steps)}…)"
    lines = tuple(
        ComputationRow(line.label, now, line.value) if line.label == "log-prob now" else line
        for line in computation.rows
    )
    return replace(computation, rows=lines)


def _small_signed(value: float) -> str:
    """Three decimals, or four significant digits when three would round a change to 0."""
    if value == 0 or abs(value) >= 0.0005:
        return signed(value, 3)
    return f"{value:+.1e}".replace("-", "\u2212")


def _held_out_noun(task: Task) -> str:
    return "sums" if isinstance(task, AdditionTask) else "prompts"


def _spillover(
    start: LMUpdateStart, trajectory: LMTrajectory, advantages: tuple[float, ...]
) -> Spillover | None:
    moved = trajectory.moved
    if moved is None:
        return None
    held = moved.held_out.tolist()
    batch = moved.batch.tolist()
    noun = _held_out_noun(start.task)
    raised = sum(1 for delta in held if delta > 0)
    mean = sum(held) / len(held) if held else 0.0
    steps = "One Adam step" if moved.steps == 1 else f"{moved.steps} Adam steps"
    caption = (
        f"{steps} on {len(batch)} answers to {start.prompt} raised the right answer's "
        f"log-probability on {raised} of {len(held)} held-out {noun} and lowered it on "
        f"{sum(1 for delta in held if delta < 0)} (mean change {_small_signed(mean)})"
    )
    sides = []
    for name, sign in (("A > 0", 1), ("A < 0", -1)):
        chosen = [d for d, a in zip(batch, advantages, strict=True) if a * sign > 0]
        if chosen:
            sides.append(
                f"those with {name} moved {signed(sum(chosen) / len(chosen), 3)} on average"
            )
    if sides:
        caption += "; in the batch, " + " and ".join(sides)
    return Spillover(
        steps=moved.steps,
        prompt=start.prompt,
        batch_deltas=tuple(batch),
        batch_advantages=advantages,
        held_out_prompts=start.held_out_prompts,
        held_out_answers=start.held_out_answers,
        held_out_deltas=tuple(held),
        held_out_noun=noun,
        caption=caption + ".",
    )
