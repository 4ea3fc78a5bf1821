"""The hand-written backward pass against central finite differences, in float64."""

import numpy as np
import pytest

from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.network import NetworkConfig, init_params, param_shapes
from grpo_desktop.core.tinylm.vocab import VOCAB_SIZE

CONFIG = NetworkConfig(vocab_size=VOCAB_SIZE)  # the shipped sizes: 2 layers, d 64, 4 heads


def random_setup(seed: int):
    """Random float64 weights (far from the initialisation, so every path carries gradient) and
    random token sequences of different lengths."""
    rng = np.random.default_rng(seed)
    params = init_params(CONFIG, rng, dtype=np.float64)
    for value in params.values():
        value += rng.normal(0.0, 0.3, value.shape)
    prompts, completions = [], []
    for length, answer in ((4, 3), (9, 2), (6, 5)):
        prompts.append(rng.integers(2, VOCAB_SIZE, size=length).tolist())
        completions.append(rng.integers(2, VOCAB_SIZE, size=answer).tolist())
    batch = teacher_batch(prompts, completions, CONFIG.n_ctx)
    weights = rng.normal(size=batch.mask.shape) * batch.mask  # a random ∂loss/∂logp
    return params, batch, weights


def objective(params, batch, weights) -> float:
    return float((completion_pass(params, CONFIG, batch).logp * weights).sum())


def relative_error(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_matches_central_differences_for_every_parameter(seed):
    params, batch, weights = random_setup(seed)
    forward_pass = completion_pass(params, CONFIG, batch)
    grads = forward_pass.gradients(weights)
    assert set(grads) == set(param_shapes(CONFIG))
    rng = np.random.default_rng(100 + seed)
    step = 1e-6
    for name, value in params.items():
        assert grads[name].shape == value.shape and grads[name].dtype == np.float64
        direction = rng.normal(size=value.shape)
        original = value.copy()
        value[...] = original + step * direction
        plus = objective(params, batch, weights)
        value[...] = original - step * direction
        minus = objective(params, batch, weights)
        value[...] = original
        numeric = (plus - minus) / (2 * step)
        analytic = float((grads[name] * direction).sum())
        assert relative_error(analytic, numeric) <= 1e-6, (name, analytic, numeric)


def test_single_coordinates_match_too():
    params, batch, weights = random_setup(2)
    grads = completion_pass(params, CONFIG, batch).gradients(weights)
    rng = np.random.default_rng(7)
    for name in ("wte", "wpe", "h0.attn.w_qkv", "h1.mlp.w_in", "ln_f.g", "w_out"):
        value = params[name]
        for _ in range(3):
            index = tuple(int(rng.integers(n)) for n in value.shape)
            if name == "wte":  # a token that occurs, so the coordinate has a gradient
                index = (int(batch.tokens[0, 1]), index[1])
            original = value[index]
            value[index] = original + 1e-6
            plus = objective(params, batch, weights)
            value[index] = original - 1e-6
            minus = objective(params, batch, weights)
            value[index] = original
            numeric = (plus - minus) / 2e-6
            assert abs(grads[name][index] - numeric) <= 1e-6 * max(abs(numeric), 1e-3), name


def test_float32_forward_agrees_with_float64():
    params, batch, _ = random_setup(3)
    logp64 = completion_pass(params, CONFIG, batch).logp
    params32 = {name: value.astype(np.float32) for name, value in params.items()}
    result = completion_pass(params32, CONFIG, batch)
    assert result.logp.dtype == np.float32
    np.testing.assert_allclose(result.logp, logp64, atol=2e-4)


def test_padding_after_a_completion_changes_nothing_before_it():
    params, _, _ = random_setup(4)
    short = teacher_batch([[5, 6, 7]], [[8, 9]], CONFIG.n_ctx)
    longer = teacher_batch(
        [[5, 6, 7], [5, 6, 7, 8, 9, 10, 11]], [[8, 9], [3, 3, 3, 3]], CONFIG.n_ctx
    )
    a = completion_pass(params, CONFIG, short).logp[0]
    b = completion_pass(params, CONFIG, longer).logp[0, :2]
    np.testing.assert_allclose(a, b, rtol=1e-12)
