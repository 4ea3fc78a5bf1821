"""The package's shape: no class over 600 lines (issue 27: a class does one job)."""

from __future__ import annotations

import ast
import pathlib

import grpo_desktop

MAX_CLASS_LINES = 600


def class_lengths() -> dict[str, int]:
    root = pathlib.Path(grpo_desktop.__file__).parent
    lengths = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                name = f"{path.relative_to(root.parent)}:{node.name}"
                lengths[name] = node.end_lineno - start + 1
    return lengths


def test_no_class_in_the_package_is_over_600_lines():
    lengths = class_lengths()
    assert lengths  # the walk found the package's classes
    too_long = {name: n for name, n in lengths.items() if n > MAX_CLASS_LINES}
    assert not too_long, f"split these by job: {too_long}"
