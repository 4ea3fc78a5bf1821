"""The update step for the lab's group: tokens, the stand-in policy, the loss, each token's push.

Pure Python + numpy. The only place the Update workspace is computed: ``build_update_snapshot``
turns the lab's snapshot (its answers, rewards and advantages) and the update settings into one
:class:`~grpo_desktop.core.update.update_snapshot.UpdateSnapshot`. Answers are split with GPT-2's
pre-tokenizer (:mod:`grpo_desktop.core.update.pretokenize`); log-probabilities come from the seeded
stand-in (:mod:`grpo_desktop.core.update.standin_policy`); the loss is :func:`policy_loss`.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Generator, Sequence
from dataclasses import replace

import numpy as np

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.pieces import Pieces
from grpo_desktop.core.formulas.clipped_loss import (
    LOSS_PRESETS,
    CheckedLossInputs,
    LossPreset,
    PolicyLossResult,
    check_loss_inputs,
    get_loss_preset,
)
from grpo_desktop.core.formulas.latex import is_negative, tex_number
from grpo_desktop.core.lab.checker import final_answer_span
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.core.update.pretokenize import answer_piece_mask, pretokenize_pieces
from grpo_desktop.core.update.standin_policy import (
    StandinPolicy,
    UpdateTrajectory,
    answer_logits,
    initial_policy,
    inner_step_pieces,
)
from grpo_desktop.core.update.update_settings import (
    LENGTH_BIAS_SETTINGS,
    MAX_INNER_STEPS,
    UpdateSettings,
    check_update_settings,
    clip_higher_settings,
    settings_from_dict,
)
from grpo_desktop.core.update.update_snapshot import (
    AnswerRow,
    ComputationRow,
    PresetInfo,
    TokenComputation,
    TokenRow,
    UpdateSnapshot,
)

__all__ = [
    "INLINE_COST",
    "LENGTH_BIAS_SETTINGS",
    "MAX_INNER_STEPS",
    "PRESET_INFOS",
    "StandinSteps",
    "build_update_snapshot",
    "check_update_settings",
    "clip_comparison",
    "clip_higher_settings",
    "preset_info",
    "settings_from_dict",
    "toggle_texts",
    "toggle_tokens",
    "token_computation",
    "valid_selection",
    "warm_answer",
    "with_selection",
]

STANDIN_SEED = 0


def preset_info(preset: LossPreset) -> PresetInfo:
    return PresetInfo(
        preset.name,
        preset.label,
        preset.formula,
        preset.description,
        preset.source,
        clipped_unit="answers" if preset.sequence_ratio else "tokens",
    )


PRESET_INFOS = tuple(preset_info(preset) for preset in LOSS_PRESETS.values())


# --- tokens ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _tokens_of(text: str) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """The answer's pre-tokens and which of them hold the final answer the checker reads."""
    pieces = pretokenize_pieces(text)
    return pieces, answer_piece_mask(pieces, final_answer_span(text))


# --- the loss for the whole group, cached: selecting a token recomputes nothing ---------------


def _loss_options(settings: UpdateSettings, preset: LossPreset) -> dict:
    estimator = settings.kl_estimator if settings.kl_estimator in preset.kl_estimators else "k3"
    return dict(
        preset=preset,
        eps_low=settings.eps_low,
        eps_high=settings.eps_high,
        clip_ratio_c=settings.clip_ratio_c,
        beta=settings.beta,
        kl_estimator=estimator,
    )


@functools.lru_cache(maxsize=256)
def _start_row(text: str) -> tuple[np.ndarray, np.ndarray]:
    """One answer's starting logits and log-probabilities (read-only), kept per text: a toggle
    brings one new text, and the batch's start is then these rows put side by side. (256
    texts: a group of 64 answers' both versions twice over; the logits are the stand-in's own
    kept row, so a text keeps one more row of numbers here, its log-probabilities.)"""
    tokens = _tokens_of(text)[0]
    count = len(tokens)
    logp = initial_policy([tokens], STANDIN_SEED).logp[0, :count]
    return answer_logits(tokens, STANDIN_SEED)[:count], logp


