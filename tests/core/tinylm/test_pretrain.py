"""Pretraining is seeded: the same settings give the same weights; the loss goes down."""

from dataclasses import replace

import numpy as np

from grpo_desktop.core.tinylm.network import NetworkConfig
from grpo_desktop.core.tinylm.pretrain import PretrainConfig, pretrain
from grpo_desktop.core.tinylm.vocab import VOCAB_SIZE

TINY = PretrainConfig(
    steps=12,
    batch=16,
    warmup=2,
    network=NetworkConfig(vocab_size=VOCAB_SIZE, d_model=16, n_heads=2, n_layers=1, d_mlp=32),
)


def test_same_seed_same_weights_and_the_loss_falls():
    losses = []
    a = pretrain(TINY, lambda step, loss, model: losses.append(loss))
    b = pretrain(TINY)
    for name, value in a.parameters().items():
        assert np.array_equal(value, b.parameters()[name])
    assert np.mean(losses[-3:]) < np.mean(losses[:3])
    c = pretrain(replace(TINY, seed=1))
    assert not np.array_equal(c.parameters()["wte"], a.parameters()["wte"])
    assert a.info["pretrain"]["steps"] == 12
