"""TokenRow: an answer's tokens as columns that read like a tuple of TokenViews."""

from __future__ import annotations

import copy
import pickle

import pytest

from grpo_desktop.core.update.update_snapshot import AnswerRow, TokenRow, TokenView

TOKENS = (
    TokenView(" 23", 0.25, False, False, False),
    TokenView(" ×", -0.5, True, False, False),
    TokenView(" 1081", 0.0, False, True, True),
)


def test_a_token_row_reads_like_the_tokens_it_was_made_from():
    row = TokenRow.of(TOKENS)
    assert len(row) == 3
    assert tuple(row) == TOKENS
    assert row[1] == TOKENS[1] and row[-1] == TOKENS[-1]
    assert tuple(row[1:]) == TOKENS[1:] and isinstance(row[1:], TokenRow)
    assert row == TOKENS and row == list(TOKENS)
    assert row.texts == (" 23", " ×", " 1081")
    assert row.pushes == (0.25, -0.5, 0.0)
    assert row.clipped == (False, True, False)
    assert row.dual_clipped == (False, False, True)
    assert row.is_answer == (False, False, True)


def test_rows_of_the_same_tokens_are_equal_and_hash_alike():
    columns = TokenRow(*zip(*TOKENS, strict=True))
    assert columns == TokenRow.of(TOKENS) and hash(columns) == hash(TokenRow.of(TOKENS))
    assert TokenRow.of(TOKENS[:2]) != TokenRow.of(TOKENS)
    assert TokenRow.of(TOKENS) != TokenRow.of((TOKENS[0], TOKENS[2], TOKENS[1]))
    assert TokenRow.of(()) == () and len(TokenRow.of(())) == 0


def test_a_token_row_cannot_be_changed():
    row = TokenRow.of(TOKENS)
    with pytest.raises(AttributeError, match="cannot be changed"):
        row.pushes = (1.0, 1.0, 1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        row[0] = TOKENS[1]  # type: ignore[index]


def test_a_token_row_copies_and_pickles_as_its_tokens():
    row = TokenRow.of(TOKENS)
    assert copy.copy(row) == row and copy.deepcopy(row) == row
    assert pickle.loads(pickle.dumps(row)) == row


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="equally long"):
        TokenRow(("a", "b"), (0.1,), (False, False), (False, False), (False, False))


def test_an_answer_row_keeps_its_tokens_as_a_token_row_however_they_are_given():
    row = AnswerRow(0, 1.0, 0.5, list(TOKENS), 0.1, 0.1, True)
    assert isinstance(row.tokens, TokenRow) and row.tokens == TOKENS
    assert row == AnswerRow(0, 1.0, 0.5, TokenRow.of(TOKENS), 0.1, 0.1, True)
    assert hash(row) == hash(AnswerRow(0, 1.0, 0.5, TOKENS, 0.1, 0.1, True))


def test_a_rows_marks_from_the_loss_equal_the_ones_worked_out_from_its_columns():
    from dataclasses import replace

    from grpo_desktop.core.lab.lab_snapshot import build_snapshot
    from grpo_desktop.core.lab.problems import get_problem
    from grpo_desktop.core.update.update_settings import UpdateSettings
    from grpo_desktop.core.update.update_step import build_update_snapshot

    lab = build_snapshot(get_problem("mult-23x47"), [True, False, False, True], "textbook")
    settings = replace(UpdateSettings(), inner_steps=6, eps_low=0.01, eps_high=0.01)
    snapshot = build_update_snapshot(lab, settings)
    assert any(row.tokens.marks for row in snapshot.rows)  # something is clipped
    for row in snapshot.rows:
        rebuilt = TokenRow(*row.tokens._columns())  # no marks given: worked out when read
        assert row.tokens.marks == rebuilt.marks
        flags = [a or b for a, b in zip(row.tokens.clipped, row.tokens.dual_clipped, strict=True)]
        assert rebuilt.marks == (bytes(flags) if any(flags) else b"")


def test_pushes_given_as_an_array_stay_one_and_read_as_python_floats():
    import numpy as np

    pushes = np.array([0.25, -0.5, 0.0])
    pushes.flags.writeable = False
    texts, flags = (" 23", " ×", " 1081"), (False, True, False)
    row = TokenRow(texts, pushes, flags, (False, False, True), (False, False, True))
    assert row.push_array is pushes  # read-only already: kept as it is, no copy
    assert row == TokenRow.of(TOKENS) and TokenRow.of(TOKENS) == row
    assert hash(row) == hash(TokenRow.of(TOKENS))
    assert row.pushes == (0.25, -0.5, 0.0) and all(type(p) is float for p in row.pushes)
    assert type(row[1].push) is float and row[1] == TOKENS[1]
    assert row[1:] == TOKENS[1:] and row[1:].push_array.tolist() == [-0.5, 0.0]
    assert pickle.loads(pickle.dumps(row)) == row and copy.deepcopy(row) == row
    writable = np.array([0.25, -0.5, 0.0])
    copied = TokenRow(texts, writable, flags, (False, False, True), (False, False, True))
    writable[0] = 9.0  # the row took a copy: the caller's array is not its column
    assert copied.push_array[0] == 0.25 and not copied.push_array.flags.writeable
    assert TokenRow.of(TOKENS).push_array.tolist() == [0.25, -0.5, 0.0]
    assert not TokenRow.of(TOKENS).push_array.flags.writeable
    other = np.array([0.25, -0.5, 1e-9])
    assert row != TokenRow(texts, other, flags, (False, False, True), (False, False, True))


def test_the_builders_rows_are_views_of_one_read_only_array_of_pushes():
    from grpo_desktop.core.lab.lab_snapshot import build_snapshot
    from grpo_desktop.core.lab.problems import get_problem
    from grpo_desktop.core.update.update_settings import UpdateSettings
    from grpo_desktop.core.update.update_step import build_update_snapshot

    lab = build_snapshot(get_problem("mult-23x47"), [True, False, False, True], "textbook")
    snapshot = build_update_snapshot(lab, UpdateSettings())
    for row in snapshot.rows:
        array = row.tokens.push_array
        assert not array.flags.writeable and array.base is not None  # a row of the loss's
        assert row.tokens.pushes == tuple(array.tolist())
        rebuilt = TokenRow(*row.tokens._columns())  # the same tokens as tuples
        assert rebuilt == row.tokens and hash(rebuilt) == hash(row.tokens)