@functools.lru_cache(maxsize=2)
def _start_policy(texts: tuple[str, ...]) -> StandinPolicy:
    """The stand-in's starting policy for these answers. A click changes the answers'
    advantages, not their texts, so both presets and every click share one (read-only), and
    its log-probabilities are computed once: 2 of a 4-step toggle's 24 ms at 2,000 tokens.

    A toggle changes one text: each answer's logits and log-probabilities are kept per text
    (:func:`_start_row`) and only copied into the batch here. The numbers are
    :func:`initial_policy`'s for the whole batch, to the bit: both are the same element-wise
    functions of the same logits, and padding is 0 (tested)."""
    rows = [_start_row(text) for text in texts]
    width = max(max((len(logits) for logits, _ in rows), default=0), 1)
    logits = np.zeros((len(rows), width))
    mask = np.zeros((len(rows), width))
    logp = np.zeros((len(rows), width))
    for index, (row_logits, row_logp) in enumerate(rows):
        count = len(row_logits)
        logits[index, :count] = row_logits
        mask[index, :count] = 1.0
        logp[index, :count] = row_logp
    for array in (logits, mask, logp):
        array.flags.writeable = False
    policy = StandinPolicy(logits, mask)
    policy.__dict__["logp"] = logp  # the cached property, already known
    return policy


#: Inner steps kept, per (answers, advantages, preset, settings): a card clicked back, a token
#: click and the finished snapshot of steps run in pieces find theirs here.
_CACHED_TRAJECTORIES = 16
_TRAJECTORIES: OrderedDict[tuple, UpdateTrajectory] = OrderedDict()


def _cached_trajectory(key: tuple) -> UpdateTrajectory | None:
    found = _TRAJECTORIES.get(key)
    if found is not None:
        _TRAJECTORIES.move_to_end(key)
    return found


def _trajectory_pieces(
    texts: tuple[str, ...],
    advantages: tuple[float, ...],
    preset_name: str,
    settings: UpdateSettings,
) -> Generator[None, None, UpdateTrajectory]:
    """One side's inner steps as pieces of one loss evaluation each (none when kept), the
    trajectory kept once the last has run."""
    key = (texts, advantages, preset_name, settings)
    found = _cached_trajectory(key)
    if found is not None:
        return found
    preset = get_loss_preset(preset_name)
    start = _start_policy(texts)
    options = _loss_options(settings, preset)
    trajectory = yield from inner_step_pieces(
        start,
        np.array(advantages, dtype=np.float64),
        steps=settings.inner_steps,
        learning_rate=settings.learning_rate,
        checked=_checked_inputs(start, advantages, options),
        **options,
    )
    _TRAJECTORIES[key] = trajectory
    while len(_TRAJECTORIES) > _CACHED_TRAJECTORIES:
        _TRAJECTORIES.popitem(last=False)
    return trajectory


def _checked_inputs(
    start: StandinPolicy, advantages: tuple[float, ...], options: dict
) -> CheckedLossInputs:
    """The loss's inputs for one side's steps from ``start``: what
    :func:`~grpo_desktop.core.update.standin_policy.check_inputs` returns, without checking
    again, at every click, arrays valid by construction. A start made by :func:`_start_policy`
    holds finite log-probabilities (log σ of finite logits), a 0/1 mask and 0 at padding: the
    full check would return them as they are (old_logp and the reference, when β > 0, are its
    log-probabilities; the mask is its mask). What a click changes, the advantages, and each
    side's preset and options are checked by the library on one column of the batch (a token
    per answer with tokens), which raises its ValueErrors for them; the rest is put with it."""
    mask = start.mask
    has_tokens = mask.any(axis=1).tobytes()
    checked = _column_check(advantages, has_tokens, tuple(options.items()))
    old = start.logp
    return replace(
        checked,
        old=old,
        mask=mask,
        real=mask == 1.0,
        ref=old if checked.ref is not None else None,
    )


