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

import hashlib
import json
import math
import os
import re
import stat
import time
from array import array
from collections.abc import Callable, Iterable
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


def _open_regular(path: Path) -> BinaryIO:
    """The file opened for reading, refused unread if it is a FIFO, a device or a folder."""
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


def _step_for(steps: dict[int, _Step], step: int, file: Path) -> _Step:
    found = steps.get(step)
    if found is None:
        found = steps[step] = _Step(step, file)
    elif found.file != file:
        raise RolloutError(
            f"{file.name}: step {step} is also in {found.file.name}; keep one file per step"
        )
    return found


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
    except (ValueError, RecursionError) as error:  # JSONDecodeError, bad UTF-8
        reason = error.msg if isinstance(error, json.JSONDecodeError) else "not valid UTF-8 JSON"
        raise RolloutError(f"{path.name}: line {number} is not valid JSON ({reason})") from None
    if not isinstance(record, dict):
        raise RolloutError(f"{path.name}: line {number} is not a JSON object")
    return record


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
    if not _is_number(score) or not math.isfinite(score):
        raise RolloutError(
            f"{path.name}: line {number}: 'score' must be a finite number, got {score!r}"
        )
    return float(score)


def _read_verl_file(path: Path, steps: dict[int, _Step], throttle: _Throttle, done: int) -> int:
    """Adds the file's groups to ``steps``; returns the bytes read (for progress)."""
    name_step = _step_from_name(path, _VERL_NAME)
    offset = 0
    lines = 0
    with _open_regular(path) as handle:
        for number, raw in enumerate(handle, start=1):
            position = offset
            offset += len(raw)
            throttle(done + offset)
            if not raw.strip():
                continue
            record = _parse_line(path, number, raw)
            score = _verl_score(path, number, record)
            step = record.get("step", name_step)
            if not _is_number(step) or step != int(step):
                if name_step is None:
                    raise RolloutError(
                        f"{path.name}: line {number} has no whole-number 'step', and the file "
                        "is not named {step}.jsonl"
                    )
                step = name_step
            entry = _step_for(steps, int(step), path)
            _add(entry, record["input"], score, position, None, check=False)
            lines += 1
    if lines == 0:
        raise RolloutError(f"{path.name}: the file is empty (no rollout lines)")
    return offset


def _verl_answer(path: Path, offset: int, handle: BinaryIO) -> RolloutAnswer:
    handle.seek(offset)
    record = _parse_line(path, 0, handle.readline())
    components = {"score": float(record["score"])}
    for key, value in record.items():
        if key not in VERL_FIXED and _is_number(value):
            components[key] = float(value)
    output = record["output"]
    truth = record.get("gts")
    return RolloutAnswer(
        text=output if isinstance(output, str) else json.dumps(output, ensure_ascii=False),
        reward=float(record["score"]),
        components=components,
        advantage=None,
        prompt=record["input"],
        answer_key=truth if isinstance(truth, str) else str(truth) if _is_number(truth) else None,
    )


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


def _parquet_file(path: Path) -> tuple[Any, BinaryIO]:
    parquet = _pyarrow(path)
    handle = _open_regular(path)
    try:
        return parquet.ParquetFile(handle), handle
    except Exception as error:  # pyarrow's ArrowInvalid / OSError for a file that is not parquet
        handle.close()
        raise RolloutError(f"{path.name}: not a readable parquet file ({error})") from None


def _trl_columns(path: Path, schema: Any) -> tuple[list[str], bool, bool]:
    """The reward columns, and whether ``advantage`` and ``step`` are there."""
    import pyarrow as pa

    names = schema.names
    missing = [name for name in ("prompt", "completion") if name not in names]
    if missing:
        raise RolloutError(
            f"{path.name}: no {' or '.join(repr(m) for m in missing)} column (a TRL completions "
            "file has step, prompt, completion, one column per reward function and advantage)"
        )
    rewards = [
        f.name
        for f in schema
        if f.name not in TRL_FIXED and (pa.types.is_floating(f.type) or pa.types.is_integer(f.type))
    ]
    if not rewards:
        raise RolloutError(
            f"{path.name}: no reward column (a numeric column named after a reward function)"
        )
    return rewards, "advantage" in names, "step" in names


def _float_column(batch: Any, name: str) -> np.ndarray:
    import pyarrow as pa

    return batch.column(name).cast(pa.float64()).to_numpy(zero_copy_only=False)


def _read_trl_file(path: Path, steps: dict[int, _Step], throttle: _Throttle, done: int) -> int:
    """Adds the file's groups to ``steps``; returns the rows read (for progress)."""
    name_step = _step_from_name(path, _TRL_NAME)
    parquet_file, handle = _parquet_file(path)
    with handle:
        rewards, has_advantage, has_step = _trl_columns(path, parquet_file.schema_arrow)
        columns = ["prompt", *rewards]
        if has_advantage:
            columns.append("advantage")
        if has_step:
            columns.append("step")
        if parquet_file.metadata.num_rows == 0:
            raise RolloutError(f"{path.name}: the file is empty (no rows)")
        row = 0
        try:
            batches = parquet_file.iter_batches(batch_size=_BATCH_ROWS, columns=columns)
            for batch in batches:
                prompts = batch.column("prompt").to_pylist()
                components = np.column_stack([_float_column(batch, name) for name in rewards])
                infinite = np.isinf(components)
                if infinite.any():
                    i, j = (int(k[0]) for k in np.nonzero(infinite))
                    raise RolloutError(
                        f"{path.name}: row {row + i + 1}: reward {rewards[j]!r} is infinite"
                    )
                totals = np.nansum(components, axis=1).tolist()  # TRL: NaN does not apply
                advantages = _float_column(batch, "advantage").tolist() if has_advantage else None
                row_steps = batch.column("step").to_pylist() if has_step else None
                for i, prompt in enumerate(prompts):
                    _add_trl_row(
                        path,
                        steps,
                        row + i,
                        prompt,
                        totals[i],
                        None if advantages is None else advantages[i],
                        row_steps[i] if row_steps is not None else name_step,
                    )
                row += len(prompts)
                throttle(done + row)
        except RolloutError:
            raise
        except Exception as error:  # a corrupt page, an unexpected type
            raise RolloutError(
                f"{path.name}: cannot read the rows after row {row} ({error})"
            ) from None
    return row


