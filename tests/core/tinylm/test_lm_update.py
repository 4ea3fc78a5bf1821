"""The Update step on the real tiny model (grpo_desktop/core/tinylm/lm_update.py)."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest

from grpo_desktop.core.formulas.clipped_loss import policy_loss
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.tinylm import load_model
from grpo_desktop.core.tinylm.lab_group import checkpoint_path, sample_lab_group
from grpo_desktop.core.tinylm.lm_update import (
    END_CHIP,
    SPILLOVER_PROMPTS,
    LMUpdateStart,
    build_lm_update_snapshot,
    model_learning_rate,
)
from grpo_desktop.core.tinylm.model import DEFAULT_CHECKPOINT
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.update.update_settings import UpdateSettings


@functools.cache
def _model():
    return load_model()


@functools.cache
def _group():
    return sample_lab_group(_model(), "23+45=", 8, 0)


def _lab(group=None):
    group = group or _group()
    return build_snapshot(group.problem(), [r > 0 for r in group.rewards], recorded=group)


@functools.cache
def _start() -> LMUpdateStart:
    group = _group()
    return LMUpdateStart(_model(), group.prompt, group.texts)


def test_rows_are_the_models_own_tokens_with_the_end_token_named():
    snapshot = build_lm_update_snapshot(_start(), _lab(), UpdateSettings())
    for row, text in zip(snapshot.rows, _group().texts, strict=True):
        assert "".join(row.tokens.texts) == text.replace(".", END_CHIP)
        assert row.tokens.is_answer == tuple(ch.isdigit() for ch in text)
    assert "107,820 parameters" in snapshot.policy_note
    assert "44-token" in snapshot.policy_note


def test_pushes_are_minus_the_gradient_of_policy_loss_on_the_models_logp():
    """The same call grpo.py makes (grpo_desktop/core/formulas/clipped_loss.py policy_loss)."""
    group, lab = _group(), _lab()
    settings = UpdateSettings()
    snapshot = build_lm_update_snapshot(_start(), lab, settings)
    logp = np.zeros((8, max(len(t) for t in group.texts)))
    mask = np.zeros_like(logp)
    for row, text in enumerate(group.texts):
        logp[row, : len(text)] = _model().token_logprobs(group.prompt, text)
        mask[row, : len(text)] = 1.0
    advantages = [card.advantage for card in lab.cards]
    direct = policy_loss(logp, logp, advantages, mask, preset=settings.preset)
    for row, answer in enumerate(snapshot.rows):
        expected = -direct.grad_logp[row, : len(answer.tokens)]
        assert np.allclose(answer.tokens.pushes, expected, atol=1e-9)
    assert snapshot.loss == pytest.approx(direct.loss, abs=1e-9)


def test_an_inner_step_raises_answers_pushed_up_and_lowers_those_pushed_down():
    snapshot = build_lm_update_snapshot(_start(), _lab(), UpdateSettings(inner_steps=1))
    spill = snapshot.spillover
    deltas = np.array(spill.batch_deltas)
    advantages = np.array(spill.batch_advantages)
    assert deltas[advantages > 0].sum() > 0
    assert deltas[advantages < 0].sum() < 0
    assert spill.steps == 1
    assert "Adam" in snapshot.status


def test_spillover_equals_a_direct_token_logprobs_difference_on_held_out_prompts():
    start = _start()
    settings = UpdateSettings(inner_steps=2)
    snapshot = build_lm_update_snapshot(start, _lab(), settings)
    spill = snapshot.spillover
    task = get_task("add")
    assert len(spill.held_out_prompts) == SPILLOVER_PROMPTS
    assert all(task.is_held_out(p) for p in spill.held_out_prompts)
    # Redo the main side's two Adam steps by hand and read the held-out answers directly.
    trajectory = start.trajectory(
        tuple(card.advantage for card in _lab().cards), replace(settings), True
    )
    assert trajectory.moved is not None
    before = np.array(
        [
            _model().token_logprobs(p, a).sum()
            for p, a in zip(spill.held_out_prompts, spill.held_out_answers, strict=True)
        ]
    )
    stepped = _stepped_model(start, settings)
    after = np.array(
        [
            stepped.token_logprobs(p, a).sum()
            for p, a in zip(spill.held_out_prompts, spill.held_out_answers, strict=True)
        ]
    )
    assert np.allclose(spill.held_out_deltas, after - before, atol=2e-4)
    assert f"of {SPILLOVER_PROMPTS} held-out sums" in spill.caption


def _stepped_model(start: LMUpdateStart, settings: UpdateSettings):
    """The model after the main side's Adam steps, done the way grpo.py does them."""
    from grpo_desktop.core.tinylm.adam import Adam
    from grpo_desktop.core.tinylm.batch import completion_pass

    model = start.model.copy()
    params = model.parameters()
    optimiser = Adam(params, lr=model_learning_rate(settings.learning_rate))
    old = start.start_logp
    advantages = [card.advantage for card in _lab().cards]
    for _ in range(settings.inner_steps):
        forward_pass = completion_pass(params, model.config, start.batch)
        logp = forward_pass.logp.astype(np.float64)
        result = policy_loss(logp, old, advantages, start.batch.mask, preset=settings.preset)
        optimiser.step(params, forward_pass.gradients(result.grad_logp))
    return model