@functools.lru_cache(maxsize=64)
def _column_check(
    advantages: tuple[float, ...], has_tokens: bytes, options: tuple[tuple[str, object], ...]
) -> CheckedLossInputs:
    """:func:`check_loss_inputs` of the advantages and options on one column of the batch
    (``has_tokens``: a byte per answer, whether it has a token), kept: a group's advantages
    recur (a card toggled back) and both sides of a click share its answers (a ValueError is
    raised again each time, never kept)."""
    real = np.frombuffer(has_tokens, dtype=bool).astype(np.float64)[:, None]
    column = np.zeros(real.shape)
    named = dict(options)
    reference = column if named.get("beta", 0.0) > 0 else None
    return check_loss_inputs(
        column, np.array(advantages, dtype=np.float64), real, ref_logp=reference, **named
    )


def _trajectory(
    texts: tuple[str, ...],
    advantages: tuple[float, ...],
    preset_name: str,
    settings: UpdateSettings,
) -> UpdateTrajectory:
    """One side's inner steps, computed now (or kept)."""
    pieces = _trajectory_pieces(texts, advantages, preset_name, settings)
    while True:
        try:
            next(pieces)
        except StopIteration as done:
            return done.value


def _side_keys(
    lab: LabSnapshot, settings: UpdateSettings
) -> tuple[tuple[str, ...], tuple[float, ...], UpdateSettings, UpdateSettings]:
    """(texts, advantages, main side's settings, comparison side's) as the cache keys them."""
    texts = tuple(card.text for card in lab.cards)
    advantages = tuple(float(card.advantage) for card in lab.cards)
    # The step count and learning rate do not change step 0: share its cache entry.
    key = settings if settings.inner_steps else replace(settings, learning_rate=0.5)
    # Each side takes its own inner steps under its own preset and clip range (the comparison's
    # settings are the main ones with its preset and range put in: equal sides share one entry).
    return texts, advantages, replace(key, compare_eps_high=None), key.compare_side()


def _trajectories(
    lab: LabSnapshot, settings: UpdateSettings
) -> tuple[UpdateTrajectory, UpdateTrajectory]:
    """Both sides' inner steps for the lab's group (kept: computed once per group, advantages
    and settings, so a token click and a card clicked back recompute nothing)."""
    texts, advantages, main_key, other_key = _side_keys(lab, settings)
    main = _trajectory(texts, advantages, main_key.preset, main_key)
    other = _trajectory(texts, advantages, other_key.preset, other_key)
    return main, other


# --- the snapshot ------------------------------------------------------------------------------


def with_selection(
    snapshot: UpdateSnapshot,
    lab: LabSnapshot,
    settings: UpdateSettings,
    selected: tuple[int, int] | None,
) -> UpdateSnapshot:
    """``snapshot`` (built by :func:`build_update_snapshot` for ``lab`` and ``settings``) with
    ``selected``'s computation: a token click computes its detail and nothing else (the rows,
    the loss and the chart's totals are the same objects)."""
    if selected is None or not valid_selection(selected, snapshot.rows):
        return replace(snapshot, selected=None)
    main, _other = _trajectories(lab, settings)
    return replace(snapshot, selected=token_computation(selected, snapshot.rows, main, settings))


