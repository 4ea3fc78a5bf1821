"""``grpo-desktop loss FILE.json``: a batch's policy loss and gradient under each library's preset.

The practitioner's way to see what verl, TRL or OpenRLHF computes on *their* numbers: the file
holds one padded batch (``logp``, ``old_logp``, ``mask``, ``advantages``, optionally ``ref_logp``
and the options of :func:`grpo_desktop.core.formulas.clipped_loss.policy_loss`, under its own
argument
names), and the command prints, per preset, the loss, the clip fraction, the mean KL and each
answer's total Σ_t ∂loss/∂logp, with one line saying which way the batch's likelihood is pushed.

Like ``score`` it starts fast and works with no display: it imports only the standard library,
numpy, ``core`` and the Qt-free ``cli`` helpers (the one-line argument parser and the terminal
writer), never Qt.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grpo_desktop.cli.common import AsciiArgumentParser, finite_or_none, write_text
from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.common.jsonfile import json_type_name, read_json_file
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.formulas.clipped_loss import (
    BLOCK_POSITIONS,
    KL_ESTIMATORS,
    LOSS_PRESETS,
    LossPreset,
    PolicyLossSummary,
    get_loss_preset,
    policy_loss_summary,
)

PROG = "grpo-desktop loss"

#: Large enough for a 64 × 8192 batch with a reference policy; small enough to refuse a mistake.
MAX_FILE_BYTES = 64 * 1024 * 1024

REQUIRED_FIELDS = ("logp", "old_logp", "mask", "advantages")
#: The optional fields, each named as policy_loss names its argument.
OPTIONAL_FIELDS = (
    "ref_logp",
    "eps_low",
    "eps_high",
    "clip_ratio_c",
    "beta",
    "max_completion_length",
    "loss_scale_factor",
    "kl_estimator",
)
_NUMBER_OPTIONS = ("eps_low", "eps_high", "clip_ratio_c", "beta", "loss_scale_factor")
_NULLABLE_OPTIONS = ("eps_high", "max_completion_length", "loss_scale_factor")  # None = default

#: The widest batch taken: answers padded to at most this many token positions (T). The loss is
#: computed a block of rows at a time (policy_loss_summary), so memory is bounded by the
#: arrays read and one block, whatever B; a block is at least one row, hence the cap on T.
MAX_WIDTH = BLOCK_POSITIONS

#: The JSON types of a row that numpy converts exactly as _cell does, in one step.
_PLAIN_VALUES = frozenset({int, float, type(None)})
_PLAIN_MASK = frozenset({int, float, bool})


class LossInputError(ValueError):
    """The file or an option is unusable; the message is one sentence naming what to fix."""


@dataclass(frozen=True)
class Batch:
    """The checked contents of FILE.json: arrays as float64, options as policy_loss takes them."""

    source: str
    logp: np.ndarray
    old_logp: np.ndarray
    mask: np.ndarray
    advantages: np.ndarray
    ref_logp: np.ndarray | None
    options: dict[str, Any]

    @property
    def answers(self) -> int:
        return int(self.logp.shape[0])

    @property
    def tokens(self) -> int:
        return int(self.mask.sum())


@dataclass(frozen=True)
class PresetOutcome:
    """One preset's result, or why its library cannot take this batch's options."""

    preset: LossPreset
    result: PolicyLossSummary | None = None
    not_applicable: str | None = None

    @property
    def overflowed(self) -> bool:
        """Whether the loss, an answer's gradient or their sums are beyond float64 (inf, NaN)."""
        result = self.result
        if result is None:
            return False
        grads = result.sequence_grad
        with np.errstate(all="ignore"):
            sums = (result.loss, float(grads.sum()), float(np.abs(grads).sum()))
        return not (all(math.isfinite(value) for value in sums) and np.all(np.isfinite(grads)))


# --- the file ----------------------------------------------------------------------------------


def _number(value: object, where: str, *, allow_null: bool) -> float:
    """A JSON number as a float; ``null`` is NaN (fine at padding, an error at a real token)."""
    if value is None and allow_null:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LossInputError(f"{where} must be a number; got {json_type_name(value)}")
    try:
        return float(value)
    except OverflowError:  # an integer literal beyond float64, e.g. 1 followed by 400 zeros
        raise LossInputError(f"{where} is too large for a float64") from None


