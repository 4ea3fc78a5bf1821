"""The tiny model's training run as JSON lines: what the GUI and its worker process say.

Pure Python. A GRPO step of the network is Python-heavy numpy work; on a thread it shares the
interpreter lock with the GUI and a click waited for it (clicks at p95 22–36 ms while training,
``benchmarks/bench_lm_training_clicks.py``). In a process of its own it shares nothing, so the
run and the GUI talk in lines of JSON — data, never code (no pickle): the GUI sends the run's
settings, then commands; the worker sends records. Every message is one object on one line.

GUI → worker: ``{"config": {...}, "checkpoint": PATH | null}`` first, then numbered commands
``{"do": "play" | "pause" | "step" | "quit", "id": N}``.
Worker → GUI: ``{"loaded": {"facts": {...}, "evaluation": {...}}}``, ``{"stepped": {"metrics":
{...}, "evaluation": {...} | null, "groups": [...]}}``, ``{"idle": true, "after": N}`` (nothing
under way since command N: paused, its steps done, or finished; an idle older than the latest
command sent is stale) and ``{"failed": SENTENCE}``.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields

import numpy as np

from grpo_desktop.core.lab.reward_fields import weights_from_dict
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig, check_lm_config
from grpo_desktop.core.tinylm.lm_run_snapshot import ModelFacts
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics

__all__ = [
    "COMMANDS",
    "MessageError",
    "config_from_message",
    "config_message",
    "eval_from_message",
    "eval_message",
    "facts_from_message",
    "group_from_message",
    "group_message",
    "line",
    "metrics_from_message",
    "read_line",
]

COMMANDS = ("play", "pause", "step", "quit")
MAX_LINE_CHARS = 4_000_000  # a step's 256 groups of 64 answers fit with room to spare


class MessageError(ValueError):
    """A line that is not a message of this protocol."""


def line(message: dict) -> str:
    """One message as one line of strict JSON (a NaN is written as null)."""
    return json.dumps(_finite(message), allow_nan=False, separators=(",", ":")) + "\n"


def read_line(text: str) -> dict:
    """A line back as a message; MessageError when it is not one."""
    if len(text) > MAX_LINE_CHARS:
        raise MessageError("a message longer than any the run writes")
    try:
        message = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as error:
        raise MessageError(f"not a JSON line: {error}") from None
    if not isinstance(message, dict) or len(message) < 1:
        raise MessageError("a message must be a JSON object")
    return message


def _refuse_constant(name: str) -> float:
    raise MessageError(f"{name} is not a number a message carries")


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _number(value) -> float:
    """A float from a message (null is NaN: what was not measured)."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MessageError(f"expected a number, got {type(value).__name__}")
    return float(value)


# --- the run's settings ------------------------------------------------------------------------


def config_message(config: LMTrainingConfig, checkpoint: str | None) -> dict:
    return {"config": config.as_dict(), "checkpoint": checkpoint}


def config_from_message(message: dict) -> tuple[LMTrainingConfig, str | None]:
    data, checkpoint = message.get("config"), message.get("checkpoint")
    if not isinstance(data, dict) or not (checkpoint is None or isinstance(checkpoint, str)):
        raise MessageError("the first line must hold the run's config and checkpoint")
    known = {item.name for item in fields(LMTrainingConfig)}
    if set(data) - known:
        raise MessageError(f"unknown settings: {', '.join(sorted(set(data) - known))}")
    values = dict(data)
    if "reward_weights" in values:
        values["reward_weights"] = weights_from_dict(values["reward_weights"])
    try:
        return check_lm_config(LMTrainingConfig(**values)), checkpoint
    except (TypeError, ValueError) as error:
        raise MessageError(str(error)) from None


# --- records -----------------------------------------------------------------------------------


def metrics_from_message(data: dict) -> StepMetrics:
    values = {}
    for item in fields(StepMetrics):
        value = data.get(item.name)
        values[item.name] = int(_number(value)) if item.name in _WHOLE_METRICS else _number(value)
    return StepMetrics(**values)


_WHOLE_METRICS = ("step", "groups_sampled", "groups_used")


def eval_message(evaluation: EvalMetrics) -> dict:
    return {**evaluation.as_dict(), "pass_rates": [float(p) for p in evaluation.pass_rates]}


def eval_from_message(data: dict) -> EvalMetrics:
    rates = data.get("pass_rates")
    if not isinstance(rates, list):
        raise MessageError("an evaluation needs its pass_rates")
    return EvalMetrics(
        step=int(_number(data.get("step"))),
        pass_rate=_number(data.get("pass_rate")),
        greedy_accuracy=_number(data.get("greedy_accuracy")),
        pass_rates=np.array([_number(rate) for rate in rates], dtype=np.float64),
    )


def group_message(group: LMGroup) -> dict:
    return asdict(group)


def group_from_message(data: dict) -> LMGroup:
    texts = data.get("completions")
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise MessageError("a group's completions must be text")
    prompt, answer = data.get("prompt"), data.get("answer")
    if not isinstance(prompt, str) or not isinstance(answer, str):
        raise MessageError("a group needs its prompt and answer")
    return LMGroup(
        prompt=prompt,
        answer=answer,
        completions=tuple(texts),
        rewards=tuple(_number(value) for value in data.get("rewards", ())),
        advantages=tuple(_number(value) for value in data.get("advantages", ())),
        used=bool(data.get("used", True)),
    )


def facts_from_message(data: dict) -> ModelFacts:
    checkpoint = data.get("checkpoint")
    return ModelFacts(
        parameters=int(_number(data.get("parameters"))),
        layers=int(_number(data.get("layers"))),
        vocabulary=int(_number(data.get("vocabulary"))),
        checkpoint=checkpoint if isinstance(checkpoint, str) else None,
        pretraining=str(data.get("pretraining", ""))[:120],
    )
