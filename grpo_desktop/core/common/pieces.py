"""Work cut into pieces that a GUI runs one per turn of its event loop, so no turn holds a frame.

The Update step's inner steps (the stand-in's and the tiny model's) are generators that yield
after each piece; :class:`Pieces` gives both the same way to run the next piece, or the rest.
"""

from __future__ import annotations

from collections.abc import Iterator


class Pieces:
    """A computation as pieces: ``_pieces`` yields once after each, ``done`` once all have run
    (or nothing was left to run when it was made)."""

    _pieces: Iterator[None]
    done: bool

    def advance(self) -> bool:
        """Run the next piece; whether all have run."""
        if not self.done:
            try:
                next(self._pieces)
            except StopIteration:
                self.done = True
        return self.done

    def run(self) -> None:
        """Run every piece left."""
        while not self.advance():
            pass
