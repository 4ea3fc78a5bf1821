"""combine_rewards: TRL's weighted nansum of reward functions, by hand and on random data.

TRL ``trl/trainer/grpo_trainer.py`` ``GRPOTrainer._generate_and_score_completions``: ``nansum`` of
``rewards_per_func * reward_weights``; since TRL 1.6 (commit 1c7c7f9) an answer whose every
reward function returned None is ``rewards[unscorable_mask] = torch.nan`` (``unscored="missing"``),
before it nansum's 0 (``unscored="zero"``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from grpo_desktop import core
from grpo_desktop.core.formulas.reward_functions import combine_rewards

NAN = math.nan


def trl_nansum(
    components: dict[str, np.ndarray], weights: dict[str, float], since_1_6: bool = True
) -> np.ndarray:
    """TRL's line re-implemented directly: (rewards_per_func * w.unsqueeze(0)).nansum(dim=1),
    with rewards_per_func of shape (N, K) over the N = B * G answers, NaN replaced by 0; from TRL
    1.6 a row that is NaN for every function is NaN (``rewards[unscorable_mask] = torch.nan``)."""
    names = list(components)
    shape = components[names[0]].shape
    per_func = np.stack([components[n].reshape(-1) for n in names], axis=1)  # (N, K)
    w = np.array([weights.get(n, 1.0) for n in names])
    product = per_func * w[np.newaxis, :]
    total = np.zeros(product.shape[0])
    for row in range(product.shape[0]):
        for column in range(product.shape[1]):
            if not math.isnan(product[row, column]):
                total[row] += product[row, column]
        if since_1_6 and np.isnan(per_func[row]).all():
            total[row] = np.nan
    return total.reshape(shape)


def test_deepseek_r1_accuracy_plus_half_format_by_hand():
    combined = combine_rewards({"accuracy": [1, 0, 0, 1], "format": [1, 1, 0, 1]}, {"format": 0.5})
    assert combined.dtype == np.float64
    assert combined.tolist() == [1.5, 0.5, 0.0, 1.5]


def test_weights_default_to_one_and_one_component_is_itself():
    assert combine_rewards({"a": [1, 2], "b": [10, 20]}).tolist() == [11.0, 22.0]
    assert combine_rewards({"a": [0.25, -3]}).tolist() == [0.25, -3.0]
    assert combine_rewards({"a": [1, 2], "b": [10, 20]}, {"a": -2, "b": 0}).tolist() == [-2, -4]


def test_a_missing_reward_is_skipped_and_an_answer_with_none_has_no_reward_as_in_trl_1_6():
    components = {"math": [1, None, 0, None], "code": [None, 0.5, NAN, None]}
    combined = combine_rewards(components, {"code": 2})
    assert combined[:3].tolist() == [1.0, 1.0, 0.0]
    assert math.isnan(combined[3])  # the last answer: all missing -> no reward (TRL >= 1.6)
    zero = combine_rewards(components, {"code": 2}, unscored="zero")
    assert zero.tolist() == [1.0, 1.0, 0.0, 0.0]  # TRL <= 1.5: nansum of nothing is 0


def test_a_zero_weight_does_not_make_an_answer_unscored():
    """TRL's unscorable mask looks at rewards_per_func, before the weights."""
    combined = combine_rewards({"a": [None, 1], "b": [0.5, None]}, {"b": 0})
    assert combined.tolist() == [0.0, 1.0]


def test_an_unknown_unscored_rule_is_refused():
    with pytest.raises(
        ValueError, match="unknown unscored rule 'skip'; choose one of: missing, zero"
    ):
        combine_rewards({"a": [1, 0]}, unscored="skip")


def test_a_batch_of_groups_keeps_its_shape():
    combined = combine_rewards(
        {"a": np.array([[1, 0], [0, 1]]), "b": [[None, 1], [1, None]]}, {"b": 3}
    )
    assert combined.shape == (2, 2)
    assert combined.tolist() == [[1.0, 3.0], [3.0, 1.0]]


