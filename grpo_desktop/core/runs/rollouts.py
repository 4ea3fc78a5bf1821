"""A real run's rollouts: verl's per-step JSONL dumps and TRL's completions parquet files.

- **verl** (``trainer.rollout_data_dir``, ``RayPPOTrainer._dump_generations``) writes
  ``{dir}/{step}.jsonl``: one line per answer with ``input``, ``output``, ``gts``, ``score``
  (``token_level_scores.sum(-1)``), ``step``, then every key of ``reward_extra_infos_dict``. A
  reward function that returns a dict overwrites ``score`` with its own ``score`` key; DAPO's
  reward manager then adds its overlong penalty after it and logs it as ``overlong_reward``, so
  the reward the trainer used is ``score + overlong_reward`` (read so here). No advantage and no
  group id (verl groups by ``uid``, which it does not log): a group is the answers sharing an
  ``input`` within a step, and a prompt drawn twice in one step cannot be split back into its
  groups (rows are reordered by ``_balance_batch``), so such a step's degenerate fraction is
  unknown unless every merged group is all-equal.
- **TRL** (``log_completions=True``) writes ``completions/completions_{step:05d}.parquet``:
  ``step``, ``prompt``, ``completion`` (text; conversations as lists of ``{role, content}`` in
  later versions, shown here as chat turns), one float column per reward function (its
  ``__name__`` or a reward model's id), the numeric and other columns reward functions log with
  ``log_extra`` (v1.0+; they are not rewards), and ``advantage``. A group is ``num_generations``
  consecutive rows (TRL groups by position). The reward columns are told from the extra ones by
  TRL's layout (rewards first, float32 values) and by which split reproduces the logged
  advantages; an answer's reward is TRL's ``nansum`` with weight 1 per function, and an answer
  every function scored ``None`` (all NaN) is left out of its group as TRL ≥ 1.6 does — or
  counted as 0 as TRL ≤ 1.5 did, whichever the logged advantages show
  (:mod:`grpo_desktop.core.runs.rollout_checks`).

Files are read streaming (JSONL line by line, parquet batch by batch): only what the summary needs
is kept (per group a short prompt, a hash, the rewards, and where each answer is in the file), so
a chosen group's completions are read back on demand with :meth:`RolloutSource.group_answers`.
``pyarrow`` is imported only for parquet files (``pip install "grpo-desktop[rollouts]"``).
Pure Python + numpy; no Qt.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import os
import re
import stat
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from grpo_desktop.core.common.jsonfile import NotARegularFileError, check_regular_file
from grpo_desktop.core.runs.rollout_checks import (
    MATCH_TOLERANCE,
    check_advantages,
    dr_grpo_scale,
    normalize_then_sum,
    reproduces,
)
from grpo_desktop.core.runs.rollout_text import logged_text

__all__ = [
    "MATCH_TOLERANCE",
    "PROMPT_CHARS",
    "GroupSummary",
    "RolloutAnswer",
    "RolloutError",
    "RolloutSource",
    "StepSummary",
    "open_rollouts",
]

#: How much of each prompt's start and of its end a summary keeps (the whole prompt is only
#: hashed, for grouping). Real prompts open with a long shared chat template or system prompt and
#: end with the question, so the end is the part that tells groups apart.
PROMPT_CHARS = 200
ELISION = " … "
#: verl's fixed keys; any other numeric key of a line is an extra reward component.
VERL_REQUIRED = ("input", "output", "score")
VERL_FIXED = ("input", "output", "gts", "score", "step")
#: TRL's fixed columns; the reward functions' columns come right after ``completion``.
TRL_FIXED = ("step", "prompt", "completion", "advantage", "mode", "image", "images")
INSTALL_HINT = 'pip install "grpo-desktop[rollouts]" (or pip install pyarrow)'
HISTOGRAM_BINS = 10
_PROGRESS_INTERVAL = 0.05  # seconds: at most ~20 progress calls a second
_TRL_NAME = re.compile(r"^completions_(\d+)\.parquet$")
_VERL_NAME = re.compile(r"^(\d+)\.jsonl$")
_BATCH_ROWS = 8192
#: Rewards beyond this magnitude are refused: no reward function returns them, and their squares
#: (a std) or a step's sum would overflow float64 into inf and NaN.
MAX_REWARD_MAGNITUDE = 1e100
#: Steps are counters: a whole number a parquet int64 column can hold.
MAX_STEP = 2**63 - 1

Progress = Callable[[float], None]


class RolloutError(ValueError):
    """The rollouts cannot be read; the message names the file (and the line or row)."""


@dataclass(frozen=True)
class RolloutAnswer:
    """One answer of a group, read back from the file on demand."""

    text: str
    reward: float
    components: dict[str, float]  # each reward key (verl: score and extras; TRL: each function)
    advantage: float | None  # the logged advantage (TRL); None where none is logged (verl)
    prompt: str = ""  # the whole prompt, as logged (a conversation as "role: content" lines)
    answer_key: str | None = None  # verl's ``gts`` when it is text or a number; TRL logs none


@dataclass(frozen=True)
class GroupSummary:
    prompt: str  # the first and last PROMPT_CHARS characters, joined by ELISION when cut
    size: int
    mean: float
    degenerate: bool  # all rewards equal: no learning signal under a mean baseline
    rewards: tuple[float, ...]  # NaN: an answer no reward function scored (TRL ≥ 1.6)


@dataclass(frozen=True)
class StepSummary:
    step: int
    source: str  # the file's name
    groups: tuple[GroupSummary, ...]
    degenerate_fraction: float | None  # None: the file cannot tell (said in ``problems``)
    reward_quantiles: tuple[float, float, float, float, float]  # min, 25 %, median, 75 %, max
    reward_histogram: tuple[int, ...]  # HISTOGRAM_BINS equal bins from min to max
    convention_match: str | None = None  # TRL: the convention reproducing the advantage column
    max_abs_diff: float | None = None  # that convention's max |diff| (or the closest one's)
    problems: tuple[str, ...] = ()  # sentences: what could not be grouped or checked
    notes: tuple[str, ...] = ()  # sentences: what was left unread, and why (not a problem)

    @property
    def answers(self) -> int:
        return sum(group.size for group in self.groups)


# --- reading helpers ---------------------------------------------------------------------------


class _Throttle:
    """Calls ``progress`` with a fraction 0..1 at most every 50 ms (and always with 1.0 at end)."""

    def __init__(self, progress: Progress | None, total: float) -> None:
        self.progress = progress
        self.total = max(float(total), 1.0)
        self.last = 0.0

    def __call__(self, done: float) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if now - self.last >= _PROGRESS_INTERVAL:
            self.last = now
            self.progress(min(max(done / self.total, 0.0), 1.0))

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(1.0)


_Stamp = tuple[int, int]  # a file's size and modification time (ns), as it was read


def _stamp(info: os.stat_result) -> _Stamp:
    return info.st_size, info.st_mtime_ns


def _changed(path: Path) -> RolloutError:
    return RolloutError(f"{path.name}: the file changed since it was read; open it again")


def _open_regular(path: Path, stamp: _Stamp | None = None) -> BinaryIO:
    """The file opened for reading, refused unread if it is a FIFO, a device or a folder, or
    (given the ``stamp`` it had when first read) if it changed since."""
    try:
        check_regular_file(path)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except NotARegularFileError as error:
        raise RolloutError(f"{path.name}: cannot read the file ({error})") from error
    except OSError as error:
        raise RolloutError(
            f"{path.name}: cannot read the file ({error.strerror or error})"
        ) from error
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):  # swapped for a FIFO after the check
        os.close(descriptor)
        raise RolloutError(f"{path.name}: cannot read the file (it is not a regular file)")
    if stamp is not None and _stamp(info) != stamp:
        os.close(descriptor)
        raise _changed(path)
    if hasattr(os, "set_blocking"):
        os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def _summary_prompt(prompt: str) -> str:
    """The prompt's start and its end (the question), the middle cut when it is long."""
    if len(prompt) <= 2 * PROMPT_CHARS + len(ELISION):
        return prompt
    return prompt[:PROMPT_CHARS] + ELISION + prompt[-PROMPT_CHARS:]


