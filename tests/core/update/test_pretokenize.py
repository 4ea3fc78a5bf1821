"""GPT-2's pre-tokenizer, rebuilt on ``re``: the same pieces the ``regex`` original produces.

Every expected split in ``CASES`` was produced by the third-party ``regex`` module running
``GPT2_PATTERN`` itself (regex 2026.11.19), so these tests pin the ``re`` rebuild to the original
without making ``regex`` a dependency.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grpo_desktop.core.update.pretokenize import (
    GPT2_PATTERN,
    Token,
    _pattern_for,
    answer_piece_mask,
    answer_token_mask,
    pretokenize,
    pretokenize_pieces,
)

CASES: list[tuple[str, tuple[str, ...]]] = [
    ("x²", ("x", "²")),
    ("35²", ("35²",)),
    ("= 35² − 12²", ("=", " 35²", " −", " 12²")),
    ("8 − 20 = −12", ("8", " −", " 20", " =", " −", "12")),
    ("23 × 47 = 1081", ("23", " ×", " 47", " =", " 1081")),
    ("\\boxed{1081}", ("\\", "boxed", "{", "1081", "}")),
    ("Answer: 1,081", ("Answer", ":", " 1", ",", "081")),
    ("can't", ("can", "'t")),
    (
        "he's we'll they're I'm you'd I've",
        ("he", "'s", " we", "'ll", " they", "'re", " I", "'m", " you", "'d", " I", "'ve"),
    ),
    ("'S", ("'", "S")),
    ("  two spaces", (" ", " two", " spaces")),
    ("line\nnext", ("line", "\n", "next")),
    ("trailing  ", ("trailing", "  ")),
    ("a\n\n b", ("a", "\n\n", " b")),
    ("x\r\ny", ("x", "\r", "\n", "y")),
    ("a\tb", ("a", "\t", "b")),
    ("½ + ¼", ("½", " +", " ¼")),
    ("Ⅻ", ("Ⅻ",)),
    ("٣٤٥ + 1", ("٣٤٥", " +", " 1")),
    ("café naïve", ("café", " naïve")),
    ("日本語", ("日本語",)),
    ("α+β=γ", ("α", "+", "β", "=", "γ")),
    ("x⁴+y₂", ("x", "⁴", "+", "y", "₂")),
    ("a\u00a0b", ("a", "\u00a0", "b")),
    ("a \u3000b", ("a", " ", "\u3000", "b")),
    ("x\x1cy", ("x", "\x1c", "y")),
    ("a\x1c b", ("a", "\x1c", " b")),
    ("\U0001f642 ok", ("\U0001f642", " ok")),
    ("e\u0301", ("e", "\u0301")),
    ("$5.00", ("$", "5", ".", "00")),
    ("50%", ("50", "%")),
    ("3/4", ("3", "/", "4")),
    ("C(12, 2)", ("C", "(", "12", ",", " 2", ")")),
    ("1.5e10", ("1", ".", "5", "e", "10")),
    ("✓ done", ("✓", " done")),
    ("…", ("…",)),
    ("", ()),
    (
        "20 × 47 = 940\n3 × 47 = 141\n940 + 141 = 1081",
        (
            "20",
            " ×",
            " 47",
            " =",
            " 940",
            "\n",
            "3",
            " ×",
            " 47",
            " =",
            " 141",
            "\n",
            "940",
            " +",
            " 141",
            " =",
            " 1081",
        ),
    ),
    (
        "23 × 47 = (35 − 12)(35 + 12)\n= 35² − 12²\n= 1225 − 144\n\\boxed{1081}",
        (
            "23",
            " ×",
            " 47",
            " =",
            " (",
            "35",
            " −",
            " 12",
            ")(",
            "35",
            " +",
            " 12",
            ")",
            "\n",
            "=",
            " 35²",
            " −",
            " 12²",
            "\n",
            "=",
            " 1225",
            " −",
            " 144",
            "\n",
            "\\",
            "boxed",
            "{",
            "1081",
            "}",
        ),
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[repr(c[0])[:30] for c in CASES])
def test_pretokenize_matches_the_regex_original(text: str, expected: tuple[str, ...]) -> None:
    assert tuple(token.text for token in pretokenize(text)) == expected


def test_tokens_carry_their_offsets() -> None:
    assert pretokenize("x² = 4") == (
        Token("x", 0, 1),
        Token("²", 1, 2),
        Token(" =", 2, 4),
        Token(" 4", 4, 6),
    )


@given(st.text(max_size=60))
def test_tokens_tile_the_text(text: str) -> None:
    tokens = pretokenize(text)
    assert "".join(token.text for token in tokens) == text
    position = 0
    for token in tokens:
        assert token.start == position and token.end > token.start
        assert text[token.start : token.end] == token.text
        position = token.end
    assert position == len(text)


def test_the_displayed_pattern_is_gpt2s() -> None:
    assert GPT2_PATTERN == (
        r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    )


def test_symbols_that_are_neither_letters_nor_numbers_share_one_pattern() -> None:
    assert _pattern_for("23 × 47") is _pattern_for("8 − 20") is _pattern_for("plain")
    assert _pattern_for("x²") is not _pattern_for("plain")


def test_answer_token_mask_marks_tokens_overlapping_the_span() -> None:
    text = "940 + 141 = 1081"
    tokens = pretokenize(text)
    start = text.rindex("1081")
    assert answer_token_mask(tokens, (start, start + 4)) == (False, False, False, False, True)
    # A span starting inside a token (after its leading space) still marks that token.
    assert answer_token_mask(tokens, (7, 9)) == (False, False, True, False, False)


def test_answer_token_mask_without_a_span_marks_nothing() -> None:
    tokens = pretokenize("no number")
    assert answer_token_mask(tokens, None) == (False, False)
    assert answer_token_mask(tokens, (3, 3)) == (False, False)
    assert answer_token_mask((), (0, 4)) == ()


@given(st.text(max_size=60), st.integers(-2, 62), st.integers(-2, 62))
def test_pieces_alone_are_the_tokens_texts_and_mark_the_same_answer(text, first, last) -> None:
    tokens = pretokenize(text)
    pieces = pretokenize_pieces(text)
    assert pieces == tuple(token.text for token in tokens)
    for span in (None, (first, last)):
        assert answer_piece_mask(pieces, span) == answer_token_mask(tokens, span)
