"""Adam as Kingma & Ba write it, and the one-BLAS-thread switch."""

import numpy as np

from grpo_desktop.core.tinylm.adam import Adam, global_norm
from grpo_desktop.core.tinylm.blas import use_one_blas_thread


def test_adam_matches_the_papers_update():
    rng = np.random.default_rng(0)
    theta = {"w": rng.normal(size=(3, 4))}
    expected = theta["w"].copy()
    m = np.zeros_like(expected)
    v = np.zeros_like(expected)
    adam = Adam(theta, lr=0.01)
    for t in range(1, 6):
        g = rng.normal(size=expected.shape)
        adam.step(theta, {"w": g.copy()})
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        alpha = 0.01 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        expected -= alpha * m / (np.sqrt(v) + 1e-8)
        np.testing.assert_allclose(theta["w"], expected, rtol=1e-12)


def test_adam_keeps_float32_and_clips():
    theta = {"w": np.ones(4, dtype=np.float32)}
    adam = Adam(theta, lr=0.1, clip_norm=1.0)
    norm = adam.step(theta, {"w": np.full(4, 10.0, dtype=np.float32)})
    assert norm == global_norm({"w": np.full(4, 10.0)}) == 20.0
    assert theta["w"].dtype == np.float32 and adam.m["w"].dtype == np.float32
    np.testing.assert_allclose(adam.m["w"], 0.1 * 10.0 / 20.0)


def test_one_blas_thread_is_safe_to_ask_for_twice():
    first = use_one_blas_thread()
    assert use_one_blas_thread() is first
    a = np.ones((64, 64), dtype=np.float32)
    assert float((a @ a)[0, 0]) == 64.0
