"""The GRPO math: group statistics and advantages, textbook and real libraries' conventions.

Pure Python + numpy; no Qt import, ever (``tests/test_layers.py`` enforces it). Every number the
app shows comes out of this module, so it is written to be exact where the seeds are exact and to
match TRL, verl and OpenRLHF to float precision where they disagree with the textbook (DESIGN §4).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.common.real_numbers import NotRealNumbersError, as_float64

__all__ = [
    "CONVENTIONS",
    "DEFAULT_CONVENTION",
    "Convention",
    "GroupStats",
    "ScoredGroupStats",
    "convention_names",
    "get_convention",
    "group_advantages",
    "group_stats",
    "scored_group_stats",
]


@dataclass(frozen=True)
class Convention:
    """How one trainer turns a group's rewards into advantages, with where it comes from."""

    name: str
    label: str
    formula: str
    description: str
    source: str
    ddof: int | None  # std degrees of freedom; None when the convention does not divide by a std
    eps: float  # added to the std before dividing (0 for the textbook)
    min_group_size: int  # smallest G at which the convention is defined
    undefined_reason: str = ""  # why it is undefined below min_group_size, for error messages

    @property
    def normalizes(self) -> bool:
        """Whether advantages are divided by a std (and so are invariant to r -> a*r + b)."""
        return self.ddof is not None


CONVENTIONS: dict[str, Convention] = {
    c.name: c
    for c in (
        Convention(
            name="textbook",
            label="Textbook",
            formula="A = (r − mean) / std",
            description=(
                "The seeds' formula: population std; an all-equal group gives exactly 0. "
                "DeepSeekMath does not say which std it uses; this follows the seeds' worked "
                "examples."
            ),
            source="the seeds' worked examples, population std",
            ddof=0,
            eps=0.0,
            min_group_size=1,
        ),
        Convention(
            name="trl",
            label="TRL",
            formula="A = (r − mean) / (std + 1e-4)",
            description="Sample std (ddof 1) of the group, plus 1e-4.",
            source='TRL GRPOTrainer, scale_rewards="group"',
            ddof=1,
            eps=1e-4,
            min_group_size=2,
            undefined_reason="TRL refuses num_generations < 2",
        ),
        Convention(
            name="trl_batch",
            label="TRL (batch std)",
            formula="A = (r − group mean) / (batch std + 1e-4)",
            description="Group mean, but the sample std of the whole batch, plus 1e-4.",
            source='TRL GRPOTrainer, scale_rewards="batch"',
            ddof=1,
            eps=1e-4,
            min_group_size=2,
            undefined_reason="TRL refuses num_generations < 2",
        ),
        Convention(
            name="verl",
            label="verl",
            formula="A = (r − mean) / (std + 1e-6)",
            description="Sample std (ddof 1) plus 1e-6; a lone sample gets mean 0 and std 1.",
            source="verl compute_grpo_outcome_advantage (adv_estimator=grpo)",
            ddof=1,
            eps=1e-6,
            min_group_size=1,
        ),
        Convention(
            name="openrlhf",
            label="OpenRLHF",
            formula="A = (r − mean) / (std + 1e-9)",
            description="Sample std (ddof 1) plus 1e-9.",
            source="OpenRLHF advantage_estimator=group_norm",
            ddof=1,
            eps=1e-9,
            min_group_size=2,
            undefined_reason="group_norm divides by the sample std, which is NaN for one sample",
        ),
        Convention(
            name="dr_grpo",
            label="Dr. GRPO",
            formula="A = r − mean",
            description=(
                "No std division, which removes GRPO's question-difficulty bias "
                '(TRL: scale_rewards="none" or False).'
            ),
            source='Dr. GRPO (Liu et al. 2025); TRL GRPOTrainer, scale_rewards="none"',
            ddof=None,
            eps=0.0,
            min_group_size=1,
        ),
        Convention(
            name="rloo",
            label="RLOO",
            formula="A = r − mean(others) = G/(G−1) · (r − mean)",
            description="Leave-one-out baseline: each answer is compared with the other G − 1.",
            source="RLOO (Ahmadian et al. 2024); OpenRLHF advantage_estimator=rloo",
            ddof=None,
            eps=0.0,
            min_group_size=2,
            undefined_reason="RLOO's leave-one-out baseline needs at least one other sample",
        ),
    )
}

