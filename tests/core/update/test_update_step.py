"""The Update workspace's numbers: the lab's answers as tokens, pushed by the chosen loss."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from grpo_desktop.core.lab.checker import extract_final_answer
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.update.update_settings import (
    CLIP_HIGHER_CORRECT,
    CLIP_HIGHER_PROBLEM_ID,
    UpdateSettings,
)
from grpo_desktop.core.update.update_step import (
    LENGTH_BIAS_SETTINGS,
    build_update_snapshot,
    check_update_settings,
    clip_higher_settings,
    settings_from_dict,
)


def lab(problem="mult-23x47", correct=(True, False, False, True), convention="textbook"):
    return build_snapshot(get_problem(problem), list(correct), convention)


def test_every_answer_becomes_a_row_of_its_own_tokens():
    snapshot = build_update_snapshot(lab(), UpdateSettings())
    source = lab()
    assert len(snapshot.rows) == 4
    for row, card in zip(snapshot.rows, source.cards):
        assert "".join(token.text for token in row.tokens) == card.text
        assert row.advantage == card.advantage and row.reward == card.reward


def test_the_answer_tokens_are_the_final_answer_the_checker_reads():
    for row, card in zip(build_update_snapshot(lab(), UpdateSettings()).rows, lab().cards):
        marked = "".join(token.text for token in row.tokens if token.is_answer)
        assert extract_final_answer(marked.strip()) == extract_final_answer(card.text)


def test_on_policy_each_answers_total_push_is_its_advantage_times_its_weight():
    snapshot = build_update_snapshot(lab(), UpdateSettings())
    total_tokens = snapshot.token_count
    for row in snapshot.rows:
        # token-mean: every token weighs 1/N, so an answer's push is A · n_i / N
        assert row.total_push == pytest.approx(row.advantage * len(row.tokens) / total_tokens)
        # seq-mean-token-mean: every answer weighs 1/B, whatever its length
        assert row.compare_total_push == pytest.approx(row.advantage / 4, rel=1e-6)
    assert snapshot.status.startswith("Step 0 is on-policy")
    assert snapshot.clip_fraction == 0.0


def test_pushes_follow_the_advantage_sign():
    snapshot = build_update_snapshot(lab(), UpdateSettings())
    for row in snapshot.rows:
        assert all((token.push > 0) == (row.advantage > 0) for token in row.tokens)
    assert snapshot.max_abs_push == max(abs(t.push) for r in snapshot.rows for t in r.tokens)


def test_a_degenerate_group_pushes_nothing_and_says_why():
    snapshot = build_update_snapshot(lab(correct=(True,) * 4), UpdateSettings(inner_steps=3))
    assert all(token.push == 0 for row in snapshot.rows for token in row.tokens)
    assert "teaches nothing" in snapshot.status


def test_inner_steps_clip_tokens_and_report_the_kl():
    settings = UpdateSettings(inner_steps=6, beta=0.1)
    snapshot = build_update_snapshot(lab(), settings)
    assert snapshot.clip_fraction > 0
    assert any(token.clipped for row in snapshot.rows for token in row.tokens)
    assert snapshot.kl_mean is not None and snapshot.kl_mean > 0
    assert "6 inner steps" in snapshot.status and "clipped" in snapshot.status


def test_a_clipped_token_has_no_push():
    snapshot = build_update_snapshot(lab(), UpdateSettings(inner_steps=6))
    clipped = [t for r in snapshot.rows for t in r.tokens if t.clipped or t.dual_clipped]
    assert clipped and all(token.push == 0 for token in clipped)


def test_the_selected_tokens_computation_shows_its_own_numbers():
    snapshot = build_update_snapshot(lab(), UpdateSettings(inner_steps=2, beta=0.05), (1, 3))
    detail = snapshot.selected
    assert (detail.row, detail.column) == (1, 3)
    labels = [row.label for row in detail.rows]
    for expected in (
        "advantage A",
        "ratio r",
        "clip range",
        "KL term (k3)",
        "aggregation weight w",
        "∂loss/∂logp",
        "push",
    ):
        assert expected in labels
    push = next(row for row in detail.rows if row.label == "push")
    token = snapshot.rows[1].tokens[3]
    assert float(push.value.replace("−", "-")) == pytest.approx(token.push, abs=5e-7)
    assert detail.summary.startswith(("▲", "▼", "●"))


def test_a_selection_past_the_group_is_dropped():
    snapshot = build_update_snapshot(lab(correct=(True, False)), UpdateSettings(), (3, 0))
    assert snapshot.selected is None


def test_the_length_bias_problem_shows_token_mean_pushing_the_batch_down():
    snapshot = build_update_snapshot(lab("length-bias-sum", (True, False)), LENGTH_BIAS_SETTINGS)
    short, long = snapshot.rows
    assert len(short.tokens) < len(long.tokens) / 3
    assert snapshot.net_push < 0  # token-mean: the long wrong answer outvotes the short right one
    assert snapshot.compare_net_push == pytest.approx(0.0, abs=1e-6)  # seq-mean: balanced


def clip_higher_snapshot(**change):
    settings = replace(clip_higher_settings(UpdateSettings(beta=0.1, inner_steps=9)), **change)
    group = lab(CLIP_HIGHER_PROBLEM_ID, CLIP_HIGHER_CORRECT)
    return build_update_snapshot(group, settings)


def test_clip_higher_puts_the_symmetric_clip_against_dapos_asymmetric_one_on_one_preset():
    # TRL's _compute_loss (trl/trainer/grpo_trainer.py): coef_2 = clamp(coef_1, 1 - epsilon_low,
    # 1 + epsilon_high); GRPOConfig(epsilon=0.2, epsilon_high=0.28) is DAPO's clip-higher. The
    # issue: trl/dapo against verl/token-mean at the same ε drew two identical sets of bars.
    settings = clip_higher_settings(UpdateSettings(beta=0.1, inner_steps=9))
    assert settings.preset == settings.compare_preset == "trl/dapo"
    assert (settings.eps_low, settings.eps_high) == (0.2, 0.28)  # solid: DAPO's
    assert settings.compare_clip == (0.2, 0.2)  # hatched: the symmetric clip
    assert (settings.inner_steps, settings.beta) == (4, 0.0)  # the clip engages; DAPO has no KL
    snapshot = clip_higher_snapshot()
    assert snapshot.side_labels == ("TRL · dapo, ε 0.2/0.28", "TRL · dapo, ε 0.2/0.2")
    assert [row.total_push for row in snapshot.rows] != [
        row.compare_total_push for row in snapshot.rows
    ]


def test_clip_higher_says_what_to_look_at_and_the_numbers_bear_it_out():
    snapshot = clip_higher_snapshot()
    assert snapshot.status == (
        "Tokens with A > 0 keep their push longer under ε_high 0.28 (solid): 19 of their 46 are "
        "clipped, against 27 under 0.2 (hatched), so every answer with A > 0 has the taller "
        "solid bar."
    )
    positive = [row for row in snapshot.rows if row.advantage > 0]
    clipped = [sum(sum(row.tokens.clipped) for row in positive)]
    assert sum(len(row.tokens) for row in positive) == 46
    # the hatched side's clip flags: the same group under the symmetric range as the main one
    symmetric = clip_higher_snapshot(eps_high=0.2, compare_eps_high=None)
    clipped.append(sum(sum(r.tokens.clipped) for r in symmetric.rows if r.advantage > 0))
    assert clipped == [19, 27]
    for row, plain in zip(positive, (r for r in symmetric.rows if r.advantage > 0)):
        assert row.compare_total_push == pytest.approx(plain.total_push)  # hatched = ε 0.2/0.2
        assert row.total_push > row.compare_total_push  # the taller solid bar, as claimed
    assert snapshot.clip_fraction < snapshot.compare_clip_fraction


@pytest.mark.parametrize("steps", [1, 2, 3, 6, 10])
def test_the_clip_comparisons_claim_holds_at_every_step_and_with_the_sides_swapped(steps):
    for swap in (False, True):
        change = dict(inner_steps=steps)
        if swap:
            change.update(eps_high=0.2, compare_eps_high=0.28)
        snapshot = clip_higher_snapshot(**change)
        wide = "hatched" if swap else "solid"
        assert f"under ε_high 0.28 ({wide})" in snapshot.status
        if "taller" in snapshot.status:
            for row in snapshot.rows:
                if row.advantage > 0:
                    taller, shorter = row.total_push, row.compare_total_push
                    if swap:
                        taller, shorter = shorter, taller
                    assert taller > shorter, (steps, swap, row.index)


def test_on_policy_the_two_clip_ranges_push_alike_and_the_status_says_so():
    snapshot = clip_higher_snapshot(inner_steps=0)
    assert [r.total_push for r in snapshot.rows] == [r.compare_total_push for r in snapshot.rows]
    assert "both sides push alike" in snapshot.status


def test_a_comparison_clip_range_is_checked_like_the_main_one():
    with pytest.raises(ValueError, match="compare_eps_high"):
        check_update_settings(UpdateSettings(compare_eps_high=-0.5))
    with pytest.raises(ValueError, match="compare_eps_high"):
        settings_from_dict({"compare_eps_high": "0.2"})
    assert settings_from_dict({"compare_eps_high": None}).compare_clip == (0.2, 0.2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(preset="verl/nope"), "unknown loss preset"),
        (dict(eps_low=float("nan")), "eps_low must be a finite number"),
        (dict(clip_ratio_c=1.0), "clip_ratio_c must be > 1"),
        (dict(inner_steps=51), "inner_steps"),
        (dict(learning_rate=0), "learning_rate"),
        (dict(kl_estimator="k4"), "kl_estimator"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(change, message):
    with pytest.raises(ValueError, match=message):
        check_update_settings(replace(UpdateSettings(), **change))


def test_settings_read_from_a_file_refuse_unknown_keys():
    assert settings_from_dict({"beta": 0.04}).beta == 0.04
    with pytest.raises(ValueError, match="unknown update setting"):
        settings_from_dict({"betta": 0.04})


def _detail_value(detail, label):
    return next(row.value for row in detail.rows if row.label == label)


def test_a_clipped_tokens_gradient_and_push_read_an_unsigned_zero():
    """The issue's "push −0.000000": a clipped token's gradient is exactly 0 (often −0.0)."""
    settings = UpdateSettings(inner_steps=6)
    snapshot = build_update_snapshot(lab(), settings)
    row, column = next(
        (r.index, c) for r in snapshot.rows for c, t in enumerate(r.tokens) if t.clipped
    )
    detail = build_update_snapshot(lab(), settings, (row, column)).selected
    for label in ("∂loss/∂logp", "push"):
        assert _detail_value(detail, label) == "0.000000", label


def test_a_push_too_small_for_six_decimals_shows_its_digits_not_a_signed_zero():
    # Dr. GRPO's advantages are r − mean: rewards a millionth apart push by about 1e-8.
    tiny = build_snapshot(get_problem("mult-23x47"), [True, False], "dr_grpo", scores=[0.0, 1e-6])
    detail = build_update_snapshot(tiny, UpdateSettings(), (1, 0)).selected
    token = build_update_snapshot(tiny, UpdateSettings()).rows[1].tokens[0]
    assert 0 < abs(token.push) < 5e-7
    for label, value in (("push", token.push), ("∂loss/∂logp", -token.push)):
        shown = _detail_value(detail, label)
        assert shown.strip("−0.") != "", f"{label} reads {shown}"
        assert float(shown.replace("−", "-")) == pytest.approx(value, rel=0.01)


def test_gspos_status_counts_clipped_answers_not_tokens():
    """GSPO clips each answer's one ratio whole: its clip fraction is a share of the answers."""
    settings = UpdateSettings(preset="trl/gspo", inner_steps=6, eps_low=3e-3, eps_high=4e-3)
    snapshot = build_update_snapshot(lab(), settings)
    assert snapshot.clip_fraction > 0
    assert f"{snapshot.clip_fraction:.0%} of the answers are clipped" in snapshot.status
    token_mean = build_update_snapshot(lab(), replace(settings, preset="trl/grpo"))
    assert "of the tokens are clipped" in token_mean.status


