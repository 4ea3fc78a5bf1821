"""One GRPO step of the tiny model on a group it wrote: each answer's probability before and
after a plain gradient step of ``policy_loss`` (grpo_desktop/core/formulas/clipped_loss.py)."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.tinylm import load_model
from grpo_desktop.core.tinylm.lab_group import sample_lab_group
from grpo_desktop.core.tinylm.one_step import model_one_step


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def group(model):
    return sample_lab_group(model, "23+45=", 8, 0)


def test_p_before_is_the_models_probability_of_writing_each_answer(model, group):
    step = model_one_step(model, group.prompt, group.texts, group.rewards, convention="textbook")
    for answer, text in zip(step.answers, group.texts):
        expected = float(np.exp(model.token_logprobs(group.prompt, text).sum()))
        assert answer.p_before == pytest.approx(expected, rel=1e-5)
    assert [a.advantage for a in step.answers] == pytest.approx(
        group_advantages(np.array(group.rewards), "textbook").tolist()
    )
    assert step.policy == "tinylm" and step.lr == pytest.approx(3e-4)


def test_the_right_answer_becomes_more_likely_and_the_model_stays_as_it_was(model, group):
    weights = {name: value.copy() for name, value in model.parameters().items()}
    step = model_one_step(model, group.prompt, group.texts, group.rewards, convention="textbook")
    right = [a for a in step.answers if a.reward == 1.0]
    assert right and all(a.p_after > a.p_before for a in right)
    for name, value in model.parameters().items():
        np.testing.assert_array_equal(value, weights[name])


def test_same_answers_move_together_and_lr_zero_moves_nothing(model, group):
    step = model_one_step(model, group.prompt, group.texts, group.rewards, convention="textbook")
    # The model computes in float32, and BLAS may round a row differently by its place in the
    # batch (OpenBLAS picks its kernel by CPU): equal answers agree to float32's precision.
    by_text: dict[str, list[float]] = {}
    for answer, text in zip(step.answers, group.texts):
        by_text.setdefault(text, []).append(answer.p_after)
    assert any(len(values) > 1 for values in by_text.values())
    for values in by_text.values():
        assert values == pytest.approx([values[0]] * len(values), rel=1e-5)
    still = model_one_step(
        model, group.prompt, group.texts, group.rewards, convention="textbook", lr=0.0
    )
    assert all(a.p_after == a.p_before for a in still.answers)


def test_an_all_equal_group_gives_no_gradient(model, group):
    flat = model_one_step(model, group.prompt, group.texts, [1.0] * 8, convention="textbook")
    assert all(a.p_after == pytest.approx(a.p_before, rel=1e-6) for a in flat.answers)


def test_a_completion_the_model_cannot_read_is_refused(model):
    with pytest.raises(ValueError):
        model_one_step(model, "23+45=", ["68.", "6ä."], [1.0, 0.0], convention="textbook")