DEFAULT_CONVENTION = "textbook"

# Advantages below this fraction of the group's largest |reward| are rounding residue of (r - mean),
# not signal; group_stats reports them as exactly 0 so no card claims to be pushed by 1e-17.
_RESIDUE = 1e-12

# Beyond this magnitude (r - mean)^2 can overflow float64; such batches are rescaled row by row.
_SAFE_HIGH = 1e150
_SMALLEST_NORMAL = np.finfo(np.float64).tiny  # squares below this have lost digits


def convention_names() -> tuple[str, ...]:
    """The valid convention names, in the order the UI lists them."""
    return tuple(CONVENTIONS)


def get_convention(name: str | Convention) -> Convention:
    """The convention called ``name``; a ValueError that lists the valid names otherwise.

    A ``Convention`` passes straight through, so a caller that resolved the name once can hand
    the result on without it being looked up again.
    """
    if isinstance(name, Convention):
        return name
    try:
        return CONVENTIONS[name]
    except (KeyError, TypeError):
        valid = ", ".join(CONVENTIONS)
        raise ValueError(f"unknown convention {name!r}; choose one of: {valid}") from None


@dataclass(frozen=True)
class GroupStats:
    """Everything the window shows about one group, computed once per change."""

    rewards: np.ndarray
    mean: float
    std: float  # as the convention defines it (population for textbook, sample for libraries)
    scale: float  # what (r - mean) was divided by: std + eps, or 1 for unscaled conventions
    centered: np.ndarray  # r - mean, exactly 0 for an all-equal group (the first stage of A)
    advantages: np.ndarray
    pushed_up: int
    pushed_down: int
    # Zero learning signal: all rewards equal, so each equals the mean baseline. verl gives a lone
    # answer the baseline 0 instead, so that group is degenerate only when its reward is 0.
    degenerate: bool
    convention: str

    @property
    def group_size(self) -> int:
        return int(self.rewards.shape[0])

    @property
    def no_signal(self) -> int:
        """How many answers have an advantage of exactly 0."""
        return self.group_size - self.pushed_up - self.pushed_down


def _as_reward_array(rewards: object) -> tuple[np.ndarray, float]:
    """Validate rewards into a float64 array of shape (G,) or (B, G), with readable errors
    (ValueError, never numpy's warnings or OverflowError: see ``real_numbers``).

    Also returns the largest |reward|, which the kernel needs and which costs a pass to find.
    """
    try:
        array = as_float64(rewards, "rewards")
    except NotRealNumbersError:
        raise
    except (TypeError, ValueError) as error:
        if isinstance(rewards, Sequence) and any(
            isinstance(row, Sequence) and not isinstance(row, (str, bytes)) for row in rewards
        ):
            lengths = sorted({len(row) for row in rewards if isinstance(row, Sequence)})
            raise ValueError(
                f"ragged batch: every group must have the same size, got sizes {lengths}"
            ) from error
        raise ValueError(f"rewards must be numbers: {error}") from error
    if array.ndim not in (1, 2):
        raise ValueError(
            f"rewards must be one group (G,) or a batch of groups (B, G); got shape {array.shape}"
        )
    if array.size == 0:
        raise ValueError("empty group: GRPO needs at least one reward to score")
    # min/max propagate NaN and expose inf, and are far cheaper than isfinite(array).all().
    lowest, highest = float(array.min()), float(array.max())
    if not (np.isfinite(lowest) and np.isfinite(highest)):
        bad = np.argwhere(~np.isfinite(array))[0]
        where = ", ".join(str(int(i)) for i in bad)
        raise ValueError(
            f"reward at index {where} is {array[tuple(bad)]}: every reward must be a finite number"
        )
    return array, max(abs(lowest), abs(highest))


def _check_group_size(convention: Convention, group_size: int) -> None:
    needed = convention.min_group_size
    if group_size < needed:
        raise ValueError(
            f"the {convention.label} convention is undefined for a group of {group_size} "
            f"({convention.undefined_reason}); use at least {needed} answers per group"
        )


