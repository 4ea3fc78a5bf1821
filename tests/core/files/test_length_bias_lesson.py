"""The length-bias lesson says only what its screen shows: every claim about which way the batch's
likelihood moves, and what Dr. GRPO changes, checked against the numbers computed on its step.

Issue 25 item 4: step 5 showed Dr. GRPO at "net −0.410 (the batch's likelihood goes down)" right
after steps 2–3 had presented "goes down" as the problem. The aggregations are the libraries':
verl ``agg_loss`` (verl/trainer/ppo/core_algos.py: token-mean, seq-mean-token-mean) and TRL
``_compute_loss`` (trl/trainer/grpo_trainer.py: ``dr_grpo`` divides by B · max_completion_length,
``dapo`` by the batch's token count), as DESIGN §4b records them.
"""

from __future__ import annotations

import re

import pytest

from grpo_desktop.core.files.lessons import LessonStep, get_lesson
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.core.update.update_step import build_update_snapshot

LESSON = "update-step-length-bias"
# How the lesson's text names a preset; longest first ("token-mean" is inside
# "seq-mean-token-mean").
NAMES = (
    ("seq-mean-token-mean", "verl/seq-mean-token-mean"),
    ("token-mean", "verl/token-mean"),
    ("Dr GRPO", "trl/dr_grpo"),
    ("dapo", "trl/dapo"),
)
# Every way the lesson words a net: the sign it claims.
CLAIMS = (
    ("neither goes up nor down", 0),
    ("goes down", -1),
    ("goes up", 1),
    ("no net change", 0),
)
NET_WORDS = ("likelihood", "net", "goes up", "goes down")
SENTENCE_END = re.compile(r"[.!?][\"'”’)]*(?:\s+|$)")  # as the lesson format counts sentences


def snapshot_of(step: LessonStep) -> UpdateSnapshot:
    assert step.lab is not None and step.update is not None
    lab = build_snapshot(get_problem(step.lab.problem_id), step.lab.correct, step.lab.convention)
    return build_update_snapshot(lab, step.update)


def sentences(step: LessonStep) -> list[str]:
    text = re.sub(r"</?[bi]>", "", step.text).replace("Dr. GRPO", "Dr GRPO")
    return [part for part in SENTENCE_END.split(text) if part.strip()]


def shown_sign(net: float) -> int:
    """The sign of the net as the push chart prints it (three decimals below 1)."""
    shown = round(net, 3)
    return (shown > 0) - (shown < 0)


def net_claims(step: LessonStep) -> list[tuple[str, str, int]]:
    """(sentence, preset, claimed sign) for every claim about a net in the step's text; a
    sentence that talks about the net without a claim we can read fails the test."""
    found = []
    for sentence in sentences(step):
        lowered = sentence.replace("<b>", "").lower()
        claimed = []
        for words, sign in CLAIMS:  # "neither goes up nor down" first: it holds "goes up"
            if words in lowered:
                claimed.append(sign)
                lowered = lowered.replace(words, "")
        if not claimed:
            assert not any(word in lowered for word in NET_WORDS), f"unread claim: {sentence!r}"
            continue
        assert len(claimed) == 1, f"two claims in one sentence: {sentence!r}"
        rest, named = sentence, []
        for words, preset in NAMES:
            if words in rest:
                named.append(preset)
                rest = rest.replace(words, "")
        assert len(named) <= 1, f"which preset does {sentence!r} mean?"
        assert step.update is not None
        found.append((sentence, named[0] if named else step.update.preset, claimed[0]))
    return found


UPDATE_STEPS = [
    pytest.param(step, id=step.title) for step in get_lesson(LESSON).steps if step.is_update
]


@pytest.mark.parametrize("step", UPDATE_STEPS)
def test_every_claim_about_the_net_has_the_sign_its_step_computes(step: LessonStep) -> None:
    snapshot = snapshot_of(step)
    assert step.update is not None
    nets = {step.update.preset: snapshot.net_push}
    nets.setdefault(step.update.compare_preset, snapshot.compare_net_push)
    for sentence, preset, sign in net_claims(step):
        assert preset in nets, f"{sentence!r} names {preset}, not on screen"
        assert shown_sign(nets[preset]) == sign, (sentence, preset, nets[preset])


def test_the_lesson_claims_a_net_on_every_step_that_adds_up_the_pushes() -> None:
    steps = {step.title: step for step in get_lesson(LESSON).steps}
    claimed = {
        title: [(preset, sign) for _, preset, sign in net_claims(steps[title])]
        for title in (
            "Add up the pushes",
            "Every answer weighs the same",
            "What it does not change",
        )
    }
    assert claimed == {
        "Add up the pushes": [("verl/token-mean", -1)],
        "Every answer weighs the same": [("verl/seq-mean-token-mean", 0)],
        "What it does not change": [("trl/dr_grpo", -1)],
    }


def test_the_claim_reader_catches_a_wrong_sign() -> None:
    step = next(s for s in get_lesson(LESSON).steps if s.title == "What it does not change")
    wrong = LessonStep(
        step.title,
        step.text.replace("goes <b>down</b>", "goes <b>up</b>"),
        step.lab,
        None,
        step.highlight,
        step.view,
        workspace="update",
        update=step.update,
    )
    with pytest.raises(AssertionError):
        test_every_claim_about_the_net_has_the_sign_its_step_computes(wrong)


def test_dr_grpo_pushes_every_token_alike_where_seq_mean_pushed_the_short_ones_harder() -> None:
    """'What Dr. GRPO fixes': under seq-mean-token-mean (hatched) each of the long wrong answer's
    61 tokens is pushed far less than each of the right answer's 11; Dr. GRPO pushes every token
    by A / (B · L)."""
    step = next(s for s in get_lesson(LESSON).steps if s.title == "What Dr. GRPO fixes")
    assert step.update is not None
    assert (step.update.preset, step.update.compare_preset) == (
        "trl/dr_grpo",
        "verl/seq-mean-token-mean",
    )
    snapshot = snapshot_of(step)
    right, wrong = snapshot.rows
    assert (len(right.tokens), len(wrong.tokens)) == (11, 61)  # the counts the text quotes
    assert "61 tokens" in step.text and "right answer's 11" in step.text
    answers, width = 2, 61  # B, and L = the longest answer here (TRL pads to it)
    for row in (right, wrong):
        assert all(t.push == pytest.approx(row.advantage / (answers * width)) for t in row.tokens)
    seq_mean = next(
        s for s in get_lesson(LESSON).steps if s.title == "Every answer weighs the same"
    )
    hatched = snapshot_of(seq_mean).rows  # the same preset, on its own step's screen
    assert hatched[0].tokens[0].push > 5 * abs(hatched[1].tokens[0].push)  # "far less"


def test_dr_grpo_is_token_mean_scaled_in_one_batch_so_its_net_goes_down_with_it() -> None:
    """'What it does not change': the bars are token-mean's (dapo, hatched) times N / (B · L)."""
    step = next(s for s in get_lesson(LESSON).steps if s.title == "What it does not change")
    snapshot = snapshot_of(step)
    scale = snapshot.token_count / (len(snapshot.rows) * 61)  # N / (B · L) = 72 / 122
    for row in snapshot.rows:
        assert row.total_push == pytest.approx(row.compare_total_push * scale)
    assert snapshot.net_push < 0 and snapshot.compare_net_push < 0
    assert "N / (B · L)" in step.text