def test_inner_steps_kept_across_toggles_equal_ones_recomputed_from_nothing():
    from grpo_desktop.core.update import update_step

    settings = replace(UpdateSettings(), inner_steps=4, compare_preset="trl/grpo")
    flags = [True, False, False, True, True, False]
    kept = []
    for card in (0, 3, 0, 5):  # toggles, one of them back: the start and steps are reused
        flags[card] = not flags[card]
        kept.append(build_update_snapshot(lab(correct=tuple(flags)), settings, (1, 2)))
    update_step._TRAJECTORIES.clear()
    update_step._start_policy.cache_clear()
    update_step._start_row.cache_clear()
    update_step._tokens_of.cache_clear()
    flags = [True, False, False, True, True, False]
    for card, snapshot in zip((0, 3, 0, 5), kept, strict=True):
        flags[card] = not flags[card]
        assert snapshot == build_update_snapshot(lab(correct=tuple(flags)), settings, (1, 2))


def test_a_batch_start_put_together_from_kept_rows_is_the_whole_batchs_to_the_bit():
    import numpy as np

    from grpo_desktop.core.update import update_step
    from grpo_desktop.core.update.standin_policy import initial_policy

    texts = tuple(card.text for card in lab(correct=(True, False, True, True, False)).cards)
    texts += ("", "1", texts[0] * 7)  # no token, one token, a long answer (a vector's tail)
    update_step._start_policy.cache_clear()
    kept = update_step._start_policy(texts)
    whole = initial_policy(
        [update_step._tokens_of(text)[0] for text in texts], update_step.STANDIN_SEED
    )
    for ours, theirs in ((kept.logits, whole.logits), (kept.mask, whole.mask)):
        assert ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes()
    assert kept.logp.tobytes() == whole.logp.tobytes()
    assert not np.signbit(kept.logp[kept.mask == 0]).any()  # padding is +0.0, as the whole's
    assert not kept.logp.flags.writeable and not kept.logits.flags.writeable