def build_update_snapshot(
    lab: LabSnapshot, settings: UpdateSettings, selected: tuple[int, int] | None = None
) -> UpdateSnapshot:
    """Everything the Update workspace shows for the lab's group under ``settings``."""
    check_update_settings(settings)
    advantages = tuple(float(card.advantage) for card in lab.cards)
    main, other = _trajectories(lab, settings)
    result, compare = main.result, other.result
    push = -result.grad_logp
    push.flags.writeable = False  # each row's pushes are a view of it: no Python floats made
    totals = push.sum(axis=1).tolist()
    compare_totals = (-compare.grad_logp.sum(axis=1)).tolist()
    marked = result.clipped | result.dual_clipped
    # A row without a ✂ (every row at step 0) shares one all-False tuple for both flag columns:
    # no 2 × 33,000 Python bools made from the arrays on a long batch.
    marked_rows = marked.any(axis=1)
    if marked_rows.any():
        clipped, dual = result.clipped.tolist(), result.dual_clipped.tolist()
    unmarked = (False,) * push.shape[1]
    rows = []
    for index, card in enumerate(lab.cards):
        token_texts, answer_flags = _tokens_of(card.text)
        count = len(token_texts)
        if marked_rows[index]:
            tokens = TokenRow(
                token_texts,
                push[index, :count],
                clipped[index][:count],
                dual[index][:count],
                answer_flags,
                marked[index, :count].tobytes(),
            )
        else:
            nothing = unmarked[:count]
            tokens = TokenRow(token_texts, push[index, :count], nothing, nothing, answer_flags, b"")
        rows.append(
            AnswerRow(
                index=index,
                reward=float(card.reward),
                advantage=float(card.advantage),
                tokens=tokens,
                total_push=totals[index],
                compare_total_push=compare_totals[index],
                correct=card.correct,
            )
        )
    if selected is not None and not valid_selection(selected, rows):
        selected = None
    preset = get_loss_preset(settings.preset)
    return UpdateSnapshot(
        settings=settings,
        preset=preset_info(preset),
        compare_preset=preset_info(get_loss_preset(settings.compare_preset)),
        rows=tuple(rows),
        loss=result.loss,
        compare_loss=compare.loss,
        clip_fraction=result.clip_fraction,
        kl_mean=_mean_kl(result),
        inner_step=settings.inner_steps,
        max_abs_push=float(np.abs(push).max()),
        status=_status(settings, result, advantages, compare),
        selected=None if selected is None else token_computation(selected, rows, main, settings),
        clip_c_applies=preset.dual_clip,
        kl_estimators=preset.kl_estimators,
        presets=PRESET_INFOS,
        compare_clip_fraction=compare.clip_fraction,
    )


#: Inner steps cheaper than this many loss evaluations of one token (padded batch cells × loss
#: evaluations × sides not kept) are taken inside the click: a few ms (about 40–100 ns each on
#: this 2-core machine, quiet to loaded), e.g. 16 answers of 200 tokens at 4 steps (35,000);
#: 16 answers of 2,000 tokens at 4 steps (333,000) run in pieces after the click's frame.
INLINE_COST = 100_000


