"""The policy loss, per token, as verl, TRL and OpenRLHF compute it, with its exact gradient.

Pure numpy (float64, vectorised; never Qt). ``policy_loss`` takes a padded batch (B answers, T
token positions, a 0/1 mask) and one advantage per answer, and returns the loss and
∂loss/∂logp for every token, derived by hand from each library's code (DESIGN §4b):

* verl ``compute_policy_loss_vanilla`` + ``agg_loss`` (verl/trainer/ppo/core_algos.py), called the
  way its FSDP actor calls them (verl/workers/actor/dp_actor.py: local normalisers, KL added as
  β × the same aggregation of ``kl_penalty``);
* TRL ``GRPOTrainer._compute_loss`` (trl/trainer/grpo_trainer.py), one process;
* OpenRLHF ``PolicyLoss`` and ``aggregate_loss`` (openrlhf/models/loss.py) and
  ``compute_approx_kl`` (openrlhf/models/utils.py), with the actor's ``loss + β · token-mean(KL)``.
  Its PPO actor (openrlhf/trainer/ray/ppo_actor.py) never passes ``token_level_loss``, so its PPO
  is always token-level; the per-answer mean (``token_level_loss=False``, ``n_i + 1e-8``) is what
  its ``policy_loss_type="gspo"`` path uses, and what ``openrlhf/ppo_sample`` shows.

Every piece is written as the sum ``loss = Σ w·pg + β · Σ w_kl·kl`` of per-token terms with
aggregation weights ``w``, which is what lets the Update workspace show each token's share. The
gradient follows PyTorch's autograd rules exactly, ties included (``min``/``max`` split a tie's
gradient in half; ``clamp`` passes it at the bounds), so the numbers match the libraries' own
backward pass. Values at padded positions never influence anything: they are replaced by 0 before
any arithmetic, and every output is exactly 0 there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from grpo_desktop.core.common.real_numbers import NotRealNumbersError, as_float64

__all__ = [
    "BLOCK_POSITIONS",
    "KL_ESTIMATORS",
    "LOSS_PRESETS",
    "CheckedLossInputs",
    "LossPreset",
    "PolicyLossResult",
    "PolicyLossSummary",
    "RunsLoss",
    "check_loss_inputs",
    "get_loss_preset",
    "loss_preset_names",
    "policy_loss",
    "policy_loss_runs",
    "policy_loss_summary",
]

KL_ESTIMATORS = ("k1", "k2", "k3")
_LOG_RATIO_CLAMP = 20.0  # verl and OpenRLHF clamp log(ratio) to ±20 before exp
_KL_CLAMP = 10.0  # verl clamps k3, OpenRLHF every estimator, to ±10
_VERL_SEQ_EPS = 1e-8  # verl's seq-mean-token-mean divides by (n_i + 1e-8)
_OPENRLHF_SEQ_EPS = 1e-8  # OpenRLHF's aggregate_loss(token_level_loss=False) too
#: policy_loss_summary computes a batch of up to this many positions (B × T) in one pass, exactly
#: as policy_loss does, and a larger one a block of rows of about this size at a time: 64 × 16384
#: in one pass, and about 250 MB of temporaries per block at most.
BLOCK_POSITIONS = 1 << 20


@dataclass(frozen=True)
class LossPreset:
    """One library's loss, as a name the UI and the CLI show, and the rules that define it."""

    name: str
    label: str
    library: str  # "verl", "TRL" or "OpenRLHF"
    formula: str
    description: str
    source: str  # library, option, file
    aggregation: str  # token-mean, seq-mean-token-mean, seq-mean-token-sum, seq-mean-token-sum-norm
    # (verl), grpo, bnpo, dr_grpo, dapo (TRL), token, sample (OpenRLHF)
    ratio_clamp: bool  # log-ratio clamped to ±20
    dual_clip: bool  # the preset's default: verl always, OpenRLHF only when asked, TRL never
    dual_clip_optional: bool  # the library lets a user switch the dual clip on
    kl_clamp: str  # "none", "k3" (verl) or "all" (OpenRLHF)
    kl_estimators: tuple[str, ...]
    kl_token_mean: bool  # KL aggregated by token-mean whatever the policy loss's aggregation
    # GSPO: one ratio per answer, exp(mean_t log r), clipped whole, so the clip fraction is a
    # share of the answers. TRL (the only GSPO preset) does not clamp it; verl's
    # compute_policy_loss_gspo would clamp the log-ratio (not the ratio) at max 10.
    sequence_ratio: bool = False


def _verl(aggregation: str, formula: str, description: str) -> LossPreset:
    return LossPreset(
        name=f"verl/{aggregation}",
        label=f"verl · {aggregation}",
        library="verl",
        formula=formula,
        description=description,
        source=(
            f'verl actor.loss_agg_mode="{aggregation}": compute_policy_loss_vanilla + agg_loss, '
            "verl/trainer/ppo/core_algos.py; dp_actor.py adds β·agg(kl_penalty)"
        ),
        aggregation=aggregation,
        ratio_clamp=True,
        dual_clip=True,
        dual_clip_optional=False,
        kl_clamp="k3",
        kl_estimators=KL_ESTIMATORS,
        kl_token_mean=False,
    )


def _trl(loss_type: str, aggregation: str, formula: str, description: str) -> LossPreset:
    return LossPreset(
        name=f"trl/{loss_type}",
        label=f"TRL · {loss_type}",
        library="TRL",
        formula=formula,
        description=description,
        source=(
            f'TRL GRPOConfig(loss_type="{aggregation}"'
            + (', importance_sampling_level="sequence"' if loss_type == "gspo" else "")
            + "): GRPOTrainer._compute_loss, trl/trainer/grpo_trainer.py"
        ),
        aggregation=aggregation,
        ratio_clamp=False,
        dual_clip=False,
        dual_clip_optional=False,
        kl_clamp="none",
        kl_estimators=("k3",),
        kl_token_mean=False,
        sequence_ratio=loss_type == "gspo",
    )