def _add_trl_row(
    path: Path,
    steps: dict[int, _Step],
    row: int,
    prompt: object,
    reward: float,
    advantage: float | None,
    step: object,
) -> None:
    if prompt is None:
        raise RolloutError(f"{path.name}: row {row + 1} has no prompt, so it cannot be grouped")
    if not isinstance(prompt, str):
        prompt = json.dumps(prompt, ensure_ascii=False, default=str)
    entry = steps.get(step) if type(step) is int else None  # type: ignore[arg-type]
    if entry is None or entry.file != path:
        if step is None or not _is_number(step) or step != int(step):
            raise RolloutError(
                f"{path.name}: row {row + 1} has no whole-number step, and the file is not "
                "named completions_N.parquet"
            )
        entry = _step_for(steps, int(step), path)
    if advantage is not None:
        entry.has_advantages = True
        if advantage != advantage or advantage in (math.inf, -math.inf):
            entry.missing_advantages += 1
    _add(entry, prompt, reward, row, advantage, check=True)


def _trl_answers(path: Path, rows: list[int]) -> list[RolloutAnswer]:
    parquet_file, handle = _parquet_file(path)
    with handle:
        rewards, has_advantage, _ = _trl_columns(path, parquet_file.schema_arrow)
        columns = ["prompt", "completion", *rewards] + (["advantage"] if has_advantage else [])
        wanted = {row: i for i, row in enumerate(rows)}
        found: dict[int, RolloutAnswer] = {}
        start = 0
        for batch in parquet_file.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
            end = start + batch.num_rows
            inside = [row for row in rows if start <= row < end]
            if inside:
                texts = batch.column("completion")
                prompts = batch.column("prompt")
                values = {name: _float_column(batch, name) for name in rewards}
                advantages = _float_column(batch, "advantage") if has_advantage else None
                for row in inside:
                    i = row - start
                    text = texts[i].as_py()
                    prompt = prompts[i].as_py()
                    components = {name: float(values[name][i]) for name in rewards}
                    advantage = None if advantages is None else float(advantages[i])
                    found[row] = RolloutAnswer(
                        text=text if isinstance(text, str) else json.dumps(text, default=str),
                        reward=float(np.nansum(list(components.values()))),
                        components=components,
                        advantage=advantage
                        if advantage is None or math.isfinite(advantage)
                        else None,
                        prompt=prompt
                        if isinstance(prompt, str)
                        else json.dumps(prompt, ensure_ascii=False, default=str),
                    )
            start = end
            if len(found) == len(wanted):
                break
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
            computed = _advantages(rewards, name)
        except (ValueError, MemoryError):
            continue
        diff = float(np.abs(computed[known] - logged[known]).max())
        if best is None or diff < best[0]:
            best = (diff, name)
    if best is None:
        return None, None
    diff, name = best
    return (name if diff <= MATCH_TOLERANCE * scale else None), diff


def _summarise(entry: _Step, trl: bool) -> tuple[StepSummary, list[array]]:
    groups = list(entry.groups.values())
    problems: list[str] = []
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
    )
    return summary, [g.positions for g in groups]


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- the source --------------------------------------------------------------------------------


class RolloutSource:
    """The summaries of one run's rollouts (a file or a folder), and its answers on demand."""

    def __init__(
        self, path: Path, format: str, steps: tuple[StepSummary, ...], index: dict[int, Any]
    ) -> None:
        self.path = path
        self.format = format  # "verl" or "trl"
        self.steps = steps
        self._index = index  # step -> (file, [positions per group])

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(problem for step in self.steps for problem in step.problems)

    def step(self, step: int) -> StepSummary:
        for summary in self.steps:
            if summary.step == step:
                return summary
        available = ", ".join(str(s.step) for s in self.steps)
        raise RolloutError(f"{self.path.name}: no step {step}; the steps are {available}")

    def group_answers(self, step: int, group_index: int) -> list[RolloutAnswer]:
        """The answers of one group (``group_index`` counts from 0), read back from the file."""
        self.step(step)
        file, positions = self._index[step]
        if not 0 <= group_index < len(positions):
            raise RolloutError(
                f"{file.name}: step {step} has {len(positions)} groups; no group {group_index}"
            )
        wanted = list(positions[group_index])
        if self.format == "trl":
            return _trl_answers(file, wanted)
        with _open_regular(file) as handle:
            try:
                return [_verl_answer(file, offset, handle) for offset in wanted]
            except (RolloutError, KeyError, TypeError, ValueError):
                raise RolloutError(
                    f"{file.name}: the file changed since it was read; open it again"
                ) from None


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
    Raises :class:`RolloutError` with one sentence naming the file for anything unreadable.
    """
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
    done = 0
    reader = _read_trl_file if kind == "trl" else _read_verl_file
    for file, size in zip(files, sizes):
        reader(file, steps, throttle, done)
        done += size
    summaries = []
    index: dict[int, Any] = {}
    for number in sorted(steps):
        summary, positions = _summarise(steps[number], trl=kind == "trl")
        summaries.append(summary)
        index[number] = (steps[number].file, positions)
    throttle.finish()
    return RolloutSource(location, kind, tuple(summaries), index)
