"""Supervised pretraining: the starting checkpoint GRPO improves on.

Teacher forcing on training prompts only (never a held-out one), cross-entropy on the answer's
tokens, Adam. Stopped early on purpose: the shipped model should be *mediocre* on the default
task (held-out exact pass rate between 0.15 and 0.6) so a class can watch GRPO lift it.
Seeded and single-process, so the same settings give the same weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.blas import use_one_blas_thread
from grpo_desktop.core.tinylm.model import TinyLM
from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.tinylm.vocab import VOCAB_SIZE, encode

__all__ = ["PretrainConfig", "pretrain"]


@dataclass(frozen=True)
class PretrainConfig:
    steps: int = 400
    batch: int = 128
    learning_rate: float = 2e-3
    warmup: int = 50
    seed: int = 0
    #: task → share of each batch
    mixture: dict[str, float] = field(
        default_factory=lambda: {"add": 0.6, "add3": 0.2, "sort": 0.2}
    )
    network: NetworkConfig = field(default_factory=lambda: NetworkConfig(vocab_size=VOCAB_SIZE))

    def as_dict(self) -> dict:
        return {**asdict(self), "network": self.network.as_dict()}


def _batch_prompts(config: PretrainConfig, rng: np.random.Generator) -> list[tuple[str, str]]:
    names = list(config.mixture)
    shares = np.array([config.mixture[n] for n in names], dtype=np.float64)
    counts = rng.multinomial(config.batch, shares / shares.sum())
    pairs = []
    for name, count in zip(names, counts):
        task = get_task(name)
        pairs.extend((p, task.target(p)) for p in task.train_prompts(rng, int(count)))
    return pairs


def pretrain(
    config: PretrainConfig, progress: Callable[[int, float, TinyLM], None] | None = None
) -> TinyLM:
    """A model trained by ``config``; ``progress(step, loss, model)`` is called after every
    step (the model as it is then, to evaluate or save)."""
    use_one_blas_thread()
    model = TinyLM.initialised(config.network, seed=config.seed)
    params = model.parameters()
    optimiser = Adam(params, lr=config.learning_rate, clip_norm=1.0)
    rng = np.random.default_rng([config.seed, 1])
    for step in range(1, config.steps + 1):
        pairs = _batch_prompts(config, rng)
        batch = teacher_batch(
            [encode(p) for p, _ in pairs], [encode(t) for _, t in pairs], config.network.n_ctx
        )
        forward_pass = completion_pass(params, config.network, batch)
        tokens = batch.mask.sum()
        loss = float(-forward_pass.logp.sum() / tokens)
        optimiser.lr = config.learning_rate * min(1.0, step / max(config.warmup, 1))
        optimiser.step(params, forward_pass.gradients(-batch.mask / tokens))
        if progress is not None:
            progress(step, loss, model)
    model.info = {
        "trained_on": "supervised: " + ", ".join(config.mixture),
        "pretrain": config.as_dict(),
    }
    return model
