"""Writing answers: the forward pass again, one new token at a time, with a key/value cache.

Without the cache every new token re-reads the whole prefix (the prototype spent 60 % of a GRPO
step there). Prompts of different lengths are padded on the left and hidden from attention, and
each row keeps its own positions, so every row computes what it would alone: the probabilities
agree with the teacher-forced pass in :mod:`.batch` to float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.tinylm.network import NetworkConfig, layer_norm, merge_heads, split_heads
from grpo_desktop.core.tinylm.vocab import BOS_ID, END_ID, PAD_ID

__all__ = ["Generation", "generate", "output_log_probs"]

#: Tokens the model never writes (padding, the start token): always probability 0.
_SILENT = (PAD_ID, BOS_ID)


def output_log_probs(logits: np.ndarray) -> np.ndarray:
    """Log-softmax over the tokens the model may write (padding and the start token excluded)."""
    logits = logits.copy()
    logits[..., list(_SILENT)] = -np.inf
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


class _Cache:
    """Keys and values of every layer for the positions seen so far."""

    def __init__(self, config: NetworkConfig, rows: int, capacity: int, dtype) -> None:
        shape = (rows, config.n_heads, capacity, config.head_dim)
        self.keys = [np.zeros(shape, dtype=dtype) for _ in range(config.n_layers)]
        self.values = [np.zeros(shape, dtype=dtype) for _ in range(config.n_layers)]
        self.key_valid = np.zeros((rows, capacity), dtype=bool)
        self.length = 0


def _extend(
    params: dict[str, np.ndarray],
    config: NetworkConfig,
    cache: _Cache,
    tokens: np.ndarray,
    positions: np.ndarray,
    valid: np.ndarray,
) -> np.ndarray:
    """Logits (N, V) after the chunk ``tokens`` (N, t); its keys and values join the cache."""
    count = tokens.shape[1]
    start, end = cache.length, cache.length + count
    cache.key_valid[:, start:end] = valid
    scale = np.asarray(1.0 / np.sqrt(config.head_dim), dtype=params["wte"].dtype)
    query_at = np.arange(start, end)[:, None]
    key_at = np.arange(end)[None, :]
    allowed = (key_at <= query_at)[None, None] & (
        cache.key_valid[:, None, None, :end] | (key_at == query_at)[None, None]
    )
    x = params["wte"][tokens] + params["wpe"][positions]
    for layer in range(config.n_layers):
        p = f"h{layer}."
        h, _ = layer_norm(x, params[p + "ln1.g"], params[p + "ln1.b"])
        qkv = h @ params[p + "attn.w_qkv"] + params[p + "attn.b_qkv"]
        q, k, v = (split_heads(part, config.n_heads) for part in np.split(qkv, 3, axis=-1))
        cache.keys[layer][:, :, start:end] = k
        cache.values[layer][:, :, start:end] = v
        keys = cache.keys[layer][:, :, :end]
        scores = np.where(allowed, (q @ keys.transpose(0, 1, 3, 2)) * scale, -np.inf)
        scores = scores - scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        attended = merge_heads(probs @ cache.values[layer][:, :, :end])
        x = x + attended @ params[p + "attn.w_o"] + params[p + "attn.b_o"]
        h2, _ = layer_norm(x, params[p + "ln2.g"], params[p + "ln2.b"])
        act = np.maximum(h2 @ params[p + "mlp.w_in"] + params[p + "mlp.b_in"], 0)
        x = x + act @ params[p + "mlp.w_out"] + params[p + "mlp.b_out"]
    cache.length = end
    last = x[:, -1]
    hf, _ = layer_norm(last, params["ln_f.g"], params["ln_f.b"])
    return hf @ params["w_out"] + params["b_out"]


@dataclass(frozen=True)
class Generation:
    """Sampled completions: token ids (N, max_new) padded after the end token, and lengths."""

    tokens: np.ndarray
    lengths: np.ndarray  # tokens written, the end token included
    finished: np.ndarray  # wrote the end token within max_new
    logp: np.ndarray  # (N, max_new) log p of each written token at temperature 1; 0 after


def generate(
    params: dict[str, np.ndarray],
    config: NetworkConfig,
    prompts: list[list[int]],
    max_new: int,
    uniforms: np.ndarray | None = None,
    temperature: float = 1.0,
) -> Generation:
    """Continue every prompt (token ids, without the start token) until the end token or
    ``max_new`` tokens. ``uniforms`` (N, max_new) in [0, 1) pick tokens by inverse CDF at
    ``temperature``; ``None`` writes greedily (the most likely token, the lowest id on a tie).

    The random numbers are drawn by the caller, all at once, so a row's answer depends only on
    its own numbers and never on when the other rows finish.
    """
    rows = len(prompts)
    width = 1 + max(len(prompt) for prompt in prompts)
    if width + max_new > config.n_ctx:
        raise ValueError(
            f"a prompt of {width - 1} characters and {max_new} new tokens exceed the model's "
            f"context of {config.n_ctx} tokens"
        )
    tokens = np.full((rows, width), PAD_ID, dtype=np.int64)
    for row, prompt in enumerate(prompts):
        tokens[row, width - 1 - len(prompt) :] = [BOS_ID, *prompt]
    valid = tokens != PAD_ID
    pads = width - valid.sum(axis=1)
    positions = np.maximum(np.arange(width)[None, :] - pads[:, None], 0)
    cache = _Cache(config, rows, width + max_new, params["wte"].dtype)
    logits = _extend(params, config, cache, tokens, positions, valid)
    out = np.full((rows, max_new), PAD_ID, dtype=np.int64)
    done = np.zeros(rows, dtype=bool)
    lengths = np.full(rows, max_new, dtype=np.int64)
    written_logp = np.zeros((rows, max_new))
    next_position = width - pads
    for step in range(max_new):
        log_probs = output_log_probs(logits.astype(np.float64))
        if uniforms is None:
            chosen = log_probs.argmax(axis=-1)
        else:
            scaled = log_probs / temperature
            probs = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
            cdf = np.cumsum(probs, axis=-1)
            threshold = uniforms[:, step] * cdf[:, -1]
            chosen = np.minimum((cdf <= threshold[:, None]).sum(axis=-1), cdf.shape[1] - 1)
        out[:, step] = np.where(done, PAD_ID, chosen)
        written_logp[:, step] = np.where(done, 0.0, log_probs[np.arange(rows), chosen])
        ended = ~done & (chosen == END_ID)
        lengths[ended] = step + 1
        done |= ended
        if done.all() or step == max_new - 1:
            break
        logits = _extend(
            params,
            config,
            cache,
            chosen[:, None],
            (next_position + step)[:, None],
            np.ones((rows, 1), dtype=bool),
        )
    return Generation(out, lengths, done, written_logp)
