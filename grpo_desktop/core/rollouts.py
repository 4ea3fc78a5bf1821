"""A real run's rollouts: verl's per-step JSONL dumps and TRL's completions parquet files.

- **verl** (``trainer.rollout_data_dir``) writes ``{dir}/{step}.jsonl``: one line per answer with
  ``input``, ``output``, ``gts``, ``score`` (the reward before any KL penalty), ``step`` and any
  extra reward keys. No advantage and no group id: a group is the answers sharing an ``input``
  within a step.
- **TRL** (``log_completions=True``) writes ``completions/completions_{step:05d}.parquet`` with
  ``step``, ``prompt``, ``completion``, one numeric column per reward function, any extra columns
  and ``advantage``. A group is the rows sharing a prompt within a step, in file order. An
  answer's reward is the sum of its reward columns skipping NaN (TRL's ``nansum``: NaN means "this
  reward function does not apply"), with TRL's default weight 1 per function; the logged advantages
  are then compared with every convention of :mod:`grpo_desktop.core.advantages`.

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from grpo_desktop.core.advantages import CONVENTIONS, group_advantages
from grpo_desktop.core.jsonfile import NotARegularFileError, check_regular_file

__all__ = [
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
#: Logged advantages match a convention when every |difference| is within this times the scale.
MATCH_TOLERANCE = 1e-6
#: verl's fixed keys; any other numeric key of a line is an extra reward component.
VERL_REQUIRED = ("input", "output", "score")
VERL_FIXED = ("input", "output", "gts", "score", "step")
#: TRL's fixed columns; any other numeric column is a reward function's.
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
    prompt: str = ""  # the whole prompt, as logged (conversations as JSON)
    answer_key: str | None = None  # verl's ``gts`` when it is text or a number; TRL logs none


@dataclass(frozen=True)
class GroupSummary:
    prompt: str  # the first and last PROMPT_CHARS characters, joined by ELISION when cut
    size: int
    mean: float
    degenerate: bool  # all rewards equal: no learning signal under a mean baseline
    rewards: tuple[float, ...]


@dataclass(frozen=True)
class StepSummary:
    step: int
    source: str  # the file's name
    groups: tuple[GroupSummary, ...]
    degenerate_fraction: float
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
    """A group being read: short prompt, rewards, logged advantages and answer positions."""

    __slots__ = ("advantages", "positions", "prompt", "rewards")

    def __init__(self, prompt: str) -> None:
        self.prompt = _summary_prompt(prompt)
        self.rewards = array("d")
        self.advantages = array("d")
        self.positions = array("q")  # JSONL: byte offsets; parquet: row numbers in the file


@dataclass
class _Step:
    step: int
    file: Path
    groups: dict[bytes, _Group] = field(default_factory=dict)
    last_key: bytes | None = None
    last_prompt: str | None = None
    scattered: list[str] = field(default_factory=list)  # prompts whose rows are not consecutive
    missing_advantages: int = 0
    has_advantages: bool = False
    problems: list[str] = field(default_factory=list)  # found while reading (the file's name)
    notes: list[str] = field(default_factory=list)  # what was read differently, and why


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


def _add(
    entry: _Step, prompt: str, reward: float, position: int, advantage: float | None, check: bool
) -> None:
    if prompt == entry.last_prompt:  # the rows of a group are usually consecutive
        key = entry.last_key
    else:
        key = _prompt_key(prompt)
        entry.last_prompt = prompt
    group = entry.groups.get(key)
    if group is None:
        group = entry.groups[key] = _Group(prompt)
    elif check and entry.last_key != key and len(entry.scattered) < 3:
        entry.scattered.append(group.prompt)
    entry.last_key = key
    group.rewards.append(reward)
    group.positions.append(position)
    if advantage is not None:
        group.advantages.append(advantage)


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
            step = _verl_step(path, number, record, name_step)
            entry = file_steps.entry(step, f"line {number}")
            _add(entry, record["input"], score, position, None, check=False)
            lines += 1
    if lines == 0:
        raise RolloutError(f"{path.name}: the file is empty (no rollout lines)")
    file_steps.finish()
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
    components = {"score": score}
    for key, value in record.items():
        if key not in VERL_FIXED:
            extra = _component(value)
            if extra is not None:
                components[key] = extra
    output = record["output"]
    truth = record.get("gts")
    return RolloutAnswer(
        text=output if isinstance(output, str) else json.dumps(output, ensure_ascii=False),
        reward=score,
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
    rewards: list[str]  # one per reward function: float or integer columns
    ignored: list[tuple[str, str]]  # (column, what it holds): neither fixed nor a reward
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
    """The reward columns, the columns left unread, and whether ``advantage`` and ``step`` are
    there."""
    import pyarrow as pa

    names = schema.names
    missing = [name for name in ("prompt", "completion") if name not in names]
    if missing:
        raise RolloutError(
            f"{path.name}: no {' or '.join(repr(m) for m in missing)} column (a TRL completions "
            "file has step, prompt, completion, one column per reward function and advantage)"
        )
    rewards: list[str] = []
    ignored: list[tuple[str, str]] = []
    for column in schema:
        if column.name in TRL_FIXED:
            continue
        if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
            rewards.append(column.name)
        else:
            ignored.append((column.name, _column_kind(column.type)))
    columns = _TrlColumns(rewards, ignored, "advantage" in names, "step" in names)
    if not rewards:
        unread = f"; not read: {columns.ignored_text()}" if ignored else ""
        raise RolloutError(
            f"{path.name}: no reward column (a float or integer column named after a reward "
            f"function){unread}"
        )
    return columns


def _float_column(batch: Any, name: str) -> np.ndarray:
    import pyarrow as pa

    return batch.column(name).cast(pa.float64()).to_numpy(zero_copy_only=False)


def _check_rewards(path: Path, first_row: int, components: np.ndarray, names: list[str]) -> None:
    """Refuse an infinite reward, or one beyond ±MAX_REWARD_MAGNITUDE (NaN is TRL's "does not
    apply"), naming its row and column."""
    with np.errstate(invalid="ignore"):
        bad = np.isinf(components) | (np.abs(components) > MAX_REWARD_MAGNITUDE)
    if not bad.any():
        return
    i, j = (int(k[0]) for k in np.nonzero(bad))
    value = float(components[i, j])
    where = f"{path.name}: row {first_row + i + 1}: reward {names[j]!r}"
    if math.isinf(value):
        raise RolloutError(f"{where} is infinite")
    raise RolloutError(
        f"{where} is {value:.3g}; rewards beyond ±{MAX_REWARD_MAGNITUDE:g} are refused (no "
        "reward function gives them, and their squares overflow)"
    )


def _read_trl_file(
    path: Path,
    steps: dict[int, _Step],
    throttle: _Throttle,
    done: int,
    stamps: dict[Path, _Stamp],
) -> int:
    """Adds the file's groups to ``steps``; returns the rows read (for progress)."""
    file_steps = _FileSteps(path, steps, _step_from_name(path, _TRL_NAME))
    parquet_file, handle = _parquet_file(path)
    with handle:
        stamps[path] = _stamp(os.fstat(handle.fileno()))
        layout = _trl_columns(path, parquet_file.schema_arrow)
        rewards = layout.rewards
        columns = ["prompt", *rewards]
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
                components = np.column_stack([_float_column(batch, name) for name in rewards])
                _check_rewards(path, row, components, rewards)
                totals = np.nansum(components, axis=1).tolist()  # TRL: NaN does not apply
                advantages = (
                    _float_column(batch, "advantage").tolist() if layout.has_advantage else None
                )
                row_steps = batch.column("step").to_pylist() if layout.has_step else None
                for i, prompt in enumerate(prompts):
                    _add_trl_row(
                        file_steps,
                        row + i,
                        prompt,
                        totals[i],
                        None if advantages is None else advantages[i],
                        None if row_steps is None else row_steps[i],
                    )
                row += len(prompts)
                throttle(done + row)
        except RolloutError:
            raise
        except Exception as error:  # a corrupt page, an unexpected type
            raise RolloutError(
                f"{path.name}: cannot read the rows after row {row} ({error})"
            ) from None
    file_steps.finish()
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
    """A logged prompt as text: a conversation (TRL's list of messages) as JSON."""
    return (
        prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False, default=str)
    )


