"""What the Update workspace's views are given to render: one immutable picture per change.

Pure Python and numpy. ``core/update/update_step.py`` builds it from the lab's group and the
update settings (the only place the update step is computed); every view of the workspace
renders it and never computes. "Push" is −∂loss/∂logp: positive raises the token's
likelihood, negative lowers it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, overload

import numpy as np

from grpo_desktop.core.update.update_settings import UpdateSettings

__all__ = [
    "AnswerRow",
    "ComputationRow",
    "PresetInfo",
    "Spillover",
    "TokenComputation",
    "TokenRow",
    "TokenView",
    "UpdateSnapshot",
]


@dataclass(frozen=True)
class PresetInfo:
    """A loss preset as the UI names it: for combo boxes, tooltips and the chart legend."""

    name: str  # e.g. "verl/token-mean"
    label: str  # e.g. "verl · token-mean"
    formula: str  # one line, plain text
    description: str  # one line
    source: str  # library, option, file
    clipped_unit: str = "tokens"  # what its clip fraction counts: "answers" for GSPO's one ratio


class TokenView(NamedTuple):
    """One token of one answer, as its chip shows it.

    A named tuple, not a dataclass: a group of 16 long answers has thousands of tokens, and a
    click re-scores every one of them within a frame.
    """

    text: str  # the token's characters, exactly as in the trace (may be spaces or a newline)
    push: float  # −∂loss/∂logp under the main preset; 0 for a clipped token
    clipped: bool  # the trust-region clip cut this token's gradient
    dual_clipped: bool  # verl's (or OpenRLHF's, when asked) dual clip cut it (A < 0 only)
    is_answer: bool  # part of the final answer the checker reads


class TokenRow(Sequence[TokenView]):
    """One answer's tokens, kept as five columns; a :class:`TokenView` is made when asked for.

    A group of 16 answers of 2,000 tokens is 32,000 tokens, all re-scored on every click: making
    a tuple per token cost more than the frame. Each column comes from the loss's arrays in one
    step, and a view reads the columns, or the tokens of the rows it paints.

    The pushes may be given as a numpy array (the builder passes a read-only row of the loss's
    gradient): they stay one, :attr:`push_array`, end to end to the painter, and the tuple of
    Python floats :attr:`pushes` is made only when something reads it (a click made 32,000
    floats and 48 lists and tuples of them, which the garbage collector then walked).
    """

    __slots__ = (
        "_marks",
        "_push_array",
        "_pushes",
        "clipped",
        "dual_clipped",
        "is_answer",
        "texts",
    )
    _COLUMNS = ("texts", "pushes", "clipped", "dual_clipped", "is_answer")  # TokenView's order

    texts: tuple[str, ...]
    clipped: tuple[bool, ...]
    dual_clipped: tuple[bool, ...]
    is_answer: tuple[bool, ...]

    def __init__(
        self,
        texts: Iterable[str],
        pushes: Iterable[float] | np.ndarray,
        clipped: Iterable[bool],
        dual_clipped: Iterable[bool],
        is_answer: Iterable[bool],
        marks: bytes | None = None,
    ) -> None:
        """``marks``, when the builder has it at hand (from the loss's arrays), is
        :attr:`marks`; otherwise it is worked out from the columns when first read."""
        texts, clipped, dual_clipped, is_answer = (
            tuple(column) for column in (texts, clipped, dual_clipped, is_answer)
        )
        if isinstance(pushes, np.ndarray):
            push_array: np.ndarray | None = _read_only(pushes)
            push_tuple: tuple[float, ...] | None = None
            push_count = len(pushes)
        else:
            push_array, push_tuple = None, tuple(pushes)
            push_count = len(push_tuple)
        lengths = [len(texts), push_count, len(clipped), len(dual_clipped), len(is_answer)]
        if len(set(lengths)) > 1:
            raise ValueError(f"a token row's columns must be equally long; got {lengths}")
        for name, value in (
            ("texts", texts),
            ("clipped", clipped),
            ("dual_clipped", dual_clipped),
            ("is_answer", is_answer),
            ("_pushes", push_tuple),
            ("_push_array", push_array),
            ("_marks", marks),
        ):
            object.__setattr__(self, name, value)

    @property
    def pushes(self) -> tuple[float, ...]:
        """Each token's push as Python floats (made from :attr:`push_array` when first read)."""
        pushes = self._pushes
        if pushes is None:
            pushes = tuple(self._push_array.tolist())  # type: ignore[union-attr]
            object.__setattr__(self, "_pushes", pushes)
        return pushes

    @property
    def push_array(self) -> np.ndarray:
        """Each token's push as a read-only float64 array (what a painter colours chips by)."""
        array = self._push_array
        if array is None:
            array = _read_only(np.array(self._pushes, dtype=np.float64))
            object.__setattr__(self, "_push_array", array)
        return array

    @property
    def marks(self) -> bytes:
        """Which tokens carry a ✂ (clipped or dual-clipped), a byte 0/1 each; ``b""`` when none
        does: what a view keys the row's chip widths by."""
        marks = self._marks
        if marks is None:
            pairs = zip(self.clipped, self.dual_clipped, strict=True)
            flags = bytes(bool(a or b) for a, b in pairs)
            marks = flags if 1 in flags else b""
            object.__setattr__(self, "_marks", marks)
        return marks

    @classmethod
    def of(cls, tokens: Iterable[TokenView]) -> TokenRow:
        """The row of ``tokens`` (a TokenRow is returned as it is)."""
        if isinstance(tokens, TokenRow):
            return tokens
        views = tuple(tokens)
        if not views:
            return cls((), (), (), (), ())
        return cls(*zip(*views, strict=True))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a TokenRow cannot be changed")

    def _columns(self) -> tuple[tuple, ...]:
        return self.texts, self.pushes, self.clipped, self.dual_clipped, self.is_answer

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, index: int) -> TokenView: ...
    @overload
    def __getitem__(self, index: slice) -> TokenRow: ...
    def __getitem__(self, index: int | slice) -> TokenView | TokenRow:
        pushes = self._pushes if self._pushes is not None else self._push_array
        if isinstance(index, slice):
            return TokenRow(
                self.texts[index],
                pushes[index],  # type: ignore[index]
                self.clipped[index],
                self.dual_clipped[index],
                self.is_answer[index],
            )
        return TokenView(
            self.texts[index],
            float(pushes[index]),  # type: ignore[index]
            self.clipped[index],
            self.dual_clipped[index],
            self.is_answer[index],
        )

    def __iter__(self) -> Iterator[TokenView]:
        return map(TokenView, *self._columns())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TokenRow):
            if other is self:
                return True
            if (
                self.texts != other.texts
                or self.clipped != other.clipped
                or self.dual_clipped != other.dual_clipped
                or self.is_answer != other.is_answer
            ):
                return False
            if self._pushes is not None and other._pushes is not None:
                return self._pushes == other._pushes
            # Element by element as tuples of floats compare (no NaN reaches a row).
            return bool(np.array_equal(self.push_array, other.push_array))
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._columns())

    def __repr__(self) -> str:
        return f"TokenRow({list(self)!r})"

    def __reduce__(self) -> tuple:
        return TokenRow, self._columns()  # copy, deepcopy and pickle rebuild it from its columns


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array`` as float64 that nothing can write to: as it is when it is read-only already
    (the builder's rows of the loss's gradient), else a copy."""
    array = np.asarray(array, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"a token row's pushes must be one column; got shape {array.shape}")
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    return array


@dataclass(frozen=True)
class AnswerRow:
    """One sampled answer as a row of tokens (given as a TokenRow or any TokenViews)."""

    index: int  # 0-based; shown as #index+1, like the lab's cards
    reward: float
    advantage: float
    tokens: TokenRow
    total_push: float  # Σ push over the row's tokens, main preset
    compare_total_push: float  # the same under the comparison preset
    correct: bool | None = None  # the checker's verdict on the text; None for a run's answer

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", TokenRow.of(self.tokens))


@dataclass(frozen=True)
class ComputationRow:
    """One line of a token's computation: what it is, how it is computed, its value."""

    label: str  # e.g. "ratio r"
    expression: str  # e.g. "exp(logp − old_logp) = exp(−0.3567 + 0.5108)"
    value: str  # e.g. "1.1667"
    #: ``expression`` in LaTeX, typeset by the token detail and copied by Copy as LaTeX; "" when
    #: the expression is a sentence, not math (it is shown as text).
    latex: str = ""


