"""The tiny language model as one object: read answers, write answers, gradients, save, load.

What the CLI, the GUI and a notebook use (``from grpo_desktop.core.tinylm import load_model``).
Every method takes text: a prompt such as ``"23+45="`` and a completion such as ``"68."`` (the
answer, then the end token ``"."``); characters outside the vocabulary are refused by name.
"""

from __future__ import annotations

import math
import os
from importlib import resources
from typing import Any

import numpy as np

from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.checkpoint import read_checkpoint, write_checkpoint
from grpo_desktop.core.tinylm.decode import Generation, generate
from grpo_desktop.core.tinylm.network import NetworkConfig, init_params
from grpo_desktop.core.tinylm.vocab import VOCAB_SIZE, decode, encode

__all__ = ["DEFAULT_CHECKPOINT", "MAX_SAMPLES", "TinyLM", "load_model"]

#: The shipped starting point, inside the package ``grpo_desktop.resources``.
DEFAULT_CHECKPOINT = "tinylm/add.npz"
MAX_SAMPLES = 4096
_DEFAULT_MAX_NEW = 8


class TinyLM:
    """A causal character transformer with its weights (``parameters()``) and sizes (``config``).

    ``info`` says where the weights came from (task, steps, seconds, seed) and travels with them
    into saved checkpoints.
    """

    def __init__(
        self,
        config: NetworkConfig,
        params: dict[str, np.ndarray],
        info: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self._params = params
        self.info = dict(info or {})

    @classmethod
    def initialised(cls, config: NetworkConfig | None = None, seed: int = 0) -> TinyLM:
        """A freshly initialised model (random weights) of ``config``'s sizes."""
        config = config or NetworkConfig(vocab_size=VOCAB_SIZE)
        return cls(config, init_params(config, np.random.default_rng(seed)))

    # --- weights -------------------------------------------------------------------------------

    def parameters(self) -> dict[str, np.ndarray]:
        """Name → weight array. The arrays are the model's own: changing one changes the model."""
        return dict(self._params)

    @property
    def dtype(self) -> np.dtype:
        return self._params["wte"].dtype

    @property
    def n_params(self) -> int:
        return int(sum(value.size for value in self._params.values()))

    def astype(self, dtype) -> TinyLM:
        """A copy with every weight in ``dtype`` (float64 for gradient checks)."""
        params = {name: value.astype(dtype, copy=True) for name, value in self._params.items()}
        return TinyLM(self.config, params, self.info)

    def copy(self) -> TinyLM:
        return self.astype(self.dtype)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write a checkpoint that :func:`load_model` reads back exactly."""
        write_checkpoint(path, self.config, self._params, self.info)

    # --- reading and writing text --------------------------------------------------------------

    def encode_prompt(self, prompt: str) -> list[int]:
        ids = encode(prompt, "prompt")
        if not ids:
            raise ValueError("the prompt is empty: give the model something to continue")
        return ids

    def _max_new(self, prompt: list[int], max_new: int | None) -> int:
        room = self.config.n_ctx - 1 - len(prompt)
        if room < 1:
            raise ValueError(
                f"the prompt is {len(prompt)} characters; the model reads at most "
                f"{self.config.n_ctx - 2}"
            )
        return room if max_new is None else min(max_new, room)

    def token_logprobs(self, prompt: str, completion: str) -> np.ndarray:
        """log p of each completion token given the prompt and the tokens before it (float64)."""
        p_ids, c_ids = self.encode_prompt(prompt), encode(completion, "completion")
        if not c_ids:
            return np.zeros(0)
        batch = teacher_batch([p_ids], [c_ids], self.config.n_ctx)
        return completion_pass(self._params, self.config, batch).logp[0].astype(np.float64)

    def grad_logprob_sum(self, prompt: str, completion: str) -> dict[str, np.ndarray]:
        """∂/∂θ of Σ log p(completion tokens): one gradient array per parameter."""
        p_ids, c_ids = self.encode_prompt(prompt), encode(completion, "completion")
        if not c_ids:
            return {name: np.zeros_like(value) for name, value in self._params.items()}
        batch = teacher_batch([p_ids], [c_ids], self.config.n_ctx)
        forward_pass = completion_pass(self._params, self.config, batch)
        return forward_pass.gradients(np.ones_like(forward_pass.logp))

    def generate(
        self,
        prompt: str,
        n: int,
        seed: int | None,
        temperature: float = 1.0,
        max_new: int | None = None,
    ) -> Generation:
        """Token ids of ``n`` completions (``seed=None``: greedy, all ``n`` the same)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_SAMPLES:
            raise ValueError(f"n must be a whole number from 1 to {MAX_SAMPLES}, got {n!r}")
        if not (isinstance(temperature, (int, float)) and math.isfinite(temperature)) or (
            temperature <= 0
        ):
            raise ValueError(f"temperature must be a finite number above 0, got {temperature!r}")
        ids = self.encode_prompt(prompt)
        steps = self._max_new(ids, _DEFAULT_MAX_NEW if max_new is None else max_new)
        uniforms = None
        if seed is not None:
            uniforms = np.random.default_rng(seed).random((int(n), steps))
        return generate(
            self._params, self.config, [ids] * int(n), steps, uniforms, float(temperature)
        )

    def sample(
        self,
        prompt: str,
        n: int,
        seed: int,
        temperature: float = 1.0,
        max_new: int | None = None,
    ) -> list[str]:
        """``n`` completions drawn at ``temperature``, each ending with the end token unless cut
        at ``max_new`` tokens (default 8). The same seed gives the same completions."""
        return [
            text for text, _ in self.sample_with_logprobs(prompt, n, seed, temperature, max_new)
        ]

    def sample_with_logprobs(
        self,
        prompt: str,
        n: int,
        seed: int,
        temperature: float = 1.0,
        max_new: int | None = None,
    ) -> list[tuple[str, np.ndarray]]:
        """Like :meth:`sample`, each completion with its tokens' log-probabilities under the
        model (at temperature 1, as :meth:`token_logprobs` gives them)."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a whole number from 0, got {seed!r}")
        out = self.generate(prompt, n, int(seed), temperature, max_new)
        return [
            (decode(row), out.logp[index, : int(out.lengths[index])].copy())
            for index, row in enumerate(out.tokens)
        ]

    def greedy(self, prompt: str, max_new: int | None = None) -> str:
        """The completion that takes the most likely token at every step."""
        return decode(self.generate(prompt, 1, None, 1.0, max_new).tokens[0])


def load_model(path: str | os.PathLike[str] | None = None) -> TinyLM:
    """The model in the checkpoint at ``path``; the shipped starting checkpoint by default.

    CheckpointError (a ValueError, one line naming the file) for anything that is not one.
    """
    if path is None:
        with resources.as_file(
            resources.files("grpo_desktop.resources").joinpath(DEFAULT_CHECKPOINT)
        ) as shipped:
            config, params, info = read_checkpoint(shipped)
    else:
        config, params, info = read_checkpoint(path)
    return TinyLM(config, params, info)