def _add_trl_row(
    file_steps: _FileSteps,
    row: int,
    prompt: object,
    reward: float,
    advantage: float | None,
    step_value: object,
) -> None:
    path = file_steps.path
    if prompt is None:
        raise RolloutError(f"{path.name}: row {row + 1} has no prompt, so it cannot be grouped")
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
    if advantage is not None:
        entry.has_advantages = True
        if advantage != advantage or advantage in (math.inf, -math.inf):
            entry.missing_advantages += 1
    _add(entry, _prompt_text(prompt), reward, row, advantage, check=True)


def _trl_answers(path: Path, parquet_file: Any, rows: list[int]) -> list[RolloutAnswer]:
    """The answers at ``rows`` (row numbers in the file), in that order."""
    layout = _trl_columns(path, parquet_file.schema_arrow)
    rewards = layout.rewards
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
                text = texts[i].as_py()
                components = {name: float(values[name][i]) for name in rewards}
                advantage = None if advantages is None else float(advantages[i])
                found[row] = RolloutAnswer(
                    text=text if isinstance(text, str) else json.dumps(text, default=str),
                    reward=float(np.nansum(list(components.values()))),
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
    quantiles = tuple(float(q) for q in np.quantile(rewards, (0.0, 0.25, 0.5, 0.75, 1.0)))
    low, high = quantiles[0], quantiles[-1]
    if high > low:
        counts, _ = np.histogram(rewards, bins=HISTOGRAM_BINS, range=(low, high))
    else:
        counts = np.zeros(HISTOGRAM_BINS, dtype=int)
        counts[0] = rewards.size
    return quantiles, tuple(int(c) for c in counts)


def _candidates() -> list[str]:
    """TRL's own conventions first, so a tie (every group degenerate) names TRL's."""
    first = [name for name in ("trl", "trl_batch") if name in CONVENTIONS]
    return first + [name for name in CONVENTIONS if name not in first]


def _flat(parts: Iterable[array]) -> np.ndarray:
    return np.concatenate([np.frombuffer(part, dtype=np.float64) for part in parts])


def _advantages(rewards: np.ndarray, name: str) -> np.ndarray:
    """``group_advantages``, but TRL's batch std computed here in O(batch) memory (the general
    kernel centres the flat batch as one row, with a batch × batch matrix)."""
    if name != "trl_batch":
        return group_advantages(rewards, name)
    if rewards.size < 2:
        raise ValueError("a batch std needs two rewards")
    batch_std = float(np.std(rewards, ddof=1))
    centered = rewards - rewards.mean(axis=1, keepdims=True)
    return centered / (batch_std + CONVENTIONS[name].eps)


def _check_advantages(groups: list[_Group], size: int) -> tuple[str | None, float | None]:
    """The convention whose advantages reproduce the logged ones, and its max |difference|."""
    rewards = _flat(g.rewards for g in groups).reshape(len(groups), size)
    logged = _flat(g.advantages for g in groups).reshape(rewards.shape)
    known = np.isfinite(logged)
    if not known.any():
        return None, None
    scale = max(1.0, float(np.abs(logged[known]).max()))
    best: tuple[float, str] | None = None
    for name in _candidates():
        if size < CONVENTIONS[name].min_group_size:
            continue
        try:
            with np.errstate(all="ignore"):  # a diff that overflows is simply not a match
                computed = _advantages(rewards, name)
                diff = float(np.abs(computed[known] - logged[known]).max())
        except (ValueError, MemoryError):
            continue
        if not math.isfinite(diff):
            continue
        if best is None or diff < best[0]:
            best = (diff, name)
    if best is None:
        return None, None
    diff, name = best
    return (name if diff <= MATCH_TOLERANCE * scale else None), diff


def _summarise(entry: _Step, trl: bool) -> tuple[StepSummary, list[array]]:
    groups = list(entry.groups.values())
    problems: list[str] = list(entry.problems)
    summaries = []
    floats: dict[float, float] = {}  # one object per distinct reward (most are 0 or 1)
    for group in groups:
        values = tuple([floats.setdefault(v, v) for v in group.rewards])
        summaries.append(
            GroupSummary(
                prompt=group.prompt,
                size=len(values),
                mean=math.fsum(values) / len(values),
                degenerate=all(v == values[0] for v in values),
                rewards=values,
            )
        )
    sizes = [s.size for s in summaries]
    usual = max(set(sizes), key=lambda s: (sizes.count(s), s))
    odd = [i for i, s in enumerate(sizes, start=1) if s != usual]
    if odd:
        shown = ", ".join(f"#{i} has {sizes[i - 1]}" for i in odd[:5])
        more = f" and {len(odd) - 5} more" if len(odd) > 5 else ""
        problems.append(
            f"step {entry.step}: group sizes differ: most groups have {usual} answers, but "
            f"{shown}{more}"
        )
    for prompt in entry.scattered:
        problems.append(
            f"step {entry.step}: the rows of the prompt {_one_line(prompt)[:60]!r} are not "
            "consecutive (the same prompt sampled twice, or rows out of order?)"
        )
    match: str | None = None
    diff: float | None = None
    if trl:
        if not entry.has_advantages:
            problems.append(f"step {entry.step}: no 'advantage' column, so nothing to check")
        elif odd or entry.scattered:
            problems.append(
                f"step {entry.step}: the logged advantages were not checked: the rows do not "
                "split into groups of one size"
            )
        else:
            if entry.missing_advantages:
                problems.append(
                    f"step {entry.step}: {entry.missing_advantages} rows have no advantage (NaN); "
                    "the others were checked"
                )
            match, diff = _check_advantages(groups, usual)
            if diff is not None and match is None:
                problems.append(
                    f"step {entry.step}: no convention reproduces the logged advantages "
                    f"(closest max |difference| {diff:.3g}); were the reward weights not 1?"
                )
    all_rewards = _flat(g.rewards for g in groups)
    for group in groups:  # only the positions are kept, to read a group's answers back
        group.rewards = group.advantages = array("d")
    quantiles, histogram = _distribution(all_rewards)
    degenerate = sum(s.degenerate for s in summaries)
    summary = StepSummary(
        step=entry.step,
        source=entry.file.name,
        groups=tuple(summaries),
        degenerate_fraction=degenerate / len(summaries),
        reward_quantiles=quantiles,  # type: ignore[arg-type]
        reward_histogram=histogram,
        convention_match=match,
        max_abs_diff=diff,
        problems=tuple(problems),
        notes=tuple(entry.notes),
    )
    return summary, [g.positions for g in groups]


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
        self._index = index  # step -> (file, [positions per group], [prompt key per group])
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
        file, positions, keys = self._index[step]
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
                    answers = _trl_answers(file, parquet_file, wanted)
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
    done = 0
    reader = _read_trl_file if kind == "trl" else _read_verl_file
    for file, size in zip(files, sizes):
        reader(file, steps, throttle, done, stamps)
        done += size
    summaries = []
    index: dict[int, Any] = {}
    for number in sorted(steps):
        entry = steps[number]
        keys = list(entry.groups)
        summary, positions = _summarise(entry, trl=kind == "trl")
        summaries.append(summary)
        index[number] = (entry.file, positions, keys)
    throttle.finish()
    return RolloutSource(location, kind, tuple(summaries), index, stamps)
