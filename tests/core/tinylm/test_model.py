"""The Python API the CLI and the GUI use (issue 28, item 7), on the shipped checkpoint."""

import numpy as np
import pytest

from grpo_desktop.core.tinylm import END, TinyLM, UnknownCharactersError, load_model


@pytest.fixture(scope="module")
def model() -> TinyLM:
    return load_model()


def test_token_logprobs_one_per_completion_token(model):
    logp = model.token_logprobs("23+45=", "68" + END)
    assert logp.shape == (3,) and logp.dtype == np.float64
    assert np.all(logp <= 0) and np.all(np.isfinite(logp))
    assert model.token_logprobs("23+45=", "").shape == (0,)


def test_token_logprobs_are_the_distribution_the_sampler_draws_from(model):
    # the probabilities of every one-token completion sum to 1 (padding and start excluded)
    from grpo_desktop.core.tinylm.vocab import CHARACTERS

    total = sum(np.exp(model.token_logprobs("7+8=", c)[0]) for c in CHARACTERS)
    assert total == pytest.approx(1.0, abs=1e-5)


def test_sample_is_seeded(model):
    first = model.sample("23+45=", 16, seed=4)
    assert first == model.sample("23+45=", 16, seed=4)
    assert first != model.sample("23+45=", 16, seed=5)
    assert len(first) == 16 and all(isinstance(text, str) for text in first)
    assert all(text.endswith(END) or len(text) == 8 for text in first)


def test_low_temperature_is_nearly_greedy(model):
    greedy = model.greedy("23+45=")
    assert model.sample("23+45=", 8, seed=0, temperature=1e-3) == [greedy] * 8


def test_parameters_are_the_models_own_arrays(model):
    params = model.parameters()
    assert set(params) >= {"wte", "wpe", "w_out", "b_out", "h0.attn.w_qkv", "h1.mlp.w_in"}
    assert all(value.dtype == np.float32 for value in params.values())
    assert sum(v.size for v in params.values()) == model.n_params


def test_astype_float64_is_a_copy_that_agrees(model):
    wide = model.astype(np.float64)
    assert wide.dtype == np.float64 and model.dtype == np.float32
    assert wide.parameters()["wte"] is not model.parameters()["wte"]
    np.testing.assert_allclose(
        wide.token_logprobs("5+5=", "10."), model.token_logprobs("5+5=", "10."), atol=1e-4
    )


def test_grad_logprob_sum_matches_finite_differences(model):
    wide = model.astype(np.float64)
    grads = wide.grad_logprob_sum("31+4=", "35.")
    assert set(grads) == set(wide.parameters())
    rng = np.random.default_rng(0)
    params = wide.parameters()
    for name in ("wte", "h1.attn.w_o", "b_out"):
        direction = rng.normal(size=params[name].shape)
        original = params[name].copy()
        params[name][...] = original + 1e-6 * direction
        plus = wide.token_logprobs("31+4=", "35.").sum()
        params[name][...] = original - 1e-6 * direction
        minus = wide.token_logprobs("31+4=", "35.").sum()
        params[name][...] = original
        numeric = (plus - minus) / 2e-6
        analytic = float((grads[name] * direction).sum())
        assert abs(analytic - numeric) <= 1e-6 * max(abs(numeric), 1e-9), name


@pytest.mark.parametrize("prompt", ["23×45=", "Sort 12=", "1+1=?", "ünï"])
def test_characters_outside_the_vocabulary_are_named(model, prompt):
    with pytest.raises(UnknownCharactersError) as caught:
        model.sample(prompt, 2, seed=0)
    bad = sorted({c for c in prompt if c not in "0123456789+-=* abcdefghijklmnopqrstuvwxyz."})
    assert all(repr(c) in str(caught.value) for c in bad)
    with pytest.raises(ValueError):
        model.token_logprobs(prompt, "1.")


def test_bad_arguments_are_refused(model):
    with pytest.raises(ValueError, match="empty"):
        model.sample("", 1, seed=0)
    with pytest.raises(ValueError, match="n must"):
        model.sample("1+1=", 0, seed=0)
    with pytest.raises(ValueError, match="temperature"):
        model.sample("1+1=", 1, seed=0, temperature=0)
    with pytest.raises(ValueError, match="seed"):
        model.sample("1+1=", 1, seed=-1)
    with pytest.raises(ValueError, match="at most"):
        model.sample("1" * 40, 1, seed=0)
    with pytest.raises(UnknownCharactersError, match="completion"):
        model.token_logprobs("1+1=", "2!")


def test_sample_with_logprobs_agrees_with_token_logprobs(model):
    pairs = model.sample_with_logprobs("12+34=", 4, seed=2)
    assert [text for text, _ in pairs] == model.sample("12+34=", 4, seed=2)
    for text, logp in pairs:
        np.testing.assert_allclose(logp, model.token_logprobs("12+34=", text), atol=1e-5)


def test_package_exports_load_on_first_use():
    import grpo_desktop.core.tinylm as package

    for name in package.__all__:
        assert getattr(package, name) is not None
    assert callable(package.evaluate) and callable(package.LMTrainingRun)