class StandinSteps(Pieces):
    """The stand-in's update step for one lab and settings, as pieces a GUI runs one per turn of
    its event loop (each one evaluation of the loss on the whole batch), so a click's frame need
    not wait for the inner steps: :meth:`pending_snapshot` is what can be shown at once (the
    new advantages and step 0's pushes), :meth:`advance` runs one piece, :meth:`snapshot` the
    finished step — :func:`build_update_snapshot`'s numbers, which the pieces are, in order.
    Inner steps computed before are reused (:attr:`done` at once)."""

    def __init__(self, lab: LabSnapshot, settings: UpdateSettings) -> None:
        check_update_settings(settings)
        self.lab, self.settings = lab, settings
        self._texts, self._advantages, self._main_key, self._other_key = _side_keys(lab, settings)
        keys = [self._main_key]
        if self._other_key != self._main_key:
            keys.append(self._other_key)
        # the sides still to step
        left = [key for key in keys if _cached_trajectory(self._cache_key(key)) is None]
        self._pieces = self._all_pieces(left)
        self.done = not left
        widest = max((len(_tokens_of(text)[0]) for text in self._texts), default=0)
        moving = any(a != 0 for a in self._advantages)  # all 0: the first step stops at once
        evaluations = settings.inner_steps + 1 if moving else 1
        #: What the steps left cost, in loss evaluations of one token (see INLINE_COST).
        self.cost = len(self._texts) * max(widest, 1) * evaluations * len(left)

    @property
    def inline(self) -> bool:
        """Whether the steps are cheap enough (or kept) to take inside the click."""
        return self.done or self.cost <= INLINE_COST

    def _cache_key(self, key: UpdateSettings) -> tuple:
        return (self._texts, self._advantages, key.preset, key)

    def _all_pieces(self, keys: list[UpdateSettings]) -> Generator[None, None, None]:
        for key in keys:
            yield from _trajectory_pieces(self._texts, self._advantages, key.preset, key)

    def snapshot(self, selected: tuple[int, int] | None = None) -> UpdateSnapshot:
        """The finished step (its pieces run now if any are left)."""
        self.run()
        return build_update_snapshot(self.lab, self.settings, selected)

    def pending_snapshot(
        self, selected: tuple[int, int] | None = None, previous: object = None
    ) -> UpdateSnapshot:
        """What a click shows at once while the inner steps run: the new advantages, step 0's
        pushes (on-policy: A × each token's weight, one loss per side), marked as pending, with
        the status saying so. (``previous`` is the tiny model's spill-over; the stand-in has
        none.)"""
        settings = self.settings
        at_zero = replace(settings, inner_steps=0)
        snapshot = build_update_snapshot(self.lab, at_zero)
        status = snapshot.status
        if any(a != 0 for a in self._advantages):
            status = _pending_status(settings.inner_steps)
        snapshot = replace(snapshot, settings=settings, status=status, pending=True)
        return self.with_selection(snapshot, selected)

    def with_selection(
        self, snapshot: UpdateSnapshot, selected: tuple[int, int] | None
    ) -> UpdateSnapshot:
        """``snapshot`` (this step's, pending or finished) with ``selected``'s computation:
        a token click computes its detail and nothing else."""
        if not snapshot.pending:
            return with_selection(snapshot, self.lab, self.settings, selected)
        if selected is None or not valid_selection(selected, snapshot.rows):
            return replace(snapshot, selected=None)
        at_zero = replace(self.settings, inner_steps=0)
        main, _other = _trajectories(self.lab, at_zero)
        computation = token_computation(selected, snapshot.rows, main, at_zero)
        now = f"the stand-in at step 0 (taking {_inner_steps_text(self.settings.inner_steps)}…)"
        lines = tuple(
            replace(line, expression=now) if line.label == "log-prob now" else line
            for line in computation.rows
        )
        return replace(snapshot, selected=replace(computation, rows=lines))


def _inner_steps_text(steps: int) -> str:
    return "one inner step" if steps == 1 else f"{steps} inner steps"


def _pending_status(steps: int) -> str:
    """While the stand-in's inner steps run: what is being computed and what shows meanwhile
    (in the words the tiny model's pending line uses), no longer than the finished status."""
    return (
        f"Taking {_inner_steps_text(steps)} per side on the stand-in… "
        "the pushes shown are step 0's."
    )


def toggle_texts(lab: LabSnapshot) -> tuple[str, ...]:
    """Every text a card toggle can bring: both versions of each card's trace (none for a
    run's group, whose answers are fixed)."""
    if lab.recorded is not None:
        return ()
    texts: dict[str, None] = {}
    for card in lab.cards:
        trace = lab.problem.trace_for(card.index)
        texts[trace.correct] = None
        texts[trace.wrong] = None
    return tuple(texts)


