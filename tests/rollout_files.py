"""Rollout files shaped exactly as verl and TRL write them, for the tests that read them.

verl's ``rollout_data_dir`` writes ``{step}.jsonl`` with ``input``, ``output``, ``gts``, ``score``,
``step`` and extra reward keys; TRL's ``log_completions`` writes
``completions_{step:05d}.parquet`` with ``step``, ``prompt``, ``completion``, one column per reward
function, extra columns and ``advantage`` (TRL's own formula).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from grpo_desktop.core.formulas.advantages import group_advantages

# Three prompts per step, four answers each; the first is all correct (degenerate).
VERL_SCORES = {
    1: [[1, 1, 1, 1], [1, 0, 0, 1], [0, 0, 0, 1]],
    2: [[1, 1, 1, 1], [0, 1, 1, 1], [0, 0, 0, 0]],
}


def verl_prompt(step: int, q: int) -> str:
    return f"<|user|>Step {step}, question {q}: what is {q} + {step}?\n<|assistant|>"


def write_verl(folder: Path, scores: dict[int, list[list[float]]] = VERL_SCORES) -> Path:
    """verl's rollout_data_dir: {step}.jsonl, one line per answer with extra reward keys."""
    folder.mkdir(parents=True, exist_ok=True)
    for step, groups in scores.items():
        lines = []
        for q, rewards in enumerate(groups):
            for k, score in enumerate(rewards):
                lines.append(
                    json.dumps(
                        {
                            "input": verl_prompt(step, q),
                            "output": f"step {step} q {q} answer {k}: {q + step if score else 0}",
                            "gts": str(q + step),
                            "score": float(score),
                            "step": step,
                            "acc": bool(score) * 1.0,
                            "format_reward": 0.5,
                        }
                    )
                )
        (folder / f"{step}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:  # the verl tests above still run; pip install ".[test]" brings pyarrow
    pa = pq = None

needs_pyarrow = pytest.mark.skipif(pa is None, reason="TRL's parquet files need pyarrow")

# Two reward functions per answer: accuracy (NaN where it does not apply) and format.
TRL_ACCURACY = [[1, 0, 0, 1], [1, 1, 1, 1], [0, 1, np.nan, 0]]
TRL_FORMAT = [[0.5, 0.5, 0.0, 0.5], [0.5, 0.5, 0.5, 0.5], [0.0, 0.5, 0.5, 0.5]]


def trl_advantages(rewards: np.ndarray) -> np.ndarray:
    """TRL's own formula, scale_rewards="group": (r − mean) / (sample std + 1e-4), in float32."""
    grouped = rewards.reshape(-1, 4)
    mean = grouped.mean(axis=1, keepdims=True)
    std = grouped.std(axis=1, ddof=1, keepdims=True)
    return ((grouped - mean) / (std + 1e-4)).reshape(-1).astype(np.float32)


def write_trl(
    folder: Path,
    step: int = 10,
    accuracy: list[list[float]] = TRL_ACCURACY,
    fmt: list[list[float]] = TRL_FORMAT,
    convention: str | None = "trl",
    row_group_size: int | None = None,
) -> Path:
    """TRL's completions/completions_{step:05d}.parquet, columns as GRPOTrainer logs them."""
    folder.mkdir(parents=True, exist_ok=True)
    prompts, completions = [], []
    for q, group in enumerate(accuracy):
        for k in range(len(group)):
            prompts.append(f"<|im_start|>user\nQuestion {q} of step {step}<|im_end|>")
            completions.append(f"completion {q}.{k}")
    acc = np.array([x for g in accuracy for x in g], dtype=np.float64)
    form = np.array([x for g in fmt for x in g], dtype=np.float64)
    rewards = np.nansum(np.stack([acc, form], axis=1), axis=1)  # TRL: weights 1, NaN skipped
    columns = {
        "step": [step] * len(prompts),
        "prompt": prompts,
        "completion": completions,
        "accuracy_reward": acc,
        "format_reward": form,
        "solution": [f"answer {i}" for i in range(len(prompts))],  # an extra (text) column
    }
    if convention == "trl":
        columns["advantage"] = trl_advantages(rewards)
    elif convention is not None:
        columns["advantage"] = group_advantages(rewards.reshape(len(accuracy), -1), convention)
        columns["advantage"] = columns["advantage"].reshape(-1)
    path = folder / f"completions_{step:05d}.parquet"
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return path


def recorded(rewards=(1.0, 0.0, 1.0), texts=None, **fields):
    """A run's group as the lab holds it (``core.recorded_group.RecordedGroup``): a verl group by
    default, one answer per reward, the reward logged as ``score``; ``fields`` override any."""
    from grpo_desktop.core.lab.recorded_group import RecordedGroup

    rewards = tuple(float(r) for r in rewards)
    values = {
        "run_format": "verl",
        "file_name": "7.jsonl",
        "step": 7,
        "group_index": 0,
        "group_count": 3,
        "prompt": "What is <b>2</b> + 2?",
        "answer_key": "4",
        "texts": tuple(
            texts or (f"answer {i}: {'4' if r else '5'}" for i, r in enumerate(rewards))
        ),
        "rewards": rewards,
        "components": (("score", rewards),),
        "logged_advantages": None,
    }
    values.update(fields)
    return RecordedGroup(**values)