def _openrlhf(level: str, aggregation: str, formula: str, description: str) -> LossPreset:
    where = (
        "PolicyLoss(token_level_loss=True), what its PPO actor (ppo_actor.py) always uses"
        if level == "token"
        else "PolicyLoss(token_level_loss=False) → aggregate_loss, which only its "
        'policy_loss_type="gspo" path sets; its PPO actor (ppo_actor.py) never passes it'
    )
    return LossPreset(
        name=f"openrlhf/ppo_{level}",
        label=f"OpenRLHF · {level} level",
        library="OpenRLHF",
        formula=formula,
        description=description,
        source=(
            f"OpenRLHF {where}, openrlhf/models/loss.py; "
            "KL: compute_approx_kl, openrlhf/models/utils.py"
        ),
        aggregation=aggregation,
        ratio_clamp=True,
        dual_clip=False,
        dual_clip_optional=True,
        kl_clamp="all",
        kl_estimators=KL_ESTIMATORS,
        kl_token_mean=True,
    )


_TOKEN_MEAN = "Σ m·l / N"
_SEQ_MEAN_TOKEN_MEAN = "mean_i (Σ_t m·l / n_i)"

LOSS_PRESETS: dict[str, LossPreset] = {
    p.name: p
    for p in (
        _verl(
            "token-mean",
            f"{_TOKEN_MEAN} + β·({_TOKEN_MEAN} of KL)",
            "Every token of the batch weighs the same: long answers carry more weight.",
        ),
        _verl(
            "seq-mean-token-mean",
            f"{_SEQ_MEAN_TOKEN_MEAN}, empty answers left out",
            "Every answer weighs the same: a long answer's tokens each weigh less.",
        ),
        _verl(
            "seq-mean-token-sum",
            "mean_i Σ_t m·l, empty answers left out",
            "Answers summed over their tokens, averaged over answers: long answers weigh more.",
        ),
        _verl(
            "seq-mean-token-sum-norm",
            "Σ m·l / T, never divided by B (/ loss_scale_factor only with "
            "use_legacy_worker_impl=disable)",
            "Dr. GRPO's constant normaliser: every token weighs the same, whatever the batch. "
            "verl's default (legacy FSDP) actor never passes loss_scale_factor to the policy "
            "loss; it takes effect only with trainer.use_legacy_worker_impl=disable.",
        ),
        _trl(
            "grpo",
            "grpo",
            f"{_SEQ_MEAN_TOKEN_MEAN}, with β·k3 added to each token first",
            "The GRPO paper's per-answer mean; empty answers count as 0 in the mean over B.",
        ),
        _trl(
            "bnpo",
            "bnpo",
            f"{_TOKEN_MEAN}, with β·k3 added to each token first",
            "Token-mean over the local batch (TRL's name for it).",
        ),
        _trl(
            "dr_grpo",
            "dr_grpo",
            "Σ m·l / (B·L), L = max_completion_length, with β·k3 added to each token",
            "Dr. GRPO: a constant normaliser, so no length or difficulty bias from it.",
        ),
        _trl(
            "dapo",
            "dapo",
            f"{_TOKEN_MEAN} over the generation batch (one process), β·k3 added per token",
            "TRL's default loss: token-mean over every token generated for the step.",
        ),
        _trl(
            "gspo",
            "grpo",
            "r_i = exp(mean_t log r); −min(r_i·A, clip(r_i)·A), per-answer mean",
            "GSPO: one importance ratio per answer (geometric mean), clipped as a whole.",
        ),
        _openrlhf(
            "token",
            "token",
            f"{_TOKEN_MEAN} + β·({_TOKEN_MEAN} of KL)",
            "PPO's clipped loss, token-mean (OpenRLHF's PPO always is); KL as a token-mean.",
        ),
        _openrlhf(
            "sample",
            "sample",
            f"mean_i (Σ_t m·l / (n_i + 1e-8)), empty answers left out, + β·({_TOKEN_MEAN} of KL)",
            "The clipped loss averaged per answer first, as OpenRLHF's token_level_loss=False "
            "computes it (its GSPO path; its PPO is token-level); KL still a token-mean.",
        ),
    )
}


def loss_preset_names() -> tuple[str, ...]:
    return tuple(LOSS_PRESETS)


def get_loss_preset(preset: str | LossPreset) -> LossPreset:
    """The preset called ``preset``; a readable ValueError listing the valid names otherwise."""
    if isinstance(preset, LossPreset):
        return preset
    try:
        return LOSS_PRESETS[preset]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown loss preset {preset!r}; choose one of: {', '.join(LOSS_PRESETS)}"
        ) from None


