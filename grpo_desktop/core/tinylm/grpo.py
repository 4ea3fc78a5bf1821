"""GRPO on the tiny model, one step at a time, with the project's own advantage and loss code.

A step: draw ``batch`` training prompts; sample G completions of each (KV cache, temperature 1);
grade them with the lab's reward functions; advantages by :func:`group_advantages` under the
algorithm's convention (REINFORCE: A = r); one teacher-forced pass gives every completion token's
log-probability, :func:`policy_loss` under the algorithm's preset gives the loss and ∂loss/∂logp
per token, and the network's backward turns that into a gradient for every weight; Adam. With
``epochs`` > 1 the same batch is reused against its ``old_logp`` (the ratio leaves 1 and the clip
engages). β > 0 adds the KL to the starting checkpoint, whose log-probabilities come from one more
forward pass of the frozen reference weights.

:class:`LMTrainingRun` holds the run; ``step()`` returns that step's metrics, so a GUI can drive it
from a worker thread one step at a time. Two random streams per seed (prompts, tokens) and no
other randomness: a seeded run is bit-for-bit reproducible on one machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from grpo_desktop.core.advantages import group_advantages
from grpo_desktop.core.clipped_loss import PolicyLossResult, policy_loss
from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import CompletionPass, completion_pass, teacher_batch
from grpo_desktop.core.tinylm.blas import use_one_blas_thread
from grpo_desktop.core.tinylm.decode import generate
from grpo_desktop.core.tinylm.evaluation import evaluate
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig, check_lm_config
from grpo_desktop.core.tinylm.model import TinyLM, load_model
from grpo_desktop.core.tinylm.rewards import grade
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.tinylm.vocab import decode, encode

__all__ = ["EvalMetrics", "LMGroup", "LMTrainingRun", "StepMetrics", "StepUpdate"]


@dataclass(frozen=True)
class LMGroup:
    """One prompt's G sampled completions at a step, as the Lab shows a group."""

    prompt: str
    answer: str  # the right completion (answer and end token)
    completions: tuple[str, ...]
    rewards: tuple[float, ...]
    advantages: tuple[float, ...]
    used: bool  # entered the update (DAPO drops all-equal groups)


@dataclass(frozen=True)
class StepMetrics:
    """What one step did. ``kl`` and ``entropy`` are means over the sampled answer tokens, before
    the update (k3 estimate of KL(policy ‖ start))."""

    step: int
    reward_mean: float
    degenerate_fraction: float
    kl: float
    entropy: float
    loss: float
    completion_length: float  # tokens, end token included
    groups_sampled: int
    groups_used: int
    clip_fraction: float
    grad_norm: float
    seconds: float  # wall time of the step (not reproducible, unlike everything else)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class EvalMetrics:
    """The model on the task's held-out prompts after ``step`` steps (0: the start)."""

    step: int
    pass_rate: float
    greedy_accuracy: float
    pass_rates: np.ndarray  # (P,) each held-out prompt's exact pass rate: the frontier's dots

    def as_dict(self) -> dict[str, float]:
        return {
            "step": self.step,
            "pass_rate": self.pass_rate,
            "greedy_accuracy": self.greedy_accuracy,
        }


@dataclass(frozen=True)
class StepUpdate:
    """The numbers inside the last step's update, kept so a test or the Update workspace can
    check them against ``group_advantages`` and ``policy_loss`` called directly."""

    rewards: np.ndarray  # (U, G) the used groups' rewards
    advantages: np.ndarray  # (U, G)
    logp: np.ndarray  # (U·G, Tc) first epoch: equals old_logp
    old_logp: np.ndarray
    ref_logp: np.ndarray
    mask: np.ndarray
    losses: tuple[PolicyLossResult, ...]  # one per epoch