def _cell(field: str, value: object, where: str) -> float:
    """One entry of a B × T field; mask also takes true/false (a bool tensor's ``tolist()``)."""
    if field == "mask":
        return float(value) if isinstance(value, bool) else _number(value, where, allow_null=False)
    return _number(value, where, allow_null=True)


def _matrix(source: str, field: str, value: object) -> np.ndarray:
    """A B × T field: a non-empty list of equally long rows of numbers (``null`` = no value).

    Rows are checked first (so the array is only made for a well-formed field), then copied in
    one at a time: a row of plain numbers goes to numpy in one step, and only a row holding
    something else is read item by item, to name the item.
    """
    prefix = f"{source}: field '{field}'"
    if not isinstance(value, list) or not value:
        raise LossInputError(
            f"{prefix} must be a non-empty list of rows (B × T, one row per answer); "
            f"got {json_type_name(value) if value != [] else 'an empty list'}"
        )
    width: int | None = None
    for i, row in enumerate(value, start=1):
        if not isinstance(row, list):
            raise LossInputError(
                f"{prefix} row {i} must be a list of numbers (one per token); "
                f"got {json_type_name(row)}"
            )
        if width is None:
            width = len(row)
            if width > MAX_WIDTH:
                raise LossInputError(
                    f"{prefix} row 1 has {width:,} token positions; at most {MAX_WIDTH:,} per "
                    "answer (the padded length T) are supported"
                )
        elif len(row) != width:
            raise LossInputError(
                f"{prefix} row {i} has {len(row)} values but row 1 has {width}; pad every row "
                "to the same length T and mark the padding 0 in mask"
            )
    array = np.empty((len(value), width or 0), dtype=np.float64)
    plain = _PLAIN_MASK if field == "mask" else _PLAIN_VALUES
    for i, row in enumerate(value, start=1):
        if set(map(type, row)) <= plain:
            try:
                array[i - 1] = row  # None is NaN, True 1.0: as _cell reads them
                continue
            except OverflowError:  # an integer beyond float64: named item by item below
                pass
        array[i - 1] = [_cell(field, x, f"{prefix} row {i} item {j}") for j, x in enumerate(row, 1)]
    return array


def _advantages(source: str, value: object) -> np.ndarray:
    """One advantage per answer: ``[1, -0.5]`` (or TRL's (B, 1) shape, ``[[1], [-0.5]]``)."""
    prefix = f"{source}: field 'advantages'"
    if not isinstance(value, list) or not value:
        raise LossInputError(
            f"{prefix} must be a non-empty list of numbers, one per answer; "
            f"got {json_type_name(value) if value != [] else 'an empty list'}"
        )
    values = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, list) and len(item) == 1:
            item = item[0]
        values.append(_number(item, f"{prefix} item {i}", allow_null=True))
    return np.array(values, dtype=np.float64)


