"""The transformer itself: parameters, a forward pass that keeps what backward needs, and backward.

Pure numpy, written out by hand so a student can read every step and so the gradient can be
checked against finite differences (float64) while training runs in float32. A pre-norm GPT
block: ``x += attn(LN(x)); x += MLP(LN(x))`` with ReLU (GELU cost a quarter of a step here),
then a final layer norm and an unembedding. Parameters live in a plain ``dict[str, ndarray]``
so optimisers, checkpoints and the GUI all see the same names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

__all__ = [
    "LN_EPS",
    "NetworkConfig",
    "backward",
    "forward",
    "init_params",
    "layer_norm",
    "merge_heads",
    "param_shapes",
    "split_heads",
]

LN_EPS = 1e-5


@dataclass(frozen=True)
class NetworkConfig:
    """The network's sizes; a checkpoint stores them beside its weights."""

    vocab_size: int
    n_ctx: int = 32
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_mlp: int = 256

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def param_shapes(config: NetworkConfig) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape, in a fixed order (checkpoints and Adam rely on it)."""
    d, f, v = config.d_model, config.d_mlp, config.vocab_size
    shapes: dict[str, tuple[int, ...]] = {"wte": (v, d), "wpe": (config.n_ctx, d)}
    for layer in range(config.n_layers):
        p = f"h{layer}."
        shapes.update(
            {
                p + "ln1.g": (d,),
                p + "ln1.b": (d,),
                p + "attn.w_qkv": (d, 3 * d),
                p + "attn.b_qkv": (3 * d,),
                p + "attn.w_o": (d, d),
                p + "attn.b_o": (d,),
                p + "ln2.g": (d,),
                p + "ln2.b": (d,),
                p + "mlp.w_in": (d, f),
                p + "mlp.b_in": (f,),
                p + "mlp.w_out": (f, d),
                p + "mlp.b_out": (d,),
            }
        )
    shapes.update({"ln_f.g": (d,), "ln_f.b": (d,), "w_out": (d, v), "b_out": (v,)})
    return shapes


def init_params(
    config: NetworkConfig, rng: np.random.Generator, dtype=np.float32
) -> dict[str, np.ndarray]:
    """GPT-2's initialisation: N(0, 0.02) weights, residual outputs scaled by 1/sqrt(2 layers)."""
    params = {}
    residual_std = 0.02 / np.sqrt(2 * config.n_layers)
    for name, shape in param_shapes(config).items():
        if name.endswith(".g"):
            value = np.ones(shape)
        elif len(shape) == 1:
            value = np.zeros(shape)
        else:
            std = residual_std if name.endswith(("attn.w_o", "mlp.w_out")) else 0.02
            value = rng.normal(0.0, std, size=shape)
        params[name] = value.astype(dtype)
    return params


# --- pieces ------------------------------------------------------------------------------------


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray):
    """(LN(x)·g + b, what its backward needs); shared with the sampler in :mod:`.decode`."""
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    rstd = 1.0 / np.sqrt((centered * centered).mean(axis=-1, keepdims=True) + LN_EPS)
    xhat = centered * rstd
    return xhat * g + b, (xhat, rstd)


def layer_norm_back(dy: np.ndarray, g: np.ndarray, saved) -> tuple[np.ndarray, ...]:
    xhat, rstd = saved
    flat_dy = dy.reshape(-1, dy.shape[-1])
    dg = np.einsum("ij,ij->j", flat_dy, xhat.reshape(flat_dy.shape))
    db = flat_dy.sum(axis=0)
    dxhat = dy * g
    dx = rstd * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    )
    return dx, dg, db


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(B, T, d) → (B, H, T, d/H)."""
    batch, length, width = x.shape
    return x.reshape(batch, length, heads, width // heads).transpose(0, 2, 1, 3)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(B, H, T, d/H) → (B, T, d)."""
    batch, heads, length, dim = x.shape
    return x.transpose(0, 2, 1, 3).reshape(batch, length, heads * dim)


def _softmax(scores: np.ndarray) -> np.ndarray:
    shifted = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def _causal_mask(length: int) -> np.ndarray:
    return np.tril(np.ones((length, length), dtype=bool))