@pytest.mark.parametrize("seed", range(5))
def test_matches_trls_nansum_on_random_batches_with_missing_rewards(seed):
    rng = np.random.default_rng(seed)
    batch, group, count = rng.integers(1, 6), rng.integers(1, 9), rng.integers(1, 5)
    components = {}
    for k in range(count):
        values = rng.normal(size=(batch, group)) * 10
        values[rng.random((batch, group)) < 0.35] = np.nan
        components[f"f{k}"] = values
    weights = {f"f{k}": float(rng.normal()) for k in range(count) if rng.random() < 0.7}
    combined = combine_rewards(components, weights)
    np.testing.assert_allclose(combined, trl_nansum(components, weights), rtol=1e-12, atol=1e-12)
    all_missing = np.all(np.isnan(np.stack(list(components.values()))), axis=0)
    assert np.isnan(combined[all_missing]).all() and np.isfinite(combined[~all_missing]).all()
    zero = combine_rewards(components, weights, unscored="zero")
    np.testing.assert_allclose(zero, trl_nansum(components, weights, False), rtol=1e-12, atol=1e-12)
    assert np.isfinite(zero).all() and (zero[all_missing] == 0).all()


def test_does_not_change_the_callers_arrays():
    a = np.array([1.0, np.nan])
    combine_rewards({"a": a}, {"a": 2})
    assert a[0] == 1.0 and math.isnan(a[1])


def test_is_re_exported_from_core():
    assert core.combine_rewards is combine_rewards


@pytest.mark.parametrize(
    ("components", "weights", "message"),
    [
        ({}, None, "no reward components"),
        ({"a": [1, 0], "b": [1, 0, 1]}, None, "'b' has shape (3,) but 'a' has shape (2,)"),
        ({"a": [[1, 0]], "b": [1, 0]}, None, "'b' has shape (2,) but 'a' has shape (1, 2)"),
        ({"a": [1, "x"]}, None, "component 'a' at index 1 is 'x'"),
        ({"a": "1,0"}, None, "not text"),
        ({"a": [[1, 0], [1]]}, None, "ragged"),
        ({"a": []}, None, "empty"),
        ({"a": 1.0}, None, "got shape ()"),
        ({"a": [1, math.inf]}, None, "at index 1 is inf"),
        ({"a": [1, 0]}, {"b": 1.0}, "weight for unknown component 'b'"),
        ({"a": [1, 0]}, {"a": math.nan}, "weight of 'a' is nan"),
        ({"a": [1, 0]}, {"a": math.inf}, "weight of 'a' is inf"),
        ({"a": [1, 0]}, {"a": "2"}, "weight of 'a' must be a number"),
        ({"a": [1e308, 0], "b": [1e308, 0]}, None, "overflows float64"),
    ],
)
def test_bad_input_is_a_readable_value_error(components, weights, message):
    with pytest.raises(ValueError) as error_info:
        combine_rewards(components, weights)
    assert message in str(error_info.value)


@pytest.mark.parametrize(
    ("components", "weights", "message"),
    [
        ([[1, 0], [0, 1]], None, "components must map each reward function's name"),
        ("accuracy", None, "not str"),
        ({"a": [1, 0]}, [("a", 1.0)], "weights must map reward function names"),
        ({"a": [1, 0]}, 0.5, "not float"),
    ],
)
def test_components_or_weights_that_are_not_mappings_are_a_type_error(components, weights, message):
    # A list of components raised AttributeError ('list' object has no attribute 'items').
    with pytest.raises(TypeError, match=message):
        combine_rewards(components, weights)


@pytest.mark.parametrize(
    ("components", "weights", "message"),
    [
        ({"a": [10**400, 0]}, None, "component 'a' at index 0 is an integer too large"),
        ({"a": [1, 0]}, {"a": 10**400}, "weight of 'a' is too large for a float64"),
        ({"a": [1 + 2j, 0]}, None, "component 'a' at index 0 is (1+2j)"),
        ({"a": np.array([1 + 2j, 0])}, None, "component 'a' at index 0 is"),
    ],
)
def test_huge_integers_and_complex_rewards_are_a_value_error_without_warnings(
    components, weights, message
):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as error_info:
            combine_rewards(components, weights)
    assert message in str(error_info.value)