class LMTrainingRun:
    """A GRPO run on a copy of ``model`` (default: the shipped checkpoint), advanced by
    :meth:`step`. ``metrics``, ``evals`` and ``groups`` grow as it goes."""

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

    def run(self, steps: int | None = None, callback: Callable[[StepMetrics], None] | None = None):
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
        """One GRPO update (then an evaluation when due); a no-op returning the last metrics
        once finished."""
        if self.finished:
            return self.metrics[-1]
        began = time.perf_counter()
        self.step_count += 1
        config = self.config
        prompts, completions, lengths, tokens, rewards = self._sample()
        degenerate = np.all(rewards == rewards[:, :1], axis=1)
        if config.algorithm == "dapo":
            prompts, completions, lengths, tokens, rewards, degenerate, sampled = self._dapo_more(
                prompts, completions, lengths, tokens, rewards, degenerate
            )
            informative = np.flatnonzero(~degenerate)[: config.batch]
            used = np.zeros(len(prompts), dtype=bool)
            used[informative] = True
        else:
            sampled = len(prompts)
            used = np.ones(len(prompts), dtype=bool)
        chosen = np.flatnonzero(used) if used.any() else np.arange(len(prompts))
        advantages = self._advantages(rewards[chosen]) if used.any() else None
        update = self._update(prompts, tokens, chosen, rewards[chosen], advantages)
        all_adv = np.zeros(rewards.shape)
        if advantages is not None:
            all_adv[chosen] = advantages
        self.groups.append(self._groups(prompts, completions, rewards, all_adv, used))
        metrics = StepMetrics(
            step=self.step_count,
            reward_mean=float(rewards[:sampled].mean()),
            degenerate_fraction=float(degenerate[:sampled].mean()),
            kl=update["kl"],
            entropy=update["entropy"],
            loss=update["loss"],
            completion_length=float(lengths[:sampled].mean()),
            groups_sampled=int(sampled),
            groups_used=int(used.sum()),
            clip_fraction=update["clip_fraction"],
            grad_norm=update["grad_norm"],
            seconds=0.0,
        )
        every = config.eval_every
        if self.finished or (every and self.step_count % every == 0):
            self.evals.append(self.evaluate())
        metrics = StepMetrics(**{**asdict(metrics), "seconds": time.perf_counter() - began})
        self.metrics.append(metrics)
        return metrics

    def _sample(self):
        """``batch`` fresh prompts and G completions of each: (prompts, completion texts (B, G),
        lengths (B, G), token ids (B·G, max_new), rewards (B, G))."""
        config, task = self.config, self.task
        size = config.group_size
        prompts = task.train_prompts(self._prompt_rng, config.batch)
        rows = [ids for ids in (encode(p) for p in prompts) for _ in range(size)]
        uniforms = self._token_rng.random((len(rows), task.max_new))
        written = generate(
            self.model.parameters(),
            self.model.config,
            rows,
            task.max_new,
            uniforms,
            config.temperature,
        )
        texts = [decode(row) for row in written.tokens]
        flat_prompts = [p for p in prompts for _ in range(size)]
        rewards, _ = grade(task, flat_prompts, texts, config.reward_weights)
        shape = (len(prompts), size)
        completions = np.array(texts, dtype=object).reshape(shape)
        return (
            prompts,
            completions,
            written.lengths.reshape(shape),
            written.tokens.reshape(*shape, -1),
            rewards.reshape(shape),
        )

    def _dapo_more(self, prompts, completions, lengths, tokens, rewards, degenerate):
        """DAPO's dynamic sampling: draw further batches until ``batch`` groups carry signal
        (at most ``dapo_max_draws`` batches); returns the groups and how many were needed."""
        config = self.config
        parts = [(prompts, completions, lengths, tokens, rewards, degenerate)]
        draws = 1
        while (sum(int((~p[5]).sum()) for p in parts) < config.batch) and (
            draws < config.dapo_max_draws
        ):
            more = self._sample()
            parts.append((*more, np.all(more[4] == more[4][:, :1], axis=1)))
            draws += 1
        prompts = [p for part in parts for p in part[0]]
        stacked = [np.concatenate([part[i] for part in parts]) for i in range(1, 6)]
        informative = np.cumsum(~stacked[4])
        reached = np.flatnonzero(informative >= config.batch)
        sampled = int(reached[0]) + 1 if reached.size else len(prompts)
        return (prompts, *stacked, sampled)

    def _advantages(self, rewards: np.ndarray) -> np.ndarray:
        convention = self.config.advantage_convention
        if convention is None:  # REINFORCE: the reward itself, no baseline
            return rewards.astype(np.float64)
        return group_advantages(rewards, convention)

    def _update(self, prompts, tokens, chosen, rewards, advantages) -> dict[str, float]:
        """Epochs of loss, backward and Adam on the chosen groups (no step when ``advantages``
        is None: nothing to learn from); returns the metrics of the first epoch."""
        config, task = self.config, self.task
        size = config.group_size
        params, net = self.model.parameters(), self.model.config
        prompt_ids = [encode(prompts[g]) for g in chosen for _ in range(size)]
        batch = teacher_batch(prompt_ids, tokens[chosen].reshape(len(prompt_ids), -1), net.n_ctx)
        mask = batch.mask
        real = mask > 0
        ref_logp = completion_pass(self.reference, net, batch).logp.astype(np.float64)
        row_adv = np.zeros(len(prompt_ids)) if advantages is None else advantages.ravel()
        eps_low, eps_high = config.clip_range
        old_logp = None
        losses = []
        first: dict[str, float] = {}
        for epoch in range(config.epochs if advantages is not None else 1):
            forward_pass: CompletionPass = completion_pass(params, net, batch)
            logp = forward_pass.logp.astype(np.float64)
            if old_logp is None:
                old_logp = logp
                diff = ref_logp[real] - logp[real]
                first["kl"] = float(np.mean(np.exp(diff) - diff - 1.0))
                first["entropy"] = float(forward_pass.entropy[real].mean())
            result = policy_loss(
                logp,
                old_logp,
                row_adv,
                mask,
                preset=config.loss_preset,
                ref_logp=ref_logp if config.beta > 0 else None,
                eps_low=eps_low,
                eps_high=eps_high,
                beta=config.beta,
                max_completion_length=task.max_new,
                kl_estimator=config.kl_estimator,
            )
            losses.append(result)
            if epoch == 0:
                first["loss"] = result.loss
                first["clip_fraction"] = result.clip_fraction
                first["grad_norm"] = 0.0
            if advantages is None:
                break
            norm = self._optimiser.step(params, forward_pass.gradients(result.grad_logp))
            if epoch == 0:
                first["grad_norm"] = norm
        self.last_update = StepUpdate(
            rewards=rewards,
            advantages=row_adv.reshape(rewards.shape),
            logp=old_logp,
            old_logp=old_logp,
            ref_logp=ref_logp,
            mask=mask,
            losses=tuple(losses),
        )
        return first

    def _groups(self, prompts, completions, rewards, advantages, used) -> tuple[LMGroup, ...]:
        return tuple(
            LMGroup(
                prompt=prompt,
                answer=self.task.target(prompt),
                completions=tuple(completions[g]),
                rewards=tuple(float(r) for r in rewards[g]),
                advantages=tuple(float(a) for a in advantages[g]),
                used=bool(used[g]),
            )
            for g, prompt in enumerate(prompts)
        )