def toggle_tokens(lab: LabSnapshot) -> tuple[tuple[str, ...] | None, ...]:
    """For each card, the pre-tokens of the text a toggle of it brings (its trace's other
    version), or None where there is none (a run's group): what a view lays out in idle time so
    a toggle finds its row's new chips in place. Read once :func:`warm_answer` has run on
    :func:`toggle_texts` (each text is pre-tokenised then, so this is look-ups)."""
    if lab.recorded is not None:
        return (None,) * len(lab.cards)
    others: list[tuple[str, ...] | None] = []
    for card in lab.cards:
        trace = lab.problem.trace_for(card.index)
        if card.text == trace.correct:
            other = trace.wrong
        elif card.text == trace.wrong:
            other = trace.correct
        else:
            others.append(None)
            continue
        others.append(_tokens_of(other)[0] if other != card.text else None)
    return tuple(others)


def warm_answer(text: str) -> None:
    """What a toggle to ``text`` computes first, computed now and kept: its pre-tokens and the
    stand-in's starting logits (idle-time work, so a card's first toggle does not pay it)."""
    _start_row(text)


def valid_selection(selected: tuple[int, int], rows: Sequence[AnswerRow]) -> bool:
    row, column = selected
    return 0 <= row < len(rows) and 0 <= column < len(rows[row].tokens)


def _status(
    settings: UpdateSettings,
    result: PolicyLossResult,
    advantages,
    compare: PolicyLossResult,
) -> str:
    if all(a == 0 for a in advantages):
        return (
            "Every advantage is 0: no token is pushed. "
            "A group that is all right or all wrong teaches nothing."
        )
    if settings.inner_steps == 0:
        if settings.clips_differ:
            return (
                "Step 0 is on-policy: every ratio is 1, so no clip range cuts anything and both "
                "sides push alike; take inner steps to see the two ranges differ."
            )
        return (
            "Step 0 is on-policy: every ratio is 1 and nothing is clipped; "
            "each token's push is A × its aggregation weight."
        )
    if settings.clips_differ:
        return clip_comparison(settings, result, compare, np.array(advantages))
    steps = settings.inner_steps
    # GSPO clips an answer's one ratio as a whole: its clip fraction is a share of the answers.
    unit = "answers" if result.preset.sequence_ratio else "tokens"
    text = (
        f"After {steps} inner step{'s' if steps != 1 else ''} of the stand-in policy: "
        f"{result.clip_fraction:.0%} of the {unit} are clipped"
    )
    if result.kl is not None:
        text += f"; mean KL to the reference {_mean_kl(result):.4f}"
    return text + "."


def clip_comparison(
    settings: UpdateSettings,
    main: PolicyLossResult,
    compare: PolicyLossResult,
    advantages: np.ndarray,
) -> str:
    """What to look at when the two sides' ε_high differ: the tokens with A > 0 the wider clip
    keeps pushing, counted on each side, and whose bars stand taller — only as far as the
    numbers bear it out."""
    bound, who = "ε_high", "A > 0"  # the upper clip cuts the tokens pushed up
    values = (settings.eps_high, settings.compare_clip[1])
    rows = advantages > 0
    tokens = int(main.mask[rows].sum())
    if tokens == 0:
        return f"No answer has {who}, so {bound} {values[0]:g} and {values[1]:g} clip alike."
    cut = [int((side.clipped & (side.mask == 1))[rows].sum()) for side in (main, compare)]
    wide = 0 if values[0] > values[1] else 1
    narrow = 1 - wide
    styles = ("solid", "hatched")
    if cut[wide] >= cut[narrow]:
        return (
            f"{bound} {values[wide]:g} ({styles[wide]}) and {values[narrow]:g} "
            f"({styles[narrow]}): {cut[wide]} and {cut[narrow]} of the {tokens} tokens with "
            f"{who} are clipped; take more inner steps to see them part."
        )
    text = (
        f"Tokens with {who} keep their push longer under {bound} {values[wide]:g} "
        f"({styles[wide]}): {cut[wide]} of their {tokens} are clipped, against {cut[narrow]} "
        f"under {values[narrow]:g} ({styles[narrow]})"
    )
    totals = [-(side.grad_logp.sum(axis=1))[rows] for side in (main, compare)]
    if np.all(totals[wide] > totals[narrow]):
        text += f", so every answer with {who} has the taller {styles[wide]} bar"
    return text + "."