def _center(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centered rows (r - mean) and their row sums of squares, in memory linear in the batch.

    Each row is first shifted by its own first element, so an all-equal row becomes exact zeros
    (std exactly 0) instead of float residue like 1e-17. Each shifted entry is x_j - x_0 rounded
    once, exactly 0 when the two are equal: bit for bit what the product with a G x G shift matrix
    of 0, 1 and -1 gave before (its other terms were exact zeros), without the G² memory that
    matrix took (3 GB at G = 20,000). The mean of the shifted rows stays a matrix-vector product:
    BLAS sums short rows far faster than numpy's axis=1 reductions, and in the same order as before.
    """
    group_size = rows.shape[1]
    # x_j + (0 - x_0): the sum of the product's two non-zero terms, and +0.0 (never -0.0) where
    # it is zero, as the product's sums starting from +0.0 gave. C order keeps the sums below.
    centered = np.add(rows, 0.0 - rows[:, :1], order="C")
    shift_mean = (centered @ np.ones(group_size)) / group_size
    centered -= shift_mean[:, None]
    sum_squares = np.einsum("ij,ij->i", centered, centered)
    return centered, sum_squares


def _center_rescaled(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like ``_center`` but for rows whose magnitudes would over- or underflow when squared.

    Rows are scaled by an exact power of two first; returns the scale so callers can undo it.
    """
    largest = np.abs(rows).max(axis=1)
    _, exponent = np.frexp(np.where(largest > 0, largest, 1.0))
    scale = np.ldexp(1.0, np.clip(-exponent, -1000, 1000))
    centered, sum_squares = _center(rows * scale[:, None])
    return centered, sum_squares, scale


def _flat_sum_squares(values: np.ndarray) -> tuple[float, float]:
    """Σ (x − mean)² of one long vector, and the exact power of two it was scaled by.

    The batch std's counterpart of ``_center_rescaled``, in memory proportional to the batch
    (one long vector: numpy's own mean, where ``_center`` takes BLAS products over short rows).
    """
    largest = float(np.abs(values).max())
    _, exponent = np.frexp(largest if largest > 0 else 1.0)
    scale = float(np.ldexp(1.0, int(np.clip(-exponent, -1000, 1000))))
    centered = values * scale - values[0] * scale  # x_j − x_0, exactly 0 where they are equal
    centered -= centered.mean()
    return float(np.dot(centered, centered)), scale


def _advantages_2d(
    rewards: np.ndarray, convention: Convention, largest: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advantages for a (B, G) batch whose largest |reward| is ``largest``.

    Returns (advantages, std, divisor), the last two one value per row.
    """
    batch, group_size = rewards.shape
    if largest > _SAFE_HIGH:
        centered, sum_squares, scale = _center_rescaled(rewards)
    else:
        centered, sum_squares = _center(rewards)
        scale = None
        # A sum of squares below the smallest normal float is all-equal (exactly 0), or a tiny
        # spread that underflowed or lost digits when squared: rescale, unless it is all-equal.
        tiny_spread = np.flatnonzero(sum_squares < _SMALLEST_NORMAL)
        if tiny_spread.size and (centered[tiny_spread] != 0.0).any():
            centered, sum_squares, scale = _center_rescaled(rewards)

    if convention.name == "verl" and group_size == 1:
        # verl: a lone sample gets mean 0 and std 1, so its advantage is r / (1 + eps).
        std = np.ones(batch)
        divisor = std + convention.eps
        return rewards / divisor[:, None], std, divisor

    if convention.ddof is None:
        std = np.sqrt(sum_squares / group_size)
        factor = group_size / (group_size - 1) if convention.name == "rloo" else 1.0
        divisor = np.full(batch, 1.0 / factor)
        if scale is None:
            advantages = np.multiply(centered, factor, out=centered)
        else:
            with np.errstate(over="ignore"):  # an overflow here is reported below
                centered /= scale[:, None]
                std /= scale
                advantages = np.multiply(centered, factor, out=centered)
    else:
        if convention.name == "trl_batch":
            # One std over every reward in the batch: TRL's rewards.std() on the flat tensor.
            flat_squares, flat_scale = _flat_sum_squares(rewards.ravel())
            with np.errstate(over="ignore"):  # an infinite std is refused by group_stats
                batch_std = np.sqrt(flat_squares / (rewards.size - 1)) / flat_scale
            if not np.isfinite(batch_std):
                raise ValueError(
                    "rewards are too large: the batch std overflows float64 "
                    f"(largest |reward| is {largest:.3g}); rescale the rewards"
                )
            std = np.full(batch, batch_std)
            scaled_std = std * scale if scale is not None else std
        else:
            scaled_std = np.sqrt(sum_squares / (group_size - convention.ddof))
            if scale is None:
                std = scaled_std
            else:
                with np.errstate(over="ignore"):  # an infinite std is refused by group_stats
                    std = scaled_std / scale
        eps = convention.eps if scale is None else convention.eps * scale
        scaled_divisor = scaled_std + eps
        divisor = std + convention.eps
        if convention.eps == 0.0:
            # Textbook: an all-equal row has std exactly 0 and centered exactly 0; define A = 0.
            scaled_divisor = np.where(scaled_divisor == 0.0, 1.0, scaled_divisor)
        advantages = np.divide(centered, scaled_divisor[:, None], out=centered)

    if largest > _SAFE_HIGH and not np.isfinite(advantages).all():
        raise ValueError(
            "rewards are too large: their advantages overflow float64 "
            f"(largest |reward| is {largest:.3g}); rescale the rewards"
        )
    return advantages, std, divisor


# The blocked batch path scores this many float64 values per block (1 MiB): a block of the output
# fills one core's 1 MiB L2 cache and the scratch for its squares sits in L3, so no stage after the
# read from memory waits for memory. With one thread, 512 KiB blocks (output and scratch both in
# L2) measured as fast; with two, 1 MiB blocks measured 6-9 % faster (2.13x the floor against
# 2.25-2.34x, six interleaved runs): each numpy call gives up and retakes the GIL, which the other
# thread may hold, and bigger blocks make fewer calls. Blocks stay well under 2**19 values: at that
# size OpenBLAS splits each matrix-vector product across threads of its own, which fight ours
# (measured 10-14x slower).
_BLOCK_VALUES = 131_072
# A row whose variance ends below this and is not all-equal had squares that fell below the
# smallest normal float (2**-1022) and lost digits: the full path rescales it first. Above it, the
# at most 2**-1075 each such square loses is below 2**-100 of the row's sum of squares.
_BLOCK_TINY_VARIANCE = 2.0**-969
# At most this many threads share the blocks of one large batch (never more than the cores this
# process may use), each with at least _BLOCK_PER_THREAD blocks (2 MiB) so a thread earns its
# start-up. They take _BLOCK_PER_CHUNK blocks (4 MiB of output) at a time: alternating single blocks
# measured slower than halves of the batch (two threads first touching the same huge pages, most
# likely); chunks measured as fast as halves, and a thread slowed by another process takes fewer.
_BLOCK_THREADS = 4
_BLOCK_PER_THREAD = 2
_BLOCK_PER_CHUNK = 4


def _blocked_applies(rewards: object, convention: Convention) -> bool:
    """Whether ``_blocked_advantages`` can score ``rewards``: a non-empty numeric (B, G) array,
    G >= 2 and allowed, under a convention that divides each row by its own std."""
    return (
        isinstance(rewards, np.ndarray)
        and rewards.ndim == 2
        and rewards.size > 0
        and rewards.dtype.kind in "biuf"
        and rewards.shape[1] >= max(2, convention.min_group_size)
        and convention.ddof is not None
        and convention.name != "trl_batch"
    )


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity masks
        return os.cpu_count() or 1


def _blocked_advantages(rewards: np.ndarray, convention: Convention) -> np.ndarray | None:
    """``_advantages_2d``'s advantages to a few ulps, reading the batch from memory once; or None.

    The full path makes seven passes over memory; here each cache-sized row block is read once,
    straight into the output, and every later stage runs on it while it is hot. Large batches are
    shared by a few threads (numpy releases the GIL inside each call), each taking the next chunk
    of blocks when done with one, so a thread on a core another process is using does less of the
    work instead of holding up the rest. A block is scored the same whichever thread takes it, so
    the threads do not change the result.

    Returns None (the caller then takes the full path, which rescales or raises the errors) for
    non-finite rewards, rows whose squares overflow, and rows whose squares underflow.
    """
    batch, group_size = rewards.shape
    block_rows = max(4, _BLOCK_VALUES // group_size)
    blocks = -(-batch // block_rows)
    threads = min(_BLOCK_THREADS, _usable_cores(), blocks // _BLOCK_PER_THREAD)
    out = np.empty((batch, group_size))
    if threads <= 1:
        return out if _score_blocks(rewards, out, convention, [(0, batch)], block_rows) else None
    chunk_rows = _BLOCK_PER_CHUNK * block_rows
    chunks = iter(range(0, batch, chunk_rows))  # shared: next() on it is atomic under the GIL
    results: list[bool | BaseException] = [False] * threads

    def score(index: int) -> None:
        ranges = ((start, min(batch, start + chunk_rows)) for start in chunks)
        try:
            results[index] = _score_blocks(rewards, out, convention, ranges, block_rows)
        except BaseException as error:  # re-raised in the calling thread below
            results[index] = error

    workers = []
    for index in range(1, threads):
        worker = threading.Thread(target=score, args=(index,), daemon=True)
        try:
            worker.start()
        except RuntimeError:  # no thread to be had (a process limit, or shutting down)
            results[index] = True  # the chunks it would have taken go to the others
        else:
            workers.append(worker)
    score(0)
    for worker in workers:
        worker.join()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return out if all(results) else None


def _score_blocks(
    rewards: np.ndarray,
    out: np.ndarray,
    convention: Convention,
    ranges: Iterable[tuple[int, int]],
    block_rows: int,
) -> bool:
    """Score the rows ``start:stop`` of each range into ``out``; False (at once) if a row needs
    the full path.

    Per block: shift each row by its first reward, so an all-equal row is exact zeros whatever
    the order of the sums after it; the mean as a matrix-vector product (BLAS sums short rows far
    faster than numpy's axis=1 reductions); center; the variance as squares and a second product;
    multiply by the reciprocal of the divisor (a multiply broadcasts faster than a divide, for one
    more rounding). The weights 1/G and 1/(G − ddof) go into the products instead of costing a
    pass of their own.
    """
    group_size = rewards.shape[1]
    rows = min(block_rows, rewards.shape[0])
    neg_first = np.empty((rows, 1))
    mean = np.empty(rows)
    scale = np.empty(rows)
    squares = np.empty((rows, group_size))
    variance = np.empty(rows)
    mean_weights = np.full(group_size, 1.0 / group_size)
    variance_weights = np.full(group_size, 1.0 / (group_size - convention.ddof))  # type: ignore[operator]
    eps = convention.eps
    cast = rewards.dtype != np.float64
    blocks = (
        (begin, min(begin + block_rows, stop))
        for start, stop in ranges
        for begin in range(start, stop, block_rows)
    )
    with np.errstate(all="ignore"):  # NaN, inf, overflow: return False, the full path reports
        for begin, end in blocks:
            block = out[begin:end]
            source = rewards[begin:end]
            count = end - begin
            first, row_mean, row_scale = neg_first[:count], mean[:count], scale[:count]
            row_variance = variance[:count]
            if cast:  # round to float64 before the shift, as the full path does (long double)
                np.copyto(block, source)
                source = block
            np.subtract(0.0, source[:, :1], out=first)  # -r_0 with its zeros +0, so that
            np.add(source, first, out=block)  # r_j - r_0 is +0, never -0, in an all-equal row
            np.matmul(block, mean_weights, out=row_mean)
            np.subtract(block, row_mean[:, None], out=block)
            np.multiply(block, block, out=squares[:count])
            np.matmul(squares[:count], variance_weights, out=row_variance)
            if not row_variance.max() < np.inf:  # NaN too: rewards or squares not finite
                return False
            if row_variance.min() < _BLOCK_TINY_VARIANCE:
                tiny = row_variance < _BLOCK_TINY_VARIANCE
                if block[tiny].any():
                    return False  # underflowed squares: the full path rescales the row first
            if eps == 0.0:
                # Textbook: an all-equal row has variance 0 and is all +0, so any finite divisor
                # gives its defined A = 0; the floor is never reached by any other row.
                np.maximum(row_variance, _BLOCK_TINY_VARIANCE, out=row_scale)
                np.sqrt(row_scale, out=row_scale)
            else:
                np.sqrt(row_variance, out=row_scale)
                np.add(row_scale, eps, out=row_scale)
            np.divide(1.0, row_scale, out=row_scale)
            np.multiply(block, row_scale[:, None], out=block)
    return True


def group_advantages(
    rewards: object, convention: str | Convention = DEFAULT_CONVENTION
) -> np.ndarray:
    """Advantages for one group ``(G,)`` or a batch of groups ``(B, G)``; same shape out.

    Vectorised over groups (a Python loop only over cache-sized blocks of them), so a million
    groups score in well under a second. A batch under a per-group std convention may differ
    from ``group_stats`` of its rows in the last few bits (its sums are taken per block, in
    another order), never where the value is exact: an all-equal group is exactly 0 in both.
    """
    chosen = get_convention(convention)
    if _blocked_applies(rewards, chosen):
        advantages = _blocked_advantages(rewards, chosen)  # type: ignore[arg-type]  # an ndarray
        if advantages is not None:
            return advantages
    array, largest = _as_reward_array(rewards)
    rows = array.reshape(1, -1) if array.ndim == 1 else array
    _check_group_size(chosen, rows.shape[1])
    advantages, *_ = _advantages_2d(rows, chosen, largest)
    return advantages.reshape(array.shape)


def _mean(array: np.ndarray, largest: float) -> float:
    """The mean of one group; huge rewards are scaled by an exact power of two first, so the
    sum cannot overflow (the mean of 1.7e308, 1.7e308, 0 is 1.13e308, not inf)."""
    if largest <= _SAFE_HIGH:
        return float(np.mean(array))
    _, exponent = np.frexp(largest)
    return float(np.ldexp(np.mean(np.ldexp(array, -int(exponent))), int(exponent)))


def group_stats(rewards: object, convention: str | Convention = DEFAULT_CONVENTION) -> GroupStats:
    """Mean, std, advantages and push counts of one group, as the window and ``score`` show them."""
    chosen = get_convention(convention)
    array, largest = _as_reward_array(rewards)
    array = array.copy()  # frozen below; never freeze or alias the caller's own array
    if array.ndim != 1:
        raise ValueError(f"group_stats scores one group of shape (G,); got shape {array.shape}")
    _check_group_size(chosen, array.shape[0])
    advantages, std, divisor = _advantages_2d(array.reshape(1, -1), chosen, largest)
    advantages = advantages[0]
    degenerate = bool((array == array[0]).all())
    lone_verl_answer = chosen.name == "verl" and array.shape[0] == 1
    if lone_verl_answer:
        # verl's baseline for a lone answer is 0, not its own reward: the answer is pushed by its
        # reward, and the group teaches nothing only when that reward is 0.
        degenerate = bool(array[0] == 0.0)
    if divisor[0] > 0:
        residue = _RESIDUE * largest / float(divisor[0])
        advantages[np.abs(advantages) <= residue] = 0.0
    # Equal rewards: the mean is exactly the reward. Otherwise np.mean prints 0.2, not 0.19999…96.
    group_mean = float(array[0]) if degenerate else _mean(array, largest)
    if lone_verl_answer:
        group_mean = 0.0  # verl's rule for a lone sample
    advantages += 0.0  # turn any -0.0 into 0.0 so nothing prints as "−0.00"
    if degenerate:
        centered = np.zeros_like(array)
    elif largest <= _SAFE_HIGH:  # nothing can overflow
        centered = array - group_mean
    else:
        with np.errstate(over="ignore"):  # an overflow here is reported just below
            centered = array - group_mean
        if not (np.isfinite(std[0]) and np.isfinite(divisor[0]) and np.isfinite(centered).all()):
            raise ValueError(
                "rewards are too large: their spread overflows float64 "
                f"(largest |reward| is {largest:.3g}); rescale the rewards"
            )
    for frozen in (array, advantages, centered):
        frozen.setflags(write=False)
    return GroupStats(
        rewards=array,
        mean=group_mean,
        std=float(std[0]),
        scale=float(divisor[0]),
        centered=centered,
        advantages=advantages,
        pushed_up=int((advantages > 0).sum()),
        pushed_down=int((advantages < 0).sum()),
        degenerate=degenerate,
        convention=chosen.name,
    )


#: Conventions under which a group with a single scored answer gets advantage 0: TRL's ``nanstd``
#: of one value is NaN and ``nan_to_num`` turns the NaN advantage into 0.
_TRL_CONVENTIONS = ("trl", "trl_batch")


@dataclass(frozen=True)
class ScoredGroupStats:
    """One group in which some answers have no reward, scored as TRL ≥ 1.6 scores it.

    ``stats`` are the scored answers' own statistics (None when no answer, or under TRL's
    conventions a single one, was scored: TRL's mean or std is then NaN and every advantage 0).
    """

    rewards: np.ndarray  # (G,), NaN where no reward function scored the answer
    scored: np.ndarray  # (G,) bool
    stats: GroupStats | None
    advantages: np.ndarray  # (G,), exactly 0 for every unscored answer
    convention: str

    @property
    def group_size(self) -> int:
        return int(self.rewards.shape[0])

    @property
    def scored_count(self) -> int:
        return int(self.scored.sum())

    @property
    def mean(self) -> float | None:
        """The scored answers' mean (TRL's ``nanmean``); None when none was scored."""
        if self.stats is not None:
            return self.stats.mean
        return float(self.rewards[self.scored][0]) if self.scored_count else None

    @property
    def std(self) -> float | None:
        """The scored answers' std under the convention; None where it is undefined (NaN)."""
        return None if self.stats is None else self.stats.std

    @property
    def degenerate(self) -> bool:
        """No learning signal: the scored rewards all equal, or none (or one, for TRL) scored."""
        return True if self.stats is None else self.stats.degenerate

    @property
    def pushed_up(self) -> int:
        return int((self.advantages > 0).sum())

    @property
    def pushed_down(self) -> int:
        return int((self.advantages < 0).sum())

    @property
    def no_signal(self) -> int:
        return self.group_size - self.pushed_up - self.pushed_down


def scored_group_stats(
    rewards: object, convention: str | Convention = DEFAULT_CONVENTION
) -> ScoredGroupStats:
    """One group ``(G,)`` whose NaN rewards are missing: TRL ≥ 1.6's rule for an answer that no
    reward function scored (``trl/trainer/grpo_trainer.py``,
    ``_generate_and_score_completions``: ``rewards[unscorable_mask] = nan``, ``nanmean`` and
    ``nanstd`` per group, then ``nan_to_num(advantages, nan=0.0)``).

    The scored answers are scored as a group of their own under ``convention``; every unscored
    answer gets advantage 0. With no reward at all every advantage is 0; with one reward under
    TRL's conventions too (TRL's std of one value is NaN). Other conventions undefined for the
    scored count raise the usual ValueError, naming scored answers.
    """
    chosen = get_convention(convention)
    try:
        array = np.array(rewards, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"rewards must be numbers or NaN (missing): {error}") from error
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"scored_group_stats scores one non-empty group of shape (G,); got shape {array.shape}"
        )
    if np.isinf(array).any():
        index = int(np.argwhere(np.isinf(array))[0][0])
        raise ValueError(
            f"reward at index {index} is {array[index]}: a reward must be finite (NaN: missing)"
        )
    scored = ~np.isnan(array)
    advantages = np.zeros(array.shape)
    count = int(scored.sum())
    stats = None
    if count >= chosen.min_group_size and count > 0:
        stats = group_stats(array[scored], chosen)
        advantages[scored] = stats.advantages
    elif count > 0 and chosen.name not in _TRL_CONVENTIONS:
        raise ValueError(
            f"the {chosen.label} convention is undefined for {count} scored answer"
            f"{'s' if count != 1 else ''} ({chosen.undefined_reason}); an answer no reward "
            "function scored is left out of the group"
        )
    for frozen in (array, scored, advantages):
        frozen.setflags(write=False)
    return ScoredGroupStats(array, scored, stats, advantages, chosen.name)