@dataclass(frozen=True)
class TokenComputation:
    """The whole computation for one selected token, with its own numbers."""

    row: int
    column: int
    title: str  # e.g. "Answer #2, token 7: “ 1081”"
    rows: tuple[ComputationRow, ...]
    summary: str  # one plain sentence: what the update does to this token and why


@dataclass(frozen=True)
class Spillover:
    """How an update on the real model moved answers outside the batch, next to its own.

    A table of per-token logits (the stand-in) cannot show this: each token has its own number,
    so a step moves only the batch. On shared weights every answer moves. Each change is
    Δ log p = log p after the steps − log p before, summed over the answer's tokens.
    """

    steps: int  # optimiser steps the changes are after (at least 1, even at inner step 0)
    prompt: str  # the batch's prompt
    batch_deltas: tuple[float, ...]  # each batch answer's Δ log p, in row order
    batch_advantages: tuple[float, ...]  # the advantage each was pushed with
    held_out_prompts: tuple[str, ...]  # prompts of the same task never seen in training
    held_out_answers: tuple[str, ...]  # the right completion measured for each
    held_out_deltas: tuple[float, ...]  # Δ log p(right completion | held-out prompt)
    held_out_noun: str  # what the held-out prompts are, plural: "sums", "digit strings"
    caption: str  # one plain sentence: what moved, in numbers
    #: The step is still being taken: the bars and caption are the previous step's (or none
    #: yet); the finished step's spill-over replaces this one.
    pending: bool = False

    @property
    def held_out_raised(self) -> int:
        """How many held-out prompts' right answers became more likely."""
        return sum(1 for delta in self.held_out_deltas if delta > 0)

    @property
    def held_out_mean(self) -> float:
        deltas = self.held_out_deltas
        return sum(deltas) / len(deltas) if deltas else 0.0