def _mean_kl(result: PolicyLossResult) -> float | None:
    if result.kl is None:
        return None
    return float((result.kl * result.mask).sum() / result.mask.sum())


# --- one token's computation -------------------------------------------------------------------


def _number(value: float, digits: int = 4) -> str:
    """``digits`` decimals with a real minus; 0 (and −0.0) unsigned; a value too small for
    ``digits`` in three significant figures (``−3.2e−09``), never a signed ``−0.000000``."""
    text = f"{value:.{digits}f}"
    if float(text) == 0:
        if value == 0:
            return f"{0.0:.{digits}f}"
        text = f"{value:.3g}"
    return text.replace("-", "−")


def _weight_expression(preset: LossPreset, n_i: int, tokens: int, answers: int, width: int) -> str:
    aggregation = preset.aggregation
    if aggregation in ("token-mean", "dapo", "token", "bnpo"):
        return f"1 / N = 1 / {tokens}"
    if aggregation in ("seq-mean-token-mean", "grpo", "sample"):
        return f"1 / (n_i · B) = 1 / ({n_i} · {answers})"
    if aggregation == "seq-mean-token-sum":
        return f"1 / B = 1 / {answers}"
    if aggregation == "seq-mean-token-sum-norm":
        return f"1 / T = 1 / {width}"
    return f"1 / (B · L) = 1 / ({answers} · {width})"  # dr_grpo, L = T here


def _weight_latex(preset: LossPreset, n_i: int, tokens: int, answers: int, width: int) -> str:
    """``_weight_expression`` in LaTeX."""
    aggregation = preset.aggregation
    if aggregation in ("token-mean", "dapo", "token", "bnpo"):
        return rf"\frac{{1}}{{N}} = \frac{{1}}{{{tokens}}}"
    if aggregation in ("seq-mean-token-mean", "grpo", "sample"):
        return rf"\frac{{1}}{{n_i B}} = \frac{{1}}{{{n_i} \cdot {answers}}}"
    if aggregation == "seq-mean-token-sum":
        return rf"\frac{{1}}{{B}} = \frac{{1}}{{{answers}}}"
    if aggregation == "seq-mean-token-sum-norm":
        return rf"\frac{{1}}{{T}} = \frac{{1}}{{{width}}}"
    return rf"\frac{{1}}{{B L}} = \frac{{1}}{{{answers} \cdot {width}}}"


def _bracketed(number: str) -> str:
    """A LaTeX number, in brackets when negative (so ``x - (-0.5)`` reads right)."""
    return f"({number})" if is_negative(number) else number


