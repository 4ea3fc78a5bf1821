"""The ``grpo-desktop`` entry point: ``score`` runs headless; anything else opens the window."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "score":
        from grpo_desktop.cli import run_score

        return run_score(args[1:])
    from grpo_desktop.cli import build_score_parser

    build_score_parser().print_help()
    return 0