def _matmul_2d(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(…, a) @ (a, b) as one 2-D BLAS call (numpy's stacked matmul is slower here)."""
    return (x.reshape(-1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[-1])


def _onehot_sum(ids: np.ndarray, grads: np.ndarray, rows: int) -> np.ndarray:
    """Σ of ``grads`` rows per id (an embedding's gradient), as one matrix product."""
    flat = ids.reshape(-1)
    onehot = np.zeros((flat.size, rows), dtype=grads.dtype)
    onehot[np.arange(flat.size), flat] = 1.0
    return onehot.T @ grads.reshape(flat.size, -1)


# --- forward and backward ----------------------------------------------------------------------


def forward(
    params: dict[str, np.ndarray],
    config: NetworkConfig,
    tokens: np.ndarray,
    positions: np.ndarray | None = None,
    key_valid: np.ndarray | None = None,
) -> tuple[np.ndarray, dict]:
    """Logits (B, T, V) of ``tokens`` (B, T) and what :func:`backward` needs.

    ``positions`` default to 0…T−1 in every row; ``key_valid`` (B, T) hides padding on the left
    from attention (a position always sees itself, so padding rows stay finite).
    """
    length = tokens.shape[1]
    if positions is None:
        positions = np.broadcast_to(np.arange(length), tokens.shape)
    heads = config.n_heads
    scale = np.asarray(1.0 / np.sqrt(config.head_dim), dtype=params["wte"].dtype)
    allowed = _causal_mask(length)[None, None]
    if key_valid is not None:
        allowed = allowed & (key_valid[:, None, None, :] | np.eye(length, dtype=bool))
    x = params["wte"][tokens] + params["wpe"][positions]
    saved: dict = {"tokens": tokens, "positions": positions, "layers": []}
    for layer in range(config.n_layers):
        p = f"h{layer}."
        h, ln1 = layer_norm(x, params[p + "ln1.g"], params[p + "ln1.b"])
        qkv = _matmul_2d(h, params[p + "attn.w_qkv"]) + params[p + "attn.b_qkv"]
        q, k, v = (split_heads(part, heads) for part in np.split(qkv, 3, axis=-1))
        scores = np.where(allowed, (q @ k.transpose(0, 1, 3, 2)) * scale, -np.inf)
        probs = _softmax(scores)
        attended = merge_heads(probs @ v)
        x = x + _matmul_2d(attended, params[p + "attn.w_o"]) + params[p + "attn.b_o"]
        h2, ln2 = layer_norm(x, params[p + "ln2.g"], params[p + "ln2.b"])
        pre = _matmul_2d(h2, params[p + "mlp.w_in"]) + params[p + "mlp.b_in"]
        act = np.maximum(pre, 0)
        x = x + _matmul_2d(act, params[p + "mlp.w_out"]) + params[p + "mlp.b_out"]
        saved["layers"].append((h, ln1, q, k, v, probs, attended, h2, ln2, pre, act))
    hf, lnf = layer_norm(x, params["ln_f.g"], params["ln_f.b"])
    logits = _matmul_2d(hf, params["w_out"]) + params["b_out"]
    saved.update(hf=hf, lnf=lnf, scale=scale)
    return logits, saved


def backward(
    params: dict[str, np.ndarray], config: NetworkConfig, saved: dict, dlogits: np.ndarray
) -> dict[str, np.ndarray]:
    """∂loss/∂every parameter, given ∂loss/∂logits (B, T, V) and :func:`forward`'s ``saved``."""
    grads: dict[str, np.ndarray] = {}
    width = config.d_model
    flat_dlogits = dlogits.reshape(-1, dlogits.shape[-1])
    grads["w_out"] = saved["hf"].reshape(-1, width).T @ flat_dlogits
    grads["b_out"] = flat_dlogits.sum(axis=0)
    dx, grads["ln_f.g"], grads["ln_f.b"] = layer_norm_back(
        _matmul_2d(dlogits, params["w_out"].T), params["ln_f.g"], saved["lnf"]
    )
    scale = saved["scale"]
    for layer in reversed(range(config.n_layers)):
        p = f"h{layer}."
        h, ln1, q, k, v, probs, attended, h2, ln2, pre, act = saved["layers"][layer]
        # MLP: x += relu(LN2(x) @ W_in + b_in) @ W_out + b_out
        flat_dx = dx.reshape(-1, width)
        grads[p + "mlp.w_out"] = act.reshape(-1, act.shape[-1]).T @ flat_dx
        grads[p + "mlp.b_out"] = flat_dx.sum(axis=0)
        dpre = _matmul_2d(dx, params[p + "mlp.w_out"].T) * (pre > 0)
        flat_dpre = dpre.reshape(-1, dpre.shape[-1])
        grads[p + "mlp.w_in"] = h2.reshape(-1, width).T @ flat_dpre
        grads[p + "mlp.b_in"] = flat_dpre.sum(axis=0)
        dh2, grads[p + "ln2.g"], grads[p + "ln2.b"] = layer_norm_back(
            _matmul_2d(dpre, params[p + "mlp.w_in"].T), params[p + "ln2.g"], ln2
        )
        dx = dx + dh2
        # attention: x += merge(softmax(q kᵀ · scale) v) @ W_o + b_o
        flat_dx = dx.reshape(-1, width)
        grads[p + "attn.w_o"] = attended.reshape(-1, width).T @ flat_dx
        grads[p + "attn.b_o"] = flat_dx.sum(axis=0)
        dattended = split_heads(_matmul_2d(dx, params[p + "attn.w_o"].T), config.n_heads)
        dprobs = dattended @ v.transpose(0, 1, 3, 2)
        dv = probs.transpose(0, 1, 3, 2) @ dattended
        dscores = probs * (dprobs - (dprobs * probs).sum(axis=-1, keepdims=True)) * scale
        dq = dscores @ k
        dk = dscores.transpose(0, 1, 3, 2) @ q
        dqkv = np.concatenate([merge_heads(dq), merge_heads(dk), merge_heads(dv)], axis=-1)
        flat_dqkv = dqkv.reshape(-1, 3 * width)
        grads[p + "attn.w_qkv"] = h.reshape(-1, width).T @ flat_dqkv
        grads[p + "attn.b_qkv"] = flat_dqkv.sum(axis=0)
        dh, grads[p + "ln1.g"], grads[p + "ln1.b"] = layer_norm_back(
            _matmul_2d(dqkv, params[p + "attn.w_qkv"].T), params[p + "ln1.g"], ln1
        )
        dx = dx + dh
    grads["wte"] = _onehot_sum(saved["tokens"], dx, config.vocab_size)
    grads["wpe"] = _onehot_sum(saved["positions"], dx, config.n_ctx)
    return {name: grads[name] for name in params}