def _prompt_key(prompt: str) -> bytes:
    return hashlib.blake2b(prompt.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Group:
    """verl: a group being read: short prompt, rewards and answer positions."""

    __slots__ = ("positions", "prompt", "rewards")

    def __init__(self, prompt: str) -> None:
        self.prompt = _summary_prompt(prompt)
        self.rewards = array("d")
        self.positions = array("q")  # JSONL: byte offsets; parquet: row numbers in the file


@dataclass
class _Step:
    step: int
    file: Path
    groups: dict[bytes, _Group] = field(default_factory=dict)
    last_key: bytes | None = None
    last_prompt: str | None = None
    missing_advantages: int = 0
    has_advantages: bool = False
    problems: list[str] = field(default_factory=list)  # found while reading (the file's name)
    notes: list[str] = field(default_factory=list)  # what was read differently, and why
    overlong_rows: int = 0  # verl: lines whose reward is score + overlong_reward (DAPO)
    # TRL: rows in file order, grouped afterwards by position (TRL's num_generations blocks)
    runs: list[list[Any]] = field(default_factory=list)  # [prompt key, short prompt, start, rows]
    rows: array = field(default_factory=lambda: array("q"))  # row numbers in the file
    parts: list[np.ndarray] = field(default_factory=list)  # candidate reward columns per row
    logged: array = field(default_factory=lambda: array("d"))  # the advantage column


def _step_for(steps: dict[int, _Step], step: int, file: Path) -> _Step:
    found = steps.get(step)
    if found is None:
        found = steps[step] = _Step(step, file)
    elif found.file != file:
        raise RolloutError(
            f"{file.name}: step {step} is also in {found.file.name}; keep one file per step"
        )
    return found


class _FileSteps:
    """The steps of one file's rows, in file order. Both libraries write one step per file, so
    a step whose rows come back after another step's rows is two dumps joined: refused, never
    merged into groups twice the size. Steps other than the one the file is named for are said
    (:meth:`finish`)."""

    def __init__(self, path: Path, steps: dict[int, _Step], name_step: int | None) -> None:
        self.path = path
        self.steps = steps
        self.name_step = name_step
        self.current: _Step | None = None
        self.seen: dict[int, _Step] = {}

    def entry(self, step: int, where: str) -> _Step:
        current = self.current
        if current is not None and current.step == step:
            return current
        if step in self.seen:
            raise RolloutError(
                f"{self.path.name}: {where} is step {step} again, after rows of step "
                f"{current.step if current else '?'}: the file joins separate dumps (each step's "
                "rows come in one block); split it into one file per step"
            )
        self.current = self.seen[step] = _step_for(self.steps, step, self.path)
        return self.current

    def finish(self) -> None:
        """Say so when the rows' steps are not the step in the file's name."""
        if self.name_step is None or set(self.seen) <= {self.name_step}:
            return
        listed = sorted(self.seen)
        named = ", ".join(map(str, listed[:-1])) + (" and " if len(listed) > 1 else "")
        holds = f"step{'s' * (len(listed) > 1)} {named}{listed[-1]}"
        for entry in self.seen.values():
            entry.problems.append(
                f"step {entry.step}: {self.path.name} is named for step {self.name_step} but its "
                f"rows say {holds}; each step is shown as its rows say"
            )


def _whole_step(value: object) -> int | None:
    """``value`` as a step number, or None unless it is a whole number from 0 to MAX_STEP."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    step = int(value)
    return step if 0 <= step <= MAX_STEP else None


def _described(value: object) -> str:
    """A value from a file, short enough for a one-line message (a 5,000-digit integer is not
    printed; ``repr`` of an int that long would raise)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "an integer of more than 19 digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _reward_value(value: float, where: str) -> float:
    """``value`` as a float reward, or a RolloutError (``where`` names the file, line and key)."""
    try:
        reward = float(value)
    except OverflowError:  # an integer beyond float64
        raise RolloutError(
            f"{where} is too large ({_described(value)}); rewards beyond ±{MAX_REWARD_MAGNITUDE:g} "
            "are refused"
        ) from None
    if not math.isfinite(reward):
        raise RolloutError(f"{where} must be a finite number, got {_described(value)}")
    if abs(reward) > MAX_REWARD_MAGNITUDE:
        raise RolloutError(
            f"{where} is {reward:.3g}; rewards beyond ±{MAX_REWARD_MAGNITUDE:g} are refused (no "
            "reward function gives them, and their squares overflow)"
        )
    return reward


def _add(entry: _Step, prompt: str, reward: float, position: int) -> None:
    """verl: the answer joins the group of its ``input`` (verl's ``uid`` is not logged)."""
    if prompt == entry.last_prompt:  # the rows of a group are often consecutive
        key = entry.last_key
    else:
        key = _prompt_key(prompt)
        entry.last_prompt = prompt
    group = entry.groups.get(key)
    if group is None:
        group = entry.groups[key] = _Group(prompt)
    entry.last_key = key
    group.rewards.append(reward)
    group.positions.append(position)


# --- verl JSONL --------------------------------------------------------------------------------


def _step_from_name(path: Path, pattern: re.Pattern[str]) -> int | None:
    match = pattern.match(path.name)
    return int(match.group(1)) if match else None


def _parse_line(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        reason = error.msg
    except UnicodeDecodeError:
        reason = "not valid UTF-8"
    except RecursionError:
        reason = "nested too deeply"
    except ValueError as error:  # Python refuses an integer of more than 4,300 digits
        reason = "a number has too many digits" if "digits" in str(error) else "unreadable"
    else:
        if not isinstance(record, dict):
            raise RolloutError(f"{path.name}: line {number} is not a JSON object")
        return record
    raise RolloutError(f"{path.name}: line {number} is not valid JSON ({reason})")


def _verl_score(path: Path, number: int, record: dict[str, Any]) -> float:
    missing = [key for key in VERL_REQUIRED if key not in record]
    if missing:
        raise RolloutError(
            f"{path.name}: line {number} has no {', '.join(repr(k) for k in missing)} "
            f"(a verl rollout line has {', '.join(VERL_REQUIRED)})"
        )
    if not isinstance(record["input"], str):
        raise RolloutError(f"{path.name}: line {number}: 'input' must be text")
    score = record["score"]
    if not _is_number(score):
        raise RolloutError(
            f"{path.name}: line {number}: 'score' must be a finite number, got {_described(score)}"
        )
    return _reward_value(score, f"{path.name}: line {number}: 'score'")


def _verl_reward(score: float, record: dict[str, Any], where: str) -> tuple[float, bool]:
    """The reward the trainer used, and whether it is ``score + overlong_reward``.

    verl's DAPO reward manager (``verl/workers/reward_manager/dapo.py``, ``DAPORewardManager
    .__call__``) adds ``overlong_reward`` to the reward function's score and logs it as its own
    key. When the function returned a dict, its keys overwrite the dump's ``score``
    (``_dump_generations`` writes every ``reward_extra_infos_dict`` key over the base columns),
    so ``score`` is the function's own score and the reward is the sum. When it returned a
    number, ``acc`` holds that number and ``score`` is already the sum."""
    extra = _component(record.get("overlong_reward"))
    if not extra:  # absent, or no penalty: the reward is the score either way
        return score, False
    accuracy = record.get("acc")
    if _is_number(accuracy):
        total = float(accuracy) + extra
        if abs(total - score) <= 1e-6 * max(1.0, abs(score)) and abs(score - accuracy) > 0:
            return score, False  # a number-returning function: score already holds the sum
    return _reward_value(score + extra, f"{where}: score + overlong_reward"), True


def _verl_step(path: Path, number: int, record: dict[str, Any], name_step: int | None) -> int:
    """The line's ``step``, or the file name's when the line has none."""
    value = record.get("step")
    if value is None:
        if name_step is None:
            raise RolloutError(
                f"{path.name}: line {number} has no whole-number 'step', and the file is not "
                "named {step}.jsonl"
            )
        return name_step
    step = _whole_step(value)
    if step is None:
        raise RolloutError(
            f"{path.name}: line {number}: 'step' must be a whole number from 0 to 2**63 − 1, "
            f"got {_described(value)}"
        )
    return step


def _read_verl_file(
    path: Path,
    steps: dict[int, _Step],
    throttle: _Throttle,
    done: int,
    stamps: dict[Path, _Stamp],
) -> int:
    """Adds the file's groups to ``steps``; returns the bytes read (for progress)."""
    name_step = _step_from_name(path, _VERL_NAME)
    file_steps = _FileSteps(path, steps, name_step)
    offset = 0
    lines = 0
    with _open_regular(path) as handle:
        stamps[path] = _stamp(os.fstat(handle.fileno()))
        for number, raw in enumerate(handle, start=1):
            position = offset
            offset += len(raw)
            throttle(done + offset)
            if not raw.strip():
                continue
            record = _parse_line(path, number, raw)
            score = _verl_score(path, number, record)
            reward, overlong = _verl_reward(score, record, f"{path.name}: line {number}")
            step = _verl_step(path, number, record, name_step)
            entry = file_steps.entry(step, f"line {number}")
            entry.overlong_rows += overlong
            _add(entry, record["input"], reward, position)
            lines += 1
    if lines == 0:
        raise RolloutError(f"{path.name}: the file is empty (no rollout lines)")
    file_steps.finish()
    for entry in file_steps.seen.values():
        if entry.overlong_rows:
            entry.notes.append(
                f"step {entry.step}: {entry.overlong_rows} answers have an 'overlong_reward' "
                "(DAPO's overlong buffer): their 'score' is the reward function's own score, and "
                "the reward the trainer used, read here, is score + overlong_reward"
            )
    return offset


def _component(value: object) -> float | None:
    """A numeric extra key's value as a reward component, or None if it is not one to show."""
    if not _is_number(value):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except OverflowError:
        return None
    return number if math.isfinite(number) and abs(number) <= MAX_REWARD_MAGNITUDE else None


def _verl_answer(path: Path, offset: int, handle: BinaryIO) -> RolloutAnswer:
    handle.seek(offset)
    record = _parse_line(path, 0, handle.readline())
    score = _verl_score(path, 0, record)
    reward, _ = _verl_reward(score, record, path.name)
    components = {"score": score}
    for key, value in record.items():
        if key not in VERL_FIXED:
            extra = _component(value)
            if extra is not None:
                components[key] = extra
    output = record["output"]
    truth = record.get("gts")
    return RolloutAnswer(
        text=logged_text(output),
        reward=reward,
        components=components,
        advantage=None,
        prompt=record["input"],
        answer_key=truth if isinstance(truth, str) else str(truth) if _is_number(truth) else None,
    )


# --- the parquet footer, read without pyarrow ------------------------------------------------
#
# pyarrow builds a file's Arrow schema as it opens it, from the ``ARROW:schema`` entry of the
# footer's key-value metadata; an extension type named there is rebuilt by its registered class,
# and pyarrow before 14.0.1 registered ``arrow.py_extension_type``, which unpickles (runs code:
# CVE-2023-47248). So before pyarrow sees a file, the footer is walked here (Thrift's compact
# protocol, the few lines parquet needs) and a schema that declares any extension type is
# refused: the app reads none. Anything the walk does not understand is refused as well.

_PARQUET_MAGIC = b"PAR1"
_ENCRYPTED_MAGIC = b"PARE"
_EXTENSION_KEY = b"ARROW:extension:name"
_ARROW_SCHEMA_KEY = b"ARROW:schema"
_MAX_FOOTER_BYTES = 64 * 1024 * 1024
_THRIFT_MAX_DEPTH = 64
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
_VARINT = re.compile(rb"[\x80-\xff]{0,9}[\x00-\x7f]")
_VARINT_KINDS = frozenset((4, 5, 6))  # i16, i32, i64
# Thrift compact protocol type ids (Thrift's doc/specs/thrift-compact-protocol.md).
_T_TRUE, _T_FALSE, _T_BYTE, _T_I16, _T_I32, _T_I64, _T_DOUBLE = 1, 2, 3, 4, 5, 6, 7
_T_BINARY, _T_LIST, _T_SET, _T_MAP, _T_STRUCT, _T_UUID = 8, 9, 10, 11, 12, 13
_KEY_VALUE_METADATA = 5  # FileMetaData.key_value_metadata: list<KeyValue{1: key, 2: value}>


class _FooterError(ValueError):
    """The footer is not what a parquet writer writes; the message says what is wrong."""


class _CompactReader:
    """Just enough of Thrift's compact protocol to walk a parquet footer: every value is bounded
    by the bytes left, and nesting by :data:`_THRIFT_MAX_DEPTH`. Numbers that are only skipped
    are found by a regex, not byte by byte: a footer of 10,000 row groups is megabytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.at + count > len(self.data):
            raise _FooterError("the footer ends inside a value")
        chunk = self.data[self.at : self.at + count]
        self.at += count
        return chunk

    def byte(self) -> int:
        at = self.at
        if at >= len(self.data):
            raise _FooterError("the footer ends inside a value")
        self.at = at + 1
        return self.data[at]

    def skip_varint(self) -> bytes:
        """Past one varint (at most 10 bytes, the last below 0x80); returns its bytes."""
        match = _VARINT.match(self.data, self.at)
        if match is None:
            rest = self.data[self.at : self.at + 10]
            overlong = len(rest) == 10 and all(byte & 0x80 for byte in rest)
            raise _FooterError(
                "the footer holds an overlong number"
                if overlong
                else "the footer ends inside a value"
            )
        self.at = match.end()
        return match.group()

    def varint(self) -> int:
        value = 0
        for shift, byte in enumerate(self.skip_varint()):
            value |= (byte & 0x7F) << (7 * shift)
        return value

    def fields(self) -> Iterator[tuple[int, int]]:
        """A struct's (field id, type) pairs up to its stop byte; the caller reads or skips each
        value before asking for the next."""
        field_id = 0
        while True:
            header = self.byte()
            if header == 0:
                return
            delta, kind = header >> 4, header & 0x0F
            if delta:
                field_id += delta
            else:
                zigzag = self.varint()
                field_id = (zigzag >> 1) ^ -(zigzag & 1)
            yield field_id, kind

    def binary(self) -> bytes:
        return self.take(self.varint())

    def count(self) -> int:
        """A collection's element count, which cannot exceed the bytes left (each takes one)."""
        count = self.varint()
        if count > len(self.data) - self.at:
            raise _FooterError("the footer declares more elements than it holds")
        return count

    def list_header(self) -> tuple[int, int]:
        header = self.byte()
        size = header >> 4
        return (self.count() if size == 15 else size), header & 0x0F

    def past_varint(self, at: int) -> int:
        """Where the varint at ``at`` ends."""
        found = _VARINT.match(self.data, at)
        if found is None:
            self.at = at
            self.skip_varint()  # raises, saying why
        return found.end()  # type: ignore[union-attr]

    def skip_struct(self, depth: int) -> None:
        """Past one struct: the loop every row group's column chunks go through, so its numbers,
        bools and byte strings are skipped here without a call each."""
        if depth > _THRIFT_MAX_DEPTH:
            raise _FooterError("the footer is nested too deeply")
        data, end = self.data, len(self.data)
        at = self.at
        while True:
            if at >= end:
                raise _FooterError("the footer ends inside a value")
            header = data[at]
            at += 1
            if header == 0:
                break
            kind = header & 0x0F
            if header < 0x10:  # no field id delta: the id follows as a varint
                at = self.past_varint(at)
            if kind in _VARINT_KINDS:
                at = self.past_varint(at)
            elif kind == _T_BINARY:
                self.at = at
                at = self.varint()
                at += self.at
                if at > end:
                    raise _FooterError("the footer ends inside a value")
            elif kind not in (_T_TRUE, _T_FALSE):
                self.at = at
                self.skip(kind, depth + 1)
                at = self.at
        self.at = at

    def skip(self, kind: int, depth: int = 0, in_collection: bool = False) -> None:
        if depth > _THRIFT_MAX_DEPTH:
            raise _FooterError("the footer is nested too deeply")
        if kind in (_T_I16, _T_I32, _T_I64):
            self.skip_varint()
        elif kind == _T_BINARY:
            self.take(self.varint())
        elif kind == _T_STRUCT:
            self.skip_struct(depth)
        elif kind in (_T_LIST, _T_SET):
            size, element = self.list_header()
            if element in _VARINT_KINDS:  # encodings, offsets: skipped without a call each
                at = self.at
                for _ in range(size):
                    at = self.past_varint(at)
                self.at = at
            elif element == _T_STRUCT:  # row groups, column chunks
                for _ in range(size):
                    self.skip_struct(depth + 1)
            else:
                for _ in range(size):
                    self.skip(element, depth + 1, in_collection=True)
        elif kind in (_T_TRUE, _T_FALSE):
            if in_collection:  # a struct field's bool is in its type; an element's is a byte
                self.byte()
        elif kind == _T_BYTE:
            self.byte()
        elif kind == _T_DOUBLE:
            self.take(8)
        elif kind == _T_UUID:
            self.take(16)
        elif kind == _T_MAP:
            size = self.count()
            if size:
                kinds = self.byte()
                for _ in range(size):
                    self.skip(kinds >> 4, depth + 1, in_collection=True)
                    self.skip(kinds & 0x0F, depth + 1, in_collection=True)
        else:
            raise _FooterError(f"the footer holds an unknown Thrift type {kind}")


def _footer_bytes(handle: BinaryIO) -> bytes:
    """The Thrift-encoded FileMetaData at the end of a parquet file."""
    size = handle.seek(0, os.SEEK_END)
    if size < 12:
        raise _FooterError("it is too short to be parquet")
    handle.seek(size - 8)
    tail = handle.read(8)
    if tail[4:] == _ENCRYPTED_MAGIC:
        raise _FooterError("its footer is encrypted")
    if tail[4:] != _PARQUET_MAGIC:
        raise _FooterError("it does not end with parquet's PAR1 marker")
    length = int.from_bytes(tail[:4], "little")
    if length > min(size - 12, _MAX_FOOTER_BYTES):
        raise _FooterError(f"its footer claims {length:,} bytes")
    handle.seek(size - 8 - length)
    return handle.read(length)


def _key_values(footer: bytes) -> list[tuple[list[bytes], list[bytes]]]:
    """Every entry of FileMetaData.key_value_metadata as (keys, values): a struct that repeats a
    field keeps each copy, so nothing another reader might pick is left unchecked."""
    reader = _CompactReader(footer)
    entries: list[tuple[list[bytes], list[bytes]]] = []
    for field_id, kind in reader.fields():
        if field_id != _KEY_VALUE_METADATA or kind != _T_LIST:
            reader.skip(kind)
            continue
        size, element = reader.list_header()
        if element != _T_STRUCT:
            raise _FooterError("its key-value metadata is not a list of pairs")
        for _ in range(size):
            keys: list[bytes] = []
            values: list[bytes] = []
            for entry_field, entry_kind in reader.fields():
                if entry_kind == _T_BINARY and entry_field in (1, 2):
                    (keys if entry_field == 1 else values).append(reader.binary())
                else:
                    reader.skip(entry_kind, 1)
            entries.append((keys, values))
    return entries


def _declares_extension_type(serialized_schema: bytes) -> bool:
    """Whether an ``ARROW:schema`` value names an extension type anywhere (a field, a nested
    child, the schema): the IPC flatbuffer keeps every metadata key as its plain bytes."""
    if _EXTENSION_KEY in serialized_schema:
        return True
    if _BASE64.fullmatch(serialized_schema) is None:
        raise _FooterError("its stored Arrow schema is not base64")
    try:
        decoded = base64.b64decode(serialized_schema + b"=" * (-len(serialized_schema) % 4))
    except binascii.Error:
        raise _FooterError("its stored Arrow schema is not base64") from None
    return _EXTENSION_KEY in decoded


#: Digests of footers walked and found plain: a folder is opened twice (row counts, then rows)
#: and each group again, and a footer of many row groups takes a second to walk but a
#: millisecond to read and hash. Keyed by content, so a file rewritten in place is walked again.
_PLAIN_FOOTERS: set[bytes] = set()
_PLAIN_FOOTERS_KEPT = 4096


def _refuse_extension_types(path: Path, handle: BinaryIO) -> None:
    """Raise unless the file's stored Arrow schema is plain columns; reads only the footer."""
    try:
        footer = _footer_bytes(handle)
        digest = hashlib.blake2b(footer, digest_size=16).digest()
        if digest in _PLAIN_FOOTERS:
            return
        for keys, values in _key_values(footer):
            if _ARROW_SCHEMA_KEY in keys and any(map(_declares_extension_type, values)):
                raise RolloutError(
                    f"{path.name}: refused unread: its schema declares an Arrow extension type "
                    "(ARROW:extension:name), which this app does not read and which pyarrow "
                    "before 14.0.1 would unpickle, running code from the file"
                )
    except _FooterError as error:
        raise RolloutError(f"{path.name}: not a readable parquet file ({error})") from None
    finally:
        handle.seek(0)
    if len(_PLAIN_FOOTERS) >= _PLAIN_FOOTERS_KEPT:
        _PLAIN_FOOTERS.clear()
    _PLAIN_FOOTERS.add(digest)


def _extension_column(schema: Any) -> tuple[str, str] | None:
    """The first column (or nested child) whose type pyarrow built as an extension type, e.g.
    from a parquet logical type it maps to one; None when every type is plain."""
    import pyarrow as pa

    def children(data_type: Any) -> list[tuple[str, Any]]:
        found = [
            (name, getattr(data_type, name))
            for name in ("value_type", "key_type", "item_type")
            if hasattr(data_type, name)
        ]
        if isinstance(data_type, (pa.StructType, pa.UnionType)):
            found += [(f.name, f.type) for f in (data_type[i] for i in range(data_type.num_fields))]
        return found

    pending = [(f.name, f.type, 0) for f in schema]
    while pending:
        where, data_type, depth = pending.pop(0)
        if isinstance(data_type, pa.BaseExtensionType):
            return where, str(data_type.extension_name)
        if depth < _THRIFT_MAX_DEPTH:
            pending += [(f"{where}.{n}", t, depth + 1) for n, t in children(data_type)]
    return None


# --- TRL parquet -------------------------------------------------------------------------------


def _pyarrow(path: Path) -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet as parquet
    except ImportError:
        raise RolloutError(
            f"{path.name}: reading TRL's parquet files needs pyarrow: {INSTALL_HINT}"
        ) from None
    return parquet


def _parquet_file(path: Path, stamp: _Stamp | None = None) -> tuple[Any, BinaryIO]:
    """The file opened by pyarrow, after its footer was checked for extension types (pyarrow
    reads the handle that was checked, so a file swapped in between is never opened).
    ``stamp``: the file as it was first read; a file that changed since is refused."""
    parquet = _pyarrow(path)
    handle = _open_regular(path, stamp)
    try:
        _refuse_extension_types(path, handle)
        parquet_file = parquet.ParquetFile(handle)
        extension = _extension_column(parquet_file.schema_arrow)
    except RolloutError:
        handle.close()
        raise
    except Exception as error:  # pyarrow's ArrowInvalid / OSError for a file that is not parquet
        handle.close()
        raise RolloutError(f"{path.name}: not a readable parquet file ({error})") from None
    if extension is not None:
        handle.close()
        column, name = extension
        raise RolloutError(
            f"{path.name}: column {column!r} has the Arrow extension type {name!r}, which this "
            "app does not read"
        )
    return parquet_file, handle


@dataclass(frozen=True)
class _TrlColumns:
    """A TRL file's columns: ``candidates`` are the numeric columns right after ``completion``
    (TRL writes ``step, prompt, completion, *reward functions, *log_extra columns, advantage``),
    of which the first ``k`` are the reward functions' — ``k`` is decided per step
    (:func:`_trl_layout`)."""

    candidates: list[str]  # numeric, in file order, up to the first column of another kind
    floating: list[bool]  # each candidate's type is float (TRL's reward columns always are)
    ignored: list[tuple[str, str]]  # (column, what it holds): neither fixed nor numeric
    has_advantage: bool
    has_step: bool

    def ignored_text(self) -> str:
        return ", ".join(f"{name!r} ({kind})" for name, kind in self.ignored)


def _column_kind(data_type: Any) -> str:
    import pyarrow as pa

    if pa.types.is_boolean(data_type):
        return "true/false"
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return "text"
    if pa.types.is_decimal(data_type):
        return "decimal"
    return str(data_type)


def _trl_columns(path: Path, schema: Any) -> _TrlColumns:
    """The candidate reward columns, the columns left unread, and whether ``advantage`` and
    ``step`` are there."""
    import pyarrow as pa

    names = schema.names
    missing = [name for name in ("prompt", "completion") if name not in names]
    if missing:
        raise RolloutError(
            f"{path.name}: no {' or '.join(repr(m) for m in missing)} column (a TRL completions "
            "file has step, prompt, completion, one column per reward function and advantage)"
        )
    candidates: list[str] = []
    floating: list[bool] = []
    ignored: list[tuple[str, str]] = []
    after_advantage = False
    for column in schema:
        if column.name == "advantage":
            after_advantage = True
        if column.name in TRL_FIXED:
            continue
        numeric = pa.types.is_floating(column.type) or pa.types.is_integer(column.type)
        if numeric and not ignored and not after_advantage:
            candidates.append(column.name)
            floating.append(bool(pa.types.is_floating(column.type)))
        else:
            ignored.append((column.name, _column_kind(column.type)))
    columns = _TrlColumns(candidates, floating, ignored, "advantage" in names, "step" in names)
    if not candidates:
        unread = f"; not read: {columns.ignored_text()}" if ignored else ""
        raise RolloutError(
            f"{path.name}: no reward column (a float or integer column named after a reward "
            f"function){unread}"
        )
    return columns


def _float_column(batch: Any, name: str) -> np.ndarray:
    import pyarrow as pa

    return batch.column(name).cast(pa.float64()).to_numpy(zero_copy_only=False)


def _check_rewards(
    path: Path, rows: Sequence[int], components: np.ndarray, names: list[str]
) -> None:
    """Refuse an infinite reward, or one beyond ±MAX_REWARD_MAGNITUDE (NaN is TRL's "does not
    apply"), naming its row (``rows``: each row's number in the file) and column."""
    with np.errstate(invalid="ignore"):
        bad = np.isinf(components) | (np.abs(components) > MAX_REWARD_MAGNITUDE)
    if not bad.any():
        return
    i, j = (int(k[0]) for k in np.nonzero(bad))
    value = float(components[i, j])
    where = f"{path.name}: row {rows[i] + 1}: reward {names[j]!r}"
    if math.isinf(value):
        raise RolloutError(f"{where} is infinite")
    raise RolloutError(
        f"{where} is {value:.3g}; rewards beyond ±{MAX_REWARD_MAGNITUDE:g} are refused (no "
        "reward function gives them, and their squares overflow)"
    )


def _float32_exact(values: np.ndarray) -> np.ndarray:
    """Per column: every value is a float32 value (or NaN), as TRL's reward columns are (they
    are ``rewards_per_func[:, i].tolist()`` of a float32 tensor)."""
    with np.errstate(over="ignore", invalid="ignore"):
        same = values.astype(np.float32).astype(np.float64) == values
    return np.all(same | np.isnan(values), axis=0)


def _read_trl_file(
    path: Path,
    steps: dict[int, _Step],
    throttle: _Throttle,
    done: int,
    stamps: dict[Path, _Stamp],
    layouts: dict[Path, tuple[_TrlColumns, np.ndarray]],
) -> int:
    """Adds the file's rows to ``steps`` (grouped later); returns the rows read (progress)."""
    file_steps = _FileSteps(path, steps, _step_from_name(path, _TRL_NAME))
    parquet_file, handle = _parquet_file(path)
    with handle:
        stamps[path] = _stamp(os.fstat(handle.fileno()))
        layout = _trl_columns(path, parquet_file.schema_arrow)
        candidates = layout.candidates
        exact = np.ones(len(candidates), dtype=bool)
        columns = ["prompt", *candidates]
        if layout.has_advantage:
            columns.append("advantage")
        if layout.has_step:
            columns.append("step")
        if parquet_file.metadata.num_rows == 0:
            raise RolloutError(f"{path.name}: the file is empty (no rows)")
        row = 0
        try:
            batches = parquet_file.iter_batches(batch_size=_BATCH_ROWS, columns=columns)
            for batch in batches:
                prompts = batch.column("prompt").to_pylist()
                components = np.column_stack([_float_column(batch, n) for n in candidates])
                # the first column is a reward function's in every TRL layout: checked now
                _check_rewards(path, range(row, row + len(prompts)), components[:, :1], candidates)
                exact &= _float32_exact(components)
                advantages = (
                    _float_column(batch, "advantage").tolist() if layout.has_advantage else None
                )
                row_steps = batch.column("step").to_pylist() if layout.has_step else None
                _add_trl_rows(file_steps, row, prompts, components, advantages, row_steps)
                row += len(prompts)
                throttle(done + row)
        except RolloutError:
            raise
        except Exception as error:  # a corrupt page, an unexpected type
            raise RolloutError(
                f"{path.name}: cannot read the rows after row {row} ({error})"
            ) from None
    file_steps.finish()
    layouts[path] = (layout, exact)
    if layout.ignored:
        plural = "s" if len(layout.ignored) > 1 else ""
        for entry in file_steps.seen.values():
            entry.notes.append(
                f"step {entry.step}: column{plural} not read as rewards: "
                f"{layout.ignored_text()} (a reward function's column holds float or integer "
                "scores)"
            )
    return row


def _prompt_text(prompt: object) -> str:
    """A logged prompt as text: a conversation (TRL's list of messages) as its turns."""
    return logged_text(prompt)


def _add_trl_rows(
    file_steps: _FileSteps,
    first_row: int,
    prompts: list[object],
    components: np.ndarray,
    advantages: list[float] | None,
    row_steps: list[object] | None,
) -> None:
    """One batch's rows, each to its step: runs of one prompt, row numbers, the candidate
    columns and the logged advantage."""
    path = file_steps.path
    start = 0
    while start < len(prompts):
        row = first_row + start
        step_value = None if row_steps is None else row_steps[start]
        if step_value is None:
            step = file_steps.name_step
            if step is None:
                raise RolloutError(
                    f"{path.name}: row {row + 1} has no whole-number step, and the file is not "
                    "named completions_N.parquet"
                )
        else:
            step = _whole_step(step_value)
            if step is None:
                raise RolloutError(
                    f"{path.name}: row {row + 1}: 'step' must be a whole number from 0 to "
                    f"2**63 − 1, got {_described(step_value)}"
                )
        entry = file_steps.entry(step, f"row {row + 1}")
        end = start + 1  # the rows of this step in this batch
        while end < len(prompts) and (row_steps is None or row_steps[end] == step_value):
            end += 1
        for i in range(start, end):
            prompt = prompts[i]
            if prompt is None:
                raise RolloutError(
                    f"{path.name}: row {first_row + i + 1} has no prompt, so it cannot be grouped"
                )
            text = _prompt_text(prompt)
            run = entry.runs[-1] if entry.runs else None
            if run is None or text != entry.last_prompt:
                entry.last_prompt = text
                entry.runs.append([_prompt_key(text), _summary_prompt(text), len(entry.rows), 1])
            else:
                run[3] += 1
            entry.rows.append(first_row + i)
        entry.parts.append(components[start:end])
        if advantages is not None:
            entry.has_advantages = True
            chunk = advantages[start:end]
            entry.logged.extend(chunk)
            entry.missing_advantages += sum(1 for a in chunk if not math.isfinite(a))
        start = end


def _answer_reward(components: dict[str, float], nan_excluded: bool) -> float:
    values = list(components.values())
    if nan_excluded and values and all(math.isnan(v) for v in values):
        return math.nan  # TRL ≥ 1.6: no function scored this answer
    return float(np.nansum(values)) if values else 0.0


def _trl_answers(
    path: Path, parquet_file: Any, rows: list[int], rewards: list[str], nan_excluded: bool
) -> list[RolloutAnswer]:
    """The answers at ``rows`` (row numbers in the file), in that order, with the reward
    columns ``rewards`` (the split the step was read with)."""
    layout = _trl_columns(path, parquet_file.schema_arrow)
    if any(name not in layout.candidates for name in rewards):
        raise _changed(path)
    columns = ["prompt", "completion", *rewards]
    if layout.has_advantage:
        columns.append("advantage")
    wanted = set(rows)
    found: dict[int, RolloutAnswer] = {}
    start = 0
    for batch in parquet_file.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
        end = start + batch.num_rows
        inside = [row for row in rows if start <= row < end]
        if inside:
            texts = batch.column("completion")
            prompts = batch.column("prompt")
            values = {name: _float_column(batch, name) for name in rewards}
            advantages = _float_column(batch, "advantage") if layout.has_advantage else None
            for row in inside:
                i = row - start
                components = {name: float(values[name][i]) for name in rewards}
                advantage = None if advantages is None else float(advantages[i])
                found[row] = RolloutAnswer(
                    text=logged_text(texts[i].as_py()),
                    reward=_answer_reward(components, nan_excluded),
                    components=components,
                    advantage=advantage if advantage is None or math.isfinite(advantage) else None,
                    prompt=_prompt_text(prompts[i].as_py()),
                )
        start = end
        if len(found) == len(wanted):
            break
    if len(found) != len(wanted):  # rows removed since the file was read
        raise _changed(path)
    return [found[row] for row in rows]


# --- summaries ---------------------------------------------------------------------------------


def _distribution(rewards: np.ndarray) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """Quantiles and histogram of the rewards some function gave (NaN: none did)."""
    rewards = rewards[~np.isnan(rewards)]
    if rewards.size == 0:
        return (math.nan,) * 5, (0,) * HISTOGRAM_BINS
    quantiles = tuple(float(q) for q in np.quantile(rewards, (0.0, 0.25, 0.5, 0.75, 1.0)))
    low, high = quantiles[0], quantiles[-1]
    if high > low:
        counts, _ = np.histogram(rewards, bins=HISTOGRAM_BINS, range=(low, high))
    else:
        counts = np.zeros(HISTOGRAM_BINS, dtype=int)
        counts[0] = rewards.size
    return quantiles, tuple(int(c) for c in counts)


def _flat(parts: Iterable[array]) -> np.ndarray:
    return np.concatenate([np.frombuffer(part, dtype=np.float64) for part in parts])


def _group_summary(prompt: str, values: tuple[float, ...]) -> GroupSummary:
    """A group's mean and whether it is degenerate, over the answers some function scored."""
    scored = [v for v in values if v == v]
    return GroupSummary(
        prompt=prompt,
        size=len(values),
        mean=math.fsum(scored) / len(scored) if scored else math.nan,
        degenerate=all(v == scored[0] for v in scored),
        rewards=values,
    )


def _usual(sizes: list[int]) -> int:
    return max(set(sizes), key=lambda s: (sizes.count(s), s))


def _sizes_problem(step: int, sizes: list[int], usual: int, odd: list[int]) -> str:
    shown = ", ".join(f"#{i} has {sizes[i - 1]}" for i in odd[:5])
    more = f" and {len(odd) - 5} more" if len(odd) > 5 else ""
    return f"step {step}: group sizes differ: most groups have {usual} answers, but {shown}{more}"


def _quote(prompt: str) -> str:
    return repr(_one_line(prompt)[:60])


@dataclass
class _Summary:
    """A step read and summarised, with what reading its groups back needs."""

    summary: StepSummary
    positions: list[array]
    keys: list[bytes]
    layout: tuple[list[str], bool] | None = None  # TRL: reward columns, NaN rows left out
    digest: bytes = b""  # TRL: the step's rows, to find a generation batch logged twice


def _summarise_verl(entry: _Step) -> _Summary:
    groups = list(entry.groups.values())
    problems: list[str] = list(entry.problems)
    floats: dict[float, float] = {}  # one object per distinct reward (most are 0 or 1)
    summaries = [
        _group_summary(group.prompt, tuple([floats.setdefault(v, v) for v in group.rewards]))
        for group in groups
    ]
    sizes = [s.size for s in summaries]
    common = math.gcd(*sizes)  # rollout.n divides every size when a prompt is drawn k times
    usual = common if common >= 2 and common in sizes else _usual(sizes)
    merged = [i for i, n in enumerate(sizes) if n > usual and n % usual == 0]
    odd = [i for i, n in enumerate(sizes, start=1) if n % usual]
    if odd:
        problems.append(_sizes_problem(entry.step, sizes, usual, odd))
    for i in merged[:3]:
        problems.append(
            f"step {entry.step}: the prompt {_quote(summaries[i].prompt)} has {sizes[i]} answers, "
            f"{sizes[i] // usual} groups of {usual}: it was drawn {sizes[i] // usual} times, and "
            "verl groups answers by 'uid', which its dump does not log (and balance_batch "
            "reorders the rows), so they are shown as one group"
        )
    draws = [sizes[i] // usual if i in merged else 1 for i in range(len(summaries))]
    fraction: float | None
    if any(not summaries[i].degenerate for i in merged):
        fraction = None
        problems.append(
            f"step {entry.step}: the degenerate fraction is unknown: a prompt drawn more than once "
            "has answers with different rewards, and the file cannot tell which of its groups "
            "have a learning signal"
        )
    else:  # an all-equal merged group: each of its groups is all-equal too
        fraction = sum(d for d, s in zip(draws, summaries) if s.degenerate) / sum(draws)
    all_rewards = _flat(g.rewards for g in groups)
    for group in groups:  # only the positions are kept, to read a group's answers back
        group.rewards = array("d")
    quantiles, histogram = _distribution(all_rewards)
    summary = StepSummary(
        step=entry.step,
        source=entry.file.name,
        groups=tuple(summaries),
        degenerate_fraction=fraction,
        reward_quantiles=quantiles,  # type: ignore[arg-type]
        reward_histogram=histogram,
        problems=tuple(problems),
        notes=tuple(entry.notes),
    )
    return _Summary(summary, [g.positions for g in groups], list(entry.groups))


def _trl_groups(entry: _Step, size: int) -> tuple[list[tuple[bytes, str, int, int]], list[str]]:
    """TRL's groups: blocks of ``size`` consecutive rows (``RepeatSampler`` repeats each prompt
    ``num_generations`` times in a row, and the advantages are ``rewards.view(-1, G)``). A
    prompt drawn twice in a row is split into its blocks; a run of another length stays whole.
    Returns (prompt key, short prompt, first row, rows) per group and notes."""
    groups: list[tuple[bytes, str, int, int]] = []
    split: list[str] = []
    for key, prompt, start, rows in entry.runs:
        if rows > size and rows % size == 0:
            groups.extend((key, prompt, start + k, size) for k in range(0, rows, size))
            if len(split) < 3:
                split.append(
                    f"step {entry.step}: the prompt {_quote(prompt)} has {rows} consecutive rows: "
                    f"drawn {rows // size} times in a row, it is {rows // size} groups of {size} "
                    "(TRL groups by position, num_generations rows each)"
                )
        else:
            groups.append((key, prompt, start, rows))
    return groups, split


def _eval_batch(entry: _Step, sizes: list[int], usual: int) -> str | None:
    """Why the step's rows look like an evaluation batch, or None.

    TRL's ``log`` writes ``completions_{global_step}.parquet`` from the last
    ``generation_batch_size`` rows it logged; an evaluation at that step logs its own rows
    (``num_generations_eval`` per prompt) and writes the same file again, over the training
    one. What remains starts with the end of the training batch, cut wherever the deque cut it,
    then the evaluation's groups."""
    if len(sizes) < 2:
        return None
    head = sizes[0] if sizes[0] < usual else None  # a group the deque cut at its start
    whole = 1 if head is not None else 0
    while whole < len(sizes) and sizes[whole] == usual:
        whole += 1
    tail = sizes[whole:]
    if tail and len(set(tail)) != 1:
        return None
    if not tail and head is None:
        return None
    kept = sum(sizes[:whole])
    cut = f" (a group cut to {head} of {usual} answers)" if head is not None else ""
    if not tail:
        return (
            f"its first {head} rows are the end of an earlier batch{cut}, the other "
            f"{kept - head} in groups of {usual}"  # type: ignore[operator]
        )
    return (
        f"its first {kept} rows are the end of a training batch{cut}, the other {sum(tail)} "
        f"the evaluation's groups of {tail[0]} (num_generations_eval)"
    )


def _admissible(layout: _TrlColumns, exact: np.ndarray) -> int:
    """How many leading candidate columns can be reward functions': TRL's are float columns of
    float32 values; the first one is always a reward function's."""
    count = 1
    while count < len(layout.candidates) and layout.floating[count] and bool(exact[count]):
        count += 1
    return count


def _rewards(components: np.ndarray, count: int, nan_excluded: bool) -> np.ndarray:
    chosen = components[:, :count]
    with np.errstate(invalid="ignore"):
        rewards = np.nansum(chosen, axis=1)
    if nan_excluded:
        rewards[np.isnan(chosen).all(axis=1)] = np.nan
    return rewards


def _summarise_trl(entry: _Step, layout: _TrlColumns, exact: np.ndarray, usual: int) -> _Summary:
    problems: list[str] = list(entry.problems)
    notes: list[str] = list(entry.notes)
    components = np.concatenate(entry.parts) if entry.parts else np.zeros((0, 1))
    logged = np.frombuffer(entry.logged, dtype=np.float64) if entry.has_advantages else None
    rows = np.frombuffer(entry.rows, dtype=np.int64)
    groups, split = _trl_groups(entry, usual)
    notes.extend(split)
    sizes = [n for *_, n in groups]
    odd = [i for i, n in enumerate(sizes, start=1) if n != usual]
    evaluation = _eval_batch(entry, sizes, usual) if odd else None
    if evaluation is not None:
        problems.append(
            f"step {entry.step}: {entry.file.name} holds an evaluation batch: TRL's evaluation "
            "writes its completions under the step it ran at, over that step's training file, "
            f"keeping the last generation_batch_size rows; {evaluation}. The step's training "
            "groups are not all in the file, so its degenerate fraction is unknown and the "
            "logged advantages were not checked"
        )
    elif odd:
        problems.append(_sizes_problem(entry.step, sizes, usual, odd))
    most = _admissible(layout, exact)
    unscored_at = {
        count: np.isnan(components[:, :count]).all(axis=1) for count in range(1, most + 1)
    }
    checkable = not odd and logged is not None
    match: str | None = None
    diff: float | None = None
    chosen: tuple[int, bool] | None = None

    def modes(count: int) -> list[bool]:
        unscored = unscored_at[count]
        if not unscored.any():
            return [True]
        if logged is None or bool(np.all(logged[unscored] == 0)):
            return [True, False]  # advantage 0: TRL ≥ 1.6's nan_to_num
        return [False, True]

    shape = (len(groups), usual)
    if not checkable and logged is None:
        problems.append(f"step {entry.step}: no 'advantage' column, so nothing to check")
    elif not checkable and evaluation is None:
        problems.append(
            f"step {entry.step}: the logged advantages were not checked: the rows do not "
            "split into groups of one size"
        )
    elif checkable:
        if entry.missing_advantages:
            problems.append(
                f"step {entry.step}: {entry.missing_advantages} rows have no advantage (NaN); "
                "the others were checked"
            )
        target = logged.reshape(shape)  # type: ignore[union-attr]
        fallback: tuple[float | None, tuple[int, bool]] | None = None
        for count in range(most, 0, -1):
            for nan_excluded in modes(count):
                rewards = _rewards(components, count, nan_excluded).reshape(shape)
                name, closest = check_advantages(rewards, target)
                if fallback is None:
                    fallback = (closest, (count, nan_excluded))
                if name is not None:
                    match, diff, chosen = name, closest, (count, nan_excluded)
                    break
            if chosen is not None:
                break
        if chosen is None and fallback is not None:
            diff, chosen = fallback
    if chosen is None:
        chosen = (most, modes(most)[0])
    count, nan_excluded = chosen
    names = layout.candidates[:count]
    _check_rewards(entry.file, rows, components[:, :count], names)
    rewards = _rewards(components, count, nan_excluded)
    unscored = int(unscored_at[count].sum())
    if unscored:
        notes.append(
            f"step {entry.step}: {unscored} answer{'s' * (unscored != 1)} no reward function "
            + (
                "scored (every reward column NaN) are left out of their group's mean and std, "
                "advantage 0, as TRL ≥ 1.6 does"
                if nan_excluded
                else "scored (every reward column NaN) count as reward 0, as TRL ≤ 1.5's nansum "
                "made them (the logged advantages show it)"
            )
        )
    extra = layout.candidates[count:]
    if extra:
        notes.append(_extras_note(entry.step, layout, exact, count, match is not None))
    elif count > 1 and logged is None:
        notes.append(
            f"step {entry.step}: {', '.join(map(repr, names))} are read as reward functions; "
            "TRL ≥ 1.0 also logs numeric log_extra columns after them, and without an "
            "'advantage' column the file cannot tell them apart"
        )
    if checkable and match is None and diff is not None:
        hint = _mismatch_hint(
            components[:, :count].reshape(*shape, count),
            rewards.reshape(shape),
            logged.reshape(shape),  # type: ignore[union-attr]
            nan_excluded,
            unscored,
            extra if count < len(layout.candidates) else [],
        )
        problems.append(
            f"step {entry.step}: no convention reproduces the logged advantages "
            f"(closest max |difference| {diff:.3g}); {hint}"
        )
    floats: dict[float, float] = {}
    summaries = []
    positions = []
    for _key, prompt, start, n in groups:
        values = tuple(floats.setdefault(v, v) for v in rewards[start : start + n].tolist())
        summaries.append(_group_summary(prompt, values))
        positions.append(array("q", rows[start : start + n].tolist()))
    fraction = (
        None if evaluation is not None else sum(s.degenerate for s in summaries) / len(summaries)
    )
    quantiles, histogram = _distribution(rewards)
    digest = hashlib.blake2b(digest_size=16)
    for key, _prompt, _start, n in groups:
        digest.update(key + n.to_bytes(8, "little"))
    digest.update(np.ascontiguousarray(components).tobytes())
    if logged is not None:
        digest.update(logged.tobytes())
    summary = StepSummary(
        step=entry.step,
        source=entry.file.name,
        groups=tuple(summaries),
        degenerate_fraction=fraction,
        reward_quantiles=quantiles,  # type: ignore[arg-type]
        reward_histogram=histogram,
        convention_match=match,
        max_abs_diff=diff,
        problems=tuple(problems),
        notes=tuple(notes),
    )
    keys = [key for key, *_ in groups]
    return _Summary(summary, positions, keys, (names, nan_excluded), digest.digest())


def _extras_note(
    step: int, layout: _TrlColumns, exact: np.ndarray, count: int, reproduced: bool
) -> str:
    """Why the numeric columns after the first ``count`` are not read as rewards."""
    reasons = []
    for i in range(count, len(layout.candidates)):
        name = repr(layout.candidates[i])
        if not layout.floating[i]:
            reasons.append(f"{name} (whole numbers: TRL's reward columns are floats)")
        elif not exact[i]:
            reasons.append(f"{name} (not float32 values, which TRL's reward columns are)")
        else:
            reasons.append(name)
    why = (
        "; the reward columns before them reproduce the logged advantages"
        if reproduced and any(r.endswith("'") for r in reasons)
        else ""
    )
    return (
        f"step {step}: read as extra logged columns (TRL ≥ 1.0's log_extra, written after the "
        f"reward functions' columns), not summed into the reward: {', '.join(reasons)}{why}"
    )


def _mismatch_hint(
    components: np.ndarray,
    rewards: np.ndarray,
    logged: np.ndarray,
    nan_excluded: bool,
    unscored: int,
    extra: list[str],
) -> str:
    """The likeliest reason no convention reproduces the logged advantages, from the file."""
    largest = float(np.nanmax(np.abs(components))) if np.isfinite(components).any() else 1.0
    for excluded in (nan_excluded, not nan_excluded):
        if reproduces(normalize_then_sum(components, excluded), logged, largest):
            return (
                'they are TRL\'s multi_objective_aggregation="normalize_then_sum" (each reward '
                "function normalized within its group, the sum then normalized over the "
                "batch), not a convention of the summed rewards"
            )
    factor = dr_grpo_scale(rewards, logged)
    if factor is not None:
        return (
            f'they are {factor:.4g} × (reward − group mean): TRL\'s scale_rewards="none" (the '
            f"Dr. GRPO convention) with the rewards weighted by {factor:.4g} (reward_weights?)"
        )
    causes = []
    if unscored:
        causes.append(
            f"{unscored} answers no reward function scored: neither TRL ≥ 1.6's rule (left out, "
            "advantage 0) nor TRL ≤ 1.5's (reward 0) reproduces them"
        )
    if extra:
        causes.append(
            f"columns {', '.join(map(repr, extra))} may be reward functions or log_extra "
            "columns, and no split of them reproduces the advantages"
        )
    if components.shape[2] > 1:
        causes.append("were the reward functions weighted (reward_weights other than 1)?")
    else:
        causes.append(
            "is the reward column the reward the trainer used (a reward weight, or a reward "
            "model's output rescaled)?"
        )
    return "; ".join(causes)


def _repeat_note(step: int, earlier: int) -> str:
    return (
        f"step {step}: the same rows as step {earlier}: TRL logs its latest generation batch at "
        "every logging step, and with num_iterations > 1 (or steps_per_generation above "
        "gradient_accumulation_steps) one generation batch is trained on over several steps"
    )


def _with_note(summary: StepSummary, note: str) -> StepSummary:
    from dataclasses import replace

    return replace(summary, notes=(*summary.notes, note))


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- the source --------------------------------------------------------------------------------


class RolloutSource:
    """The summaries of one run's rollouts (a file or a folder), and its answers on demand."""

    def __init__(
        self,
        path: Path,
        format: str,
        steps: tuple[StepSummary, ...],
        index: dict[int, Any],
        stamps: dict[Path, _Stamp] | None = None,
    ) -> None:
        self.path = path
        self.format = format  # "verl" or "trl"
        self.steps = steps
        # step -> (file, [positions per group], [prompt key per group], TRL: (reward columns,
        # whether an answer no function scored is left out))
        self._index = index
        self._stamps = stamps or {}  # file -> its size and mtime when read

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(problem for step in self.steps for problem in step.problems)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(note for step in self.steps for note in step.notes)

    def step(self, step: int) -> StepSummary:
        _check_int(step, "step")
        for summary in self.steps:
            if summary.step == step:
                return summary
        available = ", ".join(str(s.step) for s in self.steps)
        raise RolloutError(f"{self.path.name}: no step {step}; the steps are {available}")

    def group_answers(self, step: int, group_index: int) -> list[RolloutAnswer]:
        """The answers of one group (``group_index`` counts from 0), read back from the file.

        A file that changed since it was read (another size or time, rows gone, other prompts)
        is one RolloutError saying so, never another group's answers or a KeyError."""
        self.step(step)
        _check_int(group_index, "group_index")
        file, positions, keys, layout = self._index[step]
        if not 0 <= group_index < len(positions):
            raise RolloutError(
                f"{file.name}: step {step} has {len(positions)} groups; no group {group_index}"
            )
        wanted = list(positions[group_index])
        stamp = self._stamps.get(file)
        # Opening refuses a file of another size or time, and (parquet) one that turned unsafe.
        parquet_file, handle = (
            _parquet_file(file, stamp)
            if self.format == "trl"
            else (None, _open_regular(file, stamp))
        )
        with handle:
            try:
                if parquet_file is not None:
                    names, nan_excluded = layout
                    answers = _trl_answers(file, parquet_file, wanted, names, nan_excluded)
                else:
                    answers = [_verl_answer(file, offset, handle) for offset in wanted]
            except _READ_BACK_ERRORS:  # rows moved under the positions kept: the file changed
                raise _changed(file) from None
        if any(_prompt_key(answer.prompt) != keys[group_index] for answer in answers):
            raise _changed(file)
        return answers


#: What reading a group back raises when the rows are no longer where they were (pyarrow's own
#: errors derive from these too).
_READ_BACK_ERRORS = (
    RolloutError,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
    OSError,
    ArithmeticError,
)


def _check_int(value: object, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")


def _files_in(folder: Path) -> tuple[str, list[Path]]:
    for place in (folder, folder / "completions", folder / "completions" / "train"):
        if not place.is_dir():
            continue
        try:
            names = sorted(os.listdir(place))
        except OSError as error:
            raise RolloutError(
                f"{place.name}: cannot list the folder ({error.strerror or error})"
            ) from None
        verl = [place / n for n in names if _VERL_NAME.match(n)]
        trl = [place / n for n in names if _TRL_NAME.match(n)]
        if verl and trl:
            raise RolloutError(
                f"{place.name}: the folder holds both verl step files ({{step}}.jsonl) and TRL "
                "completions_*.parquet files; open one kind"
            )
        if verl:
            return "verl", sorted(verl, key=lambda p: _step_from_name(p, _VERL_NAME) or 0)
        if trl:
            return "trl", sorted(trl, key=lambda p: _step_from_name(p, _TRL_NAME) or 0)
    raise RolloutError(
        f"{folder.name or folder}: the folder has no verl step files ({{step}}.jsonl) and no TRL "
        "completions_*.parquet files (nor a completions/ folder with them)"
    )


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "verl"
    if suffix == ".parquet":
        return "trl"
    with _open_regular(path) as handle:
        head = handle.read(4)
    if head == b"PAR1":
        return "trl"
    if not head.strip():
        raise RolloutError(f"{path.name}: the file is empty (no rollout lines)")
    if head.lstrip()[:1] == b"{":
        return "verl"
    raise RolloutError(
        f"{path.name}: neither a verl rollout file ({{step}}.jsonl) nor a TRL "
        "completions_*.parquet file"
    )


def _sizes(files: list[Path], kind: str) -> list[int]:
    if kind == "verl":
        sizes = []
        for file in files:
            try:
                sizes.append(os.stat(file).st_size)
            except OSError:
                sizes.append(0)
        return sizes
    sizes = []
    for file in files:
        try:
            parquet_file, handle = _parquet_file(file)
        except RolloutError:
            sizes.append(0)
            continue
        with handle:
            sizes.append(parquet_file.metadata.num_rows)
    return sizes


def open_rollouts(path: str | os.PathLike[str], progress: Progress | None = None) -> RolloutSource:
    """Read a verl ``{step}.jsonl`` or TRL ``completions_*.parquet`` file, or a folder of them.

    ``progress`` is called with the fraction done (0..1), at most about 20 times a second.
    Raises :class:`RolloutError` with one sentence naming the file for anything unreadable, and
    TypeError for a ``path`` that is not a path or a ``progress`` that cannot be called.
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(os.fspath(path), bytes):
        raise TypeError(
            "open_rollouts: path must be a str or os.PathLike naming a rollout file or folder, "
            f"not {type(path).__name__}"
        )
    if progress is not None and not callable(progress):
        raise TypeError(
            f"open_rollouts: progress must be callable (or None), not {type(progress).__name__}"
        )
    location = Path(path)
    try:
        info = os.stat(location)
    except OSError as error:
        raise RolloutError(
            f"{location.name or location}: cannot read it ({error.strerror or error})"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        kind, files = _files_in(location)
    else:
        if not stat.S_ISREG(info.st_mode):
            _open_regular(location)  # raises the "a FIFO, not a regular file" message
        if info.st_size == 0:
            raise RolloutError(f"{location.name}: the file is empty (no rollouts)")
        kind, files = _format_of(location), [location]
    if kind == "trl":
        _pyarrow(files[0])
    sizes = _sizes(files, kind)
    throttle = _Throttle(progress, sum(sizes))
    steps: dict[int, _Step] = {}
    stamps: dict[Path, _Stamp] = {}
    layouts: dict[Path, tuple[_TrlColumns, np.ndarray]] = {}
    done = 0
    for file, size in zip(files, sizes):
        if kind == "trl":
            _read_trl_file(file, steps, throttle, done, stamps, layouts)
        else:
            _read_verl_file(file, steps, throttle, done, stamps)
        done += size
    summaries = []
    index: dict[int, Any] = {}
    if kind == "trl":  # num_generations is not logged: the usual run length, or a divisor
        run_lengths = [run[3] for entry in steps.values() for run in entry.runs]
        usual = _usual(run_lengths) if run_lengths else 1
        common = math.gcd(*run_lengths) if run_lengths else 1
        divisor = common if 2 <= common < usual else None
    seen: dict[bytes, int] = {}
    for number in sorted(steps):
        entry = steps[number]
        if kind == "trl":
            layout, exact = layouts[entry.file]
            result = _summarise_trl(entry, layout, exact, usual)
            if result.summary.convention_match is None and divisor is not None:
                # a prompt drawn twice in a row makes runs of 2G: the G whose groups
                # reproduce the logged advantages is TRL's num_generations
                other = _summarise_trl(entry, layout, exact, divisor)
                if other.summary.convention_match is not None:
                    result = other
            earlier = seen.setdefault(result.digest, number)
            if earlier != number:
                result.summary = _with_note(result.summary, _repeat_note(number, earlier))
        else:
            result = _summarise_verl(entry)
        summaries.append(result.summary)
        index[number] = (entry.file, result.positions, result.keys, result.layout)
    throttle.finish()
    return RolloutSource(location, kind, tuple(summaries), index, stamps)
