"""The tiny model's characters: one token per character, plus padding and a start token.

Pure Python. A character vocabulary keeps the model small and every token readable on a card:
the class sees exactly what the network reads and writes. ``END`` closes an answer, so a
completion such as ``"68."`` is two digits and the end token.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BOS_ID",
    "CHARACTERS",
    "END",
    "END_ID",
    "PAD_ID",
    "VOCAB_SIZE",
    "UnknownCharactersError",
    "decode",
    "encode",
]

END = "."
#: Token 0 pads, token 1 starts every sequence; the rest are characters a prompt may use.
CHARACTERS = END + "0123456789+-=* abcdefghijklmnopqrstuvwxyz"
PAD_ID = 0
BOS_ID = 1
_OFFSET = 2
END_ID = _OFFSET + CHARACTERS.index(END)
VOCAB_SIZE = _OFFSET + len(CHARACTERS)
_IDS = {char: _OFFSET + index for index, char in enumerate(CHARACTERS)}


class UnknownCharactersError(ValueError):
    """Text holds characters the model has no token for; the message names them."""


def encode(text: str, what: str = "prompt") -> list[int]:
    """Token ids of ``text``; UnknownCharactersError naming each character it cannot read."""
    if not isinstance(text, str):
        raise UnknownCharactersError(f"{what} must be text, got {type(text).__name__}")
    unknown = sorted({char for char in text if char not in _IDS})
    if unknown:
        shown = ", ".join(repr(char) for char in unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise UnknownCharactersError(
            f"{what} {text[:40]!r} has characters the model cannot read: {shown}{more} "
            f"(it reads digits, + - = *, space, a-z and {END!r})"
        )
    return [_IDS[char] for char in text]


def decode(ids: np.ndarray | list[int]) -> str:
    """Text of token ids; padding and the start token are dropped."""
    return "".join(CHARACTERS[i - _OFFSET] for i in np.asarray(ids).tolist() if i >= _OFFSET)