@dataclass(frozen=True)
class PolicyLossResult:
    """The loss and every per-token quantity behind it; all (B, T) arrays are 0 at padding."""

    preset: LossPreset
    loss: float  # pg_loss + kl_loss
    pg_loss: float  # the clipped surrogate, aggregated
    kl_loss: float  # β × the aggregated KL (0 when β = 0)
    per_token_loss: np.ndarray  # (B, T): pg + β·kl at each token, before aggregation
    pg_per_token: np.ndarray  # (B, T): the clipped surrogate (GSPO: the answer's value)
    weight: np.ndarray  # (B, T): each token's aggregation weight for the surrogate
    kl_weight: np.ndarray  # (B, T): each token's weight for the KL term (before β)
    grad_logp: np.ndarray  # (B, T): ∂loss/∂logp, exactly 0 at padding
    ratio: np.ndarray  # (B, T): the importance ratio each token's loss used (1 on-policy)
    clipped: np.ndarray  # (B, T) bool: the trust-region clip took over (its gradient is 0)
    dual_clipped: np.ndarray  # (B, T) bool: the dual clip (A < 0) took over
    clip_fraction: float  # the library's own clip metric: a share of tokens (GSPO: of answers)
    kl: np.ndarray | None  # (B, T) KL estimate to the reference (clamped as the library does)
    mask: np.ndarray  # (B, T) float 0/1, as given

    @property
    def push(self) -> np.ndarray:
        """−∂loss/∂logp: how hard the update raises (> 0) or lowers (< 0) each token."""
        return -self.grad_logp

    @property
    def sequence_grad(self) -> np.ndarray:
        """(B,): Σ_t ∂loss/∂logp per answer (the number the length-bias example quotes)."""
        return self.grad_logp.sum(axis=1)


# --- input checks ------------------------------------------------------------------------------


def _float_array(values, name: str, copy: bool, ragged: str) -> np.ndarray:
    """``values`` as float64 (a copy when ``copy``); text, complex numbers and integers past
    float64 are a ValueError naming ``name`` (numpy would read "0.5", drop an imaginary part with
    a warning, or raise OverflowError), and a ragged or non-numeric input reads ``ragged``."""
    try:
        array = as_float64(values, name)
    except NotRealNumbersError:
        raise
    except (TypeError, ValueError):
        raise ValueError(ragged) from None
    if copy and array is values:
        array = array.copy()
    return array


def _matrix(name: str, values, shape: tuple[int, int] | None, *, copy: bool = True) -> np.ndarray:
    """``values`` as a (B, T) float64 array (``copy=False``: a float64 array is used as it is)."""
    array = _float_array(values, name, copy, f"{name} must be a (B, T) array of numbers")
    if array.ndim != 2:
        raise ValueError(f"{name} must be a (B, T) array; got shape {array.shape}")
    if shape is not None and array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape} but logp has shape {shape}")
    return array


def _mask(values, shape: tuple[int, int], *, copy: bool = True) -> np.ndarray:
    mask = _float_array(values, "mask", copy, "mask must be a (B, T) array of 0s and 1s")
    if mask.shape != shape:
        raise ValueError(f"mask has shape {mask.shape} but logp has shape {shape}")
    if not np.all((mask == 0.0) | (mask == 1.0)):
        raise ValueError("mask must hold only 0 and 1 (1 = a real token, 0 = padding)")
    return mask


def _real_tokens(name: str, array: np.ndarray, real: np.ndarray) -> np.ndarray:
    """``array`` with padding replaced by 0, after checking every real token is finite."""
    if not np.all(np.isfinite(array[real])):
        raise ValueError(f"{name} has a NaN or infinite value at a real (unmasked) token")
    return np.where(real, array, 0.0)


def _advantages(values, batch: int, has_tokens: np.ndarray) -> np.ndarray:
    adv = _float_array(
        values, "advantages", True, "advantages must be a (B,) array of numbers, one per answer"
    )
    if adv.ndim == 2 and adv.shape[1] == 1:
        adv = adv[:, 0]
    if adv.shape != (batch,):
        raise ValueError(f"advantages must have shape ({batch},), one per answer; got {adv.shape}")
    if not np.all(np.isfinite(adv[has_tokens])):
        raise ValueError("advantages has a NaN or infinite value for an answer with tokens")
    return np.where(has_tokens, adv, 0.0)


def _positive(name: str, value: float | None, *, minimum: float = 0.0, strict=False) -> float:
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a number, not text; got {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}") from None
    except OverflowError:
        raise ValueError(f"{name} must be a finite number; got an integer past float64") from None
    if not np.isfinite(number) or number < minimum or (strict and number == minimum):
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise ValueError(f"{name} must be a finite number {bound}; got {value!r}")
    return number


# --- the pieces --------------------------------------------------------------------------------