@dataclass(frozen=True)
class UpdateSnapshot:
    """Everything the Update workspace shows after one change."""

    settings: UpdateSettings
    preset: PresetInfo
    compare_preset: PresetInfo
    rows: tuple[AnswerRow, ...]
    loss: float  # main preset, at the shown inner step
    compare_loss: float
    clip_fraction: float  # main preset
    kl_mean: float | None  # mean KL to the reference over real tokens; None when β = 0
    inner_step: int  # how many inner gradient steps the stand-in policy has taken
    max_abs_push: float  # largest |push| over every token: the colour scale's full intensity
    status: str  # one plain sentence, e.g. "Step 0 is on-policy: ratio 1, nothing clipped."
    selected: TokenComputation | None  # the clicked token's computation, if any
    clip_c_applies: bool  # the main preset has a dual clip (so c is used)
    kl_estimators: tuple[str, ...]  # the estimators the main preset's library offers
    presets: tuple[PresetInfo, ...]  # every preset, in menu order
    compare_clip_fraction: float = 0.0  # the comparison side's
    # What computed the numbers when it is not the stand-in (the tiny model, named plainly), and
    # how the step moved answers outside the batch; None on the stand-in.
    policy_note: str | None = None
    spillover: Spillover | None = None
    #: The numbers shown are not the finished step's yet (the tiny model's Adam steps run after
    #: the click's frame): the pushes are step 0's and ``status`` says what is being computed.
    pending: bool = False

    @property
    def side_labels(self) -> tuple[str, str]:
        """(main, comparison) as the chart's legend and caption name them: the presets' labels,
        each with its clip range when the two sides clip differently (one preset may be both)."""
        main, compare = self.preset.label, self.compare_preset.label
        settings = self.settings
        if not settings.clips_differ:
            return main, compare
        low, high = settings.compare_clip
        return (
            f"{main}, ε {settings.eps_low:g}/{settings.eps_high:g}",
            f"{compare}, ε {low:g}/{high:g}",
        )

    @property
    def token_count(self) -> int:
        return sum(len(row.tokens) for row in self.rows)

    @property
    def net_push(self) -> float:
        """Σ of every answer's total push, main preset: > 0 raises the batch's likelihood."""
        return sum(row.total_push for row in self.rows)

    @property
    def compare_net_push(self) -> float:
        return sum(row.compare_total_push for row in self.rows)
