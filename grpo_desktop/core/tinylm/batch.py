"""Reading given answers: one teacher-forced pass over many (prompt, completion) pairs at once.

Every pair becomes one row ``[start] prompt completion`` padded on the right (the causal mask
keeps padding from reaching earlier positions). The completion's tokens are gathered into a
(N, Tc) matrix with a 0/1 mask: the shape ``policy_loss`` takes. Backward goes the other way:
∂loss/∂logp of each completion token becomes ∂loss/∂logits, then the network's backward.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.tinylm.decode import output_log_probs
from grpo_desktop.core.tinylm.network import NetworkConfig, backward, forward
from grpo_desktop.core.tinylm.vocab import BOS_ID, PAD_ID

__all__ = ["CompletionPass", "TeacherBatch", "completion_pass", "teacher_batch"]


@dataclass(frozen=True)
class TeacherBatch:
    """Token rows and where each completion token sits in them."""

    tokens: np.ndarray  # (N, T) start, prompt, completion, padding
    rows: np.ndarray  # (N, Tc) row index of each completion slot
    predict_at: np.ndarray  # (N, Tc) the position whose logits predict that slot's token
    targets: np.ndarray  # (N, Tc) the completion's token ids (PAD where masked)
    mask: np.ndarray  # (N, Tc) float 1 for a real completion token, 0 for padding

    @property
    def size(self) -> int:
        return int(self.tokens.shape[0])


def teacher_batch(
    prompts: list[list[int]], completions: list[list[int]] | np.ndarray, n_ctx: int
) -> TeacherBatch:
    """Rows for ``prompts`` followed by ``completions`` (token id lists, or an (N, Tc) array
    padded with PAD_ID after each completion)."""
    if isinstance(completions, np.ndarray):
        lengths = (completions != PAD_ID).sum(axis=1)
        comp = [row[:n].tolist() for row, n in zip(completions, lengths)]
    else:
        comp = [list(c) for c in completions]
    count = len(prompts)
    completion_width = max(1, max(len(c) for c in comp))
    width = 1 + max(len(p) + len(c) for p, c in zip(prompts, comp))
    if width > n_ctx:
        raise ValueError(f"a prompt and its completion exceed the model's {n_ctx} tokens")
    tokens = np.full((count, width), PAD_ID, dtype=np.int64)
    targets = np.full((count, completion_width), PAD_ID, dtype=np.int64)
    predict_at = np.zeros((count, completion_width), dtype=np.int64)
    mask = np.zeros((count, completion_width), dtype=np.float64)
    for row, (prompt, completion) in enumerate(zip(prompts, comp)):
        sequence = [BOS_ID, *prompt, *completion]
        tokens[row, : len(sequence)] = sequence
        n = len(completion)
        targets[row, :n] = completion
        predict_at[row] = len(prompt) + np.minimum(np.arange(completion_width), max(n - 1, 0))
        mask[row, :n] = 1.0
    rows = np.broadcast_to(np.arange(count)[:, None], targets.shape)
    return TeacherBatch(tokens, rows, predict_at, targets, mask)


@dataclass
class CompletionPass:
    """One forward pass over a batch: each completion token's log-probability, and the means to
    turn ∂loss/∂logp into parameter gradients."""

    batch: TeacherBatch
    logp: np.ndarray  # (N, Tc) log-probability of each completion token, 0 at padding
    entropy: np.ndarray  # (N, Tc) entropy of the distribution each token was drawn from
    probs: np.ndarray  # (N, Tc, V) that distribution: every token's probability there
    _params: dict[str, np.ndarray]
    _config: NetworkConfig
    _saved: dict

    def gradients(self, grad_logp: np.ndarray) -> dict[str, np.ndarray]:
        """∂loss/∂parameters for ∂loss/∂logp (N, Tc) (padding must be 0).

        ∂logp(y)/∂logits = onehot(y) − softmax, at the position that predicted y.
        """
        b = self.batch
        dtype = self.probs.dtype
        g = np.asarray(grad_logp, dtype=dtype) * b.mask.astype(dtype)
        dslot = -g[..., None] * self.probs
        real = b.mask > 0  # real slots are distinct positions: plain indexing, no add.at
        slots = np.broadcast_to(np.arange(b.targets.shape[1]), b.targets.shape)
        dslot[b.rows[real], slots[real], b.targets[real]] += g[real]
        dlogits = np.zeros((*b.tokens.shape, self.probs.shape[-1]), dtype=dtype)
        dlogits[b.rows[real], b.predict_at[real]] = dslot[real]
        return backward(self._params, self._config, self._saved, dlogits)


def completion_pass(
    params: dict[str, np.ndarray], config: NetworkConfig, batch: TeacherBatch
) -> CompletionPass:
    """Log-probabilities of every completion token in ``batch``, ready for backward."""
    logits, saved = forward(params, config, batch.tokens)
    slot_logits = logits[batch.rows, batch.predict_at]  # (N, Tc, V)
    log_probs = output_log_probs(slot_logits)
    probs = np.exp(log_probs)
    logp = np.take_along_axis(log_probs, batch.targets[..., None], axis=-1)[..., 0]
    logp = np.where(batch.mask > 0, logp, 0.0)
    entropy = -(probs * np.where(probs > 0, log_probs, 0.0)).sum(axis=-1)
    return CompletionPass(batch, logp, entropy, probs, params, config, saved)
