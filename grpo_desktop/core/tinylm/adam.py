"""Adam, the optimiser every GRPO trainer uses, over a dict of numpy parameters.

Moments are kept in the parameters' own dtype and updated in place, so a float32 model stays
float32 and a step allocates little. DESIGN §8: a fresh Adam at lr 1e-3 wrecks the pretrained
checkpoint within a few GRPO steps; lr 1e-4 to 3e-4 works.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Adam", "global_norm"]


def global_norm(grads: dict[str, np.ndarray]) -> float:
    """The gradient's Euclidean norm over every parameter (float64 sum)."""
    return float(np.sqrt(sum(float(np.vdot(g, g)) for g in grads.values())))


class Adam:
    """Adam (Kingma & Ba) with bias correction and an optional global-norm clip."""

    def __init__(
        self,
        params: dict[str, np.ndarray],
        lr: float = 3e-4,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        clip_norm: float | None = None,
    ) -> None:
        self.lr, self.betas, self.eps, self.clip_norm = lr, betas, eps, clip_norm
        self.m = {name: np.zeros_like(value) for name, value in params.items()}
        self.v = {name: np.zeros_like(value) for name, value in params.items()}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> float:
        """Update ``params`` in place from ``grads``; returns the gradient norm before clipping."""
        norm = global_norm(grads)
        factor = 1.0
        if self.clip_norm is not None and norm > self.clip_norm:
            factor = self.clip_norm / (norm + 1e-12)
        self.t += 1
        b1, b2 = self.betas
        step_size = self.lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for name, value in params.items():
            g = grads[name] * value.dtype.type(factor) if factor != 1.0 else grads[name]
            m, v = self.m[name], self.v[name]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * (g * g)
            value -= (step_size * m / (np.sqrt(v) + self.eps)).astype(value.dtype, copy=False)
        return norm