def _options(source: str, data: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name in _NUMBER_OPTIONS:
        if name not in data:
            continue
        value = data[name]
        if value is None and name in _NULLABLE_OPTIONS:
            continue
        options[name] = _number(value, f"{source}: field '{name}'", allow_null=False)
    if "max_completion_length" in data and data["max_completion_length"] is not None:
        value = data["max_completion_length"]
        length = _number(value, f"{source}: field 'max_completion_length'", allow_null=False)
        if not length.is_integer() or length < 1:
            raise LossInputError(
                f"{source}: field 'max_completion_length' must be a whole number of tokens >= 1; "
                f"got {value!r}"
            )
        options["max_completion_length"] = int(length)
    if "kl_estimator" in data:
        value = data["kl_estimator"]
        if value not in KL_ESTIMATORS:
            shown = value if isinstance(value, str) else json_type_name(value)
            raise LossInputError(
                f"{source}: field 'kl_estimator' must be one of {', '.join(KL_ESTIMATORS)}; "
                f"got {shown!r}"
            )
        options["kl_estimator"] = value
    return options


def _check_fields(data: object, source: str) -> dict[str, Any]:
    """The parsed top level, if it is an object with the required fields and no others."""
    if not isinstance(data, dict):
        raise LossInputError(
            f"{source}: the top level must be a JSON object with the fields "
            f"{', '.join(REQUIRED_FIELDS)}; got {json_type_name(data)}"
        )
    unknown = [key for key in data if key not in REQUIRED_FIELDS + OPTIONAL_FIELDS]
    if unknown:
        raise LossInputError(
            f"{source}: unknown field{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(key) for key in unknown)}; the fields are "
            f"{', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}"
        )
    missing = [key for key in REQUIRED_FIELDS if key not in data]
    if missing:
        raise LossInputError(
            f"{source}: missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        )
    return data


def _take_batch(fields: dict[str, Any], source: str) -> Batch:
    """The batch, each array field removed from ``fields`` as soon as it is an array: the
    parser's lists of a large file are freed field by field instead of outliving the arrays."""
    logp = _matrix(source, "logp", fields.pop("logp"))
    old_logp = _matrix(source, "old_logp", fields.pop("old_logp"))
    mask = _matrix(source, "mask", fields.pop("mask"))
    advantages = _advantages(source, fields.pop("advantages"))
    ref = fields.pop("ref_logp", None)
    ref_logp = None if ref is None else _matrix(source, "ref_logp", ref)
    del ref
    batch = Batch(source, logp, old_logp, mask, advantages, ref_logp, _options(source, fields))
    _check_real_tokens(batch)
    return batch


def _spelled(value: float) -> str:
    """A non-finite value as the file may have written it."""
    if math.isnan(value):
        return "null or NaN"
    return f"{'-' if value < 0 else ''}Infinity (or a number too large for a float64)"


def _check_real_tokens(batch: Batch) -> None:
    """Name the first real token (mask 1) or answer with tokens whose value is not a finite
    number. policy_loss refuses these too but cannot say where; a batch whose shapes or mask
    are wrong is left to its own, earlier message."""
    mask = batch.mask
    fields = [("logp", batch.logp), ("old_logp", batch.old_logp)]
    if batch.ref_logp is not None and batch.options.get("beta", 0.0) > 0:
        fields.append(("ref_logp", batch.ref_logp))
    if any(array.shape != mask.shape for _, array in fields):
        return
    real = mask == 1.0
    if not np.all(real | (mask == 0.0)):
        return
    for name, array in fields:
        bad = ~np.isfinite(array)
        bad &= real
        if bad.any():
            row, item = np.unravel_index(int(bad.argmax()), bad.shape)
            raise LossInputError(
                f"{batch.source}: field '{name}' row {row + 1} item {item + 1} is "
                f"{_spelled(float(array[row, item]))} at a real token (mask 1); only padding "
                "(mask 0) may hold null or NaN"
            )
    if batch.advantages.shape == mask.shape[:1]:
        bad = ~np.isfinite(batch.advantages) & real.any(axis=1)
        if bad.any():
            item = int(bad.argmax())
            raise LossInputError(
                f"{batch.source}: field 'advantages' item {item + 1} is "
                f"{_spelled(float(batch.advantages[item]))}, for an answer with real tokens"
            )


def batch_from_json(data: object, source: str) -> Batch:
    """The checked batch of a parsed FILE.json; LossInputError names the first problem."""
    return _take_batch(dict(_check_fields(data, source)), source)


def read_batch(path: str) -> Batch:
    """FILE.json, read only if it is a regular file (a FIFO or a folder is refused unread)."""
    data, source = read_json_file(Path(path), LossInputError, MAX_FILE_BYTES)
    source = visible(source)
    return _take_batch(_check_fields(data, source), source)


# --- the computation ---------------------------------------------------------------------------


def _cannot_take_options(preset: LossPreset, options: dict[str, Any]) -> bool:
    """Whether the preset's library lacks an option the batch asks for (not the input's fault)."""
    return options.get("kl_estimator", "k3") not in preset.kl_estimators


def score_presets(
    batch: Batch, presets: Sequence[LossPreset], block_positions: int = BLOCK_POSITIONS
) -> list[PresetOutcome]:
    """Each preset's result; a library that cannot take the options is "not applicable".

    Only each preset's summary is kept, computed a block of rows at a time
    (:func:`policy_loss_summary`), so memory does not grow with the number of presets or,
    beyond the arrays read, with the batch.

    Any other ValueError is the input's (a NaN at a real token, shapes that disagree, β > 0 with no
    ``ref_logp``, which no library can compute) and is raised as LossInputError, so a bad file
    fails the whole run with one line rather than filling the table with the same complaint.
    """
    outcomes: list[PresetOutcome] = []
    input_error: str | None = None
    with np.errstate(all="ignore"):  # an overflowing ratio (TRL does not clamp) is reported
        for preset in presets:
            try:
                result = policy_loss_summary(
                    batch.logp,
                    batch.old_logp,
                    batch.advantages,
                    batch.mask,
                    preset=preset,
                    ref_logp=batch.ref_logp,
                    block_positions=block_positions,
                    **batch.options,
                )
            except ValueError as error:
                if _cannot_take_options(preset, batch.options):
                    outcomes.append(PresetOutcome(preset, not_applicable=str(error)))
                    continue
                input_error = input_error or str(error)
                continue
            outcomes.append(PresetOutcome(preset, result=result))
    if input_error is not None:
        raise LossInputError(f"{batch.source}: {input_error}")
    return outcomes


def kl_mean(result: PolicyLossSummary) -> float | None:
    """The mean KL estimate over the real tokens, or None when no KL was computed (β = 0)."""
    return result.kl_mean


def net_sign_meaning(net: float, scale: float) -> str:
    """What the sign of Σ ∂loss/∂logp says: > 0 means a descent step lowers the likelihood."""
    if not math.isfinite(net):
        return "not a finite number, so its direction cannot be read (did the ratio overflow?)"
    if abs(net) <= 1e-12 * max(scale, 1.0):
        return "the pushes up and down cancel: this batch's total likelihood barely moves"
    if net > 0:
        return "this batch's likelihood is pushed down overall"
    return "this batch's likelihood is pushed up overall"


# --- output ------------------------------------------------------------------------------------


def outcomes_as_json(batch: Batch, outcomes: Sequence[PresetOutcome]) -> str:
    entries: list[dict[str, Any]] = []
    for outcome in outcomes:
        preset, result = outcome.preset, outcome.result
        if result is None:
            entries.append({"preset": preset.name, "error": outcome.not_applicable})
            continue
        grads = result.sequence_grad
        with np.errstate(all="ignore"):
            net = float(grads.sum())
        entries.append(
            {
                "preset": preset.name,
                "label": preset.label,
                "source": preset.source,
                "loss": finite_or_none(result.loss),
                "pg_loss": finite_or_none(result.pg_loss),
                "kl_loss": finite_or_none(result.kl_loss),
                "clip_fraction": finite_or_none(result.clip_fraction),
                "kl_mean": finite_or_none(kl_mean(result)),
                "sequence_grad": [finite_or_none(float(g)) for g in grads],
                "net_grad": finite_or_none(net),
            }
        )
    return json.dumps(
        {"presets": entries, "batch": {"answers": batch.answers, "tokens": batch.tokens}},
        allow_nan=False,  # strict JSON: anything not finite was written as null above
    )


def _grad(value: float) -> str:
    """A per-answer total: 4 decimals (``signed`` turns scientific for huge values), or
    scientific when 4 decimals would read as 0. Only finite values reach it: a preset whose
    numbers overflow is reported instead."""
    if value == 0.0 or abs(value) >= 5e-5:
        return signed(value, 4)
    return (f"{value:+.2e}").replace("-", MINUS)


def _overflow_reason(preset: LossPreset) -> str:
    """Why a preset's numbers can leave float64, in the library's own terms."""
    if not preset.ratio_clamp:
        return (
            f"{preset.library} does not clamp the log-ratio, so exp(logp − old_logp) overflows "
            "above 709; or the advantages are too large"
        )
    return "the advantages or log-probabilities are too large"


def _net(value: float) -> str:
    text = number(value, 3)
    return f"+{text}" if math.isfinite(value) and value > 0 else text


def _arrow(value: float) -> str:
    return "▼" if value > 0 else "▲" if value < 0 else "·"


def _settings_line(batch: Batch) -> str:
    options = batch.options
    eps_low = options.get("eps_low", 0.2)
    parts = [
        f"eps_low {number(eps_low)}",
        f"eps_high {number(options.get('eps_high', eps_low))}",
        f"clip_ratio_c {number(options.get('clip_ratio_c', 3.0))}",
        f"beta {number(options.get('beta', 0.0))}",
    ]
    if options.get("beta", 0.0) > 0:
        parts.append(f"kl_estimator {options.get('kl_estimator', 'k3')}")
    for name in ("max_completion_length", "loss_scale_factor"):
        if name in options:
            parts.append(f"{name} {number(options[name])}")
    return ", ".join(parts)


def outcomes_as_table(batch: Batch, outcomes: Sequence[PresetOutcome]) -> str:
    lines = [
        f"{batch.source}: {batch.answers} answer{'s' if batch.answers != 1 else ''}, "
        f"{batch.tokens} real token{'s' if batch.tokens != 1 else ''}; {_settings_line(batch)}",
        "Per answer: Σ_t ∂loss/∂logp. > 0 (▼): a descent step lowers that answer's likelihood; "
        "< 0 (▲): raises it.",
    ]
    for outcome in outcomes:
        preset, result = outcome.preset, outcome.result
        lines.append("")
        lines.append(f"{preset.label}  ({preset.name})")
        if result is None:
            lines.append(f"  not applicable: {outcome.not_applicable}")
            continue
        lines.append(f"  source: {preset.source}")
        if outcome.overflowed:
            lines.append(
                "  overflow: the loss or an answer's gradient is beyond float64 "
                f"({_overflow_reason(preset)}); no numbers to show"
            )
            continue
        loss = f"  loss {number(result.loss)}"
        if result.kl_mean is not None:
            loss += f" = policy {number(result.pg_loss)} + KL {number(result.kl_loss)}"
        loss += f"; clip fraction {number(result.clip_fraction)}"
        if preset.sequence_ratio:  # GSPO clips each answer's one ratio whole
            loss += " (a share of the answers)"
        mean = kl_mean(result)
        if mean is not None:
            loss += f"; mean KL {number(mean)} over real tokens"
        lines.append(loss)
        grads = [float(g) for g in result.sequence_grad]
        cells = [f"#{i} {_grad(g)} {_arrow(g)}" for i, g in enumerate(grads, start=1)]
        for start in range(0, len(cells), 8):
            lead = "  per answer: " if start == 0 else " " * len("  per answer: ")
            lines.append(lead + "   ".join(cells[start : start + 8]))
        net = float(np.sum(grads))
        scale = float(np.sum(np.abs(grads)))
        lines.append(f"  net {_net(net)}: {net_sign_meaning(net, scale)}")
    return "\n".join(lines)


# --- the command -------------------------------------------------------------------------------


def build_loss_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = AsciiArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Compute one batch's policy loss and its gradient as verl, TRL and OpenRLHF do,\n"
            "and print each answer's total Σ_t ∂loss/∂logp (> 0: its likelihood is pushed down)."
        ),
        epilog=(
            "FILE.json is one JSON object (B answers, T token positions; 1 = real token in mask):\n"
            '  {"logp": [[...], ...], "old_logp": [[...], ...], "mask": [[1, 1, 0], ...],\n'
            '   "advantages": [1.0, -0.5, ...]}\n'
            "optionally with ref_logp (B × T; needed when beta > 0) and policy_loss's options:\n"
            "  eps_low, eps_high, clip_ratio_c, beta, max_completion_length, loss_scale_factor,\n"
            "  kl_estimator (k1, k2 or k3). A padded position may hold null.\n"
            "loss_scale_factor is verl's divisor for seq-mean-token-sum-norm (default T); verl's\n"
            "  default (legacy FSDP) actor never passes it to the policy loss: it takes effect\n"
            "  only with trainer.use_legacy_worker_impl=disable.\n"
            f"Limits: {MAX_FILE_BYTES // (1024 * 1024)} MiB per file, {MAX_WIDTH:,} token "
            "positions per answer (T).\n\n"
            "presets:\n" + "\n".join(f"  {p.name:<30} {p.label}" for p in LOSS_PRESETS.values())
        ),
    )
    parser.add_argument("file", metavar="FILE.json", help="the batch, as described below")
    parser.add_argument(
        "--preset",
        "-p",
        choices=tuple(LOSS_PRESETS),
        metavar="NAME",
        help="one preset only (default: every preset); an option it cannot take is an error",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )
    return parser


def run_loss(argv: Sequence[str]) -> int:
    """Entry point of ``grpo-desktop loss``; returns the process exit status."""
    parser = build_loss_parser()
    args = parser.parse_args(list(argv))
    try:
        presets = [get_loss_preset(args.preset)] if args.preset else list(LOSS_PRESETS.values())
        batch = read_batch(args.file)
        outcomes = score_presets(batch, presets)
        if args.preset and outcomes[0].not_applicable is not None:
            raise LossInputError(
                f"{batch.source}: {args.preset} cannot take these options: "
                f"{outcomes[0].not_applicable}"
            )
        text = (
            outcomes_as_json(batch, outcomes) if args.json else outcomes_as_table(batch, outcomes)
        )
    except ValueError as error:
        write_text(f"{parser.prog}: error: {visible(str(error))}", sys.stderr)
        return 2
    write_text(text, sys.stdout)
    return 0