@pytest.mark.parametrize("beta", [0.0, 0.1])
def test_both_sides_checked_once_take_the_steps_each_checked_alone_would(beta):
    import numpy as np

    from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
    from grpo_desktop.core.update import update_step
    from grpo_desktop.core.update.standin_policy import run_inner_steps

    group = lab(correct=(True, False, False, True, True, False))
    texts = tuple(card.text for card in group.cards)
    advantages = tuple(float(card.advantage) for card in group.cards)
    start = update_step._start_policy(texts)
    update_step._TRAJECTORIES.clear()
    for name in LOSS_PRESETS:  # one start and advantages: every preset after the first shares
        preset = update_step.get_loss_preset(name)
        settings = replace(UpdateSettings(), preset=name, inner_steps=3, beta=beta)
        shared = update_step._trajectory(texts, advantages, name, settings)
        alone = run_inner_steps(
            start,
            np.array(advantages),
            steps=3,
            learning_rate=settings.learning_rate,
            **update_step._loss_options(settings, preset),
        )
        for field in ("loss", "grad_logp", "per_token_loss", "ratio", "clipped", "kl"):
            ours, theirs = getattr(shared.result, field), getattr(alone.result, field)
            assert np.array_equal(ours, theirs), (name, field)
        assert shared.result.preset == preset
        assert np.array_equal(shared.current.logp, alone.current.logp)