def test_deterministic_and_a_token_click_recomputes_nothing():
    settings = UpdateSettings(inner_steps=3)
    first = build_lm_update_snapshot(_start(), _lab(), settings)
    fresh = LMUpdateStart(_model(), _group().prompt, _group().texts)
    again = build_lm_update_snapshot(fresh, _lab(), settings)
    assert first.spillover == again.spillover
    assert first.rows == again.rows
    advantages = tuple(card.advantage for card in _lab().cards)
    main = replace(settings, compare_eps_high=None)
    cached = _start().trajectory(advantages, main, True)
    selected = build_lm_update_snapshot(_start(), _lab(), settings, (4, 1))
    assert _start().trajectory(advantages, main, True) is cached  # nothing recomputed
    assert selected.spillover == first.spillover
    assert selected.selected.rows[1].expression == "the tiny model after 3 Adam steps"


def test_checkpoint_names_and_learning_rate_are_stated():
    assert checkpoint_path(DEFAULT_CHECKPOINT) is None
    assert checkpoint_path("/tmp/mine.npz") == "/tmp/mine.npz"
    assert model_learning_rate(0.5) == pytest.approx(5e-5)


def test_a_group_the_model_did_not_read_is_refused():
    other = sample_lab_group(_model(), "23+45=", 8, 1)
    with pytest.raises(ValueError, match="not the ones the model read"):
        build_lm_update_snapshot(_start(), _lab(other), UpdateSettings())
    with pytest.raises(ValueError):
        LMUpdateStart(_model(), "23+45=", ["68!"])


def test_the_step_taken_piece_by_piece_equals_the_step_taken_at_once(monkeypatch):
    from grpo_desktop.core.tinylm import lm_update
    from grpo_desktop.core.tinylm.lm_update import LMUpdateSteps

    group = _group()
    lab = _lab()
    settings = replace(UpdateSettings(), inner_steps=3, compare_preset="trl/grpo")
    passes = []
    real_pass = lm_update.completion_pass
    monkeypatch.setattr(
        lm_update, "completion_pass", lambda *a: passes.append("pass") or real_pass(*a)
    )
    steps = LMUpdateSteps(LMUpdateStart(_model(), group.prompt, group.texts), lab, settings)
    assert not steps.done
    pending = steps.pending_snapshot((0, 1))
    assert (
        pending.pending
        and pending.inner_step == 0
        and "step 0" in pending.selected.rows[1].expression
    )
    pieces = 0
    while not steps.done:
        before = len(passes)
        steps.advance()
        assert len(passes) - before <= 1  # a piece is at most one pass of the network
        pieces += 1
    assert pieces > 2 * 3  # the steps of both sides, each in more than one piece
    finished = steps.snapshot((0, 1))
    at_once = build_lm_update_snapshot(
        LMUpdateStart(_model(), group.prompt, group.texts), lab, settings, (0, 1)
    )
    assert not finished.pending
    assert finished == at_once


def test_a_pending_spillover_keeps_the_last_measured_bars_of_the_same_group_only():
    from grpo_desktop.core.tinylm.lm_update import LMUpdateSteps

    settings = replace(UpdateSettings(), inner_steps=2)
    finished = build_lm_update_snapshot(_start(), _lab(), settings)
    group = _group()
    other = replace(settings, eps_high=0.25)
    steps = LMUpdateSteps(LMUpdateStart(_model(), group.prompt, group.texts), _lab(), other)
    pending = steps.pending_snapshot(None, finished.spillover).spillover
    assert pending.pending and pending.held_out_deltas == finished.spillover.held_out_deltas
    assert pending.caption == finished.spillover.caption  # the caption keeps its height
    elsewhere = replace(finished.spillover, prompt="38+47=")
    empty = steps.pending_snapshot(None, elsewhere).spillover
    assert empty.pending and empty.batch_deltas == () and "Stepping the tiny model" in empty.caption
