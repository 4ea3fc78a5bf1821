"""GRPO on the tiny model, one step at a time, with the project's own advantage and loss code.

A step: draw ``batch`` training prompts; sample G completions of each (KV cache, temperature 1);
grade them with the lab's reward functions; advantages by :func:`group_advantages` under the
algorithm's convention (REINFORCE: A = r); one teacher-forced pass gives every completion token's
log-probability, :func:`policy_loss` under the algorithm's preset gives the loss and ∂loss/∂logp
per token, and the network's backward turns that into a gradient for every weight; Adam. With
``epochs`` > 1 the same batch is reused against its ``old_logp`` (the ratio leaves 1 and the clip
engages). β > 0 adds the KL to the starting checkpoint, whose log-probabilities come from one more
forward pass of the frozen starting weights (made every step: the ``kl`` metric needs it).

:class:`LMTrainingRun` holds the run; ``step()`` returns that step's metrics, so a GUI can drive it
from a worker thread one step at a time (between steps, read ``metrics``, ``evals``, ``groups``;
to sample from the model while a step may run, use a ``run.model.copy()`` taken between steps:
Adam updates the weights in place). Two random streams per seed (prompts, tokens) and no other
randomness: a seeded run is bit-for-bit reproducible on one machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import policy_loss
from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.blas import use_one_blas_thread
from grpo_desktop.core.tinylm.decode import generate
from grpo_desktop.core.tinylm.evaluation import evaluate
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig, check_lm_config
from grpo_desktop.core.tinylm.model import TinyLM, load_model
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics, StepUpdate
from grpo_desktop.core.tinylm.rewards import grade
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.tinylm.vocab import decode, encode

__all__ = ["EvalMetrics", "LMGroup", "LMTrainingRun", "StepMetrics", "StepUpdate"]


@dataclass(frozen=True)
class _Groups:
    """Sampled groups: B prompts, G answers each."""

    prompts: list[str]
    completions: np.ndarray  # (B, G) text
    lengths: np.ndarray  # (B, G) tokens, end token included
    tokens: np.ndarray  # (B, G, max_new) ids, padded after the end token
    rewards: np.ndarray  # (B, G)

    @property
    def degenerate(self) -> np.ndarray:
        """(B,) all rewards equal: no learning signal."""
        return np.all(self.rewards == self.rewards[:, :1], axis=1)

    def __add__(self, other: _Groups) -> _Groups:
        return _Groups(
            self.prompts + other.prompts,
            *(
                np.concatenate([getattr(self, name), getattr(other, name)])
                for name in ("completions", "lengths", "tokens", "rewards")
            ),
        )


class LMTrainingRun:
    """A GRPO run on a copy of ``model`` (default: the shipped checkpoint), advanced by
    :meth:`step`. ``metrics``, ``evals`` (step 0 first) and ``groups`` grow as it goes."""

    def __init__(self, config: LMTrainingConfig | None = None, model: TinyLM | None = None):
        use_one_blas_thread()
        self.config = check_lm_config(config or LMTrainingConfig())
        self.task = get_task(self.config.task)
        start = load_model() if model is None else model
        self.model = start.astype(np.float32)
        self.reference = start.astype(np.float32).parameters()
        self._optimiser = Adam(self.model.parameters(), lr=self.config.learning_rate)
        self._prompt_rng = np.random.default_rng([self.config.seed, 0])
        self._token_rng = np.random.default_rng([self.config.seed, 1])
        self.step_count = 0
        self.metrics: list[StepMetrics] = []
        self.groups: list[tuple[LMGroup, ...]] = []
        self.last_update: StepUpdate | None = None
        self.evals: list[EvalMetrics] = [self.evaluate()]

    @property
    def finished(self) -> bool:
        return self.step_count >= self.config.steps

    def evaluate(self) -> EvalMetrics:
        """Exact pass rate and greedy accuracy on the held-out prompts, now."""
        result = evaluate(self.model, self.task)
        return EvalMetrics(
            self.step_count, result.pass_rate, result.greedy_accuracy, result.pass_rates
        )

    def run(
        self, steps: int | None = None, callback: Callable[[StepMetrics], None] | None = None
    ) -> None:
        """Up to ``steps`` more steps (default: to the end); ``callback`` after each."""
        for _ in range(self.config.steps - self.step_count if steps is None else steps):
            if self.finished:
                break
            metrics = self.step()
            if callback is not None:
                callback(metrics)

    def save(self, path: str | os.PathLike[str]) -> None:
        """The trained model as a checkpoint, with the run's settings in its info."""
        info = dict(self.model.info)
        info["grpo"] = {**self.config.as_dict(), "steps_done": self.step_count}
        TinyLM(self.model.config, self.model.parameters(), info).save(path)

    # --- one step ----------------------------------------------------------------------------

    def step(self) -> StepMetrics:
        """One GRPO update, then an evaluation when due (every ``eval_every`` steps and at the
        end); once finished, returns the last metrics and does nothing."""
        if self.finished:
            return self.metrics[-1]
        began = time.perf_counter()
        self.step_count += 1
        batch_size = self.config.batch
        groups = self._sample()
        if self.config.algorithm == "dapo":
            groups, sampled = self._dynamic_sampling(groups)
            used = np.zeros(len(groups.prompts), dtype=bool)
            used[np.flatnonzero(~groups.degenerate)[:batch_size]] = True
        else:
            sampled = len(groups.prompts)
            used = np.ones(sampled, dtype=bool)
        # With nothing to learn from (DAPO, every group all-equal) the step still measures.
        chosen = np.flatnonzero(used) if used.any() else np.arange(len(groups.prompts))
        rewards = groups.rewards[chosen]
        advantages = self._advantages(rewards) if used.any() else np.zeros(rewards.shape)
        first = self._update(groups, chosen, rewards, advantages, learn=bool(used.any()))
        every_advantage = np.zeros(groups.rewards.shape)
        every_advantage[chosen] = advantages
        self.groups.append(self._lab_groups(groups, every_advantage, used))
        every = self.config.eval_every
        if self.finished or (every and self.step_count % every == 0):
            self.evals.append(self.evaluate())
        metrics = StepMetrics(
            step=self.step_count,
            reward_mean=float(groups.rewards[:sampled].mean()),
            degenerate_fraction=float(groups.degenerate[:sampled].mean()),
            completion_length=float(groups.lengths[:sampled].mean()),
            groups_sampled=int(sampled),
            groups_used=int(used.sum()),
            seconds=time.perf_counter() - began,
            **first,
        )
        self.metrics.append(metrics)
        return metrics

    def _sample(self) -> _Groups:
        """``batch`` fresh training prompts, G completions of each, graded."""
        config, task = self.config, self.task
        size = config.group_size
        prompts = task.train_prompts(self._prompt_rng, config.batch)
        rows = [ids for ids in (encode(p) for p in prompts) for _ in range(size)]
        uniforms = self._token_rng.random((len(rows), task.max_new))
        params, network = self.model.parameters(), self.model.config
        written = generate(params, network, rows, task.max_new, uniforms, config.temperature)
        texts = [decode(row) for row in written.tokens]
        flat_prompts = [p for p in prompts for _ in range(size)]
        rewards, _ = grade(task, flat_prompts, texts, config.reward_weights)
        shape = (len(prompts), size)
        return _Groups(
            prompts,
            np.array(texts, dtype=object).reshape(shape),
            written.lengths.reshape(shape),
            written.tokens.reshape(*shape, -1),
            rewards.reshape(shape),
        )

    def _dynamic_sampling(self, groups: _Groups) -> tuple[_Groups, int]:
        """DAPO: draw further batches until ``batch`` groups carry signal (at most
        ``dapo_max_draws`` batches in all); returns every group drawn and how many it took
        (as the toy run counts them) to find ``batch`` informative ones."""
        config = self.config
        for _ in range(config.dapo_max_draws - 1):
            if int((~groups.degenerate).sum()) >= config.batch:
                break
            groups = groups + self._sample()
        reached = np.flatnonzero(np.cumsum(~groups.degenerate) >= config.batch)
        return groups, int(reached[0]) + 1 if reached.size else len(groups.prompts)

    def _advantages(self, rewards: np.ndarray) -> np.ndarray:
        convention = self.config.advantage_convention
        if convention is None:  # REINFORCE: the reward itself, no baseline
            return rewards.astype(np.float64)
        return group_advantages(rewards, convention)

    def _update(
        self,
        groups: _Groups,
        chosen: np.ndarray,
        rewards: np.ndarray,
        advantages: np.ndarray,
        learn: bool,
    ) -> dict[str, float]:
        """``epochs`` rounds of loss, backward and Adam on the chosen groups (none when not
        ``learn``); returns the first epoch's kl, entropy, loss, clip fraction and grad norm."""
        config, task = self.config, self.task
        size = config.group_size
        params, network = self.model.parameters(), self.model.config
        prompt_ids = [encode(groups.prompts[g]) for g in chosen for _ in range(size)]
        completions = groups.tokens[chosen].reshape(len(prompt_ids), -1)
        batch = teacher_batch(prompt_ids, completions, network.n_ctx)
        real = batch.mask > 0
        ref_logp = completion_pass(self.reference, network, batch).logp.astype(np.float64)
        row_advantages = advantages.ravel()
        eps_low, eps_high = config.clip_range
        old_logp = None
        losses = []
        first: dict[str, float] = {}
        for _ in range(config.epochs if learn else 1):
            forward_pass = completion_pass(params, network, batch)
            logp = forward_pass.logp.astype(np.float64)
            result = policy_loss(
                logp,
                logp if old_logp is None else old_logp,
                row_advantages,
                batch.mask,
                preset=config.loss_preset,
                ref_logp=ref_logp if config.beta > 0 else None,
                eps_low=eps_low,
                eps_high=eps_high,
                beta=config.beta,
                max_completion_length=task.max_new,
                kl_estimator=config.kl_estimator,
            )
            losses.append(result)
            norm = 0.0
            if learn:
                norm = self._optimiser.step(params, forward_pass.gradients(result.grad_logp))
            if old_logp is None:
                old_logp = logp
                gap = ref_logp[real] - logp[real]
                first = {
                    "kl": float(np.mean(np.exp(gap) - gap - 1.0)),
                    "entropy": float(forward_pass.entropy[real].mean()),
                    "loss": result.loss,
                    "clip_fraction": result.clip_fraction,
                    "grad_norm": norm,
                }
        self.last_update = StepUpdate(
            rewards=rewards,
            advantages=advantages,
            logp=old_logp,
            ref_logp=ref_logp,
            mask=batch.mask,
            losses=tuple(losses),
        )
        return first

    def _lab_groups(
        self, groups: _Groups, advantages: np.ndarray, used: np.ndarray
    ) -> tuple[LMGroup, ...]:
        return tuple(
            LMGroup(
                prompt=prompt,
                answer=self.task.target(prompt),
                completions=tuple(groups.completions[g]),
                rewards=tuple(float(r) for r in groups.rewards[g]),
                advantages=tuple(float(a) for a in advantages[g]),
                used=bool(used[g]),
            )
            for g, prompt in enumerate(groups.prompts)
        )