@pytest.mark.parametrize("beta", [0.0, 0.1])
@pytest.mark.parametrize("preset", ["verl/token-mean", "trl/gspo", "openrlhf/ppo_sample"])
def test_a_clicks_loss_inputs_are_the_full_checks_array_for_array(beta, preset):
    import numpy as np

    from grpo_desktop.core.update import update_step
    from grpo_desktop.core.update.standin_policy import check_inputs

    group = lab(correct=(True, False, False, True, True, False))
    texts = (*(card.text for card in group.cards), "")  # and an answer with no token
    advantages = (*(float(card.advantage) for card in group.cards), float("nan"))
    settings = replace(UpdateSettings(), preset=preset, beta=beta)
    options = update_step._loss_options(settings, update_step.get_loss_preset(preset))
    start = update_step._start_policy(texts)
    ours = update_step._checked_inputs(start, advantages, options)
    theirs = check_inputs(start, np.array(advantages), **options)
    assert ours.spec == theirs.spec and ours.options == theirs.options
    for field in ("old", "adv", "mask", "real", "ref"):
        mine, full = getattr(ours, field), getattr(theirs, field)
        assert (mine is None) == (full is None), field
        if full is not None:
            assert mine.dtype == full.dtype and mine.tobytes() == full.tobytes(), field


def test_a_clicks_loss_inputs_refuse_what_the_full_check_refuses():
    import numpy as np

    from grpo_desktop.core.update import update_step
    from grpo_desktop.core.update.standin_policy import check_inputs

    texts = tuple(card.text for card in lab().cards)
    options = update_step._loss_options(UpdateSettings(), update_step.get_loss_preset("trl/grpo"))
    start = update_step._start_policy(texts)
    for advantages in ((float("nan"), 0.0, 1.0, -1.0), (0.0, 1.0)):
        with pytest.raises(ValueError) as full:
            check_inputs(start, np.array(advantages), **options)
        with pytest.raises(ValueError, match=f"^{re.escape(str(full.value))}$"):
            update_step._checked_inputs(start, advantages, options)
    empty = update_step._start_policy(("", ""))
    with pytest.raises(ValueError, match="no real tokens"):
        update_step._checked_inputs(empty, (0.0, 0.0), options)


def test_a_groups_advantages_seen_before_are_not_checked_again(monkeypatch):
    from grpo_desktop.core.update import update_step

    texts = tuple(card.text for card in lab().cards)
    start = update_step._start_policy(texts)
    checks = []
    original = update_step.check_loss_inputs
    monkeypatch.setattr(
        update_step, "check_loss_inputs", lambda *a, **k: checks.append(1) or original(*a, **k)
    )
    update_step._column_check.cache_clear()
    for name in ("verl/token-mean", "trl/grpo", "verl/token-mean"):  # both sides, then back
        options = update_step._loss_options(UpdateSettings(), update_step.get_loss_preset(name))
        update_step._checked_inputs(start, (0.5, -0.5, 1.0, -1.0), options)
    assert len(checks) == 2  # once per preset's options: the third is the first again


def test_a_selection_adds_the_detail_to_the_same_rows_and_numbers():
    from grpo_desktop.core.update.update_step import with_selection

    group = lab()
    settings = replace(UpdateSettings(), inner_steps=2)
    shown = build_update_snapshot(group, settings)
    selected = with_selection(shown, group, settings, (2, 3))
    assert selected.rows is shown.rows and selected.loss == shown.loss
    assert selected == build_update_snapshot(group, settings, (2, 3))
    assert with_selection(selected, group, settings, (99, 0)).selected is None