def _clamp_pass(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """torch.clamp's gradient: 1 where low ≤ x ≤ high (bounds included), else 0."""
    return ((x >= low) & (x <= high)).astype(np.float64)


def _share_below(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 where a < b, 0.5 where a == b, else 0: how a min passes its gradient to a.

    Two comparisons summed (exactly 0, 0.5 or 1), not nested np.where: about a third of the
    cost on a long batch, where it runs at every inner step of the stand-in.
    """
    return np.less(a, b) + 0.5 * np.equal(a, b)


def _min_grad(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How torch.min(a, b) passes its gradient to a and to b (a tie splits it in half)."""
    to_a = _share_below(a, b)
    return to_a, 1.0 - to_a


def _clipped_surrogate(
    ratio: np.ndarray,
    adv: np.ndarray,
    eps_low: float,
    eps_high: float,
    dual_c: float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``−min(r·A, clip(r)·A)`` (and the dual clip for A < 0): value, ∂/∂r, clipped, dual.

    Written as TRL and OpenRLHF write it; verl's ``max(−r·A, −clip(r)·A)`` is the same function
    with the same tie rule, so one derivation serves all three.
    """
    low, high = 1.0 - eps_low, 1.0 + eps_high
    surr1 = ratio * adv
    surr2 = np.clip(ratio, low, high) * adv
    to_1, to_2 = _min_grad(surr1, surr2)
    inner = np.minimum(surr1, surr2)
    d_inner = adv * (to_1 + to_2 * _clamp_pass(ratio, low, high))
    clipped = surr2 < surr1
    dual = np.zeros_like(clipped)
    if dual_c is not None:
        floor = dual_c * adv  # the dual clip bounds the loss of a negative-advantage token
        negative = adv < 0
        to_inner = _share_below(floor, inner)  # max(inner, floor) passes it to inner
        dual = negative & (inner < floor)  # verl's pg_clipfrac_lower counts these
        inner = np.where(negative, np.maximum(inner, floor), inner)
        d_inner = np.where(negative, d_inner * to_inner, d_inner)
    return -inner, -d_inner, clipped, dual


def _kl_term(
    logp: np.ndarray, ref: np.ndarray, estimator: str, clamp: str
) -> tuple[np.ndarray, np.ndarray]:
    """The KL estimate per token and its derivative in logp, clamped as the library does."""
    diff = logp - ref
    if estimator == "k1":
        kl, grad = diff, np.ones_like(diff)
    elif estimator == "k2":
        kl, grad = 0.5 * diff * diff, diff
    else:  # k3: exp(ref − logp) − (ref − logp) − 1
        x = -diff
        if clamp == "k3":  # verl clamps the log-ratio to ±20 before exp
            through = _clamp_pass(x, -_LOG_RATIO_CLAMP, _LOG_RATIO_CLAMP)
            x = np.clip(x, -_LOG_RATIO_CLAMP, _LOG_RATIO_CLAMP)
        else:
            through = np.ones_like(x)
        ex = np.exp(x)
        kl = ex - x - 1.0
        grad = (1.0 - ex) * through
    if clamp == "all" or (clamp == "k3" and estimator == "k3"):
        grad = grad * _clamp_pass(kl, -_KL_CLAMP, _KL_CLAMP)
        kl = np.clip(kl, -_KL_CLAMP, _KL_CLAMP)
    return kl, grad


@dataclass(frozen=True)
class _BatchTotals:
    """A whole (B, T) batch's normalisers, so a block of its rows is weighted as in the batch."""

    batch: int  # B, every answer, with tokens or not
    width: int  # T
    tokens: float  # N = Σ m
    answers: int  # answers with at least one token (at least 1)

    @classmethod
    def of(cls, mask: np.ndarray) -> _BatchTotals:
        lengths = mask.sum(axis=-1)
        return cls(
            batch=mask.shape[0],
            width=mask.shape[1],
            tokens=float(lengths.sum()),
            answers=max(int((lengths > 0).sum()), 1),
        )


def _weights(
    preset: LossPreset,
    mask: np.ndarray,
    max_completion_length: int | None,
    loss_scale_factor: float | None,
    width: int | None = None,
    totals: _BatchTotals | None = None,
) -> np.ndarray:
    """Each token's weight in the aggregated loss: loss = Σ weight · per-token loss.

    ``mask`` is (B, T), or (R, B, T) for R independent batches aggregated separately; a mask of
    token counts in one column stands for that many identical tokens (``width`` is then T).
    With ``totals``, ``mask`` is a block of rows of the (B, T) batch ``totals`` describes.
    """
    lengths = mask.sum(axis=-1)  # (..., B)
    answered = lengths > 0
    if totals is None:
        batch = mask.shape[-2]
        width = width or mask.shape[-1]
        total = lengths.sum(axis=-1, keepdims=True)  # (..., 1)
        answers = np.maximum(answered.sum(axis=-1, keepdims=True), 1)  # (..., 1)
    else:
        batch, width = totals.batch, totals.width
        total = np.array([totals.tokens])
        answers = np.array([totals.answers])
    aggregation = preset.aggregation
    if aggregation in ("token-mean", "dapo", "token"):
        return mask / total[..., None]
    if aggregation == "bnpo":
        return mask / np.maximum(total, 1.0)[..., None]
    if aggregation == "seq-mean-token-mean":
        per_row = np.where(answered, 1.0 / ((lengths + _VERL_SEQ_EPS) * answers), 0.0)
    elif aggregation == "sample":
        per_row = np.where(answered, 1.0 / ((lengths + _OPENRLHF_SEQ_EPS) * answers), 0.0)
    elif aggregation == "seq-mean-token-sum":
        per_row = np.broadcast_to(1.0 / answers, lengths.shape)
    elif aggregation == "seq-mean-token-sum-norm":
        per_row = np.full(lengths.shape, 1.0 / (loss_scale_factor or width))
    elif aggregation == "grpo":
        per_row = 1.0 / (np.maximum(lengths, 1.0) * batch)
    else:  # dr_grpo
        per_row = np.full(lengths.shape, 1.0 / (batch * (max_completion_length or width)))
    return mask * per_row[..., None]


# --- the function ------------------------------------------------------------------------------

_NEEDS_REF = "beta > 0 needs ref_logp, the reference policy's log-probabilities"


class _Options(NamedTuple):
    """policy_loss's checked options, in _evaluate's argument order after the arrays."""

    eps_low: float
    eps_high: float
    dual_c: float | None
    beta: float
    kl_estimator: str
    max_completion_length: int | None
    loss_scale_factor: float | None


def _checked_options(
    spec: LossPreset,
    eps_low: float,
    eps_high: float | None,
    clip_ratio_c: float,
    beta: float,
    max_completion_length: int | None,
    loss_scale_factor: float | None,
    kl_estimator: str,
    dual_clip: bool | None,
) -> _Options:
    """The options as numbers, or a readable ValueError: shared by policy_loss and its summary."""
    eps_low = _positive("eps_low", eps_low)
    eps_high = eps_low if eps_high is None else _positive("eps_high", eps_high)
    beta = _positive("beta", beta)
    if kl_estimator not in spec.kl_estimators:
        raise ValueError(
            f"{spec.library} offers the KL estimator{'s' if len(spec.kl_estimators) > 1 else ''} "
            f"{', '.join(spec.kl_estimators)} only; got {kl_estimator!r}"
        )
    use_dual = spec.dual_clip if dual_clip is None else bool(dual_clip)
    if use_dual != spec.dual_clip and not spec.dual_clip_optional:
        rule = "always applies" if spec.dual_clip else "has no"
        raise ValueError(f"{spec.name} {rule} dual clip; dual_clip={dual_clip!r} cannot change it")
    if use_dual:
        clip_ratio_c = _positive("clip_ratio_c", clip_ratio_c, minimum=1.0, strict=True)
    if max_completion_length is not None:
        length = _positive("max_completion_length", max_completion_length, strict=True)
        max_completion_length = int(length)
    if loss_scale_factor is not None:
        loss_scale_factor = _positive("loss_scale_factor", loss_scale_factor, strict=True)
    return _Options(
        eps_low,
        eps_high,
        clip_ratio_c if use_dual else None,
        beta,
        kl_estimator,
        max_completion_length,
        loss_scale_factor,
    )


def policy_loss(
    logp: Sequence | np.ndarray,
    old_logp: Sequence | np.ndarray,
    advantages: Sequence | np.ndarray,
    mask: Sequence | np.ndarray,
    *,
    preset: str | LossPreset,
    ref_logp: Sequence | np.ndarray | None = None,
    eps_low: float = 0.2,
    eps_high: float | None = None,
    clip_ratio_c: float = 3.0,
    beta: float = 0.0,
    max_completion_length: int | None = None,
    loss_scale_factor: float | None = None,
    kl_estimator: str = "k3",
    dual_clip: bool | None = None,
) -> PolicyLossResult:
    """The loss of one padded batch under ``preset``, and ∂loss/∂logp for every token.

    ``logp``, ``old_logp``, ``ref_logp`` and ``mask`` are (B, T); ``advantages`` is (B,), one per
    answer. ``eps_high=None`` means ``eps_low``. ``max_completion_length`` is TRL's L for
    ``trl/dr_grpo`` and ``loss_scale_factor`` verl's for ``verl/seq-mean-token-sum-norm`` (both
    default to T; verl's default legacy FSDP actor never passes ``loss_scale_factor`` to the policy
    loss, its ``config.global_batch_info`` being empty: it applies only with
    ``trainer.use_legacy_worker_impl=disable``, where ``verl/workers/utils/losses.py`` ``ppo_loss``
    sets it). ``kl_estimator`` picks k1/k2/k3 where the library offers a choice (TRL: k3
    only). ``dual_clip=None`` keeps the preset's rule (verl: always; OpenRLHF: off, ``True`` asks
    for it; TRL: never). Raises ValueError with a readable message on bad input.
    """
    logp_raw = _matrix("logp", logp, None)
    inputs = check_loss_inputs(
        old_logp,
        advantages,
        mask,
        preset=preset,
        ref_logp=ref_logp,
        eps_low=eps_low,
        eps_high=eps_high,
        clip_ratio_c=clip_ratio_c,
        beta=beta,
        max_completion_length=max_completion_length,
        loss_scale_factor=loss_scale_factor,
        kl_estimator=kl_estimator,
        dual_clip=dual_clip,
        shape=logp_raw.shape,
    )
    return inputs.loss_at(_real_tokens("logp", logp_raw, inputs.real))


@dataclass(frozen=True, eq=False)
class CheckedLossInputs:
    """Everything of a policy loss but ``logp``, checked once (by :func:`check_loss_inputs`):
    what a loop of inner steps evaluates again and again, with only ``logp`` changing.

    :meth:`loss_at` trusts its ``logp`` (a (B, T) float64 array of the batch's shape, finite at
    every real token, as the policy being stepped computes it) and checks nothing: the same
    computation as :func:`policy_loss`, without re-validating the fixed inputs at every step.
    """

    spec: LossPreset
    old: np.ndarray  # (B, T) float64, padding 0
    adv: np.ndarray  # (B,) float64, 0 for an answer with no tokens
    mask: np.ndarray  # (B, T) float64 0/1
    real: np.ndarray  # (B, T) bool, mask == 1
    ref: np.ndarray | None  # (B, T) float64, padding 0; None when β = 0
    options: _Options

    def loss_at(self, logp: np.ndarray) -> PolicyLossResult:
        """The loss and its gradient at ``logp`` (unchecked; padding is set to 0 here)."""
        lp = np.where(self.real, logp, 0.0)
        parts = _evaluate(self.spec, lp, self.old, self.adv, self.mask, self.ref, *self.options)
        return _result(self.spec, parts, self.mask)

    def loss_on_policy(self) -> PolicyLossResult:
        """:meth:`loss_at` ``old_logp`` (step 0 of the inner steps), bit for bit, without the
        per-token ratio: on-policy every log-ratio is exactly +0.0, so the ratio, the clip and
        the surrogate are worked out once per answer and broadcast over its tokens."""
        old, options = self.old, self.options
        parts = _evaluate(
            self.spec, old, old, self.adv, self.mask, self.ref, *options, on_policy=True
        )
        return _result(self.spec, parts, self.mask)


def check_loss_inputs(
    old_logp: Sequence | np.ndarray,
    advantages: Sequence | np.ndarray,
    mask: Sequence | np.ndarray,
    *,
    preset: str | LossPreset,
    ref_logp: Sequence | np.ndarray | None = None,
    eps_low: float = 0.2,
    eps_high: float | None = None,
    clip_ratio_c: float = 3.0,
    beta: float = 0.0,
    max_completion_length: int | None = None,
    loss_scale_factor: float | None = None,
    kl_estimator: str = "k3",
    dual_clip: bool | None = None,
    shape: tuple[int, int] | None = None,
) -> CheckedLossInputs:
    """:func:`policy_loss`'s inputs but ``logp``, checked as it checks them (the same
    ValueErrors), for :meth:`CheckedLossInputs.loss_at` to evaluate at many ``logp``.
    ``shape`` is the (B, T) the arrays must have (by default ``old_logp``'s)."""
    spec = get_loss_preset(preset)
    old_raw = _matrix("old_logp", old_logp, shape)
    shape = old_raw.shape
    weights_mask = _mask(mask, shape)
    real = weights_mask == 1.0
    if not real.any():
        raise ValueError("mask has no real tokens: there is nothing to compute a loss over")
    old = _real_tokens("old_logp", old_raw, real)
    has_tokens = real.any(axis=1)
    adv = _advantages(advantages, shape[0], has_tokens)
    options = _checked_options(
        spec,
        eps_low,
        eps_high,
        clip_ratio_c,
        beta,
        max_completion_length,
        loss_scale_factor,
        kl_estimator,
        dual_clip,
    )

    ref = None
    if options.beta > 0.0:
        if ref_logp is None:
            raise ValueError(_NEEDS_REF)
        ref = _real_tokens("ref_logp", _matrix("ref_logp", ref_logp, shape), real)
    elif ref_logp is not None:
        _matrix("ref_logp", ref_logp, shape)  # still checked: a wrong shape is a mistake
    return CheckedLossInputs(spec, old, adv, weights_mask, real, ref, options)


def _result(spec: LossPreset, parts: _Parts, weights_mask: np.ndarray) -> PolicyLossResult:
    return PolicyLossResult(
        preset=spec,
        loss=float(parts.loss),
        pg_loss=float(parts.pg_loss),
        kl_loss=float(parts.kl_loss),
        per_token_loss=parts.per_token_loss,
        pg_per_token=parts.pg_per_token,
        weight=parts.weight,
        kl_weight=parts.kl_weight,
        grad_logp=parts.grad_logp,
        ratio=parts.ratio,
        clipped=parts.clipped,
        dual_clipped=parts.dual_clipped,
        clip_fraction=float(parts.clip_fraction),
        kl=parts.kl,
        mask=weights_mask,
    )


@dataclass(frozen=True)
class PolicyLossSummary:
    """What a batch's loss comes to, without its (B, T) arrays: what a report of a large batch
    needs, computed in memory that grows with one block of rows, not with the batch."""

    preset: LossPreset
    loss: float  # pg_loss + kl_loss
    pg_loss: float
    kl_loss: float
    clip_fraction: float
    kl_mean: float | None  # the mean KL estimate over real tokens; None when no KL (β = 0)
    sequence_grad: np.ndarray  # (B,): Σ_t ∂loss/∂logp per answer
    tokens: int  # N, the real tokens


def _summary(result: PolicyLossResult) -> PolicyLossSummary:
    tokens = result.mask.sum()
    return PolicyLossSummary(
        preset=result.preset,
        loss=result.loss,
        pg_loss=result.pg_loss,
        kl_loss=result.kl_loss,
        clip_fraction=result.clip_fraction,
        kl_mean=None if result.kl is None else float(result.kl.sum() / tokens),
        sequence_grad=result.sequence_grad,
        tokens=int(tokens),
    )


def _check_finite_blocks(name: str, array: np.ndarray, real: np.ndarray, blocks) -> None:
    """_real_tokens' check a block of rows at a time (no full-size copy of the real tokens)."""
    for rows in blocks:
        if not np.all(np.isfinite(array[rows][real[rows]])):
            raise ValueError(f"{name} has a NaN or infinite value at a real (unmasked) token")


def policy_loss_summary(
    logp: Sequence | np.ndarray,
    old_logp: Sequence | np.ndarray,
    advantages: Sequence | np.ndarray,
    mask: Sequence | np.ndarray,
    *,
    preset: str | LossPreset,
    ref_logp: Sequence | np.ndarray | None = None,
    eps_low: float = 0.2,
    eps_high: float | None = None,
    clip_ratio_c: float = 3.0,
    beta: float = 0.0,
    max_completion_length: int | None = None,
    loss_scale_factor: float | None = None,
    kl_estimator: str = "k3",
    dual_clip: bool | None = None,
    block_positions: int = BLOCK_POSITIONS,
) -> PolicyLossSummary:
    """:func:`policy_loss`'s loss, clip fraction, mean KL and per-answer gradient, in bounded
    memory: the per-token arrays of a large batch would take some 25 times its size.

    A batch of at most ``block_positions`` positions (B × T) is computed by policy_loss itself,
    to the last bit. A larger one is computed a block of rows at a time (at least one row per
    block) against the whole batch's normalisers: each answer's gradient is the same, and the
    loss, its parts and the clip fraction are sums of the blocks' shares, equal to one pass up
    to rounding. Float64 arrays are used in place, not copied. Same arguments and errors as
    policy_loss.
    """
    spec = get_loss_preset(preset)
    lp = _matrix("logp", logp, None, copy=False)
    settings = {
        "eps_low": eps_low,
        "eps_high": eps_high,
        "clip_ratio_c": clip_ratio_c,
        "beta": beta,
        "max_completion_length": max_completion_length,
        "loss_scale_factor": loss_scale_factor,
        "kl_estimator": kl_estimator,
        "dual_clip": dual_clip,
    }
    if lp.size <= block_positions:
        return _summary(
            policy_loss(lp, old_logp, advantages, mask, preset=spec, ref_logp=ref_logp, **settings)
        )

    shape = lp.shape
    old = _matrix("old_logp", old_logp, shape, copy=False)
    weights_mask = _mask(mask, shape, copy=False)
    real = weights_mask == 1.0
    if not real.any():
        raise ValueError("mask has no real tokens: there is nothing to compute a loss over")
    rows = max(1, block_positions // max(shape[1], 1))
    blocks = [slice(start, start + rows) for start in range(0, shape[0], rows)]
    _check_finite_blocks("logp", lp, real, blocks)
    _check_finite_blocks("old_logp", old, real, blocks)
    adv = _advantages(advantages, shape[0], real.any(axis=1))
    options = _checked_options(spec, **settings)
    ref = None
    if options.beta > 0.0:
        if ref_logp is None:
            raise ValueError(_NEEDS_REF)
        ref = _matrix("ref_logp", ref_logp, shape, copy=False)
        _check_finite_blocks("ref_logp", ref, real, blocks)
    elif ref_logp is not None:
        _matrix("ref_logp", ref_logp, shape, copy=False)  # still checked: a wrong shape

    totals = _BatchTotals.of(weights_mask)
    pg_loss = kl_loss = clip_fraction = kl_sum = 0.0
    sequence_grad = np.empty(shape[0])
    for block in blocks:
        in_block = real[block]
        parts = _evaluate(
            spec,
            np.where(in_block, lp[block], 0.0),
            np.where(in_block, old[block], 0.0),
            adv[block],
            weights_mask[block],
            None if ref is None else np.where(in_block, ref[block], 0.0),
            *options,
            totals=totals,
        )
        pg_loss += float(parts.pg_loss)
        kl_loss += float(parts.kl_loss)
        clip_fraction += float(parts.clip_fraction)
        if parts.kl is not None:
            kl_sum += float(parts.kl.sum())
        sequence_grad[block] = parts.grad_logp.sum(axis=1)
    return PolicyLossSummary(
        preset=spec,
        loss=pg_loss + kl_loss,
        pg_loss=pg_loss,
        kl_loss=kl_loss,
        clip_fraction=clip_fraction,
        kl_mean=None if ref is None else kl_sum / totals.tokens,
        sequence_grad=sequence_grad,
        tokens=int(totals.tokens),
    )


@dataclass(frozen=True)
class RunsLoss:
    """The loss of R independent batches at once: one training step of R runs."""

    loss: np.ndarray  # (R,)
    grad_logp: np.ndarray  # (R, B, T), 0 at padding
    clip_fraction: np.ndarray  # (R,)
    kl: np.ndarray | None  # (R, B, T)


def policy_loss_runs(
    logp: np.ndarray,
    old_logp: np.ndarray,
    advantages: np.ndarray,
    mask: np.ndarray,
    *,
    preset: str | LossPreset,
    ref_logp: np.ndarray | None = None,
    eps_low: float = 0.2,
    eps_high: float | None = None,
    clip_ratio_c: float = 3.0,
    beta: float = 0.0,
    kl_estimator: str = "k3",
    max_completion_length: int | None = None,
    token_counts: bool = False,
    width: int | None = None,
) -> RunsLoss:
    """:func:`policy_loss` of R batches stacked as (R, B, T) (advantages (R, B)), each
    aggregated on its own, in one vectorised pass: a training step of many runs at once.

    For R = 1 it equals :func:`policy_loss` exactly; the arrays must already be finite at real
    tokens (the training core builds them). With ``token_counts``, the arrays are (R, B, 1) and
    the mask holds each answer's number of tokens, all of which carry the same values: the same
    loss and the same per-answer gradient sums as the (R, B, ``width``) batch, T times cheaper.
    """
    spec = get_loss_preset(preset)
    lp, old, m = (np.asarray(a, dtype=np.float64) for a in (logp, old_logp, mask))
    if lp.ndim != 3 or old.shape != lp.shape or m.shape != lp.shape:
        raise ValueError(f"logp, old_logp and mask must share one (R, B, T) shape; got {lp.shape}")
    adv = np.asarray(advantages, dtype=np.float64)
    if adv.shape != lp.shape[:2]:
        raise ValueError(f"advantages must have shape {lp.shape[:2]}; got {adv.shape}")
    if not np.all(m.sum(axis=(-2, -1)) > 0):
        raise ValueError("every batch needs at least one real token")
    if token_counts:
        if lp.shape[-1] != 1 or width is None or np.any(m < 0) or np.any(m != np.round(m)):
            raise ValueError("token_counts needs (R, B, 1) arrays, whole counts and the width T")
    elif not np.all((m == 0) | (m == 1)):
        raise ValueError("mask must hold only 0 and 1 (1 = a real token, 0 = padding)")
    real = m > 0
    ref = None if beta == 0 or ref_logp is None else np.where(real, ref_logp, 0.0)
    if beta > 0 and ref is None:
        raise ValueError("beta > 0 needs ref_logp, the reference policy's log-probabilities")
    parts = _evaluate(
        spec,
        np.where(real, lp, 0.0),
        np.where(real, old, 0.0),
        adv,
        m,
        ref,
        eps_low,
        eps_low if eps_high is None else eps_high,
        clip_ratio_c if spec.dual_clip else None,
        beta,
        kl_estimator,
        max_completion_length,
        None,
        width,
    )
    return RunsLoss(parts.loss, parts.grad_logp, parts.clip_fraction, parts.kl)


@dataclass(frozen=True)
class _Parts:
    """Everything policy_loss computes, for one batch (scalars) or R batches ((R,) arrays)."""

    loss: np.ndarray | float
    pg_loss: np.ndarray | float
    kl_loss: np.ndarray | float
    per_token_loss: np.ndarray
    pg_per_token: np.ndarray
    weight: np.ndarray
    kl_weight: np.ndarray
    grad_logp: np.ndarray
    ratio: np.ndarray
    clipped: np.ndarray
    dual_clipped: np.ndarray
    clip_fraction: np.ndarray | float
    kl: np.ndarray | None


def _evaluate(
    spec: LossPreset,
    lp: np.ndarray,
    old: np.ndarray,
    adv: np.ndarray,
    weights_mask: np.ndarray,
    ref: np.ndarray | None,
    eps_low: float,
    eps_high: float,
    dual_c: float | None,
    beta: float,
    kl_estimator: str,
    max_completion_length: int | None,
    loss_scale_factor: float | None,
    width: int | None = None,
    totals: _BatchTotals | None = None,
    *,
    on_policy: bool = False,
) -> _Parts:
    """The loss of (..., B, T) checked arrays (padding already 0), each leading index its own
    batch: the one computation behind :func:`policy_loss` and :func:`policy_loss_runs`.

    With ``totals`` the arrays are a block of rows of the batch ``totals`` describes, and the
    loss, its parts and the clip fraction are this block's shares, which add up to the batch's.

    ``on_policy`` (``lp`` is ``old``): ``lp − old`` is +0.0 at every cell (x − x of a finite x,
    padding 0 − 0), so the log-ratio is taken as one +0.0 column per answer and the ratio, clip
    and surrogate are computed on (..., B, 1) columns that broadcast against the (..., B, T)
    weights: each cell meets the operands it would meet cell by cell, in the same order, so
    every number is the same to the bit (tested for every preset), at a fraction of the cost.
    """
    real = weights_mask > 0
    shape = lp.shape
    tokens = (-2, -1)
    weight = _weights(spec, weights_mask, max_completion_length, loss_scale_factor, width, totals)
    token_count = weights_mask.sum(axis=tokens) if totals is None else totals.tokens
    adv_tokens = np.broadcast_to(adv[..., None], shape)
    log_ratio = np.zeros((*shape[:-1], 1)) if on_policy else lp - old

    if spec.sequence_ratio:
        lengths = np.maximum(weights_mask.sum(axis=-1), 1.0)
        if on_policy:  # (+0.0 · m).sum() / n is +0.0
            seq_log_ratio = log_ratio[..., 0]
        else:
            seq_log_ratio = (log_ratio * weights_mask).sum(axis=-1) / lengths
        seq_ratio = np.exp(seq_log_ratio)
        value, d_ratio, seq_clipped, _ = _clipped_surrogate(seq_ratio, adv, eps_low, eps_high, None)
        pg = np.where(real, value[..., None], 0.0)
        # Every token of answer i moves its ratio: ∂r_i/∂logp_it = r_i · m_it / n_i.
        row_weight = weight.sum(axis=-1)
        grad_pg = (row_weight * d_ratio * seq_ratio / lengths)[..., None] * weights_mask
        ratio = np.where(real, seq_ratio[..., None], 0.0)
        clipped = real & seq_clipped[..., None]
        dual = np.zeros(shape, dtype=bool)
        # TRL's metric for a (B, 1) ratio: a mean over the answers
        clip_fraction = (
            seq_clipped.mean(axis=-1) if totals is None else seq_clipped.sum() / totals.batch
        )
    else:
        if spec.ratio_clamp:
            through = _clamp_pass(log_ratio, -_LOG_RATIO_CLAMP, _LOG_RATIO_CLAMP)
            log_ratio = np.clip(log_ratio, -_LOG_RATIO_CLAMP, _LOG_RATIO_CLAMP)
        else:
            through = 1.0
        ratio = np.exp(log_ratio)
        value, d_ratio, clipped, dual = _clipped_surrogate(
            ratio, adv[..., None] if on_policy else adv_tokens, eps_low, eps_high, dual_c
        )
        pg = np.where(real, value, 0.0)
        grad_pg = weight * d_ratio * ratio * through
        ratio = np.where(real, ratio, 0.0)
        clipped = real & clipped
        dual = real & dual
        clip_fraction = (clipped * weights_mask).sum(axis=tokens) / token_count

    kl = None
    if not spec.kl_token_mean:
        kl_weight = weight
    elif totals is None:
        kl_weight = weights_mask / weights_mask.sum(axis=tokens, keepdims=True)
    else:
        kl_weight = weights_mask / totals.tokens
    kl_loss = np.zeros(shape[:-2]) if len(shape) > 2 else 0.0
    grad = grad_pg
    per_token = pg
    if ref is not None:
        kl_value, kl_grad = _kl_term(lp, ref, kl_estimator, spec.kl_clamp)
        kl = np.where(real, kl_value, 0.0)
        kl_loss = beta * (kl_weight * kl).sum(axis=tokens)
        grad = grad + beta * kl_weight * kl_grad
        per_token = pg + beta * kl
    pg_loss = (weight * pg).sum(axis=tokens)
    grad = np.where(real, grad, 0.0)
    return _Parts(
        loss=pg_loss + kl_loss,
        pg_loss=pg_loss,
        kl_loss=kl_loss,
        per_token_loss=np.where(real, per_token, 0.0),
        pg_per_token=pg,
        weight=weight,
        kl_weight=kl_weight if kl is not None else np.zeros(shape),
        grad_logp=grad,
        ratio=ratio,
        clipped=clipped,
        dual_clipped=dual,
        clip_fraction=clip_fraction,
        kl=kl,
    )