def token_computation(
    selected: tuple[int, int],
    rows: Sequence[AnswerRow],
    trajectory: UpdateTrajectory,
    settings: UpdateSettings,
) -> TokenComputation:
    row, column = selected
    result = trajectory.result
    preset = result.preset
    answer = rows[row]
    token = answer.tokens[column]
    logp = float(trajectory.current.logp[row, column])
    old = float(trajectory.start.logp[row, column])
    ratio = float(result.ratio[row, column])
    adv = answer.advantage
    low, high = 1 - settings.eps_low, 1 + settings.eps_high
    mask = result.mask
    n_i = int(mask[row].sum())
    lines = [
        ComputationRow(
            "advantage A", f"answer #{row + 1}'s, shared by its {n_i} tokens", signed(adv)
        ),
        ComputationRow(
            "log-prob now", f"stand-in after {settings.inner_steps} inner steps", _number(logp)
        ),
        ComputationRow(
            "log-prob at rollout", "old_logp (the policy that wrote the answer)", _number(old)
        ),
    ]
    if preset.sequence_ratio:
        lines.append(
            ComputationRow(
                "ratio r (answer)",
                "exp(mean_t (logp − old_logp)) over the answer",
                _number(ratio),
                r"\exp\Bigl(\frac{1}{|o|}\sum_t"
                r" \left(\log p_t - \log p_t^{\text{old}}\right)\Bigr)",
            )
        )
    else:
        clamp = " (log-ratio clamped to ±20)" if preset.ratio_clamp else ""
        clamp_latex = r" \quad (\log r \text{ clamped to } \pm 20)" if preset.ratio_clamp else ""
        lines.append(
            ComputationRow(
                "ratio r",
                f"exp({_number(logp)} − ({_number(old)})){clamp}",
                _number(ratio),
                rf"\exp\left({tex_number(_number(logp))} - {_bracketed(tex_number(_number(old)))}"
                rf"\right){clamp_latex}",
            )
        )
    lines.append(
        ComputationRow(
            "clip range",
            f"[1 − ε_low, 1 + ε_high] = [{low:.2f}, {high:.2f}]",
            "clipped"
            if token.clipped
            else "inside"
            if low <= ratio <= high
            else "outside, not binding",
            rf"\left[1 - \varepsilon_{{\text{{low}}}},\ 1 + \varepsilon_{{\text{{high}}}}\right]"
            rf" = \left[{low:.2f},\ {high:.2f}\right]",
        )
    )
    lines.append(
        ComputationRow(
            "surrogate loss",
            f"−min(r·A, clip(r)·A){', dual clip −A·c for A < 0' if preset.dual_clip else ''}",
            _number(float(result.pg_per_token[row, column])),
            r"-\min\bigl(r A,\ \operatorname{clip}(r) A\bigr)"
            + (r" \quad (-A c \text{ for } A < 0)" if preset.dual_clip else ""),
        )
    )
    if result.kl is not None:
        lines.append(
            ComputationRow(
                f"KL term ({_loss_options(settings, preset)['kl_estimator']})",
                f"β · KL = {settings.beta:g} · {_number(float(result.kl[row, column]))}",
                _number(settings.beta * float(result.kl[row, column])),
                rf"\beta \cdot \mathrm{{KL}} = {settings.beta:g}"
                rf" \cdot {_bracketed(tex_number(_number(float(result.kl[row, column]))))}",
            )
        )
    weight = float(result.weight[row, column])
    weight_counts = (
        preset,
        n_i,
        int(mask.sum()),
        int((mask.sum(axis=1) > 0).sum()),
        mask.shape[1],
    )
    lines.append(
        ComputationRow(
            "aggregation weight w",
            _weight_expression(*weight_counts),
            f"{weight:.6f}",
            _weight_latex(*weight_counts),
        )
    )
    grad = float(result.grad_logp[row, column])
    lines.append(
        ComputationRow(
            "∂loss/∂logp",
            "w · ∂(surrogate + β·KL)/∂logp",
            _number(grad, 6),
            r"w \cdot \frac{\partial\,(\ell + \beta\,\mathrm{KL})}{\partial \log p}",
        )
    )
    lines.append(
        ComputationRow(
            "push",
            "−∂loss/∂logp",
            _number(-grad, 6),
            r"-\frac{\partial\,\mathcal{L}}{\partial \log p}",
        )
    )
    if token.dual_clipped:
        why = (
            "the dual clip caps this negative-advantage token's loss at −A·c, so its gradient is 0"
        )
    elif token.clipped:
        why = (
            "its ratio left the clip range on the side that matters, "
            "so the clipped term wins and its gradient is 0"
        )
    elif grad < 0:
        why = "the update raises its likelihood"
    elif grad > 0:
        why = "the update lowers its likelihood"
    else:
        why = "the update leaves it where it is"
    glyph = "▲" if grad < 0 else "▼" if grad > 0 else "●"
    summary = f"{glyph} Token {column + 1} of answer #{row + 1}: {why}."
    return TokenComputation(
        row, column, f"Answer #{row + 1}, token {column + 1}: {token.text!r}", tuple(lines), summary
    )
