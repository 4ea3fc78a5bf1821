"""How good the model is on held-out prompts, measured exactly where it can be.

The **exact pass rate** of a prompt is the probability, at temperature 1, of writing the one
right completion: the product of its tokens' probabilities, from one teacher-forced pass, so a
learning curve carries no sampling noise. **Greedy accuracy** is the share of prompts whose
most-likely-token completion is right (what a deployed model at temperature 0 would score).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.decode import generate
from grpo_desktop.core.tinylm.model import TinyLM
from grpo_desktop.core.tinylm.tasks import Task
from grpo_desktop.core.tinylm.vocab import decode, encode

__all__ = ["Evaluation", "evaluate", "exact_pass_rates", "greedy_completions"]

_CHUNK = 1024  # rows per pass: bounds memory for long prompt lists


@dataclass(frozen=True)
class Evaluation:
    pass_rate: float  # mean exact pass rate over the prompts
    greedy_accuracy: float
    pass_rates: np.ndarray  # (P,) each prompt's exact pass rate
    greedy_right: np.ndarray  # (P,) bool


def exact_pass_rates(model: TinyLM, task: Task, prompts: Sequence[str]) -> np.ndarray:
    """(P,) probability of writing exactly ``task.target(prompt)`` for each prompt."""
    params, config = model.parameters(), model.config
    rates = []
    for start in range(0, len(prompts), _CHUNK):
        chunk = prompts[start : start + _CHUNK]
        batch = teacher_batch(
            [encode(p) for p in chunk], [encode(task.target(p)) for p in chunk], config.n_ctx
        )
        logp = completion_pass(params, config, batch).logp.astype(np.float64)
        rates.append(np.exp(logp.sum(axis=1)))
    return np.concatenate(rates) if rates else np.zeros(0)


def greedy_completions(model: TinyLM, task: Task, prompts: Sequence[str]) -> list[str]:
    params, config = model.parameters(), model.config
    out: list[str] = []
    for start in range(0, len(prompts), _CHUNK):
        ids = [encode(p) for p in prompts[start : start + _CHUNK]]
        written = generate(params, config, ids, task.max_new)
        out.extend(decode(row) for row in written.tokens)
    return out


def evaluate(model: TinyLM, task: Task, prompts: Sequence[str] | None = None) -> Evaluation:
    """Exact pass rate and greedy accuracy on ``prompts`` (default: the task's held-out set)."""
    chosen = list(task.held_out_prompts() if prompts is None else prompts)
    rates = exact_pass_rates(model, task, chosen)
    right = np.array(
        [c == task.target(p) for p, c in zip(chosen, greedy_completions(model, task, chosen))]
    )
    return Evaluation(
        pass_rate=float(rates.mean()) if rates.size else 0.0,
        greedy_accuracy=float(right.mean()) if right.size else 0.0,
        pass_rates=rates,
        greedy_right=right,
    )
